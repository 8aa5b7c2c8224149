"""`tooldbg diff A B`: two logs of one conversation, aligned in canonical form, each difference a
finding (TD701–TD704) with the side it is on.

A and B are two captures of the same traffic at two points — typically the client's side of a relay
(A) and the upstream side (B), in the same wire format or in two. Both are read into canonical
conversations as `check` reads them, so an Anthropic `tool_result` and an OpenAI `role: "tool"`
message compare equal when they say the same thing; only what was lost or changed is reported.

Alignment is by content, never by position (a relay may drop, merge, split or reorder turns):

1. Conversations: each of A's conversations is paired with the B conversation sharing the most
   content (a weighted Jaccard over its parts: texts, tool names, results); one each are paired
   whatever they share.
2. Exchanges: in log order, each A exchange of a conversation is paired with the B exchange, among
   the next few not yet paired, whose request and response share the most content. A B exchange
   passed over is a retry or an extra call the relay made (a note); an A exchange without a
   partner never reached the other side (a note).
3. Parts: within a paired exchange, the request's turns followed by the response's are compared as
   one sequence. Runs of identical turns (the replayed history: nearly everything) are found with
   `difflib.SequenceMatcher` over turn signatures that ignore ids, metadata and part order inside a
   format's conventions; between runs, parts are paired in three passes — the same content, then
   the same key (a call by tool name, a result by the call it answers, media by kind), then the
   same kind — so a turn merged, split or reordered still pairs part by part.
4. Each pair is compared (arguments: TD704; a result's content, failure flag or binding, a text, a
   medium: TD703); a part left unpaired was lost on the side that lacks it (TD703). Each request's
   tool declarations are compared by name (TD701) and schema (TD702: parameters, required fields,
   enums removed). A difference repeated by every later request of the history is reported once,
   at the first exchange that shows it.

The side of a finding: for something present on one side only, the side that lacks it; for a value
changed, the side that received it — B for what the client sent (requests), A for what the model
answered (responses): A is taken as the client's side. Call ids rewritten consistently (a relay that
issues its own ids), a tool name rewritten, a model or system prompt changed are notes, not findings.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from . import formats
from .checks import RULES, Finding, run_checks
from .checks.replay import failure_report, first_difference, media_identity, norm, resolve_pointer, snippet
from .jsonio import dumps_str, try_loads
from .load import ExchangeRead, Loaded
from .model import (
    Conversation,
    Invocation,
    Json,
    Media,
    Part,
    Reasoning,
    Result,
    Source,
    Text,
    Tool,
    ToolChoice,
    Turn,
)

SIDES = ("a", "b")
#: B exchanges looked at, past the last one paired, for each A exchange.
WINDOW = 8
#: Below this share of common content two exchanges are not the same exchange.
MIN_SIMILARITY = 0.2
#: The codes `diff` reports (the registry's diff rules).
DIFF_CODES = ("TD701", "TD702", "TD703", "TD704")


# ------------------------------------------------------------------------------------- results


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


def _fingerprint(units: Iterable[_Unit]) -> Counter[Any]:
    """What two exchanges or conversations are compared by to pair them: the content, loosely."""
    out: Counter[Any] = Counter()
    for u in units:
        if u.kind == "text":
            key: Any = u.text[:200]
        elif u.kind == "call":
            key = u.node.name if isinstance(u.node, Invocation) else ""
        elif u.kind == "result":
            key = (u.node.name if isinstance(u.node, Result) else "", u.sig[1][:1])
        else:
            key = u.sig
        out[(u.kind, u.direction, key)] += 1
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

    def body(self, direction: str) -> str:
        """The address of the request or response body this snapshot came from."""
        if self.read is None:
            return ""
        message = self.read.exchange.request if direction == "request" else self.read.exchange.response
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
        prior = request.turns if request is not None else ()
        turns = [(i, t, "request") for i, t in enumerate(prior)]
        # Unlinked (no own ids): nothing in an answer refers to a call by its own id.
        answers = [r.turn for r in read.responses if r.turn is not None]
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


# ------------------------------------------------------------------------------------- the engine


def diff(a: Loaded, b: Loaded, *, own: bool = True) -> Diff:
    """Compare two loaded logs; `own` also runs each file's own checks."""
    out = Diff(a, b)
    engine = _Engine(out)
    for ca, cb in _pair_conversations(a, b, out):
        engine.conversation(ca, cb)
    out.findings = sorted(engine.findings.values(), key=_order)
    if own:
        turn_maps = engine.turn_maps
        for side, loaded in (("a", a), ("b", b)):
            other = b if side == "a" else a
            for f in run_checks(loaded):
                out.own.append(_sided(f, side, loaded, other, turn_maps))
    return out


