"""Every finding of the session in a table; choosing one moves the other views to it."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from ...checks import Finding
from ...render import safe
from .turn_tree import BADGE_STYLES


class FindingsPanel(DataTable):
    class Chosen(Message):
        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    def __init__(self, **kwargs) -> None:  # noqa: ANN003
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.findings: list[Finding] = []

    def on_mount(self) -> None:
        self.add_columns("severity", "code", "rule", "where", "message")

    def show_findings(self, findings: list[Finding]) -> None:
        self.clear()
        self.findings = list(findings)
        for finding in self.findings:
            where = f"{finding.conversation or '-'} turn {finding.turn}" if finding.turn is not None \
                else f"exchange {finding.exchange}"
            self.add_row(Text(f" {finding.severity} ", BADGE_STYLES[finding.severity]),
                         Text(finding.code, "bold"), Text(finding.name), Text(where),
                         safe(finding.message))

    def select_index(self, index: int) -> None:
        if self.findings:
            self.move_cursor(row=index % len(self.findings))
            self.post_message(self.Chosen(self.findings[index % len(self.findings)]))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.findings):
            self.post_message(self.Chosen(self.findings[event.cursor_row]))
