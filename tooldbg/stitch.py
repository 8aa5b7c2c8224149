"""Exchanges of one agent session → one conversation timeline.

Each request of an agent loop replays the whole history, so exchange n+1's turns start with
exchange n's. Turns are hashed once (canonical content, sources excluded) and chained (each distinct
prefix numbered once); a request continues the conversation whose last full request (or request +
response) is a prefix of it. The lookup is one dictionary probe per turn, so stitching costs what
reading costs: linear in the bytes of the log, never a comparison of every exchange with every other.

A turn that reappears unchanged keeps the object of its first appearance, and with it the source of
the exchange it first appeared in; a turn that changed on replay (the defect TD3xx looks for) enters
the timeline as it was sent, pointing at the request that sent it.

Requests usually arrive with their replayed history already shared (`tooldbg.history` keeps the
turn objects of the conversation's previous request): a turn object is hashed once (`_hash`), and a
request that goes on from a recent one takes that one's hashes and chains and chains only its new
turns (`_chained`), so a replayed history is not walked again per request. The first request of a
log has nothing to continue: its turns are hashed only when another exchange comes (`_settle`), so a
file of one request body (what `convert` reads most) is never hashed. `match` answers which thread
`add` would continue, without changing anything, for `load` to check a request's kept turns
against; `add` of the same request then takes the hashes and the thread `match` found.

A request that goes back to an earlier point of a conversation, though, is another conversation: a
second run of the same task, or a session interleaved with one that began with the same messages.
That is a request whose history is only an earlier part of the conversation's last request, and
either ends there or goes on with a call or result under other ids than the conversation's at that
place — or the conversation's last request itself again, answered otherwise than the first time (a
second session's first request, the same first message, or a regenerated answer: a branch, as
`chains` makes one; a retry answered the same, or not at all, stays). Without this,
the new run would replace the old one's timeline. Several conversations may share a prefix (each
indexed there, `_shared`): a request goes on with one whose last request it keeps whole before
it is taken for a replay that departs from a conversation's history.

A request the provider refused, then retried changed, is checked as it was sent: the retry goes on
with the conversation, and the refused request becomes a conversation of its own — a branch sharing
the turns before it (the same objects), its one exchange moved to it (`branched`), so every rule runs on
what the provider refused and TD901 can name what it found there.

A Responses request that continues stored state (`previous_response_id`, `conversation`) replays
nothing: `chains.ResponseChains` stitches it after the stored turns (`Thread.stored` of them).
"""

from __future__ import annotations

# hashlib's own BLAKE2b (`hashlib.blake2b` is this class), imported from its C module: `import hashlib`
# loads OpenSSL's `_hashlib` too, a cost on every start-up for a hash tooldbg never asks of it.
from _blake2 import blake2b
from dataclasses import replace

from .chains import ResponseChains
from .formats.base import Request, Response
from .formats.reading import link
from .jsonio import dumps
from .model import Conversation, Invocation, Result, Turn, turn_content
from .timeline import Thread


def turn_hash(turn: Turn) -> bytes:
    """A digest of what the turn's equality compares: equal turns read from two exchanges hash
    equal, whatever their sources. A digest, not the printed bytes themselves (a dictionary would
    compare those exactly, for a third less work): the stitcher keeps a hash for every turn object
    a log's requests carry, and bytes held for each grew the peak memory of a check by a fifth to a
    third of the file."""
    return blake2b(dumps(turn_content(turn), sort_keys=True), digest_size=16).digest()