def _order(f: SidedFinding) -> tuple[Any, ...]:
    a, b = f.a, f.b
    return (a.conversation or "" if a else "", -1 if a is None or a.turn is None else a.turn,
            -1 if b is None or b.turn is None else b.turn, f.code, f.side,
            -1 if a is None or a.part is None else a.part, a.pointer if a else "", f.message)


def _sided(f: Finding, side: str, loaded: Loaded, other: Loaded,
           turn_maps: dict[tuple[str, str], tuple[str, dict[int, int]]]) -> SidedFinding:
    here = Place(f.path, f.exchange, f.conversation, f.turn, f.part, f.pointer, f.chunk)
    there: Place | None = None
    mapped = turn_maps.get((side, f.conversation or ""))
    if mapped is not None:
        conversation, turns = mapped
        turn = turns.get(f.turn) if f.turn is not None else None
        node = other.conversation(conversation)
        source = node.turns[turn].source if node is not None and turn is not None \
            and turn < len(node.turns) else None
        there = Place(other.path, source.exchange if source else None, conversation, turn,
                      pointer=source.address if source else "")
    a, b = (here, there) if side == "a" else (there, here)
    return SidedFinding(f.code, f.name, f.severity, f.message, f.path, f.exchange, f.conversation,
                        f.turn, f.part, f.pointer, f.chunk, side=side, a=a, b=b)


def _pair_conversations(a: Loaded, b: Loaded, out: Diff) -> list[tuple[Conversation, Conversation]]:
    if len(a.conversations) == 1 and len(b.conversations) == 1:
        return [(a.conversations[0], b.conversations[0])]
    prints = {}
    for side, loaded in (("a", a), ("b", b)):
        for conv in loaded.conversations:
            indexed = [(i, t, "request") for i, t in enumerate(conv.turns)]
            prints[(side, conv.id)] = _fingerprint(u for units in _units(indexed) for u in units)
    scores = sorted(((_similarity(prints[("a", ca.id)], prints[("b", cb.id)]), i, j)
                     for i, ca in enumerate(a.conversations) for j, cb in enumerate(b.conversations)),
                    key=lambda s: (-s[0], s[1], s[2]))
    used_a: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    for score, i, j in scores:
        if score <= 0 or i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        pairs.append((a.conversations[i], b.conversations[j]))
    for side, loaded, used in (("a", a, used_a), ("b", b, used_b)):
        other = "b" if side == "a" else "a"
        for i, conv in enumerate(loaded.conversations):
            if i not in used:
                place = Place(loaded.path, conversation=conv.id)
                out.notes.append(Note(f"{side}'s conversation {conv.id} has no counterpart in {other}",
                                      **{side: place}))
    return sorted(pairs, key=lambda p: a.conversations.index(p[0]))


