"""The one main screen: tree | canonical view over wire view | findings. It mediates: widgets post
messages up, the screen sets what each widget shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar

from ...chains import unseen_start
from ...checks.base import Finding
from ...diff import diff
from ...diff.results import Diff
from ...errors import ToolDbgError
from ...render import clean, visible
from ...writing import write_atomically
from ..session import Location, Session
from ..widgets.canonical_view import CanonicalView, links
from ..widgets.findings_panel import FindingsPanel
from ..widgets.follow_status import FollowStatus
from ..widgets.turn_tree import TurnTree
from ..widgets.wire_focus import focus_for
from ..widgets.wire_view import WireView


class MainScreen(Screen):
    BINDINGS = [
        ("n", "next_finding", "Next finding"),
        Binding("N", "previous_finding", "Prev finding", show=False),
        Binding("f", "next_format", "Wire format"),
        Binding("F", "previous_format", "Prev format", show=False),
        # The wire view's own keys, wherever the focus is on this screen.
        Binding("s", "toggle_fragments", "Wire view: stream events ↔ assembled JSON", show=False),
        Binding("w", "toggle_wrap", "Wire view: wrap ↔ scroll sideways", show=False),
        # With several files open: the selected conversation beside its counterpart in another file
        # (off the footer, which keeps ? and q in view at 80x24: the help and the palette name it).
        Binding("d", "diff", "Diff with the other file", show=False),
        Binding("r", "repro", "Reproduce the chosen finding in a small log (tooldbg repro)", show=False),
    ]

    def __init__(self, following: str | None = None) -> None:
        super().__init__()
        #: The recording shown as it grows (`open --follow`), or None.
        self.following = following
        self.session: Session | None = None
        self.location: Location | None = None
        self.finding_index = -1
        self._links: dict[tuple[int, str], tuple[dict, dict]] = {}
        #: Where the preview put the cursor (None once the whole session is shown).
        self._previewed: Location | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield ProgressBar(id="progress", show_eta=False)
        with Horizontal(id="panes"):
            yield TurnTree(id="tree")
            with Vertical(id="views"):
                yield CanonicalView(id="canonical")
                yield WireView(id="wire")
        yield FindingsPanel(id="findings")
        if self.following is not None:
            yield FollowStatus(self.following, id="follow-status")
        yield Footer()

    def on_mount(self) -> None:
        if self.following is not None:  # nothing to load: exchanges come as they are appended
            self.query_one("#progress", ProgressBar).display = False
            self.query_one(CanonicalView).clear(f"waiting for the first exchange in {self.following}")

    def show_progress(self, done: int, total: int) -> None:
        bar = self.query_one("#progress", ProgressBar)
        bar.update(total=max(total, 1), progress=done)

    def show_load_error(self, message: str) -> None:
        """The load failed as a whole: no progress bar left spinning, the reason in the view."""
        self.query_one("#progress", ProgressBar).display = False
        self.query_one(CanonicalView).clear(message)

    def show_preview(self, session: Session, painted: Callable[[], None]) -> None:
        """The start of a large log while the rest loads (see `preview`): its first conversation,
        first turn selected; no findings yet, and the progress bar stays. `painted` is called once
        the frame showing it is drawn."""
        # a small file's first record can beat the mount
        if not any(view.is_mounted for view in self.query(CanonicalView)):
            self.call_after_refresh(self.show_preview, session, painted)
            return
        self.call_after_refresh(painted)
        if self.session is not None:  # the whole session came first
            return
        self.session = session
        self.query_one(TurnTree).show_session(session)
        first = session.files[0].conversations[0]
        self.go_to(Location(0, first.id, 0))
        self._previewed = self.location
        self.query_one(TurnTree).focus()

    def show_session(self, session: Session) -> None:
        moved = self.location if self._previewed is not None and self.location != self._previewed else None
        self._previewed = None
        self.session = session
        self._links.clear()  # the preview's conversations are not the session's
        self.query_one("#progress", ProgressBar).display = False
        self.query_one(TurnTree).show_session(session)
        self.query_one(FindingsPanel).show_findings(session.findings, [f.path for f in session.files])
        first = next(((i, c.id) for i, f in enumerate(session.files) for c in f.conversations), None)
        if moved is not None and session.turn(moved) is not None:
            self.go_to(moved)  # the user went on reading the preview: the same turn, now in full
        elif session.findings:
            self.finding_index = session.first_finding()
            self.query_one(FindingsPanel).select_index(self.finding_index)
        elif first is not None:
            self.go_to(Location(first[0], first[1], 0))
        self.query_one(TurnTree).focus()

    def follow(self, session: Session, exchanges: int) -> None:
        """The followed recording, read further: the tree, the findings and the status line grow in
        place; the cursor, the chosen finding and the views stay where the user put them (the views
        are drawn again only when what they show changed)."""
        status = self.query_one(FollowStatus)
        status.exchanges = exchanges
        counts = Counter(f.severity for f in session.findings)
        status.findings = (counts["error"], counts["warning"], counts["info"])
        status.unreadable = sum(len(loaded.errors) for loaded in session.files)
        before, location = self.session, self.location
        if before is None or not any(loaded.conversations for loaded in before.files):
            if any(loaded.conversations for loaded in session.files):
                self.show_session(session)
            else:
                self.session = session
                self.query_one(TurnTree).show_session(session)
            return
        panel = self.query_one(FindingsPanel)
        chosen = panel.findings[self.finding_index] if 0 <= self.finding_index < len(panel.findings) else None
        self.session = session
        self._links.clear()  # (a grown conversation links its new turns)
        self.query_one(TurnTree).grow(session)
        panel.show_findings(session.findings, [f.path for f in session.files], selected=chosen)
        self.finding_index = session.findings.index(chosen) if chosen in session.findings else -1
        if location is None:
            return
        if _shown(before, location) != _shown(session, location):
            self.refresh_views()

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
        reads = session.files[location.file].reads_of(conversation.id)
        mid_way = unseen_start(conversation, reads) is not None
        canonical.show(conversation, location.turn or 0, turn, findings, self._links[key], mid_way=mid_way)

    def on_turn_tree_selected(self, event: TurnTree.Selected) -> None:
        if event.location != self.location:
            self.location = event.location
            self.refresh_views()
            # The same frame as the tree's cursor: Textual paints as soon as the screen has no
            # message left, and the views' own requests to repaint (or the canonical view's to be
            # laid out at its new height) would reach it only after that frame. A layout here
            # repaints both views (it moves them); else their regions are marked.
            canonical = self.query_one(CanonicalView)
            if canonical.height_changed:
                self.refresh(layout=True)
            else:
                self.refresh(canonical.region, self.query_one(WireView).region)

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

    # -- diff: the selected conversation beside its counterpart in the other file

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`d` only with several files open (off the footer otherwise)."""
        if action == "diff":
            return self.session is not None and len(self.session.files) > 1
        return True

    def action_diff(self) -> None:
        """Compare the selected conversation (the first of the selected file when none is) with the
        file after it (the first file, after the last): sides a and b in the order the files were
        opened, as `tooldbg diff A B` takes them. The comparison runs in a worker."""
        session = self.session
        if session is None or len(session.files) < 2:
            return
        file = self.location.file if self.location is not None else 0
        conversation = self.location.conversation if self.location is not None else None
        conversations = session.files[file].conversations
        if conversation is None and conversations:
            conversation = conversations[0].id
        other = next((i % len(session.files) for i in range(file + 1, file + len(session.files))
                      if session.files[i % len(session.files)].conversations), None)
        if conversation is None or other is None:
            self.notify("nothing to compare: diff needs a conversation in two files", severity="warning")
            return
        a, b = sorted((file, other))
        self.run_worker(partial(self._compare, session, a, b, "a" if file == a else "b", conversation),
                        thread=True, exclusive=True, group="diff", exit_on_error=False)

    def _compare(self, session: Session, a: int, b: int, side: str, conversation: str) -> None:
        result = diff(session.files[a], session.files[b], own=False)
        self.app.call_from_thread(self._show_diff, result, side, conversation)

    def _show_diff(self, result: Diff, side: str, conversation: str) -> None:
        from .diff import DiffScreen

        pairing = result.pairing(side, conversation)
        if pairing is None:
            other = result.b if side == "a" else result.a
            self.notify(clean(f"no conversation in {other.path} matches {conversation}"), severity="warning",
                        markup=False)
            return
        self.app.push_screen(DiffScreen(result, pairing))

    # -- repro: the chosen finding's log shrunk to a small one that still shows it

    def action_repro(self) -> None:
        """Write the chosen finding's log shrunk to a small one that still shows that finding,
        credentials masked (`tooldbg repro`), to the working folder; the shrinking runs in a
        worker and says when it is done."""
        panel = self.query_one(FindingsPanel)
        if not 0 <= self.finding_index < len(panel.findings):
            self.notify("choose a finding first (n, or a row of the findings panel)", severity="warning")
            return
        finding = panel.findings[self.finding_index]
        self.notify(clean(f"shrinking {finding.path} to a log that shows this {finding.code} finding…"),
                    title="repro", markup=False)
        self.run_worker(partial(self._repro, finding, getattr(self.app, "input_format", None)),
                        thread=True, exclusive=True, group="repro", exit_on_error=False)

    def _repro(self, finding: Finding, input_format: str | None) -> None:
        from ...repro import shrink

        source = Path(finding.path)
        try:
            shrunk = shrink(finding.path, source.read_bytes(), finding.code, input_format=input_format,
                            keep=finding)
            path = repro_path(finding.path, finding.code)
            write_atomically(path, shrunk.text, inputs=[source])
        except (ToolDbgError, OSError) as err:
            self.app.call_from_thread(self.notify, clean(f"not reproduced: {err}"), title="repro",
                                      severity="error", markup=False)
            return
        said = (f"wrote {path.resolve()}: {finding.code} in {shrunk.records} of {shrunk.records_before} "
                f"records, {len(shrunk.text.encode())} of {shrunk.size_before} bytes, credentials masked")
        self.app.call_from_thread(self.notify, clean(said), title="repro", markup=False)

    # -- the wire view's format switch: source → openai-chat → … → bedrock → source

    def action_next_format(self) -> None:
        self.query_one(WireView).cycle_format(1)

    def action_previous_format(self) -> None:
        self.query_one(WireView).cycle_format(-1)

    def action_toggle_fragments(self) -> None:
        self.query_one(WireView).action_toggle_fragments()

    def action_toggle_wrap(self) -> None:
        self.query_one(WireView).action_toggle_wrap()

    def set_wire_format(self, name: str) -> None:
        """Show the selected turn as `name` ("source" or a wire format); the command palette's entry."""
        self.query_one(WireView).set_format(name)


