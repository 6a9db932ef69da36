"""The Chinese edition (book/_ext/edition.py): its catalogs follow the English
prose, translations land in the right place of a notebook, and the Chinese
website builds.

A changed English paragraph fails `test_catalogs_follow_the_english` until
`make catalogs` has updated the catalogs, and then `test_no_stale_translation`
until its translation is updated too."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import NOTEBOOKS, ROOT

pytestmark = pytest.mark.xdist_group("edition")


@pytest.fixture(scope="module")
def english_messages():
    """{page: set of messages} extracted now from the English sources."""
    import edition
    from babel.messages.pofile import read_po

    with tempfile.TemporaryDirectory() as tmp:
        pot_dir = edition.extract(tmp)
        result = {}
        for pot in pot_dir.rglob("*.pot"):
            with pot.open("rb") as file:
                page = pot.relative_to(pot_dir).with_suffix("").as_posix()
                result[page] = {m.id for m in read_po(file) if m.id}
    return result


def test_catalogs_follow_the_english(english_messages):
    import edition

    catalogs = {
        page: {m.id for m in messages}
        for page, (messages, *_) in edition.status().items()
    }
    problems = []
    for page in sorted(set(english_messages) | set(catalogs)):
        new = english_messages.get(page, set()) - catalogs.get(page, set())
        gone = catalogs.get(page, set()) - english_messages.get(page, set())
        problems += [f"{page}: not in the catalog: {m[:90]!r}" for m in new]
        problems += [f"{page}: no longer in English: {m[:90]!r}" for m in gone]
    assert not problems, (
        "the English prose changed; run `make catalogs`, then translate:\n"
        + "\n".join(problems[:30])
    )


def test_no_stale_translation():
    import edition

    problems = [
        f"{page}: stale: {message.id[:90]!r}"
        for page, (_, _, stale, obsolete) in edition.status().items()
        for message in stale + obsolete
    ]
    assert not problems, (
        "these English messages changed since they were translated; "
        "translate them again and remove the fuzzy mark:\n"
        + "\n".join(problems[:30])
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_translations_land_in_their_paragraphs(notebook):
    """Every prose message of a notebook, translated by a stand-in, replaces
    exactly its own paragraph, heading, list item or table cell."""
    import edition

    parser = edition.markdown_parser()
    english = edition.page_prose(f"notebooks/{notebook.stem}", parser)
    table = {
        text: f"【{index}】"
        for index, text in enumerate(sorted(english))
        if not edition.not_prose(text, "notebooks/", english)
    }
    cells = json.loads(notebook.read_text())["cells"]
    seen = set()
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        translated = edition.translate_markdown(
            "".join(cell["source"]), table, parser
        )
        seen |= {
            edition.message(content)
            for *_, content in edition.prose_blocks(translated, parser)
        }
    missing = set(table.values()) - seen
    left = {text for text in seen if text in table}
    assert not missing and not left, (
        f"{len(missing)} translations not placed, {len(left)} English "
        f"paragraphs left: {sorted(left)[:3]}"
    )


def test_chinese_website_builds(tmp_path):
    """The Chinese site builds with warnings as errors; a translated page is
    in Chinese and links to its English original, which links back."""
    import edition

    config = edition.config()
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    try:
        result = subprocess.run(
            [
                str(jupyter_book),
                "build",
                str(ROOT),
                "--config",
                str(config),
                "--path-output",
                str(tmp_path),
                "-W",
                "-n",
                "--keep-going",
            ],
            capture_output=True,
            text=True,
        )
    finally:
        config.unlink()
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    html = tmp_path / "_build" / "html"
    translated = [page for page in edition.status() if edition.complete(page)]
    assert translated, "no page is translated yet"
    for page in translated:
        text = (html / f"{page}.html").read_text()
        assert 'lang="zh-CN"' in text
        assert f'href="{"../" * (page.count("/") + 1)}{page}.html"' in text
