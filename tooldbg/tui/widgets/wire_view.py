"""The wire JSON a turn came from, or the same turn re-serialized in another format.

A line-API widget (like Textual's `Log` and toolong's log view): the body is laid out once by
`wirejson.pretty` into plain lines, and `render_line` turns only the lines on screen into strips,
syntax-highlighted one line at a time and cached. A 10,000-turn request body is some 70,000 lines;
selecting another turn in it moves a band and scrolls, it does not render the body again.
The lines and their layout are `wire_lines`; this module draws them.

What it shows, `WireFocus` (set by the screen, attributes down; see `wire_focus`):

* source: the request or response body the turn was read from, the turn's own node as a band and
  the selected finding's node as a stronger band, scrolled into view;
* fragments: for a streamed response, the stream events one per line, the event that opened the
  turn banded and the one that broke assembly (a finding's `chunk`) marked. It opens by itself on a
  finding that names a chunk; `s` switches between it and the assembled body;
* a wire format (`f` / `F` cycle source → openai-chat → openai-responses → anthropic → gemini →
  bedrock): the items the target's writer makes of the turn (`reserialize`), computed in a worker,
  with the writer's losses for the turn listed under the JSON.

Log text is never markup: lines are JSON (strings escaped) cleaned by `render.clean` (secrets
masked, control, bidi and invisible characters made visible) before anything is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from time import monotonic
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.reactive import var
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.worker import get_current_worker

from ... import formats
from ...model import Loss
from ...render import clean
from ...reserialize import Reserializer, TurnInFormat
from ...shorten import one_line
from .wire_focus import WireFocus, focus_for
from .wire_lines import (
    MAX_LINE,
    NOTE_INDENT,
    Body,
    Layout,
    format_body,
    fragments_body,
    pieces,
    plural,
    source_body,
    wrapped_row,
)

#: Characters of the location shown in the header (a pointer 200 levels deep is cut in the middle).
LOCATION = 300

#: What `f` cycles through: the source record, then each wire format.
FORMATS: tuple[str, ...] = ("source", *formats.WIRE_FORMATS)

#: Seconds between two re-serializations: a key held down on a long conversation writes the turn
#: it stops on, not every turn on the way.
DEBOUNCE = 0.04

Span = tuple[int, int]


class WireView(ScrollView, can_focus=True):
    """Shows one `WireFocus`; the screen calls `show`, `cycle_format` and `set_format`."""

    COMPONENT_CLASSES = {
        "wire-view--title", "wire-view--gutter", "wire-view--band", "wire-view--band-marker",
        "wire-view--mark", "wire-view--marker",
    }
    DEFAULT_CSS = """
    WireView {
        overflow-x: hidden;
        overflow-y: scroll;
        & > .wire-view--title { text-style: bold; }
        & > .wire-view--gutter { color: $text-muted; }
        & > .wire-view--band { background: $primary 15%; }
        & > .wire-view--band-marker { color: $primary; }
        & > .wire-view--mark { background: $error 25%; }
        & > .wire-view--marker { color: $error; text-style: bold; }
    }
    """
    BINDINGS = [
        Binding("s", "toggle_fragments", "Stream fragments", show=False),
        Binding("w", "toggle_wrap", "Wrap lines", show=False),
    ]

    wire_format: var[str] = var("source", init=False)
    """What is shown: "source" (the record the turn came from) or a wire format's name."""

    wrap: var[bool] = var(True, init=False)
    """Long lines wrap (the default) or scroll sideways."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.focus_: WireFocus | None = None
        self.fragments_override: bool | None = None
        """None: fragments open by themselves on a finding that names a chunk; `s` decides."""
        self.body: Body | None = None
        self.header: list[Text] = []
        self.footer: list[Text] = []
        """Rows fixed at the bottom: a re-serialized turn's losses, when they fit."""
        self.band: Span | None = None
        """Lines of the selected turn's node (or stream event), as drawn under the header."""
        self.mark: Span | None = None
        """Lines of the selected finding's node (or the stream event that broke assembly)."""
        self.target_y = 0
        """The scroll offset chosen to bring `mark` (or `band`) into view."""
        self.pending = False
        """A worker is laying out or re-serializing what was asked for last."""
        self._bodies: LRUCache[Hashable, tuple[object, Body]] = LRUCache(16)
        self._strips: LRUCache[tuple[int, int, bool, int], list[Strip]] = LRUCache(2048)
        self._generation = 0
        self._reserializer = Reserializer()
        self._syntax: dict[bool, Syntax] = {}
        self._styles: dict[str, Style] = {}
        self._timer: Timer | None = None
        self._last_build = 0.0

    # -- what the screen calls

    def show(self, focus: WireFocus | None) -> None:
        """Look at `focus` (None: nothing selected) in the current format."""
        if focus is None or self.focus_ is None or focus.finding != self.focus_.finding:
            self.fragments_override = None
        self.focus_ = focus
        self._update()

    def cycle_format(self, step: int = 1) -> None:
        self.wire_format = FORMATS[(FORMATS.index(self.wire_format) + step) % len(FORMATS)]

    def set_format(self, name: str) -> None:
        if name not in FORMATS:
            raise ValueError(f"not a wire format: {name}")
        self.wire_format = name

    @property
    def fragments(self) -> bool:
        """Are the stream fragments shown (source format, streamed response)?"""
        focus = self.focus_
        if self.wire_format != "source" or focus is None or not focus.events:
            return False
        if self.fragments_override is not None:
            return self.fragments_override
        return focus.mark_chunk is not None

    @property
    def mode(self) -> str:
        return "fragments" if self.fragments else self.wire_format

    @property
    def lines(self) -> list[str]:
        """The drawn lines (under the header), as plain text: what tests and search look at."""
        if self.body is None:
            return []
        return self.body.lines + [n.plain for n in self.body.notes]

    @property
    def losses(self) -> tuple[Loss, ...]:
        found = self.body.reserialized if self.body is not None else None
        return found.losses if found is not None else ()

    def action_toggle_fragments(self) -> None:
        focus = self.focus_
        if self.wire_format != "source" or focus is None or not focus.events:
            self.app.bell()
            return
        self.fragments_override = not self.fragments
        self._update()

    def watch_wire_format(self) -> None:
        self._update()
        self.border_title = f"wire · {self.wire_format}"

    def on_mount(self) -> None:
        self.border_title = f"wire · {self.wire_format}"
        self.border_subtitle = "f/F format"

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    # -- choosing and building what to draw

    def _update(self) -> None:
        self._generation += 1
        focus = self.focus_
        if focus is None:
            self._present(Body([]), [], None, None, "select a turn to see its wire record")
            return
        if self.wire_format == "source":
            key: Hashable = ("fragments" if self.fragments else "source", *focus.record_key())
            owner: object = focus.loaded
        else:
            if focus.conversation is None or focus.turn is None:
                self._present(Body([]), self._title(focus, None), None, None,
                              f"select a turn to see it as {self.wire_format}")
                return
            key = (self.wire_format, id(focus.conversation), focus.turn)
            owner = focus.conversation
        cached = self._bodies.get(key)
        if cached is not None and cached[0] is owner:
            self._show_body(cached[1])
            return
        self.pending = True
        self.header = self._title(focus, None) + [Text("…", "dim")]
        self.refresh()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        build = partial(self._build, self._generation, key, owner, focus, self.wire_format, self.fragments)
        wait = self._last_build + DEBOUNCE - monotonic()
        if self.wire_format == "source" or wait <= 0:
            self._last_build = monotonic()
            build()
        else:  # a key held down on a long conversation: write only the turn it stops on
            self._timer = self.set_timer(wait, self._debounced(build))

    def _debounced(self, build: Callable[[], object]) -> Callable[[], None]:
        def run() -> None:
            self._timer = None
            self._last_build = monotonic()
            build()
        return run

    # A description of its own: Textual would describe the worker by the repr of its arguments,
    # and the repr of a loaded 10,000-turn log takes longer than the work.
    @work(thread=True, exclusive=True, group="wire", exit_on_error=False, description="wire view")
    def _build(self, generation: int, key: Hashable, owner: object, focus: WireFocus, target: str,
               fragments: bool) -> None:
        """Lay out (and for a wire format, write) off the UI thread: a 10,000-turn request body is
        tens of thousands of lines, and the first turn shown in a format writes the whole
        conversation once."""
        try:
            if target != "source":
                assert focus.conversation is not None and focus.turn is not None
                body = format_body(self._reserializer.turn(focus.conversation, focus.turn, target))
            elif fragments:
                body = fragments_body(focus.events or [])
            else:
                value = focus.body()
                body = source_body(value) if value is not None else Body([])
        except Exception as err:  # a writer bug must not leave the view waiting  # noqa: BLE001
            what = "written as " + target if target != "source" else "laid out"
            body = Body([], error=f"this turn could not be {what}: {type(err).__name__}: {err}")
        if get_current_worker().is_cancelled:
            return
        try:
            self.app.call_from_thread(self._built, generation, key, owner, body)
        except RuntimeError:  # the app closed meanwhile
            pass

    def _built(self, generation: int, key: Hashable, owner: object, body: Body) -> None:
        self._bodies[key] = (owner, body)
        if generation == self._generation:
            self.pending = False
            self._show_body(body)

    def _show_body(self, body: Body) -> None:
        focus = self.focus_
        assert focus is not None
        self.pending = False
        band = mark = None
        placeholder = None
        if body.reserialized is not None:  # the whole body is the turn; the finding's part marked
            pointer = _part_pointer(focus, body.reserialized)
            mark = body.pretty.span(pointer) if pointer is not None and body.pretty is not None else None
        elif body.labels is not None:
            band = _event_span(body, focus.chunk)
            mark = _event_span(body, focus.mark_chunk)
        elif body.pretty is not None:
            band = body.pretty.span(focus.pointer) if focus.turn is not None else None
            mark = body.pretty.span(focus.mark) if focus.mark else None  # "": the record as a whole
            if band is not None and band == (0, len(body.lines) - 1) and mark is None:
                band = None  # the turn is the whole body: nothing to single out
        elif body.error is not None:
            placeholder = clean(body.error)
        else:
            placeholder = "(no wire record: the turn has no exchange behind it)"
        self._present(body, self._title(focus, body), band, mark, placeholder)

    def _title(self, focus: WireFocus, body: Body | None) -> list[Text]:
        """One line saying what is shown and where it is, a second naming the finding marked."""
        found = body.reserialized if body is not None else None
        if found is not None:
            title = Text(f"{found.target} ", "bold")
            title.append(f"turn {found.index} → {found.pointer if found.items else '(nothing)'}")
            losses = len(found.losses)
            title.append(" · ", "dim")
            title.append(f"{losses} {plural(losses, 'loss', 'losses')} ↓" if losses else "no loss",
                         "bold yellow" if losses else "green")
            if len(found.items) > 1:
                title.append(f" · {len(found.items)} items", "dim")
            lines = [title]
            finding = focus.finding
            if finding is not None:
                line = Text("▶ ", "bold red")
                line.append(f"{finding.code} {finding.name}", "bold")
                pointer = _part_pointer(focus, found)
                if pointer is not None:
                    line.append(f" at #{clean(pointer)}")
                elif finding.part is not None:
                    line.append(f": part {finding.part} is not carried in {found.target}", "dim")
                lines.append(line)
            return lines
        title = Text("fragments" if self.fragments else "source", "bold")
        if focus.exchange is not None:
            title.append(f" · exchange {focus.exchange} {focus.side or ''}")
        title.append(" · ")
        title.append(one_line(clean(f"{focus.location}#{focus.pointer}"), LOCATION), "dim")
        events = focus.events
        if events:
            title.append(f" · {len(events)} stream events (s: {'JSON' if self.fragments else 'list'})",
                         "dim")
        lines = [title]
        finding = focus.finding
        if finding is not None:
            line = Text("▶ ", "bold red")
            line.append(f"{finding.code} {finding.name}", "bold")
            if self.fragments and focus.mark_chunk is not None:
                line.append(f": event {focus.mark_chunk} broke assembly")
            elif focus.mark:
                line.append(f" at #{clean(focus.mark)}")
            lines.append(line)
        return lines

    def _present(self, body: Body, header: list[Text], band: Span | None, mark: Span | None,
                 placeholder: str | None) -> None:
        if body is not self.body:
            self._strips.clear()
        self.body, self.header, self.band, self.mark = body, header, band, mark
        if placeholder is not None:
            self.header = [*header, Text(placeholder, "dim italic")]
        self._rescroll(body)
        self.call_after_refresh(self._rescroll, body)  # again once laid out: the width may change
        self.refresh()

    def _rescroll(self, body: Body) -> None:
        """Size the virtual canvas for the body and scroll `mark` (else `band`) into view."""
        if body is not self.body:
            return
        self._resize_canvas()
        target = self.mark or self.band
        self.target_y = self._scroll_for(target, self.mark is not None) if target else 0
        self.scroll_to(x=0, y=self.target_y, animate=False)
        self.refresh()

    def _resize_canvas(self) -> None:
        body = self.body
        if body is None:
            return
        self._place_notes()
        layout = self._layout()
        width = self.scrollable_content_region.width if self.wrap else body.gutter + body.width + 1
        self.virtual_size = Size(width, len(self.header) + layout.rows + len(self.footer))

    def _place_notes(self) -> None:
        """A re-serialized turn's losses stay in view at the bottom when they fit in a third of the
        view; a longer list follows the JSON, to scroll to."""
        body = self.body
        self.footer = []
        if body is None or body.reserialized is None or not body.notes:
            return
        region = self.scrollable_content_region
        if not body.reserialized.losses:
            return
        # the losses (the header counts them), and the line on conversation-wide ones
        notes = [n for n in body.notes if n.plain.startswith(("  ▲", "+ "))]
        rows = [line for note in notes
                for line in note.wrap(self.app.console, max(8, region.width), no_wrap=False)]
        room = region.height - len(self.header)
        if len(rows) <= max(2, room // 3) and room - len(rows) >= 3:
            self.footer = rows

    def on_resize(self) -> None:
        self._resize_canvas()

    def watch_wrap(self) -> None:
        self.styles.overflow_x = "hidden" if self.wrap else "auto"
        self._strips.clear()
        if self.body is not None:
            self._rescroll(self.body)
        self.refresh()

    def action_toggle_wrap(self) -> None:
        self.wrap = not self.wrap

    def _scroll_for(self, span: Span, centre: bool) -> int:
        """The scroll offset that shows `span`: a finding a third of the way down, a turn from its
        first line (with a line of context above)."""
        layout = self._layout()
        rows = max(1, self.scrollable_content_region.height - len(self.header) - len(self.footer))
        first, last = layout.starts[span[0]], layout.starts[span[1] + 1] - 1
        if centre and last - first + 1 < rows:
            first -= min(rows // 3, (rows - (last - first + 1)) // 2)
        else:
            first -= 1 if rows > 4 else 0
        return max(0, min(first, layout.rows - rows))

    def _gutter_width(self) -> int:
        return self.body.gutter if self.body is not None else 0

    def _layout(self) -> Layout:
        body = self.body
        assert body is not None
        width = max(8, self.scrollable_content_region.width - body.gutter) if self.wrap else 0
        notes = not self.footer
        layout = body.layouts.get((width, notes))
        if layout is None:
            layout = body.layouts[(width, notes)] = Layout.of(body, width, notes)
        return layout

    # -- drawing

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        rich_style = self._style("")
        if y < len(self.header):
            return self._header_strip(y, width, rich_style)
        bottom = self.scrollable_content_region.height - len(self.footer)
        if self.footer and y >= bottom:
            return self._header_strip(y - bottom, width, rich_style, self.footer)
        body = self.body
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y - len(self.header)
        if body is None:
            return Strip.blank(width, rich_style)
        layout = self._layout()
        if not 0 <= row < layout.rows:
            return Strip.blank(width, rich_style)
        index, piece = layout.locate(row)
        kind = 2 if _inside(index, self.mark) else 1 if _inside(index, self.band) else 0
        gutter_width = body.gutter
        key = (index, kind, self.app.current_theme.dark, layout.width)
        rows = self._strips.get(key)
        if rows is None:
            rows = self._strips[key] = self._pieces(index, kind, layout)
        fill = self._fill(kind)
        room = max(0, width - gutter_width)
        if layout.width:
            line = wrapped_row(rows, piece, layout.indent(body, index), room, fill)
        else:
            line = rows[0].crop_extend(scroll_x, scroll_x + room, fill)
        return (self._gutter(index, kind, gutter_width, piece == 0) + line).apply_offsets(scroll_x, row)

    def _pieces(self, index: int, kind: int, layout: Layout) -> list[Strip]:
        """Logical line `index` drawn, cut into the rows it wraps onto."""
        body = self.body
        assert body is not None
        fill = self._fill(kind)
        if index < len(body.lines):
            dark = self.app.current_theme.dark
            syntax = self._syntax.get(dark)
            if syntax is None:
                syntax = self._syntax[dark] = Syntax("", "json", theme="ansi_dark" if dark else "ansi_light")
            text = syntax.highlight(body.lines[index])
            text.rstrip()
        else:
            text = body.notes[index - len(body.lines)].copy()
        return pieces(text, self.app.console, fill, layout.offsets(body, index))

    def _fill(self, kind: int) -> Style:
        if kind == 2:
            return self._style("wire-view--mark")
        if kind == 1:
            return self._style("wire-view--band")
        return self._style("")

    def _style(self, component: str) -> Style:
        """The widget's (`""`) or a component's rich style, computed once per style update: a
        line's render asks for several, and `rich_style` walks the DOM each time."""
        style = self._styles.get(component)
        if style is None:
            style = self._styles[component] = self.get_component_rich_style(component) if component \
                else self.rich_style
        return style

    def _gutter(self, index: int, kind: int, width: int, first: bool) -> Strip:
        if not width:
            return Strip([])
        body = self.body
        assert body is not None
        label = ""
        if first and index < len(body.lines):
            label = body.labels[index] if body.labels is not None else str(index + 1)
        style = self._style("wire-view--gutter")
        marker, marker_style = " ", style
        if kind == 2:
            marker = "▶" if first and self.mark is not None and index == self.mark[0] else "▐"
            marker_style = self._style("wire-view--marker")
        elif kind == 1:
            marker = "▐"
            marker_style = self._style("wire-view--band-marker")
        text = label.rjust(width - 2) if body.labels is None else label.ljust(width - 2)
        return Strip([Segment(text, style), Segment(marker, marker_style), Segment(" ", self._style(""))],
                     width)

    def _header_strip(self, y: int, width: int, rich_style: Style, lines: list[Text] | None = None) -> Strip:
        """Line `y` of the header (or of `lines`): fixed, never scrolled."""
        text = (self.header if lines is None else lines)[y].copy()
        text.no_wrap = True
        text.truncate(width, overflow="ellipsis")
        if y == 0 and lines is None:
            text.stylize(self.get_component_rich_style("wire-view--title", partial=True))
        segments = Segment.apply_style(list(text.render(self.app.console)), rich_style)
        return Strip(segments).crop_extend(0, width, rich_style).simplify()


def _part_pointer(focus: WireFocus, found: TurnInFormat) -> str | None:
    """Where the node carrying the selected finding's part is in the turn written as a format."""
    finding = focus.finding
    if finding is None or finding.part is None or focus.turn != found.index:
        return None
    return found.parts.get(finding.part)


def _inside(index: int, span: Span | None) -> bool:
    return span is not None and span[0] <= index <= span[1]


def _event_span(body: Body, chunk: int | None) -> Span | None:
    if chunk is None or chunk not in body.events:
        return None
    line = body.events[chunk]
    return (line, line)


# What `wire_focus` and `wire_lines` define stays importable from here.
__all__ = ["DEBOUNCE", "FORMATS", "MAX_LINE", "NOTE_INDENT", "Body", "Layout", "Span", "WireFocus",
           "WireView", "focus_for", "format_body", "fragments_body", "source_body"]
