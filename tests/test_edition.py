"""The Chinese edition (book/_ext/edition.py): its catalogs follow the English
prose, and translations land in the right place of a notebook. (The Chinese
website is built with the English one, for test_book.py and test_browser.py.)

A changed English paragraph fails `test_catalogs_follow_the_english` until
`make catalogs` has updated the catalogs, and then `test_no_stale_translation`
until its translation is updated too."""

import json
import tempfile

import pytest
from conftest import NOTEBOOKS

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


def test_chinese_notebooks_are_current():
    """notebooks/zh/ holds exactly the Chinese notebooks that the English
    notebooks and the catalogs make (`python book/_ext/edition.py
    notebooks`): one per fully translated chapter."""
    import edition

    changed = edition.notebooks(write=False)
    assert not changed, (
        "regenerate the Chinese notebooks with `python book/_ext/edition.py "
        f"notebooks`: {[path.name for path in changed]}"
    )


def test_translations_keep_the_markers():
    """A translated "Predict first", "Going deeper", "*Optional" ... keeps
    the fixed Chinese words that the site's folds and the lecture material
    look for."""
    import edition

    problems = [
        f"{page}: {problem}"
        for page in edition.pages()
        for problem in edition.marker_problems(edition.read_catalog(page))
    ]
    assert not problems, "\n".join(problems[:30])


def test_translations_keep_the_markup():
    """Every translation keeps its English's cites, glossary targets, inline
    code, math and links, and its bold and italic render."""
    import edition

    parser = edition.markdown_parser()
    problems = [
        f"{page}: {problem}"
        for page in edition.pages()
        for problem in edition.markup_problems(
            edition.read_catalog(page), parser
        )
    ]
    assert not problems, "\n".join(problems[:30])


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
