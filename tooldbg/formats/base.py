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
    write(conversation) -> Written         canonical → the request body that replays it, + losses

`Format` below spells these out as a protocol: the registry in `formats/__init__.py` holds modules
typed by it, so a module missing a name, or with a signature that does not fit, fails type checking.

Readers raise only `FormatError` (with a JSON pointer); writers never raise on a valid canonical
conversation: what the target cannot carry is a `Loss` in the report.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    is_role,
)
from ..shorten import message as one_message
from ..shorten import quote

_Node = TypeVar("_Node", bound=Part | Turn | Tool | Conversation)


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", one_message(self.message))  # one bounded line


@dataclass(frozen=True, slots=True)
class Assembled:
    """A stream put back together: `body` has the shape of the format's non-streamed response, so
    `read_response(body)` reads it; `chunks` maps JSON pointers in `body` to the index of the event
    that opened that node (the longest matching prefix applies)."""

    body: Any
    chunks: dict[str, int] = field(default_factory=dict)
    problems: tuple[StreamProblem, ...] = ()
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Written:
    """A writer's output: the request body and everything it could not carry."""

    body: dict[str, Any]
    losses: tuple[Loss, ...] = ()


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

    def write(self, conversation: Conversation, /) -> Written: ...


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


class Writer:
    """What a writer class starts from: the conversation it writes and the losses it reports."""

    def __init__(self, conversation: Conversation) -> None:
        self.conv = conversation
        self.losses: list[Loss] = []

    def lose(self, message: str, turn: int | None = None, part: int | None = None) -> None:
        loss_for(self.losses, message, turn, part)


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
        raise FormatError(f"unknown role {quote(role)}", source.child("role").pointer)
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


def unique_id(base: str, used: set[str], limit: int | None = None) -> str:
    """`base`, else the first of `base_2`, `base_3`… not in `used` (and now added to it): an id a
    writer makes up is deterministic and unique. With `limit`, the plain id is cut to it and a
    suffixed one keeps room for `_` and five digits."""
    candidate, n = base[:limit], 1
    while candidate in used:
        n += 1
        candidate = f"{base[:limit - 6] if limit else base}_{n}"
    used.add(candidate)
    return candidate


def safe_tool_name(name: str) -> str:
    """`name` under the tool-name rule Anthropic, Bedrock and OpenAI Chat share,
    `^[a-zA-Z0-9_-]{1,64}$`: other characters become `_`, cut to 64 (`tool` when empty)."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64] or "tool"
