"""The dialogs over the main screen, driven through the app the CLI builds (`make_app`): export (shows
the losses and the pre-flight before writing, never overwrites without confirmation, never writes
over an input, masks secrets), help, search (finds a tool name and jumps to its turn, over a
10,000-turn session too) and the command palette."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.command import CommandInput, CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Select, Static

from tooldbg.checks import preflight
from tooldbg.cli import bundled_sample, bundled_samples
from tooldbg.convert import export
from tooldbg.load import load
from tooldbg.model import Conversation, Invocation, Result, Turn, document
from tooldbg.model import Text as TextPart
from tooldbg.tui.app import ToolDbgApp, make_app
from tooldbg.tui.screens.export import EXPORT_TARGETS, ExportScreen, default_path
from tooldbg.tui.screens.help import HelpScreen
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.screens.search import SearchIndex, SearchScreen
from tooldbg.tui.session import Location, Session
from tooldbg.tui.widgets.wire_view import WireView

FAKE_KEY = "sk-proj-FAKEKEYdoNotUse0123456789"


def run(path: Path, body: Callable[[Pilot], Awaitable[None]], size: tuple[int, int] = (120, 36)) -> None:
    """Open `path` in the app, wait until the session is shown, run `body`."""

    async def main() -> None:
        app = make_app([path])
        async with app.run_test(size=size) as pilot:
            for _ in range(100):
                await app.workers.wait_for_complete()
                await pilot.pause()
                if app.session is not None:
                    break
            assert app.session is not None, "the session never loaded"
            await body(pilot)

    asyncio.run(main())


async def settle(pilot: Pilot) -> None:
    for _ in range(2):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


@pytest.fixture(autouse=True)
def in_tmp_path(at_repo_root: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exports default to the working folder: work in `tmp_path`, never in the repo."""
    monkeypatch.chdir(tmp_path)


def sample(tmp_path: Path, text: str | None = None) -> Path:
    """A copy of the bundled sample in `tmp_path` (the working folder, where exports land), its
    failing tool result optionally replaced by `text`."""
    path = tmp_path / "weather.jsonl"
    shutil.copy(bundled_sample(), path)
    if text is not None:
        raw = path.read_text(encoding="utf-8")
        assert "Error: weather service timed out for Bergen" in raw
        path.write_text(raw.replace("Error: weather service timed out for Bergen", text), encoding="utf-8")
    return path


def rendered(static: Static) -> str:
    """What a Static holds, as plain text (wide enough that nothing wraps)."""
    console = Console(width=400, no_color=True, file=io.StringIO())
    with console.capture() as capture:
        console.print(static.content)
    return capture.get()


def report(screen: ExportScreen) -> str:
    return rendered(screen.query_one("#export-report-body", Static))


async def open_export(pilot: Pilot) -> ExportScreen:
    await pilot.press("e")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ExportScreen)
    return screen


async def choose_format(pilot: Pilot, screen: ExportScreen, target: str) -> None:
    screen.query_one("#export-format", Select).value = target
    await settle(pilot)
    assert screen.result is not None and screen.target == target


# ------------------------------------------------------------------------------------------- export


def test_export_shows_losses_and_preflight_then_writes_them(tmp_path: Path) -> None:
    path = sample(tmp_path)
    conversation = load([path])[0].conversations[0]

    async def body(pilot: Pilot) -> None:
        screen = await open_export(pilot)
        assert screen.target == "openai-chat"  # another format than the log's own (anthropic)
        assert screen.query_one("#export-path", Input).value == "weather.openai-chat.json"
        expected = export([conversation], "openai-chat")
        assert expected.losses, "the sample loses is_error in openai-chat"
        shown = report(screen)
        for loss in expected.losses:
            assert loss.message in shown
        assert "every known openai-chat constraint holds" in shown

        await choose_format(pilot, screen, "mistral")  # a profile: its TD8xx limits on call ids
        assert screen.query_one("#export-path", Input).value == "weather.mistral.json"
        # Chat Completions' own ids break Mistral's (TD801): the writer rewrites them, and says so
        assert preflight(export([conversation], "openai-chat").body, "mistral")
        mistral = export([conversation], "mistral")
        assert preflight(mistral.body, "mistral") == []
        rewritten = [loss for loss in mistral.losses if "does not fit mistral" in loss.message]
        assert rewritten
        shown = report(screen)
        for loss in rewritten:
            assert loss.message in shown
        assert "every known mistral constraint holds" in shown

        await choose_format(pilot, screen, "gemini")
        gemini = export([conversation], "gemini")
        shown = report(screen)
        for loss in gemini.losses:
            assert loss.message in shown
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen), "the dialog closes once written"
        written = tmp_path / "weather.gemini.json"
        assert written.read_text(encoding="utf-8") == gemini.text(redact=True)
        assert any(str(written) in n.message for n in pilot.app._notifications)

    run(path, body)


