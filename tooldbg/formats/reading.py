"""What the formats' readers and stream assemblers share: linking calls and results (`link`),
reading typed wire fields (a `FormatError` at the field otherwise), turning wire messages into
canonical turns, stream events and their chunks, data URLs and media types."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from operator import is_
from threading import Lock
from typing import TYPE_CHECKING, Any

from ..constructors import new_turn
from ..errors import FormatError
from ..jsonio import dumps, try_loads
from ..model import Invocation, Part, Result, Text, Tool, Turn, is_role
from ..shorten import quote
from ..source import Source

if TYPE_CHECKING:
    from .base import StreamEvent


# ------------------------------------------------------------------------ linking calls and results


def link(turns: Sequence[Turn], prior: Sequence[Turn] = ()) -> tuple[Turn, ...]:
    """Give every invocation its own id and bind every result to the call it answers.

    Ids are positional (`i1`, `i2`, … counting the invocations of `prior` first), so a history
    replayed in a later request keeps the ids it had. A result binds to the latest earlier call with
    the same `wire_id`; a result with no wire id (Gemini without ids, legacy OpenAI `function`
    messages, a client that had no id to quote) or an empty one binds to the first unanswered call
    of the same name in the latest assistant turn that made calls — the provider's own positional
    rule. Unbound results keep `invocation_id` None.
    A bound result without a tool name of its own takes its call's, so a result reads the same
    whether or not its format carries the name.
    """
    return _link(turns, prior, fresh=False)


def link_read(turns: Sequence[Turn], prior: Sequence[Turn] = ()) -> tuple[Turn, ...]:
    """`link` for the turns a reader has just made, which nothing else holds yet (each part object
    once): their calls and results are given their ids in place, as a frozen dataclass's
    `__post_init__` finishes a value, instead of being made a second time (that second copy of
    every call and result was a sixth of a conversion)."""
    return _link(turns, prior, fresh=True)


def _link(turns: Sequence[Turn], prior: Sequence[Turn], fresh: bool) -> tuple[Turn, ...]:
    state = _state_after(tuple(prior))
    linked = _link_after(state, turns, fresh)
    _remember((*prior, *linked), state)
    return linked


def listed_from(messages: list[Any], start: int) -> Iterator[tuple[int, Any]]:
    """The messages a request read covers, from `start` on (see `Format.read_request`), each with
    its index in the whole list, so that sources point into the whole body as they are made."""
    return enumerate(islice(messages, start, None), start)


def linked_after(prior: tuple[Turn, ...], turns: Sequence[Turn]) -> tuple[Turn, ...]:
    """A request's turns: `prior` (the turns of the messages before the read's start, linked) and
    `turns`, just read, linked after them (`link_read`), as a read of the whole list links them."""
    return (*prior, *link_read(turns, prior)) if prior else link_read(turns)


class Linker:
    """`link` as it goes: what the turns linked so far declared and bound. A timeline that grows a
    few turns at a time (a chained Responses conversation, `tooldbg.chains`) keeps one and links only
    its new turns, instead of reading its whole history again each time."""

    def __init__(self, prior: Sequence[Turn] = ()) -> None:
        self._state = _state_after(tuple(prior))

    def link(self, turns: Sequence[Turn]) -> tuple[Turn, ...]:
        """`turns` linked after everything linked (or given as prior) before them."""
        return _link_after(self._state, turns, fresh=False)

    def link_read(self, turns: Sequence[Turn]) -> tuple[Turn, ...]:
        """`link` for turns a reader has just made, which nothing else holds yet: their calls and
        results given their ids in place (as `link_read` does), not made a second time."""
        return _link_after(self._state, turns, fresh=True)


class ReadLinker:
    """`link_read` done as a reader reads, for a reader that knows where its turns end: a call is
    made with its own id (`next_id`, then kept in `calls` until its turn ends) and a result with the
    call it answers (`bind`), instead of both being made first and then walked again to be given
    them (that walk was a seventh of reading a request). Linked so, turns are what `linked_after`
    makes of them: a turn ends at the end of each message and before a run of results, as
    `split_results` splits them."""

    __slots__ = ("_state", "calls", "next_id")

    def __init__(self, prior: tuple[Turn, ...] = ()) -> None:
        self._state = _state_after(prior)
        #: The calls of the turn being read.
        self.calls: list[Invocation] = []
        #: The own id of the next call (the state's own method: one call a call, not two).
        self.next_id: Callable[[], str] = self._state.next_id

    def bind(self, wire_id: str | None, name: str | None = None) -> tuple[str | None, str | None]:
        """(the own id of the call a result with `wire_id` answers, or None; the result's name, its
        call's when it has none: a result that names its tool is bound, by position, to a call of
        that name only). The calls read before a result end their turn."""
        if self.calls:
            self.end_turn()
        return self._state.bind(wire_id, name)

    def end_turn(self) -> None:
        if self.calls:
            self._state.called(self.calls)
            self.calls = []

    def linked(self, prior: tuple[Turn, ...], turns: Sequence[Turn]) -> tuple[Turn, ...]:
        """`prior` and the `turns` read with this linker: what `linked_after(prior, turns)` gives."""
        self.end_turn()
        linked = (*prior, *turns)
        _remember(linked, self._state)
        return linked


#: The fields `link_read` fills in on the parts a reader has just made (through their slots).
_SET_CALL_ID = vars(Invocation)["id"].__set__
_SET_BOUND = vars(Result)["invocation_id"].__set__
_SET_RESULT_NAME = vars(Result)["name"].__set__


def _link_after(state: _Linking, turns: Sequence[Turn], fresh: bool) -> tuple[Turn, ...]:
    """`turns` linked after what `state` knows, which learns them as they go (`fresh`: see
    `link_read`)."""
    out = []
    for turn in turns:
        parts: list[Part] | None = None  # the linked parts, once one differs (never when `fresh`)
        calls: list[Invocation] = []
        for p, part in enumerate(turn.parts):
            linked = part
            if type(part) is Text:  # (the usual part: nothing to link)
                if parts is not None:
                    parts.append(part)
                continue
            if type(part) is Invocation:
                own = state.next_id()
                if part.id != own:
                    if fresh:
                        _SET_CALL_ID(part, own)
                    else:
                        linked = replace(part, id=own)
                calls.append(linked)  # type: ignore[arg-type]  # (an Invocation)
            elif type(part) is Result:
                bound, name = state.bind(part.wire_id, part.name)
                if part.invocation_id != bound or part.name != name:
                    if fresh:
                        _SET_BOUND(part, bound)
                        _SET_RESULT_NAME(part, name)
                    else:
                        linked = replace(part, invocation_id=bound, name=name)
            if linked is not part and parts is None:
                parts = list(turn.parts[:p])
            if parts is not None:
                parts.append(linked)
        if parts is not None:
            turn = replace(turn, parts=tuple(parts))  # (a turn linked as it was stays the same object)
        if calls:
            state.called(calls)  # (its results were marked answered as they bound)
        out.append(turn)
    return tuple(out)


@dataclass(slots=True)
class _Linking:
    """What `link` knows after some turns: the calls counted, their names, the calls by wire id,
    the latest turn's calls and the calls answered."""

    counter: int = 0
    names: dict[str, str] = field(default_factory=dict)
    by_wire: dict[str, str] = field(default_factory=dict)
    last_calls: list[Invocation] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)

    def add(self, turn: Turn) -> None:
        """Learn a turn linked before: its calls counted, and its results."""
        calls = list(turn.invocations())
        self.counter += len(calls)
        self.called(calls)
        for r in turn.results():
            if r.invocation_id:
                self.answered.add(r.invocation_id)

    def next_id(self) -> str:
        """The own id of the next call (counted)."""
        self.counter = n = self.counter + 1
        return _CALL_IDS[n] if n < len(_CALL_IDS) else _more_call_ids(n)

    def bind(self, wire_id: str | None, name: str | None) -> tuple[str | None, str | None]:
        """(the own id of the call a result answers, or None; the result's name, its call's when it
        has none of its own), the call marked answered."""
        bound = self.by_wire.get(wire_id) if wire_id is not None else None  # (the usual result)
        if bound is not None:
            self.answered.add(bound)
        else:
            bound = _bind(wire_id, name, self.by_wire, self.last_calls, self.answered)
        return bound, name if name is not None or bound is None else self.names[bound]

    def called(self, calls: list[Invocation]) -> None:
        """Learn the calls of a turn, already counted (none: the latest calls stay the latest)."""
        if calls:
            self.last_calls = calls
            for c in calls:
                self.names[c.id] = c.name
                if c.wire_id is not None:
                    self.by_wire[c.wire_id] = c.id

    def copy(self) -> _Linking:
        return _Linking(self.counter, dict(self.names), dict(self.by_wire), list(self.last_calls),
                        set(self.answered))


