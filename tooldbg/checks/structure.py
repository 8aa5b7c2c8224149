"""Steps the TD4xx order-and-structure rules and the TD6xx loop rules share.

A stitched conversation mixes turns the client *sent* (the history of its latest request) with the
answer it got back, and a turn keeps the source of the exchange it first appeared in. Structure rules
judge what a request sent, in that request's wire format, so `views()` gives each conversation with

* `format`: the wire format of the request that sent the history (None for a canonical document);
* `sent`: `turns[:sent]` went out in that request, the rest is the answer not yet replayed;
* `wire`: those turns as that request carried them, so a finding can point into the request a
  provider would reject rather than at the response the turn first came from;
* `units`: the wire message each turn belongs to. Readers split one wire message into several turns
  (an Anthropic, Gemini or Bedrock user message holding results and text becomes a `tool` turn and a
  `user` turn with one source); the unit puts them back together. A provider that combines
  consecutive messages of one role (Anthropic, `Facts.merges_roles`) validates them as one, so there
  a unit is a run of same-role messages.

`answers()` walks every response of every exchange, with the conversation turn it became. Every
function here is one pass over the log.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import formats
from ..formats.base import Assembled, Response
from ..formats.reading import chunk_for
from ..jsonio import dumps_str
from ..model import Conversation, Invocation, Opaque, Part, Text, Turn
from ..shorten import quote
from ..source import Source
from ..timeline import ExchangeRead
from .base import Context

#: Finish / stop reasons that announce tool calls in the message.
CALL_FINISH = frozenset({"tool_calls", "function_call", "tool_use"})
_CALL_TYPES = ("tool_use", "_call", "toolUse", "functionCall", "function_call")


@dataclass(frozen=True, slots=True)
class View:
    """One conversation as its latest request sent it (see the module docstring); `units[t]` is the
    wire message of turn `t` and `roles[u]` the wire role (user, assistant, system) of message `u`."""

    conversation: Conversation
    request: ExchangeRead | None
    format: str | None
    sent: int
    wire: tuple[Turn, ...]
    units: tuple[int, ...]
    roles: tuple[str, ...]
    #: (unit, the indices of its turns) for every wire message, in order: worked out with the view,
    #: once for the several rules that walk them.
    groups: tuple[tuple[int, tuple[int, ...]], ...]

    def source(self, t: int, p: int | None = None) -> Source:
        """Where turn `t` (part `p`) is in the request that sent it; its own source otherwise."""
        turn = self.wire[t] if t < len(self.wire) else self.conversation.turns[t]
        return turn.source if p is None else turn.parts[p].source


def wire_role(turn: Turn) -> str:
    """The role of the wire message a turn came from: results ride in user messages."""
    return turn.role if turn.role in ("assistant", "system") else "user"


def views(ctx: Context) -> list[View]:
    """Each conversation as its latest request sent it, worked out once for every rule that asks."""
    return ctx.shared("structure.views", lambda: list(_views(ctx)), until="TD601")


def _views(ctx: Context) -> Iterator[View]:
    for conv in ctx.conversations:
        reads = ctx.exchanges(conv)
        last = reads[-1] if reads else None
        if last is None:  # a canonical document: every turn was part of the history
            fmt, wire = None, conv.turns
        elif last.request is None:  # a response-only capture
            fmt, wire = last.format, ()
        else:
            fmt, wire = last.format, last.history(conv)[:len(conv.turns)]
        sent = len(wire)
        units: list[int] = []
        roles: list[str] = []
        previous: Any = None
        merges = fmt is not None and formats.facts(fmt).merges_roles
        for t, turn in enumerate(conv.turns):
            role = wire_role(turn)
            key: Any = object()  # a turn of its own
            if t < sent and fmt is not None:
                s = wire[t].source
                key = role if merges else (s.exchange, s.side, s.location, s.pointer)
            if units and key == previous:
                units.append(units[-1])
            else:
                units.append(len(roles))
                roles.append(role)
            previous = key
        requested = last if last is not None and last.request is not None else None
        yield View(conv, requested, fmt, sent, tuple(wire), tuple(units), tuple(roles), tuple(_groups(units)))


def _groups(units: list[int]) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(unit, the indices of its turns) for every wire message, in order (`View.groups`)."""
    start = 0
    for t in range(1, len(units) + 1):
        if t == len(units) or units[t] != units[start]:
            yield units[start], tuple(range(start, t))
            start = t


