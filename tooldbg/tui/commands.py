"""The command palette's tooldbg commands: export, search, help, findings, repro, wire format,
conversations, theme. Each runs the same action its key runs, so the palette and the keys never disagree."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content

from .. import formats
from ..render import clean
from .session import Location


@dataclass(frozen=True, slots=True)
class Command:
    text: str  # shown as plain text (never markup)
    help: str  # the palette parses this as markup: never put log text in it
    run: Callable[[], object]
    discover: bool = True


def _highlight(matcher: Matcher, text: str) -> Content:
    """`Matcher.highlight` parses its candidate as markup; a file name is not markup."""
    content = Content(text)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    for offset in offsets:
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class ToolDbgCommands(Provider):
    """Commands for the screen the palette was opened on (most need the main screen)."""

    def commands(self) -> Iterator[Command]:
        app, screen = self.app, self.screen
        yield Command("Export…", "Write this conversation in another format, losses shown first",
                      partial(app.run_action, "export"))
        yield Command("Fix and export…", "Make the safe repairs, each listed, then write the conversation",
                      partial(app.run_action, "fix"))
        yield Command("Search turns and content…", "Text, tool names, arguments, results and ids",
                      partial(app.run_action, "search"))
        yield Command("Help: keys and panes", "Every key and what each pane shows",
                      partial(app.run_action, "help"))
        yield Command("Toggle dark/light theme", "Switch between the dark and the light theme",
                      partial(app.run_action, "toggle_dark"))
        session = getattr(app, "session", None)
        if hasattr(screen, "action_diff") and session is not None and len(session.files) > 1:
            yield Command("Diff with the other file", "The selected conversation beside its counterpart, "
                          "lost and changed parts marked", partial(app.run_action, "diff", screen))
        if hasattr(screen, "action_next_finding"):
            yield Command("Next finding", "Move every view to the next finding",
                          partial(app.run_action, "next_finding", screen))
            yield Command("Previous finding", "Move every view to the previous finding",
                          partial(app.run_action, "previous_finding", screen))
        if hasattr(screen, "action_repro"):
            yield Command("Reproduce the chosen finding…", "Write its log shrunk to a small one that still "
                          "shows it, keys masked, for a bug report", partial(app.run_action, "repro", screen))
        set_format = getattr(screen, "set_wire_format", None)
        if callable(set_format):
            for name in ("source", *formats.WIRE_FORMATS):
                label = "the source record" if name == "source" else name
                yield Command(f"Switch wire format to {name}", f"Show the selected turn as {label}",
                              partial(set_format, name), discover=False)
        go_to = getattr(screen, "go_to", None)
        if session is not None and callable(go_to):
            several = len(session.files) > 1
            for f, loaded in enumerate(session.files):
                name = clean(loaded.path.rsplit("/", 1)[-1])
                for conv in loaded.conversations:
                    where = f" in {name}" if several else ""
                    yield Command(f"Go to conversation {conv.id}{where}",
                                  f"{len(conv.turns)} turns",
                                  partial(go_to, Location(f, conv.id, 0 if conv.turns else None)),
                                  discover=False)

    async def discover(self) -> Hits:
        for command in self.commands():
            if command.discover:
                yield DiscoveryHit(Content(command.text), command.run, text=command.text,
                                   help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.text)
            if score > 0:
                yield Hit(score, _highlight(matcher, command.text), command.run, text=command.text,
                          help=command.help)