#: The state after the last few linked histories, with their turns. Each request of an agent loop
#: links its new turns after the history it replays, which is the very turn objects an earlier `link`
#: returned or was given (`tooldbg.history`, `tooldbg.stitch`): starting from the state after the
#: longest such prefix, a history is walked once, not once per request.
_KNOWN: deque[tuple[tuple[Turn, ...], _Linking]] = deque(maxlen=16)
_KNOWN_LOCK = Lock()


def _state_after(prior: tuple[Turn, ...]) -> _Linking:
    """A fresh state after `prior`: from a remembered prefix of it (the same turn objects), else
    from nothing."""
    if not prior:
        return _Linking()
    with _KNOWN_LOCK:
        start, state = 0, None
        for turns, known in _KNOWN:
            n = len(turns)
            if start < n <= len(prior) and prior[n - 1] is turns[-1] and all(map(is_, prior, turns)):
                start, state = n, known
        state = state.copy() if state is not None else _Linking()
    for turn in prior[start:]:
        state.add(turn)
    return state


def forget_links() -> None:
    """Let go of the remembered histories and tool lists (`load` calls it when a file is read: they
    hold its turns and its bodies' values)."""
    with _KNOWN_LOCK:
        _KNOWN.clear()
    for memo in _READ_ONCE:
        memo.forget()


