"""What the repair tests share: `fix_conversation` and the `fix` command, failing the test when a
repair raised. For a user a repair that raises is a refusal ("not repaired … (internal error in the
TD301 repair, a bug in tooldbg)") and the rest of the repairs still run; in a test that refusal would
otherwise pass for a repair that needs a guess (as `run_rules` guards the rules)."""

from __future__ import annotations

import pytest

from tests.command import run
from tooldbg.load import Loaded
from tooldbg.model import Conversation
from tooldbg.repair import Fixed, fix_conversation

#: What the refusal of a repair that raised says (the `culprit` of `errors.unexpected`).
CRASHED = "internal error in the"


def fix(loaded: Loaded, conversation: Conversation, **options) -> Fixed:
    """`fix_conversation`, failing the test when a repair raised."""
    fixed = fix_conversation(loaded, conversation, **options)
    assert fixed.errors == (), fixed.errors
    return fixed


def run_fix(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """`tooldbg ARGV` (fix, convert --fix…), failing the test when a repair raised or the command
    crashed, whichever stream the report went to."""
    code, out, err = run(capsys, *map(str, argv))
    assert "Traceback" not in err, err
    assert CRASHED not in out and CRASHED not in err and "internal error" not in err, out + err
    return code, out, err
