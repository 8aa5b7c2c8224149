"""Navigation: the tree selects turns and the canonical and wire views follow; findings (chosen in
the panel, or stepped through with n / N) move the tree and both views to the turn they are on."""

from __future__ import annotations

import pytest

from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.session import Location
from tooldbg.tui.widgets.canonical_view import CanonicalView
from tooldbg.tui.widgets.findings_panel import FindingsPanel
from tooldbg.tui.widgets.turn_tree import TurnTree

from .conftest import CLEAN, TD102, TD303, opened, screen_text, settle, widget_text

TD107 = "sample_transcripts/defects/TD107-same-name-calls-paired-by-position.jsonl"
TD504 = "sample_transcripts/defects/TD504-anthropic-connection-drops-mid-tool-input.json"


def parts(pilot):  # noqa: ANN001, ANN201
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    return screen, screen.query_one(TurnTree), screen.query_one(CanonicalView), \
        screen.query_one(FindingsPanel)


def tree_location(tree: TurnTree) -> Location | None:
    node = tree.cursor_node
    return node.data if node is not None else None


async def test_a_clean_log_opens_on_its_first_turn_with_the_tree_focused():
    async with opened([CLEAN]) as pilot:
        screen, tree, canonical, panel = parts(pilot)
        assert screen.location == Location(0, "c1", 0)
        assert tree_location(tree) == Location(0, "c1", 0)
        assert tree.has_focus
        assert panel.findings == []
        assert "turn 0 user" in canonical.plain


async def test_moving_in_the_tree_selects_turns_and_both_views_follow():
    async with opened([CLEAN]) as pilot:
        screen, tree, canonical, _ = parts(pilot)
        conversation = screen.session.files[0].conversations[0]
        for expected in range(1, len(conversation.turns)):
            await pilot.press("down")
            await settle(pilot)
            turn = conversation.turns[expected]
            assert screen.location == Location(0, "c1", expected)
            assert tree_location(tree) == screen.location
            assert f"turn {expected} {turn.role}" in canonical.plain
            # the wire view shows the record the turn was read from
            assert f"exchange {turn.source.exchange}" in screen_text(pilot)
        await pilot.press("up")
        await settle(pilot)
        assert screen.location == Location(0, "c1", len(conversation.turns) - 2)


async def test_the_canonical_view_links_calls_to_results_and_marks_errors():
    async with opened([CLEAN]) as pilot:
        screen, _, canonical, _ = parts(pilot)
        conversation = screen.session.files[0].conversations[0]
        calls = next(t for t, turn in enumerate(conversation.turns)
                     if any(type(p).__name__ == "Invocation" for p in turn.parts))
        screen.go_to(Location(0, "c1", calls))
        await settle(pilot)
        assert "→ result in turn" in canonical.plain
        screen.go_to(Location(0, "c1", calls + 1))
        await settle(pilot)
        text = canonical.plain
        assert "← call in turn" in text
        assert "ERROR" in text  # the sample's failing call


async def test_an_unanswered_call_is_marked_and_its_finding_explained():
    """The log holds the provider's 400 too: its TD901, on the conversation as a whole, comes first
    and its overview names the rule that explains it; the next finding is the unanswered call."""
    async with opened([TD102]) as pilot:
        screen, tree, canonical, panel = parts(pilot)
        rejection, finding = panel.findings
        assert (rejection.code, rejection.turn, finding.code) == ("TD901", None, "TD102")
        assert screen.location == Location(0, rejection.conversation, None, None)
        assert tree_location(tree) == Location(0, rejection.conversation)
        assert "TD901 provider-rejected" in canonical.plain and "see TD102" in canonical.plain
        await pilot.press("n")
        await settle(pilot)
        assert screen.location == Location(0, finding.conversation, finding.turn, finding.part)
        assert tree_location(tree) == Location(0, finding.conversation, finding.turn)
        text = canonical.plain
        assert "unanswered call" in text
        assert "TD102 unanswered-call" in text


async def test_a_log_with_findings_opens_on_the_first_one():
    async with opened([TD303]) as pilot:
        screen, tree, canonical, panel = parts(pilot)
        (finding,) = panel.findings
        # the finding's part survives the tree moving to its turn (the tree does not echo back)
        assert screen.location == Location(0, "c1", 2, 1)
        assert tree_location(tree) == Location(0, "c1", 2)
        assert "TD303 lost-is-error" in canonical.plain
        assert panel.cursor_row == 0


