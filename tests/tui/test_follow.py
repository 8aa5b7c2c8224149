"""`tooldbg open --follow FILE`: the debugger shows a recording while another thread appends to it.
The writer appends one exchange record at a time and waits until the debugger has shown it (a
bounded wait): the tree, the findings and the status line grow, and the cursor stays where the user
put it. (That the file is read from where the last read stopped: tests/test_follow.py.)"""

from __future__ import annotations

import threading
from pathlib import Path

from textual.pilot import Pilot

from tests.tui.conftest import DEFECTS, SAMPLES, screen_text
from tooldbg.tui.app import make_app
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.widgets.findings_panel import FindingsPanel
from tooldbg.tui.widgets.follow_status import FollowStatus
from tooldbg.tui.widgets.turn_tree import TurnTree

#: Pauses of the app's loop a test waits at most for the debugger to show what was appended.
ROUNDS = 400


async def until(pilot: Pilot, done) -> None:  # noqa: ANN001
    for _ in range(ROUNDS):
        if done():
            return
        await pilot.pause(0.02)
    raise AssertionError("the debugger did not show what was appended")


def status(pilot: Pilot) -> FollowStatus:
    return pilot.app.screen.query_one(FollowStatus)


async def test_follow_grows_the_session_in_place_and_keeps_the_cursor(tmp_path: Path) -> None:
    lines = (DEFECTS / "TD303-session-store-drops-is-error.jsonl").read_bytes().splitlines(keepends=True)
    other = (SAMPLES / "anthropic" / "parallel-calls.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) >= 3 and other
    recording = tmp_path / "run.jsonl"
    recording.write_bytes(b"")
    app = make_app([str(recording)], follow=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert status(pilot).exchanges == 0
        assert "waiting for the first exchange" in screen_text(pilot)

        def append(data: bytes) -> None:
            """Another writer appends (a thread of its own, as `record` writes from its own)."""

            def write() -> None:
                with recording.open("ab") as file:
                    file.write(data)

            writer = threading.Thread(target=write)
            writer.start()
            writer.join(timeout=10)

        # the first exchange, written in two pieces: nothing is shown of a line not yet ended
        append(lines[0][:40])
        append(lines[0][40:])
        await until(pilot, lambda: status(pilot).exchanges == 1)
        tree = app.screen.query_one(TurnTree)
        main = app.screen
        assert isinstance(main, MainScreen)
        conversation = app.session.files[0].conversations[0]
        first_turns = len(conversation.turns)
        # the user moves to turn 1 of c1
        main.go_to(main.location.__class__(0, conversation.id, 1))
        await pilot.pause()
        chosen = tree.cursor_node.data

        for i, line in enumerate(lines[1:], start=2):
            append(line)
            await until(pilot, lambda i=i: status(pilot).exchanges == i)
        grown = app.session.files[0].conversations[0]
        assert len(grown.turns) > first_turns
        assert len(tree._conversation_nodes[(0, grown.id)].children) == len(grown.turns)
        assert tree.cursor_node.data == chosen  # the cursor stayed on the turn the user chose
        assert main.location == chosen
        panel = app.screen.query_one(FindingsPanel)
        assert [f.code for f in panel.findings] == ["TD303"]  # the defect, found once the replay came
        assert status(pilot).findings == (1, 0, 0)

        # another conversation, appended: a new node, the cursor still where it was
        append(b"".join(other))
        await until(pilot, lambda: status(pilot).exchanges == len(lines) + len(other))
        assert len(app.session.files[0].conversations) == 2
        assert tree.cursor_node.data == chosen
        assert f"{len(lines) + len(other)} exchanges · 1 finding" in screen_text(pilot)
