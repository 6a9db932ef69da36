"""The website: builds with warnings as errors, and every page shows what the
notebooks stored."""

import re

import pytest
from conftest import ROOT, chinese_entries, colab_url, toc_entries

# One worker builds the site once for all these tests.
pytestmark = pytest.mark.xdist_group("book")
CDN_HOSTS = re.compile(
    r"cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|unpkg\.com|fonts\.googleapis\.com|"
    r"fonts\.gstatic\.com|colab\.research\.google\.com/assets"
)


@pytest.mark.parametrize("entry", toc_entries())
def test_every_toc_entry_has_a_page(site, entry):
    assert (site / f"{entry}.html").is_file(), (
        f"{entry} is listed in _toc.yml but has no page"
    )


@pytest.mark.parametrize(
    "entry", [e for e in toc_entries() if e.startswith("notebooks/")]
)
def test_chapter_page_keeps_widgets_and_colab_link(site, entry):
    notebook = ROOT / f"{entry}.ipynb"
    html = (site / f"{entry}.html").read_text()
    assert colab_url(notebook) in html, (
        "the Colab link is missing from the page"
    )
    if "application/vnd.jupyter.widget-view+json" in notebook.read_text():
        assert 'class="try-it-data"' in html, (
            "no Try-it description on the page: its widget would vanish"
        )
    assert "<img" in html, "no figure on the chapter page"


def test_site_needs_no_third_party_server(site):
    """Pages and their assets name no CDN: the site works from a folder with no
    network."""
    offenders = [
        str(path.relative_to(site))
        for path in site.rglob("*")
        if path.suffix in {".html", ".js", ".css"}
        and CDN_HOSTS.search(path.read_text(errors="ignore"))
    ]
    assert not offenders, f"these files still name a CDN host: {offenders[:10]}"


PAGE_BUDGET = 1.5e6  # bytes: a chapter page, its figures and its frames


@pytest.mark.parametrize(
    "entry",
    [
        entry
        for entry in toc_entries() + chinese_entries()
        if entry.startswith(("notebooks/", "zh/notebooks/"))
    ],
)
def test_chapter_page_stays_light(site, entry):
    """The page itself, with the figures it shows and every Try-it frame
    (each loads when a reader picks it), weighs under PAGE_BUDGET; the
    scripts and fonts every page shares are not counted."""
    page = site / f"{entry}.html"
    html = page.read_text()
    figures = {
        (page.parent / source).resolve()
        for source in re.findall(r'<img[^>]+src="([^"]+)"', html)
        + re.findall(r'"src": "([^"]+)"', html)  # the Try-it frames
        if not source.startswith(("data:", "http"))
    }
    weight = len(html.encode()) + sum(f.stat().st_size for f in figures)
    assert weight < PAGE_BUDGET, (
        f"{entry}: {weight / 1e6:.2f} MB with its figures"
    )


def test_chinese_pages_link_to_their_english_originals(site):
    """A fully translated page is in Chinese on the Chinese site and links
    back; its English original links to it."""
    import edition

    translated = edition.translated_pages()
    assert translated, "no page of the Chinese edition is translated yet"
    for page in translated:
        up = "../" * page.count("/")
        chinese = (site / "zh" / f"{page}.html").read_text()
        assert '<html lang="zh-CN"' in chinese or 'lang="zh-CN"' in chinese
        assert f'href="../{up}{page}.html" hreflang="en"' in chinese
        if page.startswith("notebooks/"):
            name = page.removeprefix("notebooks/")
            chinese_notebook = ROOT / "notebooks" / "zh" / f"{name}.ipynb"
            assert colab_url(chinese_notebook) in chinese, (
                f"{page}: its Colab link does not open the Chinese notebook"
            )
        heading = re.search(r"<h1>([^<]*)", chinese).group(1)
        assert re.search("[\u4e00-\u9fff]", heading), (
            f"{page}: its title is not translated: {heading!r}"
        )
        english = (site / f"{page}.html").read_text()
        assert f'href="{up}zh/{page}.html" hreflang="zh-CN"' in english
