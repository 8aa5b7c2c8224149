"""The wire view: the record a turn came from with the turn's JSON path banded and the chosen
finding's path marked and scrolled into view; a streamed response's fragments with the event that
broke assembly marked; the format switch (f / F) with the writer's losses; and a 10,000-turn
conversation that stays responsive because only the lines on screen are drawn."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tooldbg import formats
from tooldbg.reserialize import Reserializer
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.session import Location
from tooldbg.tui.widgets.findings_panel import FindingsPanel
from tooldbg.tui.widgets.turn_tree import TurnTree
from tooldbg.tui.widgets.wire_view import FORMATS, WireView

from .conftest import CLEAN, TD303, opened, terminal_output, widget_text

TD107 = "sample_transcripts/defects/TD107-same-name-calls-paired-by-position.jsonl"
TD502 = "sample_transcripts/defects/TD502-anthropic-relay-resends-input-delta.jsonl"
TD504 = "sample_transcripts/defects/TD504-anthropic-connection-drops-mid-tool-input.json"


async def wire_ready(pilot: Pilot) -> WireView:
    """The wire view once what was asked last is laid out (workers and the debounce timer)."""
    wire = pilot.app.screen.query_one(WireView)
    for _ in range(1000):  # not `workers.wait_for_complete()`: it raises on a superseded worker
        await pilot.pause()
        if not wire.pending and not any(w.group == "wire" and w.is_running for w in pilot.app.workers):
            break
        await asyncio.sleep(0.01)
    assert not wire.pending
    await pilot.pause()
    return wire


def rows_on_screen(wire: WireView) -> range:
    """The body lines (logical) whose first row is inside the viewport."""
    layout = wire._layout()
    top = round(wire.scroll_y)
    bottom = top + wire.scrollable_content_region.height - len(wire.header)
    return range(*[next((i for i, s in enumerate(layout.starts) if s >= edge), len(layout.starts))
                   for edge in (top, bottom)])


def header(wire: WireView) -> str:
    return "\n".join(line.plain for line in wire.header)


async def test_the_record_of_the_turn_with_its_path_banded_and_the_finding_marked():
    async with opened([TD303]) as pilot:
        wire = await wire_ready(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        assert screen.location is not None and screen.location.turn == 2
        (finding,) = screen.session.findings
        _, _, pointer = finding.pointer.partition("#")
        assert pointer == "/messages/2/content/1"
        assert wire.mode == "source"
        laid = wire.body.pretty
        assert wire.band == laid.span("/messages/2")
        assert wire.mark == laid.span(pointer)
        assert '"tool_use_id"' in "\n".join(wire.lines[wire.mark[0]:wire.mark[1] + 1])
        # scrolled so the marked node is on screen
        assert round(wire.scroll_y) == wire.target_y > 0
        assert wire.mark[0] in rows_on_screen(wire)
        assert "exchange 2 request" in header(wire) and "TD303 lost-is-error" in header(wire)
        shown = widget_text(wire)
        assert "▶" in shown and '"tool_result"' in shown


async def test_the_findings_part_is_marked_in_every_format():
    """TD303 flags the second result of turn 2: switched to another format, the view marks the node
    that carries that part there (a tool message, an output item, a block), and scrolls to it."""
    async with opened([TD303], size=(100, 30)) as pilot:
        wire = await wire_ready(pilot)
        screen = pilot.app.screen
        (finding,) = screen.session.findings
        assert (finding.turn, finding.part) == (2, 1)
        conversation = screen.session.conversation(screen.location)
        expected = {"openai-chat": "/messages/4", "openai-responses": "/input/5",
                    "anthropic": "/messages/2/content/1", "gemini": "/contents/2/parts/1",
                    "bedrock": "/messages/2/content/1"}
        for name in FORMATS[1:]:
            await pilot.press("f")
            wire = await wire_ready(pilot)
            assert wire.wire_format == name
            found = wire.body.reserialized
            pointer = found.parts[finding.part]
            assert pointer == expected[name]
            assert pointer == Reserializer().turn(conversation, 2, name).parts[1]
            assert wire.mark == wire.body.pretty.span(pointer) is not None
            marked = "\n".join(wire.lines[wire.mark[0]:wire.mark[1] + 1])
            assert "monitoring API returned 503" in marked and "ledger" not in marked
            assert wire.mark[0] in rows_on_screen(wire) and round(wire.scroll_y) == wire.target_y
            assert f"TD303 lost-is-error at #{pointer}" in header(wire)
            assert "▶" in widget_text(wire)
        await pilot.press("f")  # back to the source: the finding's own pointer
        wire = await wire_ready(pilot)
        assert wire.mark == wire.body.pretty.span(finding.pointer.partition("#")[2])


async def test_a_finding_whose_part_is_not_carried_says_so():
    """A part the format drops has no node to mark: the view says so instead."""
    async with opened([TD303]) as pilot:
        wire = await wire_ready(pilot)
        screen = pilot.app.screen
        (finding,) = screen.session.findings
        conversation = screen.session.conversation(screen.location)
        dropped = replace(conversation, turns=tuple(
            replace(t, parts=t.parts[:1]) if i == 1 else t for i, t in enumerate(conversation.turns)))
        found = Reserializer().turn(dropped, 2, "anthropic")
        assert finding.part not in found.parts  # its call is gone, so is the result
        focus = replace(wire.focus_, conversation=dropped)
        wire.set_format("anthropic")
        wire.show(focus)
        wire = await wire_ready(pilot)
        assert wire.mark is None
        assert f"part {finding.part} is not carried in anthropic" in header(wire)


async def test_selecting_another_turn_moves_the_band_and_drops_the_finding_mark():
    async with opened([TD303]) as pilot:
        screen = pilot.app.screen
        screen.query_one(TurnTree).focus()
        await pilot.press("up", "up")
        wire = await wire_ready(pilot)
        assert screen.location == Location(0, "c1", 0)
        turn = screen.session.turn(screen.location)
        assert wire.mark is None
        assert wire.band == wire.body.pretty.span(turn.source.pointer) == wire.body.pretty.span("/messages/0")
        assert wire.band[0] in rows_on_screen(wire)
        assert "▶" not in header(wire)


async def test_n_moves_the_mark_to_the_next_finding():
    async with opened([TD107]) as pilot:
        wire = await wire_ready(pilot)
        first = wire.mark
        assert first == wire.body.pretty.span("/contents/2/parts/0")
        await pilot.press("n")
        wire = await wire_ready(pilot)
        assert wire.mark == wire.body.pretty.span("/contents/2/parts/1")
        await pilot.press("N")
        wire = await wire_ready(pilot)
        assert wire.mark == first


async def test_a_streamed_response_shows_its_fragments_with_the_broken_one_marked():
    async with opened([TD502]) as pilot:
        wire = await wire_ready(pilot)
        screen = pilot.app.screen
        (finding,) = screen.session.findings
        assert finding.chunk == 6
        assert wire.mode == "fragments"
        assert wire.mark == (wire.body.events[6],) * 2
        assert wire.band == (wire.body.events[5],) * 2  # the event that opened the broken call
        assert '"partial_json"' in wire.lines[wire.mark[0]]
        assert "event 6 broke assembly" in header(wire)
        assert wire.mark[0] in rows_on_screen(wire)
        # s (in the wire view) switches to the assembled body, the call's node marked
        wire.focus()
        await pilot.press("s")
        wire = await wire_ready(pilot)
        assert wire.mode == "source"
        assert wire.mark == wire.body.pretty.span("/content/1")
        assert '"tool_use"' in "\n".join(wire.lines[wire.mark[0]:wire.mark[1] + 1])
        await pilot.press("s")
        wire = await wire_ready(pilot)
        assert wire.mode == "fragments"


async def test_a_finding_on_a_whole_stream_shows_the_stream():
    async with opened([TD504]) as pilot:
        wire = await wire_ready(pilot)
        finding = pilot.app.screen.query_one(FindingsPanel).findings[0]
        assert finding.turn is None and finding.chunk is not None
        assert wire.mode == "fragments"
        assert wire.mark == (wire.body.events[finding.chunk],) * 2


async def test_f_cycles_the_formats_with_the_losses_listed_under_the_json():
    async with opened([CLEAN]) as pilot:
        screen = pilot.app.screen
        screen.query_one(TurnTree).focus()
        await pilot.press("down", "down")  # turn 2: both results, one of them failed
        assert screen.location == Location(0, "c1", 2)
        seen = {}
        for name in FORMATS[1:]:
            await pilot.press("f")
            wire = await wire_ready(pilot)
            assert wire.wire_format == name and wire.mode == name
            assert header(wire).startswith(f"{name} turn 2 → ")
            seen[name] = "\n".join(wire.lines)
        assert '"role": "tool"' in seen["openai-chat"]
        assert '"type": "function_call_output"' in seen["openai-responses"]
        assert '"type": "tool_result"' in seen["anthropic"] and '"is_error": true' in seen["anthropic"]
        assert '"functionResponse"' in seen["gemini"]
        assert '"toolResult"' in seen["bedrock"] and '"status": "error"' in seen["bedrock"]
        # chat completions has no failure flag: the loss is listed under the JSON
        assert "is_error has no field here" in seen["openai-chat"]
        assert "1 loss writing this turn as openai-chat" in seen["openai-chat"]
        assert "no loss writing this turn as anthropic" in seen["anthropic"]
        await pilot.press("f")
        wire = await wire_ready(pilot)
        assert wire.wire_format == "source"
        await pilot.press("F")
        wire = await wire_ready(pilot)
        assert wire.wire_format == "bedrock"
        assert widget_text(wire).count("toolResult") >= 1


async def test_the_format_follows_the_selection():
    async with opened([CLEAN]) as pilot:
        screen = pilot.app.screen
        screen.query_one(TurnTree).focus()
        await pilot.press("f", "f", "f")
        wire = await wire_ready(pilot)
        assert wire.wire_format == "anthropic"
        losses_before = wire.losses
        await pilot.press("down")
        wire = await wire_ready(pilot)
        assert header(wire).startswith("anthropic turn 1 → /messages/1")
        assert '"type": "tool_use"' in "\n".join(wire.lines)
        assert wire.losses == losses_before == ()


async def test_a_writer_that_fails_is_reported_in_the_view(monkeypatch: pytest.MonkeyPatch):
    def broken(conversation):  # noqa: ANN001, ANN202
        raise KeyError("boom")

    monkeypatch.setattr(formats.get("gemini"), "write", broken)
    async with opened([CLEAN]) as pilot:
        pilot.app.screen.set_wire_format("gemini")
        wire = await wire_ready(pilot)
        assert wire.body.error is not None and "KeyError" in header(wire)
        pilot.app.screen.set_wire_format("bedrock")  # the others still work
        wire = await wire_ready(pilot)
        assert wire.body.error is None and header(wire).startswith("bedrock turn 0 → /messages/0")


async def test_secrets_are_masked_in_the_record_and_in_every_format(tmp_path: Path):
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8J9k0"
    log = tmp_path / "leak.json"
    log.write_text(json.dumps({"model": "gpt-4o", "messages": [
        {"role": "user", "content": f"my key is {key}"},
        {"role": "assistant", "content": "noted"}]}), encoding="utf-8")
    async with opened([log]) as pilot:
        wire = await wire_ready(pilot)
        for name in FORMATS:
            pilot.app.screen.set_wire_format(name)
            wire = await wire_ready(pilot)
            text = "\n".join(wire.lines) + widget_text(wire)
            assert key not in text and "•••" in text


async def test_log_text_is_drawn_as_text_never_as_markup_or_escapes(tmp_path: Path):
    hostile = "[bold red]boom[/] \x1b]52;c;ZXZpbA==\x07\x1b[31m \u202eevil \x9b2J"
    log = tmp_path / "hostile.json"
    log.write_text(json.dumps({"model": "gpt-4o", "messages": [
        {"role": "user", "content": hostile}]}), encoding="utf-8")
    async with opened([log]) as pilot:
        for name in ("source", "anthropic"):
            pilot.app.screen.set_wire_format(name)
            wire = await wire_ready(pilot)
            text = "\n".join(wire.lines)
            assert "[bold red]boom[/]" in text
            assert "\\u001b]52" in text and "\\u202e" in text and "\\x9b" in text
            shown = widget_text(wire)
            assert "[bold red]boom[/]" in shown and "\\u001b]52" in shown
            output = terminal_output(pilot)
            assert "\x1b]52" not in output and "\u202e" not in output and "\x9b" not in output


async def test_small_terminal_and_light_theme():
    async with opened([TD303], size=(80, 24), theme="textual-light") as pilot:
        wire = await wire_ready(pilot)
        assert wire.mark is not None and wire.mark[0] in rows_on_screen(wire)
        assert "▶" in widget_text(wire)
        dark = wire._fill(2)
        pilot.app.theme = "textual-dark"
        await pilot.pause()
        assert wire._fill(2) != dark  # the band follows the theme


# -- 10,000 turns ---------------------------------------------------------------------------------

async def react(pilot: Pilot, key: str, done) -> None:  # noqa: ANN001
    """Press `key` and wait until `done()` is true. (`Pilot.press` waits until the whole process is
    idle, worker threads included, so it cannot tell a busy UI from a busy worker.) How long that
    takes is scripts/measure_tui.py's business; here only that it happens."""
    pilot.app.simulate_key(key)
    for _ in range(5000):
        if done():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"{key} had no effect")


