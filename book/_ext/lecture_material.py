"""Lecture slides and student handouts made from the chapter notebooks.

Slides are for projecting: a slide carries one idea (a heading, a prediction, a
listing and its result, a figure, a table) in type a room can read, and the
chapter's prose goes into the speaker notes. What goes on a slide:

- the chapter title with its one-sentence promise, the short answer, and the
  learning goals;
- each section heading; its prose becomes the notes of that slide;
- each "Predict first" prompt, alone on its slide, before the cell that answers
  it; the answer prose after that cell becomes the notes of the result slide;
- the lines of a script shown in the prose beside the result they produced
  (a ```python listing that starts with `# from <file>`);
- the code being taught: every visible code cell of a section (not the setup
  before the first section, not a listing that only imports), split over
  consecutive slides of at most SLIDE_CODE_LINES lines, with its output (long
  printouts cut, the rest in the notebook); folded cells (checks, plots,
  widget plumbing) show their figure or printout but not their code, and a
  fully folded check shows nothing;
- lists (goals, summaries) with whole items, a few to a slide, the bold lead of
  each common mistake, tables a few rows to a slide, and each exercise prompt
  with its code; solutions stay out.

Handouts are notebooks to hand out before a class: outputs cleared, solutions
replaced by an empty cell, the prose that answers each prediction removed, and
the book's cross-reference roles ({term}, {cite}) written as plain text that
Jupyter and Colab show as it is meant.
"""

import functools
import math
import re
import unicodedata
from pathlib import Path

import nbformat
from edition import LANGUAGE, MARKERS

ROOT = Path(__file__).resolve().parents[2]
SLIDE_CODE_LINES, SLIDE_CODE_COLUMNS = 16, 80
OUTPUT_COLUMNS, OUTPUT_LINES = (
    88,
    11,
)  # what the output type size leaves room for on one slide
MAX_SLIDE_BULLETS, MAX_BULLET_CHARS, MAX_LIST_CHARS = 6, 200, 700
TABLE_ROWS = 2  # body rows of a table per slide
SLIDE_BUDGET_PX = 560  # height for listing + output below a slide's top margin
CODE_LINE_PX, OUTPUT_LINE_PX = 30, 30

PREDICTION = "**Predict first:**"
SHORT_ANSWER = "**The short answer.**"
# the markers in either edition (a Chinese notebook carries their translation)
PREDICTIONS = (PREDICTION, MARKERS[PREDICTION])
SHORT_ANSWERS = (SHORT_ANSWER, MARKERS[SHORT_ANSWER])
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WRITEFILE_NOTICE = re.compile(r"(Writing|Appending to|Overwriting) \S+\n?")
ANSWER_REMOVED = (
    "*The answer to this prediction is discussed in class; it is in the book's "
    "chapter too.*"
)
# What the slides and handouts say in their own words, by the language of the
# notebook (metadata "language", set by edition.py on a Chinese notebook).
WORDS = {
    "en": {
        "answer removed": ANSWER_REMOVED,
        "solution": "# Your solution here\n",
        "cut": "… (the rest is in the notebook)",
        "lecture": "Lecture {number}",
    },
    LANGUAGE: {
        "answer removed": "*这个预测的答案在课堂上讨论；书中本章也有。*",
        "solution": "# 在这里写出你的解答\n",
        "cut": "……（其余见笔记本）",
        "lecture": "第 {number} 讲",
    },
}
REFERENCES = ("References", "参考文献")  # a section with no slide
EXERCISE = ("**Exercise", "**练习")
MISTAKES = ("mistake", "错误")  # in the title of the common-mistakes section


def words(nb):
    return WORDS[nb.metadata.get("language", "en")]


def predictions_in(text):
    """How many "Predict first" prompts `text` asks, in either language."""
    return sum(text.count(marker) for marker in PREDICTIONS)


def width(text):
    """Columns `text` takes: a Chinese character is as wide as two Latin
    ones."""
    return len(text) + sum(
        unicodedata.east_asian_width(char) in "WF" for char in text
    )


@functools.cache
def bibliography():
    from pybtex.database import parse_file

    return parse_file(str(ROOT / "book" / "references.bib")).entries


def author_year(key):
    """("Goyal et al.", "2017") for a key of book/references.bib."""
    entry = bibliography().get(key)
    if entry is None:
        return key, ""
    names = [
        " ".join(person.last_names)
        for person in entry.persons.get("author", [])
    ]
    authors = (
        names[0]
        if len(names) == 1
        else " and ".join(names)
        if len(names) == 2
        else f"{names[0]} et al."
        if names
        else key
    )
    return authors.replace("{", "").replace("}", ""), entry.fields.get(
        "year", ""
    )


