"""Lecture material: the slides of every chapter, and the student handouts.

Every slide of every deck is opened in headless Chromium at a projector's
1280x720. A slide passes when its content fits the screen (nothing below the
bottom edge, no listing or printout wider than the slide) and its type is large
enough to read from the back of a room: prose at least PROSE_PX, printouts at
least OUTPUT_PX. With SLIDE_SCREENSHOTS=1 in the environment, screenshots of
every slide go to _build/screenshots/slides/ for a person to look at. A handout
passes when it gives away no answer, solution or output and shows no raw MyST
role. A deck passes when a lecturer can teach from it: every core section that
has code in the book has code on a slide, and about a third of the content
slides or more show code.
"""

import os
import re

import pytest
from conftest import (
    LECTURE_NOTEBOOKS,
    NOTEBOOKS,
    ROOT,
    ZH_NOTEBOOKS,
    lecture_id,
)
from test_browser import (  # noqa: F401 (browser is a fixture)
    CHROMIUM,
    browser,
    open_page,
    precomputed_widgets,
    serve,
    wrong_frames,
)

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is needed (see test_browser.py)"
)

PROSE_PX, OUTPUT_PX = 28, 24
WIDTH, HEIGHT = 1280, 720
SHOTS = ROOT / "_build" / "screenshots" / "slides"

SLIDE_FIT = (ROOT / "tests" / "slide_fit.js").read_text()


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    from notebook_runner import slides

    out = tmp_path_factory.mktemp("site") / "slides"
    slides([str(path) for path in NOTEBOOKS], out=str(out))
    if ZH_NOTEBOOKS:
        slides([str(path) for path in ZH_NOTEBOOKS], out=str(out / "zh"))
    yield from serve(out)


def deck_path(notebook):
    zh = "zh/" if notebook.parent.name == "zh" else ""
    return f"{zh}{notebook.stem}.slides.html"


@needs_chromium
@pytest.mark.xdist_group("slides")
@pytest.mark.parametrize("notebook", LECTURE_NOTEBOOKS, ids=lecture_id)
def test_every_slide_fits_the_screen(browser, decks, notebook):  # noqa: F811
    page, seen = open_page(
        browser,
        f"{decks}/{deck_path(notebook)}",
        viewport={"width": WIDTH, "height": HEIGHT},
    )
    page.wait_for_function(
        "window.Reveal && Reveal.isReady() && window.MathJax && MathJax.startup"
        " && MathJax.startup.promise",
        timeout=30000,
    )
    page.evaluate("MathJax.startup.promise")
    page.evaluate(
        "Reveal.configure({transition: 'none', backgroundTransition: 'none'})"
    )
    page.add_style_tag(
        content=".reveal .slides section { transition: none !important; }"
    )
    page.add_script_tag(content=SLIDE_FIT)
    problems = page.evaluate(
        "measureDeck", [PROSE_PX, OUTPUT_PX, WIDTH, HEIGHT]
    )
    if os.environ.get("SLIDE_SCREENSHOTS"):
        shots = SHOTS / lecture_id(notebook)
        shots.mkdir(parents=True, exist_ok=True)
        for index, slide in enumerate(
            page.evaluate("Reveal.getSlides().map(s => Reveal.getIndices(s))")
        ):
            page.evaluate(f"Reveal.slide({slide['h']}, {slide['v']})")
            page.screenshot(path=str(shots / f"{index:03d}.png"))
    problems += [
        f"{kind}: {items[:4]}" for kind, items in seen.items() if items
    ]
    page.close()
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(
        problems[:40]
    )