class _Engine:
    def __init__(self, out: Diff) -> None:
        self.out = out
        self.findings: dict[tuple[Any, ...], SidedFinding] = {}
        #: (side, conversation) → (the other side's conversation, this side's turn → the other's).
        self.turn_maps: dict[tuple[str, str], tuple[str, dict[int, int]]] = {}
        # Per conversation pair: call ids a → b and back, tool names rewritten, failure flags said
        # in the text of a format without one.
        self.ids: dict[str, set[str]] = defaultdict(set)
        self.ids_back: dict[str, set[str]] = defaultdict(set)
        self.names: set[tuple[str, str]] = set()
        self.excused: set[tuple[str, str]] = set()

    # -- a conversation pair

    def conversation(self, ca: Conversation, cb: Conversation) -> None:
        out = self.out
        whole = not _reads(out.a, ca) or not _reads(out.b, cb)
        sa = _prepare(_snapshots(out.a, ca, whole))
        sb = _prepare(_snapshots(out.b, cb, whole))
        pairing = Pairing(ca.id, cb.id)
        self.ids, self.ids_back = defaultdict(set), defaultdict(set)
        self.names, self.excused = set(), set()
        turn_pairs: set[tuple[int, int]] = set()
        for xa, xb in _pair_snapshots(sa, sb):
            pairing.exchanges.append((xa.exchange if xa else None, xb.exchange if xb else None))
            if xa is None or xb is None:
                present = xa or xb
                assert present is not None
                side = "a" if xa else "b"
                other = "b" if xa else "a"
                if present.read is not None:
                    out.notes.append(Note(f"{side}'s exchange {present.exchange} has no counterpart in "
                                          f"{other} (a retry, or an exchange the other side never saw)",
                                          **{side: Place(present.loaded.path, present.exchange,
                                                         present.conversation.id)}))
                continue
            turn_pairs |= self.exchange(xa, xb)
        pairing.turns = _rows(turn_pairs, len(ca.turns), len(cb.turns))
        out.pairings.append(pairing)
        forward = {ta: tb for ta, tb in pairing.turns if ta is not None and tb is not None}
        self.turn_maps[("a", ca.id)] = (cb.id, forward)
        self.turn_maps[("b", cb.id)] = (ca.id, {tb: ta for ta, tb in forward.items()})
        self._id_notes(ca, cb)
        if ca.model and cb.model and ca.model != cb.model:
            out.notes.append(Note(f"model {ca.model!r} on a is {cb.model!r} on b"))
        system_a = _payload(ca.system)
        system_b = _payload(cb.system)
        if system_a != system_b:
            out.notes.append(Note("the system prompt differs between a and b (not compared further)"))

    def _id_notes(self, ca: Conversation, cb: Conversation) -> None:
        if self.ids:
            consistent = all(len(v) == 1 for v in self.ids.values()) and \
                all(len(v) == 1 for v in self.ids_back.values())
            shown = ", ".join(f"{x} → {'/'.join(sorted(y))}" for x, y in list(self.ids.items())[:3])
            more = f", … ({len(self.ids) - 3} more)" if len(self.ids) > 3 else ""
            if consistent:
                self.out.notes.append(Note(f"call ids rewritten consistently between a's {ca.id} and b's "
                                           f"{cb.id} ({len(self.ids)}): {shown}{more}; every result "
                                           "still answers its call"))
            else:
                self.out.notes.append(Note(f"call ids rewritten between a's {ca.id} and b's {cb.id}, not "
                                           f"one for one: {shown}{more} (results are compared by the "
                                           "call they answer)"))
        for name_a, name_b in sorted(self.names):
            self.out.notes.append(Note(f"tool name {name_a!r} on a is {name_b!r} on b"))
        for what, fmt in sorted(self.excused):
            self.out.notes.append(Note(f"{what}: its failure flag is said in the text on the {fmt} side, "
                                       "which has no flag"))

    # -- an exchange pair

    def exchange(self, xa: _Snapshot, xb: _Snapshot) -> set[tuple[int, int]]:
        self.tools(xa, xb)
        pairs = _align(xa, xb)
        turn_pairs = {(ua.turn, ub.turn) for ua, ub in pairs if ua is not None and ub is not None}
        for ua, ub in pairs:
            if ua is not None and ub is not None:
                self.compare(xa, xb, ua, ub)
            elif ua is not None:
                self.missing("b", xa, xb, ua, turn_pairs)
            elif ub is not None:
                self.missing("a", xb, xa, ub, turn_pairs)
        return turn_pairs

    def compare(self, xa: _Snapshot, xb: _Snapshot, ua: _Unit, ub: _Unit) -> None:
        receiver = "a" if ua.direction == "response" else "b"
        na, nb = ua.node, ub.node
        if isinstance(na, Invocation) and isinstance(nb, Invocation):
            if na.wire_id and nb.wire_id and na.wire_id != nb.wire_id:
                self.ids[na.wire_id].add(nb.wire_id)
                self.ids_back[nb.wire_id].add(na.wire_id)
            if na.name != nb.name:
                self.names.add((na.name, nb.name))
            if _args_key(na) != _args_key(nb):
                self.report("TD704", receiver, xa, xb, ua, ub, _arguments_changed(na, nb))
            return
        if ua.sig == ub.sig and ua.kind == ub.kind:
            return
        if isinstance(na, Result) and isinstance(nb, Result):
            self.result(xa, xb, ua, ub, receiver)
        elif ua.kind == "text" and ub.kind == "text":
            if ua.joined or ub.joined:
                return  # texts merged into one on one side, split on the other (`_joined`)
            self.report("TD703", receiver, xa, xb, ua, ub,
                        f"{_what(ua)} differs: a {snippet(ua.text)}, b {snippet(ub.text)}")
        elif isinstance(na, Media) and isinstance(nb, Media):
            self.report("TD703", receiver, xa, xb, ua, ub,
                        f"{_what(ua)} is another {nb.kind} on {'b' if receiver == 'b' else 'a'}")
        elif ua.kind == "reasoning" and ub.kind == "reasoning":
            if ua.text and ub.text and ua.text != ub.text:
                self.report("TD703", receiver, xa, xb, ua, ub,
                            f"reasoning differs: a {snippet(ua.text)}, b {snippet(ub.text)}")

    def result(self, xa: _Snapshot, xb: _Snapshot, ua: _Unit, ub: _Unit, receiver: str) -> None:
        ra, rb = ua.node, ub.node
        assert isinstance(ra, Result) and isinstance(rb, Result)
        pa, pb = _payload(ra.content), _payload(rb.content)
        texts_a = [t for t in pa if isinstance(t, str)]
        texts_b = [t for t in pb if isinstance(t, str)]
        if ra.is_error != rb.is_error:
            lacking, flagged = ("b", ua) if ra.is_error else ("a", ub)
            snap, node = (xb, rb) if lacking == "b" else (xa, ra)
            mine, theirs = (texts_b, texts_a) if lacking == "b" else (texts_a, texts_b)
            said = failure_report(node.content)
            folded = _unfold(mine, theirs) and mine == theirs
            fmt = snap.format
            if fmt is not None and formats.facts(fmt).failure == "text" and said:
                self.excused.add((_what(flagged), fmt))
            else:
                other = "a" if lacking == "b" else "b"
                self.report("TD703", lacking, xa, xb, ua, ub,
                            f"{_what(flagged)} is marked as a failure (is_error) on {other} but not on "
                            f"{lacking}{', only said in its text' if folded else ''}: the model reads the "
                            "failure as the tool's answer")
        lost = [m for m in pa if isinstance(m, tuple) and m not in pb]
        gained = [m for m in pb if isinstance(m, tuple) and m not in pa]
        for media, side in [(m, "b") for m in lost] + [(m, "a") for m in gained]:
            other = "a" if side == "b" else "b"
            self.report("TD703", side, xa, xb, ua, ub,
                        f"the {media[1]} in {_what(ua)} is on {other} but not on {side}")
        if texts_a != texts_b:
            shown_a, shown_b = " ".join(texts_a), " ".join(texts_b)
            if shown_a and not shown_b:
                self.report("TD703", "b", xa, xb, ua, ub,
                            f"the content of {_what(ua)} is on a but not on b (an empty result)")
            elif shown_b and not shown_a:
                self.report("TD703", "a", xa, xb, ua, ub,
                            f"the content of {_what(ub)} is on b but not on a (an empty result)")
            else:
                self.report("TD703", receiver, xa, xb, ua, ub,
                            f"the content of {_what(ua)} differs: a {snippet(shown_a)}, b {snippet(shown_b)}")
        if ua.call is not None and ub.call is not None and \
                (ua.call.name, _args_key(ua.call)) != (ub.call.name, _args_key(ub.call)):
            self.report("TD703", receiver, xa, xb, ua, ub,
                        f"{_what(ua)} answers {_call(ua.call)} on a but {_call(ub.call)} on b")

    def missing(self, side: str, present: _Snapshot, lacking: _Snapshot, unit: _Unit,
                turn_pairs: set[tuple[int, int]]) -> None:
        """`unit`, on the other side, has no counterpart on `side`."""
        other = "b" if side == "a" else "a"
        where = f"{other}'s {unit.direction}"
        message = f"{_what(unit)} is in {where} but not in {side}'s"
        if unit.kind == "result":
            message += ": its call is left unanswered there"
        elif unit.kind == "call":
            message += ": the call is never made there"
        xa, xb = (present, lacking) if other == "a" else (lacking, present)
        ua, ub = (unit, None) if other == "a" else (None, unit)
        counterpart = _counterpart(unit.turn, other, turn_pairs)
        self.report("TD703", side, xa, xb, ua, ub, message, lacking_turn=counterpart)

    # -- tools

    def tools(self, xa: _Snapshot, xb: _Snapshot) -> None:
        if xa.read is not None and xa.read.request is None or xb.read is not None and xb.read.request is None:
            return  # a response-only capture says nothing about what was declared
        by_a = {t.name: t for t in xa.tools}
        by_b = {t.name: t for t in xb.tools}
        for name, tool in by_a.items():
            if name not in by_b:
                self.report_tool("TD701", "b", xa, xb, tool, None,
                                 f"tool {name!r} is declared in a's request but not in b's: the model "
                                 "cannot call it")
        for name, tool in by_b.items():
            if name not in by_a:
                self.report_tool("TD701", "a", xa, xb, None, tool,
                                 f"tool {name!r} is declared in b's request but not in a's")
        for name in [n for n in by_a if n in by_b]:
            ta, tb = by_a[name], by_b[name]
            for side, lost in (("b", _simplified(ta.parameters, tb.parameters)),
                               ("a", _simplified(tb.parameters, ta.parameters))):
                if lost:
                    other = "a" if side == "b" else "b"
                    self.report_tool("TD702", side, xa, xb, ta, tb,
                                     f"tool {name!r} has a simpler schema on {side} than on {other}: "
                                     + "; ".join(lost))
        forced = ("required", "tool")
        for side, mine, theirs in (("b", xa.tool_choice, xb.tool_choice),
                                   ("a", xb.tool_choice, xa.tool_choice)):
            if mine is not None and mine.mode in forced and (theirs is None or theirs.mode not in forced):
                other = "a" if side == "b" else "b"
                what = f"the tool {mine.name!r}" if mine.mode == "tool" and mine.name else "a tool call"
                self.report_tool("TD701", side, xa, xb, None, None,
                                 f"{other}'s request forces {what} (tool_choice), {side}'s does not: the "
                                 "model may answer with text")

    def report_tool(self, code: str, side: str, xa: _Snapshot, xb: _Snapshot, ta: Tool | None,
                    tb: Tool | None, message: str) -> None:
        places = []
        for snap, tool in ((xa, ta), (xb, tb)):
            source = tool.source if tool is not None and tool.source.exchange is not None else None
            places.append(Place(snap.loaded.path, snap.exchange, snap.conversation.id,
                                pointer=source.address if source else snap.body("request")))
        self._add(code, side, message, places[0], places[1], key=(code, side, message))

    # -- reporting

    def report(self, code: str, side: str, xa: _Snapshot, xb: _Snapshot, ua: _Unit | None,
               ub: _Unit | None, message: str, lacking_turn: int | None = None) -> None:
        pa = _place(xa, ua, lacking_turn if ua is None else None)
        pb = _place(xb, ub, lacking_turn if ub is None else None)
        key = (code, side, message, pa.conversation, pa.turn, pa.part, pb.conversation, pb.turn, pb.part)
        self._add(code, side, message, pa, pb, key)

    def _add(self, code: str, side: str, message: str, pa: Place, pb: Place, key: tuple[Any, ...]) -> None:
        if key in self.findings:
            return
        rule = RULES[code]
        here = pa if side == "a" else pb
        self.findings[key] = SidedFinding(
            code, rule.name, rule.severity, message, here.path, here.exchange, here.conversation,
            here.turn, here.part, here.pointer, here.chunk, side=side, a=pa, b=pb)


