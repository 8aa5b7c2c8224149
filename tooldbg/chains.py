"""Responses requests that continue state stored by the provider, stitched into one timeline.

In the OpenAI Responses API a client can continue a conversation without replaying it: a request
names `previous_response_id` (the server prepends that response's input and output) or a
`conversation` (the Conversations API: the server prepends the conversation's items, and adds each
completed response's input and output to it). The next request then carries only the new input
items, typically the `function_call_output` items. See `previous_response_id` and `conversation` in
openai-python `src/openai/types/responses/response_create_params.py` and
https://platform.openai.com/docs/guides/conversation-state. Such a chain has no replayed history to
hash, so `Stitcher` hands these requests to `ResponseChains`, which keeps, for each response id and
conversation id the log has shown, the conversation it belongs to and how long its timeline was
when that response completed.

A chained request continues that conversation: its timeline is the stored turns (the same objects,
so each turn still points at the exchange that sent or received it), then its own input, then the
response. The request keeps its own turns (linked after the stored ones, so a call's id and a
result's binding are the timeline's); `Thread.stored` says how many stored turns precede them, which
is where the request's turns start in the timeline.

Choices, for what the log cannot say:

- Branches. A request that names a response its conversation has already gone past (a second
  request with the same `previous_response_id`: a retry after a rejection, a regenerated answer) is
  a new conversation sharing the prefix up to that response; the first continuation keeps the
  original conversation. Likewise a `conversation` whose last request got no response (the server
  added nothing) is continued by a new conversation from its last completed response.
- A stored response that is not in the log (the capture began mid-session): the request starts a
  conversation of its own, mid-way. Its results may answer calls the log never showed; TD101 does
  not call them orphans (`checks.pairing.continues_unseen`).
- `instructions` and `tools` are not inherited by `previous_response_id` (the docstring of
  `instructions` says so): each request's own are the conversation's, as for replayed requests.
- `store: false` makes a response that cannot be continued later; a request that names one anyway is
  answered with an error, which the log then holds. It is stitched like any other.

Cost: one dictionary probe per chained request, and the new turns hashed and linked once; the
stored turns are neither hashed nor linked again (a branch links its prefix once). A chained
conversation keeps the turn hashes the replay path compares, so a client that switches mid-session
to replaying the history in full goes on in the same conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .formats.base import Request, Response
from .formats.reading import Linker
from .model import Conversation, Turn
from .shorten import one_line
from .timeline import ExchangeRead, Thread

#: The only wire format with provider-stored conversation state, and its request keys naming it.
FORMAT = "openai-responses"
STATE_KEYS = ("previous_response_id", "conversation")


@dataclass(frozen=True, slots=True)
class Stored:
    """What a chained request continues: where the log last saw the state it named."""

    thread: Thread | None  # None: the state is not in the log
    length: int  # turns of the thread's timeline that the state holds

    @property
    def continued(self) -> Thread | None:
        """The thread a request naming this state goes on with: None when the state is not in the
        log, or when the thread has gone past it already (the request is a branch)."""
        thread = self.thread
        return thread if thread is not None and self.length == len(thread.conversation.turns) else None


def stored_key(request: Request) -> tuple[str, str] | None:
    """The stored state a request continues: `("previous_response_id", id)` or `("conversation",
    id)` (a string or `{"id": …}` on the wire), or None for a request that replays its history."""
    meta = request.meta.get(FORMAT)
    if meta is None or not isinstance(meta, Mapping):  # (most requests: no ABC check)
        return None
    previous = meta.get("previous_response_id")
    if isinstance(previous, str) and previous:
        return "previous_response_id", previous
    conversation = meta.get("conversation")
    if isinstance(conversation, Mapping):
        conversation = conversation.get("id")
    if isinstance(conversation, str) and conversation:
        return "conversation", conversation
    return None


def unseen_start(conversation: Conversation, reads: Sequence[ExchangeRead]) -> tuple[str, str] | None:
    """The stored state (key, id) a conversation begins by continuing when the log does not hold it
    (the capture began mid-session), given the exchanges stitched into it (`Loaded.reads_of`): its
    timeline then starts with the first one's own input, not with turns before it."""
    if not reads:
        return None
    first, exchange = reads[0].request, reads[0].exchange.index
    key = stored_key(first) if first is not None else None
    if key is None or (conversation.turns and conversation.turns[0].source.exchange != exchange):
        return None
    return key


