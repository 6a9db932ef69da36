"""Every page of the built website, opened in a real (headless) Chromium served
from 127.0.0.1.

Checks what a reader sees: no console errors, no failed requests, no request to
any other host, every image loaded with alt text, math typeset, widgets drawn
from their saved state, and no serious or critical accessibility violation
(axe-core). Saves a screenshot of each chapter page to _build/screenshots/ for
a person to look at.
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
