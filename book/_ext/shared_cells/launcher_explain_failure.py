# @title The launcher, part 1: explain a failure { display-mode: "form" }
import re


class TorchrunFailed(RuntimeError):
    # torchrun failed or was stopped; the message says why, in one line.
    pass


FAILURE_HINTS = [  # (text in the first error, in any case; what to do)
    (
        "EADDRINUSE",
        "the master port is taken, often by an earlier job that "
        "is still running: leave master_port=None so that a free "
        "port is picked, or stop the other job",
    ),
    (
        "No module named",
        "the ranks run in a Python without the needed "
        "packages: launch with sys.executable",
    ),
    (
        "timed out",
        "a rank waited for the others and gave up: do all ranks "
        "reach the same collectives?",
    ),
]
# An error line; after init_process_group, ranks prefix theirs with "[rankN]: "
ERROR_LINE = re.compile(
    r"^\s*(?:\[rank\d+\]:\s*)?([\w.]*(?:Error|Exception)"
    r"(?:: .*)?)$",
    re.MULTILINE,
)
SIGNAL_LINE = re.compile(r"Signal \d+ \(\w+\) received by PID \d+")


def explain_failure(returncode, output, port):
    # One line: what went wrong first, and what to do about it.
    # torchrun's summary ends with the first rank to fail, its "Root Cause"
    root_cause = output.rpartition("Root Cause")[2]
    killed = SIGNAL_LINE.findall(root_cause)  # killed by a signal?
    raised = [
        line.strip()
        for line in ERROR_LINE.findall(output)
        if "ChildFailedError" not in line
    ]  # not torchrun's summary
    if killed:
        first_error = killed[0]
        hint = "a rank was killed by a signal: its last lines are in .output"
    elif raised:
        first_error = raised[0]
        hint = next(
            (
                advice
                for text, advice in FAILURE_HINTS
                if text.lower() in first_error.lower()
            ),
            "the traceback of the rank that raised it is in .output",
        )
    else:
        first_error, hint = "no error line", "read the whole output in .output"
    message = f"torchrun exited with code {returncode}: {first_error}; {hint}"
    return message.replace(str(port), "<port>")
