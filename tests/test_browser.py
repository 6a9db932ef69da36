"""Every page of the built website, opened in a real (headless) Chromium served
from 127.0.0.1.

Checks what a reader sees: no console errors, no failed requests, no request to
any other host, every image loaded with alt text, math typeset, widgets drawn
from their saved state, and no serious or critical accessibility violation
(axe-core). On chapter pages, the Try-it controls are moved as a reader would
and must show the frames the notebook stored for each setting. Saves a
screenshot of each chapter page to _build/screenshots/ for a person to look at.
"""

import base64
import functools
import hashlib
import http.server
import math
import os
import shutil
import struct
import subprocess
import threading

import pytest
from conftest import ROOT, chinese_entries, toc_entries

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


def cjk_font():
    """Whether a system font has Chinese glyphs (Chromium draws boxes
    without one; the site downloads no web font)."""
    fonts = subprocess.run(
        ["fc-list", ":lang=zh"], capture_output=True, text=True
    )
    return bool(fonts.stdout.strip())


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


SCROLL_THROUGH = """async () => {
  for (let y = 0; y < document.body.scrollHeight; y += 500) {
    window.scrollTo(0, y);
    await new Promise(done => setTimeout(done, 30));
  }
  window.scrollTo(0, 0);
}"""


@pytest.mark.parametrize("entry", toc_entries() + chinese_entries())
def test_page_in_a_real_browser(browser, server, entry):
    from axe_playwright_python.sync_playwright import Axe

    page, seen = open_page(browser, f"{server}/{entry}.html")
    problems = {}
    if entry.startswith("zh/") and not cjk_font():
        problems["no font with Chinese glyphs"] = [
            "install one: sudo apt-get install fonts-noto-cjk"
        ]
    # every figure must load, also those of the folded optional sections
    page.evaluate(
        "document.querySelectorAll('details.going-deeper-fold')"
        ".forEach(d => d.open = true)"
    )
    page.evaluate(SCROLL_THROUGH)  # figures load as they come near the screen
    page.wait_for_load_state("networkidle")
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
    if entry.startswith("notebooks/"):
        page.wait_for_selector(".try-it img", state="attached", timeout=15000)
    untitled = page.evaluate(
        "Array.from(document.querySelectorAll('details.hide > summary'))"
        ".map(s => s.textContent.trim())"
        ".filter(t => /^(Show|Hide) code cell/.test(t))"
    )
    if untitled:
        problems["folds that do not say what they hold"] = untitled
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


CHAPTERS = [e for e in toc_entries() if e.startswith("notebooks/")]


def stored_frame(png):
    """The file name the build gives a stored frame, and its resolution in
    pixels per inch (matplotlib writes it in the PNG's pHYs chunk)."""
    data = base64.b64decode("".join(png.split()))
    at = data.find(b"pHYs")
    per_metre = struct.unpack(">I", data[at + 4 : at + 8])[0] if at > 0 else 0
    name = hashlib.sha256(data).hexdigest()[:16] + ".png"
    return name, round(per_metre * 0.0254)


def pick(box, level, index):
    """Set control `level` of a Try it to option `index`, as a reader would:
    click the button, or move the slider with the keyboard."""
    control = box.locator(".try-it-control").nth(level)
    slider = control.locator("input[type=range]")
    if not slider.count():
        control.locator("button").nth(index).click()
        return
    slider.focus()
    slider.press("Home")
    for _ in range(index):
        slider.press("ArrowRight")


@pytest.mark.parametrize(
    "entry",
    CHAPTERS + [e for e in chinese_entries() if e.startswith("zh/notebooks/")],
)
def test_try_it_answers_its_controls(browser, server, entry):
    """On the website, in either language, moving a Try-it control shows the
    figure the notebook computed for that setting (its stored frame), with no
    kernel."""
    widgets_found = precomputed_widgets(
        ROOT / f"{entry.removeprefix('zh/')}.ipynb"
    )
    assert widgets_found, "the Try it section has precomputed frames"
    page, seen = open_page(browser, f"{server}/{entry}.html")
    boxes = page.locator(".try-it")
    assert boxes.count() == len(widgets_found)
    wrong = []
    for number, (controls, frame) in enumerate(widgets_found):
        box = boxes.nth(number)
        box.scroll_into_view_if_needed()
        indices = [index for *_, index in controls]
        for level, (description, labels, _) in enumerate(controls):
            for index in range(len(labels)):
                pick(box, level, index)
                indices[level] = index
                shown = box.locator(".try-it-image").get_attribute("src")
                if not shown.endswith("/" + stored_frame(frame(indices))[0]):
                    wrong.append(f"{description} = {labels[index]}")
    page.wait_for_timeout(500)
    page.close()
    problems = [f"{kind}: {items[:4]}" for kind, items in seen.items() if items]
    if wrong:
        problems.append(f"figure not the stored frame for {wrong[:6]}")
    assert not problems, "\n".join(problems)


TRY_IT_SIZES = """box => {
  const img = box.querySelector('.try-it-image');
  const article = document.querySelector('article.bd-article');
  const style = getComputedStyle(article);
  return {
    column: article.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight),
    shown: img.getBoundingClientRect().width,
    natural: img.naturalWidth,
    sliders: Array.from(box.querySelectorAll('input[type=range]'))
      .map(s => s.getBoundingClientRect().width),
    cut: Array.from(box.querySelectorAll('button'))
      .filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.textContent),
  };
}"""