@needs_chromium
@pytest.mark.xdist_group("slides")
@pytest.mark.parametrize("notebook", LECTURE_NOTEBOOKS, ids=lecture_id)
def test_try_it_answers_on_its_slide(browser, decks, notebook):  # noqa: F811
    """On the slides too, each Try-it control shows the stored frame of the
    setting it is moved to (the keys move the slider, not the deck)."""
    page, seen = open_page(
        browser,
        f"{decks}/{deck_path(notebook)}",
        viewport={"width": WIDTH, "height": HEIGHT},
    )
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.wait_for_selector(".precomputed-frames", state="attached")
    containers = page.locator(".widget-vbox:has(> .precomputed-frames)")
    wrong = []
    for number, (controls, frame) in enumerate(precomputed_widgets(notebook)):
        container = containers.nth(number)
        slide = container.evaluate(
            "box => Reveal.getIndices(box.closest('section'))"
        )
        page.evaluate(f"Reveal.slide({slide['h']}, {slide['v']})")
        wrong += wrong_frames(page, container, controls, frame)
    page.close()
    problems = [f"{kind}: {items[:4]}" for kind, items in seen.items() if items]
    assert not wrong and not problems, (wrong[:6], problems)


@pytest.mark.parametrize("notebook", LECTURE_NOTEBOOKS, ids=lecture_id)
def test_handout_leaves_the_thinking_to_the_student(notebook):
    import nbformat
    from lecture_material import handout, prediction_count, words

    original = nbformat.read(notebook, as_version=4)
    predictions = prediction_count(original)
    answer_removed = words(original)["answer removed"]
    copy = handout(nbformat.read(notebook, as_version=4))
    prose = "\n".join(
        cell.source for cell in copy.cells if cell.cell_type == "markdown"
    )
    code = [cell for cell in copy.cells if cell.cell_type == "code"]
    assert not re.search(r"\{(term|cite)(:\w+)?\}`", prose), (
        "a role would show raw in Jupyter"
    )
    assert prose.count(answer_removed) == predictions, (
        "each prediction's answer is removed once"
    )
    assert not any(cell.outputs for cell in code), (
        "outputs would give the answers away"
    )
    assert "widgets" not in copy.metadata
    solutions = [
        cell
        for cell in original.cells
        if "solution" in cell.metadata.get("tags", [])
    ]
    assert not any(
        cell.source in {c.source for c in code} for cell in solutions
    ), "a solution is left"


def answering_cells(nb):
    """The first code cell after each markdown cell that asks a prediction."""
    from lecture_material import PREDICTION

    cells, pending = [], False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            pending = pending or PREDICTION in cell.source
        elif pending:
            cells.append(cell)
            pending = False
    return cells


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_predictions_keep_their_answer_folded(notebook):
    """The output that answers a prediction is folded on the website ("Show
    the answer"), and the code a student sees before it, in the handout and on
    the slide, states no answer in an assert."""
    import nbformat
    from lecture_material import prediction_count

    nb = nbformat.read(notebook, as_version=4)
    cells = answering_cells(nb)
    assert len(cells) == prediction_count(nb)
    for cell in cells:
        first = cell.source.strip().split("\n")[0]
        assert "hide-output" in cell.metadata.get("tags", []), (
            f"the answer of the cell starting {first!r} is not folded"
        )
        assert not re.search(r"^\s*assert\b", cell.source, re.M), (
            f"the cell starting {first!r} asserts its answer in view"
        )


def core_sections_with_code(nb):
    """Level-2 sections of the lectures' core that show code in the book."""
    from lecture_material import (
        CORE_ENDS,
        DEEPER,
        HIDDEN,
        chunks,
        section_number,
        section_title,
    )

    found, section, deeper_level = set(), None, None
    for cell in nb.cells:
        for heading, piece in chunks(cell):
            if heading:
                level, text = heading
                if level == 2 and section_title(text).startswith(CORE_ENDS):
                    return found
                if deeper_level is not None and level <= deeper_level:
                    deeper_level = None
                if section_title(text).startswith(DEEPER) and not deeper_level:
                    deeper_level = level
                if level == 2:
                    section = text if section_number(text) else None
            lines = piece.source.strip().split("\n")
            if (
                piece.cell_type == "code"
                and section
                and deeper_level is None
                and not set(piece.metadata.get("tags", [])) & HIDDEN
                and not all(
                    line.startswith(("import ", "from ")) for line in lines
                )
            ):
                found.add(section)
    return found


