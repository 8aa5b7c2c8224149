"""The one main screen: tree | canonical view over wire view | findings. It mediates: widgets post
messages up, the screen sets what each widget shows."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar

from ...render import safe
from ..session import Location, Session
from ..widgets.canonical_view import CanonicalView, links
from ..widgets.findings_panel import FindingsPanel
from ..widgets.turn_tree import TurnTree
from ..widgets.wire_view import WireView


class MainScreen(Screen):
    BINDINGS = [
        ("n", "next_finding", "Next finding"),
        ("N", "previous_finding", "Prev finding"),
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
        if conversation is None or turn is None:
            loaded = session.files[location.file]
            canonical.clear(f"{loaded.path}: {len(loaded.conversations)} conversations, "
                            f"{len(loaded.reads)} exchanges")
            wire.show_wire(Text(""), None)
            return
        key = (location.file, conversation.id)
        if key not in self._links:
            self._links[key] = links(conversation)
        findings = session.findings_at(location.file, conversation.id, location.turn)
        canonical.show(conversation, location.turn or 0, turn, findings, self._links[key])
        loaded = session.files[location.file]
        source = turn.source
        title = safe(f"wire  exchange {source.exchange} {source.side or ''} {source.address}", "bold")
        wire.show_wire(title, loaded.wire_at(source.exchange, source.side, source.pointer, source.chunk))

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