@pytest.mark.parametrize("entry", CHAPTERS)
@pytest.mark.parametrize("width", [1280, 1440])
def test_try_it_frames_can_be_read(browser, server, entry, width):
    """A Try-it frame fills the column, is sharp on a 2x laptop screen (1440
    pixels; a 1280-pixel projector shows 1x), draws its axis text (10 pt) at
    11 px or more; sliders are 200 px or longer and every button label fits
    its button."""
    controls, frame = precomputed_widgets(ROOT / f"{entry}.ipynb")[0]
    page, _ = open_page(
        browser, f"{server}/{entry}.html", {"width": width, "height": 900}
    )
    box = page.locator(".try-it").first
    box.scroll_into_view_if_needed()
    page.wait_for_function(
        "box => box.querySelector('.try-it-image').complete",
        arg=box.element_handle(),
    )
    size = box.evaluate(TRY_IT_SIZES)
    page.close()
    _, dpi = stored_frame(frame([index for *_, index in controls]))
    axis_text = 10 / 72 * dpi * size["shown"] / size["natural"]
    problems = []
    if size["shown"] < 0.9 * size["column"]:
        problems.append(
            f"frame {size['shown']:.0f} px in a {size['column']:.0f} px column"
        )
    if width == 1440 and size["natural"] < 1.75 * size["shown"]:
        problems.append(
            f"frame {size['natural']} px drawn at {size['shown']:.0f} px: "
            "blurred on a 2x screen"
        )
    if axis_text < 11:
        problems.append(f"10 pt axis text shows at {axis_text:.1f} px")
    if any(slider < 200 for slider in size["sliders"]):
        problems.append(f"slider tracks {size['sliders']} px")
    if size["cut"]:
        problems.append(f"labels that do not fit their buttons: {size['cut']}")
    assert not problems, "\n".join(problems)


OVERFLOW = """open => {
  if (open) document.querySelectorAll('details').forEach(d => d.open = true);
  const blocks = 'pre, mjx-container[display="true"]';
  const wide = Array.from(document.querySelectorAll(blocks))
    .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.trim().slice(0, 50));
  return {page: document.documentElement.scrollWidth - window.innerWidth, wide};
}"""


@pytest.mark.parametrize("entry", toc_entries() + chinese_entries())
def test_nothing_scrolls_sideways(browser, server, entry):
    """No page scrolls sideways on a 390-pixel phone; at 1280 (a projector)
    and 1440 pixels every listing and output, folds opened, fits its column.
    (On a phone a listing may scroll inside its own box.)"""
    problems = []
    for width in (390, 1280, 1440):
        page, _ = open_page(
            browser, f"{server}/{entry}.html", {"width": width, "height": 900}
        )
        found = page.evaluate(OVERFLOW, width > 390)
        page.close()
        if found["page"] > 0:
            problems.append(
                f"{width} px: the page scrolls {found['page']} px sideways"
            )
        if width > 390 and found["wide"]:
            problems.append(
                f"{width} px: blocks wider than the column: {found['wide'][:5]}"
            )
    assert not problems, "\n".join(problems)


THROTTLE = {
    "offline": False,
    "latency": 40,
    "downloadThroughput": 10e6 / 8,
    "uploadThroughput": 10e6 / 8,
}
FIRST_PAINT_S = 1.5
BEFORE_PAINT_BYTES = 1e6
CHAPTER_BYTES = 3e6
PAGE_BYTES = 1.5e6
MEASURE = """() => {
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const page = performance.getEntriesByType('navigation')[0];
  const before = performance.getEntriesByType('resource')
    .filter(r => r.responseEnd <= paint.startTime)
    .reduce((sum, r) => sum + r.encodedBodySize, page.encodedBodySize);
  return {paint: paint.startTime / 1000, before};
}"""


def throttled_visit(browser, url):
    """First paint (s), bytes that arrived before it (the whole page counted)
    and bytes of the visit, on a 10 Mbit/s link with 40 ms of latency and
    nothing cached."""
    from playwright.sync_api import TimeoutError

    page = browser.new_page(viewport={"width": 1440, "height": 900})
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", THROTTLE)
    received = []
    cdp.on("Network.dataReceived", lambda e: received.append(e["dataLength"]))
    try:
        page.goto(url, wait_until="load", timeout=30000)
        page.wait_for_load_state("networkidle", timeout=30000)
        found = page.evaluate(MEASURE)
    except TimeoutError:  # playwright's; counts as a failed visit
        found = {"paint": math.inf, "before": math.inf}
        received = [math.inf]
    finally:
        page.close()
    return found["paint"], found["before"], sum(received)


@pytest.mark.parametrize("entry", toc_entries() + chinese_entries())
def test_text_paints_first_on_a_slow_link(browser, server, entry):
    """On a 10 Mbit/s link with 40 ms of latency the text paints within 1.5 s,
    after at most 1 MB; a chapter's whole first visit is at most 3 MB, a page
    without a Try it at most 1.5 MB (uncompressed). A page that misses gets
    a second visit, and the better of the two counts: a busy machine can
    delay one paint."""
    url = f"{server}/{entry}.html"
    chapter = entry.removeprefix("zh/").startswith("notebooks/")
    budget = CHAPTER_BYTES if chapter else PAGE_BYTES

    def problems_of(visits):
        paint = min(v[0] for v in visits)
        before = min(v[1] for v in visits)
        total = min(v[2] for v in visits)
        problems = []
        if paint > FIRST_PAINT_S:
            problems.append(f"first paint after {paint:.2f} s")
        if before > BEFORE_PAINT_BYTES:
            problems.append(f"{before / 1e6:.2f} MB before the first paint")
        if total > budget:
            problems.append(
                f"{total / 1e6:.2f} MB in all (budget {budget / 1e6} MB)"
            )
        return problems

    visits = [throttled_visit(browser, url)]
    if problems_of(visits):
        visits.append(throttled_visit(browser, url))
    problems = problems_of(visits)
    assert not problems, "\n".join(problems)