#: `i1`, `i2`, …: the own ids counted so far, made once (formatting a number was a quarter of
#: linking a call), and shared by every call that has one.
_CALL_IDS = ["i0"]
_CALL_IDS_LOCK = Lock()


def _more_call_ids(n: int) -> str:
    """The own id of call `n`, `_CALL_IDS` made long enough to hold it."""
    with _CALL_IDS_LOCK:
        _CALL_IDS.extend(f"i{k}" for k in range(len(_CALL_IDS), 2 * n))
    return _CALL_IDS[n]


def _remember(turns: tuple[Turn, ...], state: _Linking) -> None:
    with _KNOWN_LOCK:
        _KNOWN.append((turns, state))


def _bind(wire_id: str | None, name: str | None, by_wire: dict[str, str], last_calls: list[Invocation],
          answered: set[str]) -> str | None:
    if wire_id is not None:
        found = by_wire.get(wire_id)
        if found is not None:
            answered.add(found)
            return found
        # The wire named an id no call has: an orphan, unless the calls carried no ids at all. An
        # empty or blank id names nothing: the result is paired by position, like one without an id.
        if wire_id.strip() and any(c.wire_id is not None for c in last_calls):
            return None
    for call in last_calls:
        if call.id not in answered and (name is None or call.name == name):
            answered.add(call.id)
            return call.id
    return None


#: Every `ReadOnce`, for `forget_links` to empty.
_READ_ONCE: list[ReadOnce] = []


class ReadOnce:
    """A reader of one wire value (a request's tool list) that reads an equal value once.

    An agent loop declares the same tools in every request. When the value given is the one read
    last (the same object, or the same JSON), the tools read then come back with sources moved into
    the new body, instead of being read again. Equality is of the JSON text, not of Python values,
    which hold `1`, `1.0` and `true` equal. (Moving a tool's source costs a new `Tool`: it pays
    where a tool takes more reading than that, as a Chat `function` tool does, not an Anthropic one.)"""

    def __init__(self, read: Callable[[Any, Source], tuple[Tool, ...]]) -> None:
        self._read = read
        #: (the value read last, its JSON text or None until a comparison needed it, where in its
        #: body it was read, the tools read): a value read once and never met again (a request
        #: body converted on its own) is not written out as JSON for nothing.
        self._last: list[Any] | None = None
        _READ_ONCE.append(self)

    def forget(self) -> None:
        self._last = None

    def __call__(self, value: Any, source: Source) -> tuple[Tool, ...]:
        last = self._last
        where = (source.pointer, source.chunk)
        text = None
        if last is not None and last[2] == where:
            known, known_text, _, tools = last
            if known is value:
                return tuple(replace(t, source=t.source.rebased(source)) for t in tools)
            if known_text is None:
                known_text = last[1] = dumps(known)
            text = dumps(value)
            if known_text == text:
                return tuple(replace(t, source=t.source.rebased(source)) for t in tools)
        tools = self._read(value, source)
        self._last = [value, text, where, tools]
        return tools


def parse_arguments(raw: Any) -> tuple[Any, str | None]:
    """Wire `arguments` → (parsed value, raw string kept only when it is not valid JSON)."""
    if not isinstance(raw, str):
        return raw, None
    ok, value = try_loads(raw)
    return (value, None) if ok else (None, raw)


