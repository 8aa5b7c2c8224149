"""What every provider module returns, and the steps they share.

Each provider module (`openai_chat`, `openai_responses`, `anthropic`, `gemini`, `bedrock`) has the
same public names, like msgspec's per-format modules:

    NAME                                   the format's name on the command line
    URL_HINTS                              substrings of an endpoint URL that name this format
    FACTS                                  a `Facts`: what the rest of tooldbg needs to know of the
                                           format (list key, finish pointer, argument encoding…)
    sniff(body, side) -> bool              does this parsed body look like this format?
    sniff_stream(events) -> bool           does this stream look like this format?
    read_request(body, source) -> Request  a request body as canonical turns (linked)
    read_response(body, source) -> Response  a response body (or an error body) as one turn
    split_streams(events) -> list[list[StreamEvent]]   a capture holding several responses
                                           back to back (a new `message_start`, `response.created`,
                                           `messageStart`…) split into one event list per response
    assemble_stream(events, source) -> Assembled   one response's events → the equivalent response
                                           body, exactly as the official SDK accumulates them
    write(conversation, *, target=None) -> Written   canonical → the request body that replays it
                                           (for `target`, a profile of the format such as
                                           `mistral`; the format itself by default), + losses,
                                           + where each wire item came from (`Written.origins`,
                                           recorded with `Writer.carries` as items are made)

`Format` below spells these out as a protocol: the registry in `formats/__init__.py` holds modules
typed by it, so a module missing a name, or with a signature that does not fit, fails type checking.

Readers raise only `FormatError` (with a JSON pointer); writers never raise on a valid canonical
conversation: what the target cannot carry is a `Loss` in the report.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, ValuesView
from copy import copy
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import Any, Literal, Protocol, TypeGuard, TypeVar

from ..errors import FormatError
from ..jsonio import try_loads
from ..model import (
    Conversation,
    Invocation,
    Loss,
    Opaque,
    Part,
    Result,
    Side,
    Source,
    Tool,
    ToolChoice,
    Turn,
    escape_pointer,
    is_role,
)
from ..targets import (
    Table,
    describe,
    fit_call_ids,
    fit_tool_name,
    fit_tool_names,
    passes,
    table,
    wire_format,
)

_Node = TypeVar("_Node", bound=Part | Turn | Tool | Conversation)
_Emitted = TypeVar("_Emitted")


@dataclass(frozen=True, slots=True)
class Request:
    """A request body read into canonical form; `turns` are linked (see `link`)."""

    turns: tuple[Turn, ...] = ()
    system: tuple[Part, ...] = ()
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice | None = None
    model: str | None = None
    stream: bool = False
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error body (`{"error": {...}}`, Bedrock `{"message": ...}`) or an in-stream error event."""

    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None


@dataclass(frozen=True, slots=True)
class Response:
    """A response body: the assistant turn (None for an error body) and what ended it."""

    turn: Turn | None = None
    finish_reason: str | None = None
    model: str | None = None
    usage: dict[str, Any] | None = None
    error: ApiError | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StreamEvent:
    """One event of a captured stream, at its position: `index` counts events from 0, `offset` is
    the byte (or character) offset of the event in the captured body, `name` the SSE `event:` field
    or the Bedrock `:event-type` header, `data` the parsed JSON payload (a str when it is not JSON,
    e.g. `[DONE]`)."""

    index: int
    data: Any
    name: str | None = None
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class StreamProblem:
    """Something that went wrong while assembling: at event `chunk` (None: the stream as a whole).
    `kind` is one of: order (index missing/reused/non-contiguous), arguments (not JSON once
    assembled), identity (id or name missing/changed), truncated (no terminal event), error (an
    error event), other."""

    kind: str
    message: str
    chunk: int | None = None


@dataclass(frozen=True, slots=True)
class Assembled:
    """A stream put back together: `body` has the shape of the format's non-streamed response, so
    `read_response(body)` reads it; `chunks` maps JSON pointers in `body` to the index of the event
    that opened that node (the longest matching prefix applies)."""

    body: Any
    chunks: dict[str, int] = field(default_factory=dict)
    problems: tuple[StreamProblem, ...] = ()
    complete: bool = True


