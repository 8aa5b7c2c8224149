"""What the TD2xx argument rules share: every tool call of a file, at each place it was sent, with
the wire value its arguments had there and the tools the request beside it declared.

The stitched conversation keeps a replayed turn at its first appearance, and canonically equal
calls hide wire differences (`"arguments": "{…}"` and `"arguments": {…}` read the same). A client
that receives good arguments and replays them wrongly is exactly what TD203/TD204 look for, so the
calls are walked per exchange — each request's turns, then each response's — and every occurrence
knows whether it is the `first` time this call (same place in the conversation, same content)
appears in the file. Rules about the content of a call (TD201, TD202, TD205, TD206, TD207) look at
first occurrences only, so a defect the model made is reported once, where it was made, and a call
later requests replay under a changed tool list is not judged again. Rules about the wire shape
(TD203, TD204) look at every occurrence and report each distinct finding once (`unique`).

A call from a stream whose assembly went wrong (arguments not JSON, the stream cut, fragments out
of order) is left to the TD5xx stream rules, which point at the chunk that broke it.
"""

from __future__ import annotations

from _blake2 import blake2b  # hashlib.blake2b itself (`import hashlib` loads OpenSSL)
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .. import formats
from ..formats.base import Assembled, Facts
from ..formats.freeform import is_freeform
from ..jsonio import descend, dumps, dumps_str, resolve, try_loads
from ..model import Conversation, Invocation, Tool, Turn
from ..records.containers import Message
from ..shorten import clip
from ..source import Source
from ..timeline import ExchangeRead
from .base import Context, Finding, same_start

#: Stream problems after which the assembled arguments are the stream rules' business.
BROKEN_STREAM = frozenset({"arguments", "truncated", "order"})


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(slots=True, eq=False)
class Call:
    """One occurrence of a tool call (made once and read by several rules: not changed after)."""

    conversation: Conversation | None
    turn: int
    part: int
    call: Invocation
    format: str | None
    #: The tools the request of this exchange declared; None when no request was read (a
    #: response-only log).
    declared: Declared | None
    #: Where the arguments sit on the wire below the call's own node (`at`); None when unknown.
    path: tuple[str, ...] | None
    #: The arguments exactly as the wire held them; MISSING when absent or when there is no wire.
    wire: Any
    first: bool
    broken_stream: bool = False
    #: A freeform (custom) tool call, whose input is plain text by design (`formats.freeform.is_freeform`).
    custom: bool = False
    #: How the call's wire format carries arguments (`Facts.arguments`): a JSON-encoded `string` or
    #: an `object`; None for a call with no wire format (a canonical document).
    encoding: Literal["string", "object"] | None = None

    @property
    def at(self) -> Source:
        """Where the arguments sit on the wire (the call's own source when that is unknown): made
        when a finding asks, not for every call."""
        return self.call.source.child(*self.path) if self.path is not None else self.call.source

    @property
    def has_wire(self) -> bool:
        return self.wire is not MISSING

    @property
    def name(self) -> str:
        return self.call.name

    def encoded_text(self) -> str | None:
        """The text a string format decodes into the arguments: the wire string, or, without a
        wire, the raw text the reader kept. None when there is no such text."""
        if self.has_wire:
            return self.wire if isinstance(self.wire, str) else None
        return self.call.raw_arguments


class Declared:
    """A request's tool list and what the rules ask of it (TD206, TD207), worked out once for the
    request, on first use, rather than for each of its calls."""

    __slots__ = ("tools", "_functions", "_names", "_dynamic")

    def __init__(self, tools: tuple[Tool, ...]) -> None:
        self.tools = tools
        self._functions: dict[str, Tool] | None = None
        self._names: list[str] | None = None
        self._dynamic: bool | None = None

    def functions(self) -> dict[str, Tool]:
        """`function_tools(tools)`."""
        if self._functions is None:
            self._functions = function_tools(self.tools)
        return self._functions

    def names(self) -> list[str]:
        """Every declared tool's name, once each, sorted."""
        if self._names is None:
            self._names = sorted({t.name for t in self.tools})
        return self._names

    def dynamic(self) -> bool:
        """Tools that can bring further tools in at run time (tool search, a namespace)."""
        if self._dynamic is None:
            self._dynamic = any("tool_search" in t.kind or t.kind == "namespace" for t in self.tools)
        return self._dynamic


def declared_again(latest: Declared | None, tools: tuple[Tool, ...]) -> Declared:
    """`Declared(tools)`, or `latest` when it holds the same tools: an agent sends its tool list again
    with every request, and working out what each declares was two fifths of TD207 (what a
    `Declared` answers depends on the tools' values alone: a property test holds it to that)."""
    if latest is not None and (latest.tools is tools or latest.tools == tools):
        return latest
    return Declared(tools)