def test_export_asks_before_overwriting_and_never_writes_over_an_input(tmp_path: Path) -> None:
    path = sample(tmp_path)
    target = tmp_path / "weather.canonical.json"
    target.write_text("keep me\n", encoding="utf-8")
    original = path.read_bytes()

    async def body(pilot: Pilot) -> None:
        screen = await open_export(pilot)
        await choose_format(pilot, screen, "canonical")
        assert screen.query_one("#export-path", Input).value == target.name
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert pilot.app.screen is screen, "an existing file: the dialog stays open and asks"
        assert target.read_text(encoding="utf-8") == "keep me\n"
        button = screen.query_one("#export-write", Button)
        assert str(button.label) == "Overwrite"
        assert "exists" in rendered(screen.query_one("#export-status", Static))

        # Changing the path withdraws the confirmation; the input itself is refused outright.
        path_input = screen.query_one("#export-path", Input)
        path_input.value = str(path)
        await pilot.pause()
        assert str(button.label) == "Write"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert pilot.app.screen is screen
        assert "refusing to overwrite an input" in rendered(screen.query_one("#export-status", Static))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert path.read_bytes() == original

        path_input.value = str(target)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert target.read_text(encoding="utf-8") == "keep me\n"
        await pilot.click("#export-write")  # "Overwrite", pressed: confirmed
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen)
        assert json.loads(target.read_text(encoding="utf-8"))["format"] == "tooldbg.canonical/1"
        assert path.read_bytes() == original

    run(path, body)


def test_export_masks_a_fake_key(tmp_path: Path) -> None:
    path = sample(tmp_path, f"Error: upstream refused key {FAKE_KEY}")
    assert FAKE_KEY in path.read_text(encoding="utf-8")

    async def body(pilot: Pilot) -> None:
        screen = await open_export(pilot)
        assert screen.query_one("#export-redact").value is True
        for target in ("canonical", "anthropic"):
            await choose_format(pilot, screen, target)
            await pilot.press("ctrl+s")
            await settle(pilot)
            text = (tmp_path / f"weather.{target}.json").read_text(encoding="utf-8")
            assert FAKE_KEY not in text
            assert "sk-p•••" in text and "upstream refused key" in text
            screen = await open_export(pilot)

    run(path, body)


def test_export_cancel_writes_nothing(tmp_path: Path) -> None:
    path = sample(tmp_path)

    async def body(pilot: Pilot) -> None:
        await open_export(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen)
        screen = await open_export(pilot)
        screen.query_one("#export-cancel").focus()
        await pilot.press("q")  # closes the dialog, does not quit the app
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen) and pilot.app.is_running
        await open_export(pilot)
        await pilot.click("#export-cancel")
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen)

    run(path, body)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["weather.jsonl"]


TD201 = Path(__file__).resolve().parents[2] / "sample_transcripts" / "defects" / \
    "TD201-litellm-proxy-double-encodes-arguments.jsonl"


