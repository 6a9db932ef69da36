"""Execute the book's notebooks from a fresh kernel, the way they are committed
and benchmarked.

    # re-run in place, keep widget state
    python book/_ext/notebook_runner.py execute notebooks/01_*.ipynb
    # time budget table, no notebook written
    python book/_ext/notebook_runner.py bench notebooks/*.ipynb
    # run every notebook on CUDA, asserts only
    python book/_ext/notebook_runner.py gpu-check notebooks/*.ipynb
    # handouts without solutions
    python book/_ext/notebook_runner.py student notebooks/*.ipynb
    # reveal.js slides, no CDN (the Chinese ones: --out _build/html/zh/slides)
    python book/_ext/notebook_runner.py slides notebooks/*.ipynb
    # copy the reference cells of shared_cells/ into every notebook using one
    python book/_ext/notebook_runner.py shared notebooks/*.ipynb

Each notebook runs alone in an empty temporary folder, as it would in Colab, so
one that reads a file of this repository fails here too.
"""

import argparse
import datetime
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from queue import Empty

import nbformat
from nbclient import NotebookClient

# a whole notebook on the 2-core CPU; metadata "budget_seconds" overrides it
BUDGET_SECONDS = 20.0
CELL_BUDGET_SECONDS = 5.0
FLOOR_REPEATS = 5  # warm kernel starts whose median is the floor of make bench
FLOOR_MULTIPLE = 5  # a notebook may take at most this many floors
HERE = Path(__file__).resolve().parent
PEAK_RSS_CELL = (
    "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
)


class PollingClient(NotebookClient):
    """NotebookClient that asks for the execute reply at least once a second.

    nbclient waits for a cell's reply with one poll as long as the whole cell
    timeout. On this stack (pyzmq 27, jupyter_client 8) that poll occasionally
    misses its wake-up after a cell that shows widgets, and the run then stalls
    for the full timeout although the kernel is idle. Short polls in a loop
    pick the reply up within a second.
    """

    async def async_start_new_kernel_client(self):
        client = await super().async_start_new_kernel_client()
        get_msg = client.shell_channel.get_msg

        async def get_msg_polling(timeout=None):
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                step = (
                    1.0
                    if deadline is None
                    else min(1.0, max(0.0, deadline - time.monotonic()))
                )
                try:
                    return await get_msg(timeout=step)
                except Empty:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise

        client.shell_channel.get_msg = get_msg_polling
        return client


def run(nb, *, timeout=300):
    """Execute `nb` in place in an empty folder; return the seconds each code
    cell took."""
    with tempfile.TemporaryDirectory(prefix="gm-run-") as workdir:
        client = PollingClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": workdir}},
            # nbclient's output-widget capture needs it even when unused
            store_widget_state=True,
            record_timing=True,
        )
        client.execute()
    seconds = []
    for cell in nb.cells:
        timing = cell.metadata.pop("execution", None)
        if cell.cell_type == "code" and timing:
            start = datetime.datetime.fromisoformat(
                timing["iopub.execute_input"].replace("Z", "+00:00")
            )
            end = datetime.datetime.fromisoformat(
                timing["shell.execute_reply"].replace("Z", "+00:00")
            )
            seconds.append((end - start).total_seconds())
    return seconds


def execute(paths):
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        started = time.perf_counter()
        cell_seconds = run(nb)
        nbformat.validate(nb)
        nbformat.write(nb, path)
        print(
            f"{path}: {time.perf_counter() - started:.1f} s, "
            f"slowest cell {max(cell_seconds, default=0):.1f} s"
        )


def floor_seconds(repeats=FLOOR_REPEATS):
    """Median wall time of a fresh kernel that imports torch, after one run that
    warms the caches.

    The first start after a boot or an install reads everything from disk and
    can take twice as long as any later one; the notebooks themselves run warm,
    so the floor must too.
    """

    def once():
        nb = nbformat.v4.new_notebook(
            cells=[nbformat.v4.new_code_cell("import torch")]
        )
        started = time.perf_counter()
        run(nb)
        return time.perf_counter() - started

    once()
    return statistics.median(once() for _ in range(repeats))


