"""Issue 11, the TUI: the log with secrets planted everywhere (`tests.planted`) is opened and walked
through every view — tree, canonical view, wire view in the source record, the stream fragments and
every wire format, the findings, search, the export dialog's report — and no screen shows a
planted secret; the export dialog writes every target masked while "Mask secrets" is ticked, and
unmasked when it is not (so the test can fail). A folder and file names full of terminal sequences
reach the screen only escaped: header, tree, notifications, search, palette, export dialog.
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select

from tooldbg.tui.screens.export import EXPORT_TARGETS, ExportScreen, default_path
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.screens.search import SearchScreen
from tooldbg.tui.session import Location
from tooldbg.tui.widgets.canonical_view import CanonicalView
from tooldbg.tui.widgets.wire_view import FORMATS, WireView

from ..planted import HOSTILE, HOSTILE_NAME, MARK, SECRETS, leaks, raw_controls, write_log
from .conftest import opened, screen_text, settle, terminal_output

#: What Textual itself never writes but the log holds: any of these in a repaint came from the log.
SEQUENCES = ("\x1b]52", "\x1b[2J", "\x1b]0;", "\x07", "\x9b", "\x9d", "\u202e", "\u2066", "\u200b", "\ufeff")


def shown(pilot: Pilot) -> str:
    """Everything the app shows now: the painted screen and the whole of the canonical and wire
    views (not only the rows in view); the terminal bytes of a full repaint are checked for the
    log's sequences on the way (they hold Textual's own SGR codes, so they are not returned)."""
    out = terminal_output(pilot)
    assert not [s for s in SEQUENCES if s in out], [s for s in SEQUENCES if s in out]
    parts = [screen_text(pilot)]
    screen = pilot.app.screen
    if isinstance(screen, MainScreen):
        parts.append(screen.query_one(CanonicalView).plain)
        wire = screen.query_one(WireView)
        parts += wire.lines + [t.plain for t in wire.header]
    return "\n".join(parts)


async def walk(pilot: Pilot) -> list[tuple[str, str]]:
    """(where, what is shown) for every turn in every wire format, the stream fragments, every
    finding and a search."""
    seen: list[tuple[str, str]] = []
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen) and screen.session is not None
    for f, loaded in enumerate(screen.session.files):
        for conv in loaded.conversations:
            for turn in range(len(conv.turns)):
                screen.go_to(Location(f, conv.id, turn))
                await settle(pilot)
                for name in FORMATS:
                    screen.set_wire_format(name)
                    await settle(pilot)
                    seen.append((f"{loaded.path} turn {turn} {name}", shown(pilot)))
                screen.set_wire_format("source")
                await settle(pilot)
                wire = screen.query_one(WireView)
                if wire.focus_ is not None and wire.focus_.events:
                    wire.action_toggle_fragments()
                    await settle(pilot)
                    seen.append((f"{loaded.path} turn {turn} fragments", shown(pilot)))
                    wire.action_toggle_fragments()
            screen.go_to(Location(f, conv.id))
            await settle(pilot)
            seen.append((f"{loaded.path} {conv.id}", shown(pilot)))
        screen.go_to(Location(f))
        await settle(pilot)
        seen.append((f"{loaded.path}", shown(pilot)))
    for n in range(len(screen.session.findings)):
        await pilot.press("n")
        await settle(pilot)
        seen.append((f"finding {n}", shown(pilot)))
    await pilot.press("slash")
    await settle(pilot)
    search = pilot.app.screen
    assert isinstance(search, SearchScreen)
    await pilot.press(*"key")
    await settle(pilot)
    seen.append(("search", shown(pilot)))
    assert search.index is not None
    seen.append(("search index", "\n".join(e.text for e in search.index.entries)))
    await pilot.press("escape")
    await settle(pilot)
    return seen


async def export_all(pilot: Pilot, folder: Path, mask: bool) -> list[tuple[str, str]]:
    """Write the conversation in every target through the dialog; (target, report + file). A target
    that cannot carry the log's invalid arguments without writing `{}` is not written: (target,
    report + the dialog's refusal), and `blocked` holds it."""
    seen = []
    for target in EXPORT_TARGETS:
        await pilot.press("e")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportScreen)
        dialog.query_one("#export-format", Select).value = target
        await settle(pilot)
        assert dialog.result is not None and dialog.target == target
        dialog.query_one("#export-redact", Checkbox).value = mask
        written = folder / f"export.{target}.{'masked' if mask else 'raw'}.json"
        dialog.query_one("#export-path", Input).value = str(written)
        report = shown(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        if dialog.blanked:
            assert pilot.app.screen is dialog and not written.exists(), f"{target}: written with {{}}"
            seen.append((f"{target} (blocked)", report + "\n" + shown(pilot)))
            await pilot.press("escape")
            await settle(pilot)
            continue
        assert isinstance(pilot.app.screen, MainScreen), f"{target}: the dialog did not write"
        seen.append((target, report + "\n" + written.read_text(encoding="utf-8") + "\n" + shown(pilot)))
    return seen


async def test_no_view_shows_a_planted_secret_and_exports_are_masked(tmp_path: Path):
    log = write_log(tmp_path / "run.jsonl")
    async with opened([log]) as pilot:
        seen = await walk(pilot)
        seen += await export_all(pilot, tmp_path, mask=True)
        for where, text in seen:
            assert not leaks(text), f"{where} shows {leaks(text)}"
        everything = "\n".join(text for _, text in seen)
        for masked in ("sk-P•••", "sk-a•••", "AIza•••", "AKIA•••", "Bearer PLAN•••", "?key=PLAN•••",
                       "Incorrect API key provided: sk-p•••", "with the key sk-a•••"):
            assert masked in everything, masked
        unmasked = await export_all(pilot, tmp_path, mask=False)
        written = "\n".join(text for _, text in unmasked)
        assert SECRETS["tool result"] in written and SECRETS["key after a newline"] in written
        assert {t for t, _ in unmasked if t.endswith("(blocked)")} == {
            "anthropic (blocked)", "gemini (blocked)", "bedrock (blocked)"}  # the invalid arguments
        for target, text in unmasked:
            if not target.endswith("(blocked)"):
                assert MARK in text, f"{target}: the export carries no secret even unmasked"


async def test_a_hostile_folder_and_file_name_stay_inert(tmp_path: Path):
    folder = tmp_path / "logs"
    folder.mkdir()
    write_log(folder / HOSTILE_NAME, HOSTILE)
    (folder / ("broken" + HOSTILE_NAME)).write_text("{not json", encoding="utf-8")
    async with opened([folder]) as pilot:
        app = pilot.app
        assert app.session is not None and len(app.session.files) == 2
        assert "\\x1b]52;c;SGVsbG8=\\x07" in screen_text(pilot)  # the header names the folder
        seen = [("opened", shown(pilot))]
        seen.append(("notifications", "\n".join(str(n.message) + str(n.title) for n in app._notifications)))
        seen += await walk(pilot)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ExportScreen)
        seen.append(("export dialog", shown(pilot)))
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"go to")
        await settle(pilot)
        seen.append(("command palette", shown(pilot)))
        for where, text in seen:
            assert raw_controls(text) == [], f"{where}: raw {raw_controls(text)}"
            for strip in app.screen._compositor.render_strips():
                for segment in strip:
                    assert "\x1b" not in segment.text, where
        assert any("\\u202eevil" in text for _, text in seen)


def test_the_suggested_export_path_never_holds_a_control_character():
    """The suggestion is a name in the working folder: the input's folder never appears in it, and
    a control or bidi character of the input's name is written escaped."""
    assert default_path(f"logs/{HOSTILE_NAME}", "c1", "gemini") == \
        Path("run\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J\\x9b\\x9d\\u202e\\u2066\\u200b\\ufeff.gemini.json")
    assert default_path("logs\x1b[2J/run.jsonl", "c1", "gemini") == Path("run.gemini.json")