#: What a written node carries: (turn, part) of the canonical conversation; part None for a node
#: that carries a turn as a whole (a message, or a top-level entry such as Anthropic's `system`).
Origin = tuple[int, int | None]


@dataclass(frozen=True, slots=True)
class Written:
    """A writer's output: the request body, everything it could not carry, and where each wire
    item came from: `origins` maps the JSON pointer of every node of `body` that carries canonical
    content (each item of the message list, each block in one that carries a part) to its
    `Origin`, in document order. A part may be carried by several nodes (a block and its cache
    point); a node that joins several parts (texts joined into one string) names the first, the
    writer reporting the join. Derived from `body`, so not compared."""

    body: dict[str, Any]
    losses: tuple[Loss, ...] = ()
    origins: Mapping[str, Origin] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Facts:
    """What the code outside a format's module needs to know about the format, declared once by the
    module as `FACTS` and read through `formats.facts(name)`: no other module keeps a table of
    formats. Every field is required, so a new format answers every question (tests/formats/
    test_facts.py checks the answers against the format's own reader and writer)."""

    name: str
    """The format's name: the module's `NAME`."""
    order: int
    """Where the format comes when formats are listed (distinct per format): `formats.WIRE_FORMATS`
    is sorted by it, and with it the CLI's `--input-format`/`--target` choices, `tooldbg formats`,
    `convert --to`, the TUI's wire-view cycle (`f`), its command palette and its export dialog."""
    messages_key: str
    """The request key of the message list the writer fills (`messages`, `input`, `contents`):
    `reserialize` finds a turn's wire items in it."""
    finish_pointer: str
    """The JSON pointer of the finish (stop) reason in a response body, or in the body assembled from
    a stream: findings about the finish reason (TD602) point there (`checks.structure.Answer`)."""
    arguments: Literal["string", "object"]
    """How a call's arguments travel: a JSON-encoded `string` (OpenAI) or a JSON `object`.
    `checks.arguments.Call.encoding` gives it to the argument rules: TD203 judges string formats,
    TD202, TD204, TD205 and TD206 object formats."""
    arguments_path: tuple[str, ...]
    """The keys from a function call's wire node to its arguments (`("function", "arguments")`,
    `("input",)`): `checks.arguments` reads the wire value there (custom tools and legacy shapes are
    its special cases), and TD204 names the field by the last key."""
    failure: Literal["flag", "error-key", "text"]
    """How a tool result says that the tool failed: a `flag` beside the content (Anthropic `is_error`,
    Bedrock `status`), an `error-key` in place of the output (Gemini `response.error`), or only in
    its `text`. TD304 judges `flag` formats; `checks.replay.lost_flags` (TD303) excuses a replay in
    a `text` format that says the failure in its text."""
    failure_wording: str | None
    """The failure marking as findings quote it (`is_error: true`), None for a `text` format: TD303
    and TD304 name it in their messages."""
    reasoning: str | None
    """What the format calls the reasoning that has to come back with a call (`thinking block`,
    `reasoning item`, `thoughtSignature`), None when it has none: TD307 names it."""
    strict_pairing: bool
    """The provider rejects a history whose results are not in the turn right after their calls:
    TD402 is then an error, not a warning."""
    merges_roles: bool
    """The provider combines consecutive messages of one role into one before validating them
    (Anthropic): `checks.structure.views` counts such a run as one wire message."""
    calls_last: bool
    """The provider rejects text (or another block) after a call in the same assistant message:
    TD405 judges the format."""
    rejects_blank_text: bool
    """The provider rejects a request holding an empty or whitespace-only text block: TD406 judges
    the format."""


# ------------------------------------------------------------------------------- the protocol


class Format(Protocol):
    """A provider module's public names (see the module docstring). Parameters are positional-only:
    callers pass them by position, and a module may name them as it likes (`conv`, `conversation`)
    or accept more (a `Sequence` of events, a default `source`)."""

    @property
    def NAME(self) -> str: ...

    @property
    def URL_HINTS(self) -> tuple[str, ...]: ...

    @property
    def FACTS(self) -> Facts: ...

    def sniff(self, body: Any, side: Side, /) -> bool: ...

    def sniff_stream(self, events: list[StreamEvent], /) -> bool: ...

    def read_request(self, body: Any, source: Source, /) -> Request: ...

    def read_response(self, body: Any, source: Source, /) -> Response: ...

    def split_streams(self, events: list[StreamEvent], /) -> list[list[StreamEvent]]: ...

    def assemble_stream(self, events: list[StreamEvent], source: Source, /) -> Assembled: ...

    def write(self, conversation: Conversation, /, *, target: str | None = None) -> Written: ...