def _place(snap: _Snapshot, unit: _Unit | None, turn: int | None) -> Place:
    if unit is not None:
        source = unit.node.source
        return Place(snap.loaded.path, source.exchange if source.exchange is not None else snap.exchange,
                     snap.conversation.id, unit.turn, unit.part, source.address, source.chunk)
    if turn is not None:
        node = next((t for i, t, _ in snap.turns if i == turn), None)
        source = node.source if node is not None else Source()
        return Place(snap.loaded.path, snap.exchange, snap.conversation.id, turn,
                     pointer=source.address or snap.body("request"))
    return Place(snap.loaded.path, snap.exchange, snap.conversation.id, pointer=snap.body("request"))


def _counterpart(turn: int, side: str, turn_pairs: set[tuple[int, int]]) -> int | None:
    """The turn on the other side paired with `side`'s `turn` (the first, when it was split)."""
    if side == "a":
        found = sorted(tb for ta, tb in turn_pairs if ta == turn)
    else:
        found = sorted(ta for ta, tb in turn_pairs if tb == turn)
    return found[0] if found else None


def _rows(pairs: set[tuple[int, int]], na: int, nb: int) -> list[tuple[int | None, int | None]]:
    """Turn pairs as the rows of a side-by-side view, both columns in order: a turn paired with two
    (merged or split) takes the first, the second shows beside nothing."""
    rows: list[tuple[int | None, int | None]] = []
    next_a = next_b = 0
    for ta, tb in sorted(pairs):
        if ta < next_a or tb < next_b:
            continue
        rows.extend((i, None) for i in range(next_a, ta))
        rows.extend((None, j) for j in range(next_b, tb))
        rows.append((ta, tb))
        next_a, next_b = ta + 1, tb + 1
    rows.extend((i, None) for i in range(next_a, na))
    rows.extend((None, j) for j in range(next_b, nb))
    return rows


