"""The selected turn in canonical form: its parts in order, each call linked to its result (or
marked unanswered), each result to its call (or marked orphan), error results marked, and under
them the findings on this turn, each explained in one line."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...chains import unseen_note
from ...lacking import describe
from ...load import Loaded
from ...model import Conversation, Invocation, Result, Turn
from ...render import LABEL, ROLE_STYLES, part_line, safe
from ...shorten import one_line
from .turn_tree import BADGE_STYLES, badge


def links(conversation: Conversation) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """(call id → where its result is, call id → where the call is)."""
    answered: dict[str, tuple[int, int]] = {}
    calls: dict[str, tuple[int, int]] = {}
    for t, turn in enumerate(conversation.turns):
        for p, part in enumerate(turn.parts):
            if isinstance(part, Invocation):
                calls[part.id] = (t, p)
            elif isinstance(part, Result) and part.invocation_id is not None:
                answered.setdefault(part.invocation_id, (t, p))
    return answered, calls


#: Parts shown for one turn; a turn with more (thousands of parallel calls) says how many more.
MAX_PARTS = 500


class CanonicalView(VerticalScroll):
    """Shows one turn; `show` is called by the screen (attributes down). It scrolls (and takes
    focus to scroll by keyboard) when a turn is taller than its pane."""

    def __init__(self, **kwargs) -> None:  # noqa: ANN003
        super().__init__(**kwargs)
        self.rows: list[Text] = []
        """What the view shows, one `Text` per row before wrapping."""

    def compose(self) -> ComposeResult:
        yield Static(id="canonical-body")

    def on_mount(self) -> None:
        self.border_title = "canonical"

    def _set(self, rows: list[Text]) -> None:
        self.rows = rows
        self.query_one("#canonical-body", Static).update(Group(*rows))
        self.scroll_home(animate=False)

    @property
    def plain(self) -> str:
        return "\n".join(row.plain for row in self.rows)

    def show(self, conversation: Conversation, index: int, turn: Turn, findings: list,  # noqa: ANN001
             links_: tuple[dict, dict], *, mid_way: bool = False) -> None:
        """`mid_way`: the conversation continues provider-stored turns the log does not hold
        (`tooldbg.chains`), so a result may answer a call made before the log began."""
        answered, calls = links_
        title = Text.assemble((f"turn {index} ", "bold"))
        title.append_text(safe(turn.role, "bold " + ROLE_STYLES.get(turn.role, "")))
        title.append(f"  {len(turn.parts)} part{'s' if len(turn.parts) != 1 else ''} ", "dim")
        title.append_text(badge(findings))
        rows: list[Text] = [title]
        rows.extend(explain(f) for f in findings)
        rows.append(Text(""))
        for p, part in enumerate(turn.parts[:MAX_PARTS]):
            line = Text.assemble((f"{p:>2} ", "dim"))
            line.append_text(part_line(part, width=2000))
            if isinstance(part, Invocation):
                where = answered.get(part.id)
                if where:
                    line.append(f"  → result in turn {where[0]}", "green")
                else:
                    line.append("  unanswered call: no result", "bold red")
            elif isinstance(part, Result):
                where = calls.get(part.invocation_id or "")
                if where:
                    line.append(f"  ← call in turn {where[0]}", "green")
                elif mid_way:
                    line.append("  its call is not in this log (stored by the provider)", "yellow")
                else:
                    line.append("  orphan result: no call", "bold red")
            part_findings = [f for f in findings if f.part == p]
            if part_findings:
                line.append(" ")
                line.append_text(badge(part_findings))
            rows.append(line)
        if not turn.parts:
            rows.append(Text("(no parts)", "dim"))
        elif len(turn.parts) > MAX_PARTS:
            rows.append(Text(f"… and {len(turn.parts) - MAX_PARTS} more parts (see the wire view)", "dim"))
        self._set(rows)

    def show_overview(self, loaded: Loaded, conversation: Conversation | None, findings: list) -> None:  # noqa: ANN001
        """A file or a conversation as a whole (no turn selected), with the findings that are on
        it rather than on one turn: a stream cut before its last event, the provider's rejection
        of a request (TD901, as `check` and `show` report it)."""
        if conversation is None:
            title = Text.assemble(("file ", "bold"))
            title.append_text(safe(loaded.path, "bold"))
            rows = [title, Text(f"{loaded.container}  {', '.join(loaded.formats) or 'no wire format'}  "
                                f"{len(loaded.reads)} exchanges  {len(loaded.conversations)} conversations",
                                "dim")]
            if loaded.lacks:
                rows.append(safe(f"this {loaded.container} log {describe(loaded.lacks)}", "dim"))
        else:
            title = Text.assemble((f"conversation {conversation.id} ", "bold"))
            title.append_text(safe(one_line(conversation.model or "", LABEL), "dim"))
            title.append(f"  {len(conversation.turns)} turns ", "dim")
            title.append_text(badge(findings))
            tools = one_line(", ".join(t.name for t in conversation.tools), 4 * LABEL)
            rows = [title]
            unseen = unseen_note(conversation, loaded.reads_of(conversation.id))
            if unseen is not None:
                rows.append(safe(unseen, "yellow"))
            if tools:
                rows.append(Text.assemble(("tools ", "dim"), safe(tools)))
        rows.extend(explain(f) for f in findings)
        for error in loaded.errors if conversation is None else ():
            rows.append(Text.assemble((" unreadable ", "bold white on red"), " ", safe(str(error))))
        self._set(rows)

    def clear(self, message: str = "") -> None:
        self._set([safe(message, "dim")])


def explain(finding) -> Text:  # noqa: ANN001
    """`TD303 lost-is-error (part 1): result … had is_error: true in exchange 1 …`"""
    line = Text.assemble((f" {finding.severity} ", BADGE_STYLES.get(finding.severity, "")))
    line.append(f" {finding.code} ", "bold")
    line.append(finding.name, "bold")
    if finding.part is not None:
        line.append(f" (part {finding.part})", "dim")
    line.append(": ")
    line.append_text(safe(finding.message))
    return line