def test_export_never_blanks_recorded_arguments_until_repairs_are_ticked(tmp_path: Path) -> None:
    path = tmp_path / "td201.jsonl"
    shutil.copy(TD201, path)

    async def body(pilot: Pilot) -> None:
        screen = await open_export(pilot)
        assert screen.query_one("#export-repairs").value is False
        await choose_format(pilot, screen, "anthropic")
        shown = report(screen)
        assert "Repairs  off: export writes the conversation as recorded" in shown
        assert "Blocked (1)  anthropic cannot carry these as recorded" in shown
        assert "arguments of 'get_weather' are a JSON string holding an object; anthropic needs an object " \
               "and would get {}; repair TD201: decode them into the object" in shown
        await pilot.press("ctrl+s")
        await settle(pilot)
        status = rendered(screen.query_one("#export-status", Static))
        assert "not written: anthropic would get an empty value in place of 1 recorded value" in status
        assert not (tmp_path / "td201.anthropic.json").exists()

        screen.query_one("#export-repairs").value = True
        await settle(pilot)
        assert screen.fixed is not None and screen.blanked == []
        shown = report(screen)
        assert "Repairs (1)  made before writing, each listed" in shown
        assert "TD201 turn 1 part 1  arguments of 'get_weather'" in shown
        assert '→ {"city":"Paris","unit":"celsius"}' in shown
        await pilot.press("ctrl+s")
        await settle(pilot)
        written = json.loads((tmp_path / "td201.anthropic.json").read_text(encoding="utf-8"))
        uses = [b for m in written["messages"] if isinstance(m["content"], list) for b in m["content"]
                if b["type"] == "tool_use"]
        assert [u["input"] for u in uses] == [{"city": "Paris", "unit": "celsius"}]
        assert any("1 repair" in n.message for n in pilot.app._notifications)

    run(path, body)


def test_the_export_with_repairs_repairs_what_writing_shows_as_fix_does(tmp_path: Path) -> None:
    """Written for OpenAI Chat, the turn whose calls the finish reason announced (TD602) is an empty
    assistant turn, which `fix` takes out in its second round (TD404): the dialog lists and writes
    the same repairs as `tooldbg fix --to openai-chat`. Before, it made one round only."""
    path = tmp_path / "td602.jsonl"
    shutil.copy(TD201.with_name("TD602-tool-calls-finish-without-calls.jsonl"), path)

    async def body(pilot: Pilot) -> None:
        await pilot.press("x")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ExportScreen)
        await choose_format(pilot, screen, "openai-chat")
        assert screen.fixed is not None and [r.code for r in screen.fixed.repairs] == ["TD404"]
        assert "TD404 turn 1  an empty assistant turn → (taken out)" in report(screen)
        assert screen.blanked == [] and screen.result is not None
        messages = screen.result.body["messages"]
        assert not any(m["role"] == "assistant" and not m.get("content") and not m.get("tool_calls")
                       for m in messages)

    run(path, body)


def test_x_opens_the_export_with_the_repairs_listed(tmp_path: Path) -> None:
    path = tmp_path / "oncall.jsonl"
    shutil.copy(bundled_samples()[0], path)

    async def body(pilot: Pilot) -> None:
        await pilot.press("x")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ExportScreen) and screen.query_one("#export-repairs").value is True
        shown = report(screen)
        assert "TD303 turn 2 part 1  result 'toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze' without is_error → is_error: " \
               "true, as exchange 1's request recorded it" in shown
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen)

    run(path, body)


def test_export_dialog_offers_every_target_and_fits_80x24(tmp_path: Path) -> None:
    path = sample(tmp_path)

    async def body(pilot: Pilot) -> None:
        screen = await open_export(pilot)
        assert set(EXPORT_TARGETS) >= {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock",
                                       "canonical", "mistral", "deepseek", "kimi"}
        for widget_id in ("#export-format", "#export-path", "#export-redact", "#export-repairs",
                          "#export-report", "#export-write", "#export-cancel"):
            region = screen.query_one(widget_id).region
            assert region.height >= 1 and region.bottom <= 24 and region.right <= 80, widget_id

    run(path, body, size=(80, 24))


def test_default_path() -> None:
    """In the working folder, named after the input."""
    assert default_path("logs/run.har", "c1", "gemini") == Path("run.gemini.json")
    assert default_path("logs/run.har", "c2", "bedrock", 3) == Path("run.c2.bedrock.json")
    assert default_path("capture", "c1", "canonical") == Path("capture.canonical.json")