def _unfold(text: list[Any], other: list[Any]) -> bool:
    """Remove the `Error: ` (or a lone `Error` item) a translation put before a failed result's text
    in place of its flag; True when there was one."""
    if not text or not isinstance(text[0], str) or (other and text[0] == other[0]):
        return False
    unfolded = re.sub(r"^error\b:?\s*", "", text[0], flags=re.I)
    if unfolded == text[0]:
        return False
    if unfolded:
        text[0] = unfolded
    else:
        del text[0]
    return True


# -------------------------------------------------------------------------------------- pairing


def _pair_snapshots(sa: list[_Snapshot], sb: list[_Snapshot]) \
        -> Iterator[tuple[_Snapshot | None, _Snapshot | None]]:
    """Exchanges in log order, each A one with the most similar of the next B ones not yet paired."""
    prints_a = [_fingerprint(u for units in s.units for u in units) for s in sa]
    prints_b = [_fingerprint(u for units in s.units for u in units) for s in sb]
    j = 0
    for i, snap in enumerate(sa):
        best, score = None, MIN_SIMILARITY
        for k in range(j, min(j + WINDOW, len(sb))):
            s = _similarity(prints_a[i], prints_b[k])
            if s > score or best is None and s >= score:
                best, score = k, s
        if best is None:
            yield snap, None
            continue
        for k in range(j, best):
            yield None, sb[k]
        yield snap, sb[best]
        j = best + 1
    for k in range(j, len(sb)):
        yield None, sb[k]


