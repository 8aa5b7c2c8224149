"""The status line of a followed recording: what file, how many exchanges and findings so far, and
a note from whoever writes it (`tooldbg record --open`: the command's exit)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ...render import safe
from .turn_tree import BADGE_STYLES


class FollowStatus(Static):
    """Reactive counts, set by the screen as the file is read; the line repaints on each change."""

    exchanges: reactive[int] = reactive(0)
    #: Findings by severity: (errors, warnings, infos).
    findings: reactive[tuple[int, int, int]] = reactive((0, 0, 0))
    unreadable: reactive[int] = reactive(0)
    note: reactive[str] = reactive("")

    def __init__(self, path: str, **kwargs) -> None:  # noqa: ANN003
        super().__init__(**kwargs)
        self.path = path

    def render(self) -> Text:
        line = Text()
        line.append("● following ", "bold green")
        line.append_text(safe(self.path, "bold"))
        line.append(f"  {self.exchanges} exchange{'s' if self.exchanges != 1 else ''}")
        total = sum(self.findings)
        line.append(f" · {total} finding{'s' if total != 1 else ''}")
        for count, severity in zip(self.findings, ("error", "warning", "info"), strict=True):
            if count:
                line.append(" ")
                line.append(f" {count} {severity} ", BADGE_STYLES[severity])
        if self.unreadable:
            line.append(f" · {self.unreadable} unreadable", "bold red")
        if self.note:
            line.append(" · ")
            line.append_text(safe(self.note, "italic"))
        return line