# --------------------------------------------------------------------------------------------- help


def test_help_opens_lists_every_key_and_closes(tmp_path: Path) -> None:
    async def body(pilot: Pilot) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, HelpScreen)
        text = rendered(screen.query_one("#help-text", Static))
        main = screen.underneath
        assert isinstance(main, MainScreen)
        for binding in [*ToolDbgApp.BINDINGS, *MainScreen.BINDINGS]:
            description = binding.description if hasattr(binding, "description") else binding[2]
            assert description in text
        for pane in ("Tree", "Canonical view", "Wire view", "Findings", "Export", "Search",
                     "Command palette"):
            assert pane in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)
        await pilot.press("question_mark")  # ? toggles
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen)

    run(sample(tmp_path), body, size=(80, 24))


# ------------------------------------------------------------------------------------------- search


def test_search_finds_a_tool_name_and_jumps_to_its_turn(tmp_path: Path) -> None:
    async def body(pilot: Pilot) -> None:
        main = pilot.app.screen
        assert isinstance(main, MainScreen)
        await pilot.press("slash")
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        await pilot.press(*"GET_weather")  # case-insensitive
        await settle(pilot)
        results = screen.query_one("#search-results", OptionList)
        hits = [(m.entry.location, m.entry.field) for m in screen.matches]
        assert hits[:2] == [(Location(0, "c1", 1, 1), "tool"), (Location(0, "c1", 1, 2), "tool")]
        assert results.option_count == len(hits)
        await pilot.press("down", "down")  # into the list, then the second call
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is main
        assert main.location == Location(0, "c1", 1, 2)
        assert pilot.app._search_index is screen.index, "the index is built once per session"
        tree = main.query_one("#tree")
        assert tree.cursor_node is not None and tree.cursor_node.data == Location(0, "c1", 1)

        await pilot.press("slash")  # a result's content, chosen with enter from the input
        await pilot.pause()
        assert pilot.app.screen.index is screen.index
        await pilot.press(*"timed out")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert main.location == Location(0, "c1", 2, 1)
        assert tree.cursor_node.data == Location(0, "c1", 2)

    run(sample(tmp_path), body)


def test_keys_typed_in_a_dialog_are_text(tmp_path: Path) -> None:
    async def body(pilot: Pilot) -> None:
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press("q", "e", "question_mark", "slash", "n", "t")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen)
        assert screen.query_one("#search-input", Input).value == "qe?/nt"
        assert "no match" in rendered(screen.query_one("#search-status", Static))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, MainScreen)

        screen = await open_export(pilot)
        path_input = screen.query_one("#export-path", Input)
        path_input.value = ""
        path_input.focus()
        await pilot.press("q", "e", "question_mark", "slash", "t")
        await pilot.pause()
        assert pilot.app.screen is screen and path_input.value == "qe?/t"

    run(sample(tmp_path), body)


def test_search_shows_log_text_as_text(tmp_path: Path) -> None:
    hostile = "[bold red]boom[/] [link=https://evil.example]click[/link] \x1b[2J\x1b]8;;https://x\x07 sk-ant-api03-abcdefghijkl"
    path = sample(tmp_path, hostile.replace("\x1b", "\\u001b").replace("\x07", "\\u0007"))

    async def body(pilot: Pilot) -> None:
        await pilot.press("slash")
        await pilot.press(*"click")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, SearchScreen) and screen.matches
        entry = screen.matches[0].entry
        assert "[bold red]boom[/] [link=https://evil.example]click[/link]" in entry.text
        assert "\x1b" not in entry.text and "\\x1b[2J" in entry.text and "\\x07" in entry.text
        assert "sk-ant-api03-abcdefghijkl" not in entry.text  # masked on screen as well
        results = screen.query_one("#search-results", OptionList)
        shown = "\n".join(strip.text for strip in results.render_lines(results.region.reset_offset))
        assert "click[/link] \\x1b[2J" in shown

    run(path, body)


