"""Every test sees the same terminal: 80 columns by 24 lines, whatever the shell that runs pytest
says. Rich sizes everything it prints (`tooldbg show`, `check`'s text report, `rules`) from
`COLUMNS`/`LINES` when the output is not a terminal — as under pytest, `CliRunner` and the
subprocesses the CLI tests start, which inherit the environment — so without this a developer's
wide or narrow terminal could change a test's outcome. Tests that need another width pass
`--width` or set the variable themselves."""

import pytest

COLUMNS, LINES = "80", "24"


@pytest.fixture(autouse=True)
def fixed_terminal_size(monkeypatch):
    monkeypatch.setenv("COLUMNS", COLUMNS)
    monkeypatch.setenv("LINES", LINES)
