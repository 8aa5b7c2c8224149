"""The TUI's loading never leaves the progress bar spinning: a record that cannot be read is
reported and the rest shown; a load that fails as a whole (a path that cannot be read, or an
exception nobody expected) replaces the progress bar with its one-line message."""

from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import ProgressBar

from tooldbg.tui import session as session_module
from tooldbg.tui.app import make_app
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.widgets.canonical_view import CanonicalView

from .conftest import CLEAN, until_loaded

GOOD = Path(CLEAN).read_text(encoding="utf-8").splitlines()[0]


async def settled(pilot: Pilot) -> None:
    for _ in range(20):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def notifications(pilot: Pilot) -> list[str]:
    return [str(n.message) for n in pilot.app._notifications]


async def test_a_deep_record_is_reported_and_the_good_one_shown(tmp_path: Path) -> None:
    """Before: a JSON Lines file with one good record and one whose tool input is nested 1,000
    deep left the progress bar spinning with no message (the worker died on a RecursionError
    while the turn was hashed for stitching)."""
    deep = {"request": {"url": "https://api.anthropic.com/v1/messages", "body": {
        "model": "m", "max_tokens": 8, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "f", "input": "X"}]}]}}}
    line = json.dumps(deep).replace('"X"', '{"a":' * 1000 + "1" + "}" * 1000)
    path = tmp_path / "log.jsonl"
    path.write_text(GOOD + "\n" + line + "\n", encoding="utf-8")
    app = make_app([path])
    async with app.run_test(size=(120, 36)) as pilot:
        await until_loaded(pilot)
        assert app.session is not None and app.session.files[0].conversations
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert not screen.query_one("#progress", ProgressBar).display
        [message] = [m for m in notifications(pilot) if "line 2/request/body" in m]
        assert "nested deeper than 200 levels" in message and "\n" not in message


async def test_a_load_that_raises_shows_its_message_instead_of_spinning(monkeypatch, tmp_path: Path) -> None:
    """The safety net under the worker: whatever the loader raises becomes the message on screen."""
    def broken(cls, paths, input_format=None, progress=None):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(session_module.Session, "load", classmethod(broken))
    app = make_app([CLEAN])
    async with app.run_test(size=(120, 36)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen) and app.session is None
        assert not screen.query_one("#progress", ProgressBar).display
        shown = screen.query_one(CanonicalView).plain
        assert f"{CLEAN}: could not be loaded: RecursionError: maximum recursion depth exceeded" in shown
        assert any("RecursionError" in m for m in notifications(pilot))


async def test_a_path_that_cannot_be_read_is_named_on_screen(tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    app = make_app([missing])
    async with app.run_test(size=(120, 36)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert not screen.query_one("#progress", ProgressBar).display
        assert f"{missing}: no such file or folder" in screen.query_one(CanonicalView).plain


def test_the_loader_function_never_raises(tmp_path: Path) -> None:
    """What the worker runs, called as the fuzzing suite calls it."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 1000 + "]" * 1000, encoding="utf-8")
    outcome = session_module.load_session([str(path)])
    assert outcome.session is not None and outcome.error is None
    [error] = outcome.session.files[0].errors
    assert error.location.startswith("/0/0/0") and "deeper" in error.message
    outcome = session_module.load_session([str(tmp_path / "missing.json")])
    assert outcome.session is None and outcome.error and "no such file" in outcome.error
