"""ToolDbgApp and `make_app`, the one factory the CLI, the tests and the screenshot script share."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.worker import get_current_worker

from ..errors import ToolDbgError
from ..follow import Follower
from ..render import clean
from ..scan import skipped_line
from .commands import ToolDbgCommands
from .preview import first_record
from .screens.export import ExportScreen
from .screens.help import HelpScreen
from .screens.main import MainScreen
from .screens.search import SearchIndex, SearchScreen
from .session import Location, Session, load_session
from .widgets.follow_status import FollowStatus

#: The longest the load waits for the preview's frame (seconds): a frame comes well within it.
PAINT_WAIT = 2.0
#: Seconds between two looks at a followed file that had nothing new.
FOLLOW_POLL = 0.2


class ToolDbgApp(App):
    CSS_PATH = "tooldbg.tcss"
    TITLE = "tooldbg"
    COMMANDS = App.COMMANDS | {ToolDbgCommands}
    BINDINGS = [
        Binding("e", "export", "Export"),
        Binding("x", "fix", "Fix: export with the safe repairs, each listed first", show=False),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("t", "toggle_dark", "Dark/light theme", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, paths: Sequence[str | Path], input_format: str | None = None,
                 follow: bool = False) -> None:
        super().__init__()
        self.paths = list(paths)
        self.input_format = input_format
        #: Show the one file as another process appends to it (`open --follow`, `record --open`).
        self.follow = follow
        self.session: Session | None = None
        self._search_index: SearchIndex | None = None

    def on_mount(self) -> None:
        self.push_screen(MainScreen(following=clean(str(self.paths[0])) if self.follow else None))
        self.sub_title = clean(", ".join(str(p) for p in self.paths))
        if self.follow:
            self.follow_file()
        else:
            self.load_session()

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False)
    def follow_file(self) -> None:
        """Read what the recording appends, as it is appended (`follow.Follower`: from the offset
        reached, never the whole file again), and hand each grown session to the interface. The
        hand-over waits for the interface to take it, so a burst of exchanges is read in batches."""
        worker = get_current_worker()
        follower = Follower(self.paths[0], self.input_format)
        exchanges = 0
        while not worker.is_cancelled:
            try:
                update = follower.poll()
            except ToolDbgError as err:
                self.call_from_thread(self.note_follow, str(err))
                update = None
            if update is None:
                time.sleep(FOLLOW_POLL)
                continue
            exchanges = len(update.loaded.reads)
            session = Session([update.loaded], update.findings)
            try:
                self.call_from_thread(self._followed, session, exchanges)
            except RuntimeError:  # the app is closing
                return

    def _followed(self, session: Session, exchanges: int) -> None:
        self.session = session
        self._search_index = None
        main = self._main()
        if main is not None:
            main.follow(session, exchanges)
        self.refresh_bindings()

    def note_follow(self, note: str) -> None:
        """A line for the status line (the recorded command's exit, a file that cannot be read)."""
        main = self._main()
        if main is not None and main.following is not None:
            main.query_one(FollowStatus).note = note

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_session(self) -> None:
        """Read, stitch and check off the UI thread, reporting progress per exchange. A large log's
        first exchange is read and shown first (`preview`), so a conversation is on screen in
        milliseconds while the rest loads."""
        screen = self.screen

        def progress(_path: str, done: int, total: int) -> None:
            if isinstance(screen, MainScreen):
                self.call_from_thread(screen.show_progress, done, total)

        first = first_record(self.paths, self.input_format)
        if first is not None and isinstance(screen, MainScreen):
            # The rest waits until the preview is painted: reading holds the interpreter in long
            # stretches (parsing a large record), which would delay that frame by as much.
            painted = threading.Event()
            self.call_from_thread(screen.show_preview, Session([first]), painted.set)
            painted.wait(PAINT_WAIT)
        outcome = load_session(self.paths, self.input_format, progress)
        if outcome.session is None:
            self.call_from_thread(self._not_loaded, outcome.error or "nothing could be loaded")
            return
        self.call_from_thread(self._loaded, outcome.session)

    def _not_loaded(self, message: str) -> None:
        """Nothing to show: the message replaces the progress bar, and stays in a notification."""
        self.notify(clean(message), title="unreadable", severity="error", timeout=30, markup=False)
        if isinstance(self.screen, MainScreen):
            self.screen.show_load_error(message)

    def _loaded(self, session: Session) -> None:
        self.session = session
        self._search_index = None
        self._notify_unreadable(session)
        said = skipped_line(session.skipped,
                            sum(loaded.skipped for loaded in session.files if loaded.conversations))
        if said:
            self.notify(clean(said), title="skipped", markup=False)
        if isinstance(self.screen, MainScreen):
            self.screen.show_session(session)
        self.refresh_bindings()

    def _notify_unreadable(self, session: Session) -> None:
        """One notification for whatever could not be read, however many files or records that is
        (the tree marks each file; its overview lists the errors)."""
        errors = [err for loaded in session.files for err in loaded.errors]
        if not errors:
            return
        if len(errors) == 1:
            self.notify(clean(str(errors[0])), title="unreadable", severity="error", markup=False)
            return
        files = sum(1 for loaded in session.files if loaded.errors)
        what = f"{files} of {len(session.files)} files" if len(session.files) > 1 else "1 file"
        self.notify(f"{what}: {len(errors)} errors (marked in the tree). First: {clean(str(errors[0]))}",
                    title="unreadable", severity="error", timeout=15, markup=False)

    # ---------------------------------------------------------------- dialogs: export, search, help

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Export and search act on the main screen's session: hidden elsewhere, dimmed while
        the session loads."""
        if action in ("export", "fix", "search"):
            if not isinstance(self.screen, MainScreen):
                return False
            return True if self.session is not None else None
        return True

    def _main(self) -> MainScreen | None:
        return next((s for s in reversed(self.screen_stack) if isinstance(s, MainScreen)), None)

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            from .screens.diff import DiffScreen

            over = self.screen if isinstance(self.screen, DiffScreen) else self._main()
            self.push_screen(HelpScreen(over))

    def action_search(self) -> None:
        main = self._main()
        if self.session is None or main is None or self.screen is not main:
            return
        self.push_screen(SearchScreen(self.session, self._search_index), self._searched)

    def _searched(self, location: Location | None) -> None:
        main = self._main()
        if location is not None and main is not None:
            main.go_to(location)

    @on(SearchScreen.Indexed)
    def _keep_index(self, event: SearchScreen.Indexed) -> None:
        if event.session is self.session:
            self._search_index = event.index

    def action_fix(self) -> None:
        self.action_export(repairs=True)

    def action_export(self, repairs: bool = False) -> None:
        main = self._main()
        if self.session is None or main is None or self.screen is not main:
            return
        location = main.location or Location(0)
        if not self.session.files[location.file].conversations:
            self.notify("nothing to export: this file holds no conversation", severity="warning")
            return
        self.push_screen(ExportScreen(self.session, location, repairs=repairs))


def make_app(paths: Sequence[str | Path], input_format: str | None = None,
             follow: bool = False) -> ToolDbgApp:
    return ToolDbgApp(paths, input_format, follow)