def _align(xa: _Snapshot, xb: _Snapshot) -> list[tuple[_Unit | None, _Unit | None]]:
    """The units of two snapshots paired (see the module's docstring, step 3)."""
    sig_a = [_turn_sig(t, u) for (_, t, _), u in zip(xa.turns, xa.units, strict=True)]
    sig_b = [_turn_sig(t, u) for (_, t, _), u in zip(xb.turns, xb.units, strict=True)]
    pairs: list[tuple[_Unit | None, _Unit | None]] = []
    regions: list[tuple[list[_Unit], list[_Unit]]] = []
    matcher = SequenceMatcher(None, sig_a, sig_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                pairs.extend(zip(xa.units[i], xb.units[j], strict=True))
        else:
            regions.append(([u for units in xa.units[i1:i2] for u in units],
                            [u for units in xb.units[j1:j2] for u in units]))
    for left, right in regions:
        pairs.extend(_match([u for u in left if u.kind != "result"], [u for u in right if u.kind != "result"],
                            (_strict, _loose, _JOINED, _kind)))
    calls = {ua.node.id: ub.node.id for ua, ub in pairs
             if ua is not None and ub is not None and isinstance(ua.node, Invocation)
             and isinstance(ub.node, Invocation)}

    def bound(unit: _Unit, side: str) -> Any:
        node = unit.node
        assert isinstance(node, Result)
        own = node.invocation_id
        return ("result", unit.cls, calls.get(own) if side == "a" and own else own) if own else None

    for left, right in regions:
        pairs.extend(_match([u for u in left if u.kind == "result"], [u for u in right if u.kind == "result"],
                            (_strict, bound, _kind)))
    return pairs


def _strict(unit: _Unit, side: str) -> Any:
    return (unit.cls, unit.sig)


def _loose(unit: _Unit, side: str) -> Any:
    node = unit.node
    if isinstance(node, Invocation):
        return (unit.cls, "call", node.name)
    if isinstance(node, Media):
        return (unit.cls, "media", node.kind)
    return None


def _kind(unit: _Unit, side: str) -> Any:
    return (unit.cls, unit.kind)


#: The pass of `_match` that pairs texts merged into one turn on one side and split over several
#: on the other (a relay joining consecutive user messages, a writer splitting text blocks).
_JOINED = object()


def _match(left: list[_Unit], right: list[_Unit], keys: Sequence[Any]) \
        -> list[tuple[_Unit | None, _Unit | None]]:
    """Pair two lists of units: each pass pairs, in order, units whose key (for that pass) is equal."""
    out: list[tuple[_Unit | None, _Unit | None]] = []
    rest_a, rest_b = list(left), list(right)
    for key in keys:
        if key is _JOINED:
            joined = _joined(rest_a, rest_b)
            out.extend(joined)
            paired = {id(u) for pair in joined for u in pair if u is not None}
            rest_a = [u for u in rest_a if id(u) not in paired]
            rest_b = [u for u in rest_b if id(u) not in paired]
            continue
        waiting: dict[Any, deque[int]] = defaultdict(deque)
        for k, unit in enumerate(rest_b):
            value = key(unit, "b")
            if value is not None:
                waiting[value].append(k)
        taken: set[int] = set()
        kept = []
        for unit in rest_a:
            value = key(unit, "a")
            queue = waiting.get(value) if value is not None else None
            if queue:
                k = queue.popleft()
                taken.add(k)
                out.append((unit, rest_b[k]))
            else:
                kept.append(unit)
        rest_a = kept
        rest_b = [u for k, u in enumerate(rest_b) if k not in taken]
    out.extend((u, None) for u in rest_a)
    out.extend((None, u) for u in rest_b)
    return out


def _joined(left: list[_Unit], right: list[_Unit]) -> list[tuple[_Unit | None, _Unit | None]]:
    """The texts left over on each side, per speaker, when together they say the same: each paired
    with the first of the other side's (the rest beside it), as one merged turn and its parts."""
    out: list[tuple[_Unit | None, _Unit | None]] = []
    for cls in ("client", "model"):
        texts_a = [u for u in left if u.kind == "text" and u.cls == cls]
        texts_b = [u for u in right if u.kind == "text" and u.cls == cls]
        if len(texts_a) + len(texts_b) < 3 or not texts_a or not texts_b:
            continue
        if norm(" ".join(u.text for u in texts_a)) != norm(" ".join(u.text for u in texts_b)):
            continue
        for u in texts_a + texts_b:
            u.joined = True
        out.extend((u, texts_b[0]) for u in texts_a)
        out.extend((texts_a[0], u) for u in texts_b[1:])
    return out


# --------------------------------------------------------------------------------- descriptions


def _call(call: Invocation) -> str:
    return f"the call to {call.name!r}" + (f" ({call.wire_id})" if call.wire_id else "")


def _what(unit: _Unit) -> str:
    node = unit.node
    if isinstance(node, Invocation):
        return f"{_call(node)} {snippet(_args_text(node), 50)}"
    if isinstance(node, Result):
        name = unit.call.name if unit.call is not None else node.name
        ident = f" ({node.wire_id})" if node.wire_id else ""
        text = " ".join(t for t in _payload(node.content) if isinstance(t, str))
        return f"the result of {name!r}{ident}" + (f" {snippet(text, 40)}" if text else "")
    if isinstance(node, Media):
        where = "the result" if unit.role == "tool" else f"the {unit.role} turn"
        return f"the {node.kind}{f' ({node.media_type})' if node.media_type else ''} in {where}"
    if isinstance(node, Reasoning):
        return "the reasoning" + (f" {snippet(unit.text, 40)}" if unit.text else "") + \
            (" (signed)" if node.signature else "")
    if unit.role == "assistant":
        return f"the assistant's text {snippet(unit.text, 50)}"
    return f"the {unit.role}'s text {snippet(unit.text, 50)}"


def _args_text(call: Invocation) -> str:
    return call.raw_arguments if call.raw_arguments is not None else dumps_str(call.arguments)


def _arguments_changed(a: Invocation, b: Invocation) -> str:
    what = _call(a) + (f" / {b.wire_id}" if b.wire_id and b.wire_id != a.wire_id else "")
    if a.raw_arguments is not None or b.raw_arguments is not None:
        return (f"the arguments of {what} differ: a {snippet(_args_text(a), 50)}, "
                f"b {snippet(_args_text(b), 50)}")
    pointer = first_difference(a.arguments, b.arguments) or ""
    va, vb = resolve_pointer(a.arguments, pointer), resolve_pointer(b.arguments, pointer)
    return (f"the arguments of {what} differ at {pointer or '/'}: a {_value(va)}, b {_value(vb)}")


def _value(value: Any) -> str:
    from .checks.replay import MISSING

    if value is MISSING:
        return "(missing)"
    text = dumps_str(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _simplified(full: Any, other: Any, path: str = "") -> list[str]:
    """What `other` lacks of `full`, among the keywords that constrain a call: properties, required
    fields, enums (at any depth)."""
    if not isinstance(full, dict):
        return []
    other = other if isinstance(other, dict) else {}
    lost: list[str] = []
    props = full.get("properties")
    theirs = other.get("properties") if isinstance(other.get("properties"), dict) else {}
    if isinstance(props, dict):
        gone = [k for k in props if k not in theirs]
        if gone and not theirs and props:
            lost.append(f"every parameter removed ({', '.join(map(_name, gone))})" if not path
                        else f"the parameters of {path} removed ({', '.join(map(_name, gone))})")
        elif gone:
            lost.extend(f"parameter {_name(path + k)} removed" for k in gone)
        for k, sub in props.items():
            if k in theirs:
                lost.extend(_simplified(sub, theirs[k], f"{path}{k}."))
    required = full.get("required")
    if isinstance(required, list):
        kept = other.get("required") if isinstance(other.get("required"), list) else []
        gone_props = set(props) - set(theirs) if isinstance(props, dict) else set()
        lost.extend(f"required {_name(path + str(k))} removed" for k in required
                    if k not in kept and k not in gone_props)
    enum = full.get("enum")
    if isinstance(enum, list):
        kept = other.get("enum")
        where = _name(path.rstrip(".")) if path else "the arguments"
        if not isinstance(kept, list):
            lost.append(f"the enum of {where} removed ({', '.join(map(dumps_str, enum[:4]))})")
    items = full.get("items")
    if isinstance(items, dict):
        lost.extend(_simplified(items, other.get("items"), f"{path.rstrip('.')}[]."))
    return lost


def _name(path: str) -> str:
    return repr(path.rstrip("."))


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    out = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        out[f.severity] += 1
    return out


__all__ = ["DIFF_CODES", "SIDES", "Diff", "Note", "Pairing", "Place", "SidedFinding", "counts", "diff"]
