"""The Chinese edition: the book's prose in gettext catalogs, and the Chinese
notebooks made from the English ones and those catalogs.

    # after an English change: extract the prose, update book/locales/*.po
    python book/_ext/edition.py catalogs
    # what is untranslated, stale (its English changed) or obsolete
    python book/_ext/edition.py check
    # notebooks/zh/*.ipynb: the English notebooks with their prose translated
    python book/_ext/edition.py notebooks
    # _config.zh.yml: the configuration of the Chinese website
    python book/_ext/edition.py config

Only prose is translated. Sphinx's gettext builder cuts every page into
messages (a paragraph, a list item, a heading, a table cell), sphinx-intl keeps
one catalog per page, and a message whose English changes is marked fuzzy
(stale) until it is translated again. The Chinese website is the same Sphinx
build with `language = zh_CN`; the Chinese notebooks are the English notebooks
with each markdown paragraph replaced by its translation, so their code,
outputs, figures and widget state are the English notebooks' own.

Messages that are not prose (display math, the text of a code cell's output,
the Colab badge) are kept as they are: `catalogs` fills them with their
English.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
LANGUAGE = "zh_CN"
LOCALES = ROOT / "book" / "locales"
CATALOGS = LOCALES / LANGUAGE / "LC_MESSAGES"
ZH_NOTEBOOKS = ROOT / "notebooks" / "zh"
ZH_CONFIG = ROOT / "_config.zh.yml"
ZH_TITLE = "PyTorch 梯度机制"
BIN = Path(sys.executable).parent
# Words that the book's tools look for at the start of a heading or paragraph
# (after a section number), and the translation each must keep.
MARKERS = {
    "**The short answer.**": "**简短回答。**",
    "**Predict first:**": "**先预测：**",
    "Going deeper": "深入一步",
    "*Optional": "*选读",
    "Try it": "动手试试",
}


def markdown_parser():
    from myst_parser.config.main import MdParserConfig
    from myst_parser.mdit_to_docutils.base import DocutilsRenderer
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    extensions = set(config["parse"]["myst_enable_extensions"])
    return create_md_parser(
        MdParserConfig(enable_extensions=extensions), DocutilsRenderer
    )


def message(content):
    """A block's text as the gettext builder writes it: lines joined."""
    return " ".join(content.split("\n")).strip()


def prose_blocks(markdown, parser):
    """(first line, last line + 1, content) of every paragraph, heading, list
    item and table cell in `markdown`."""
    return [
        (*token.map, token.content)
        for token in parser.parse(markdown)
        if token.type == "inline" and token.map
    ]


def page_prose(docname, parser):
    """Every prose message of a page: the texts of its markdown (of its
    markdown cells, for a notebook)."""
    notebook = ROOT / f"{docname}.ipynb"
    if notebook.exists():
        cells = json.loads(notebook.read_text())["cells"]
        sources = [
            "".join(cell["source"])
            for cell in cells
            if cell["cell_type"] == "markdown"
        ]
    else:
        sources = [(ROOT / f"{docname}.md").read_text()]
    return {
        message(content)
        for source in sources
        for *_, content in prose_blocks(source, parser)
    }


def extract(outdir):
    """The English prose as .pot files under `outdir` (one per page)."""
    subprocess.run(
        [
            str(BIN / "jupyter-book"),
            "build",
            str(ROOT),
            "--builder",
            "custom",
            "--custom-builder",
            "gettext",
            "--path-output",
            str(outdir),
        ],
        check=True,
        capture_output=True,
    )
    return Path(outdir) / "_build" / "gettext"


def not_prose(text, docname, prose):
    """Display math, the Colab badge, text already in Chinese (what only the
    Chinese edition says, in `{only} zh` blocks), and (on a notebook's page)
    text that no markdown cell holds: the output of a code cell."""
    return (
        text.startswith(("\n", "[!["))
        or any("\u4e00" <= char <= "\u9fff" for char in text)
        or docname.startswith("notebooks/")
        and text not in prose
    )


def marker_problems(catalog):
    """Translations that lose a marker of MARKERS that their English opens
    with: the folds, slides and handouts of the Chinese edition need it."""
    problems = []
    for entry in catalog:
        if not (entry.id and entry.string) or entry.fuzzy:
            continue
        english = re.sub(r"^[\d.]+\s+", "", entry.id)
        chinese = re.sub(r"^[\d.]+\s+", "", entry.string)
        for marker, translation in MARKERS.items():
            if english.startswith(marker) and not chinese.startswith(
                translation
            ):
                problems.append(
                    f"{entry.id[:60]!r} must start with {translation!r}"
                )
    return problems


