"""The one main screen: tree | canonical view over wire view | findings. It mediates: widgets post
messages up, the screen sets what each widget shows."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar

from ..session import Location, Session
from ..widgets.canonical_view import CanonicalView, links
from ..widgets.findings_panel import FindingsPanel
from ..widgets.turn_tree import TurnTree
from ..widgets.wire_view import WireView, focus_for


class MainScreen(Screen):
    BINDINGS = [
        ("n", "next_finding", "Next finding"),
        ("N", "previous_finding", "Prev finding"),
        Binding("f", "next_format", "Wire format"),
        Binding("F", "previous_format", "Prev format", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self.location: Location | None = None
        self.finding_index = -1
        self._links: dict[tuple[int, str], tuple[dict, dict]] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield ProgressBar(id="progress", show_eta=False)
        with Horizontal(id="panes"):
            yield TurnTree(id="tree")
            with Vertical(id="views"):
                yield CanonicalView(id="canonical")
                yield WireView(id="wire")
        yield FindingsPanel(id="findings")
        yield Footer()

    def show_progress(self, done: int, total: int) -> None:
        bar = self.query_one("#progress", ProgressBar)
        bar.update(total=max(total, 1), progress=done)

    def show_load_error(self, message: str) -> None:
        """The load failed as a whole: no progress bar left spinning, the reason in the view."""
        self.query_one("#progress", ProgressBar).display = False
        self.query_one(CanonicalView).clear(message)

    def show_session(self, session: Session) -> None:
        self.session = session
        self.query_one("#progress", ProgressBar).display = False
        self.query_one(TurnTree).show_session(session)
        self.query_one(FindingsPanel).show_findings(session.findings)
        first = next(((i, c.id) for i, f in enumerate(session.files) for c in f.conversations), None)
        if session.findings:
            self.query_one(FindingsPanel).select_index(0)
            self.finding_index = 0
        elif first is not None:
            self.go_to(Location(first[0], first[1], 0))
        self.query_one(TurnTree).focus()

    def go_to(self, location: Location) -> None:
        self.location = location
        self.query_one(TurnTree).select_location(location)
        self.refresh_views()

    def refresh_views(self) -> None:
        session, location = self.session, self.location
        if session is None or location is None:
            return
        canonical, wire = self.query_one(CanonicalView), self.query_one(WireView)
        conversation, turn = session.conversation(location), session.turn(location)
        chosen = self.query_one(FindingsPanel).findings  # the wire view marks the chosen finding
        finding = chosen[self.finding_index] if 0 <= self.finding_index < len(chosen) else None
        wire.show(focus_for(session, location, finding))
        if conversation is None or turn is None:  # a file or a conversation as a whole
            on_it = session.findings_at(location.file, conversation.id if conversation else None, None)
            canonical.show_overview(session.files[location.file], conversation, on_it)
            return
        key = (location.file, conversation.id)
        if key not in self._links:
            self._links[key] = links(conversation)
        findings = session.findings_at(location.file, conversation.id, location.turn)
        canonical.show(conversation, location.turn or 0, turn, findings, self._links[key])

    def on_turn_tree_selected(self, event: TurnTree.Selected) -> None:
        if event.location != self.location:
            self.location = event.location
            self.refresh_views()

    def on_findings_panel_chosen(self, event: FindingsPanel.Chosen) -> None:
        if self.session is None:
            return
        panel = self.query_one(FindingsPanel)
        self.finding_index = panel.findings.index(event.finding)
        self.go_to(self.session.location_of(event.finding))

    def action_next_finding(self) -> None:
        self.query_one(FindingsPanel).select_index(self.finding_index + 1)

    def action_previous_finding(self) -> None:
        self.query_one(FindingsPanel).select_index(self.finding_index - 1)

    # -- the wire view's format switch: source → openai-chat → … → bedrock → source

    def action_next_format(self) -> None:
        self.query_one(WireView).cycle_format(1)

    def action_previous_format(self) -> None:
        self.query_one(WireView).cycle_format(-1)

    def set_wire_format(self, name: str) -> None:
        """Show the selected turn as `name` ("source" or a wire format); the command palette's entry."""
        self.query_one(WireView).set_format(name)
