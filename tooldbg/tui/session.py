"""What the TUI shows, computed off the UI thread: the loaded files, their findings, and indexes
from a turn to its findings so a key press never scans the whole log."""

from __future__ import annotations

import gc
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..checks import run_checks
from ..checks.base import Finding, severity_rank
from ..errors import ToolDbgError
from ..load import Loaded, load
from ..model import Conversation, Turn
from ..scan import note_empty
from ..shorten import describe_exception


@dataclass(frozen=True, slots=True)
class Location:
    """A place in the session: a file, optionally a conversation, a turn and a part in it."""

    file: int
    conversation: str | None = None
    turn: int | None = None
    part: int | None = None


def _index():  # noqa: ANN202
    """A private index, built in `__post_init__`."""
    return field(default_factory=dict, init=False, repr=False)


@dataclass(slots=True)
class Session:
    files: list[Loaded]
    findings: list[Finding] = field(default_factory=list)
    #: Files of the folders opened that are not logs (a README, an image), left out.
    skipped: list[str] = field(default_factory=list)
    _by_turn: dict[tuple[int, str | None, int | None], list[Finding]] = _index()
    _by_conversation: dict[tuple[int, str | None], list[Finding]] = _index()
    _files: dict[str, int] = _index()

    @classmethod
    def load(cls, paths: Sequence[str | Path], input_format: str | None = None,
             progress: Callable[[str, int, int], None] | None = None) -> Session:
        """Read, stitch and check `paths`. The session then lives as long as the app, so it is
        moved out of the cyclic collector's sight (`gc.freeze`): otherwise every full collection
        walks each parsed record again, a pause of ~100 ms between a key press and its repaint on
        a 10,000-turn log (scripts/measure_tui.py). Objects freed by reference counting are still
        freed; only cycles made before the freeze stay until `gc.unfreeze()`."""
        skipped: list[str] = []
        files = load(paths, input_format, progress, skipped)
        for loaded in files:
            note_empty(loaded)  # a file with no LLM exchange is marked, as `check` reports it
        findings = [f for loaded in files for f in run_checks(loaded)]
        session = cls(files, findings, skipped)
        gc.freeze()
        return session

    def __post_init__(self) -> None:
        by_turn: dict[tuple[int, str | None, int | None], list[Finding]] = defaultdict(list)
        by_conversation: dict[tuple[int, str | None], list[Finding]] = defaultdict(list)
        self._files = {loaded.path: i for i, loaded in enumerate(self.files)}
        for finding in self.findings:
            file = self._files.get(finding.path, 0)
            by_turn[(file, finding.conversation, finding.turn)].append(finding)
            by_conversation[(file, finding.conversation)].append(finding)
        self._by_turn = dict(by_turn)
        self._by_conversation = dict(by_conversation)

    def conversation(self, location: Location) -> Conversation | None:
        if location.conversation is None:
            return None
        return self.files[location.file].conversation(location.conversation)

    def turn(self, location: Location) -> Turn | None:
        conv = self.conversation(location)
        if conv is None or location.turn is None or not 0 <= location.turn < len(conv.turns):
            return None
        return conv.turns[location.turn]

    def findings_at(self, file: int, conversation: str | None, turn: int | None) -> list[Finding]:
        """The findings on one turn (`turn=None`: those on the conversation as a whole)."""
        return self._by_turn.get((file, conversation, turn), [])

    def findings_in(self, file: int, conversation: str | None) -> list[Finding]:
        """Every finding in one conversation (`conversation=None`: those on the file itself)."""
        return self._by_conversation.get((file, conversation), [])

    def first_finding(self) -> int:
        """The finding to show first: the first one its capture marks as what it is about (a HAR
        entry's `_tooldbg.focus` lists the codes; `tooldbg probe` marks the findings that failed a
        step), else the first of all."""
        for index, finding in enumerate(self.findings):
            reads = self.files[self._files.get(finding.path, 0)].reads
            if finding.exchange is None or not 0 <= finding.exchange < len(reads):
                continue
            marks = reads[finding.exchange].exchange.meta.get("_tooldbg")
            focus = marks.get("focus") if isinstance(marks, dict) else None
            if isinstance(focus, list) and finding.code in focus:
                return index
        return 0

    def location_of(self, finding: Finding) -> Location:
        return Location(self._files.get(finding.path, 0), finding.conversation, finding.turn, finding.part)


def file_names(paths: Sequence[str]) -> dict[str, str]:
    """Each path as the screens name it when several files are open: relative to the folder all of
    them are in (`agents/run.jsonl`, not `/home/me/logs/agents/run.jsonl`)."""
    try:
        common = os.path.commonpath([os.path.dirname(p) for p in paths])
    except ValueError:  # absolute and relative paths mixed
        common = ""
    return {p: os.path.relpath(p, common) if common else p for p in paths}


@dataclass(frozen=True, slots=True)
class Loading:
    """What the load worker hands the interface: the session, or the one line that says why there
    is none (then the interface shows it instead of the progress bar)."""

    session: Session | None = None
    error: str | None = None


def load_session(paths: Sequence[str | Path], input_format: str | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> Loading:
    """The TUI's loader, run in a worker thread: `Session.load`, and never an exception. A record
    that cannot be read is already in its file's errors (the rest of the file is shown); what is
    left is a path that cannot be read at all, or a bug, and both become a message."""
    try:
        return Loading(session=Session.load(paths, input_format, progress))
    except ToolDbgError as err:
        return Loading(error=str(err))
    except Exception as err:  # noqa: BLE001 - the worker must end with a message, never spin
        where = ", ".join(str(p) for p in paths)
        return Loading(error=f"{where}: could not be loaded: {describe_exception(err)}")


def worst(findings: Sequence[Finding]) -> str | None:
    """The most severe severity among `findings`."""
    return max((f.severity for f in findings), key=severity_rank, default=None)
