"""What the TUI shows, computed off the UI thread: the loaded files, their findings, and indexes
from a turn to its findings so a key press never scans the whole log."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..checks import Finding, run_checks, severity_rank
from ..load import Loaded, load
from ..model import Conversation, Turn


@dataclass(frozen=True, slots=True)
class Location:
    """A place in the session: a file, optionally a conversation, a turn and a part in it."""

    file: int
    conversation: str | None = None
    turn: int | None = None
    part: int | None = None


@dataclass(slots=True)
class Session:
    files: list[Loaded]
    findings: list[Finding] = field(default_factory=list)
    _by_turn: dict[tuple[int, str | None, int | None], list[Finding]] = field(default_factory=dict)

    @classmethod
    def load(cls, paths: Sequence[str | Path], input_format: str | None = None,
             progress: Callable[[str, int, int], None] | None = None) -> Session:
        files = load(paths, input_format, progress)
        findings = [f for loaded in files for f in run_checks(loaded)]
        return cls(files, findings)

    def __post_init__(self) -> None:
        index: dict[tuple[int, str | None, int | None], list[Finding]] = defaultdict(list)
        paths = {loaded.path: i for i, loaded in enumerate(self.files)}
        for finding in self.findings:
            index[(paths.get(finding.path, 0), finding.conversation, finding.turn)].append(finding)
        self._by_turn = dict(index)

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
        return self._by_turn.get((file, conversation, turn), [])

    def location_of(self, finding: Finding) -> Location:
        file = next((i for i, f in enumerate(self.files) if f.path == finding.path), 0)
        return Location(file, finding.conversation, finding.turn, finding.part)


def worst(findings: Sequence[Finding]) -> str | None:
    """The most severe severity among `findings`."""
    return max((f.severity for f in findings), key=severity_rank, default=None)
