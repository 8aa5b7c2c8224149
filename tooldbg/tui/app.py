"""ToolDbgApp and `make_app`, the one factory the CLI, the tests and the screenshot script share."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding

from ..errors import ToolDbgError
from .screens.main import MainScreen
from .session import Session


class ToolDbgApp(App):
    CSS_PATH = "tooldbg.tcss"
    TITLE = "tooldbg"
    BINDINGS = [Binding("q", "quit", "Quit")]

    def __init__(self, paths: Sequence[str | Path], input_format: str | None = None) -> None:
        super().__init__()
        self.paths = list(paths)
        self.input_format = input_format
        self.session: Session | None = None

    def on_mount(self) -> None:
        self.push_screen(MainScreen())
        self.sub_title = ", ".join(str(p) for p in self.paths)
        self.load_session()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_session(self) -> None:
        """Read, stitch and check off the UI thread, reporting progress per exchange."""
        screen = self.screen

        def progress(_path: str, done: int, total: int) -> None:
            if isinstance(screen, MainScreen):
                self.call_from_thread(screen.show_progress, done, total)

        try:
            session = Session.load(self.paths, self.input_format, progress)
        except ToolDbgError as err:
            self.call_from_thread(self.notify, str(err), severity="error", timeout=30)
            return
        self.call_from_thread(self._loaded, session)

    def _loaded(self, session: Session) -> None:
        self.session = session
        for loaded in session.files:
            for err in loaded.errors:
                self.notify(str(err), title="unreadable", severity="error", markup=False)
        if isinstance(self.screen, MainScreen):
            self.screen.show_session(session)


def make_app(paths: Sequence[str | Path], input_format: str | None = None) -> ToolDbgApp:
    return ToolDbgApp(paths, input_format)
