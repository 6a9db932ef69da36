"""Shared facts about the repository for the tests."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
# the build tools (notebook runner, lecture material) live beside the Sphinx
# extension
sys.path.insert(0, str(ROOT / "book" / "_ext"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# the Chinese notebooks (book/_ext/edition.py): English ones, prose translated
ZH_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh").glob("*.ipynb"))
# what a class gets, in either language: slides and handouts
LECTURE_NOTEBOOKS = NOTEBOOKS + ZH_NOTEBOOKS


def lecture_id(path: Path) -> str:
    return f"zh-{path.stem}" if path.parent.name == "zh" else path.stem


CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def colab_url(notebook: Path) -> str:
    """The Colab link a notebook must carry, derived from the repository set in
    _config.yml."""
    repo = (
        CONFIG["repository"]["url"]
        .removeprefix("https://github.com/")
        .rstrip("/")
    )
    relative = notebook.resolve().relative_to(ROOT).as_posix()
    return (
        "https://colab.research.google.com/github/"
        f"{repo}/blob/{CONFIG['repository']['branch']}/{relative}"
    )


def notebook_id(path: Path) -> str:
    return path.stem


def toc_entries():
    """Every page of _toc.yml, as a path without suffix relative to the
    repository."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    entries = [toc["root"]]
    for part in toc.get("parts", [toc]):
        entries += [chapter["file"] for chapter in part.get("chapters", [])]
    return [str(Path(entry).with_suffix("")) for entry in entries]


def chinese_entries():
    """The pages of the Chinese edition that are fully translated (the ones
    the English site links to), as zh/<page>."""
    import edition

    return [f"zh/{page}" for page in edition.translated_pages()]


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The website, built once per test worker with warnings as errors."""
    out = tmp_path_factory.mktemp("book")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    result = subprocess.run(
        [
            str(jupyter_book),
            "build",
            str(ROOT),
            "--path-output",
            str(out),
            "-W",
            "-n",
            "--keep-going",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"jupyter-book build failed:\n{log[-6000:]}"
    assert "WARNING" not in log, f"the build warned:\n{log[-6000:]}"
    html = out / "_build" / "html"
    # the Chinese edition, as `make book` places it: html/zh/
    import edition

    config = edition.config(
        ROOT / f"_config.zh.{os.getpid()}.yml"
    )  # per worker
    try:
        result = subprocess.run(
            [str(jupyter_book), "build", str(ROOT), "--config", str(config)]
            + ["--path-output", str(out / "zh"), "-W", "-n", "--keep-going"],
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        config.unlink()
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"the Chinese build failed:\n{log[-6000:]}"
    assert "WARNING" not in log, f"the Chinese build warned:\n{log[-6000:]}"
    shutil.copytree(out / "zh" / "_build" / "html", html / "zh")
    return html
