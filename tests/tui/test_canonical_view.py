"""The canonical view drawn with the line API: a turn's rows wrap at spaces under their text, a turn
taller than the pane scrolls (and a new selection starts again at its top), and the wrapping the
view is sized by is the wrapping it draws (`wire_lines.wrap_offsets`, shared with the wire view)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.text import Text

from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.session import Location
from tooldbg.tui.widgets.canonical_view import ROW_INDENT, CanonicalView
from tooldbg.tui.widgets.wire_lines import Body, Layout, wrap_offsets

from .conftest import opened, settle, widget_text

CALLS = 40
SENTENCE = "the quick brown fox jumps over the lazy dog " * 12


def wide_turn_log(path: Path) -> Path:
    """An OpenAI chat request: a question in one long sentence, then `CALLS` parallel calls in one
    turn (taller than the canonical pane), their results, and an answer."""
    calls = [{"id": f"call_{i:02d}", "type": "function",
              "function": {"name": "lookup", "arguments": json.dumps({"item": i})}} for i in range(CALLS)]
    messages = [{"role": "user", "content": SENTENCE.strip()},
                {"role": "assistant", "content": None, "tool_calls": calls},
                *({"role": "tool", "tool_call_id": f"call_{i:02d}", "content": f"item {i}"} for i in range(CALLS)),
                {"role": "assistant", "content": "done"}]
    path.write_text(json.dumps({"model": "gpt-4o", "messages": messages}), encoding="utf-8")
    return path


async def at_turn(pilot, turn: int) -> CanonicalView:  # noqa: ANN001
    """The canonical view, once the screen went to `turn` of the log's conversation."""
    screen = pilot.app.screen
    assert isinstance(screen, MainScreen)
    screen.go_to(Location(0, "c1", turn))
    await settle(pilot)
    return screen.query_one(CanonicalView)


def shown(view: CanonicalView) -> list[str]:
    """The rows of the view's pane, borders and padding cut off."""
    return [row[2:-2].rstrip() for row in widget_text(view).splitlines()[1:-1]]


async def test_a_long_row_wraps_at_spaces_under_its_text(tmp_path: Path):
    async with opened([wide_turn_log(tmp_path / "wide.json")]) as pilot:
        view = await at_turn(pilot, 0)
        rows = shown(view)
        first = next(i for i, row in enumerate(rows) if row.startswith(" 0 text the quick"))
        end = next((i for i in range(first + 1, len(rows)) if not rows[i].startswith(" " * ROW_INDENT)), len(rows))
        assert end - first > 2  # the sentence takes several rows
        # each row goes on under the text, at a word's start: the rows, joined, are the sentence
        assert all(row[ROW_INDENT] != " " for row in rows[first + 1:end])
        assert " ".join(row.strip() for row in rows[first:end]) == "0 text " + " ".join(SENTENCE.split())
        # the pane is as tall as the turn's rows, wrapped
        assert len(rows) == view.virtual_size.height and rows[-1]


async def test_a_turn_taller_than_its_pane_scrolls_and_the_next_starts_at_its_top(tmp_path: Path):
    async with opened([wide_turn_log(tmp_path / "wide.json")]) as pilot:
        view = await at_turn(pilot, 1)
        assert view.virtual_size.height > view.scrollable_content_region.height  # it does not fit
        rows = shown(view)
        assert rows[0].startswith("turn 1 assistant") and not any(f"{CALLS - 1} call" in r for r in rows)

        view.focus()
        await pilot.press("end")
        await settle(pilot)
        rows = shown(view)
        assert rows[-1].startswith(f"{CALLS - 1} call ") and f"id call_{CALLS - 1:02d}" in rows[-1]
        assert not any(row.startswith("turn 1") for row in rows)

        await pilot.press("home", "pagedown")
        await settle(pilot)
        assert view.scroll_offset.y == view.scrollable_content_region.height

        assert await at_turn(pilot, 2) is view  # another turn: from its title
        assert view.scroll_offset.y == 0
        assert shown(view)[0].startswith("turn 2 tool")


@given(st.text(st.sampled_from("ab c界"), min_size=1, max_size=80), st.integers(2, 30), st.integers(0, 6), st.booleans())
def test_the_rows_a_line_is_cut_into_fit_and_hold_it_all(text: str, width: int, indent: int, words: bool):
    indent = min(indent, width // 2)  # as the views use it
    offsets = wrap_offsets(text, width, indent, words=words)
    cells = [0]
    for char in text:
        cells.append(cells[-1] + cell_len(char))
    cuts = [0, *(cells.index(offset) for offset in offsets), len(text)]
    rows = [text[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
    assert "".join(rows) == text and all(rows[1:])
    for i, row in enumerate(rows):
        room = width if i == 0 else max(1, width - indent)
        # a space that ends a row may hang past it (it is not drawn); one character always fits
        assert cell_len(row.rstrip(" ")) <= room or len(row.rstrip(" ")) == 1, (rows, room)
        if words and i + 1 < len(rows):  # cut after a space, or inside a word longer than a row
            assert row.endswith(" ") or " " not in row[1:], rows
    if words:  # a note is laid out on as many rows as it is drawn on
        assert Layout.of(Body([], notes=[Text(text)], note_indent=indent), width).rows == len(rows)