ROLE = re.compile(r"\{(\w+(?::\w+)?)\}`([^`]*)`")
CODE = re.compile(r"(`+)(.+?)\1")


def markup(text):
    """What a translation must carry over from its English: cite keys, term
    targets, inline code, math and link targets (a Counter)."""
    found = Counter()
    for role, body in ROLE.findall(text):
        if role == "term":
            target = re.search(r"<([^>]*)>\s*$", body)
            body = (target.group(1) if target else body).lower()
        found[f"{{{role}}}{body}"] += 1
    text = ROLE.sub(" ", text)
    found.update(f"`{code}`" for _, code in CODE.findall(text))
    text = CODE.sub(" ", text)
    found.update(f"${math}$" for math in re.findall(r"\$([^$]+)\$", text))
    found.update(f"]({link})" for link in re.findall(r"\]\(([^)]*)\)", text))
    return found


def emphasis(text, parser):
    """(bold spans, stars left as text) once `text` is parsed. A translation
    renders as many bold spans as its English (italics may become 《》) and
    leaves no more stars: in Chinese, "**加粗。**后文" needs a space after the
    closing stars, or the bold does not render or pairs with the wrong
    stars."""
    children = [
        child for token in parser.parse(text) for child in token.children or []
    ]
    bold = sum(child.type == "strong_open" for child in children)
    stars = sum(
        child.content.count("*") for child in children if child.type == "text"
    )
    return bold, stars


def markup_problems(catalog, parser):
    """Translations that drop a cite, a term's target, inline code, math or
    a link target of their English, or whose emphasis does not render
    (inline code a translation adds is fine)."""
    problems = []
    for entry in catalog:
        if not (entry.id and entry.string) or entry.fuzzy:
            continue
        english, translation = markup(entry.id), markup(entry.string)
        lost = english - translation
        added = {
            key: count
            for key, count in (translation - english).items()
            if not key.startswith("`")
        }
        if lost or added:
            problems.append(
                f"{entry.id[:60]!r}: lost {dict(lost)}, added {added}"
            )
        if re.match(r"\d+\. ", entry.string):  # "1. Title" parses as a list
            problems.append(
                f"{entry.string[:60]!r}: write 'N\\. ': Sphinx drops a title's "
                "translation that parses as a numbered list"
            )
        bold, stars = emphasis(entry.string, parser)
        english_bold, english_stars = emphasis(entry.id, parser)
        if bold != english_bold or stars > english_stars:
            problems.append(f"{entry.string[:60]!r}: emphasis does not render")
    return problems


def catalogs():
    """Extract the English prose and update the catalogs: new messages
    empty, changed ones fuzzy (stale) with their old translation, removed ones
    dropped; messages that are not prose keep their English."""
    from babel.messages.pofile import read_po, write_po
    from sphinx_intl.basic import update

    parser = markdown_parser()
    with tempfile.TemporaryDirectory() as tmp:
        pot_dir = extract(tmp)
        update(str(LOCALES), str(pot_dir), (LANGUAGE,), ignore_obsolete=True)
    for po in sorted(CATALOGS.rglob("*.po")):
        docname = po.relative_to(CATALOGS).with_suffix("").as_posix()
        prose = page_prose(docname, parser)
        with po.open("rb") as file:
            catalog = read_po(file)
        for message in catalog:
            if message.id and not_prose(message.id, docname, prose):
                message.string = message.id  # not a neighbour's translation
                message.flags.discard("fuzzy")
        with po.open("wb") as file:  # no source lines: they move too often
            write_po(file, catalog, width=76, no_location=True)
    for mo in CATALOGS.rglob("*.mo"):
        mo.unlink()  # Sphinx compiles them when it builds
    print(f"catalogs updated in {CATALOGS.relative_to(ROOT)}")


def read_catalog(docname):
    """The catalog of one page (a babel Catalog), or None if it has none."""
    from babel.messages.pofile import read_po

    po = CATALOGS / f"{docname}.po"
    if not po.exists():
        return None
    with po.open("rb") as file:
        return read_po(file)


def pages():
    """Every page that has a catalog, as a docname."""
    return [
        po.relative_to(CATALOGS).with_suffix("").as_posix()
        for po in sorted(CATALOGS.rglob("*.po"))
    ]


def status():
    """{page: (messages, untranslated, stale, obsolete)} from the catalogs."""
    result = {}
    for page in pages():
        catalog = read_catalog(page)
        messages = [m for m in catalog if m.id]
        result[page] = (
            messages,
            [m for m in messages if not m.string],
            [m for m in messages if m.fuzzy],
            list(catalog.obsolete.values()),
        )
    return result


