"""What `diff` compares: each exchange of a conversation as a snapshot (its request's turns then its
responses'), and each turn's parts as units with the signatures they are paired and compared by."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..checks.replay import media_identity, norm
from ..formats.reading import link
from ..jsonio import dumps_str, try_loads
from ..load import Loaded
from ..model import (
    Conversation,
    Invocation,
    Json,
    Media,
    Part,
    Reasoning,
    Result,
    Text,
    Tool,
    ToolChoice,
    Turn,
)
from ..timeline import ExchangeRead

# ---------------------------------------------------------------------------------------- units


@dataclass(slots=True)
class _Unit:
    """One comparable part of one side of an exchange: consecutive texts of a turn are one unit;
    empty texts and opaque blocks are not units."""

    turn: int
    part: int
    role: str
    node: Part
    kind: str  # text | call | result | media | reasoning
    direction: str  # request | response
    sig: Any = None
    text: str = ""
    call: Invocation | None = None  # a result's call, on its own side
    joined: bool = False  # one of several texts that say together what one text says on the other side

    @property
    def cls(self) -> str:
        return "model" if self.role == "assistant" else "client"


def _args_key(call: Invocation) -> str:
    if call.raw_arguments is not None:
        return "raw:" + call.raw_arguments
    return dumps_str(call.arguments, sort_keys=True)


def _token(text: str) -> str:
    """Text as compared: whitespace runs collapsed; JSON text in its sorted compact form."""
    text = norm(text)
    if text[:1] in "{[":
        ok, value = try_loads(text)
        if ok:
            return dumps_str(value, sort_keys=True)
    return text


def _payload(content: Iterable[Part]) -> tuple[Any, ...]:
    out: list[Any] = []
    for part in content:
        if isinstance(part, Text):
            if part.text.strip():
                out.append(_token(part.text))
        elif isinstance(part, Json):
            out.append(dumps_str(part.value, sort_keys=True))
        elif isinstance(part, Media):
            out.append(("media", part.kind, media_identity(part)))
    return tuple(out)


def _units(turns: Sequence[tuple[int, Turn, str]],
           context: Sequence[tuple[int, Turn, str]] | None = None) -> list[list[_Unit]]:
    """The units of each turn (`(index, turn, direction)`), with every signature computed; a
    result's call is looked up among `context`'s turns (default: `turns`)."""
    calls = {c.id: c for _, turn, _ in (turns if context is None else context)
             for c in turn.invocations() if c.id}
    out: list[list[_Unit]] = []
    for index, turn, direction in turns:
        units: list[_Unit] = []
        for p, part in enumerate(turn.parts):
            unit = _unit(index, p, turn.role, part, direction, calls)
            if unit is None:
                continue
            if unit.kind == "text" and units and units[-1].kind == "text":
                previous = units[-1]  # consecutive texts (empty ones and opaque blocks between)
                previous.text = norm(previous.text + " " + unit.text)
                previous.sig = ("text", previous.text)
                continue
            units.append(unit)
        out.append(units)
    return out


def _unit(turn: int, p: int, role: str, part: Part, direction: str,
          calls: dict[str, Invocation]) -> _Unit | None:
    unit = _Unit(turn, p, role, part, "", direction)
    if isinstance(part, Text):
        if not part.text.strip():
            return None
        unit.kind, unit.text = "text", _token(part.text)
        unit.sig = ("text", unit.text)
    elif isinstance(part, Invocation):
        unit.kind = "call"
        unit.sig = ("call", part.name, _args_key(part))
    elif isinstance(part, Result):
        unit.kind = "result"
        unit.call = calls.get(part.invocation_id) if part.invocation_id else None
        called = (unit.call.name, _args_key(unit.call)) if unit.call is not None else (part.name, None)
        unit.sig = ("result", _payload(part.content), part.is_error, *called)
    elif isinstance(part, Media):
        unit.kind = "media"
        unit.sig = ("media", part.kind, media_identity(part))
    elif isinstance(part, Reasoning):
        unit.kind = "reasoning"
        unit.text = norm(part.text or " ".join(part.summary))
        unit.sig = ("reasoning", unit.text, part.redacted is not None)
    elif isinstance(part, Json):
        unit.kind, unit.text = "text", dumps_str(part.value, sort_keys=True)
        unit.sig = ("text", unit.text)
    else:  # Opaque: a provider block tooldbg does not model cannot be compared across formats
        return None
    return unit


#: The `Error: ` (or lone `Error`) a writer for a format without a failure flag puts before a failed
#: result's text in place of the flag.
FOLDED = re.compile(r"^error\b:?\s*", re.I)


def _fingerprint(units: Iterable[_Unit]) -> Counter[Any]:
    """What two exchanges or conversations are compared by to pair them: the content, loosely, and
    wherever it sits — a log's answer is in a response, its conversion replays it in a request."""
    out: Counter[Any] = Counter()
    for u in units:
        if u.kind == "text":
            key: Any = u.text[:200]
        elif u.kind == "call":
            key = u.node.name if isinstance(u.node, Invocation) else ""
        elif u.kind == "result":  # (its first text without the `Error: ` a format without a flag folds in)
            first = tuple(FOLDED.sub("", x, count=1) if isinstance(x, str) else x for x in u.sig[1][:1])
            key = (u.node.name if isinstance(u.node, Result) else "", first)
        else:
            key = u.sig
        out[(u.kind, key)] += 1
    return out


