"""Two worker processes that run tooldbg commands under different PYTHONHASHSEED values, for the
`hashseed` property: a set's iteration order changes with the seed, so output that depends on it
differs between the two. Each worker runs commands in process (click's CliRunner) as they come,
one JSON line in, one out; they start once and are stopped at exit. TOOLDBG_DEBUG is set in them, so
an exception tooldbg would have reported as a line is the reply's `exception`."""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

#: The hash seeds of the two workers (any two differ in the order of a set of strings).
SEEDS = ("1", "2")

_WORKER = r"""
import json, sys
from click.testing import CliRunner
from tooldbg.cli import cli

sys.stdout.write(json.dumps(hash("tooldbg")) + "\n")  # (the seed at work: the two must differ)
sys.stdout.flush()
for line in sys.stdin:
    argv = json.loads(line)
    result = CliRunner().invoke(cli, argv, catch_exceptions=True)
    failed = result.exception is not None and not isinstance(result.exception, SystemExit)
    reply = {"code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr,
             "exception": repr(result.exception) if failed else None}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
"""


class Workers:
    def __init__(self) -> None:
        root = str(Path(__file__).resolve().parents[2])
        self.processes = []
        for seed in SEEDS:
            env = {**os.environ, "PYTHONHASHSEED": seed, "COLUMNS": "120", "LINES": "24", "TOOLDBG_DEBUG": "1",
                   "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
            self.processes.append(subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE,
                                                   stdout=subprocess.PIPE, text=True, env=env, cwd=root))
        #: Each worker's hash of one string: they differ, or the property could not fail.
        self.hashes = [json.loads(p.stdout.readline()) for p in self.processes]  # type: ignore[union-attr]
        atexit.register(self.stop)

    def run(self, argv: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The command's exit code and output in each worker."""
        for process in self.processes:
            assert process.stdin is not None
            process.stdin.write(json.dumps(argv) + "\n")
            process.stdin.flush()
        replies = []
        for process in self.processes:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line:
                raise RuntimeError(f"a hash-seed worker stopped (exit {process.poll()})")
            replies.append(json.loads(line))
        return replies[0], replies[1]

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.stdin.close()  # type: ignore[union-attr]
                process.wait(timeout=10)


@cache
def workers() -> Workers:
    return Workers()
