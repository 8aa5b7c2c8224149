"""Steps the TD1xx pairing-and-id rules share: which results answer which calls, which unbound
results are explained by a near-miss id or a duplicate, and what makes an id invalid.

Each function walks one conversation once (linear in its parts). A result left unbound by `link()`
is an orphan (TD101) unless a more precise rule explains it: a near-miss of an unanswered call's id
(TD103) or one result too many for an id-less call (TD105). Those rules and TD101/TD102 use the
same functions here, so a defect is reported once, by the rule that explains it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any, NamedTuple

from .. import formats
from ..chains import unseen_start
from ..formats.meta import own_meta
from ..jsonio import dumps_str
from ..model import Conversation, Invocation, Json, Part, Result, Text
from ..shorten import clip, plain, quote
from ..timeline import ExchangeRead
from .base import Context

#: Ids a program writes when it had no real id: a field name, a null stringified, a template.
PLACEHOLDERS = frozenset({
    "id", "ids", "call", "call_id", "call-id", "callid", "tool", "tool_id", "tool-id", "toolid",
    "tool_call_id", "tool-call-id", "toolcallid", "tool_use_id", "tool-use-id", "tooluseid",
    "function_call_id", "function-call-id", "functioncallid", "tool_use", "tool-use", "tool_call",
    "undefined", "null", "none", "nil", "nan", "string", "placeholder", "todo", "xxx", "[object object]",
})
_TEMPLATE = re.compile(r"^(\{\{.*\}\}|\{[A-Za-z_][\w.-]*\}|\$\{.*\}|<[^<>]*>|%s|%d|\?)$")
_PREFIX = r"(?s)([A-Za-z]+[_-])?(.+)"  # compiled where used
#: A truncated id must keep this many characters for the truncation to be recognisable.
_MIN_KEPT = 6


class Located(NamedTuple):
    """A part and where it is in its conversation (a named tuple: the pairing makes one per call
    and result of a conversation)."""

    turn: int
    part: int
    node: Any


#: `Located(*fields)` made from the tuple of its fields by a C call (a named tuple's own
#: constructor is a Python function, called for each call and result).
_located = partial(tuple.__new__, Located)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """An unbound result whose id is a damaged copy of an unanswered call's id."""

    result: Located
    call: Located
    how: str


def located(conv: Conversation) -> tuple[list[Located], list[Located]]:
    """The conversation's calls and its results, each in conversation order: one walk over its
    parts for both."""
    found: tuple[list[Located], list[Located]] = ([], [])
    calls, results = found
    for t, turn in enumerate(conv.turns):
        for p, part in enumerate(turn.parts):
            if isinstance(part, Invocation):
                calls.append(_located((t, p, part)))
            elif isinstance(part, Result):
                results.append(_located((t, p, part)))
    return found


def results_by_call(conv: Conversation, found: Iterable[Located] | None = None) -> dict[str, list[Located]]:
    """Own invocation id → the results bound to it, in conversation order (`found`: the results of
    `located(conv)`, when known)."""
    out: dict[str, list[Located]] = {}
    for r in found if found is not None else located(conv)[1]:
        if r.node.invocation_id is not None:
            out.setdefault(r.node.invocation_id, []).append(r)
    return out


def invalid_id(wire_id: str | None) -> str | None:
    """Why an id is unusable (empty, blank, padded, a placeholder), or None when it is fine."""
    if wire_id is None:
        return None
    if wire_id == "":
        return "empty"
    if not wire_id.strip():
        return "blank (whitespace only)"
    if wire_id != wire_id.strip():
        return "padded with whitespace"
    if wire_id.lower() in PLACEHOLDERS or _TEMPLATE.match(wire_id):
        return "a placeholder"
    return None


def missing_id(reads: Sequence[ExchangeRead], part: Invocation | Result) -> tuple[str, str] | None:
    """(its wire format, the key that format requires the id under) for a call (or result) read
    without an id; None when it has one, was not read from a wire format, or its format has no such
    requirement: Gemini's ids are optional, and the legacy Chat Completions `function_call` and
    `role: "function"` message (as the reader marks them) predate call ids."""
    if part.wire_id is not None:  # (most parts: their source's place is not worked out)
        return None
    exchange = part.source.exchange
    if exchange is None or not 0 <= exchange < len(reads):
        return None
    fmt = reads[exchange].format
    keys = formats.facts(fmt).call_id_keys if fmt is not None else None
    if fmt is None or keys is None:
        return None
    own = own_meta(fmt, part.meta)
    if own.get("function_call") is True or own.get("role") == "function":
        return None
    return fmt, keys[0 if isinstance(part, Invocation) else 1]


