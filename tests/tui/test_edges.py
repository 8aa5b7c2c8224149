"""The debugger at its edges: a folder full of unreadable files, several files open at once, keys
pressed wherever the focus is, an 80×24 terminal, search over several files, and where the export
dialog proposes to write."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

import tooldbg
from tooldbg.cli import bundled_samples
from tooldbg.tui.screens.export import ExportScreen
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.screens.search import SearchScreen
from tooldbg.tui.session import Location
from tooldbg.tui.widgets.findings_panel import FindingsPanel, where
from tooldbg.tui.widgets.turn_tree import TurnTree
from tooldbg.tui.widgets.wire_view import WireView

from .conftest import ROOT, TD102, TD303, opened, screen_text, settle, until_laid_out, widget_text

TD502 = "sample_transcripts/defects/TD502-anthropic-relay-resends-input-delta.jsonl"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two logs with findings (each with its own `c1`) and six files that cannot be read."""
    logs = tmp_path / "logs"
    (logs / "agents").mkdir(parents=True)
    shutil.copy(ROOT / TD303, logs / "agents" / Path(TD303).name)
    shutil.copy(ROOT / TD102, logs / Path(TD102).name)
    for n in range(6):
        (logs / f"broken-{n}.json").write_text('{"messages": [')
    return logs


def notifications(pilot: Pilot) -> list:
    return list(pilot.app._notifications)


# -- unreadable files: one notification ---------------------------------------------------------

async def test_many_unreadable_files_give_one_summary_notification(folder):
    async with opened([folder]) as pilot:
        [note] = notifications(pilot)
        assert note.severity == "error" and note.title == "unreadable"
        assert note.message.startswith("6 of 8 files: 6 errors (marked in the tree). First: ")
        assert "broken-0.json: invalid JSON" in note.message
        assert "6 unreadable" not in screen_text(pilot)  # the tree marks each file instead:
        assert screen_text(pilot).count("1 unreadable") >= 1


async def test_one_unreadable_record_is_one_notification_naming_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    async with opened([bad]) as pilot:
        [note] = notifications(pilot)
        assert note.message.startswith(f"{bad}: invalid JSON")


# -- the findings panel names the file when several are open -------------------------------------

async def test_the_findings_panel_has_a_file_column_with_several_files(folder):
    async with opened([folder]) as pilot:
        panel = pilot.app.screen.query_one(FindingsPanel)
        assert panel.headers == ("severity", "code", "rule", "file", "where", "message")
        shown = widget_text(panel)
        assert "agents/TD303-session-store-…" in shown  # relative to the folder, cut to 28 cells
        assert "TD102-failed-parallel-resul…" in shown
        assert "logs/" not in shown and str(folder) not in shown
        assert sorted(f.code for f in panel.findings) == ["TD102", "TD303", "TD901"]
        on_turns = [line for line in shown.splitlines() if " c1 turn " in line]
        assert len(on_turns) == 2 and any("TD303" in r for r in on_turns) and any("TD102" in r for r in on_turns)
        # the TD102 sample's 400 (TD901): on its conversation, its `where` the exchange
        [rejection] = [f for f in panel.findings if f.code == "TD901"]
        assert where(rejection).plain == "exchange 1"


async def test_one_file_has_no_file_column():
    async with opened([TD303]) as pilot:
        panel = pilot.app.screen.query_one(FindingsPanel)
        assert "file" not in panel.headers


async def test_the_file_column_never_makes_the_panel_scroll_sideways_at_80x24(folder):
    async with opened([folder], size=(80, 24)) as pilot:
        await until_laid_out(pilot)
        panel = pilot.app.screen.query_one(FindingsPanel)
        assert panel.virtual_size.width <= panel.scrollable_content_region.width
        assert "TD102-f…" in widget_text(panel)


# -- s and w wherever the focus is ----------------------------------------------------------------

@pytest.mark.parametrize("pane", [TurnTree, FindingsPanel])
async def test_w_and_s_work_with_the_focus_on_any_pane(pane):
    async with opened([TD502]) as pilot:
        screen = pilot.app.screen
        wire = screen.query_one(WireView)
        screen.query_one(pane).focus()
        await pilot.pause()
        assert wire.wrap is True and wire.fragments is True  # the finding names a chunk
        await pilot.press("w")
        await settle(pilot)
        assert wire.wrap is False and pilot.app.focused is screen.query_one(pane)
        await pilot.press("s")
        await settle(pilot)
        assert wire.fragments is False
        await pilot.press("s", "w")
        await settle(pilot)
        assert wire.fragments is True and wire.wrap is True