# ------------------------------------------------------------------------------ shared steps


def link(turns: Sequence[Turn], prior: Sequence[Turn] = ()) -> tuple[Turn, ...]:
    """Give every invocation its own id and bind every result to the call it answers.

    Ids are positional (`i1`, `i2`, … counting the invocations of `prior` first), so a history
    replayed in a later request keeps the ids it had. A result binds to the latest earlier call with
    the same `wire_id`; a result with no wire id (Gemini without ids, legacy OpenAI `function`
    messages) binds to the first unanswered call of the same name in the latest assistant turn that
    made calls — the provider's own positional rule. Unbound results keep `invocation_id` None.
    A bound result without a tool name of its own takes its call's, so a result reads the same
    whether or not its format carries the name.
    """
    counter = sum(1 for t in prior for _ in t.invocations())
    names = {c.id: c.name for t in prior for c in t.invocations()}
    by_wire: dict[str, str] = {}
    last_calls: list[Invocation] = []
    answered: set[str] = set()
    for t in prior:
        _index(t, by_wire, last_calls, answered)
    out = []
    for turn in turns:
        parts = []
        for part in turn.parts:
            if isinstance(part, Invocation):
                counter += 1
                part = replace(part, id=f"i{counter}")
                names[part.id] = part.name
            elif isinstance(part, Result):
                bound = _bind(part, by_wire, last_calls, answered)
                name = part.name if part.name is not None or bound is None else names[bound]
                part = replace(part, invocation_id=bound, name=name)
            parts.append(part)
        turn = replace(turn, parts=tuple(parts))
        _index(turn, by_wire, last_calls, answered)
        out.append(turn)
    return tuple(out)


def _index(turn: Turn, by_wire: dict[str, str], last_calls: list[Invocation],
           answered: set[str]) -> None:
    calls = list(turn.invocations())
    if calls:
        last_calls[:] = calls
        for c in calls:
            if c.wire_id is not None:
                by_wire[c.wire_id] = c.id
    for r in turn.results():
        if r.invocation_id:
            answered.add(r.invocation_id)


def _bind(result: Result, by_wire: dict[str, str], last_calls: list[Invocation],
          answered: set[str]) -> str | None:
    if result.wire_id is not None:
        found = by_wire.get(result.wire_id)
        if found is not None:
            answered.add(found)
            return found
        # The wire named an id no call has: an orphan, unless the calls carried no ids at all.
        if any(c.wire_id is not None for c in last_calls):
            return None
    for call in last_calls:
        if call.id not in answered and (result.name is None or call.name == result.name):
            answered.add(call.id)
            return call.id
    return None


def parse_arguments(raw: Any) -> tuple[Any, str | None]:
    """Wire `arguments` → (parsed value, raw string kept only when it is not valid JSON)."""
    if not isinstance(raw, str):
        return raw, None
    ok, value = try_loads(raw)
    return (value, None) if ok else (None, raw)


def chunk_for(chunks: dict[str, int], pointer: str) -> int | None:
    """The event that opened the node at `pointer` (longest pointer prefix in `chunks`)."""
    best, best_len = None, -1
    for prefix, index in chunks.items():
        if (pointer == prefix or pointer.startswith(prefix + "/")) and len(prefix) > best_len:
            best, best_len = index, len(prefix)
    return best


def with_chunks(turn: Turn | None, chunks: dict[str, int]) -> Turn | None:
    """Stamp the stream chunk that opened each part onto the part's source."""
    if turn is None or not chunks:
        return turn
    parts = tuple(replace(p, source=p.source.at(p.source.pointer, chunk_for(chunks, p.source.pointer)))
                  for p in turn.parts)
    return replace(turn, parts=parts,
                   source=turn.source.at(turn.source.pointer, chunk_for(chunks, turn.source.pointer)))