def calls(ctx: Context) -> list[Call]:
    """Every tool call of the file, in log order (see the module docstring), gathered once for all
    the rules that ask."""
    return ctx.shared("arguments.calls", lambda: list(_calls(ctx)), until="TD207")


def _calls(ctx: Context) -> Iterator[Call]:
    seen: set[tuple[Any, ...]] = set()
    #: (turn object, conversation, turn index) already visited. A request keeps the very objects of
    #: the history it replays byte for byte (`tooldbg.history`), so the same turn at the same place
    #: has the same wire values, and the later occurrences of its calls would only repeat the first
    #: ones' findings (which point at the exchange that first sent them): each is visited once.
    visited: set[tuple[int, str | None, int]] = set()
    if not ctx.reads:  # a canonical document: its conversations are all there is
        for whole in ctx.conversations:
            document = Declared(whole.tools)
            for t, _, p, part in ctx.parts(whole):
                if isinstance(part, Invocation):
                    yield Call(whole, t, p, part, None, document, None,
                               MISSING, _first(seen, whole, t, p, part), custom=is_freeform(part))
        return
    #: Each conversation's latest request turns: the next request's first turns are mostly the
    #: very same objects, visited then, and skipped as a run rather than looked up one by one.
    latest: dict[str | None, tuple[Turn, ...]] = {}
    bodies = _Bodies(ctx.reads)
    declaring: Declared | None = None  # the latest request's tools
    for read in ctx.reads:
        if read.request is None and not read.responses:  # (a session log's record of no call)
            continue
        conv = ctx.loaded.conversation(read.conversation) if read.conversation else None
        facts = formats.facts(read.format) if read.format is not None else None
        declared = None
        if read.request is not None:
            declared = declaring = declared_again(declaring, read.request.tools)
        # (turn, the message or the assembled stream its sources point into, whether a broken
        # stream produced it), from the first turn not visited with the conversation's previous
        # request
        turns: list[tuple[Turn, Message | Assembled | None, bool]] = []
        start = 0
        if read.request is not None:
            start = same_start(latest.get(read.conversation, ()), read.request.turns)
            latest[read.conversation] = read.request.turns
            turns.extend((t, read.exchange.request, False) for t in read.request.turns[start:])
        for k, response in enumerate(read.responses):
            if response.turn is None:
                continue
            if read.streams:
                stream = read.streams[k] if k < len(read.streams) else None
                broken = stream is not None and any(p.kind in BROKEN_STREAM for p in stream.problems)
                turns.append((response.turn, stream, broken))
            else:
                turns.append((response.turn, read.exchange.response, False))
        for t, (turn, wire, broken) in enumerate(turns, start):
            place = (id(turn), read.conversation, t)
            if place in visited:
                continue
            visited.add(place)
            # (a response the conversation did not go on from — the request after it retried the
            # same history — has no place in its timeline: its calls are found at their source)
            placed = conv if conv is not None and t < len(conv.turns) else None
            for p, part in enumerate(turn.parts):
                if isinstance(part, Invocation):
                    container = bodies.node(part.source, read, wire)
                    yield _occurrence(read, container, placed, t, p, part, declared, broken, seen, facts)


class _Bodies:
    """The body each call's source points into, fetched only for calls (a log's record is parsed
    again when asked: `logs.session.Record`), the last one kept for the calls beside it."""

    def __init__(self, reads: list[ExchangeRead]) -> None:
        self._reads = reads
        self._last: tuple[Any, Any] = (None, None)  # (the message or stream, its body)

    def node(self, source: Source, read: ExchangeRead, wire: Message | Assembled | None) -> Any:
        """The node `source` points at in the body of `wire` (`read`'s request or response, or a
        stream assembled from it), or, for a call read from another record (an agent's session log
        builds a turn from a record a block), of the message its source names; None when there is
        no body."""
        root, tokens = source.tokens()  # (the place of a source is its root's: asked there)
        exchange = root.exchange
        if exchange is not None and exchange != read.exchange.index and 0 <= exchange < len(self._reads):
            other = self._reads[exchange].exchange
            wire = other.request if root.side == "request" else other.response
        if wire is None:
            return None
        if wire is not self._last[0]:
            self._last = (wire, wire.body)
        body = self._last[1]
        return wire_node(body, source, root.pointer, tokens) if body is not None else None


def wire_node(body: Any, source: Source, root: str, tokens: list[str | int]) -> Any:
    """`resolve(body, source.pointer)`, walked from the pointer of the source's root and the tokens
    below it (`Source.tokens`): printing each call's pointer and parsing it back was two fifths of
    the call index. A pointer that starts with an empty token (`//a`, `/`) is printed: `resolve`
    strips the slashes before its first token."""
    if root.lstrip("/") or (not root and (not tokens or tokens[0] != "")):
        return descend(resolve(body, root), tokens)
    return resolve(body, source.pointer)


