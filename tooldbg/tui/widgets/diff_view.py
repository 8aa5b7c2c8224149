"""Two conversations side by side, turn by turn as `diff` aligned them: each row one turn of side a
beside its counterpart on side b, every part as the canonical view shows it, a part the other side
lost or changed marked, and where a side lacks a part, the gap said in that side's column.

Rows are widgets of their own (a turn's parts can be tall), so choosing a difference scrolls its row
into view; a long conversation shows its first `MAX_ROWS` rows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...diff.results import ADDED_CODE, Diff, Pairing, SidedFinding
from ...model import Conversation
from ...render import ROLE_STYLES, part_line, safe
from .turn_tree import BADGE_STYLES

MAX_ROWS = 400
#: (side, turn, part) → what to say there; part None: the turn as a whole.
Marks = dict[tuple[str, int | None, int | None], list[tuple[str, SidedFinding]]]

LOST, MISSING, CHANGED, ADDED = "lost", "missing", "changed", "added"
MARK_STYLES = {LOST: "bold red", MISSING: "bold red", CHANGED: "bold yellow", ADDED: "bold magenta"}
_MARKERS = {LOST: "✗ ", CHANGED: "≠ ", ADDED: "+ "}


def marks(findings: Sequence[SidedFinding]) -> Marks:
    """Where each difference shows: the part one side has and the other lost (`lost`, on the side
    that has it), the gap on the side that lacks it (`missing`), a part changed (`changed`, both), a
    part added on the way (`added`, on the side that has it: the finding's)."""
    out: Marks = defaultdict(list)
    for f in findings:
        other = "b" if f.side == "a" else "a"
        here, there = (f.a, f.b) if f.side == "a" else (f.b, f.a)
        if f.code == ADDED_CODE and here is not None and here.part is not None:
            out[(f.side, here.turn, here.part)].append((ADDED, f))
        elif here is not None and here.part is not None and there is not None and there.part is not None:
            out[(f.side, here.turn, here.part)].append((CHANGED, f))
            out[(other, there.turn, there.part)].append((CHANGED, f))
        elif there is not None and there.part is not None:
            out[(other, there.turn, there.part)].append((LOST, f))
            out[(f.side, here.turn if here is not None else None, None)].append((MISSING, f))
        else:
            out[(f.side, here.turn if here is not None else None, None)].append((MISSING, f))
    return out


class DiffRow(Static):
    """One row: turn `a` beside turn `b` (either None: no counterpart); row -1 holds the conversation
    as a whole (model, tools and the differences on them)."""

    DEFAULT_CSS = """
    DiffRow { height: auto; padding: 0 0 1 0; }
    DiffRow.-chosen { background: $accent 20%; }
    """

    def __init__(self, index: int, a: int | None, b: int | None, left: RenderableType,
                 right: RenderableType | None = None) -> None:
        super().__init__(_grid(left, right) if right is not None else left)
        self.index, self.a, self.b = index, a, b
        self.plain = (_plain(left), _plain(right) if right is not None else "")
        """Each column's text, unwrapped."""


class DiffView(VerticalScroll):
    """`show(diff, pairing)` lays the rows out; `choose(finding)` marks and scrolls to its row."""

    def __init__(self, **kwargs) -> None:  # noqa: ANN003
        super().__init__(**kwargs)
        self.rows: list[DiffRow] = []

    def on_mount(self) -> None:
        self.border_title = "diff"

    def show(self, result: Diff, pairing: Pairing, findings: Sequence[SidedFinding]) -> None:
        ca = result.a.conversation(pairing.a)
        cb = result.b.conversation(pairing.b)
        assert ca is not None and cb is not None
        notes = marks(findings)
        self.remove_children()
        rows = [DiffRow(-1, None, None, _head("a", result.a.path, ca, notes),
                        _head("b", result.b.path, cb, notes))]
        for index, (ta, tb) in enumerate(pairing.turns[:MAX_ROWS]):
            rows.append(DiffRow(index, ta, tb, _turn("a", ca, ta, notes), _turn("b", cb, tb, notes)))
        if len(pairing.turns) > MAX_ROWS:
            more = len(pairing.turns) - MAX_ROWS
            said = Text(f"… {more} more rows: `tooldbg diff A B` lists every difference", "dim")
            rows.append(DiffRow(len(pairing.turns), None, None, said))
        self.rows = rows
        self.mount_all(rows)
        self.border_title = f"diff  a {pairing.a} ↔ b {pairing.b}"
        self.border_subtitle = f"{len(findings)} difference{'s' if len(findings) != 1 else ''}"

    def choose(self, finding: SidedFinding) -> None:
        row = self.row_of(finding)
        for r in self.rows:
            r.set_class(r is row, "-chosen")
        if row is not None:
            self.scroll_to_widget(row, animate=False, top=True)

    def row_of(self, finding: SidedFinding) -> DiffRow | None:
        ta = finding.a.turn if finding.a is not None else None
        tb = finding.b.turn if finding.b is not None else None
        if ta is None and tb is None:
            return self.rows[0] if self.rows else None
        return next((r for r in self.rows if r.index >= 0 and (ta is not None and r.a == ta
                                                               or tb is not None and r.b == tb)), None)


def _plain(renderable: RenderableType) -> str:
    if isinstance(renderable, Group):
        return "\n".join(_plain(r) for r in renderable.renderables)
    return renderable.plain if isinstance(renderable, Text) else ""


def _grid(left: RenderableType, right: RenderableType) -> Table:
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row(left, right)
    return grid


def _head(side: str, path: str, conv: Conversation, notes: Marks) -> RenderableType:
    title = Text(f"{side}  ", "bold")
    title.append_text(safe(path.rsplit("/", 1)[-1], "bold"))
    title.append_text(safe(f"  {conv.id}  {conv.model or ''}", "dim"))
    lines: list[Text] = [title]
    if conv.tools:
        lines.append(Text.assemble(("tools ", "dim"), safe(", ".join(t.name for t in conv.tools))))
    lines.extend(_said(kind, f) for kind, f in notes.get((side, None, None), []))
    return Group(*lines)


def _turn(side: str, conv: Conversation, index: int | None, notes: Marks) -> RenderableType:
    if index is None or not 0 <= index < len(conv.turns):
        return Text("(no counterpart)", "dim italic")
    turn = conv.turns[index]
    title = Text(f"turn {index} ", "bold")
    title.append_text(safe(turn.role, "bold " + ROLE_STYLES.get(turn.role, "")))
    lines: list[Text] = [title]
    lines.extend(_said(kind, f) for kind, f in notes.get((side, index, None), []))
    for p, part in enumerate(turn.parts):
        marked = notes.get((side, index, p), [])
        line = Text(f"{p:>2} ", "dim")
        if marked:
            kind = marked[0][0]
            line = Text(_MARKERS.get(kind, "≠ "), MARK_STYLES[kind]) + Text(f"{p} ", "dim")
        line.append_text(part_line(part, width=300))
        for kind, f in marked:
            line.append(f"  {kind if kind in (LOST, ADDED) else 'changed'} on {f.side}", MARK_STYLES[kind])
            line.append(f" {f.code}", "bold")
        lines.append(line)
    if not turn.parts:
        lines.append(Text("(no parts)", "dim"))
    return Group(*lines)


def _said(kind: str, finding: SidedFinding) -> Text:
    line = Text()
    line.append(" ✗ missing here " if kind == MISSING else " ≠ changed ", BADGE_STYLES[finding.severity])
    line.append(f" {finding.code} ", "bold")
    line.append_text(safe(finding.message, MARK_STYLES[kind]))
    return line