def complete(docname):
    """Whether every message of a page is translated and none is stale."""
    catalog = read_catalog(docname)
    return catalog is not None and all(
        m.string and not m.fuzzy for m in catalog if m.id
    )


def translated_pages():
    """The pages whose every message is translated: the ones the English
    site links to their Chinese edition."""
    return [page for page in pages() if complete(page)]


def check():
    total = done = 0
    problems = 0
    for page, (messages, empty, stale, obsolete) in status().items():
        total += len(messages)
        done += len(messages) - len(empty) - len(stale)
        problems += len(stale) + len(obsolete)
        print(
            f"{page}: {len(messages) - len(empty) - len(stale)} of "
            f"{len(messages)} translated, {len(stale)} stale, "
            f"{len(obsolete)} obsolete"
        )
        for message in stale:
            print(f"  stale: {message.id[:100]}")
    print(f"{done} of {total} messages translated ({100 * done / total:.0f} %)")
    return 1 if problems else 0


def translations(docname):
    """{English message: translation} of one page; stale ones left out."""
    catalog = read_catalog(docname) or []
    return {
        m.id: m.string
        for m in catalog
        if m.id and m.string and not m.fuzzy and m.string != m.id
    }


def translate_row(row, table):
    """A markdown table row with each cell that `table` translates replaced."""
    cells = row.split("|")
    return "|".join(
        cell.replace(cell.strip(), table[cell.strip()])
        if cell.strip() in table
        else cell
        for cell in cells
    )


def translate_markdown(markdown, table, parser):
    """`markdown` with each prose block that `table` translates replaced,
    its markup (heading marks, list markers, indentation) kept."""
    lines = markdown.split("\n")
    done_rows = set()
    # from the bottom up, so that earlier line numbers stay valid
    for start, end, content in reversed(prose_blocks(markdown, parser)):
        first = lines[start]
        if first.lstrip().startswith("|"):  # a table row: cell by cell
            if start not in done_rows:
                lines[start] = translate_row(first, table)
                done_rows.add(start)
            continue
        text = message(content)
        if text not in table:
            continue
        head = content.split("\n")[0]
        prefix = first[: first.index(head)]
        lines[start:end] = [prefix + table[text]]
    return "\n".join(lines)


def translated_notebook(path, parser):
    zh = json.loads(path.read_text())
    zh["metadata"]["language"] = LANGUAGE  # what the slides and handouts say
    table = translations(f"notebooks/{path.stem}")
    for cell in zh["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        translated = translate_markdown(source, table, parser)
        translated = translated.replace(
            f"blob/main/notebooks/{path.name}",
            f"blob/main/notebooks/zh/{path.name}",
        )
        cell["source"] = translated.splitlines(keepends=True)
    return zh


def notebooks(write=True):
    """The Chinese notebooks of the fully translated chapters, written to
    notebooks/zh/ (or only compared with what is there); a Chinese notebook
    whose chapter is not (or no longer) complete is removed. Returns the
    paths that differ."""
    parser = markdown_parser()
    changed = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        target = ZH_NOTEBOOKS / path.name
        if not complete(f"notebooks/{path.stem}"):
            if target.exists():
                changed.append(target)
                if write:
                    target.unlink()
            continue
        text = (
            json.dumps(
                translated_notebook(path, parser), indent=1, ensure_ascii=False
            )
            + "\n"
        )
        if not target.exists() or target.read_text() != text:
            changed.append(target)
            if write:
                ZH_NOTEBOOKS.mkdir(exist_ok=True)
                target.write_text(text)
    return changed


def config(path=ZH_CONFIG):
    """The Chinese website's configuration: the English one in Chinese. It
    must sit beside _config.yml, whose paths are relative to it."""
    settings = yaml.safe_load((ROOT / "_config.yml").read_text())
    settings["title"] = ZH_TITLE
    settings["sphinx"]["config"]["language"] = LANGUAGE
    path.write_text(
        "# Written by book/_ext/edition.py config; do not edit.\n"
        + yaml.safe_dump(settings, allow_unicode=True, sort_keys=False)
    )
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "command", choices=["catalogs", "check", "notebooks", "config"]
    )
    command = parser.parse_args().command
    if command == "catalogs":
        catalogs()
    elif command == "check":
        return check()
    elif command == "notebooks":
        changed = notebooks()
        print(f"{len(changed)} Chinese notebook(s) written in notebooks/zh/")
    else:
        print(f"wrote {config().relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