def cite_text(match):
    """{cite}`a,b` -> (A et al., 2017; B, 2019);
    {cite:t}`a` -> A et al. (2017)."""
    keys = [key.strip() for key in match.group(2).split(",")]
    if match.group(1) == ":t":
        return "; ".join(
            f"{who} ({year})" for who, year in map(author_year, keys)
        )
    return (
        "("
        + "; ".join(f"{who}, {year}" for who, year in map(author_year, keys))
        + ")"
    )


# MyST roles that only the website renders: keep the words as plain text
ROLES = [
    (re.compile(r"\{term\}`([^`<]+?)\s*(?:<[^>]*>)?`"), r"\1"),
    (re.compile(r"\{cite(:t|:p)?\}`([^`]+)`"), cite_text),
    (
        re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\(([^)]*)\)"),
        r"[Open in Colab](\1)",
    ),
]


def plain_roles(markdown):
    for pattern, replacement in ROLES:
        markdown = pattern.sub(replacement, markdown)
    return markdown


def blocks(markdown):
    """Paragraphs, lists, code fences and headings of a markdown cell, in order
    (a heading is its own block, a fence one block with its blank lines)."""
    result, paragraphs = [], []
    for paragraph in re.split(r"\n\s*\n", markdown.strip()):
        if paragraphs and paragraphs[-1].count("```") % 2:  # inside a fence
            paragraphs[-1] += "\n\n" + paragraph
        else:
            paragraphs.append(paragraph)
    for paragraph in paragraphs:
        lines = paragraph.split("\n")
        while lines and lines[0].startswith("#"):
            result.append(lines.pop(0))
        if lines:
            result.append("\n".join(lines))
    return result


def is_list(block):
    return re.match(r"(- |\* |\d+\. )", block) is not None


def list_items(block):
    return re.split(r"\n(?=- |\* |\d+\. )", block)


def fits_slide_as_list(block):
    items = list_items(block)
    return (
        len(items) <= MAX_SLIDE_BULLETS
        and width(block) <= MAX_LIST_CHARS
        and all(width(item) <= MAX_BULLET_CHARS for item in items)
    )


def item_groups(items, most=4):
    """Whole list items, grouped for slides: at most `most` items and about
    MAX_LIST_CHARS characters a slide (a longer item stands alone)."""
    groups = [[]]
    for item in items:
        group = groups[-1]
        if group and (
            len(group) == most or width("".join(group) + item) > MAX_LIST_CHARS
        ):
            groups.append([])
        groups[-1].append(item)
    return [group for group in groups if group]


def table_slides(block):
    """A markdown table cut into tables of TABLE_ROWS body rows, each with the
    header."""
    header, separator, *rows = block.strip().split("\n")
    return [
        "\n".join([header, separator, *rows[start : start + TABLE_ROWS]])
        for start in range(0, len(rows), TABLE_ROWS)
    ]


def bold_lead(block):
    match = re.match(r"\*\*(.+?)\*\*", block)
    return match.group(1) if match else None


