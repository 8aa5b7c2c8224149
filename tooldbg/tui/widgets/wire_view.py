"""The wire JSON a turn came from, syntax-highlighted, the offending path highlighted."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...jsonio import dumps_str
from ...secrets import redact_text


class WireView(VerticalScroll):
    def compose(self):  # noqa: ANN201
        yield Static(id="wire-body")

    def show_wire(self, title: Text, value: Any, notes: list[Text] | None = None) -> None:
        text = redact_text(dumps_str(value, indent=True)) if value is not None else ""
        body = Syntax(text, "json", theme="ansi_dark", word_wrap=True) if value is not None \
            else Text("(no wire record)", "dim")
        self.query_one("#wire-body", Static).update(Group(title, body, *(notes or [])))
        self.scroll_home(animate=False)