def test_search_over_ten_thousand_turns_is_one_scan_of_a_flat_index(tmp_path: Path) -> None:
    """The index is built once, one entry per searchable field, and a query reads it through: no
    query walks the conversations again. (How fast that is, scripts/measure_tui.py measures.)"""
    turns = []
    for k in range(2500):
        turns += [Turn(role="user", parts=(TextPart(text=f"question {k}"),)),
                  Turn(role="assistant", parts=(Invocation(id=f"i{k}", name=f"tool_{k}", arguments={"k": k}),)),
                  Turn(role="tool", parts=(Result(invocation_id=f"i{k}", content=(TextPart(text=f"answer {k}"),)),)),
                  Turn(role="assistant", parts=(TextPart(text=f"done {k}"),))]
    path = tmp_path / "big.canonical.json"
    path.write_text(json.dumps(document([Conversation(turns=tuple(turns))])), encoding="utf-8")
    session = Session.load([path])
    assert len(session.files[0].conversations[0].turns) == 10_000
    index = SearchIndex.build(session)
    # question; call id, name, arguments; result id, content; answer: 7 fields for each of 2,500 rounds
    assert len(index.entries) == 2500 * 7
    session.files[0].conversations.clear()  # a query reads the index only
    matches, total = index.find("tool_2499")
    assert [m.entry.location for m in matches] == [Location(0, "c1", 9997, 0)]
    matches, total = index.find("answer")
    assert total == 2500 and len(matches) == 500  # the list is capped; the count is not


# ------------------------------------------------------------------------------------------ palette


async def palette(pilot: Pilot, query: str, expect: str) -> None:
    """Open the palette, type `query`, wait for `expect` to be the first hit, run it with enter."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    palette = pilot.app.screen
    assert isinstance(palette, CommandPalette)
    palette.query_one(CommandInput).value = query
    commands = palette.query_one(CommandList)
    for _ in range(100):  # the palette gathers hits in a worker, in batches
        await pilot.pause(0.02)
        if commands.option_count and expect in str(commands.get_option_at_index(0).prompt):
            break
    else:
        raise AssertionError(f"the palette never offered {expect!r}")
    await pilot.press("enter")
    await settle(pilot)


def test_palette_runs_commands(tmp_path: Path) -> None:
    async def body(pilot: Pilot) -> None:
        app = pilot.app
        assert app.current_theme.dark
        await palette(pilot, "toggle dark", "Toggle dark/light theme")
        assert not app.current_theme.dark
        assert isinstance(app.screen, MainScreen)
        await pilot.press("t")
        await pilot.pause()
        assert app.current_theme.dark

        await palette(pilot, "export", "Export…")
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("escape")
        await pilot.pause()

        main = app.screen
        assert isinstance(main, MainScreen)
        main.go_to(Location(0, "c1", 3))
        await palette(pilot, "go to conversation c1", "Go to conversation c1")
        assert main.location == Location(0, "c1", 0)

        await palette(pilot, "wire format to gemini", "Switch wire format to gemini")
        assert main.query_one(WireView).wire_format == "gemini"
        await palette(pilot, "wire format to source", "Switch wire format to source")
        assert main.query_one(WireView).wire_format == "source"

    run(sample(tmp_path), body)


def test_export_model_field_sets_the_model_and_a_missing_one_is_said(tmp_path: Path) -> None:
    """The Model row is `convert --model`: the body names what it holds; emptied, a target that needs
    a model in the body says so among the losses, and the written file is announced without one."""
    path = sample(tmp_path)

    async def body(pilot: Pilot) -> None:
        screen = await open_export(pilot)
        field = screen.query_one("#export-model", Input)
        assert field.value == screen.conversation.model and screen.conversation.model
        field.value = "gpt-4.1-mini"
        await settle(pilot)
        assert screen.result is not None and screen.result.body["model"] == "gpt-4.1-mini"
        field.value = ""
        await settle(pilot)
        assert screen.result is not None and "model" not in screen.result.body
        assert screen.result.missing == ("model",)
        assert "model: none — missing: OpenAI Chat Completions requires model" in report(screen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        written = json.loads((tmp_path / "weather.openai-chat.json").read_text(encoding="utf-8"))
        assert "model" not in written and written["messages"]

    run(path, body)
