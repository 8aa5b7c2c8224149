"""The TUI on a Responses chain whose first response is not in the log: its outputs are not marked
as orphans, and the conversation's overview says it starts mid-way, as `show` does
(tests/test_stitch.py)."""

from __future__ import annotations

import json
from pathlib import Path

from tooldbg.tui.widgets.canonical_view import CanonicalView

from .conftest import opened, settle


async def test_a_conversation_starting_mid_way_says_which_stored_response_it_continues(tmp_path: Path) -> None:
    exchange = {"request": {"method": "POST", "url": "https://api.openai.com/v1/responses", "body": {
        "model": "gpt-5.5", "previous_response_id": "resp_0ld",
        "input": [{"type": "function_call_output", "call_id": "call_Oslo1", "output": "4C"}]}},
        "response": {"status": 200, "body": {"id": "resp_2", "object": "response", "status": "completed",
                                             "output": [{"id": "msg_2", "type": "message", "role": "assistant",
                                                         "status": "completed", "content": [
                                                             {"type": "output_text", "text": "4C in Oslo.",
                                                              "annotations": []}]}]}}}
    path = tmp_path / "mid-way.jsonl"
    path.write_text(json.dumps(exchange) + "\n")
    async with opened([path]) as pilot:
        canonical = pilot.app.screen.query_one(CanonicalView)
        # the first turn: the output answers a call the provider stored, not an orphan
        assert canonical.plain.startswith("turn 0 tool")
        assert "its call is not in this log (stored by the provider)" in canonical.plain
        assert "orphan" not in canonical.plain
        await pilot.press("up")  # the conversation as a whole
        await settle(pilot)
        assert canonical.plain.startswith("conversation c1")
        assert ("continues previous_response_id resp_0ld, which is not in this log: turns the provider stored "
                "before it are not shown") in canonical.plain
