"""Running the command line in-process, as the tests that exercise a command do."""

import pytest

from tooldbg.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`tooldbg ARGV`: its exit code (0 when it returned), stdout and stderr."""
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err
