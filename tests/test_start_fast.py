"""`check`, `show` and `convert` start fast because they import only what they use: never the TUI
framework (Textual is imported by `tooldbg open` and `tooldbg` alone), and `check --format json`
not even rich, which only drawing needs. Each command runs in a fresh interpreter that then lists
the modules it imported: the test is about what is imported, not about a time."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests import paths

SAMPLE = str(paths.SAMPLES / "anthropic" / "request.json")
DEFECT = str(paths.SAMPLES / "defects" / "TD303-session-store-drops-is-error.jsonl")

RUN = """
import sys
from tooldbg.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("\\nMODULES " + " ".join(sorted(sys.modules)), file=sys.stderr)
"""


def imported(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", RUN, *argv], capture_output=True, text=True, check=True,
                          timeout=120)
    line = done.stderr.rsplit("MODULES ", 1)[1]
    return set(line.split())


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


@pytest.mark.parametrize("ran, argv", [
    ("tooldbg.checks", ("check", DEFECT)),
    ("tooldbg.checks", ("check", str(paths.SAMPLES), "--format", "github")),
    ("tooldbg.show", ("show", SAMPLE)),
    ("tooldbg.formats.gemini.write", ("convert", SAMPLE, "--to", "gemini")),
])
def test_commands_that_print_never_import_textual(ran, argv):
    modules = imported(*argv)
    assert ran in modules  # the command did run
    assert "textual" not in top_level(modules)
    assert not any(m.startswith("tooldbg.tui") for m in modules)


def test_check_json_imports_neither_textual_nor_rich_nor_the_diff_engine():
    modules = imported("check", DEFECT, "--format", "json")
    assert "tooldbg.checks" in modules and "tooldbg.scan" in modules
    assert not top_level(modules) & {"textual", "rich", "pygments", "distributed", "dask"}
    assert "tooldbg.diff" not in modules and "tooldbg.report" not in modules


def test_check_on_one_core_starts_no_process_pool():
    modules = imported("check", SAMPLE)
    assert "concurrent.futures.process" not in modules and "multiprocessing" not in top_level(modules)
