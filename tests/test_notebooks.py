"""Every chapter notebook: well formed, executed, self-contained, and
reproducing its stored outputs."""

import ast
import os
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, colab_url, notebook_id
from IPython.core.inputtransformer2 import TransformerManager

COLAB_STACK = {
    "torch",
    "torchvision",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "sklearn",
    "IPython",
    "PIL",  # Pillow, which matplotlib needs
}
ALLOWED_IMPORTS = COLAB_STACK | set(sys.stdlib_module_names)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

OFFLINE = (
    bool(shutil.which("unshare") and shutil.which("ip"))
    and subprocess.run(
        ["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True
    ).returncode
    == 0
)

pytestmark = pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks yet")
by_notebook = pytest.mark.parametrize("path", NOTEBOOKS, ids=notebook_id)


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def python_source(nb):
    """All code cells as plain Python (IPython magics turned into calls), as one
    parsed module."""
    transform = TransformerManager().transform_cell
    return ast.parse("\n".join(transform(c.source) for c in code_cells(nb)))


@by_notebook
def test_is_valid_and_executed_top_to_bottom(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    counts = [c.execution_count for c in code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1)), (
        f"execution counts {counts}: "
        f"run `make execute NB={path.relative_to(ROOT)}`"
    )


@by_notebook
def test_no_error_or_stderr_output(path):
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(code_cells(nb), 1):
        for output in cell.outputs:
            assert output.output_type != "error", (
                f"code cell {index} stored an error: {output.get('ename')}"
            )
            assert output.get("name") != "stderr", (
                f"code cell {index} stored stderr: {output.text[:200]!r}"
            )


@by_notebook
def test_colab_badge_points_to_this_notebook(path):
    nb = nbformat.read(path, as_version=4)
    title = nb.cells[0].source
    assert title.startswith("# "), "the first cell must be the chapter title"
    assert f"({colab_url(path)})" in title, (
        f"the title cell needs a Colab badge linking to {colab_url(path)}"
    )


@by_notebook
def test_widget_views_have_saved_state(path):
    nb = nbformat.read(path, as_version=4)
    views = [
        o.data[WIDGET_VIEW]["model_id"]
        for c in code_cells(nb)
        for o in c.outputs
        if WIDGET_VIEW in o.get("data", {})
    ]
    state = (
        nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    )
    missing = [model for model in views if model not in state]
    assert not missing, (
        f"{len(missing)} widget views without saved state "
        "would vanish from the website"
    )


@by_notebook
def test_imports_only_from_colab_stack(path):
    tree = python_source(nbformat.read(path, as_version=4))
    modules = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    modules |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    assert modules <= ALLOWED_IMPORTS, (
        "not on Colab's preinstalled stack: "
        f"{sorted(modules - ALLOWED_IMPORTS)}"
    )


@by_notebook
def test_claims_are_asserted(path):
    tree = python_source(nbformat.read(path, as_version=4))
    asserts = sum(isinstance(node, ast.Assert) for node in ast.walk(tree))
    assert asserts >= 3, (
        f"only {asserts} assert statements: "
        "every claim a number shows must be asserted"
    )


# Floating-point results depend on the kernels PyTorch dispatches to (AVX512,
# AVX2 or portable code; oneDNN's and MKL's own choice of instructions) and on
# the number of threads. A notebook must print the same text on any machine, so
# nbval runs twice: on this machine as it is, and again as a different one
# (portable kernels everywhere, three threads). Outputs that pass only the first
# run hold only on CPUs like this one.
CPU_PROFILES = {
    "native": {},
    "foreign": {
        "ATEN_CPU_CAPABILITY": "default",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
        "OMP_NUM_THREADS": "3",
        "MKL_NUM_THREADS": "3",
    },
}


@by_notebook
@pytest.mark.parametrize("profile", CPU_PROFILES)
def test_fresh_run_reproduces_stored_outputs(path, profile, tmp_path):
    """nbval on a copy of the notebook alone in an empty folder, with the
    network cut where possible."""
    shutil.copy(path, tmp_path / path.name)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--nbval",
        path.name,
        "-p",
        "no:cacheprovider",
        "--sanitize-with",
        str(ROOT / "tests" / "sanitize.cfg"),
        "-q",
        "--nbval-cell-timeout",
        "120",
    ]
    if OFFLINE:
        # a private network namespace with only loopback up: no host but this
        # one exists
        command = [
            "unshare",
            "-n",
            "sh",
            "-c",
            'ip link set lo up && exec "$@"',
            "sh",
            *command,
        ]
    result = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **CPU_PROFILES[profile]},
    )
    assert result.returncode == 0, (
        f"nbval failed ({profile} CPU profile {CPU_PROFILES[profile]}, "
        f"offline={OFFLINE}):\n"
        f"{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    )


# Code that several notebooks carry, each its own copy (a notebook imports
# nothing from this repository): every copy is the reference copy in
# book/_ext/shared_cells/. The launcher is exercised by test_launcher.py.
SHARED_CELLS = {
    "def precomputed(": "precomputed.py",
    "def explain_failure(": "launcher_explain_failure.py",
    "class TorchrunJob": "launcher_torchrun_job.py",
}


@pytest.mark.parametrize("marker", SHARED_CELLS)
def test_shared_cells_are_the_reference_copy(marker):
    from notebook_runner import HERE

    reference = (
        (HERE / "shared_cells" / SHARED_CELLS[marker]).read_text().rstrip("\n")
    )
    copies = {
        path.stem: cell.source
        for path in NOTEBOOKS
        for cell in code_cells(nbformat.read(path, as_version=4))
        if marker in cell.source
    }
    assert copies, f"no notebook has a cell with {marker!r}"
    stale = sorted(
        name for name, source in copies.items() if source != reference
    )
    assert not stale, (
        f"the cell with {marker!r} in {stale} is not the reference copy "
        f"book/_ext/shared_cells/{SHARED_CELLS[marker]}: run "
        "`python book/_ext/notebook_runner.py shared notebooks/*.ipynb`, "
        "then `make execute`"
    )


EXCERPT = re.compile(r"```python\n# from (\S+)\n(.*?)```", re.S)


def written_files(nb):
    """{file name: text} of the files the notebook writes with %%writefile
    (-a appends), in cell order."""
    files = {}
    for cell in code_cells(nb):
        first, _, body = cell.source.partition("\n")
        words = first.split()
        if words and words[0] == "%%writefile":
            name = words[-1]
            files[name] = (files.get(name, "") if "-a" in words else "") + body
    return files


@by_notebook
def test_excerpts_are_copied_from_the_script(path):
    """A listing in prose that starts with `# from <file>` shows lines of a
    script the notebook writes: each run of lines between `...` lines is in
    that file as written, so the listing beside a result cannot drift from
    the code that produced it."""
    nb = nbformat.read(path, as_version=4)
    files = written_files(nb)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for name, listing in EXCERPT.findall(cell.source):
            assert name in files, (
                f"an excerpt says it is from {name}, which the notebook "
                f"does not write (it writes {sorted(files)})"
            )
            runs = re.split(r"\n\s*\.\.\.\s*\n", "\n" + listing)
            for run in runs:
                run = run.strip("\n")
                assert run and run in files[name], (
                    f"these lines of an excerpt are not in {name} as "
                    f"written:\n{run}"
                )
