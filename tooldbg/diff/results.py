"""What `diff` finds: the differences (sided findings), notes, and the conversations, exchanges and
turns it paired, each with its place on either side."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..checks.base import Finding
from ..load import Loaded

SIDES = ("a", "b")
#: The codes `diff` reports (the registry's diff rules).
DIFF_CODES = ("TD701", "TD702", "TD703", "TD704", "TD705")
#: The difference that is an addition: on the side that has the part, added on the way.
ADDED_CODE = "TD705"


@dataclass(frozen=True, slots=True)
class Place:
    """Where something is on one side: the file, exchange, conversation, turn and part, and the
    JSON pointer (`location#pointer`, as findings print it)."""

    path: str
    exchange: int | None = None
    conversation: str | None = None
    turn: int | None = None
    part: int | None = None
    pointer: str = ""
    chunk: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "exchange": self.exchange, "conversation": self.conversation,
                "turn": self.turn, "part": self.part, "pointer": self.pointer, "chunk": self.chunk}


@dataclass(frozen=True, slots=True)
class SidedFinding(Finding):
    """A finding of `diff`: the side it is on (`a` or `b`; the inherited location is that side's),
    and the place on each side (None where the side has no counterpart)."""

    side: str = "a"
    a: Place | None = None
    b: Place | None = None

    def to_dict(self) -> dict[str, Any]:
        out = Finding.to_dict(self)
        out["side"] = self.side
        out["a"] = self.a.to_dict() if self.a is not None else None
        out["b"] = self.b.to_dict() if self.b is not None else None
        return out

    @property
    def is_difference(self) -> bool:
        return self.code in DIFF_CODES


@dataclass(frozen=True, slots=True)
class Note:
    """Something that differs without being a defect (ids rewritten consistently, a retry)."""

    message: str
    a: Place | None = None
    b: Place | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "a": self.a.to_dict() if self.a else None,
                "b": self.b.to_dict() if self.b else None}


@dataclass(slots=True)
class Pairing:
    """Two conversations found to be the same one: the exchanges paired (None: no partner) and the
    turns, as rows of a side-by-side view (None: no counterpart on that side)."""

    a: str
    b: str
    exchanges: list[tuple[int | None, int | None]] = field(default_factory=list)
    turns: list[tuple[int | None, int | None]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "exchanges": [list(p) for p in self.exchanges],
                "turns": [list(p) for p in self.turns]}


@dataclass(slots=True)
class Diff:
    a: Loaded
    b: Loaded
    #: The differences (TD701–TD704), in the order of A's conversation and turns.
    findings: list[SidedFinding] = field(default_factory=list)
    #: Each file's own findings (`check` on it), sided.
    own: list[SidedFinding] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    pairings: list[Pairing] = field(default_factory=list)

    @property
    def everything(self) -> list[SidedFinding]:
        return [*self.findings, *self.own]

    def pairing(self, side: str, conversation: str) -> Pairing | None:
        return next((p for p in self.pairings if (p.a if side == "a" else p.b) == conversation), None)


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    out = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        out[f.severity] += 1
    return out
