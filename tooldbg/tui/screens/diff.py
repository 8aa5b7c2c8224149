"""The diff screen (`d` with two logs open): the selected conversation beside its counterpart in the
other file, as `tooldbg diff` aligns them (`tooldbg.diff`), lost and changed parts marked, each
difference in a findings panel (with the file column: the side each is on). Choosing a difference
scrolls to its row; escape (or `d`) goes back."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ...diff.results import Diff, Pairing
from ...render import safe
from ..widgets.diff_view import DiffView
from ..widgets.findings_panel import FindingsPanel


class DiffScreen(Screen[None]):
    HELP_TITLE = "Diff screen"
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("d", "close", "Back", show=False),
        ("n", "next_finding", "Next difference"),
        Binding("N", "previous_finding", "Prev difference", show=False),
    ]

    def __init__(self, result: Diff, pairing: Pairing) -> None:
        super().__init__()
        self.result, self.pairing = result, pairing
        self.findings = [f for f in result.findings
                         if (f.a is None or f.a.conversation in (None, pairing.a))
                         and (f.b is None or f.b.conversation in (None, pairing.b))]
        self.finding_index = -1

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="diff-notes")
        yield DiffView(id="diff-view")
        yield FindingsPanel("differences", id="diff-findings")
        yield Footer()

    def on_mount(self) -> None:
        notes = [n.message for n in self.result.notes]
        line = safe("  ·  ".join(notes) if notes else "no notes", "dim")
        self.query_one("#diff-notes", Static).update(line)
        self.query_one(DiffView).show(self.result, self.pairing, self.findings)
        panel = self.query_one(FindingsPanel)
        panel.show_findings(list(self.findings), [self.result.a.path, self.result.b.path])
        if self.findings:
            panel.select_index(0)
        panel.focus()

    def on_findings_panel_chosen(self, event: FindingsPanel.Chosen) -> None:
        event.stop()
        self.finding_index = event.index
        self.query_one(DiffView).choose(self.findings[event.index])

    def action_next_finding(self) -> None:
        self.query_one(FindingsPanel).select_index(self.finding_index + 1)

    def action_previous_finding(self) -> None:
        self.query_one(FindingsPanel).select_index(self.finding_index - 1)

    def action_close(self) -> None:
        self.dismiss(None)