class Stitcher:
    """Feed exchanges in log order with `add`; read `threads` at the end."""

    def __init__(self) -> None:
        self.threads: list[Thread] = []
        self._by_chain: dict[int, Thread] = {}
        #: (A prefix's chain, the hash of the turn after it) → the chain of the longer prefix: each
        #: distinct prefix is numbered once, from 1 (0 is the empty one), so equal prefixes — and
        #: only they — have equal chains.
        self._chain_numbers: dict[tuple[int, bytes], int] = {}
        #: Chain → the other threads indexed at it before the one `_by_chain` holds (sessions that
        #: began with the same messages), oldest first.
        self._shared: dict[int, list[Thread]] = {}
        self._chains = ResponseChains()
        #: id(turn) → (the turn, its hash): a turn object replayed from exchange to exchange (see
        #: `tooldbg.history`) is hashed once, not once per request that carries it.
        self._hashes: dict[int, tuple[Turn, bytes]] = {}
        #: The last few requests' turns with their hashes and chains: a request that keeps the turn
        #: objects of an earlier one takes their chains as they are and chains only its new turns.
        self._recent: list[tuple[tuple[Turn, ...], list[bytes], list[int]]] = []
        #: The thread of the first request, its request's turns and its answers, until they are
        #: hashed and indexed (`_settle`).
        self._unindexed: tuple[Thread, tuple[Turn, ...], tuple[Turn, ...]] | None = None
        #: The request `match` was last asked about, its hashes and chains, and the thread it found.
        self._matched: tuple[Request, list[bytes], list[int], Thread | None] | None = None
        #: Exchange → the conversation it was moved to (a refused request its retry branched off),
        #: since `branched` was last asked.
        self._moved: dict[int, str] = {}

    def match(self, request: Request, responses: tuple[Response, ...]) -> Thread | None:
        """The thread `add` would continue with `request` and its `responses` (None: it would start
        one); adds nothing to the timeline. `load` asks before it lets a request keep history turns
        read for another."""
        self._settle()
        stored = self._chains.find(request)
        if stored is not None:
            return stored.continued
        hashes, chains = self._chained(request.turns)
        thread = self._continued(request, responses, hashes, chains)
        self._matched = (request, hashes, chains, thread)
        return thread

    def add(self, exchange: int, request: Request | None, responses: tuple[Response, ...]) -> Thread:
        self._settle()
        stored = self._chains.find(request) if request is not None else None
        if request is not None and stored is not None:
            thread = self._chains.add(stored, exchange, request, responses, self._new, self._hash)
        else:
            thread = self._add_replayed(exchange, request, responses)
            thread.request, thread.stored = request, 0
        thread.refused = any(r.error is not None for r in responses) and not any(
            r.turn is not None for r in responses)
        self._chains.record(thread, request, responses)
        return thread

    def _add_replayed(self, exchange: int, request: Request | None,
                      responses: tuple[Response, ...]) -> Thread:
        answers = [r.turn for r in responses if r.turn is not None]
        if request is None:
            model = next((r.model for r in responses if r.model), None)
            return self._new(exchange, Conversation(model=model, turns=link(answers)), [])
        # With nothing indexed yet there is nothing to continue: the hashing waits (`_settle`).
        indexed = bool(self._by_chain)
        matched, self._matched = self._matched, None
        if matched is not None and matched[0] is request:  # (nothing was indexed since `match`)
            hashes, chains, thread = matched[1], matched[2], matched[3]
        else:
            hashes, chains = self._chained(request.turns) if indexed else ([], [])
            thread = self._continued(request, responses, hashes, chains) if indexed else None
        turns = list(request.turns)
        kept = thread.requested if thread is not None else 0
        if thread is not None and thread.refused and hashes[:kept] != thread.hashes[:kept]:
            self._branch(thread)  # a retry that changed the refused request: keep what was refused
        if thread is not None:
            known, same = thread.conversation.turns, min(len(hashes), len(thread.hashes))
            if hashes[:same] == thread.hashes[:same]:  # the usual case: all it shares is unchanged
                turns[:same] = known[:same]
            else:
                turns = [known[i] if i < len(thread.hashes) and thread.hashes[i] == h else t
                         for i, (t, h) in enumerate(zip(turns, hashes, strict=True))]
        answered = link(answers, prior=turns)
        follows = self._follows(chains) if thread is None and indexed else None
        conversation = Conversation(
            id=thread.conversation.id if thread else "", model=request.model, settings=request.settings,
            system=request.system, tools=request.tools, tool_choice=request.tool_choice,
            turns=(*turns, *answered), meta=dict(request.meta))
        if thread is None:
            thread = self._new(exchange, conversation, [])
            thread.follows = follows
        else:
            thread.conversation = conversation
            thread.exchanges.append(exchange)
        thread.requested = len(request.turns)
        if indexed:
            self._index(thread, hashes, chains, answered)
        else:
            self._unindexed = (thread, request.turns, answered)
        return thread

    def _branch(self, thread: Thread) -> None:
        """The thread's last request, which the provider refused, as a conversation of its own: its
        timeline as it was (turns shared with the thread up to where the retry departs), its one
        exchange taken from the thread. It is not indexed: requests continue the thread."""
        exchange = thread.exchanges.pop()
        branch = self._new(exchange, thread.conversation, list(thread.hashes))
        branch.requested, branch.request, branch.stored, branch.refused = (
            thread.requested, thread.request, thread.stored, True)
        self._moved[exchange] = branch.conversation.id

    def branched(self) -> dict[int, str]:
        """The exchanges moved to a branch of their own since the last call (a refused request whose
        retry went on with its conversation), and the conversation each went to."""
        moved, self._moved = self._moved, {}
        return moved

    def _settle(self) -> None:
        """Hash and index the first request's thread, now that another exchange may continue it."""
        if self._unindexed is not None:
            thread, sent, answered = self._unindexed
            self._unindexed = None
            hashes, chains = self._chained(sent)
            self._index(thread, hashes, chains, answered)

    def _index(self, thread: Thread, hashes: list[bytes], chains: list[int],
               answered: tuple[Turn, ...]) -> None:
        """`thread`'s hashes and chains, after its request's (`hashes`, `chains`) come its answers':
        a later request that replays any prefix of them finds the thread."""
        thread.hashes = hashes + [self._hash(t) for t in answered]
        if chains:
            self._at(chains[-1], thread)
        chain = chains[-1] if chains else 0
        for h in thread.hashes[len(hashes):]:
            chain = self._chain(chain, h)
            self._at(chain, thread)

    def _at(self, chain: int, thread: Thread) -> None:
        """Index `thread` at `chain`, keeping any other thread indexed there (`_shared`)."""
        before = self._by_chain.get(chain)
        if before is not None and before is not thread:
            shared = self._shared.setdefault(chain, [])
            shared[:] = [t for t in shared if t is not thread] + [before]
        self._by_chain[chain] = thread

    def _continued(self, request: Request, responses: tuple[Response, ...], hashes: list[bytes],
                   chains: list[int]) -> Thread | None:
        """The thread `request` goes on with, among those indexed at the longest prefix it shares
        (several, when sessions began alike): the first whose last request it keeps whole
        (`_keeps`), else the first it departs from as a replay that changed its history
        (`_departs`). None: it starts a conversation."""
        for kept in range(len(chains), 0, -1):
            last = self._by_chain.get(chains[kept - 1])
            if last is None:
                continue
            threads = (*self._shared.get(chains[kept - 1], ()), last)
            return next((t for t in threads if self._keeps(t, request, responses, kept)), None) or \
                next((t for t in threads if _departs(t, kept, request.turns, hashes)), None)
        return None

    def _follows(self, chains: list[int]) -> int | None:
        """For a request that starts a conversation of its own: the exchange whose answer ends the
        longest history it shares, unchanged, with a conversation indexed before (a session forking
        from another's after an answer both replay), when it goes on past that answer — the request
        it continues, whatever was logged between the two."""
        for kept in range(len(chains) - 1, 0, -1):  # (shorter than the request: it goes on)
            thread = self._by_chain.get(chains[kept - 1])
            if thread is not None:
                source = thread.conversation.turns[kept - 1].source
                return source.exchange if source is not None and source.side == "response" else None
        return None

    def _keeps(self, thread: Thread, request: Request, responses: tuple[Response, ...], kept: int) -> bool:
        """Does a request whose first `kept` turns are `thread`'s keep the thread's last request whole
        (the usual case, a retry of it, or a replay that changed a newer turn)? Not when it is that
        request again and answered otherwise than the first time: another session that began the
        same way, or a regenerated answer — a branch."""
        if kept < thread.requested:
            return False
        if not kept == len(request.turns) == thread.requested:
            return True
        before = thread.hashes[thread.requested:]
        answers = [r.turn for r in responses if r.turn is not None]
        if not before or not answers:
            return True  # a retry after a failure, or a retry that failed
        return [turn_hash(t) for t in link(answers, prior=request.turns)] == before

    def _chained(self, turns: tuple[Turn, ...]) -> tuple[list[bytes], list[int]]:
        """The hash of each turn and the chained hash of each prefix (new lists)."""
        same: int = 0
        hashes: list[bytes] = []
        chains: list[int] = []
        for known, known_hashes, known_chains in reversed(self._recent):
            if not known or not turns or known[0] is not turns[0]:
                continue
            if turns[:len(known)] == known:  # the usual case: the request goes on from this one
                n = len(known)
            else:  # (equal turns hash equal: sources are no part of either)
                n = next((i for i, (a, b) in enumerate(zip(known, turns, strict=False)) if a != b),
                         min(len(known), len(turns)))
            if n > same:
                same, hashes, chains = n, known_hashes[:n], known_chains[:n]
            if n == len(known):
                break
        chain = chains[-1] if chains else 0
        for at in range(same, len(turns)):
            hashes.append(self._hash(turns[at], self._by_chain.get(chain), at))
            chain = self._chain(chain, hashes[-1])
            chains.append(chain)
        self._recent = [*self._recent[-7:], (turns, hashes, chains)]
        return list(hashes), list(chains)

    def _chain(self, previous: int, turn: bytes) -> int:
        """The chain of a prefix: its number, given the chain of the prefix a turn shorter and the
        hash of that turn (see `_chain_numbers`)."""
        return self._chain_numbers.setdefault((previous, turn), len(self._chain_numbers) + 1)

    def _hash(self, turn: Turn, thread: Thread | None = None, at: int = 0) -> bytes:
        """The turn's hash, made once per turn object; for a turn at place `at` after the history a
        `thread` is indexed at, that thread's hash there when its turn there is equal (equal turns
        hash equal): the answer a request replays was hashed when the response came."""
        known = self._hashes.get(id(turn))
        if known is None or known[0] is not turn:
            if thread is not None and at < len(thread.hashes) and thread.conversation.turns[at] == turn:
                hashed = thread.hashes[at]
            else:
                hashed = turn_hash(turn)
            known = self._hashes[id(turn)] = (turn, hashed)
        return known[1]

    def _new(self, exchange: int, conversation: Conversation, hashes: list[bytes]) -> Thread:
        conversation = replace(conversation, id=f"c{len(self.threads) + 1}")
        thread = Thread(conversation, [exchange], hashes)
        self.threads.append(thread)
        return thread


def _departs(thread: Thread, kept: int, turns: tuple[Turn, ...], hashes: list[bytes]) -> bool:
    """Does a request whose first `kept` turns are `thread`'s, fewer than its last request's, go on
    with it? Yes when the turn where it departs is the thread's turn there changed on replay: an id
    in common, or, with no ids to tell, a request that replays the thread's answer after it (a later
    request replaying a history that changed). No when it stops inside the thread's history, departs
    with other ids, or without ids does not go on with the thread's answer (a second session forking
    where the two were still alike)."""
    if kept >= len(turns):
        return False
    # kept < requested <= the thread's timeline: it has a turn where the request departs
    ours, theirs = _wire_ids(turns[kept]), _wire_ids(thread.conversation.turns[kept])
    if ours and theirs:
        return bool(ours & theirs)
    answer = thread.requested
    return len(hashes) > answer and len(thread.hashes) > answer and hashes[answer] == thread.hashes[answer]


def _wire_ids(turn: Turn) -> set[str]:
    return {p.wire_id for p in turn.parts if isinstance(p, Invocation | Result) and p.wire_id}
