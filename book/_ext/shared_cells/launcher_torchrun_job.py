# @title The launcher, part 2: TorchrunJob { display-mode: "form" }
import glob
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time


def find_free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))  # port 0: the system picks a free one
        return probe.getsockname()[1]


def check_seconds(seconds):
    if not (isinstance(seconds, (int, float)) and 0 < seconds < math.inf):
        raise ValueError(
            f"a timeout must be a positive number of seconds (got {seconds!r})"
        )
    return seconds


def child_pids(pid):
    # The processes that `pid` started, read from Linux's /proc.
    children = []
    for stat_file in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat_file) as stat:
                parent = stat.read().rpartition(")")[2].split()[1]
        except (OSError, IndexError):
            continue  # the process has just ended
        if int(parent) == pid:
            children.append(int(stat_file.split("/")[2]))
    return children


class TorchrunJob:
    # `script` under torchrun on this machine, started in the background.
    # .result() waits for it and returns its stdout, or raises TorchrunFailed.

    def __init__(
        self, script, nproc_per_node=2, master_port=None, timeout_s=120
    ):
        if not os.path.isfile(script):
            raise ValueError(
                f"no file {script!r} in {os.getcwd()}: "
                "run the %%writefile cells first"
            )
        if (
            isinstance(nproc_per_node, bool)
            or not isinstance(nproc_per_node, int)
            or not 1 <= nproc_per_node <= 8
        ):
            raise ValueError(
                "nproc_per_node must be a whole number from 1 "
                f"to 8 (got {nproc_per_node!r})"
            )
        check_seconds(timeout_s)
        self.port = find_free_port() if master_port is None else master_port
        self.timeout_s, self.started = timeout_s, time.monotonic()
        self.stdout, self.stderr = (
            tempfile.TemporaryFile("w+", errors="replace") for _ in range(2)
        )
        command = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            f"--nproc_per_node={nproc_per_node}",
            "--master_addr=127.0.0.1",
            f"--master_port={self.port}",
            script,
        ]
        self.process = subprocess.Popen(
            command, stdout=self.stdout, stderr=self.stderr
        )

    def printed(self):
        # What the ranks have printed so far (pread leaves the file offset,
        # which the job shares, where it is).
        fd = self.stdout.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")

    def wait_for(self, text, count=1):
        # Wait until `text` has been printed `count` times. If the job ends or
        # reaches its deadline first, raise as result() does.
        while self.printed().count(text) < count:
            if (
                self.process.poll() is not None
                or time.monotonic() > self.started + self.timeout_s
            ):
                self.result()
                raise TorchrunFailed(
                    f"the job ended without printing {text!r} {count} times"
                )
            time.sleep(0.05)

    def stop(self, grace_s=10):
        # SIGTERM: torchrun stops its ranks. Past grace_s, SIGKILL to torchrun
        # and to each rank's process group (the rank and what it started).
        ranks = child_pids(self.process.pid)
        self.process.terminate()
        try:
            self.process.wait(grace_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
        for rank_pid in ranks:
            try:
                os.killpg(rank_pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # already gone
        self.process.wait(grace_s)

    def result(self, timeout_s=None):
        # Wait for the end of the job, until its deadline or for timeout_s
        # seconds, whichever comes first. Return what the ranks printed, or
        # raise TorchrunFailed; a job still running by then is stopped.
        deadline = self.started + self.timeout_s
        if timeout_s is not None:
            deadline = min(
                deadline, time.monotonic() + check_seconds(timeout_s)
            )
        timed_out = False
        try:
            self.process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            timed_out = True
        self.seconds = time.monotonic() - self.started
        stdout, stderr = self._read(self.stdout), self._read(self.stderr)
        if timed_out:
            message = (
                f"torchrun timed out after {self.seconds:.0f} s and "
                "was stopped with its ranks; is a rank stuck before "
                "a collective that the others wait in?"
            )
        elif self.process.returncode != 0:
            message = explain_failure(
                self.process.returncode, stderr, self.port
            )
        else:
            return stdout
        failure = TorchrunFailed(message)
        failure.output = stdout + stderr
        raise failure

    @staticmethod
    def _read(stream):
        stream.seek(0)
        text = stream.read()
        stream.close()
        return text
