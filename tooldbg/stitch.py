"""Exchanges of one agent session → one conversation timeline.

Each request of an agent loop replays the whole history, so exchange n+1's turns start with
exchange n's. Turns are hashed once (canonical content, sources excluded) and chained; a request
continues the conversation whose last full request (or request + response) is a prefix of it. The
lookup is one dictionary probe per turn, so stitching costs what reading costs: linear in the bytes
of the log, never a comparison of every exchange with every other.

A turn that reappears unchanged keeps the object of its first appearance, and with it the source of
the exchange it first appeared in; a turn that changed on replay (the defect TD3xx looks for) enters
the timeline as it was sent, pointing at the request that sent it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from .formats.base import ApiError, Request, Response, link
from .jsonio import dumps
from .model import Conversation, Turn, turn_to_dict


@dataclass(slots=True)
class Thread:
    """A conversation being stitched: its timeline and the exchanges that built it."""

    conversation: Conversation
    exchanges: list[int] = field(default_factory=list)
    errors: list[tuple[int, ApiError]] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=list)


def turn_hash(turn: Turn) -> bytes:
    data = dumps(turn_to_dict(turn, sources=False), sort_keys=True)
    return hashlib.blake2b(data, digest_size=16).digest()


def _chain(previous: bytes, turn: bytes) -> bytes:
    return hashlib.blake2b(previous + turn, digest_size=16).digest()


class Stitcher:
    """Feed exchanges in log order with `add`; read `threads` at the end."""

    def __init__(self) -> None:
        self.threads: list[Thread] = []
        self._by_chain: dict[bytes, Thread] = {}

    def add(self, exchange: int, request: Request | None, responses: tuple[Response, ...]) -> Thread:
        answers = [r.turn for r in responses if r.turn is not None]
        errors = [(exchange, r.error) for r in responses if r.error is not None]
        if request is None:
            model = next((r.model for r in responses if r.model), None)
            return self._new(exchange, Conversation(model=model, turns=link(answers)), errors, [])
        hashes = [turn_hash(t) for t in request.turns]
        chains, chain = [], b""
        for h in hashes:
            chain = _chain(chain, h)
            chains.append(chain)
        thread = next((self._by_chain[c] for c in reversed(chains) if c in self._by_chain), None)
        turns = list(request.turns)
        if thread is not None:
            known = thread.conversation.turns
            turns = [known[i] if i < len(thread.hashes) and thread.hashes[i] == h else t
                     for i, (t, h) in enumerate(zip(turns, hashes, strict=True))]
        answered = link(answers, prior=turns)
        conversation = Conversation(
            id=thread.conversation.id if thread else "", model=request.model,
            system=request.system, tools=request.tools, tool_choice=request.tool_choice,
            turns=(*turns, *answered), meta=dict(request.meta))
        all_hashes = hashes + [turn_hash(t) for t in answered]
        if thread is None:
            thread = self._new(exchange, conversation, errors, all_hashes)
        else:
            thread.conversation = conversation
            thread.exchanges.append(exchange)
            thread.errors.extend(errors)
            thread.hashes = all_hashes
        if chains:
            self._by_chain[chains[-1]] = thread
        for h in all_hashes[len(hashes):]:
            chain = _chain(chain, h)
            self._by_chain[chain] = thread
        return thread

    def _new(self, exchange: int, conversation: Conversation, errors: list[tuple[int, ApiError]],
             hashes: list[bytes]) -> Thread:
        conversation = replace(conversation, id=f"c{len(self.threads) + 1}")
        thread = Thread(conversation, [exchange], errors, hashes)
        self.threads.append(thread)
        return thread
