"""The diff screen: with two logs open, `d` shows the selected conversation beside its counterpart in
the other file, lost and changed parts marked, each difference in the panel; escape goes back."""

from __future__ import annotations

from tooldbg.tui.screens.diff import DiffScreen
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.session import Location
from tooldbg.tui.widgets.diff_view import DiffView
from tooldbg.tui.widgets.findings_panel import FindingsPanel

from .conftest import TD303, opened, screen_text, settle, until_laid_out, widget_text

STORY = "docs/examples/relay-drops-second-result"
CLIENT, UPSTREAM = f"{STORY}/client.har", f"{STORY}/upstream.har"
TEXT_LOST = "sample_transcripts/defects/TD703-relay-drops-text-beside-tool-calls"


async def test_d_compares_the_conversation_with_the_other_file():
    async with opened([CLIENT, UPSTREAM]) as pilot:
        assert "d" in pilot.app.active_bindings
        await pilot.press("d")
        await settle(pilot)
        await until_laid_out(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        panel = screen.query_one(FindingsPanel)
        assert [(f.code, f.side) for f in panel.findings] == [("TD703", "b")]
        assert panel.headers == ("severity", "code", "rule", "file", "where", "message")
        assert "upstream.har" in widget_text(panel) and "differences  1 error" in widget_text(panel)
        view = screen.query_one(DiffView)
        assert [(r.a, r.b) for r in view.rows] == [(None, None), (0, 0), (1, 1), (2, 2)]
        chosen = [r for r in view.rows if r.has_class("-chosen")]
        assert [(r.a, r.b) for r in chosen] == [(2, 2)]
        left, right = view.rows[3].plain
        assert "✗ 1 result → i2 text Error: weather service timed out after 10 s  id call_01011BER  lost on b TD703" \
            in left.splitlines()
        assert right.splitlines()[1].startswith(" ✗ missing here  TD703 the result of 'get_weather' (call_01011BER)")
        assert "call ids rewritten consistently between a's c1 and b's c1 (2)" in screen_text(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen)


async def test_from_the_upstream_side_and_back_with_d():
    """The selected conversation may be on either side: a and b stay in the order the files were
    opened (as `tooldbg diff A B`)."""
    async with opened([TEXT_LOST + "/client.jsonl", TEXT_LOST + "/upstream.jsonl"]) as pilot:
        main = pilot.app.screen
        main.go_to(Location(1, "c1", 1))
        await pilot.press("d")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        assert (screen.pairing.a, screen.pairing.b) == ("c1", "c1")
        [finding] = screen.findings
        assert (finding.code, finding.side, finding.a.path.endswith("client.jsonl")) == ("TD703", "a", True)
        assert "lost on a TD703" in screen.query_one(DiffView).rows[2].plain[1]
        await pilot.press("d")
        await settle(pilot)
        assert pilot.app.screen is main


async def test_n_walks_the_differences():
    async with opened([TEXT_LOST.replace("TD703-relay-drops-text-beside-tool-calls",
                                         "TD701-relay-drops-tools-on-the-way-upstream") + "/client.jsonl",
                       TEXT_LOST.replace("TD703-relay-drops-text-beside-tool-calls",
                                         "TD701-relay-drops-tools-on-the-way-upstream") + "/upstream.jsonl"]) as pilot:
        await pilot.press("d")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen) and len(screen.findings) == 2
        assert screen.finding_index == 0
        await pilot.press("n")
        await settle(pilot)
        assert screen.finding_index == 1
        head = screen.query_one(DiffView).rows[0]
        assert head.has_class("-chosen")  # tools are on the conversation as a whole
        assert " ✗ missing here  TD701 tool 'road_status' is declared in a's request but not in b's: the model " \
            "cannot call it — error: lost or changed on the way" in head.plain[1].splitlines()


async def test_d_needs_two_files():
    async with opened([TD303]) as pilot:
        assert pilot.app.screen.check_action("diff", ()) is False
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(pilot.app.screen, MainScreen)


ADDED = "sample_transcripts/defects/TD705-relay-adds-an-instruction-the-client-never-sent"


async def test_a_part_added_on_the_way_is_marked_where_it_was_added():
    """The relay's instruction is on b only, in a request: `+ … added on b`, not a loss on a."""
    async with opened([f"{ADDED}/client.jsonl", f"{ADDED}/upstream.jsonl"]) as pilot:
        await pilot.press("d")
        await settle(pilot)
        await until_laid_out(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, DiffScreen)
        assert [(f.code, f.side) for f in screen.findings] == [("TD705", "b")]
        text = widget_text(screen.query_one(DiffView))
        assert "added on b TD705" in text and "lost on" not in text and "missing here" not in text