async def test_ten_thousand_turns_select_without_relaying_out_the_record(big_log: Path):
    async with opened([big_log]) as pilot:
        wire = await wire_ready(pilot)
        screen = pilot.app.screen
        (finding,) = screen.session.findings
        body = wire.body
        assert len(body.lines) > 60_000
        assert wire.band == body.pretty.span("/messages/7002")
        assert wire.mark == body.pretty.span(finding.pointer.rpartition("#")[2]) == wire.band
        assert wire.mark[0] in rows_on_screen(wire)
        screen.query_one(TurnTree).focus()
        for step in range(1, 21):
            band = body.pretty.span(f"/messages/{7002 + step}")
            await react(pilot, "down", lambda band=band: wire.band == band)
            assert screen.location.turn == 7002 + step
            assert not wire.pending and wire.body is body  # the same layout: only the band moved
            await pilot.pause()
            assert wire.band[0] in rows_on_screen(wire)
        # no worker was asked to lay the record out again, and only lines on screen were drawn
        assert not any(w.group == "wire" and w.is_running for w in pilot.app.workers)
        assert len(wire._strips) < 400


def reference(conversation, index: int) -> list[str]:  # noqa: ANN001
    """Where the messages of turn `index` are in OpenAI chat, read off the writer's origins."""
    origins = formats.get("openai-chat").write(conversation).origins
    return list(dict.fromkeys("/".join(p.split("/")[:3]) for p, (t, _) in origins.items() if t == index))