def unseen_note(conversation: Conversation, reads: Sequence[ExchangeRead]) -> str | None:
    """What the views say of a conversation that begins mid-way (see `unseen_start`)."""
    key = unseen_start(conversation, reads)
    if key is None:
        return None
    return (f"continues {key[0]} {one_line(key[1], 200)}, which is not in this log: turns the provider "
            "stored before it are not shown")


def response_id(response: Response) -> str | None:
    meta = response.meta.get(FORMAT)
    rid = meta.get("id") if isinstance(meta, Mapping) else None
    return rid if isinstance(rid, str) else None


NewThread = Callable[[int, Conversation, list[bytes]], "Thread"]
Hash = Callable[[Turn], bytes]


def _state_of(request: Request) -> dict[str, Any]:
    """The stored-state keys of a request as the wire had them."""
    own = request.meta.get(FORMAT)
    return {k: own[k] for k in STATE_KEYS if k in own} if isinstance(own, Mapping) else {}


def _with_state(meta: Mapping[str, Any], start: Mapping[str, Any] | None) -> dict[str, Any]:
    """A chained conversation's meta: the last request's, but naming stored state only when the
    conversation begins with state the log does not hold (the turns it has are then not the whole
    history, and a writer that replays them must say so); a chain stitched from its first request
    holds its whole history."""
    out = dict(meta)
    own = {k: v for k, v in (out.get(FORMAT) or {}).items() if k not in STATE_KEYS}
    own.update(start or {})
    if own:
        out[FORMAT] = own
    else:
        out.pop(FORMAT, None)
    return out


class ResponseChains:
    """Response id / conversation id → (conversation, timeline length). `Stitcher` calls `find` and
    `add` for a chained request, and `record` after every exchange."""

    def __init__(self) -> None:
        self._states: dict[tuple[str, str], tuple[Thread, int]] = {}
        #: Per conversation, the links of its timeline so far (and that timeline's length): a
        #: continued chain links only its new turns.
        self._links: dict[int, tuple[Linker, int]] = {}
        #: Per conversation that began mid-way, the stored state its first request named.
        self._starts: dict[int, dict[str, Any]] = {}

    def find(self, request: Request) -> Stored | None:
        key = stored_key(request)
        if key is None:
            return None
        thread, length = self._states.get(key, (None, 0))
        return Stored(thread, length)

    def add(self, stored: Stored, exchange: int, request: Request, responses: tuple[Response, ...],
            new_thread: NewThread, turn_hash: Hash) -> Thread:
        """Stitch a chained request into its conversation; `Thread.request` is the request with its
        turns linked after the stored ones."""
        prefix: tuple[Turn, ...] = ()
        hashes: list[bytes] = []
        if stored.thread is not None:
            prefix = stored.thread.conversation.turns[:stored.length]
            hashes = stored.thread.hashes[:stored.length]
        thread = stored.continued
        answers = [r.turn for r in responses if r.turn is not None]
        start = self._starts.get(id(stored.thread)) if stored.thread is not None else _state_of(request)
        linker, covered = self._links.get(id(thread), (None, -1)) if thread is not None else (None, -1)
        if linker is None or covered != len(prefix):  # a branch, or a timeline the replay path grew
            linker = Linker(prefix)
        linked = linker.link((*request.turns, *answers))
        sent = linked[:len(request.turns)]
        hashes = hashes + [turn_hash(t) for t in linked]
        conversation = Conversation(
            id=thread.conversation.id if thread else "", model=request.model, settings=request.settings,
            system=request.system, tools=request.tools, tool_choice=request.tool_choice,
            turns=(*prefix, *linked),
            meta=_with_state(request.meta, start))
        if thread is None:
            thread = new_thread(exchange, conversation, hashes)
        else:
            thread.conversation = conversation
            thread.exchanges.append(exchange)
            thread.hashes = hashes
        self._links[id(thread)] = (linker, len(thread.conversation.turns))
        if start:
            self._starts[id(thread)] = start
        thread.request, thread.stored = replace(request, turns=sent), len(prefix)
        thread.requested = len(prefix) + len(sent)
        return thread

    def record(self, thread: Thread, request: Request | None, responses: tuple[Response, ...]) -> None:
        """Remember where each response of an exchange left its conversation; a `conversation` id
        moves on only with a completed response (a rejected request adds nothing to it)."""
        if not any(r.turn is not None for r in responses):
            return
        state = (thread, len(thread.conversation.turns))
        for response in responses:
            rid = response_id(response)
            if rid is not None:
                self._states["previous_response_id", rid] = state
        key = stored_key(request) if request is not None else None
        if key is not None and key[0] == "conversation":
            self._states[key] = state

