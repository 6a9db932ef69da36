"""Every page of the built website, opened in a real (headless) Chromium served
from 127.0.0.1.

Checks what a reader sees: no console errors, no failed requests, no request to
any other host, every image loaded with alt text, math typeset, widgets drawn
from their saved state, and no serious or critical accessibility violation
(axe-core). On chapter pages, the Try-it controls are moved as a reader would
and must show the frames the notebook stored for each setting. Saves a
screenshot of each chapter page to _build/screenshots/ for a person to look at.
"""

import functools
import http.server
import os
import shutil
import threading

import pytest
from conftest import ROOT, toc_entries

pytestmark = pytest.mark.xdist_group(
    "book"
)  # shares the site built for test_book.py
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

if CHROMIUM is None:
    message = (
        "Chromium is needed for the browser test: "
        "install it with `sudo apt-get install chromium`"
    )
    if os.environ.get("CI"):
        raise RuntimeError(message)  # mandatory in CI: .ci/run installs it
    pytestmark = [pytestmark, pytest.mark.skip(reason=message)]


@pytest.fixture(scope="module")
def server(site):
    yield from serve(site)


def serve(directory):
    """Serve `directory` on 127.0.0.1 for as long as the generator is not
    closed."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def open_page(browser, url, viewport=None):
    """Load `url`, recording console errors, failed requests and requests to
    other hosts."""
    page = browser.new_page(viewport=viewport or {"width": 1280, "height": 900})
    seen = {"console errors": [], "failed requests": [], "other hosts": []}
    origin = url.split("/", 3)[:3]
    page.on(
        "console",
        lambda msg: (
            msg.type == "error" and seen["console errors"].append(msg.text)
        ),
    )
    page.on(
        "pageerror", lambda error: seen["console errors"].append(str(error))
    )
    page.on(
        "requestfailed",
        lambda request: seen["failed requests"].append(request.url),
    )
    page.on(
        "response",
        lambda response: (
            response.status >= 400
            and seen["failed requests"].append(
                f"{response.status} {response.url}"
            )
        ),
    )

    def only_local(route):
        if route.request.url.split("/", 3)[
            :3
        ] == origin or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            seen["other hosts"].append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(url, wait_until="networkidle")
    return page, seen


@pytest.mark.parametrize("entry", toc_entries())
def test_page_in_a_real_browser(browser, server, entry):
    from axe_playwright_python.sync_playwright import Axe

    page, seen = open_page(browser, f"{server}/{entry}.html")
    problems = {}
    broken_images = page.evaluate(
        "() => Array.from(document.images)\n"
        "        .filter(img => !img.complete || img.naturalWidth === 0 "
        "|| !img.alt.trim())\n"
        "        .map(img => img.src + ' alt=' + JSON.stringify(img.alt))"
    )
    if broken_images:
        problems["images not loaded or without alt text"] = broken_images
    if page.locator(".math").count():
        page.wait_for_selector("mjx-container", state="attached", timeout=15000)
        if (
            page.locator(".math mjx-container, mjx-container.MathJax").count()
            == 0
        ):
            problems["math"] = ["no formula was typeset"]
    if page.locator(
        "script[type='application/vnd.jupyter.widget-state+json']"
    ).count():
        page.wait_for_selector(
            ".widget-vbox, .widget-interact", state="attached", timeout=15000
        )
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(
        1000
    )  # errors of scripts that run after the page has settled count too
    problems.update({kind: items for kind, items in seen.items() if items})
    serious = [
        (
            f"{v['id']}: {v['help']} at "
            f"{[node['target'] for node in v['nodes']][:3]}"
        )
        for v in Axe().run(page).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    if serious:
        problems["serious accessibility violations"] = serious
    if entry.startswith("notebooks/"):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(SCREENSHOTS / f"{entry.split('/')[-1]}.png"),
            full_page=True,
        )
    page.close()
    assert not problems, "\n".join(
        f"{kind}: {items[:8]}" for kind, items in problems.items()
    )


def precomputed_widgets(notebook):
    """The precomputed Try-it widgets of `notebook`, from its saved widget
    state: for each, (controls, frame) where controls is a list of
    (description, option labels, initial index) in nesting order and
    frame(indices) is the base64 PNG stored for that combination."""
    import nbformat

    state = nbformat.read(notebook, as_version=4).metadata["widgets"][
        "application/vnd.jupyter.widget-state+json"
    ]["state"]

    def model(reference):
        return state[reference.removeprefix("IPY_MODEL_")]["state"]

    control_of = {
        m["state"]["target"][0].removeprefix("IPY_MODEL_"): model(
            m["state"]["source"][0]
        )
        for m in state.values()
        if m["model_name"] == "LinkModel"
    }
    tabs = {
        key
        for key, m in state.items()
        if "precomputed-frames" in m["state"].get("_dom_classes", [])
    }
    nested = {
        child.removeprefix("IPY_MODEL_")
        for key in tabs
        for child in state[key]["state"]["children"]
    }
    found = []
    for root in sorted(tabs - nested):
        controls, key = [], root
        while key in tabs:
            control = control_of[key]
            controls.append(
                (
                    control["description"],
                    control["_options_labels"],
                    control["index"],
                )
            )
            key = state[key]["state"]["children"][0].removeprefix("IPY_MODEL_")

        def frame(indices, root=root):
            key = root
            for index in indices:
                key = state[key]["state"]["children"][index]
                key = key.removeprefix("IPY_MODEL_")
            images = [
                output["data"]["image/png"]
                for output in state[key]["state"]["outputs"]
                if "image/png" in output.get("data", {})
            ]
            return "".join(images[0].split()) if images else None

        found.append((controls, frame))
    return found


def choose(page, container, description, labels, index):
    """Set the control labelled `description` to option `index`, as a reader
    would: click the button, or drag the slider with the keyboard."""
    control = container.locator(
        ".widget-inline-hbox, .widget-hbox, .widget-toggle-buttons",
        has=page.locator(f".widget-label:text-is('{description}')"),
    ).first
    buttons = control.locator("button")
    if buttons.count():
        buttons.nth(index).click()
        return
    handle = control.locator(".noUi-handle, .ui-slider-handle").first
    handle.focus()
    handle.press("Home")
    for _ in range(index):
        handle.press("ArrowRight")


SHOWN_FRAME = (
    "container => Array.from(container.querySelectorAll("
    "'.precomputed-frames img')).filter(img => img.offsetParent !== null)"
    ".map(img => img.src.split(',')[1])"
)


def wrong_frames(page, container, controls, frame):
    """Move every control of one precomputed widget through all its options;
    the settings at which the figure shown is not the stored frame."""
    wrong, indices = [], [index for *_, index in controls]
    for level, (description, labels, _) in enumerate(controls):
        for index in range(len(labels)):
            choose(page, container, description, labels, index)
            indices[level] = index
            page.wait_for_timeout(100)
            if container.evaluate(SHOWN_FRAME) != [frame(indices)]:
                wrong.append(f"{description} = {labels[index]}")
    return wrong


@pytest.mark.parametrize(
    "entry", [e for e in toc_entries() if e.startswith("notebooks/")]
)
def test_try_it_answers_its_controls(browser, server, entry):
    """On the website, moving a Try-it control shows the figure the notebook
    computed for that setting (its stored frame), with no kernel."""
    widgets_found = precomputed_widgets(ROOT / f"{entry}.ipynb")
    assert widgets_found, "the Try it section has precomputed frames"
    page, seen = open_page(browser, f"{server}/{entry}.html")
    page.wait_for_selector(".precomputed-frames", timeout=15000)
    containers = page.locator(".widget-vbox:has(> .precomputed-frames)")
    assert containers.count() == len(widgets_found)
    tab_bars = page.evaluate(
        "Array.from(document.querySelectorAll('.precomputed-frames > "
        ".lm-TabBar, .precomputed-frames > .p-TabBar'))"
        ".filter(bar => bar.offsetParent !== null).length"
    )
    wrong = [f"{tab_bars} tab bars visible"] if tab_bars else []
    for number, (controls, frame) in enumerate(widgets_found):
        container = containers.nth(number)
        container.scroll_into_view_if_needed()
        wrong += wrong_frames(page, container, controls, frame)
    page.wait_for_timeout(500)
    page.close()
    problems = [f"{kind}: {items[:4]}" for kind, items in seen.items() if items]
    if wrong:
        problems.append(f"figure not the stored frame for {wrong[:6]}")
    assert not problems, "\n".join(problems)
