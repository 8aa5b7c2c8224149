"""Untrusted text is rendered as text: a log whose model text, tool names, arguments, ids and tool
results are full of Rich markup, ANSI and OSC sequences (screen clears, OSC 8 hyperlinks, window
titles, C1 controls) and bidi overrides is opened, walked through in every view, and nothing in it
is interpreted: the terminal receives none of its sequences and shows every character of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.widgets.canonical_view import CanonicalView
from tooldbg.tui.widgets.findings_panel import FindingsPanel

from .conftest import has_key, opened, screen_text, settle, terminal_output

MARKUP = "[bold red]x[/] [link=https://evil.example]click[/link] [@click=app.quit]quit[/]"
ANSI = "\x1b[2J\x1b[H\x1b[31mred"
OSC = "\x1b]8;;https://evil.example/\x1b\\osc8 link\x1b]8;;\x1b\\ \x1b]0;pwned-title\x07"
C1 = "\x9b31mcsi"
BIDI = "\u202egnp.exe\u202c \u2066isolate\u2069"
HOSTILE = f"{MARKUP} {ANSI} {OSC} {C1} {BIDI}"
HOSTILE_ID = "toolu_[red]x[/red]\x1b[2J"
HOSTILE_TOOL = "[bold]rm -rf[/bold]\x1b]0;t\x07"

#: Sequences that must never reach the terminal (Textual's own output is SGR and cursor moves).
FORBIDDEN = ["\x1b[2J", "\x1b[H\x1b[31m", "\x1b]8;;https://evil", "\x1b]0;", "\x07", "\x9b",
             "\u202e", "\u202c", "\u2066", "\u2069", "evil.example/\x1b"]


def hostile_log(path: Path) -> Path:
    tools = [{"name": "get_weather", "description": "Weather for a city.",
              "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    answer = [{"type": "text", "text": HOSTILE},
              {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": HOSTILE}},
              {"type": "tool_use", "id": "toolu_02", "name": HOSTILE_TOOL, "input": {HOSTILE: 1}}]
    model = "claude-[blink]x[/blink]\x1b[5m"
    first = {
        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                    "body": {"model": model, "max_tokens": 64, "tools": tools,
                             "messages": [{"role": "user", "content": HOSTILE}]}},
        "response": {"status": 200, "body": {"id": "msg_1", "type": "message", "role": "assistant",
                                             "model": model, "content": answer,
                                             "stop_reason": "tool_use"}}}
    second = {
        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                    "body": {"model": model, "max_tokens": 64, "tools": tools, "messages": [
                        {"role": "user", "content": HOSTILE},
                        {"role": "assistant", "content": answer},
                        {"role": "user", "content": [
                            {"type": "tool_result", "tool_use_id": "toolu_01", "is_error": True,
                             "content": [{"type": "text", "text": HOSTILE}]},
                            {"type": "tool_result", "tool_use_id": HOSTILE_ID, "content": HOSTILE}]}]}},
        "response": {"status": 200, "body": {"id": "msg_2", "type": "message", "role": "assistant",
                                             "model": model, "stop_reason": "end_turn",
                                             "content": [{"type": "text", "text": HOSTILE}]}}}
    path.write_text("\n".join(json.dumps(x) for x in (first, second)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return hostile_log(tmp_path / "hostile.jsonl")


def assert_inert(pilot, where: str) -> None:  # noqa: ANN001
    """Nothing of the log acts on the terminal, and no span of it became a link or an action."""
    out = terminal_output(pilot)
    for sequence in FORBIDDEN:
        assert sequence not in out, f"{where}: {sequence!r} reached the terminal"
    for strip in pilot.app.screen._compositor.render_strips():
        for segment in strip:
            assert "\x1b" not in segment.text and "\u202e" not in segment.text, where
            if segment.style is not None:
                assert not segment.style.link, f"{where}: a link from the log: {segment!r}"
                assert "evil" not in repr(segment.style.meta), where
                assert "app.quit" not in repr(segment.style.meta), where


async def test_the_log_reads_and_every_hostile_string_is_in_it(hostile: Path):
    """The fixture does carry the sequences into the canonical model (else the test proves nothing)."""
    from tooldbg.load import load_file

    loaded = load_file(hostile)
    assert loaded.errors == []
    (conversation,) = loaded.conversations
    texts = repr(conversation.turns)
    for piece in (MARKUP, "\x1b[2J", "\x1b]8;;", "\u202e", HOSTILE_ID, HOSTILE_TOOL):
        assert piece in texts or repr(piece)[1:-1] in texts


async def test_markup_ansi_osc_and_bidi_are_shown_not_interpreted(hostile: Path):
    async with opened([hostile]) as pilot:
        app, screen = pilot.app, pilot.app.screen
        assert isinstance(screen, MainScreen)
        assert app.is_running and app.return_code is None
        panel = screen.query_one(FindingsPanel)
        assert panel.findings, "the hostile log should also produce findings quoting it"
        turns = len(screen.session.files[0].conversations[0].turns)

        # every turn, in tree, canonical and wire views
        screen.query_one("#tree").focus()
        await pilot.press("home")
        await settle(pilot)
        seen = ""
        for t in range(turns + 2):
            assert_inert(pilot, f"row {t}")
            seen += screen_text(pilot) + screen.query_one(CanonicalView).plain
            await pilot.press("down")
            await settle(pilot)
        # markup is shown as the characters it is made of, escapes as their escaped form
        assert "[bold red]x[/]" in seen
        assert "[link=https://evil.example]click[/link]" in seen
        assert "[@click=app.quit]quit[/]" in seen
        assert "\\x1b[2J" in seen or "\\u001b[2J" in seen
        assert "\\u202e" in seen
        assert "[bold]rm -rf[/bold]" in seen

        # every finding (their messages quote the hostile ids and names)
        for f in range(len(panel.findings)):
            await pilot.press("n")
            await settle(pilot)
            assert_inert(pilot, f"finding {f}")
        assert app.is_running


async def test_hostile_text_stays_inert_in_every_wire_format(hostile: Path):
    async with opened([hostile]) as pilot:
        app = pilot.app
        assert has_key(pilot, "f"), "the wire format switch (f) is not bound"
        for turn in (1, 2):  # the answer with its calls, and the results
            app.screen.go_to(app.screen.location.__class__(0, "c1", turn))
            await settle(pilot)
            for step in range(6):
                await pilot.press("f")
                await settle(pilot)
                assert_inert(pilot, f"turn {turn}, format {step + 1}")
        assert app.is_running


async def test_hostile_text_stays_inert_in_search_and_export(hostile: Path):
    async with opened([hostile]) as pilot:
        app = pilot.app
        if has_key(pilot, "slash"):
            await pilot.press("slash")
            await settle(pilot)
            await pilot.press(*"bold")
            await settle(pilot)
            assert_inert(pilot, "search")
            assert "[bold" in screen_text(pilot)
            await pilot.press("escape")
            await settle(pilot)
        if has_key(pilot, "e"):
            await pilot.press("e")
            await settle(pilot)
            assert_inert(pilot, "export dialog")
            await pilot.press("escape")
            await settle(pilot)
        assert app.is_running
