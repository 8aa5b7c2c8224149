"""The selected turn in canonical form: its parts in order, each call linked to its result (or
marked unanswered), each result to its call (or marked orphan), error results marked."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from ...model import Conversation, Invocation, Result, Turn
from ...render import ROLE_STYLES, part_line, safe
from .turn_tree import badge


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


class CanonicalView(Static):
    """Shows one turn; `show` is called by the screen (attributes down)."""

    def show(self, conversation: Conversation, index: int, turn: Turn, findings: list,  # noqa: ANN001
             links_: tuple[dict, dict]) -> None:
        answered, calls = links_
        title = Text(f"turn {index} ", "bold")
        title.append(turn.role, ROLE_STYLES.get(turn.role, ""))
        title.append("   ")
        title.append_text(safe(turn.source.address, "dim"))
        title.append(" ")
        title.append_text(badge(findings))
        rows: list = [title, Text("")]
        for p, part in enumerate(turn.parts):
            line = Text(f"{p:>2} ", "dim")
            line.append_text(part_line(part, width=2000))
            if isinstance(part, Invocation):
                where = answered.get(part.id)
                line.append("  → result in turn " + str(where[0]) if where else "  unanswered",
                            "green" if where else "bold red")
            elif isinstance(part, Result):
                where = calls.get(part.invocation_id or "")
                line.append(f"  ← call in turn {where[0]}" if where else "  orphan: no call",
                            "green" if where else "bold red")
            part_findings = [f for f in findings if f.part == p]
            if part_findings:
                line.append(" ")
                line.append_text(badge(part_findings))
            rows.append(line)
        if not turn.parts:
            rows.append(Text("(no parts)", "dim"))
        self.update(Group(*rows))

    def clear(self, message: str = "") -> None:
        self.update(Text(message, "dim"))
