"""Notebooks, tests and build scripts keep one style: ruff, set in ruff.toml."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

RUFF = Path(sys.executable).parent / "ruff"


@pytest.mark.parametrize(
    "command", [["format", "--check", "--diff"], ["check"]], ids=" ".join
)
def test_ruff(command):
    result = subprocess.run(
        [str(RUFF), *command, "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = (result.stdout + result.stderr)[-6000:]
    assert result.returncode == 0, f"run `make format`, then fix:\n{report}"