def near_miss(result_id: str, call_id: str) -> str | None:
    """How `result_id` is a damaged copy of `call_id` (re-cased, truncated, prefix rewritten…), or
    None when the two are simply different ids. Only structural damage counts: two random ids that
    happen to share characters are not close."""
    if result_id == call_id or not result_id or not call_id:
        return None
    if result_id.strip() == call_id.strip():
        return "whitespace added or trimmed"
    if result_id.lower() == call_id.lower():
        return "re-cased"
    # repeated: `whose` names the long id, the one that holds the other several times
    for short, long, whose in ((result_id, call_id, "the call's"), (call_id, result_id, "the result's")):
        if len(long) % len(short) == 0 and long == short * (len(long) // len(short)):
            return f"repeated: {whose} id is the other's, {len(long) // len(short)} times over"
    if call_id.startswith(result_id) and len(result_id) >= _MIN_KEPT:
        return f"truncated to {len(result_id)} of {len(call_id)} characters"
    if result_id.startswith(call_id) and len(call_id) >= _MIN_KEPT:
        return f"extended: the call's id is the first {len(call_id)} characters of the result's"
    rp, rb = _split(result_id)
    cp, cb = _split(call_id)
    if rb == cb and rp != cp and (len(rb) >= _MIN_KEPT or (rp and cp)):
        if not rp:
            return f"prefix {quote(cp)} dropped"
        if not cp:
            return f"prefix {quote(rp)} added"
        return f"prefix {quote(cp)} rewritten to {quote(rp)}"
    return None


def _split(wire_id: str) -> tuple[str, str]:
    """`call_abc` → ("call_", "abc"); an id of any characters (line breaks too) splits."""
    match = re.compile(_PREFIX).fullmatch(wire_id)
    if match is None:  # the empty id
        return "", wire_id
    return match.group(1) or "", match.group(2)


def mismatches(conv: Conversation, by_call: Mapping[str, Any] | None = None,
               found: tuple[list[Located], list[Located]] | None = None) -> list[Mismatch]:
    """Every unbound result whose id is a near miss of an unanswered call in the latest turn with
    calls before it (each call claimed once). `by_call`: `results_by_call(conv)`, and `found`:
    `located(conv)`, when known."""
    located_calls, located_results = found if found is not None else located(conv)
    answered = set(by_call if by_call is not None else results_by_call(conv, located_results))
    out: list[Mismatch] = []
    claimed: set[str] = set()
    latest = _LatestCalls(located_calls)
    for result in located_results:
        part = result.node
        if part.invocation_id is not None or not part.wire_id:
            continue
        for call in latest.before(result.turn):
            node = call.node
            if node.id in answered or node.id in claimed or not node.wire_id:
                continue
            how = near_miss(part.wire_id, node.wire_id)
            if how is not None:
                claimed.add(node.id)
                out.append(Mismatch(result, call, how))
                break
    return out


class _LatestCalls:
    """The calls of the latest turn with calls before a turn, asked for turns in order: found by
    walking the conversation's calls once, not its every part."""

    def __init__(self, located: list[Located]) -> None:
        self._calls = located
        self._next = 0  # the first call not yet passed
        self._latest: list[Located] = []

    def before(self, turn: int) -> list[Located]:
        located, at = self._calls, self._next
        while at < len(located) and located[at].turn < turn:
            end = at + 1
            while end < len(located) and located[end].turn == located[at].turn:
                end += 1
            self._latest, at = located[at:end], end
        self._next = at
        return self._latest


def will_continue(result: Result) -> bool:
    """Gemini `functionResponse.willContinue: true`: more responses for the same call follow."""
    node: Any = result.meta
    for key in ("gemini", "extra", "functionResponse", "willContinue"):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node is True


def extra_results(conv: Conversation, by_call: Mapping[str, Any] | None = None,
                  found: tuple[list[Located], list[Located]] | None = None
                  ) -> tuple[list[tuple[Located, list[Located]]], list[Located]]:
    """Unbound results that come after every id-less call of their name in the latest turn with
    calls was answered: (the extra results, each with those calls) and the continuations among them
    (the call's previous result announced more with `willContinue`, not a defect). `by_call` and
    `found`: as for `mismatches`."""
    located_calls, located_results = found if found is not None else located(conv)
    answered = set(by_call if by_call is not None else results_by_call(conv, located_results))
    extra: list[tuple[Located, list[Located]]] = []
    continued: list[Located] = []
    latest: dict[str, Result] = {}
    latest_calls = _LatestCalls(located_calls)
    for result in located_results:
        part = result.node
        if part.invocation_id is not None:
            latest[part.invocation_id] = part
            continue
        last_calls = latest_calls.before(result.turn)
        if part.name is None or (part.wire_id is not None
                                 and any(c.node.wire_id is not None for c in last_calls)):
            continue  # bound by id: an unknown id is an orphan, not an extra result
        same = [c for c in last_calls if c.node.name == part.name]
        if not same or not all(c.node.id in answered for c in same):
            continue
        going_on = [c for c in same if c.node.id in latest and will_continue(latest[c.node.id])]
        if going_on:
            latest[going_on[-1].node.id] = part
            continued.append(result)
        else:
            extra.append((result, same))
    return extra, continued


def explained_orphans(conv: Conversation) -> set[tuple[int, int]]:
    """(turn, part) of the unbound results a more precise rule explains: a near-miss id (TD103), an
    extra result (TD105), or no defect at all (a Gemini `willContinue` continuation)."""
    return Paired(conv).explained_orphans


class Paired:
    """One conversation's pairing as the functions above give it, each part worked out on first
    use and kept: several TD1xx rules ask for the same ones (`paired`)."""

    def __init__(self, conv: Conversation) -> None:
        self.conv = conv

    @cached_property
    def located(self) -> tuple[list[Located], list[Located]]:
        return located(self.conv)

    @cached_property
    def calls(self) -> list[Located]:
        return self.located[0]

    @cached_property
    def results(self) -> list[Located]:
        return self.located[1]

    @cached_property
    def results_by_call(self) -> dict[str, list[Located]]:
        return results_by_call(self.conv, self.results)

    @cached_property
    def mismatches(self) -> list[Mismatch]:
        return mismatches(self.conv, self.results_by_call, self.located)

    @cached_property
    def extra_results(self) -> tuple[list[tuple[Located, list[Located]]], list[Located]]:
        return extra_results(self.conv, self.results_by_call, self.located)

    @cached_property
    def near_misses(self) -> set[tuple[int, int]]:
        """(turn, part) of the unbound results whose id is a damaged copy of a call's (TD103)."""
        return {(m.result.turn, m.result.part) for m in self.mismatches}

    @cached_property
    def extras(self) -> set[tuple[int, int]]:
        """(turn, part) of the unbound results after their call was answered (TD105)."""
        return {(r.turn, r.part) for r, _ in self.extra_results[0]}

    @cached_property
    def explained_orphans(self) -> set[tuple[int, int]]:
        """`explained_orphans`: the near misses, the extras and the continuations."""
        return self.near_misses | self.extras | {(r.turn, r.part) for r in self.extra_results[1]}


def paired(ctx: Context, conv: Conversation) -> Paired:
    """`conv`'s pairing, kept for the run: each rule that asks shares it (the TD1xx rules and TD304,
    the last)."""
    return ctx.shared(f"pairing.{id(conv)}", lambda: Paired(conv), until="TD304")


def continues_unseen(ctx: Context, conv: Conversation) -> bool:
    """Does the conversation begin by continuing provider-stored state the log does not hold (a
    Responses `previous_response_id` of a response not in the log, or a `conversation` first seen
    here)? Its results may then answer calls made before the capture began. A chained request whose
    stored response is in the log was stitched after it (`tooldbg.chains`): its calls are in the
    timeline, and a result answering none of them is an orphan."""
    return unseen_start(conv, ctx.exchanges(conv)) is not None


def short(wire_id: str | None, limit: int = 40) -> str:
    """An id for a message: quoted, cut when very long."""
    if wire_id is None:
        return "(no id)"
    return quote(wire_id, limit)


def describe(call: Invocation, limit: int = 60) -> str:
    """`i2 get_weather({"city":"Bergen"})`, cut when long."""
    if call.raw_arguments is not None:
        args = call.raw_arguments
    else:
        args = dumps_str(call.arguments, sort_keys=True)
    return f"{call.id} {plain(call.name)}({clip(args, limit)})"


def result_text(parts: tuple[Part, ...]) -> str:
    """The readable content of a result, for matching words in it."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, Text):
            out.append(part.text)
        elif isinstance(part, Json):
            out.append(dumps_str(part.value))
        elif isinstance(part, Result):
            out.append(result_text(part.content))
    return "\n".join(out)


def string_leaves(value: Any) -> Iterator[str]:
    """Every string value inside a JSON value (keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from string_leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from string_leaves(v)