def expect_dict(value: Any, source: Source, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatError(f"{what} must be an object, not {type_name(value)}", source.pointer)
    return value


def expect_list(value: Any, source: Source, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise FormatError(f"{what} must be a list, not {type_name(value)}", source.pointer)
    return value


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(value), "a value")


def loss_for(losses: list[Loss], message: str, turn: int | None = None,
             part: int | None = None) -> None:
    """Append one loss (a tiny helper so writers read as a list of decisions)."""
    losses.append(Loss(message, turn, part))


class Origins:
    """Records, as a writer emits them, which (turn, part) each wire node carries, and finds the
    nodes' JSON pointers once the body is final.

    Nodes are recorded by identity, so a writer marks a block where it makes it and need not know
    where it will end up: messages merged, reordered or dropped afterwards (an unanswered call
    left out) are found where they are in the final body, or not at all. A node emitted twice (a
    verbatim opaque value two parts share) is copied the second time: `mark` returns the node to
    emit. A string cannot be told apart by identity: mark the object holding it, with `at`
    naming the key (`mark(message, t, p, "/content")` when the text became the content string).

    `resolve` walks the body four levels deep (`/messages/3/content/1`), where writers put the
    nodes that carry parts; an item of a top-level list that is not marked but holds marks of a
    single turn carries that turn (`(turn, None)`)."""

    __slots__ = ("_at", "_at_codes", "_codes", "_keep", "_more")

    DEPTH = 4

    def __init__(self) -> None:
        # Origins packed into ints by node id, no container per mark: a writer makes tens of
        # thousands of marks, and every container allocated brings the next full garbage
        # collection (a pause of the interface) nearer.
        self._codes: dict[int, int] = {}  # id(node) → packed origin
        self._at: dict[int, str] = {}  # id(node) → the key path of its first keyed mark
        self._at_codes: dict[int, int] = {}  # id(node) → that mark's packed origin
        self._more: dict[int, list[tuple[str, int]]] = {}  # id(node) → its other keyed marks (rare)
        self._keep: list[Any] = []  # the marked nodes, alive: an id is not reused while marks hold it

    def mark(self, node: _Emitted, turn: int | None, part: int | None = None, at: str = "") -> _Emitted:
        """`node` (a dict or list the writer emits, or None: nothing) carries part `part` of turn
        `turn` (part None: the turn as a whole); nothing is recorded for content outside the turns
        (turn None). Mark each node once: the node returned is the one to emit."""
        if turn is None or node is None:
            return node
        code = turn << 32 | (0 if part is None else part + 1)  # see `_unpack`
        if at:
            self._mark_at(node, at, code)
            return node
        key = id(node)
        if key in self._codes:
            node = copy(node)
            key = id(node)
        self._codes[key] = code
        self._keep.append(node)
        return node

    def moved(self, node: Any, holder: dict[str, Any] | list[Any], at: str) -> None:
        """What `node` carried is now `holder`'s `at` (a one-text content list written as its string)."""
        code = self._codes.get(id(node))
        if code is not None:
            self._mark_at(holder, at, code)

    def _mark_at(self, node: Any, at: str, code: int) -> None:
        key = id(node)
        if key in self._at:
            self._more.setdefault(key, []).append((at, code))
        else:
            self._at[key] = at
            self._at_codes[key] = code
            self._keep.append(node)

    def resolve(self, body: dict[str, Any]) -> dict[str, Origin]:
        """The pointer of every marked node in `body`, in document order."""
        out: dict[str, Origin] = {}
        if self._keep:
            self._visit(body, "", 0, out, [])
        return out

    def later(self, body: dict[str, Any]) -> Mapping[str, Origin]:
        """`resolve(body)`, done the first time it is read: a convert never reads it."""
        return _Resolved(self, body) if self._keep else {}

    def _visit(self, node: Any, pointer: str, depth: int, out: dict[str, Any], seen: list[int]) -> None:
        """Record the marks on `node` and below it (their turns also in `seen`). Only containers
        are visited, and a pointer is made only for a container or a marked node: this walks every
        message of the body."""
        codes, at = self._codes, self._at
        self._record(node, pointer, out, seen)
        items = depth == 1 and type(node) is list  # a top-level list: messages, contents, input
        leaves = depth + 2 == self.DEPTH
        for key, child in node.items() if type(node) is dict else enumerate(node):
            kind = type(child)
            if kind is not dict and kind is not list:
                continue
            here = f"{pointer}/{_token(key)}"
            if leaves:  # `child` is the last level visited: its children are only looked up
                self._record(child, here, out, seen)
                for k, leaf in child.items() if kind is dict else enumerate(child):
                    if id(leaf) in codes or id(leaf) in at:
                        self._record(leaf, f"{here}/{_token(k)}", out, seen)
            elif items and id(child) not in codes:
                start = len(seen)
                out[here] = None  # the item's own origin, when its marks name one turn: first
                self._visit(child, here, 2, out, seen)
                turn = _only(seen, start)
                if turn is not None:
                    out[here] = (turn, None)
                else:
                    del out[here]
            else:
                self._visit(child, here, depth + 1, out, seen)

    def _record(self, node: Any, pointer: str, out: dict[str, Any], seen: list[int]) -> None:
        key = id(node)
        code = self._codes.get(key)
        if code is not None:
            out[pointer] = origin = _unpack(code)
            seen.append(origin[0])
        at = self._at.get(key)
        if at is not None:
            out[pointer + at] = origin = _unpack(self._at_codes[key])
            seen.append(origin[0])
            for suffix, code in self._more.get(key, ()):
                out[pointer + suffix] = origin = _unpack(code)
                seen.append(origin[0])


def _unpack(code: int) -> Origin:
    """The origin `mark` packed into one int: the turn above bit 32, the part + 1 below (0: None)."""
    part = code & 0xFFFFFFFF
    return code >> 32, part - 1 if part else None


def _only(turns: list[int], start: int) -> int | None:
    """The one turn `turns[start:]` names, if they name exactly one (no slice: no allocation)."""
    if start >= len(turns):
        return None
    first = turns[start]
    for k in range(start + 1, len(turns)):
        if turns[k] != first:
            return None
    return first


def _token(key: str | int) -> str | int:
    """A key or index as a JSON-pointer token (escaped only when it has to be)."""
    return key if isinstance(key, int) or ("~" not in key and "/" not in key) else escape_pointer(key)


class _Resolved(Mapping[str, Origin]):
    """`Origins.resolve(body)`, computed when first read (by one thread or several, alike)."""

    __slots__ = ("_body", "_marks", "_resolved")

    def __init__(self, marks: Origins, body: dict[str, Any]) -> None:
        self._marks, self._body = marks, body
        self._resolved: dict[str, Origin] | None = None

    def _origins(self) -> dict[str, Origin]:
        resolved = self._resolved
        if resolved is None:
            resolved = self._resolved = self._marks.resolve(self._body)
        return resolved

    def __getitem__(self, pointer: str) -> Origin:
        return self._origins()[pointer]

    def __iter__(self) -> Iterator[str]:
        return iter(self._origins())

    def __len__(self) -> int:
        return len(self._origins())

    # The dict's own views: iterating them runs in C, not through `__getitem__` per key.
    def keys(self) -> KeysView[str]:
        return self._origins().keys()

    def items(self) -> ItemsView[str, Origin]:
        return self._origins().items()

    def values(self) -> ValuesView[Origin]:
        return self._origins().values()

    def __repr__(self) -> str:
        return repr(self._origins())


class Writer:
    """What a writer class starts from: the conversation it writes, the losses it reports and the
    origins of what it emits (`carries`)."""

    def __init__(self, conversation: Conversation) -> None:
        self.conv = conversation
        self.losses: list[Loss] = []
        self.marks = Origins()

    def lose(self, message: str, turn: int | None = None, part: int | None = None) -> None:
        loss_for(self.losses, message, turn, part)

    def carries(self, node: _Emitted, turn: int | None, part: int | None = None, at: str = "") -> _Emitted:
        """Emit `node` as carrying part `part` of turn `turn` (see `Origins.mark`)."""
        return self.marks.mark(node, turn, part, at)

    def moved(self, node: Any, holder: dict[str, Any] | list[Any], at: str) -> None:
        """What `node` carried is now `holder`'s `at` (see `Origins.moved`)."""
        self.marks.moved(node, holder, at)

    def origins(self, body: dict[str, Any]) -> Mapping[str, Origin]:
        """Where the nodes marked so far sit in the final `body`, found when first read (see
        `Origins.resolve`)."""
        return self.marks.later(body)


def split_data_url(url: str) -> tuple[str | None, str | None]:
    """`data:image/png;base64,AAAA` → ("image/png", "AAAA"); anything else → (None, None)."""
    if not url.startswith("data:") or "," not in url:
        return None, None
    head, data = url[5:].split(",", 1)
    media_type = head.split(";", 1)[0] or None
    return media_type, data


def media_kind(media_type: str | None) -> str:
    """`image/png` → image, `application/pdf` → document, `audio/wav` → audio, else file."""
    if not media_type:
        return "file"
    top = media_type.split("/", 1)[0]
    if top in ("image", "audio", "video"):
        return top
    if media_type in ("application/pdf", "text/plain"):
        return "document"
    return "file"


def first(items: Iterable[Any]) -> Any:
    return next(iter(items), None)


# ------------------------------------------------------------------- reading typed wire fields


def optional_field(obj: Mapping[str, Any], key: str, kind: type, source: Source) -> Any:
    """`obj[key]` when present and not null, checked to be a `kind` (else a FormatError at it)."""
    value = obj.get(key)
    if value is not None and not isinstance(value, kind):
        raise FormatError(f"{key} must be {type_name(kind())}, not {type_name(value)}",
                          source.child(key).pointer)
    return value


def required_field(obj: Mapping[str, Any], key: str, kind: type, source: Source) -> Any:
    value = optional_field(obj, key, kind, source)
    if value is None:
        raise FormatError(f"{key} is required", source.child(key).pointer)
    return value


def optional_list(value: Any, source: Source, what: str) -> list[Any]:
    """`expect_list`, with an absent (null) list read as empty."""
    return [] if value is None else expect_list(value, source, what)


# ------------------------------------------------------------------------ format-specific meta


def unmodeled(obj: Mapping[str, Any], modeled: Iterable[str], *, empty: bool = False,
              defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The keys of a wire object its reader did not model, kept in meta for a faithful rewrite.
    Values that say nothing are left out: nulls, with `empty` also [] and {}, and a key at its
    `defaults` value (formats differ in which defaults their writers restore on their own)."""
    modeled = set(modeled)
    defaults = defaults or {}
    return {k: v for k, v in obj.items() if k not in modeled and v is not None
            and not (empty and (v == [] or v == {}))
            and not (k in defaults and type(v) is type(defaults[k]) and v == defaults[k])}


def meta_for(name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A node's `meta` holding format `name`'s details: `{name: values}`, or {} when there are none."""
    return {name: dict(values)} if values else {}


def own_meta(name: str, meta: Any) -> dict[str, Any]:
    """A copy of format `name`'s entry of a node's `meta` ({} when it has none)."""
    own = meta.get(name) if isinstance(meta, Mapping) else None
    return dict(own) if isinstance(own, Mapping) else {}


def with_meta(name: str, node: _Node, values: Mapping[str, Any]) -> _Node:
    """The node with `values` merged into its entry of format `name` (unchanged when empty)."""
    if not values:
        return node
    return replace(node, meta={**node.meta, name: {**own_meta(name, node.meta), **values}})


def report_foreign(name: str, meta: Mapping[str, Any], losses: list[Loss], turn: int | None = None,
                   part: int | None = None, what: str = "details") -> None:
    """Report as lost the details other formats kept on a node: only their writers can put them
    back, and a writer says what it cannot carry."""
    for origin in sorted(set(meta) - {name}):
        values = meta[origin]
        keys = ", ".join(sorted(map(str, values))) if isinstance(values, Mapping) else ""
        losses.append(Loss(f"{origin} {what} not carried" + (f": {keys}" if keys else ""), turn, part))


# ------------------------------------------------------------------- turns, streams, wire names


def split_results(role: str, parts: Iterable[Part], source: Source) -> list[Turn]:
    """One wire message → turns: each run of tool results becomes a `tool` turn and the rest `role`
    turns, since the canonical form keeps results apart (an empty message: one empty turn)."""
    if not is_role(role):
        raise FormatError(f"unknown role {role!r}", source.child("role").pointer)
    turns = [Turn(role="tool" if is_result else role, parts=tuple(run), source=source)
             for is_result, run in groupby(parts, key=lambda p: isinstance(p, Result))]
    return turns or [Turn(role=role, source=source)]


def event_type(event: StreamEvent) -> str | None:
    """The payload's `type`, else the SSE `event:` name."""
    kind = event.data.get("type") if isinstance(event.data, dict) else None
    return kind if isinstance(kind, str) and kind else event.name


def split_at(events: Sequence[StreamEvent],
             is_start: Callable[[StreamEvent], bool]) -> list[list[StreamEvent]]:
    """Responses captured back to back → one event list each: a start event opens the next list
    once the current one has had its own start (anything before the first start stays with it)."""
    groups: list[list[StreamEvent]] = []
    started = False
    for event in events:
        starts = is_start(event)
        if not groups or (starts and started):
            groups.append([])
            started = False
        groups[-1].append(event)
        started = started or starts
    return groups


def as_index(value: Any) -> int | None:
    """`value` when it can index a list (an integer ≥ 0, not a boolean), else None: stream events
    address their blocks and items so."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def is_own_opaque(part: Part, name: str) -> TypeGuard[Opaque]:
    """An Opaque format `name`'s reader made (a wire object): its writer puts it back verbatim.
    The part comes first: a TypeGuard narrows its function's first argument."""
    return isinstance(part, Opaque) and part.origin == name and isinstance(part.value, dict)


# ------------------------------------------------------------------ ids and names a target accepts


def writer_target(name: str, target: str | None) -> str:
    """The target a format `name`'s writer writes for: its own name by default, or a profile that
    speaks it (`mistral` for openai-chat); any other is a ValueError."""
    target = target or name
    if wire_format(target) != name:
        raise ValueError(f"the {name} writer cannot write for {target!r}")
    return target


class Fitting:
    """The call ids and tool names a writer emits, made to fit its target through
    `tooldbg.targets` — the same table the TD801/TD806 pre-flight judges with — in one code path
    for every writer.

    Planned over the whole conversation before anything is written, so a call, every result that
    answers it and a `tool_choice` naming a tool agree wherever they are written: every distinct tool
    name maps to one written name, and distinct names stay distinct (Gemini binds results by name);
    a name or id that already fits is kept, and one made to fit never takes its place. Ids: each
    call's wire id (a call without one gets `id_prefix` + its canonical id, none when `id_prefix` is
    None; so does a result that answers no call and has no id); calls that share a wire id keep
    sharing the written one unless `unique_ids` (the target rejects repeated ids), and a result
    takes its call's written id. The methods return what to write and report each rewrite as a loss
    at the turn and part given; what cannot be made to fit is written as it is and said so."""

    def __init__(self, conv: Conversation, target: str, losses: list[Loss], *,
                 id_prefix: str | None = "call_", unique_ids: bool = False) -> None:
        self.target = target
        self.losses = losses
        limits = table(target) or Table()
        self._name_rules, self._id_rules = describe(limits.tool_name), describe(limits.call_id)
        names = [t.name for t in conv.tools]
        names += [p.name for t in conv.turns for p in t.parts
                  if isinstance(p, Invocation | Result) and p.name is not None]
        if conv.tool_choice is not None and conv.tool_choice.name is not None:
            names.append(conv.tool_choice.name)
        self._names_used: set[str] = set()
        self._names = fit_tool_names(target, dict.fromkeys(names), used=self._names_used)
        # Id slots: a wire id shared by several calls is one slot unless ids must be unique; the
        # calls' own ids come first, so an id made up for a call without one never takes theirs.
        slots: dict[tuple[str, str], str] = {}
        made: dict[tuple[str, str], str] = {}
        self._slot: dict[str, tuple[str, str]] = {}  # call key → its slot
        self._wire: dict[str, str | None] = {}  # call key → the call's own wire id
        for t, turn in enumerate(conv.turns):
            for p, part in enumerate(turn.parts):
                if isinstance(part, Invocation):
                    key = part.id or f"@{t}.{p}"
                    self._wire[key] = part.wire_id
                    if part.wire_id is not None:
                        slot = ("call", key) if unique_ids else ("wire", part.wire_id)
                        slots.setdefault(slot, part.wire_id)
                    elif id_prefix is not None:
                        slot = ("call", key)
                        made[slot] = id_prefix + ("".join(c for c in key if c.isascii() and c.isalnum())
                                                  or str(len(made)))
                    else:
                        continue
                    self._slot[key] = slot
                elif isinstance(part, Result) and (part.invocation_id is None
                                                   or part.invocation_id not in self._wire):
                    if part.wire_id is not None:  # a result answering no call: its own id, fitted
                        slots.setdefault(("wire", part.wire_id), part.wire_id)
                    elif id_prefix is not None:
                        made[("result", f"@{t}.{p}")] = f"{id_prefix}{t}_{p}"
        self._ids = fit_call_ids(target, {**slots, **made})

    # ---- tool names

    def name(self, name: str, turn: int | None = None, part: int | None = None) -> str:
        """The name to write for tool `name` (declared, called, answered or forced)."""
        written = self.written_name(name)
        if self._names[name] is None:
            self.losses.append(Loss(f"tool name {name!r} cannot be made to fit {self.target} "
                                    f"({self._name_rules}); written as it is", turn, part))
            return name
        if written != name:
            self.losses.append(Loss(f"tool name {name!r} does not fit {self.target} ({self._name_rules}); "
                                    f"wrote {written!r}", turn, part))
        return written

    def written_name(self, name: str) -> str:
        """The name `name` is written as (wherever it is), without reporting anything."""
        if name not in self._names:
            self._names[name] = fit_tool_name(self.target, name, self._names_used)
        return self._names[name] or name

    # ---- call ids

    def written_id(self, invocation_id: str | None) -> str | None:
        """The id written for the call with canonical id `invocation_id` (None: it has none, or
        there is no such call), without reporting anything."""
        if invocation_id is None or invocation_id not in self._wire:
            return None
        slot = self._slot.get(invocation_id)
        written = self._ids.get(slot) if slot is not None else None
        return written if written is not None else self._wire[invocation_id]

    def call_id(self, call: Invocation, turn: int | None, part: int) -> str | None:
        """The id to write for `call` (None when it has none and none is made: Gemini)."""
        key = call.id or f"@{turn}.{part}"
        slot = self._slot.get(key)
        if slot is None:
            return call.wire_id
        written = self._ids[slot]
        old = call.wire_id
        if written is None:
            self.losses.append(Loss(f"call id {old!r} cannot be made to fit {self.target} "
                                    f"({self._id_rules}); written as it is", turn, part))
            return old
        if old is None:
            self.losses.append(Loss(f"call had no id; wrote {written!r}", turn, part))
        elif written != old:
            why = (f"does not fit {self.target} ({self._id_rules})" if not self.fits_id(old)
                   else "is already used")
            self.losses.append(Loss(f"call id {old!r} {why}; wrote {written!r}", turn, part))
        return written

    def result_id(self, result: Result, turn: int | None, part: int) -> str | None:
        """The id to write for `result`: its call's written id (None when its call has none), or,
        for a result that answers no call, its own id made to fit."""
        if result.invocation_id is not None and result.invocation_id in self._wire:
            written = self.written_id(result.invocation_id)
            if written is not None and written != result.wire_id:
                self.losses.append(Loss(f"result had no id; wrote {written!r}, its call's id"
                                        if result.wire_id is None else
                                        f"result id {result.wire_id!r} written as {written!r}, its call's id",
                                        turn, part))
            return written
        if result.wire_id is None:
            made = self._ids.get(("result", f"@{turn}.{part}"))
            if made is not None:
                self.losses.append(Loss(f"result had no id and answers no call; wrote {made!r}", turn, part))
            return made
        fitted = self._ids.get(("wire", result.wire_id))
        if fitted is None:
            self.losses.append(Loss(f"result id {result.wire_id!r} cannot be made to fit {self.target} "
                                    f"({self._id_rules}); written as it is", turn, part))
            return result.wire_id
        if fitted != result.wire_id:
            self.losses.append(Loss(f"result id {result.wire_id!r} does not fit {self.target} "
                                    f"({self._id_rules}); wrote {fitted!r}", turn, part))
        return fitted

    def fits_id(self, value: str) -> bool:
        return passes(value, (table(self.target) or Table()).call_id)