@pytest.mark.parametrize("notebook", LECTURE_NOTEBOOKS, ids=lecture_id)
def test_slides_show_the_code_being_taught(notebook):
    import nbformat
    from lecture_material import deck

    nb = nbformat.read(notebook, as_version=4)
    slides = deck(nb).cells
    content = [
        index
        for index, cell in enumerate(slides)
        if cell.metadata["slideshow"]["slide_type"] == "subslide"
    ]
    with_code = [
        index
        for index in content
        if index + 1 < len(slides)
        and slides[index + 1].cell_type == "code"
        and slides[index + 1].source.strip()
    ]
    shown = {slides[index + 1].metadata["section"] for index in with_code}
    missing = core_sections_with_code(nb) - shown
    assert not missing, f"core sections without a code slide: {missing}"
    assert len(with_code) >= 0.3 * len(content), (
        f"{len(with_code)} of {len(content)} content slides show code"
    )


def guide_predictions():
    """{chapter: number of items listed under "Predict first." in the guide}."""
    guide = (ROOT / "book" / "teaching.md").read_text()
    parts = re.split(r"\n## Chapter (\d+):", guide)
    found = {}
    for number, section in zip(parts[1::2], parts[2::2]):
        listed = re.search(
            r"\*\*Predict first\.\*\*\n(.*?)\n\*\*", section, re.S
        )
        items = re.findall(r"^\d+\. ", listed.group(1), re.M) if listed else []
        found[int(number)] = len(items)
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_teachers_guide_answers_every_prediction(notebook):
    import nbformat
    from lecture_material import prediction_count

    prompts = prediction_count(nbformat.read(notebook, as_version=4))
    chapter = int(notebook.stem.split("_")[0])
    listed = guide_predictions().get(chapter, 0)
    assert listed == prompts, (
        f"the chapter asks {prompts} predictions; the teacher's guide "
        f"answers {listed} (book/teaching.md, chapter {chapter})"
    )


def chapter_number(notebook):
    return int(notebook.stem.split("_")[0])


def guide_chapter(number):
    """The teacher's guide's section on chapter `number`."""
    guide = (ROOT / "book" / "teaching.md").read_text()
    parts = re.split(r"\n## Chapter (\d+):", guide)
    return dict(zip(map(int, parts[1::2]), parts[2::2]))[number]


def lesson_plans(section):
    """Each lesson plan table of a chapter's guide section, as rows of
    (start minute, end minute, section numbers the row covers)."""
    plans = []
    for block in re.split(r"\n\*\*Lesson plan", section)[1:]:
        rows = []
        for line in re.findall(r"^\|.*\|$", block.split("\n\n**")[0], re.M):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            span = re.fullmatch(r"(\d+)[–-](\d+)", cells[0])
            if not span:
                continue  # header or separator row
            covered = cells[1].split(":")[0] if ":" in cells[1] else ""
            rows.append(
                (
                    int(span.group(1)),
                    int(span.group(2)),
                    re.findall(r"\b\d+\.\d+\b", covered),
                )
            )
        plans.append(rows)
    return plans


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_each_lecture_core_fits_and_the_guide_plans_it(notebook):
    """The core of every lecture fits CORE_MINUTES by the estimate; the
    chapter's time line says so; the guide's lesson plan names every core
    section once, gives it at least its estimated minutes, and ends by 45."""
    import nbformat
    from lecture_material import CORE_MINUTES, section_number, timing

    nb = nbformat.read(notebook, as_version=4)
    lectures, deeper = timing(nb)
    minutes = [sum(m for _, m in lecture) for lecture in lectures]
    assert all(m <= CORE_MINUTES for m in minutes), (
        f"lecture cores of {[round(m) for m in minutes]} minutes; at most "
        f"{CORE_MINUTES} each"
    )
    time_line = re.search(r"\*\*Time:\*\*(.*?)\n\*\*", nb.cells[0].source, re.S)
    assert time_line, "the title cell has a **Time:** line"
    said = re.search(
        r"about (\d+(?: \+ \d+)*) minutes for the core", time_line.group(1)
    )
    assert said, f"the time line names the core's minutes: {time_line[1]}"
    said = [int(n) for n in said.group(1).split(" + ")]
    assert len(said) == len(lectures)
    assert all(abs(s - m) <= 5 for s, m in zip(said, minutes)), (
        f"the time line says {said}; the estimate is "
        f"{[round(m) for m in minutes]}"
    )
    if round(deeper):
        more = re.search(
            r"(\d+) more (?:minutes? )?for the optional", time_line.group(1)
        )
        assert more and abs(int(more.group(1)) - deeper) <= 5, (
            f"the Going deeper sections take about {round(deeper)} minutes"
        )
    plans = lesson_plans(guide_chapter(chapter_number(notebook)))
    assert len(plans) == len(lectures), "one lesson plan per lecture"
    for number, (plan, lecture) in enumerate(zip(plans, lectures), 1):
        estimate = {
            section_number(heading): m
            for heading, m in lecture
            if section_number(heading)
        }
        named = [section for *_, sections in plan for section in sections]
        assert sorted(named) == sorted(estimate), (
            f"lecture {number}: the plan covers {named}; the core is "
            f"{list(estimate)}"
        )
        for start, end, sections in plan:
            needed = sum(estimate[s] for s in sections)
            assert end - start >= round(needed) - 1, (
                f"{start}–{end} for {sections}: about {round(needed)} min"
            )
        assert plan[0][0] == 0 and plan[-1][1] <= 45


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_going_deeper_sections_are_marked(notebook):
    import nbformat
    from lecture_material import DEEPER, chunks, section_title

    for cell in nbformat.read(notebook, as_version=4).cells:
        for heading, piece in chunks(cell):
            if heading and section_title(heading[1]).startswith(DEEPER):
                body = piece.source.split("\n", 1)[1].strip()
                assert body.startswith("*Optional"), (
                    f"{heading[1]}: the first line says it is optional"
                )