def chunk_for(chunks: dict[str, int], pointer: str) -> int | None:
    """The event that opened the node at `pointer` (longest pointer prefix in `chunks`)."""
    exact = chunks.get(pointer)
    if exact is not None:  # (its own pointer is its longest prefix: a streamed part's, `/content/2`)
        return exact
    best, best_len = None, -1
    for prefix, index in chunks.items():
        if (pointer == prefix or pointer.startswith(prefix + "/")) and len(prefix) > best_len:
            best, best_len = index, len(prefix)
    return best


def stamp_chunks(turn: Turn, chunks: dict[str, int]) -> None:
    """Stamp the stream chunk that opened each part onto the part's source, and the turn's onto its
    own: in place, on a turn a reader has just made of an assembled stream, which nothing else holds
    yet (as `link_read` gives its calls their ids), not on a copy of the turn and of each part (those
    copies were a third of stamping a streamed response)."""
    if chunks:
        for part in turn.parts:
            _SET_PART_SOURCE(part, _chunked(part.source, chunks))
        _SET_TURN_SOURCE(turn, _chunked(turn.source, chunks))


def _chunked(source: Source, chunks: dict[str, int]) -> Source:
    pointer = source.pointer
    return source.at(pointer, chunk_for(chunks, pointer))


#: The `source` of a part (every part class's, through its base's slot) and of a turn.
_SET_PART_SOURCE = vars(Part)["source"].__set__
_SET_TURN_SOURCE = vars(Turn)["source"].__set__


def expect_dict(value: Any, source: Source, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatError(f"{what} must be an object, not {type_name(value)}", source.pointer)
    return value


def expect_list(value: Any, source: Source, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise FormatError(f"{what} must be a list, not {type_name(value)}", source.pointer)
    return value


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number", Pieces: "a string"}.get(type(value), "a value")


class Pieces:
    """A string a stream assembler is still building: its pieces, joined once the stream is
    assembled (`joined`). Adding each piece to the string copies the string so far every time: a
    long output would take time in the square of its length."""

    __slots__ = ("pieces",)

    def __init__(self, *pieces: str) -> None:
        self.pieces = list(pieces)


def joined(value: Any) -> Any:
    """`value` with every `Pieces` in it joined into its string."""
    if isinstance(value, Pieces):
        return "".join(value.pieces)
    if isinstance(value, dict):
        return {k: joined(v) for k, v in value.items()}
    if isinstance(value, list):
        return [joined(v) for v in value]
    return value


# ------------------------------------------------------------------------ data URLs and media types


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


# ------------------------------------------------------------------------ reading typed wire fields


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


# -------------------------------------------------------------------------------- turns and streams


def split_results(role: str, parts: Iterable[Part], source: Source) -> list[Turn]:
    """One wire message → turns: each run of tool results becomes a `tool` turn and the rest `role`
    turns, since the canonical form keeps results apart (an empty message: one empty turn)."""
    if not is_role(role):
        raise FormatError(f"unknown role {quote(role)}", source.child("role").pointer)
    parts = tuple(parts)
    kinds = set(map(type, parts))
    if Result not in kinds:  # (the usual message: no result, or nothing but results)
        return [new_turn(role, parts, source)]
    if len(kinds) == 1:
        return [new_turn("tool", parts, source)]
    turns: list[Turn] = []
    run: list[Part] = []
    results = False  # whether `run` holds results
    for part in parts:
        if isinstance(part, Result) is not results:
            if run:
                turns.append(Turn(role="tool" if results else role, parts=tuple(run), source=source))
                run = []
            results = not results
        run.append(part)
    if run or not turns:
        turns.append(Turn(role="tool" if results else role, parts=tuple(run), source=source))
    return turns


def event_type(event: StreamEvent) -> str | None:
    """The payload's `type`, else the SSE `event:` name."""
    kind = event.data.get("type") if isinstance(event.data, dict) else None
    return kind if isinstance(kind, str) and kind else event.name


def event_types(events: Sequence[StreamEvent]) -> list[str | None]:
    """`event_type` of each event. When every payload is an object with a non-empty string `type`
    (a stream of Anthropic or Responses events), those types, read without a function call per
    event (half the cost): `dict.get` on a payload that is not an object and `str.join` on a type
    that is not a string raise TypeError, and an empty type fails `all`; then each event is asked."""
    get = dict.get
    try:
        kinds: list[Any] = [get(event.data, "type") for event in events]
        "".join(kinds)
        if all(kinds):
            return kinds
    except TypeError:  # a payload that is not an object, a `type` that is not a string
        pass
    return [event_type(event) for event in events]


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