def _similarity(a: Counter[Any], b: Counter[Any]) -> float:
    """Weighted Jaccard: what the two share over what either has."""
    if len(b) < len(a):
        a, b = b, a
    shared = sum(min(n, b[k]) for k, n in a.items() if k in b)
    union = a.total() + b.total() - shared
    return shared / union if union else 1.0


# ------------------------------------------------------------------------------------ snapshots


@dataclass(slots=True)
class _Snapshot:
    """One exchange of one conversation as compared: its request's turns then its responses', and
    what the request declared. A canonical document (no exchanges) is one snapshot of the whole
    conversation."""

    loaded: Loaded
    conversation: Conversation
    read: ExchangeRead | None
    turns: list[tuple[int, Turn, str]]
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice | None = None
    units: list[list[_Unit]] = field(default_factory=list)

    @property
    def exchange(self) -> int | None:
        return self.read.exchange.index if self.read is not None else None

    @property
    def format(self) -> str | None:
        return self.read.format if self.read is not None else None

    def request_body(self) -> str:
        """The address of the request body this snapshot came from (what a place on a request
        points at when no part of it does)."""
        if self.read is None:
            return ""
        message = self.read.exchange.request
        return f"{message.location}#" if message is not None and message.location else ""


def _reads(loaded: Loaded, conv: Conversation) -> list[ExchangeRead]:
    return [r for r in loaded.reads if r.conversation == conv.id]


def _snapshots(loaded: Loaded, conv: Conversation, whole: bool = False) -> list[_Snapshot]:
    """One per exchange; one of the whole conversation (its stitched timeline) when `whole` (the
    other side is a canonical document, which keeps no exchanges)."""
    reads = _reads(loaded, conv)
    if whole or not reads:
        turns = [(i, t, "response" if t.source.side == "response" else "request")
                 for i, t in enumerate(conv.turns)]
        return [_Snapshot(loaded, conv, None, turns, conv.tools, conv.tool_choice)]
    out = []
    for read in reads:
        request = read.request
        prior = read.history(conv)
        turns = [(i, t, "request") for i, t in enumerate(prior)]
        # Linked after the history, as the stitched timeline links them: a reader numbers an
        # answer's calls from i1, which would otherwise stand for the history's first call.
        answers = link([r.turn for r in read.responses if r.turn is not None], prior=prior)
        turns += [(len(prior) + k, t, "response") for k, t in enumerate(answers)]
        out.append(_Snapshot(loaded, conv, read, turns,
                             request.tools if request is not None else (),
                             request.tool_choice if request is not None else None))
    return out


def _prepare(snapshots: list[_Snapshot]) -> list[_Snapshot]:
    """Each snapshot's units. A request replays the history of the one before it: a turn equal to
    the previous request's turn at the same place (content and metadata; where it came from does
    not count) reuses its units, which point at where the turn first appeared, as the stitched
    timeline does. So a long session costs its new turns, not its history again per exchange."""
    previous: _Snapshot | None = None
    for snapshot in snapshots:
        if previous is None:
            snapshot.units = _units(snapshot.turns)
        else:
            fresh: list[tuple[int, Turn, str]] = []
            reused: dict[int, list[_Unit]] = {}
            for k, (index, turn, direction) in enumerate(snapshot.turns):
                if direction == "request" and k < len(previous.turns) \
                        and previous.turns[k][2] == "request" and previous.turns[k][1] == turn:
                    reused[k] = previous.units[k]
                else:
                    fresh.append((index, turn, direction))
            computed = iter(_units(fresh, snapshot.turns))
            snapshot.units = [reused[k] if k in reused else next(computed)
                              for k in range(len(snapshot.turns))]
        previous = snapshot
    return snapshots


def _turn_sig(turn: Turn, units: list[_Unit]) -> Any:
    return (turn.role, tuple(u.sig for u in units))