# -- the footer at 80x24 ------------------------------------------------------------------------

@pytest.mark.parametrize("pane", [TurnTree, WireView, FindingsPanel])
async def test_the_footer_keeps_help_and_quit_at_80x24(pane):
    async with opened([TD303], size=(80, 24)) as pilot:
        pilot.app.screen.query_one(pane).focus()
        await until_laid_out(pilot)
        footer = screen_text(pilot).splitlines()[-1]
        assert "? Help" in footer and "q Quit" in footer, footer
        assert "n Next finding" in footer and "e Export" in footer


# -- search over several files --------------------------------------------------------------------

async def search(pilot: Pilot, query: str) -> SearchScreen:
    await pilot.press("slash")
    await settle(pilot)
    await pilot.press(*query)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    return screen


def listed(screen: SearchScreen) -> list[str]:
    """The rows on screen."""
    results = screen.query_one("#search-results", OptionList)
    return [line.rstrip() for line in widget_text(results).splitlines() if line.strip()]


def options(screen: SearchScreen) -> list[tuple[str, bool]]:
    """Every row of the list (on screen or not): its text, and whether it is a heading."""
    results = screen.query_one("#search-results", OptionList)
    return [(str(results.get_option_at_index(i).prompt), results.get_option_at_index(i).disabled)
            for i in range(results.option_count)]


async def test_search_results_show_the_matched_text_under_a_heading_per_file(folder):
    async with opened([folder], size=(80, 24)) as pilot:
        screen = await search(pilot, "fraud-scoring report")  # 20 characters, at 80 columns
        rows = listed(screen)
        assert rows[0].strip() == "agents/TD303-session-store-drops-is-error.jsonl"
        assert len(rows) == 2 and "fraud-scoring report" in rows[1]
        assert rows[1].strip().startswith("c1 turn 5 part 0")  # no file name crowding the line


async def test_every_search_result_shows_its_match_and_headings_are_skipped(folder):
    async with opened([folder], size=(80, 24)) as pilot:
        screen = await search(pilot, "toolu_01")  # call ids: in both files
        rows = options(screen)
        headings = [text for text, heading in rows if heading]
        assert headings == ["TD102-failed-parallel-result-dropped.jsonl",
                            "agents/TD303-session-store-drops-is-error.jsonl"]
        assert len(rows) == len(screen.matches) + 2
        assert all("toolu_01" in text for text, heading in rows if not heading)
        assert all("toolu_01" in row for row in listed(screen) if row.strip().startswith("c1 "))
        first = screen.matches[0].entry.location
        await pilot.press("enter")  # the highlighted row is the first match, not a heading
        await settle(pilot)
        main = pilot.app.screen
        assert isinstance(main, MainScreen) and main.location == first


async def test_the_search_index_locations_match_the_rows(folder):
    async with opened([folder]) as pilot:
        screen = await search(pilot, "ledger")
        await pilot.press("down")  # into the list: the first match
        await pilot.press("down", "enter")
        await settle(pilot)
        main = pilot.app.screen
        assert isinstance(main, MainScreen)
        assert main.location == screen.matches[1].entry.location
        assert isinstance(main.location, Location)


# -- export: the working folder ---------------------------------------------------------------------

async def test_the_export_dialog_proposes_the_working_folder_not_the_package(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with opened(list(bundled_samples())) as pilot:
        await pilot.press("e")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportScreen)
        proposed = Path(dialog.query_one("#export-path", Input).value)
        package = Path(tooldbg.__file__).resolve().parent
        assert proposed.resolve().parent == tmp_path.resolve()
        assert package not in proposed.resolve().parents
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen)
    assert (tmp_path / proposed).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [proposed.name]


async def test_the_export_dialog_refuses_a_fifo_without_asking_to_overwrite(tmp_path, monkeypatch):
    import os

    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe.json")
    async with opened([ROOT / TD303]) as pilot:
        await pilot.press("e")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportScreen)
        dialog.query_one("#export-path", Input).value = "pipe.json"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is dialog
        status = widget_text(dialog.query_one("#export-status"))
        assert "not written" in status and "FIFO" in status
        assert str(dialog.query_one("#export-write").label) == "Write"  # never "Overwrite"
