"""Every test sees the same terminal: 80 columns by 24 lines, whatever the shell that runs pytest
says. Rich sizes everything it prints (`tooldbg show`, `check`'s text report, `rules`) from
`COLUMNS`/`LINES` when the output is not a terminal — as under pytest, `CliRunner` and the
subprocesses the CLI tests start, which inherit the environment — so without this a developer's
wide or narrow terminal could change a test's outcome. Tests that need another width pass
`--width` or set the variable themselves.

The third-party corpus (tests/paths.py): tests marked `needs_corpus` are skipped, with one reason,
when it is absent; a `TOOLDBG_CORPUS` that names a folder without it stops the run at the start, so
that a mistyped path is not mistaken for a corpus that is simply not there."""

import pytest

from tests import paths

COLUMNS, LINES = "80", "24"


@pytest.fixture(autouse=True)
def fixed_terminal_size(monkeypatch):
    monkeypatch.setenv("COLUMNS", COLUMNS)
    monkeypatch.setenv("LINES", LINES)


def pytest_configure(config):
    if problem := paths.corpus_misnamed():
        raise pytest.UsageError(problem)


def pytest_collection_modifyitems(items):
    if not paths.HAVE_CORPUS:
        skip = pytest.mark.skip(reason=paths.CORPUS_MISSING)
        for item in items:
            if item.get_closest_marker("needs_corpus"):
                item.add_marker(skip)
