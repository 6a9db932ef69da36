"""The website: builds with warnings as errors, and every page shows what the notebooks stored."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, colab_url

pytestmark = pytest.mark.xdist_group("book")  # one worker builds the site once for all these tests
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())


def toc_entries():
    entries = [TOC["root"]]
    for part in TOC.get("parts", [TOC]):
        entries += [chapter["file"] for chapter in part.get("chapters", [])]
    return entries


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("book")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    result = subprocess.run([str(jupyter_book), "build", str(ROOT), "--path-output", str(out), "-W", "-n", "--keep-going"],
                            capture_output=True, text=True, timeout=900)
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"jupyter-book build failed:\n{log[-6000:]}"
    assert "WARNING" not in log, f"the build warned:\n{log[-6000:]}"
    return out / "_build" / "html"


@pytest.mark.parametrize("entry", toc_entries())
def test_every_toc_entry_has_a_page(site, entry):
    page = site / f"{Path(entry).with_suffix('')}.html"
    assert page.is_file(), f"{entry} listed in _toc.yml has no page {page.name}"


@pytest.mark.parametrize("entry", [e for e in toc_entries() if e.startswith("notebooks/")])
def test_chapter_page_keeps_widgets_and_colab_link(site, entry):
    notebook = ROOT / (entry if entry.endswith(".ipynb") else f"{entry}.ipynb")
    html = (site / f"{Path(entry).with_suffix('')}.html").read_text()
    assert colab_url(notebook) in html, "the Colab link is missing from the page"
    if "application/vnd.jupyter.widget-view+json" in notebook.read_text():
        assert "application/vnd.jupyter.widget-state+json" in html, "widget state missing: widgets would vanish"
    assert "<img" in html, "no figure on the chapter page"
