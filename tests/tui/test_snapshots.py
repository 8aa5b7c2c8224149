"""SVG snapshots of the main states (pytest-textual-snapshot): the main screen on a real defect at
120×36 and 80×24 in the dark and light themes, a streamed response's fragments, the wire view
switched to another format, the export dialog, help, search and the diff screen.

The baselines are in `__snapshots__/test_snapshots/`. After an intended change, look at the report
first (`snapshot_report.html`), then update:
    .venv/bin/python -m pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import pytest
from textual.pilot import Pilot

from tooldbg.tui.app import make_app

from .conftest import TD303, has_key, settle, until_laid_out, until_loaded

TD502 = "sample_transcripts/defects/TD502-anthropic-relay-resends-input-delta.jsonl"
RELAY = ("docs/examples/relay-drops-second-result/client.har", "docs/examples/relay-drops-second-result/upstream.har")
THEMES = {"dark": "textual-dark", "light": "textual-light"}
SIZES = {"120x36": (120, 36), "80x24": (80, 24)}


def prepare(theme: str, keys: Sequence[str] = (), require: str | None = None
            ) -> Callable[[Pilot], Awaitable[None]]:
    async def run_before(pilot: Pilot) -> None:
        pilot.app.theme = THEMES[theme]
        await until_loaded(pilot)
        assert require is None or has_key(pilot, require), f"the {require!r} key is not bound"
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await settle(pilot)
        await until_laid_out(pilot)  # never a half-laid-out table in a baseline
    return run_before


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("theme", THEMES)
def test_main_screen_on_a_defect(snap_compare, theme: str, size: str):
    """TD303: a failed tool result replayed without its is_error flag, explained in the canonical
    view, its record in the wire view, the finding selected in the panel."""
    assert snap_compare(make_app([TD303]), terminal_size=SIZES[size], run_before=prepare(theme))


def test_stream_fragments_with_the_breaking_chunk_marked(snap_compare):
    """TD502: a relay re-sends an input delta; the finding opens the stream's fragments."""
    assert snap_compare(make_app([TD502]), terminal_size=(120, 36), run_before=prepare("dark"))


@pytest.mark.parametrize("size", SIZES)
def test_wire_view_switched_to_another_format(snap_compare, size: str):
    """`f` twice: the defect turn as OpenAI Responses items, with the writer's losses under it."""
    assert snap_compare(make_app([TD303]), terminal_size=SIZES[size],
                        run_before=prepare("dark", ["f", "f"], require="f"))


@pytest.mark.parametrize(("theme", "size"), [("dark", "120x36"), ("light", "80x24")])
def test_export_dialog(snap_compare, theme: str, size: str):
    """`e`: the export dialog, its losses and pre-flight shown before anything is written."""
    assert snap_compare(make_app([TD303]), terminal_size=SIZES[size],
                        run_before=prepare(theme, ["e"], require="e"))


def test_help_screen(snap_compare):
    assert snap_compare(make_app([TD303]), terminal_size=(120, 36),
                        run_before=prepare("dark", ["question_mark"], require="question_mark"))


def test_search(snap_compare):
    """`/` then a query: the matching turns listed, the first one highlighted."""
    assert snap_compare(make_app([TD303]), terminal_size=(120, 36),
                        run_before=prepare("dark", ["slash", *"fraud"], require="slash"))


def test_diff_screen(snap_compare):
    """`d` with both captures of a relay open: the second tool result lost on the way upstream,
    marked where it is and said where it is missing, the difference in the panel."""
    assert snap_compare(make_app(list(RELAY)), terminal_size=(120, 36),
                        run_before=prepare("dark", ["d"], require="d"))
