"""Every finding of the session in a table; choosing one moves the other views to it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import DataTable

from ...checks import Finding
from ...render import safe
from .turn_tree import BADGE_STYLES


class FindingsPanel(DataTable):
    """Cells are `Text`, never `str`: DataTable would parse a `str` cell as markup. Messages are cut
to the panel's width (the canonical view explains the selected finding in full), so the table
never scrolls sideways."""

    HEADERS = ("severity", "code", "rule", "where", "message")

    class Chosen(Message):
        def __init__(self, finding: Finding, index: int = -1) -> None:
            super().__init__()
            self.finding = finding
            self.index = index
            """The finding's row in the panel."""

    def __init__(self, **kwargs) -> None:  # noqa: ANN003
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.findings: list[Finding] = []
        self._laid_out_for = 0

    def on_mount(self) -> None:
        if not self.columns:
            self.add_columns(*self.HEADERS)
        self.border_title = "findings"

    def show_findings(self, findings: list[Finding]) -> None:
        row = self.cursor_row if findings == self.findings else 0
        self.clear(columns=True)  # columns keep the widest cell they ever held
        self.add_columns(*self.HEADERS)
        self.findings = list(findings)
        rows = [(Text(f" {f.severity} ", BADGE_STYLES[f.severity]), Text(f.code, "bold"),
                 Text(f.name), where(f)) for f in self.findings]
        room = self._message_room(rows)
        for finding, cells in zip(self.findings, rows, strict=True):
            message = safe(finding.message)
            if room is not None:
                message.truncate(room, overflow="ellipsis")
            self.add_row(*cells, message)
        if row:
            self.move_cursor(row=row, scroll=True)
        counts = Counter(f.severity for f in self.findings)
        summary = ", ".join(f"{counts[s]} {s}" for s in ("error", "warning", "info") if counts[s])
        self.border_title = f"findings  {summary or 'none'}"

    def _message_room(self, rows: Sequence[tuple[Text, ...]]) -> int | None:
        """Cells left for the message column, once the others (and cell padding) are laid out."""
        width = self.scrollable_content_region.width
        self._laid_out_for = width
        if width <= 0:
            return None
        fixed = [max([len(header), *(cells[c].cell_len for cells in rows)])
                 for c, header in enumerate(self.HEADERS[:-1])]
        padding = 2 * self.cell_padding * len(self.HEADERS)
        return max(len(self.HEADERS[-1]), width - sum(fixed) - padding - 1)

    def on_resize(self, _event: events.Resize) -> None:
        if self.findings and self.scrollable_content_region.width != self._laid_out_for:
            self.show_findings(self.findings)

    def select_index(self, index: int) -> None:
        """Move the cursor to a finding (wrapping around) and announce it as chosen."""
        if self.findings:
            index %= len(self.findings)
            self.move_cursor(row=index)
            self.post_message(self.Chosen(self.findings[index], index))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.findings):
            self.post_message(self.Chosen(self.findings[event.cursor_row], event.cursor_row))


def where(finding: Finding) -> Text:
    if finding.turn is None:
        text = f"exchange {finding.exchange}" if finding.exchange is not None else "file"
    else:
        text = f"{finding.conversation or '-'} turn {finding.turn}"
        if finding.part is not None:
            text += f" part {finding.part}"
    return safe(text)
