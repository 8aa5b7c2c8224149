"""Help (`?`): every key, read from the live bindings (so a key added anywhere shows up here), and
what each pane of the main screen shows."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

#: What each pane shows, by the id the main screen gives it.
PANES: tuple[tuple[str, str, str], ...] = (
    ("tree", "Tree",
     "Files → conversations → turns. Each turn shows its index, its role and its first part; a badge "
     "gives the number of findings on it and the worst severity (red error, yellow warning, cyan "
     "info). Moving the cursor selects the turn in every other pane."),
    ("canonical", "Canonical view",
     "The selected turn in tooldbg's canonical form: its parts in order (text, call, result, "
     "reasoning, media, opaque provider blocks). A call says which turn holds its result, or "
     "'unanswered' in red; a result says which turn holds its call, or 'orphan' in red; failed "
     "results are marked ERROR; parts with findings carry their badge."),
    ("wire", "Wire view",
     "The JSON record the turn was read from (exchange, request or response side, location in the "
     "file), pretty-printed and highlighted, the offending JSON path marked and scrolled into view; "
     "for a streamed response, the stream fragments with the one that broke assembly marked. The "
     "format switch shows the same turn re-serialized in another provider's format, with what that "
     "writer could not carry listed under it. API keys are masked."),
    ("findings", "Findings",
     "Every finding of the session: severity, rule code and name, where, and the message. Choosing "
     "one moves the tree, the canonical view and the wire view to it; r writes the chosen finding's log "
     "shrunk to a small one that still shows it, keys masked, for a bug report (`tooldbg repro`); "
     "`tooldbg rules CODE` explains a rule with a bad and a good example."),
)

DIALOGS: tuple[tuple[str, str], ...] = (
    ("Export", "Pick a format (a wire format, canonical or a provider profile) and a path. The "
     "losses and the TD8xx pre-flight are listed before anything is written; ctrl+s (or enter in "
     "the path) writes. An existing file is replaced only after you confirm, an input never; "
     "secrets are masked unless you untick the box. Tick Repairs (x opens it ticked) to make the "
     "safe repairs first, each listed with what it changes, and what needs a guess with the reason; "
     "what the format would write empty is never written."),
    ("Search", "Type to search text, tool names, arguments, result content and ids across every "
     "turn; enter (or choosing a match) jumps to its turn."),
    ("Diff", "With two logs open (the client's and the upstream side of a relay), d shows the selected "
     "conversation beside its counterpart in the other file, turn by turn as `tooldbg diff A B` aligns "
     "them: a part the other side lost is marked lost, the gap on the side that lacks it is said there, "
     "changed parts are marked; each difference is in the panel below (n/N, enter), esc goes back."),
    ("Command palette", "Every action by name: export, search, next finding, wire format, go to a "
     "conversation, diff, dark/light theme."),
)


#: Actions every scrolling pane has; the help names them once instead of under every pane.
_SCROLLING = ("scroll_", "page_")
_ARROWS = ("up", "down", "left", "right")


def bindings_of(node: DOMNode | type[DOMNode], *, inherited: bool = True) -> list[Binding]:
    """The bindings of `node`'s class (and its bases), a subclass's key overriding its base's, in
    declaration order; only those with a description."""
    cls = node if isinstance(node, type) else type(node)
    merged: dict[str, Binding] = {}
    for klass in reversed(cls.__mro__) if inherited else (cls,):
        for binding in Binding.make_bindings(klass.__dict__.get("BINDINGS", ())):
            merged.pop(binding.key, None)
            merged[binding.key] = binding
    return [b for b in merged.values() if b.description]


class HelpScreen(ModalScreen[None]):
    """Built from the screen it was opened over (the main screen), so it lists that screen's keys."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", key_display="?"),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, underneath: Screen | None = None) -> None:
        super().__init__()
        self.underneath = underneath

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog") as dialog:
            dialog.border_title = "tooldbg help"
            dialog.border_subtitle = "esc, ? or q close"
            with VerticalScroll(id="help-body"):
                yield Static(self.render_help(), id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def keys_table(self, bindings: Iterable[Binding]) -> Table | None:
        """One row per action: its keys (`q, ^q`) and what it does."""
        rows: dict[str, list[str]] = {}
        for binding in bindings:
            keys = rows.setdefault(binding.description, [])
            key = self.app.get_key_display(binding)
            if key not in keys:
                keys.append(key)
        if not rows:
            return None
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", width=14)
        table.add_column(ratio=1)
        for description, keys in rows.items():
            table.add_row(Text(", ".join(keys)), Text(description))
        return table

    def section(self, title: str, text: str | None, bindings: Iterable[Binding]) -> list:  # noqa: ANN401
        out: list = [Text(title, "bold underline")]
        if text:
            out.append(Text(text))
        table = self.keys_table(bindings)
        if table is not None:
            out.append(table)
        out.append(Text(""))
        return out

    def render_help(self) -> Group:
        app, underneath = self.app, self.underneath
        everywhere = bindings_of(app)
        if app.ENABLE_COMMAND_PALETTE:
            everywhere.append(Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "Command palette"))
        everywhere += [Binding("tab", "focus_next", "Next pane"),
                       Binding("shift+tab", "focus_previous", "Previous pane"),
                       Binding("up", "scroll", "Move / scroll (and home, end, pgup, pgdn)",
                               key_display="↑ ↓ ← →")]
        rows: list = self.section("Everywhere", None, everywhere)
        screen_keys: set[str] = set()
        if underneath is not None:
            screen_bindings = bindings_of(underneath, inherited=False)
            screen_keys = {b.key for b in screen_bindings}
            rows += self.section(getattr(underneath, "HELP_TITLE", "Main screen"), None, screen_bindings)
        for pane_id, name, what in PANES:
            keys: list[Binding] = []
            if underneath is not None:
                found = underneath.query(f"#{pane_id}")
                if found:  # a pane's keys the screen binds too work anywhere: listed above
                    keys = [b for b in bindings_of(found.first())
                            if not b.action.startswith(_SCROLLING) and b.key not in _ARROWS
                            and b.key not in screen_keys]
            rows += self.section(name, what, keys)
        rows.append(Text("Dialogs", "bold underline"))
        for name, what in DIALOGS:
            rows.append(Text.assemble((name, "bold"), "  ", what))
        rows.append(Text("In a dialog: tab moves between fields, enter confirms, esc closes.", "dim"))
        return Group(*rows)
