"""A large log's first exchange is on screen before the rest is read, stitched and checked.

The whole load is held back here (the loader waits on an event), so what the screen shows before
it is released can only come from the preview; no test times anything (scripts/measure_tui.py and
scripts/bench.py measure how soon the first frame comes)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import ProgressBar

import tooldbg.tui.app as app_module
from tooldbg.tui.app import make_app
from tooldbg.tui.preview import PREVIEW_FROM, first_record
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.widgets.canonical_view import CanonicalView
from tooldbg.tui.widgets.findings_panel import FindingsPanel
from tooldbg.tui.widgets.turn_tree import TurnTree

from .conftest import until_loaded

URL = "https://api.openai.com/v1/chat/completions"
SYSTEM = {"role": "system", "content": "You are a coding agent."}
TASK = {"role": "user", "content": "Why does test_parse_dates fail?"}
CALL = {"role": "assistant", "content": "Reading the module.", "tool_calls": [
    {"id": "call_Rk2", "type": "function",
     "function": {"name": "read_file", "arguments": json.dumps({"path": "src/dates.py"})}}]}


def exchange(messages: list[dict], answer: dict, n: int) -> dict:
    return {"request": {"method": "POST", "url": URL, "body": {"model": "gpt-4.1", "messages": messages}},
            "response": {"status": 200, "body": {
                "id": f"chatcmpl-{n}", "object": "chat.completion", "model": "gpt-4.1",
                "choices": [{"index": 0, "message": answer,
                             "finish_reason": "tool_calls" if "tool_calls" in answer else "stop"}]}}}


def agent_log(folder: Path) -> Path:
    """Two calls, the second replaying the first with a file read larger than `PREVIEW_FROM`, and a
    result answering no call (TD101) in turn 2."""
    source = "\n".join(f"{n:6}\tdef parse_{n}(value): return value" for n in range(PREVIEW_FROM // 30))
    second = [SYSTEM, TASK, CALL, {"role": "tool", "tool_call_id": "call_Rk2", "content": source},
              {"role": "tool", "tool_call_id": "call_gone", "content": "stale output"}]
    path = folder / "agent.jsonl"
    path.write_text(json.dumps(exchange([SYSTEM, TASK], CALL, 1)) + "\n"
                    + json.dumps(exchange(second, {"role": "assistant", "content": "Fixed."}, 2)) + "\n")
    assert path.stat().st_size > PREVIEW_FROM
    return path


@pytest.fixture
def held_load(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The session loader waits until the returned event is set."""
    release = threading.Event()
    real = app_module.load_session

    def held(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(app_module, "load_session", held)
    yield release
    release.set()


async def until_previewed(pilot: Pilot) -> MainScreen:
    for _ in range(3000):  # ample on a loaded machine: the load itself is held back meanwhile
        await pilot.pause(0.01)
        screen = pilot.app.screen
        if isinstance(screen, MainScreen) and screen.location is not None:
            await pilot.pause()
            return screen
    raise AssertionError("no conversation shown while the log loads")


def turn_count(tree: TurnTree) -> int:
    """The turns listed in the tree."""
    return len(tree._turn_nodes)


async def test_the_first_exchange_is_shown_while_the_rest_loads(tmp_path: Path, held_load: threading.Event):
    app = make_app([agent_log(tmp_path)])
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await until_previewed(pilot)
        assert app.session is None  # the whole log is not loaded yet
        assert screen.query_one("#progress", ProgressBar).display
        assert screen.location is not None and screen.location.turn == 0
        assert screen.query_one(CanonicalView).plain.startswith("turn 0 user")
        assert "Why does test_parse_dates fail?" in screen.query_one(CanonicalView).plain
        assert turn_count(screen.query_one(TurnTree)) == 2  # the first call's: task and answer
        assert not screen.query_one(FindingsPanel).findings  # checks run on the whole log
        assert not app.check_action("export", ()) and not app.check_action("search", ())

        held_load.set()
        await until_loaded(pilot)
        assert app.session is not None
        assert not screen.query_one("#progress", ProgressBar).display
        assert turn_count(screen.query_one(TurnTree)) == 4
        assert [f.code for f in screen.query_one(FindingsPanel).findings] == ["TD101"]
        assert screen.location is not None and screen.location.turn == 2  # on the finding, as always


async def test_the_turn_read_in_the_preview_stays_selected_once_loaded(tmp_path: Path,
                                                                       held_load: threading.Event):
    app = make_app([agent_log(tmp_path)])
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await until_previewed(pilot)
        await pilot.press("down")
        assert screen.location is not None and screen.location.turn == 1
        held_load.set()
        await until_loaded(pilot)
        assert app.session is not None
        assert screen.location is not None and screen.location.turn == 1  # not moved to the finding
        assert screen.query_one(CanonicalView).plain.startswith("turn 1 assistant")


def test_the_preview_reads_one_record_of_json_lines_or_har_and_nothing_else(tmp_path: Path):
    log = agent_log(tmp_path)
    first = first_record([log])
    assert first is not None
    assert [len(c.turns) for c in first.conversations] == [2]

    entries = [json.loads(line) for line in log.read_text().splitlines()]
    har = {"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "11.0.2"}, "entries": [
        {"startedDateTime": "2026-01-05T11:20:01.112000+00:00", "time": 641.5,
         "request": {"method": "POST", "url": URL, "headers": [{"name": "content-type", "value": "application/json"}],
                     "postData": {"mimeType": "application/json", "text": json.dumps(e["request"]["body"])}},
         "response": {"status": 200, "headers": [],
                      "content": {"mimeType": "application/json", "text": json.dumps(e["response"]["body"])}}}
        for e in entries]}}
    (tmp_path / "agent.har").write_text(json.dumps(har, indent=2))
    from_har = first_record([tmp_path / "agent.har"])
    assert from_har is not None and from_har.container == "har"
    assert [len(c.turns) for c in from_har.conversations] == [2]

    small = tmp_path / "small.jsonl"
    small.write_text(log.read_text().splitlines()[0] + "\n")
    assert first_record([small]) is None  # loads at once: nothing to preview
    assert first_record([small], threshold=0) is not None
    chunks = tmp_path / "stream.jsonl"  # a stream's events: its first alone is no conversation
    chunks.write_text("\n".join(json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk",
                                            "choices": [{"index": 0, "delta": {"content": "Hi"}}]})
                                for _ in range(3)) + "\n")
    assert first_record([chunks], threshold=0) is None