def _occurrence(read: ExchangeRead, container: Any, conv: Conversation | None, t: int, p: int,
                part: Invocation, declared: Declared | None, broken: bool,
                seen: set[tuple[Any, ...]], facts: Facts | None) -> Call:
    fmt = read.format  # (its facts are given when it is not None)
    path = _arguments_path(fmt, part, container, facts.arguments_path) \
        if fmt is not None and facts is not None else None
    wire: Any = MISSING
    if path is not None and isinstance(container, dict):
        node: Any = container
        for key in path:
            if not isinstance(node, dict) or key not in node:
                node = MISSING
                break
            node = node[key]
        wire = node
    if type(wire) is dict and wire is not part.arguments and dumps(wire) == dumps(part.arguments):
        wire = part.arguments  # the same JSON: one copy kept (a session log's record was parsed again)
    first = not broken and _first(seen, conv, t, p, part)
    return Call(conv, t, p, part, read.format, declared, path, wire, first, broken,
                is_freeform(part), facts.arguments if facts is not None else None)


def _first(seen: set[tuple[Any, ...]], conv: Conversation | None, t: int, p: int,
           part: Invocation) -> bool:
    """Whether this call (its place and its content) is seen for the first time. Its content is
    kept as a digest: the arguments as JSON were kept for every call of the file, as long as they."""
    content = dumps([part.name, part.wire_id, part.raw_arguments, part.arguments], sort_keys=True)
    key = (conv.id if conv else None, t, p, blake2b(content, digest_size=16).digest())
    if key in seen:
        return False
    seen.add(key)
    return True


def _arguments_path(fmt: str, part: Invocation, container: Any,
                    usual: tuple[str, ...]) -> tuple[str, ...] | None:
    """Where a call of `fmt` keeps its arguments, relative to the call's own wire node: the format's
    `Facts.arguments_path` (`usual`), but for the shapes beside its function calls that some readers
    accept (custom tools, OpenAI's legacy `function_call`, Gemini's snake_case `function_call`)."""
    own = part.meta.get(fmt) if part.meta else None  # (most calls have no meta: no ABC check)
    own = own if own is not None and isinstance(own, Mapping) else {}
    if fmt == "openai-chat":
        if own.get("type") == "custom":
            return ("custom", "input")
        if own.get("function_call"):
            return ("arguments",)
    elif fmt == "openai-responses":
        if own.get("custom") is True:
            return ("input",)
    elif fmt == "gemini":
        if isinstance(container, dict) and "functionCall" not in container and "function_call" in container:
            return ("function_call", "args")
    return usual


def finding(ctx: Context, call: Call, message: str, *, at: Source | None = None) -> Finding:
    """A finding of the current rule about `call`, at its arguments unless `at` says otherwise."""
    return ctx.at(message, conversation=call.conversation, turn=call.turn, part=call.part,
                  source=at if at is not None else call.at)


def unique(ctx: Context, found: Iterable[tuple[Call, str]]) -> Iterator[Finding]:
    """A finding of each (call, message) once per place in the conversation (the first exchange that
    showed it). A call of a conversation is not judged again at a place and message it was judged at:
    its evidence is its turn's there, not its source's, so the finding would be the same (a response's
    call and its replay in the next request were judged alike, one of the two findings then dropped)."""
    judged: set[tuple[Any, ...]] = set()
    seen: set[tuple[Any, ...]] = set()
    for call, message in found:
        if call.conversation is not None:
            place = (call.conversation.id, call.turn, call.part, message)
            if place in judged:
                continue
            judged.add(place)
        f = finding(ctx, call, message)
        key = (f.conversation, f.turn, f.part, f.message)
        if key not in seen:
            seen.add(key)
            yield f


def decode_levels(text: str, limit: int = 4) -> tuple[int, Any]:
    """How many more times a JSON string decodes to a string before reaching the value:
    `'"{\\"a\\":1}"'` → (1, {"a": 1}) … counting only while each step decodes to a string."""
    levels, value = 0, text
    while isinstance(value, str) and levels < limit:
        ok, decoded = try_loads(value)
        if not ok:
            break
        value = decoded
        levels += 1
    return levels, value


def describe(value: Any) -> str:
    """A JSON value's kind, for messages: `an object`, `a string`, `null`…"""
    if value is MISSING:
        return "absent"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(value), "a value")


def short(value: Any, width: int = 60) -> str:
    text = value if isinstance(value, str) else dumps_str(value)
    return clip(dumps_str(text) if isinstance(value, str) else text, width)


def function_tools(tools: Iterable[Tool]) -> dict[str, Tool]:
    """Declared function (and custom) tools by name; hosted and provider-defined tools are left out."""
    return {t.name: t for t in tools if t.kind in ("function", "custom")}
