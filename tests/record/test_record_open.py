"""`tooldbg record --open -- COMMAND` as a whole: the proxy records an agent while the debugger follows
the recording (driven headless through `App.run_test`, in place of the terminal), the command's exit
shows on the status line, and quitting the debugger ends the recording with the command's exit code.
Every wait is bounded."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.command import run
from tests.record.conftest import records
from tests.standins import standin
from tests.tui.conftest import screen_text
from tooldbg.checks import run_checks
from tooldbg.load import load_file
from tooldbg.model import conversation_to_dict
from tooldbg.tui.app import ToolDbgApp
from tooldbg.tui.widgets.findings_panel import FindingsPanel
from tooldbg.tui.widgets.follow_status import FollowStatus

KEY = "sk-test-agent-key-0123456789"
#: An agent's two turns: a call, then its result given back (the call replayed as it came).
AGENT = f"""
import openai
client = openai.OpenAI(api_key="{KEY}", max_retries=0)
tools = [{{"type": "function", "function": {{"name": "get_weather", "parameters": {{
    "type": "object", "properties": {{"city": {{"type": "string"}}}}}}}}}}]
messages = [{{"role": "user", "content": "Weather in OSL?"}}]
asked = client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools).choices[0].message
call = asked.tool_calls[0]
messages += [asked.model_dump(exclude_none=True),
             {{"role": "tool", "tool_call_id": call.id, "content": "Sunny. Reference: R1"}}]
print(client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools).choices[0].message.content)
raise SystemExit(3)
"""
#: Pauses of the app's loop the test waits at most for the debugger to show the whole session.
ROUNDS = 500


async def until(pilot: Pilot, done: Any) -> bool:
    for _ in range(ROUNDS):
        if done():
            return True
        await pilot.pause(0.05)
    return False


def test_record_open_follows_the_session_and_ends_with_the_commands_code(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    output, agent = tmp_path / "run.jsonl", tmp_path / "agent.py"
    agent.write_text(AGENT)
    seen: dict[str, Any] = {}

    async def drive(app: ToolDbgApp) -> None:
        """What the user sees once both exchanges are in and the command has ended; then `q`."""
        async with app.run_test(size=(120, 36)) as pilot:
            status = app.screen.query_one(FollowStatus)
            seen["shown"] = await until(pilot, lambda: status.exchanges == 2 and "exited with" in status.note)
            seen["note"], seen["counts"] = status.note, status.findings
            seen["findings"] = list(app.screen.query_one(FindingsPanel).findings)
            seen["conversations"] = [conversation_to_dict(c) for c in app.session.files[0].conversations]
            seen["screen"] = screen_text(pilot)
            await pilot.press("q")

    # The debugger runs headless where it would take the terminal (the assertions come after it
    # quit, so the recording is stopped whatever it showed).
    monkeypatch.setattr(ToolDbgApp, "run", lambda app, *_, **__: asyncio.run(drive(app)))
    with standin("openai-chat", key=KEY, plant="double-encoded-arguments") as provider:
        code, _, err = run(capsys, "record", "-o", str(output), "--upstream", provider.url, "--open",
                           "--", sys.executable, str(agent))
    assert seen["shown"], f"the debugger did not show the session: {seen}"
    assert code == 3
    log = output.with_name("run.jsonl.command.log")
    assert seen["note"] == f"{sys.executable} exited with 3 (output: {log})"
    assert log.read_text() == "get_weather=R1\n"  # the command's output, kept out of the debugger's terminal

    loaded = load_file(output)
    expected = run_checks(loaded)
    assert "TD201" in {f.code for f in expected}  # what the stand-in planted
    assert seen["findings"] == expected  # the live view found what `check` finds in the file
    assert seen["counts"] == (len(expected), 0, 0)
    assert seen["conversations"] == [conversation_to_dict(c) for c in loaded.conversations]
    assert f"2 exchanges · {len(expected)} finding" in seen["screen"]
    assert len(records(output)) == len(provider.log) == 2
    assert err.splitlines()[-1] == f"tooldbg record: 2 exchanges written to {output}"
    assert "POST" not in err  # the debugger shows the exchanges: no line per exchange on stderr