async def test_n_and_shift_n_step_through_findings_moving_tree_and_views():
    async with opened([TD102, TD107, TD303]) as pilot:
        screen, tree, canonical, panel = parts(pilot)
        findings = panel.findings
        assert [f.code for f in findings] == ["TD901", "TD102", "TD107", "TD107", "TD303"]
        session = screen.session

        async def check(index: int) -> None:
            finding = findings[index]
            location = session.location_of(finding)
            assert screen.finding_index == index
            assert panel.cursor_row == index
            assert screen.location == location
            assert tree_location(tree) == Location(location.file, location.conversation, location.turn)
            assert f"{finding.code} {finding.name}" in canonical.plain
            turn = session.turn(location)  # None: a finding on the conversation (the rejection)
            exchange = turn.source.exchange if turn is not None else finding.exchange
            assert f"exchange {exchange}" in screen_text(pilot)

        await check(0)
        for index in (1, 2, 3, 4, 0):  # wraps around after the last one
            await pilot.press("n")
            await settle(pilot)
            await check(index)
        for index in (4, 3):
            await pilot.press("N")
            await settle(pilot)
            await check(index)


async def test_choosing_a_row_in_the_findings_panel_moves_the_views():
    async with opened([TD102, TD303]) as pilot:
        screen, tree, canonical, panel = parts(pilot)
        panel.focus()
        await pilot.press("down", "down", "enter")  # TD901 and TD102 of the first file, TD303
        await settle(pilot)
        assert screen.finding_index == 2
        assert screen.location == Location(1, "c1", 2, 1)
        assert tree_location(tree) == Location(1, "c1", 2)
        assert "TD303" in canonical.plain
        # and the tree takes over again from there
        tree.focus()
        await pilot.press("down")
        await settle(pilot)
        assert screen.location == Location(1, "c1", 3)


async def test_a_finding_on_a_whole_conversation_selects_the_conversation():
    async with opened([TD504]) as pilot:
        screen, tree, _, panel = parts(pilot)
        assert panel.findings and panel.findings[0].turn is None
        assert screen.location == Location(0, "c1", None, None)
        assert tree_location(tree) == Location(0, "c1")


async def test_files_and_conversations_can_be_collapsed_and_the_tree_reopens_them():
    async with opened([TD102, TD303]) as pilot:
        screen, tree, _, _ = parts(pilot)
        conversation = tree.node_at(Location(1, "c1"))
        conversation.collapse()
        await settle(pilot)
        screen.go_to(Location(1, "c1", 4))
        await settle(pilot)
        assert conversation.is_expanded
        assert tree_location(tree) == Location(1, "c1", 4)


async def test_tree_labels_summarise_each_turn_on_one_line():
    async with opened([TD303]) as pilot:
        _, tree, _, _ = parts(pilot)
        text = widget_text(tree)
        assert "TD303-session-store-drops-is-error.jsonl" in text
        assert "c1" in text and "6 turns" in text
        lines = text.splitlines()
        tool = next(line for line in lines if " 2 tool" in line)
        assert "1 error" in tool and "result" in tool


async def test_the_bundled_demo_opens_on_a_defect_explained_on_screen():
    """What a new user sees first: the bundled on-call log, its failed tool result replayed
    without is_error, explained in the canonical view and marked in the wire view."""
    demo = "tooldbg/samples/oncall-agent-lost-is-error.jsonl"
    async with opened([demo, "tooldbg/samples/weather-agent.jsonl"]) as pilot:
        screen, tree, canonical, panel = parts(pilot)
        assert [f.code for f in panel.findings] == ["TD303"]
        assert tree_location(tree) == Location(0, "c1", 2)
        text = screen_text(pilot)
        assert "TD303 lost-is-error" in text
        assert "is no longer marked as a failure" in canonical.plain
        assert "tool_result" in text  # the record, in the wire view


@pytest.mark.parametrize("size", [(80, 24), (240, 70)])
async def test_small_and_large_terminals_show_every_pane(size):
    async with opened([TD303], size=size) as pilot:
        screen, tree, canonical, panel = parts(pilot)
        for widget in (tree, canonical, screen.query_one("#wire"), panel):
            region = screen.find_widget(widget).region
            assert region.width >= 20 and region.height >= 3, (widget, region)
        assert "TD303" in screen_text(pilot)
        await pilot.press("down", "n")
        await settle(pilot)
        assert screen.location == Location(0, "c1", 2, 1)


async def test_a_conversation_wide_finding_is_explained_in_the_canonical_view():
    async with opened([TD504]) as pilot:
        _, _, canonical, _ = parts(pilot)
        assert canonical.plain.startswith("conversation c1")
        assert "TD504 stream-truncated" in canonical.plain
        await pilot.press("home")
        await settle(pilot)
        assert canonical.plain.startswith("file ")