class Deck:
    """The cells of a reveal.js deck, built slide by slide."""

    def __init__(self, words=WORDS["en"]):
        self.words = words
        self.cells = []
        self.section = ""
        self.top_section = ""  # the level-2 section the slides belong to

    def add(self, cell, slide_type):
        cell.metadata["slideshow"] = {"slide_type": slide_type}
        self.cells.append(cell)

    def slide(self, markdown, slide_type="subslide"):
        self.add(nbformat.v4.new_markdown_cell(markdown), slide_type)

    def notes(self, markdown):
        if (
            self.cells
            and self.cells[-1].metadata["slideshow"]["slide_type"] == "notes"
        ):
            self.cells[-1].source += "\n\n" + markdown
        else:
            self.add(nbformat.v4.new_markdown_cell(markdown), "notes")

    def markdown(self, source):
        pending_bullets = []

        def flush_bullets():
            if pending_bullets:
                self.slide(
                    f"### {self.section}\n\n"
                    + "\n".join(f"- {b}" for b in pending_bullets)
                )
                pending_bullets.clear()

        for block in blocks(plain_roles(source)):
            if block.startswith("# "):
                self.slide(block, "slide")
            elif block.startswith("#"):
                flush_bullets()
                self.section = block.lstrip("#").strip()
                if block.startswith("## "):
                    self.top_section = self.section
                if (
                    self.section not in REFERENCES
                ):  # the book lists them; a slide would be a wall
                    self.slide("## " + self.section, "slide")
            elif block.startswith(PREDICTIONS + SHORT_ANSWERS):
                flush_bullets()
                self.slide(f"### {self.section}\n\n{block}")
            elif block.startswith("|"):
                flush_bullets()
                for table in table_slides(block):
                    self.slide(f"### {self.section}\n\n{table}")
            elif block.startswith("```python\n# from "):
                flush_bullets()  # lines of the script a result came from
                for part in listing_parts(block.split("\n")[1:-1]):
                    self.result(part, [])
            elif block.startswith(EXERCISE):
                flush_bullets()
                self.slide(block)
            elif any(
                word in self.section.lower() for word in MISTAKES
            ) and bold_lead(block):
                pending_bullets.append(bold_lead(block))
                if len(pending_bullets) == MAX_SLIDE_BULLETS:
                    flush_bullets()
                self.notes(block)
            elif is_list(block) and not fits_slide_as_list(block):
                flush_bullets()
                for group in item_groups(list_items(block)):
                    self.slide(f"### {self.section}\n\n" + "\n".join(group))
            elif is_list(block):
                flush_bullets()
                if self.cells[-1].source == "## " + self.section:
                    self.cells[-1].source += (
                        "\n\n" + block
                    )  # goals or summary under its heading
                else:
                    self.slide(f"### {self.section}\n\n{block}")
            elif (
                self.cells
                and self.cells[-1].source.startswith("# ")
                and "\n" not in self.cells[-1].source
            ):
                self.cells[-1].source += (
                    "\n\n" + block
                )  # the chapter's one-sentence promise
            else:
                self.notes(block)
        flush_bullets()

    def code(self, cell):
        tags = set(cell.metadata.get("tags", []))
        if tags & {"hide-cell", "remove-cell"}:
            return  # a folded check: the book has it, the lecture does not
        outputs = [
            shown
            for output in merged_streams(cell.outputs)
            if (shown := slide_output(output, self.words["cut"]))
        ]
        lines = cell.source.strip().split("\n")
        only_imports = all(
            line.startswith(("import ", "from ")) for line in lines if line
        )
        show_listing = (
            not tags & HIDDEN
            and not only_imports
            and bool(cell.source.strip())
            and max(map(len, lines)) <= SLIDE_CODE_COLUMNS
        )
        # what each slide of this cell shows: printouts together, each figure
        # alone
        pages = []
        for output in outputs:
            if (
                output.output_type != "stream"
                or not pages
                or pages[-1][-1].output_type != "stream"
            ):
                pages.append([output])
            else:
                pages[-1].append(output)
        if show_listing:
            parts = listing_parts(lines)
            for part in parts[:-1]:
                self.result(part, [])
            listing_px = (parts[-1].count("\n") + 1) * CODE_LINE_PX
            if (
                pages
                and listing_px + sum(map(output_height, pages[0]))
                <= SLIDE_BUDGET_PX
            ):
                self.result(parts[-1], pages.pop(0))
            else:
                self.result(parts[-1], [])
        for page in pages:
            self.result("", page)

    def result(self, source, outputs):
        """A slide under the current section: a listing (if any) and the outputs
        below it."""
        shown = nbformat.v4.new_code_cell(source)
        shown.metadata["tags"] = [] if source else ["remove_input"]
        shown.metadata["section"] = self.top_section
        shown.outputs = outputs
        self.slide(f"### {self.section}")
        self.add(shown, "-")


def listing_parts(lines):
    """A listing cut into parts of at most SLIDE_CODE_LINES lines, each cut at
    the last blank line that keeps a part within the limit (or at the limit
    when there is none)."""
    parts = []
    while len(lines) > SLIDE_CODE_LINES:
        blank = [
            index
            for index in range(1, SLIDE_CODE_LINES + 1)
            if not lines[index].strip()
        ]
        cut = blank[-1] if blank else SLIDE_CODE_LINES
        parts.append("\n".join(lines[:cut]).strip("\n"))
        lines = lines[cut:]
        while lines and not lines[0].strip():
            lines = lines[1:]
    parts.append("\n".join(lines).strip("\n"))
    return parts


def output_height(output):
    if output.output_type != "stream":
        return SLIDE_BUDGET_PX
    return OUTPUT_LINE_PX * wrapped_lines(output.get("text", ""))


