"""A 10,000-turn conversation (generated: one OpenAI chat request body replaying it) loads, opens
on a finding deep inside it, and selects and scrolls without a widget per turn: the tree holds
10,000 nodes of plain data and paints only the rows on screen."""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget

from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.session import Location
from tooldbg.tui.widgets.canonical_view import CanonicalView
from tooldbg.tui.widgets.turn_tree import TurnTree

from .conftest import opened, settle

TURNS = 10_000


def mounted_widgets(app) -> int:  # noqa: ANN001
    return sum(1 for screen in app.screen_stack for _ in screen.walk_children(Widget))


async def test_ten_thousand_turns_mount_no_widget_per_turn(big_log: Path):
    async with opened([big_log]) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        (conversation,) = screen.session.files[0].conversations
        assert len(conversation.turns) == TURNS
        tree = screen.query_one(TurnTree)
        assert len(tree.node_at(Location(0, "c1")).children) == TURNS
        assert mounted_widgets(pilot.app) < 100
        # only the rows on screen were labelled: the tree is no wider than its pane
        assert tree.virtual_size.width <= tree.size.width


async def test_it_opens_on_the_finding_deep_inside_scrolled_into_view(big_log: Path):
    async with opened([big_log]) as pilot:
        screen = pilot.app.screen
        tree = screen.query_one(TurnTree)
        (finding,) = screen.session.findings
        assert finding.turn == 7002
        assert screen.location == Location(0, "c1", 7002, finding.part)
        node = tree.cursor_node
        assert node is not None and node.data == Location(0, "c1", 7002)
        top = tree.scroll_offset.y
        assert top <= node.line < top + tree.scrollable_content_region.height
        assert f"{finding.code} {finding.name}" in screen.query_one(CanonicalView).plain


async def test_selecting_and_scrolling_in_ten_thousand_turns(big_log: Path):
    async with opened([big_log]) as pilot:
        screen = pilot.app.screen
        tree = screen.query_one(TurnTree)
        canonical = screen.query_one(CanonicalView)
        tree.focus()

        await pilot.press("end")
        await settle(pilot)
        assert screen.location == Location(0, "c1", TURNS - 1)
        assert f"turn {TURNS - 1} assistant" in canonical.plain

        await pilot.press("home")
        await settle(pilot)
        assert tree.cursor_node.data == Location(0)  # the file node

        screen.go_to(Location(0, "c1", 5001))
        await settle(pilot)
        assert tree.cursor_node.data == Location(0, "c1", 5001)
        assert "call " in canonical.plain and "→ result in turn 5002" in canonical.plain

        # a press selects the next turn and shows it, and never costs a widget per turn (how fast,
        # scripts/measure_tui.py measures: wall-clock belongs to the benchmark, not to a unit test)
        for step in range(1, 11):
            await pilot.press("down")
            await settle(pilot)
            assert screen.location == Location(0, "c1", 5001 + step)
            assert f"turn {5001 + step} " in canonical.plain
        assert mounted_widgets(pilot.app) < 100
        assert tree.virtual_size.width <= tree.size.width

        await pilot.press("pagedown")
        await settle(pilot)
        assert screen.location.turn > 5011
        top = tree.scroll_offset.y
        assert top <= tree.cursor_node.line < top + tree.scrollable_content_region.height
