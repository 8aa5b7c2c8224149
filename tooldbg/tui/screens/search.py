"""Search (`/`): one input over every turn of the session — text, tool names, arguments, result
content, reasoning and ids — listing the matches; choosing one moves the main screen to its turn.

The index is plain data built once per session off the UI thread (`SearchIndex.build`); each query is
a case-insensitive substring scan in a thread worker, and the list shows at most `LIMIT` matches in a
virtualized `OptionList`, so a 10,000-turn conversation costs one scan per key press, not a widget
per match. Log text is indexed as it is shown: control characters made visible, secrets masked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...jsonio import dumps_str
from ...model import Invocation, Json, Media, Opaque, Part, Reasoning, Result
from ...model import Text as TextPart
from ...render import ROLE_STYLES, clean
from ..session import Location, Session, file_names

#: The most matches listed; the count above the list still says how many there are.
LIMIT = 500
_BEFORE, _AFTER = 16, 80


@dataclass(frozen=True, slots=True)
class Entry:
    """One searchable field of one part: what it is (`tool`, `arguments`, `result`, `id`…) and its
    text as the screen shows it."""

    location: Location
    role: str
    field: str
    text: str
    folded: str


@dataclass(frozen=True, slots=True)
class Match:
    entry: Entry
    start: int
    end: int


def _shown(text: str) -> str:
    return clean(text)  # masked first, then escaped: an escape before a key would hide its start


def _content_text(parts: tuple[Part, ...]) -> str:
    out = []
    for part in parts:
        if isinstance(part, TextPart):
            out.append(part.text)
        elif isinstance(part, Json):
            out.append(dumps_str(part.value))
        elif isinstance(part, Media):
            out.append(" ".join(x for x in (part.media_type, part.url) if x))
        elif isinstance(part, Opaque):
            out.append(dumps_str(part.value))
        elif isinstance(part, Result):
            out.append(_content_text(part.content))
    return " ".join(out)


def part_fields(part: Part) -> Iterator[tuple[str, str]]:
    """(field, text) for everything of `part` a user may search for."""
    if isinstance(part, TextPart):
        yield "text", part.text
    elif isinstance(part, Invocation):
        yield "tool", part.name
        yield "arguments", part.raw_arguments if part.raw_arguments is not None \
            else dumps_str(part.arguments)
        yield "id", " ".join(x for x in (part.id, part.wire_id) if x)
    elif isinstance(part, Result):
        yield "result", _content_text(part.content)
        if part.name:
            yield "tool", part.name
        yield "id", " ".join(x for x in (part.invocation_id, part.wire_id) if x)
    elif isinstance(part, Reasoning):
        yield "reasoning", part.text or " ".join(part.summary)
    elif isinstance(part, Json):
        yield "json", dumps_str(part.value)
    elif isinstance(part, Media):
        yield part.kind, " ".join(x for x in (part.media_type, part.url, part.file_id) if x)
    elif isinstance(part, Opaque):
        yield "opaque", dumps_str(part.value)


class SearchIndex:
    """Every searchable field of every part of every turn in the session, in session order."""

    def __init__(self, entries: list[Entry], file_names: list[str]) -> None:
        self.entries = entries
        self.file_names = file_names

    @classmethod
    def build(cls, session: Session) -> SearchIndex:
        entries = []
        for f, loaded in enumerate(session.files):
            for conv in loaded.conversations:
                for t, turn in enumerate(conv.turns):
                    for p, part in enumerate(turn.parts):
                        where = Location(f, conv.id, t, p)
                        for name, raw in part_fields(part):
                            if raw:
                                text = _shown(raw)
                                entries.append(Entry(where, turn.role, name, text, text.casefold()))
        names = file_names([loaded.path for loaded in session.files])
        return cls(entries, [names[loaded.path] for loaded in session.files])

    def find(self, query: str, limit: int = LIMIT,
             cancelled: Callable[[], bool] = lambda: False) -> tuple[list[Match], int]:
        """The first `limit` parts matching `query` (one match per part) and how many match."""
        needle = query.casefold()
        if not needle:
            return [], 0
        matches: list[Match] = []
        seen: set[Location] = set()
        for n, entry in enumerate(self.entries):
            if n % 4096 == 0 and cancelled():
                break
            start = entry.folded.find(needle)
            if start < 0 or entry.location in seen:
                continue
            seen.add(entry.location)
            if len(matches) < limit:
                matches.append(Match(entry, start, start + len(needle)))
        return matches, len(seen)

    def label(self, match: Match, width: int = 0) -> Text:
        """`c1 turn 12 assistant tool  …get_weather…`, the match highlighted, one line. The file is
        not in it (with several files the list has a heading per file); with the list's `width`
        known, the context before the match shrinks so the match itself is always in view."""
        entry, where = match.entry, match.entry.location
        line = Text()
        line.append(f"{where.conversation} ", "bold")
        line.append(f"turn {where.turn} part {where.part}".ljust(16), "dim")
        line.append(f"{entry.role:9} ", ROLE_STYLES.get(entry.role, ""))
        line.append(f"{entry.field:9} ", "italic")
        before = _BEFORE
        if width > 0:  # room for "…", the context before, the match and "…"
            room = width - line.cell_len - (match.end - match.start) - 2
            before = max(0, min(_BEFORE, room))
        lo, hi = max(0, match.start - before), min(len(entry.text), match.end + _AFTER)
        snippet = Text(("…" if lo else "") + entry.text[lo:hi].replace("\n", " ").replace("\t", " ")
                       + ("…" if hi < len(entry.text) else ""))
        offset = match.start - lo + (1 if lo else 0)
        snippet.stylize("bold reverse", offset, offset + match.end - match.start)
        line.append_text(snippet)
        line.no_wrap = True
        line.overflow = "ellipsis"
        return line


class SearchScreen(ModalScreen[Location | None]):
    """Dismissed with the chosen match's location (None when cancelled)."""

    BINDINGS = [
        Binding("escape", "dismiss_search", "Close"),
        Binding("down", "focus_results", "Results", show=False),
    ]

    class Indexed(Message):
        """The session's index was built: the app keeps it for the next search."""

        def __init__(self, session: Session, index: SearchIndex) -> None:
            super().__init__()
            self.session = session
            self.index = index

    def __init__(self, session: Session, index: SearchIndex | None = None, query: str = "") -> None:
        super().__init__()
        self.session = session
        self.index = index
        self.query_text = query
        self.matches: list[Match] = []
        self._rows: list[int | None] = []
        """For each option of the list, the match it shows (None: a file's heading)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="search-dialog") as dialog:
            dialog.border_title = "Search turns and content"
            dialog.border_subtitle = "enter go to · ↓ results · esc close"
            yield Input(value=self.query_text, id="search-input", compact=True,
                        placeholder="text, tool name, arguments, result, id…")
            yield Static(id="search-status")
            yield OptionList(id="search-results", markup=False)

    def on_mount(self) -> None:
        self.query_one("#search-input", Input).focus()
        self.call_after_refresh(self._search)  # once laid out: the labels fit the list's width

    def _search(self) -> None:
        self.run_search(self.query_one("#search-input", Input).value, self._width())

    def _width(self) -> int:
        return self.query_one("#search-results", OptionList).scrollable_content_region.width

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        self.run_search(event.value, self._width())

    def _match_at(self, option: int | None) -> Match | None:
        if option is None or not 0 <= option < len(self._rows):
            return None
        row = self._rows[option]
        return self.matches[row] if row is not None else None

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        results = self.query_one("#search-results", OptionList)
        match = self._match_at(results.highlighted if results.highlighted is not None else self._first())
        if match is not None:
            self.dismiss(match.entry.location)

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        match = self._match_at(event.option_index)
        if match is not None:
            self.dismiss(match.entry.location)

    def _first(self) -> int | None:
        """The first option that is a match (not a heading)."""
        return next((i for i, row in enumerate(self._rows) if row is not None), None)

    def action_dismiss_search(self) -> None:
        self.dismiss(None)

    def action_focus_results(self) -> None:
        results = self.query_one("#search-results", OptionList)
        if results.option_count:
            results.focus()
            if results.highlighted is None:
                results.highlighted = self._first()

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, query: str, width: int = 0) -> None:
        worker = get_current_worker()
        if self.index is None:
            self.index = SearchIndex.build(self.session)
            self.post_message(self.Indexed(self.session, self.index))
        matches, total = self.index.find(query, cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            labels = [self.index.label(m, width) for m in matches]
            self.app.call_from_thread(self._show, query, matches, labels, total)

    def _show(self, query: str, matches: list[Match], labels: list[Text], total: int) -> None:
        if query != self.query_one("#search-input", Input).value:
            return  # a later key press is being searched
        self.matches = matches
        options: list[Option] = []
        self._rows = []
        names = self.index.file_names if self.index is not None else []
        file: int | None = None
        for row, (match, label) in enumerate(zip(matches, labels, strict=True)):
            if len(names) > 1 and match.entry.location.file != file:
                file = match.entry.location.file
                options.append(Option(Text(clean(names[file]), "bold underline"), disabled=True))
                self._rows.append(None)
            options.append(Option(label))
            self._rows.append(row)
        results = self.query_one("#search-results", OptionList)
        results.clear_options()
        results.add_options(options)
        if matches:
            results.highlighted = self._first()
        status = self.query_one("#search-status", Static)
        if not query:
            status.update(Text("Type to search every turn: text, tool names, arguments, results, ids.",
                               "dim"))
        elif not total:
            status.update(Text("no match", "bold"))
        else:
            more = f" (first {len(matches)} shown)" if total > len(matches) else ""
            status.update(Text(f"{total} turn part{'s' if total != 1 else ''} match{more}", "dim"))
