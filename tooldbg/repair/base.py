"""What every repair shares: the records it returns, the evidence it may read, and pure edits.

A repair is a pure function `(conversation, log) -> Outcome`: it takes a canonical conversation and
the `Log` it came from (the loaded file, whose earlier exchanges and responses are the evidence, the
findings `check` made on it, the target being written), and returns a new conversation with the
list of what it changed (`Repair`: the finding code it answers, where, before → after) and of what
it would not change because that would be a guess (`Refusal`, with the reason). It never mutates
anything: conversations are immutable, and every edit here returns a new one.

Repairs find what to change themselves, on the conversation they are given, with the same helpers
the rules use (`checks.pairing`, `checks.replay`…): the driver runs one only when a finding of a
code it answers was made, and earlier repairs may already have moved parts. Evidence from the log
(an earlier exchange, the original response) is located in the conversation with `locate`, which
finds a part by identity or equal content, preferring the position the evidence names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

from ..checks.base import Context, Finding
from ..load import Loaded
from ..model import Conversation, Invocation, Part, Result, Turn


@dataclass(frozen=True, slots=True)
class Repair:
    """One change a repair made: the finding `code` it answers, in `conversation` at `turn`/`part`
    (of the conversation as the repair found it; None: the conversation as a whole), what was there
    and what is there now, as short readable text."""

    code: str
    conversation: str
    turn: int | None
    part: int | None
    before: str
    after: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "conversation": self.conversation, "turn": self.turn,
                "part": self.part, "before": self.before, "after": self.after}


@dataclass(frozen=True, slots=True)
class Refusal:
    """A finding left as it is because repairing it needs a guess (or there is nothing in the log to
    repair it from): `reason` says which."""

    code: str
    conversation: str
    turn: int | None
    part: int | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "conversation": self.conversation, "turn": self.turn,
                "part": self.part, "reason": self.reason}


Record = Repair | Refusal


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a repair returns: the conversation after it, and what it did or would not do."""

    conversation: Conversation
    records: tuple[Record, ...] = ()


@dataclass(frozen=True, slots=True)
class Log:
    """The evidence a repair may read about the conversation it repairs.

    `loaded` is the file the conversation was read from (its exchanges hold the earlier requests and
    the original responses), `context` the check context over it (shared by the conversations of a
    file, so the replay pairing is computed once), `findings` what `check` found in this
    conversation (with `target`'s TD8xx rules when a target is written; `target` is None for a
    canonical document), `original` the conversation as read, `name` its id as the user sees it
    (`c1`, `FILE#c1`)."""

    loaded: Loaded
    original: Conversation
    findings: tuple[Finding, ...]
    target: str | None
    keep_orphans: bool
    name: str
    context: Context

    @property
    def id(self) -> str:
        """The conversation's own id in its file (what findings and the replay pairing name)."""
        return self.original.id

    def found(self, *codes: str) -> list[Finding]:
        return [f for f in self.findings if f.code in codes]

    def found_at(self, finding: Finding) -> tuple[tuple[int, int], Part] | None:
        """Where in the original conversation `finding` names a part, and that part (None: it names
        a turn, the conversation, or no part of it)."""
        turn, part = finding.turn, finding.part
        if turn is None or part is None or turn >= len(self.original.turns) \
                or part >= len(self.original.turns[turn].parts):
            return None
        return (turn, part), self.original.turns[turn].parts[part]

    def codes_at(self, part: Part) -> set[str]:
        """The codes of the findings made at `part` (a part of the original conversation, or one
        equal to it)."""
        out = set()
        for f in self.findings:
            named = self.found_at(f)
            if named is not None and (named[1] is part or named[1] == part):
                out.add(f.code)
        return out

    def code_at(self, part: Part, choices: Sequence[str]) -> str:
        """The first of `choices` found at `part` (the first choice when none was)."""
        found = self.codes_at(part)
        return next((c for c in choices if c in found), choices[0])

    def repair(self, code: str, turn: int | None, part: int | None, before: str, after: str) -> Repair:
        return Repair(code, self.name, turn, part, before, after)

    def refuse(self, code: str, turn: int | None, part: int | None, reason: str) -> Refusal:
        return Refusal(code, self.name, turn, part, reason)


#: A repair: the conversation and its log → the conversation repaired, and what was done.
Repairer = Callable[[Conversation, Log], Outcome]


# ------------------------------------------------------------------------------ pure edits


def with_turns(conv: Conversation, turns: Iterable[Turn]) -> Conversation:
    return replace(conv, turns=tuple(turns))


def with_parts(conv: Conversation, t: int, parts: Iterable[Part]) -> Conversation:
    turns = list(conv.turns)
    turns[t] = replace(turns[t], parts=tuple(parts))
    return with_turns(conv, turns)


def with_part(conv: Conversation, t: int, p: int, part: Part) -> Conversation:
    parts = list(conv.turns[t].parts)
    parts[p] = part
    return with_parts(conv, t, parts)


def locate(conv: Conversation, part: Part, hint: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """Where `part` is in `conv`: the `hint` position when it holds the part (or one equal to it),
    else the first place holding the part itself, else the first holding an equal one."""
    if hint is not None:
        t, p = hint
        if 0 <= t < len(conv.turns) and 0 <= p < len(conv.turns[t].parts):
            there = conv.turns[t].parts[p]
            if there is part or there == part:
                return hint
    equal = None
    for t, turn in enumerate(conv.turns):
        for p, there in enumerate(turn.parts):
            if there is part:
                return t, p
            if equal is None and there == part:
                equal = (t, p)
    return equal


def call_index(conv: Conversation) -> dict[str, tuple[int, int, Invocation]]:
    """Own call id → (turn, part, call)."""
    return {p.id: (t, k, p) for t, turn in enumerate(conv.turns)
            for k, p in enumerate(turn.parts) if isinstance(p, Invocation)}


def rebind(conv: Conversation, invocation_id: str, *, adopt: str | None = None,
           **changes: Any) -> tuple[Conversation, list[tuple[int, int]]]:
    """Every result answering call `invocation_id` with `changes` applied (a new wire id…), and
    where they are. With `adopt`, a result answering no call under that wire id is one of them: it
    answers the call from now on."""
    def answers(p: Part) -> TypeGuard[Result]:
        return isinstance(p, Result) and (p.invocation_id == invocation_id or (
            adopt is not None and p.invocation_id is None and p.wire_id == adopt))

    turns = list(conv.turns)
    where = []
    for t, turn in enumerate(turns):
        if not any(answers(p) for p in turn.parts):
            continue
        parts = list(turn.parts)
        for k, p in enumerate(parts):
            if answers(p):
                parts[k] = replace(p, invocation_id=invocation_id, **changes)
                where.append((t, k))
        turns[t] = replace(turn, parts=tuple(parts))
    return with_turns(conv, turns), where