EXERCISE = re.compile(
    r"\*\*Exercise (\d+\.\d+) \((find the bug; )?(easy|medium|hard)\)\.\*\*"
)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_exercises_are_ready_for_a_class(notebook):
    """Every exercise names its difficulty, one at least is a broken loop to
    fix, and every solution carries its exercise's number and a few sentences
    of explanation before its code."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    announced = len(re.findall(r"\*\*Exercise \d", prose))
    exercises = EXERCISE.findall(prose)
    assert len(exercises) == announced, (
        "write **Exercise N.M (easy|medium|hard).** or "
        "**Exercise N.M (find the bug; medium).**"
    )
    assert any(bug for _, bug, _ in exercises), "a find-the-bug exercise"
    solutions = [
        cell.source
        for cell in nb.cells
        if "solution" in cell.metadata.get("tags", [])
    ]
    titles = [
        re.match(r"# @title Solution (\d+\.\d+) ", s)[1] for s in solutions
    ]
    assert titles == [number for number, _, _ in exercises]
    for number, source in zip(titles, solutions):
        lines = source.split("\n")[1:]
        comment = []
        while lines and lines[0].startswith("#"):
            comment.append(lines.pop(0).lstrip("# "))
        assert len(" ".join(comment).split()) >= 15, (
            f"solution {number} opens with a sentence or two of explanation"
        )


VISIBLE_LINES = 15


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_code_a_reader_can_read(notebook):
    """A cell the reader sees is short; a cell hidden on the website (plotting,
    widget plumbing) is a collapsed form in Colab, with a title."""
    import nbformat
    from lecture_material import HIDDEN

    long_cells, untitled = [], []
    for index, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        lines = [line for line in cell.source.split("\n") if line.strip()]
        if set(cell.metadata.get("tags", [])) & HIDDEN:
            # a cell magic (%%writefile) must come first; the title follows
            first = (
                lines[1]
                if lines[:1] and lines[0].startswith("%%")
                else (lines[0] if lines else "")
            )
            if lines and not re.match(
                r'# @title .+ \{ display-mode: "form" \}', first
            ):
                untitled.append(index)
        elif len(lines) > VISIBLE_LINES:
            long_cells.append((index, len(lines)))
    assert not untitled, f"hidden cells without a Colab form title: {untitled}"
    assert not long_cells, (
        f"visible cells over {VISIBLE_LINES} lines (cell, lines): {long_cells}"
    )