def blank(part: Any) -> bool:
    """A text part with nothing but white space (asked without `strip()`, which copies a long text
    that starts or ends with white space: every line-numbered tool output)."""
    text = part.text if isinstance(part, Text) else None
    return text is not None and (not text or text.isspace())


def whole_content(turn: Turn, part: Part) -> bool:
    """A text read from a message's string `content` (not from a block in a list)."""
    return part.source.pointer == turn.source.pointer + "/content"


def call_like(part: Part) -> bool:
    """A tool call, modelled or kept verbatim (server tools, unknown call types)."""
    if isinstance(part, Invocation):
        return True
    if isinstance(part, Opaque) and isinstance(part.value, dict):
        kind = part.value.get("type")
        return (isinstance(kind, str) and kind.endswith(_CALL_TYPES)
                or any(k in part.value for k in ("toolUse", "functionCall", "function_call")))
    return False


def label(call: Invocation) -> str:
    """How a message names a call: its wire id, else its name and own id."""
    if call.wire_id:
        return quote(call.wire_id, 40)
    return f"{quote(call.name)} ({call.id})"


def arguments_key(call: Invocation) -> str:
    if call.arguments is None and call.raw_arguments is not None:
        return "raw:" + call.raw_arguments
    return dumps_str(call.arguments, sort_keys=True)


@dataclass(frozen=True, slots=True)
class Answer:
    """One response of one exchange that carries a turn (where in a conversation that turn is:
    `placed`)."""

    read: ExchangeRead
    response: Response
    stream: Assembled | None

    def finish_source(self) -> tuple[Source, int | None]:
        """The finish reason's location (and, for a stream, the chunk that carried it)."""
        wire = self.read.exchange.response
        fmt = self.read.format
        pointer = formats.facts(fmt).finish_pointer if fmt is not None else ""
        source = Source(exchange=self.read.exchange.index, side="response",
                        location=wire.location if wire is not None else "", pointer=pointer)
        chunk = chunk_for(self.stream.chunks, pointer) if self.stream is not None else None
        return source, chunk


def answers(ctx: Context) -> list[Answer]:
    """Every response that carries a turn (found once for every rule that asks)."""
    return ctx.shared("structure.answers", lambda: list(_answers(ctx)))


def _answers(ctx: Context) -> Iterator[Answer]:
    for read in ctx.reads:
        streams: tuple[Assembled | None, ...] = read.streams or (None,) * len(read.responses)
        for response, stream in zip(read.responses, streams, strict=False):
            if response.turn is not None:
                yield Answer(read, response, stream)


def placed(ctx: Context, answer: Answer) -> tuple[Conversation | None, int | None]:
    """The conversation an answer belongs to, and the turn of it the answer's turn became (None
    when it became none): looked up in an index of the response turns made once a run, when a rule
    first asks (the rules that do ask about few answers)."""
    where = ctx.shared("structure.placed", lambda: _response_turns(ctx))
    assert answer.response.turn is not None
    s = answer.response.turn.source
    found = where.get((s.exchange, s.location, s.pointer, s.chunk))
    if found is not None:
        return found
    read = answer.read
    return (ctx.loaded.conversation(read.conversation) if read.conversation is not None else None), None


def _response_turns(ctx: Context) -> dict[tuple[Any, ...], tuple[Conversation, int]]:
    where: dict[tuple[Any, ...], tuple[Conversation, int]] = {}
    for conv in ctx.conversations:
        for t, turn in enumerate(conv.turns):
            s = turn.source
            if s.side == "response":
                where.setdefault((s.exchange, s.location, s.pointer, s.chunk), (conv, t))
    return where
