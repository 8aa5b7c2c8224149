"""The lines the wire and canonical views draw, and the screen rows they take.

A `Body` is laid out once, off the UI thread: a record's JSON as plain lines (`source_body`), a
streamed response's events one per line with their index in the gutter (`fragments_body`), or a
turn re-serialized in another format with the writer's losses as notes under it (`format_body`);
the canonical view's rows are a body of notes only. A `Layout` says on which row each line starts
at a wrap width, so that only the rows on screen are ever drawn, by the same three steps in both
views: `Layout.locate` (which line, which of its rows), `pieces` (a line drawn and cut where
`wrap_offsets` says) and `wrapped_row` (one of those rows, indented and fitted to the view).
Log text is never markup: it is cleaned (`render.clean`: secrets masked, control, bidi and
invisible characters made visible) and very long lines cut before anything is drawn; notes are
`Text` built from cleaned text (`render.safe`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from rich.cells import cell_len, get_character_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from ...formats.base import StreamEvent
from ...render import clean
from ...reserialize import TurnInFormat
from ...shorten import shorten_lines
from ...wirejson import Pretty, compact, pretty

#: A line longer than this is cut on screen (a base64 image is one JSON string).
MAX_LINE = 4000


@dataclass(slots=True)
class Body:
    """Lines ready to draw: JSON text (highlighted line by line), an optional label per line in
    the gutter (stream events), notes drawn as given under the lines (losses; the canonical
    view's rows), wrapped at spaces with continuation rows indented by `note_indent`."""

    lines: list[str]
    pretty: Pretty | None = None
    labels: list[str] | None = None
    notes: list[Text] = field(default_factory=list)
    events: dict[int, int] = field(default_factory=dict)  # stream event index → line
    reserialized: TurnInFormat | None = None
    error: str | None = None
    width: int = 0
    gutter: int = 0
    note_indent: int = 4
    layouts: dict[tuple[int, bool], Layout] = field(default_factory=dict)

    @classmethod
    def of(cls, lines: Sequence[str], **kwargs: Any) -> Body:
        """Make log text safe to draw: secrets masked, control characters visible, long lines cut.
        One pass over the whole text: regexes are fast on one big string, slow line by line."""
        text = shorten_lines(clean("\n".join(lines)), MAX_LINE)
        out = text.split("\n") if lines else []
        body = cls(out, **kwargs)
        body.width = max((len(x) for x in out), default=0)
        if body.labels is not None:
            body.gutter = max((len(x) for x in body.labels), default=0) + 2
        elif out:
            body.gutter = len(str(len(out))) + 2
        return body


def source_body(value: Any) -> Body:
    laid = pretty(value)
    return Body.of(laid.lines, pretty=laid)


def fragments_body(events: Sequence[StreamEvent]) -> Body:
    """One line per event: its index, its SSE name when the payload does not repeat it, the data."""
    names = [clean(e.name)[:32] if e.name and not (isinstance(e.data, dict)
                                                     and e.data.get("type") == e.name) else ""
             for e in events]
    width = max((len(n) for n in names), default=0)
    digits = len(str(max((e.index for e in events), default=0)))
    labels = [f"{e.index:>{digits}} {n:<{width}}".rstrip() if width else f"{e.index:>{digits}}"
              for e, n in zip(events, names, strict=True)]
    lines = [compact(e.data) if not isinstance(e.data, str)
             else e.data.replace("\r", "\\r").replace("\n", "\\n") for e in events]
    return Body.of(lines, labels=labels, events={e.index: i for i, e in enumerate(events)})


def format_body(found: TurnInFormat) -> Body:
    value: Any = list(found.items) if found.items or not found.changed else found.changed
    laid = pretty(value, f"/{found.key}" if value is not found.changed else "")
    # the pointers of what is shown as they are in the written body, where the parts are found
    laid.spans = {found.place(p): s for p, s in laid.spans.items()}
    notes: list[Text] = [Text("")]
    if not found.items and not found.changed:
        notes.append(Text(f"{found.target} writes nothing for this turn", "bold"))
    elif found.changed:
        notes.append(Text(f"written at the top level: {', '.join(sorted(found.changed))}", "dim"))
    for pointer, turns in found.shared.items():
        notes.append(Text(f"{pointer} also holds {plural(len(turns), 'turn', 'turns')} "
                          f"{', '.join(map(str, turns))}: only this turn's blocks are shown", "dim"))
    if found.losses:
        notes.append(Text(f"{len(found.losses)} {plural(len(found.losses), 'loss', 'losses')} "
                          f"writing this turn as {found.target}:", "bold"))
        for loss in found.losses:
            line = Text()
            line.append("  ▲ ", "bold yellow")
            if loss.part is not None:
                line.append(f"part {loss.part}: ", "dim")
            line.append(clean(loss.message))
            notes.append(line)
    else:
        notes.append(Text(f"no loss writing this turn as {found.target}", "green"))
    if found.elsewhere:
        notes.append(Text(f"+ {found.elsewhere} conversation-wide "
                          f"{plural(found.elsewhere, 'loss', 'losses')} (the export lists "
                          f"{plural(found.elsewhere, 'it', 'them')})", "dim"))
    body = Body.of(laid.lines, pretty=laid, notes=notes, reserialized=found)
    body.width = max(body.width, *(len(n.plain) for n in notes))
    return body


def plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


@dataclass(slots=True)
class Layout:
    """Where each logical line (JSON lines, then notes) starts on screen at a wrap `width`
    (0: no wrapping, one row per line, scrolled sideways)."""

    width: int
    starts: list[int]

    @property
    def rows(self) -> int:
        return self.starts[-1]

    @classmethod
    def of(cls, body: Body, width: int, notes: bool = True) -> Layout:
        count = len(body.lines) + (len(body.notes) if notes else 0)
        if not width:
            return cls(0, list(range(count + 1)))
        rows: list[int] = []
        append = rows.append
        for line in body.lines:
            fits = len(line) <= width if line.isascii() else cell_len(line) <= width
            append(1 if fits else 1 + len(wrap_offsets(line, width, _indent(line, width), words=False)))
        for note in body.notes if notes else ():
            plain = note.plain
            fits = len(plain) <= width if plain.isascii() else cell_len(plain) <= width
            append(1 if fits else 1 + len(wrap_offsets(plain, width, _note_indent(body, width), words=True)))
        return cls(width, [0, *accumulate(rows)])

    def indent(self, body: Body, index: int) -> int:
        """Continuation rows are indented past the line's own indentation."""
        if index < len(body.lines):
            return _indent(body.lines[index], self.width)
        return _note_indent(body, self.width)

    def locate(self, row: int) -> tuple[int, int]:
        """(the line drawn on `row`, which of its rows it is); `row` within `0 … rows - 1`."""
        index = bisect_right(self.starts, row) - 1
        return index, row - self.starts[index]

    def offsets(self, body: Body, index: int) -> list[int]:
        """Where line `index` is cut (cells): the rows it takes are counted from the same cuts."""
        if not self.width:
            return []
        if index < len(body.lines):
            line = body.lines[index]
            return wrap_offsets(line, self.width, _indent(line, self.width), words=False)
        return wrap_offsets(body.notes[index - len(body.lines)].plain, self.width,
                            _note_indent(body, self.width), words=True)


NOTE_INDENT = 4


def _indent(line: str, width: int) -> int:
    return min(len(line) - len(line.lstrip(" ")) + 2, width // 2)


def _note_indent(body: Body, width: int) -> int:
    return min(body.note_indent, width // 2)


def wrap_offsets(text: str, width: int, indent: int, *, words: bool) -> list[int]:
    """The cells at which `text` goes on to a new row at `width` cells, rows after the first
    indented by `indent`: anywhere (JSON, where a string's characters all matter), or after the
    last space that fits (`words`: prose, as rich wraps it), a word longer than a row cut."""
    simple = text.isascii()
    cells = None if simple else [0, *accumulate(map(get_character_cell_size, text))]
    size = len(text) if cells is None else cells[-1]
    if size <= width:
        return []
    step = max(1, width - indent)
    if not words and cells is None:
        return list(range(width, size, step))
    cuts: list[int] = []
    start, room = 0, width
    while (size - start if cells is None else cells[-1] - cells[start]) > room:
        end = start + room if cells is None else max(start + 1, bisect_right(cells, cells[start] + room) - 1)
        space = text.rfind(" ", start + 1, end + 1) if words else -1
        start = space + 1 if space != -1 else end
        if start >= len(text):  # one character wider than the row: it is the row
            break
        cuts.append(start)
        room = step
    return cuts if cells is None else [cells[i] for i in cuts]


def pieces(text: Text, console: Console, fill: Style, offsets: list[int]) -> list[Strip]:
    """`text` drawn on `fill` (the view's style, or a band's), cut into rows at `offsets` cells."""
    text.no_wrap = True
    text.end = ""
    strip = Strip(Segment.apply_style(list(text.render(console)), fill), text.cell_len)
    if not offsets:
        return [strip]
    return list(strip.divide([*offsets, strip.cell_length]))


def wrapped_row(rows: list[Strip], piece: int, indent: int, room: int, fill: Style) -> Strip:
    """Row `piece` of a line cut into `rows`, continuation rows indented, fitted to `room` cells."""
    line = rows[piece] if piece < len(rows) else Strip([])
    if piece:
        line = Strip.blank(indent, fill) + line
    return line.crop_extend(0, room, fill)
