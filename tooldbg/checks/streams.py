"""What the TD5xx stream rules share: each assembled stream with its raw events, findings located
at the chunk that broke the assembly (and at the turn and call it broke, when that is certain), and
the judgements the assemblers leave to the rules:

* a Responses capture whose `sequence_number`s only ever skip forward is missing events (recorders
  and fixture writers trim long delta runs, e.g. vercel/ai's `openai-phase.1.chunks.txt`); the
  `.done` events and `response.completed` still carry every value whole, so the order problems from
  the first missing event on are artefacts of the capture, not of the stream;
* a Responses identity problem at `response.output_item.done` whose item there is whole was
  finalized by the server, as the API lets it (`finalized_item`).

Everything else — including a Chat Completions fragment repeating its call's `id` or `name`, which
openai-python glues into `call_xcall_x` — is recorded by the format's assembler, once, at its chunk.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import formats
from ..formats.base import Assembled, StreamEvent, StreamProblem
from ..jsonio import count_values
from ..model import Conversation, Invocation, Part
from ..source import Source
from ..timeline import ExchangeRead
from .base import Context, Finding


@dataclass(slots=True)
class Stream:
    """One assembled stream of an exchange, with the raw events it was assembled from."""

    read: ExchangeRead
    assembled: Assembled
    events: list[StreamEvent]
    _where: tuple[Conversation | None, int | None] | None = None

    @property
    def format(self) -> str | None:
        return self.read.format

    def problems(self, kind: str) -> Iterator[StreamProblem]:
        return (p for p in self.assembled.problems if p.kind == kind)

    def finding(self, ctx: Context, message: str, chunk: int | None, *, kind: str | None = None,
                severity: str | None = None, harm: str | None = None) -> Finding:
        """A finding about this stream, pointing at the chunk (the text report shows that raw event)
        and, where it is certain, at the turn the stream became and the call the chunk opened."""
        conversation, turn = self._locate(ctx)
        part = _part(conversation.turns[turn].parts, chunk, kind) \
            if conversation is not None and turn is not None else None
        wire = self.read.exchange.response
        source = Source(file=ctx.loaded.path, exchange=self.read.exchange.index, side="response",
                        location=wire.location if wire is not None else "")
        return ctx.at(message, conversation=conversation, turn=turn, part=part, source=source, chunk=chunk,
                      severity=severity, harm=harm)

    def _locate(self, ctx: Context) -> tuple[Conversation | None, int | None]:
        """The conversation, and the turn read from this stream's response if the conversation still
        holds it as received (a turn that changed on replay is the request's, not the stream's)."""
        if self._where is None:
            read = self.read
            conversation = ctx.loaded.conversation(read.conversation) if read.conversation else None
            opened = set(self.assembled.chunks.values())
            turn = next((t for t, tr in enumerate(conversation.turns if conversation else ())
                         if tr.source.exchange == read.exchange.index and tr.source.side == "response"
                         and (len(read.streams) == 1 or tr.source.chunk in opened)), None)
            self._where = (conversation, turn)
        return self._where


def streams(ctx: Context) -> list[Stream]:
    """Every assembled stream of the file, in log order (found once per run for all stream rules)."""
    return ctx.shared("streams.streams", lambda: list(_streams(ctx)))


def _streams(ctx: Context) -> Iterator[Stream]:
    for read in ctx.reads:
        if not read.streams:
            continue
        events = read.exchange.response.events if read.exchange.response is not None else None
        groups: list[list[StreamEvent]] = []
        if events and read.format is not None and len(read.streams) > 1:  # (one stream: every event)
            groups = [g for g in formats.get(read.format).split_streams(events) if g]
        if len(groups) != len(read.streams):
            groups = [list(events or ())] * len(read.streams)
        for assembled, group in zip(read.streams, groups, strict=True):
            yield Stream(read, assembled, group)


def _part(parts: tuple[Part, ...], chunk: int | None, kind: str | None) -> int | None:
    """The one call the chunk opened; for broken arguments, failing that, the one call whose
    arguments did not parse. None when that is not a single call."""
    calls = [(p, part) for p, part in enumerate(parts) if isinstance(part, Invocation)]
    opened = [p for p, part in calls if chunk is not None and part.source.chunk == chunk]
    if len(opened) == 1:
        return opened[0]
    if kind == "arguments":
        # unparsed: kept raw (Chat, Responses), or left a string where an object belongs (Bedrock)
        broken = [p for p, part in calls if part.raw_arguments is not None or isinstance(part.arguments, str)]
        if len(broken) == 1:
            return broken[0]
    return None


def glued(text: str | None) -> int:
    """How many JSON values `text` holds back to back (`{"a":1}{"b":2}` → 2); 0 when it is not a
    run of JSON values at all."""
    return count_values(text) if text else 0


# ------------------------------------------------------------------------ judgements on problems


def missing_from(stream: Stream) -> tuple[int, int] | None:
    """(the chunk from which a Responses capture lacks events, how many it lacks): the first event
    whose `sequence_number` skips ahead (or the first event, when the capture starts after 0). None
    when nothing is missing, when the format numbers no events, or when a number ever goes back —
    events then arrived reordered, which is the stream's fault, not the recorder's."""
    if stream.format != "openai-responses":
        return None
    first_gap, last, lacking = None, None, 0
    for event in stream.events:
        number = event.data.get("sequence_number") if isinstance(event.data, dict) else None
        if not isinstance(number, int) or isinstance(number, bool):
            continue
        if last is not None and number <= last:
            return None
        expected = 0 if last is None else last + 1
        if number > expected:
            lacking += number - expected
            first_gap = event.index if first_gap is None else first_gap
        last = number
    return (first_gap, lacking) if first_gap is not None else None


def finalized_item(stream: Stream, problem: StreamProblem) -> bool:
    """A Responses identity problem raised at `response.output_item.done` whose item there is whole
    (a non-empty `call_id` and `name`): the server finalized the item, as the API lets it — the SDK
    and tooldbg take the `.done` values (OpenAI itself renews a `tool_search_call`'s call_id there)."""
    if problem.chunk is None:
        return False
    event = next((e for e in stream.events if e.index == problem.chunk), None)
    data = event.data if event is not None else None
    if not isinstance(data, dict) or data.get("type") != "response.output_item.done":
        return False
    item = data.get("item")
    if not isinstance(item, dict) or not _text(item.get("call_id")):
        return False
    return _text(item.get("name")) or item.get("type") not in ("function_call", "custom_tool_call")


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)