def wrapped_lines(text):
    return sum(
        max(1, math.ceil(len(line) / OUTPUT_COLUMNS))
        for line in text.rstrip("\n").split("\n")
    )


def merged_streams(outputs):
    """Outputs with consecutive printouts to stdout joined into one (as the
    website shows them)."""
    merged = []
    for output in outputs:
        if (
            output.output_type == "stream"
            and output.name == "stdout"
            and merged
            and merged[-1].output_type == "stream"
            and merged[-1].name == "stdout"
        ):
            merged[-1] = nbformat.v4.new_output(
                "stream", name="stdout", text=merged[-1].text + output.text
            )
        else:
            merged.append(output)
    return merged


def slide_output(output, cut=WORDS["en"]["cut"]):
    """The output as a slide shows it: figures and text, long text cut; widgets
    and stderr dropped."""
    data = output.get("data", {})
    if output.output_type == "stream":
        if output.name != "stdout" or WRITEFILE_NOTICE.fullmatch(output.text):
            return (
                None  # stderr, or the notice of %%writefile: nothing to project
            )
        text = output.text.rstrip("\n")
        kept, used = [], 0
        for line in text.split("\n"):
            used += wrapped_lines(line)
            if used > OUTPUT_LINES:
                kept.append(cut)
                break
            kept.append(line)
        return nbformat.v4.new_output(
            "stream", name="stdout", text="\n".join(kept) + "\n"
        )
    if "image/png" in data:
        return nbformat.v4.new_output(
            "display_data", data={"image/png": data["image/png"]}
        )
    if WIDGET_VIEW in data:  # a Try it: its precomputed frames work here too
        return nbformat.v4.new_output(
            "display_data", data={WIDGET_VIEW: data[WIDGET_VIEW]}
        )
    return None


def deck(nb):
    """A notebook whose cells, with their slideshow metadata, are the slides of
    chapter `nb`: the lectures' core and what follows it; the sections marked
    "Going deeper" stay in the book."""
    slides = Deck(words(nb))
    deeper_level, title, lecture = None, "", 1
    sections_started = False  # the setup cells before section N.1 stay out
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            continue
        for index, (heading, piece) in enumerate(chunks(cell)):
            if heading:
                level, text = heading
                if level == 1:
                    title = text
                sections_started = sections_started or bool(
                    section_number(text)
                )
                if deeper_level is not None and level <= deeper_level:
                    deeper_level = None
                if deeper_level is None and section_title(text).startswith(
                    DEEPER
                ):
                    deeper_level = level
                if index == 0 and NEW_LECTURE in cell.metadata.get("tags", []):
                    lecture += 1
                    number = slides.words["lecture"].format(number=lecture)
                    slides.slide(f"# {title}\n\n{number}", "slide")
            if deeper_level is not None:
                continue
            if piece.cell_type == "markdown":
                slides.markdown(piece.source)
            elif piece.cell_type == "code" and sections_started:
                slides.code(piece)
    return nbformat.v4.new_notebook(cells=slides.cells, metadata=nb.metadata)


def prediction_count(nb):
    """How many "Predict first" prompts the prose of notebook `nb` asks."""
    return sum(
        predictions_in(cell.source)
        for cell in nb.cells
        if cell.cell_type == "markdown"
    )


def without_answer(markdown, removed=ANSWER_REMOVED):
    """The cell after a prediction's experiment, up to the next heading or
    prediction, removed."""
    kept = blocks(markdown)
    while kept and not kept[0].startswith(("#", *PREDICTIONS)):
        kept.pop(0)
    return "\n\n".join([removed, *kept])


def handout(nb):
    """The student copy of chapter `nb` (see the module docstring)."""
    cells, answer_pending, after_prediction_cell = [], False, False
    said = words(nb)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            cell.source = plain_roles(cell.source)
            if after_prediction_cell:
                cell.source = without_answer(
                    cell.source, said["answer removed"]
                )
                after_prediction_cell = False
            answer_pending = predictions_in(cell.source) > 0
        elif cell.cell_type == "code":
            if "solution" in tags:
                cell = nbformat.v4.new_code_cell(said["solution"])
            cell.outputs, cell.execution_count = [], None
            after_prediction_cell = after_prediction_cell or answer_pending
            answer_pending = False
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    return nb


