"""Lecture material: the slides of every chapter, and the student handouts.

Every slide of every deck is opened in headless Chromium at a projector's
1280x720. A slide passes when its content fits the screen (nothing below the
bottom edge, no listing or printout wider than the slide) and its type is large
enough to read from the back of a room: prose at least PROSE_PX, printouts at
least OUTPUT_PX. With SLIDE_SCREENSHOTS=1 in the environment, screenshots of
every slide go to _build/screenshots/slides/ for a person to look at. A handout
passes when it gives away no answer, solution or output and shows no raw MyST
role.
"""

import os
import re

import pytest
from conftest import NOTEBOOKS, ROOT
from test_browser import (  # noqa: F401 (browser is a fixture)
    CHROMIUM,
    browser,
    open_page,
    serve,
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
    yield from serve(out)


@needs_chromium
@pytest.mark.xdist_group("slides")
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_slide_fits_the_screen(browser, decks, notebook):  # noqa: F811
    page, seen = open_page(
        browser,
        f"{decks}/{notebook.stem}.slides.html",
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
        shots = SHOTS / notebook.stem
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


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_handout_leaves_the_thinking_to_the_student(notebook):
    import nbformat
    from lecture_material import ANSWER_REMOVED, handout, prediction_count

    original = nbformat.read(notebook, as_version=4)
    predictions = prediction_count(original)
    copy = handout(nbformat.read(notebook, as_version=4))
    prose = "\n".join(
        cell.source for cell in copy.cells if cell.cell_type == "markdown"
    )
    code = [cell for cell in copy.cells if cell.cell_type == "code"]
    assert not re.search(r"\{(term|cite)(:\w+)?\}`", prose), (
        "a role would show raw in Jupyter"
    )
    assert prose.count(ANSWER_REMOVED) == predictions, (
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