def repro_path(input_path: str, code: str) -> Path:
    """`<input stem>.<CODE>.repro<suffix>` in the working folder (as the export dialog's paths, never
    beside the input), uncompressed (`.zhar` → `.har`, `.jsonl.zst` → `.jsonl`), with `-2`, `-3`, …
    before the suffix when the name is taken: nothing is overwritten."""
    source = Path(input_path)
    name = source.name.removesuffix(".zst")
    stem, suffix = (name.rsplit(".", 1)[0], "." + name.rsplit(".", 1)[1]) if "." in name else (name, "")
    suffix = ".har" if suffix == ".zhar" else suffix
    path = Path(visible(f"{stem}.{code}.repro{suffix}"))
    number = 1
    while path.exists():
        number += 1
        path = Path(visible(f"{stem}.{code}.repro-{number}{suffix}"))
    return path


def _shown(session: Session, location: Location) -> tuple[object, ...]:
    """What the views show at `location`, compared by identity: the turn (or, for a conversation
    or a file as a whole, the conversation or the file's read count) and the findings on it."""
    turn = session.turn(location)
    whole = session.conversation(location) if location.turn is None else None
    reads = len(session.files[location.file].reads) if location.conversation is None else None
    findings = session.findings_at(location.file, location.conversation, location.turn)
    return (id(turn), id(whole), reads, tuple(findings))