class Gate:
    """A Reserializer whose writing waits until the test opens the gate: while it waits, the worker
    is provably busy, so whatever the interface does meanwhile it does off the worker's thread."""

    def __init__(self, inner: Reserializer) -> None:
        self.inner, self.open, self.entered = inner, threading.Event(), threading.Event()

    def turn(self, *args):  # noqa: ANN002, ANN201
        self.entered.set()
        assert self.open.wait(30), "the test never opened the gate"
        return self.inner.turn(*args)


class CountingWrites:
    """Counts the turns each writer call is given (how much of the conversation a step writes)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
        module = formats.get(target)
        original = module.write
        self.sizes: list[int] = []

        def write(conversation, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            self.sizes.append(len(conversation.turns))
            return original(conversation, *args, **kwargs)

        monkeypatch.setattr(module, "write", write)


async def test_ten_thousand_turns_switch_format_off_the_ui_thread(big_log: Path, monkeypatch):
    async with opened([big_log]) as pilot:
        await wire_ready(pilot)
        screen = pilot.app.screen
        wire = screen.query_one(WireView)
        gate = Gate(wire._reserializer)
        wire._reserializer = gate
        screen.query_one(TurnTree).focus()
        await react(pilot, "f", lambda: wire.wire_format == "openai-chat")
        assert wire.pending
        # the first turn in a format writes all 10,000 turns once: a worker does it (held at the
        # gate here), and the interface still answers keys meanwhile
        for _ in range(5000):
            if gate.entered.is_set():
                break
            await asyncio.sleep(0.001)
        assert gate.entered.is_set() and any(w.group == "wire" and w.is_running for w in pilot.app.workers)
        await react(pilot, "down", lambda: screen.location.turn == 7003)
        assert not gate.open.is_set() and wire.pending  # the key was answered while the worker waited
        gate.open.set()
        wire = await wire_ready(pilot)
        wire._reserializer = gate.inner
        conversation = screen.session.files[0].conversations[0]
        assert header(wire).startswith(f"openai-chat turn 7003 → {reference(conversation, 7003)[0]}")
        # the conversation was written once: later turns are looked up in it, no step writes again
        writes = CountingWrites(monkeypatch, "openai-chat")
        for step in range(1, 9):
            await react(pilot, "down", lambda step=step: not wire.pending
                        and wire.body.reserialized.index == 7003 + step)
        assert writes.sizes == [], writes.sizes
        assert header(wire).startswith(f"openai-chat turn 7011 → {reference(conversation, 7011)[0]} ")
        assert list(wire.body.reserialized.pointers) == reference(conversation, 7011)
        assert list(wire.body.reserialized.items) == \
            list(Reserializer().turn(conversation, 7011, "openai-chat").items)
        # a held key writes only the turn it stops on
        await pilot.press(*["down"] * 5)
        wire = await wire_ready(pilot)
        assert header(wire).startswith("openai-chat turn 7016 → ")