def bench(paths):
    floor = floor_seconds()
    rows, over = [], []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        budget = float(nb.metadata.get("budget_seconds", BUDGET_SECONDS))
        nb.cells.append(nbformat.v4.new_code_cell(PEAK_RSS_CELL))
        started = time.perf_counter()
        cell_seconds = run(nb)
        wall = time.perf_counter() - started
        peak_mib = int(nb.cells[-1].outputs[0]["text"]) / 1024
        slowest = max(
            range(len(cell_seconds) - 1), key=cell_seconds.__getitem__
        )
        rows.append(
            f"| {Path(path).name} | {wall:.1f} | {budget:.0f} "
            f"| {cell_seconds[slowest]:.1f} (code cell {slowest + 1}) "
            f"| {peak_mib:.0f} | {wall / floor:.1f} |"
        )
        if wall > budget:
            over.append(
                f"{path}: {wall:.1f} s is over its {budget:.0f} s budget"
            )
        if wall > FLOOR_MULTIPLE * floor:
            over.append(
                f"{path}: {wall:.1f} s is over {FLOOR_MULTIPLE} times the "
                f"floor ({FLOOR_MULTIPLE * floor:.1f} s)"
            )
        if cell_seconds[slowest] > CELL_BUDGET_SECONDS:
            over.append(
                f"{path}: code cell {slowest + 1} took "
                f"{cell_seconds[slowest]:.1f} s "
                f"(limit {CELL_BUDGET_SECONDS:.0f} s)"
            )
    table = "\n".join(
        [
            (
                "Floor (start a kernel, `import torch`; "
                f"median of {FLOOR_REPEATS} warm runs): {floor:.1f} s"
            ),
            "",
            (
                "| notebook | wall (s) | budget (s) | slowest cell (s) "
                "| peak kernel RSS (MiB) | × floor |"
            ),
            "|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(table)
    Path("_build").mkdir(exist_ok=True)
    Path("_build/bench.md").write_text(table + "\n")
    for message in over:
        print("OVER BUDGET:", message, file=sys.stderr)
    return 1 if over else 0


def gpu_check(paths):
    import torch

    if not torch.cuda.is_available():
        print(
            "No CUDA device here: nothing to check "
            "(the notebooks pick CUDA by themselves when present)."
        )
        return 0
    print(
        f"Running on {torch.cuda.get_device_name(0)}; "
        "outputs are not compared, asserts must hold."
    )
    failed = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        started = time.perf_counter()
        try:
            run(nb)
            print(f"ok    {path} ({time.perf_counter() - started:.1f} s)")
        except Exception as error:  # report every notebook, then fail
            failed.append(path)
            # the failing cell and the end of its traceback, enough to find it
            lines = str(error).strip().splitlines()
            print(f"FAIL  {path}:", *lines[:6], "...", *lines[-30:], sep="\n")
    return 1 if failed else 0


def student(paths, out="_build/student"):
    """Handouts (lecture_material.handout): no outputs, solutions or answers;
    roles as plain text."""
    from lecture_material import handout

    Path(out).mkdir(parents=True, exist_ok=True)
    for path in paths:
        nbformat.write(
            handout(nbformat.read(path, as_version=4)),
            Path(out) / Path(path).name,
        )
    print(
        f"{len(paths)} handouts without solutions, answers or outputs in {out}/"
    )
    return 0


def slides(paths, out="_build/html/slides"):
    """reveal.js slides of each chapter (lecture_material.deck), every script
    served from out/vendor."""
    from lecture_material import deck
    from nbconvert import SlidesExporter
    from offline_site import MATHJAX, SLIDES_LAYOUT, vendor
    from traitlets.config import Config

    template = HERE / "slides_template"
    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
    exporter = SlidesExporter(
        config=config,
        extra_template_basedirs=[str(template.parent)],
        template_name=template.name,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        reveal_url_prefix="vendor/reveal.js",
        reveal_theme="white",
        reveal_width="1280",
        reveal_height="720",
        require_js_url="vendor/require.js",
        mathjax_url=f"vendor/mathjax/{MATHJAX}",
        widget_renderer_url="vendor/embed-amd.js",
        font_awesome_url="",
    )
    Path(out).mkdir(parents=True, exist_ok=True)
    vendor(SLIDES_LAYOUT, out)
    # the widget manager of the Try-it slides calls MathJax 2's API: the same
    # bridge to MathJax 3 as on the website
    shutil.copy(template / "mathjax2-queue.js", Path(out) / "vendor")
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        exporter.language_code = nb.metadata.get("language", "en").replace(
            "_", "-"
        )
        html, _ = exporter.from_notebook_node(
            deck(nb), resources={"metadata": {"name": Path(path).stem}}
        )
        (Path(out) / f"{Path(path).stem}.slides.html").write_text(html)
    print(f"slides for {len(paths)} notebooks in {out}/")
    return 0


def shared_cells():
    """{first line: source} of the cells several notebooks carry, each its own
    copy (a notebook imports nothing from this repository): the reference
    copies in shared_cells/, one file a cell."""
    return {
        source.split("\n", 1)[0]: source
        for source in (
            path.read_text().rstrip("\n")
            for path in sorted((HERE / "shared_cells").glob("*.py"))
        )
    }


def share(paths):
    """Replace each notebook cell whose first line is a reference cell's
    title with the reference copy (then `make execute` the notebooks)."""
    references = shared_cells()
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        changed = 0
        for cell in nb.cells:
            first = cell.source.split("\n", 1)[0]
            if cell.cell_type == "code" and first in references:
                changed += cell.source != references[first]
                cell.source = references[first]
        if changed:
            nbformat.write(nb, path)
            print(f"{path}: {changed} shared cell(s) updated")
    return 0


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "command",
        choices=[
            "execute",
            "bench",
            "gpu-check",
            "student",
            "slides",
            "shared",
        ],
    )
    parser.add_argument("notebooks", nargs="+")
    parser.add_argument(
        "--out", help="folder of the slides or handouts (default: see above)"
    )
    args = parser.parse_args()
    if args.command == "execute":
        execute(args.notebooks)
        return 0
    commands = {
        "bench": bench,
        "gpu-check": gpu_check,
        "student": student,
        "slides": slides,
        "shared": share,
    }
    if args.out and args.command in ("student", "slides"):
        return commands[args.command](args.notebooks, out=args.out)
    return commands[args.command](args.notebooks)


if __name__ == "__main__":
    sys.exit(main())
