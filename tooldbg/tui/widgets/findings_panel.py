"""Every finding of the session in a table; choosing one moves the other views to it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import DataTable

from ...checks.base import Finding
from ...render import safe
from ..session import file_names
from .turn_tree import BADGE_STYLES


class FindingsPanel(DataTable):
    """Cells are `Text`, never `str`: DataTable would parse a `str` cell as markup. Messages are cut
to the panel's width (the canonical view explains the selected finding in full), so the table
never scrolls sideways. With several files open, a `file` column says whose finding it is (`c1`
is in every file)."""

    HEADERS = ("severity", "code", "rule", "where", "message")
    FILE_HEADERS = ("severity", "code", "rule", "file", "where", "message")
    #: The widest file name shown (longer ones end in "…"), the narrowest, and the message cells the
    #: file column leaves at least when the panel is narrow.
    FILE_WIDTH, FILE_MIN, MESSAGE_MIN = 28, 8, 16

    class Chosen(Message):
        def __init__(self, finding: Finding, index: int = -1) -> None:
            super().__init__()
            self.finding = finding
            self.index = index
            """The finding's row in the panel."""

    def __init__(self, label: str = "findings", **kwargs) -> None:  # noqa: ANN003
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.label = label
        """The panel's title: `findings`, or `differences` on the diff screen."""
        self.findings: list[Finding] = []
        self.headers: tuple[str, ...] = self.HEADERS
        self._file_names: dict[str, str] = {}
        self._laid_out_for = 0

    def on_mount(self) -> None:
        if not self.columns:
            self.add_columns(*self.HEADERS)
        self.border_title = self.label

    def show_findings(self, findings: list[Finding], files: Sequence[str] | None = None,
                      selected: Finding | None = None) -> None:
        """`files`: the paths of the session's files (a file column when there are several); the
        last ones given are kept when the panel lays itself out again. The cursor stays on its row
        when the findings are the same; on `selected` when that is among new ones; else it goes to
        the first."""
        if files is not None:
            self._file_names = file_names(files) if len(files) > 1 else {}
        self.headers = self.FILE_HEADERS if self._file_names else self.HEADERS
        if findings == self.findings:
            row = self.cursor_row
        else:
            row = findings.index(selected) if selected is not None and selected in findings else 0
        self.findings = list(findings)
        rows = [self._cells(f) for f in self.findings]
        if self._file_names:
            self._fit_file_names(rows)
        fixed = self._widths(rows)
        room = self._message_room(fixed)
        messages = [safe(f.message) for f in self.findings]
        if room is not None:
            for message in messages:
                message.truncate(room, overflow="ellipsis")
        widths = [*fixed, max([len(self.headers[-1]), *(m.cell_len for m in messages)])]
        # Columns get their widths now (a column left to measure itself would do it when the app is
        # next idle: a frame drawn before that shows every column at its header's width).
        self.clear(columns=True)
        for header, width in zip(self.headers, widths, strict=True):
            self.add_column(header, width=width)
        for cells, message in zip(rows, messages, strict=True):
            self.add_row(*cells, message)
        if row:
            self.move_cursor(row=row, scroll=True)
        counts = Counter(f.severity for f in self.findings)
        summary = ", ".join(f"{counts[s]} {s}" for s in ("error", "warning", "info") if counts[s])
        self.border_title = f"{self.label}  {summary or 'none'}"

    def _cells(self, finding: Finding) -> tuple[Text, ...]:
        cells = [Text(f" {finding.severity} ", BADGE_STYLES[finding.severity]), Text(finding.code, "bold"),
                 Text(finding.name)]
        if self._file_names:
            cells.append(safe(self._file_names.get(finding.path, finding.path), "dim"))
        cells.append(where(finding))
        return tuple(cells)

    def _fit_file_names(self, rows: Sequence[tuple[Text, ...]]) -> None:
        """Cut the file names to what the panel can spare, so it never scrolls sideways."""
        column = self.headers.index("file")
        room = self.FILE_WIDTH
        width = self.scrollable_content_region.width
        if width > 0:
            others = sum(max([len(header), *(cells[c].cell_len for cells in rows)])
                         for c, header in enumerate(self.headers[:-1]) if c != column)
            padding = 2 * self.cell_padding * len(self.headers)
            room = max(self.FILE_MIN, min(room, width - others - padding - 1 - self.MESSAGE_MIN))
        for cells in rows:
            cells[column].truncate(room, overflow="ellipsis")

    def _widths(self, rows: Sequence[tuple[Text, ...]]) -> list[int]:
        """The width of each column but the message: its widest cell or its header."""
        return [max([len(header), *(cells[c].cell_len for cells in rows)])
                for c, header in enumerate(self.headers[:-1])]

    def _message_room(self, fixed: Sequence[int]) -> int | None:
        """Cells left for the message column, once the others (and cell padding) are laid out;
        None before the panel has a width (the column then measures its cells)."""
        width = self.scrollable_content_region.width
        self._laid_out_for = width
        if width <= 0:
            return None
        padding = 2 * self.cell_padding * len(self.headers)
        return max(len(self.headers[-1]), width - sum(fixed) - padding - 1)

    def on_resize(self, _event: events.Resize) -> None:
        self._refit()

    def _watch_show_vertical_scrollbar(self) -> None:
        """A scrollbar coming or going changes the room without a Resize: fit again once laid out."""
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
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
