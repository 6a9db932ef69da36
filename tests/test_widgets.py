"""Every "Try it" widget survives bad input.

Convention: a widget's callback is a top-level function named `explore_*` whose
knobs are keyword parameters with defaults. After a fresh run of the notebook,
each knob is set in turn to extreme values in the notebook's own kernel. The
callback must not raise, must say something (a status or an explanation of what
was wrong), and must answer quickly.
"""

import json

import nbformat
import pytest
from conftest import NOTEBOOKS, notebook_id
from notebook_runner import run

SECONDS_PER_CALL = 5.0

PROBE = (
    "\n"
    "import contextlib, inspect, io, json, time\n"
    "def _extremes(default):\n"
    "    if isinstance(default, bool):\n"
    "        return [not default]\n"
    "    if isinstance(default, int):\n"
    "        return [0, -1, 1000, 10**9]\n"
    "    if isinstance(default, float):\n"
    '        return [0.0, -1.0, 1e-12, 1e6, float("nan"), float("inf")]\n'
    "    return [None]\n"
    "_report = []\n"
    "for _name, _callback in sorted(globals().items()):\n"
    '    if not (_name.startswith("explore_") and '
    "inspect.isfunction(_callback)):\n"
    "        continue\n"
    "    for _knob, _parameter in "
    "inspect.signature(_callback).parameters.items():\n"
    "        for _value in _extremes(_parameter.default):\n"
    "            _said, _error, _started = io.StringIO(), None, "
    "time.perf_counter()\n"
    "            try:\n"
    "                with contextlib.redirect_stdout(_said):\n"
    "                    _callback(**{_knob: _value})\n"
    "            except BaseException as _exception:\n"
    '                _error = f"{type(_exception).__name__}: {_exception}"\n'
    '            _report.append({"callback": _name, "knob": _knob, '
    '"value": repr(_value), "error": _error,\n'
    '                            "said": _said.getvalue().strip()[-300:], '
    '"seconds": time.perf_counter() - _started})\n'
    "print(json.dumps(_report))\n"
)


def has_explore_callback(path):
    nb = nbformat.read(path, as_version=4)
    return any(
        "def explore_" in cell.source
        for cell in nb.cells
        if cell.cell_type == "code"
    )


WIDGET_NOTEBOOKS = [path for path in NOTEBOOKS if has_explore_callback(path)]


@pytest.mark.parametrize("path", WIDGET_NOTEBOOKS, ids=notebook_id)
def test_widget_callbacks_survive_extreme_knobs(path):
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    run(nb)
    stream = [o for o in nb.cells[-1].outputs if o.get("name") == "stdout"]
    report = json.loads(
        "".join(o.text for o in stream).strip().splitlines()[-1]
    )
    assert report, "no explore_* callback with knobs was found after the run"
    problems = []
    for call in report:
        where = f"{call['callback']}({call['knob']}={call['value']})"
        if call["error"]:
            problems.append(f"{where} raised {call['error']}")
        elif not call["said"]:
            problems.append(
                f"{where} printed nothing: "
                "it should state the result or what was wrong"
            )
        elif call["seconds"] > SECONDS_PER_CALL:
            problems.append(f"{where} took {call['seconds']:.1f} s")
    assert not problems, "\n".join(problems)
