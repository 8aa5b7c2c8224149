"""Shared helpers for the TUI tests: the app opened through `make_app` (the factory the CLI and the
screenshot script use), waited on until the session is shown, and generated logs (hostile text, a
10,000-turn conversation).

Async tests run without a plugin: `pytest_pyfunc_call` below runs a coroutine test function with
`asyncio.run`, one event loop per test, which is all `App.run_test` needs.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, TextArea

from tooldbg.tui.app import ToolDbgApp, make_app
from tooldbg.tui.widgets.findings_panel import FindingsPanel
from tooldbg.tui.widgets.wire_view import WireView

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_transcripts"
DEFECTS = SAMPLES / "defects"
#: Relative to ROOT (the tests run from there): the header shows the path as given, and a snapshot
#: must not depend on where the clone lives.
TD303 = "sample_transcripts/defects/TD303-session-store-drops-is-error.jsonl"
TD102 = "sample_transcripts/defects/TD102-failed-parallel-result-dropped.jsonl"
CLEAN = "sample_transcripts/anthropic/parallel-calls.jsonl"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    asyncio.run(pyfuncitem.obj(**args))
    return True


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blinking cursor makes screenshots depend on timing: every Input and TextArea holds it on."""
    monkeypatch.setattr(Input.cursor_blink, "_default", False)
    monkeypatch.setattr(TextArea.cursor_blink, "_default", False)


@pytest.fixture(autouse=True)
def unfreeze_after_test() -> Iterator[None]:
    """`Session.load` freezes the collector's view of the heap (one app per process); a test run
    opens many apps, so each test hands what it froze back to the collector."""
    yield
    gc.unfreeze()


@pytest.fixture(autouse=True)
def at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


async def until_loaded(pilot: Pilot) -> None:
    """Wait for the load worker and for the session to be on screen."""
    app = pilot.app
    for _ in range(200):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if isinstance(app, ToolDbgApp) and app.session is not None and not app.workers:
            break
    await app.workers.wait_for_complete()
    await pilot.pause()


def still_laying_out(app: App) -> list[str]:
    """What on the screens shown is not laid out yet: a widget waiting for a layout, a DataTable
    that has not measured its new rows (it does so when idle), the findings panel not yet fitted to
    its width, the wire view waiting for its worker. Empty when a screenshot shows the final state."""
    waiting = []
    for screen in app.screen_stack:
        for widget in screen.walk_children(with_self=False):
            name = f"{type(widget).__name__}#{widget.id}"
            if widget._layout_required:
                waiting.append(f"{name}: layout")
            if isinstance(widget, DataTable) and (widget._require_update_dimensions or widget._new_rows):
                waiting.append(f"{name}: column widths")
            if isinstance(widget, FindingsPanel) and widget.findings and \
                    widget._laid_out_for != widget.scrollable_content_region.width:
                waiting.append(f"{name}: not fitted to its width")
            if isinstance(widget, WireView) and widget.pending:
                waiting.append(f"{name}: worker")
    return waiting


async def until_laid_out(pilot: Pilot) -> None:
    """Wait until nothing on screen is half laid out (see `still_laying_out`)."""
    for _ in range(200):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not still_laying_out(pilot.app):
            await pilot.pause()
            if not still_laying_out(pilot.app):
                return
    raise AssertionError(f"still laying out: {still_laying_out(pilot.app)}")


async def settle(pilot: Pilot) -> None:
    """Let workers started by the last key (e.g. a re-serialization) finish and repaint."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@asynccontextmanager
async def opened(paths: Sequence[str | Path], size: tuple[int, int] = (120, 36),
                 theme: str | None = None) -> AsyncIterator[Pilot]:
    app = make_app(list(paths))
    if theme is not None:
        app.theme = theme
    async with app.run_test(size=size) as pilot:
        await until_loaded(pilot)
        yield pilot


def has_key(pilot: Pilot, key: str) -> bool:
    """Whether `key` does something where the focus is (features still being built skip)."""
    return key in pilot.app.active_bindings


def screen_text(pilot: Pilot) -> str:
    """What the terminal shows, as plain text, one line per row."""
    return "\n".join(strip.text for strip in pilot.app.screen._compositor.render_strips())


def terminal_output(pilot: Pilot) -> str:
    """The exact characters a full repaint writes to the terminal (styles as SGR sequences)."""
    console = Console(force_terminal=True, color_system="truecolor", width=pilot.app.size.width)
    return pilot.app.screen._compositor.render_full_update().render_segments(console)


def widget_text(widget) -> str:  # noqa: ANN001
    """What the terminal shows inside a widget's region (borders included), as plain text."""
    region = widget.screen.find_widget(widget).region
    strips = widget.screen._compositor.render_strips()[region.y:region.bottom]
    return "\n".join(strip.crop(region.x, region.right).text for strip in strips)


# -- generated logs -------------------------------------------------------------------------------

def big_chat_body(turns: int = 10_000, orphan_at: int | None = None) -> dict:
    """One OpenAI chat request body replaying a `turns`-turn agent conversation (user question,
    call, result, answer, repeated), the way an agent at the end of a long session sends it.
    With `orphan_at`, the result in that round (round k is turns 4k..4k+3) answers an id no call
    has: an orphan result and an unanswered call deep in the log."""
    messages: list[dict] = []
    k = 0
    while len(messages) < turns:
        call = f"call_{k:05d}"
        answer = f"lost_{k:05d}" if k == orphan_at else call
        messages += [
            {"role": "user", "content": f"Question {k}: what is the weather in city {k}?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call, "type": "function",
                 "function": {"name": "get_weather", "arguments": json.dumps({"city": f"city {k}"})}}]},
            {"role": "tool", "tool_call_id": answer, "content": json.dumps({"temp_c": k % 30})},
            {"role": "assistant", "content": f"It is {k % 30} degrees in city {k}."},
        ]
        k += 1
    return {"model": "gpt-4o", "messages": messages[:turns], "tools": [
        {"type": "function", "function": {
            "name": "get_weather", "description": "Current weather for a city.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                           "required": ["city"]}}}]}


def write_big_log(path: Path, turns: int = 10_000, orphan_at: int | None = None) -> Path:
    path.write_text(json.dumps(big_chat_body(turns, orphan_at)), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10,000 turns; round 1,750 (turns 7,000-7,003) answers the wrong id."""
    return write_big_log(tmp_path_factory.mktemp("big") / "ten-thousand-turns.json", orphan_at=1750)