# How long a lecture takes, estimated from its notebook: prose read at
# WORDS_PER_MINUTE, visible code walked through at CODE_LINES_PER_MINUTE, and
# fixed times for each prediction and each figure.
WORDS_PER_MINUTE, CODE_LINES_PER_MINUTE = 150, 20
PREDICTION_MINUTES, FIGURE_MINUTES = 2, 1
CORE_MINUTES = 40  # a 45-minute lecture with room to spare
DEEPER = ("Going deeper", MARKERS["Going deeper"])
CORE_ENDS = ("Try it", MARKERS["Try it"])  # from here on: lab and homework
NEW_LECTURE = "new-lecture"  # tag of the heading cell that starts lecture 2
HIDDEN = {"hide-input", "remove-input", "remove-cell", "hide-cell"}


def chunks(cell):
    """A cell cut before each markdown heading (not a `#` line inside a code
    fence): [(heading or None, cell)], where heading is (level, text)."""
    if cell.cell_type != "markdown":
        return [(None, cell)]
    parts, fenced = [[]], False
    for line in cell.source.strip().split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line) and parts[-1]:
            parts.append([])
        parts[-1].append(line)
    parts = ["\n".join(part) for part in parts]
    result = []
    for part in parts:
        match = re.match(r"(#{1,6}) (.*)", part)
        heading = (
            (len(match.group(1)), match.group(2).strip()) if match else None
        )
        piece = nbformat.v4.new_markdown_cell(part)
        piece.metadata = cell.metadata
        result.append((heading, piece))
    return result


def section_title(text):
    """'2.6 Going deeper: the seeds' -> 'Going deeper: the seeds'."""
    return re.sub(r"^[\d.]+\s+", "", text)


def cell_minutes(cell):
    if cell.cell_type == "markdown":
        words = len(re.sub(r"[`*#$\\{}]", " ", cell.source).split())
        predictions = predictions_in(cell.source)
        return words / WORDS_PER_MINUTE + predictions * PREDICTION_MINUTES
    if cell.cell_type != "code":
        return 0
    tags = set(cell.metadata.get("tags", []))
    figures = sum(
        "image/png" in output.get("data", {}) for output in cell.outputs
    )
    lines = 0
    if not tags & HIDDEN:
        lines = len([line for line in cell.source.split("\n") if line.strip()])
    return lines / CODE_LINES_PER_MINUTE + figures * FIGURE_MINUTES


def timing(nb):
    """(lectures, deeper minutes) of the main path of notebook `nb`: the
    sections before "Try it". `lectures` lists the core of each lecture the
    chapter is taught in, each a list of (section heading, minutes); the core
    is every section except those marked "Going deeper" (and what is nested in
    them), whose minutes make up the second value. A heading cell tagged
    NEW_LECTURE starts the next lecture."""
    result, current, deeper_level, deeper = [[]], None, None, 0.0
    pieces = [
        (index, *piece)
        for cell in nb.cells
        for index, piece in enumerate(chunks(cell))
    ]
    for index, heading, cell in pieces:
        if heading:
            level, text = heading
            title = section_title(text)
            if level == 2 and title.startswith(CORE_ENDS):
                break
            if deeper_level is not None and level <= deeper_level:
                deeper_level = None
            if title.startswith(DEEPER) and deeper_level is None:
                deeper_level = level
            if index == 0 and NEW_LECTURE in cell.metadata.get("tags", []):
                result.append([])
            if deeper_level is None and (level <= 2 or current is None):
                current = [text, 0.0]
                result[-1].append(current)
        if deeper_level is None:
            if current is not None:
                current[1] += cell_minutes(cell)
        else:
            deeper += cell_minutes(cell)
    lectures = [[tuple(section) for section in lecture] for lecture in result]
    return lectures, deeper


def section_number(heading):
    """'2.6 Going deeper: x' -> '2.6'; None for unnumbered headings."""
    match = re.match(r"(\d+\.\d+)\s", heading)
    return match.group(1) if match else None


def deeper_sections(nb):
    """Headings of the sections marked "Going deeper"."""
    return [
        heading[1]
        for cell in nb.cells
        for heading, _ in chunks(cell)
        if heading and section_title(heading[1]).startswith(DEEPER)
    ]


def deeper_minutes(nb):
    """{heading: minutes} of each outermost "Going deeper" section (with
    what is nested in it), estimated as `timing` does."""
    minutes, current, level_open = {}, None, None
    for cell in nb.cells:
        for heading, piece in chunks(cell):
            if heading:
                level, text = heading
                if level_open is not None and level <= level_open:
                    current = level_open = None
                if current is None and section_title(text).startswith(DEEPER):
                    current, level_open = text, level
                    minutes[current] = 0.0
            if current is not None:
                minutes[current] += cell_minutes(piece)
    return minutes
