"""Chapter 7's torchrun launcher, from the notebook itself, on two failing jobs
(chapter 9 carries an identical copy: test_notebooks.py checks it).

- A rank that raises: the report quotes that rank's own error line (not
  torchrun's ChildFailedError), the job ends within seconds of the raise, and
  no process of the ranks is left.
- A rank that hangs while the other waits in a collective: at the timeout the
  launcher stops the job and says that it timed out; torchrun and every
  process in the ranks' sessions are gone.

Both jobs run two gloo ranks on 127.0.0.1: no network, no GPU.
"""

import ast
import glob
import re
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT

NOTEBOOK = ROOT / "notebooks" / "07_many_devices.ipynb"
RAISE_TO_EXIT_S = 15  # "within seconds": rank 1's raise to torchrun's exit
HANG_TIMEOUT_S = 3  # how long result() waits for the hanging job
STOP_GRACE_S = 10  # how long stopping it may take after that

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(),
    reason="the launcher and these checks read Linux's /proc",
)

RAISING_SCRIPT = """
    import os, time
    from datetime import timedelta
    import torch.distributed as dist
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    print(f"rank {rank} pid {os.getpid()} joined", flush=True)
    if rank == 1:
        print(f"rank 1 raises at {time.monotonic()}", flush=True)
        raise ValueError("deliberate failure on rank 1")
    dist.barrier()                  # rank 0 waits for rank 1 here
"""

HANGING_SCRIPT = """
    import os, time
    from datetime import timedelta
    import torch.distributed as dist
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank = dist.get_rank()
    print(f"rank {rank} pid {os.getpid()} joined", flush=True)
    if rank == 1:
        time.sleep(60)              # alive, but never reaches the collective
    dist.barrier()                  # rank 0 waits for rank 1 here
"""


def is_stdlib_import(node):
    if isinstance(node, ast.Import):
        return all(
            alias.name.split(".")[0] in sys.stdlib_module_names
            for alias in node.names
        )
    return (
        isinstance(node, ast.ImportFrom)
        and (node.module or "").split(".")[0] in sys.stdlib_module_names
    )


@pytest.fixture(scope="module")
def launcher():
    """The notebook's launcher cells, after its standard-library imports."""
    cells = [
        cell.source
        for cell in nbformat.read(NOTEBOOK, as_version=4).cells
        if cell.cell_type == "code"
    ]
    launcher_cells = [
        source
        for source in cells
        if "def explain_failure" in source or "class TorchrunJob" in source
    ]
    assert len(launcher_cells) == 2, (
        f"expected the two code cells of {NOTEBOOK.name} that define "
        f"explain_failure and TorchrunJob, found {len(launcher_cells)}"
    )
    imports = []
    for source in cells:
        if not source.lstrip().startswith("%"):  # %%writefile: not Python
            imports += [
                node
                for node in ast.parse(source).body
                if is_stdlib_import(node)
            ]
    namespace = {}
    module = ast.Module(body=imports, type_ignores=[])
    exec(compile(module, f"{NOTEBOOK.name} imports", "exec"), namespace)
    for source in launcher_cells:
        exec(compile(source, NOTEBOOK.name, "exec"), namespace)
    return namespace


def write_script(folder, text):
    path = folder / "job.py"
    path.write_text(textwrap.dedent(text))
    return str(path)


def rank_pids(output):
    found = re.findall(r"rank (\d) pid (\d+) joined", output)
    return {int(rank): int(pid) for rank, pid in found}


def live_members(session_ids):
    """Processes, zombies excepted, in one of the sessions `session_ids`."""
    members = []
    for stat_file in glob.glob("/proc/[0-9]*/stat"):
        try:
            stat = Path(stat_file).read_text()
        except OSError:
            continue  # ended while we looked
        fields = stat.rpartition(")")[2].split()
        state, session = fields[0], int(fields[3])
        if session in session_ids and state not in ("Z", "X"):
            members.append(int(stat_file.split("/")[2]))
    return members


def test_a_rank_that_raises_is_reported_by_its_own_error(launcher, tmp_path):
    script = write_script(tmp_path, RAISING_SCRIPT)
    job = launcher["TorchrunJob"](script, timeout_s=120)
    with pytest.raises(launcher["TorchrunFailed"]) as caught:
        job.result()
    ended = time.monotonic()
    report, output = str(caught.value), caught.value.output
    assert "ValueError: deliberate failure on rank 1" in report, (
        f"the report should quote rank 1's own error line:\n{report}\n"
        f"--- output ---\n{output}"
    )
    assert "ChildFailedError" not in report, (
        f"the report names torchrun's summary instead:\n{report}"
    )
    assert "timed out" not in report, (
        f"the failure should not have waited for a timeout:\n{report}"
    )
    raised = re.search(r"rank 1 raises at ([\d.]+)", output)
    assert raised, f"rank 1 should have printed when it raised:\n{output}"
    raised_at = float(raised[1])
    assert ended - raised_at < RAISE_TO_EXIT_S, (
        f"torchrun ended {ended - raised_at:.1f} s after rank 1 raised; "
        f"expected under {RAISE_TO_EXIT_S} s (gloo reports the closed "
        "connection and torchrun stops the other rank)"
    )
    pids = rank_pids(output)
    assert sorted(pids) == [0, 1], f"both ranks should have joined:\n{output}"
    assert job.process.poll() is not None, "torchrun is still running"
    left = live_members(set(pids.values()))
    assert not left, f"processes of the ranks' sessions still alive: {left}"


def test_a_hanging_rank_is_stopped_at_the_timeout(launcher, tmp_path):
    script = write_script(tmp_path, HANGING_SCRIPT)
    job = launcher["TorchrunJob"](script, timeout_s=120)
    job.wait_for("joined", count=2)
    pids = rank_pids(job.printed())
    assert sorted(pids) == [0, 1], (
        f"both ranks should have joined:\n{job.printed()}"
    )
    for pid in pids.values():
        assert live_members({pid}) == [pid], (
            f"rank pid {pid} should be alive and lead a session of its own "
            "(torchrun starts every rank with start_new_session)"
        )
    asked = time.monotonic()
    with pytest.raises(launcher["TorchrunFailed"]) as caught:
        job.result(timeout_s=HANG_TIMEOUT_S)
    waited = time.monotonic() - asked
    report = str(caught.value)
    assert "timed out" in report, (
        f"the report should say that the job timed out:\n{report}"
    )
    assert HANG_TIMEOUT_S <= waited < HANG_TIMEOUT_S + STOP_GRACE_S, (
        f"result(timeout_s={HANG_TIMEOUT_S}) returned after {waited:.1f} s; "
        f"expected the timeout plus under {STOP_GRACE_S} s to stop the job"
    )
    assert job.process.poll() is not None, "torchrun still runs after the stop"
    left = live_members(set(pids.values()))
    assert not left, (
        f"processes of the ranks' sessions still alive after the stop: {left}"
    )
