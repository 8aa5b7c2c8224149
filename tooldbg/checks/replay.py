"""Replay fidelity: every turn an exchange sent or received, paired with its replay in the next request.

An agent loop sends its whole history again with every request, so exchange n+1's request should
hold exchange n's request turns unchanged, then exchange n's response turn — at position
`len(request_n.turns)` — then the new tool results. The TD3xx rules each look at one aspect of this
pairing (text beside calls, result binding, failure flag, media, call, reasoning); the pairing itself
is computed here, once per loaded file, and costs one comparison per turn of each request: linear in
the size of the log.

Which request continues which: the previous exchange of the same stitched conversation; for the first
exchange of a conversation, the exchange whose answer its history replays unchanged when it goes on
from another conversation's history (`ExchangeRead.follows`: a session forking from another after an
answer both replay, whatever was logged between), else the exchange just before it in the log when
its history is that one's with a few turns changed (a changed replay can break the stitcher's
exact-prefix match, so the request that changed a turn may have been stitched into a conversation of
its own). A request that follows a rejected one is a retry, not a replay, and is not compared with it.

Turns that differ are paired by position, and inside a pair calls and results are paired by wire
id (anywhere in the replaying request), then by order when the two turns are evidently the same turn
(`anchored`): they share an id, a text, a call, a signature or a medium, or the history before them
was replayed exactly.
"""

from __future__ import annotations

import base64
import binascii
from _blake2 import blake2b  # hashlib.blake2b itself (`import hashlib` loads OpenSSL)
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..chains import stored_key
from ..formats.base import Request
from ..jsonio import dumps_str
from ..load import Loaded
from ..model import Conversation, Invocation, Json, Media, Part, Reasoning, Result, Text, Turn
from ..shorten import plain, quote
from ..timeline import ExchangeRead
from .base import Context, Finding, same_start
from .structure import blank

Placed = tuple[int, int, Any]  # (turn index in the replaying request, part index, part)
_Wired = TypeVar("_Wired", Invocation, Result)  # the parts a wire id pairs


# ------------------------------------------------------------------------------- the pairing


@dataclass(slots=True, eq=False)
class Pair:
    """One turn of exchange `before` — a request turn that changed, or its response turn (changed
    or not: what follows it matters too) — and its replay.

    `turns` are (index in the replaying request, turn): the turn at the same position, or for a
    response the run of assistant turns at `len(request.turns)` (a client may split one message in
    two). Empty when nothing at that position replays it."""

    replay: Replay
    original: Turn
    position: int
    from_response: bool
    turns: tuple[tuple[int, Turn], ...]
    anchored: bool
    trusted: bool = False  # the history before it was replayed exactly
    #: `calls()` and `results()`, paired once for the several TD3xx rules that ask
    _calls: list[tuple[Invocation, Placed | None]] | None = None
    _results: list[tuple[Result, Placed | None]] | None = None

    @property
    def next_index(self) -> int:
        """The position in the replaying request right after the replay."""
        return self.position + len(self.turns)

    def parts_near(self, hits: Iterable[Placed | None]) -> Iterator[Placed]:
        """Every part of the replay and of the turns where `hits` were found."""
        where = {ti for ti, _ in self.turns} | {hit[0] for hit in hits if hit is not None}
        turns = self.replay.request.turns
        for ti in sorted(where):
            for pi, part in enumerate(turns[ti].parts):
                yield ti, pi, part

    def calls(self) -> list[tuple[Invocation, Placed | None]]:
        """Each call of the original with its replay (None: not found)."""
        if self._calls is None:
            self._calls = self._match(Invocation, self.replay.calls_by_wire)
        return self._calls

    def results(self) -> list[tuple[Result, Placed | None]]:
        """Each result of the original with its replay (None: not found)."""
        if self._results is None:
            self._results = self._match(Result, self.replay.results_by_wire)
        return self._results

    def _match(self, kind: type[_Wired],
               index_of: Callable[[], dict[str, list[Placed]]]) -> list[tuple[_Wired, Placed | None]]:
        originals = [p for p in self.original.parts if isinstance(p, kind)]
        if not originals:  # (an answer has no results: nothing to pair, nothing to look through)
            return []
        local = [(ti, pi, p) for ti, turn in self.turns for pi, p in enumerate(turn.parts)
                 if isinstance(p, kind)]
        if in_step(originals, local):
            return list(zip(originals, local, strict=True))
        return searched(originals, local, index_of, self.anchored, self.trusted)

    def finding(self, ctx: Context, message: str, ti: int, pi: int | None = None) -> Finding:
        """A finding at turn `ti` (part `pi`) of the replaying request."""
        return self.replay.finding(ctx, message, ti, pi)


def in_step(originals: Sequence[Invocation | Result], local: Sequence[Placed]) -> bool:
    """Does the replay hold the original's calls (or results) under the same wire ids, in the same
    order, each part once? `searched` then pairs each with the replay's part at its place: the usual
    replay, for which searching the replay for each id and listing what is left was a third of pairing
    a turn (a property test holds the two to the same pairs)."""
    if len(local) != len(originals):
        return False
    for part, (_, _, there) in zip(originals, local, strict=True):
        if part.wire_id is None or there.wire_id != part.wire_id:
            return False
    return len(local) < 2 or len({id(there) for _, _, there in local}) == len(local)


def searched(originals: list[_Wired], local: list[Placed], index_of: Callable[[], dict[str, list[Placed]]],
             anchored: bool, trusted: bool) -> list[tuple[_Wired, Placed | None]]:
    """Each of `originals` with its replay (None: not found; `Pair._match`): by wire id among the
    replay's own parts (`local`), else anywhere in the replaying request (`index_of`), then by order
    when the turns are `anchored` (`trusted`: the history before them was replayed exactly)."""
    used: set[int] = set()
    found: dict[int, Placed] = {}
    for k, part in enumerate(originals):
        if part.wire_id is None:
            continue
        hit = next((c for c in local if c[2].wire_id == part.wire_id and id(c[2]) not in used), None)
        if hit is None:  # moved elsewhere in the request; an id used twice pairs nothing
            there = index_of().get(part.wire_id, ())
            hit = there[0] if len(there) == 1 and id(there[0][2]) not in used else None
        if hit is not None:
            used.add(id(hit[2]))
            found[k] = hit
    rest = [k for k in range(len(originals)) if k not in found]
    free = [c for c in local if id(c[2]) not in used]
    if rest and free and anchored:
        if len(rest) == len(free):
            for k, hit in zip(rest, free, strict=True):
                # Two different ids are two different calls, unless the history before was
                # replayed exactly (then the client renumbered them: TD106's concern).
                unbound = originals[k].wire_id is None or hit[2].wire_id is None
                if trusted or (unbound and _same_name(originals[k], hit[2])):
                    found[k] = hit
        else:  # a call or result is missing: pair only the identical ones
            for k in rest:
                hit = next((c for c in free if id(c[2]) not in used and _same(originals[k], c[2])),
                           None)
                if hit is not None:
                    used.add(id(hit[2]))
                    found[k] = hit
    return [(part, found.get(k)) for k, part in enumerate(originals)]


@dataclass(slots=True, eq=False)
class Replay:
    """Exchange `before` and the exchange `after` whose request replays its history."""

    conversation: Conversation | None
    before: ExchangeRead
    after: ExchangeRead
    pairs: list[Pair] = field(default_factory=list)
    _calls: dict[str, list[Placed]] | None = None
    _results: dict[str, list[Placed]] | None = None
    _media: set[Any] | None = None

    @property
    def request(self) -> Request:
        """`after`'s request, the one that replays (a Replay is only made when both have one)."""
        assert self.after.request is not None
        return self.after.request

    @property
    def replayed(self) -> Request:
        """`before`'s request, the history `request` replays."""
        assert self.before.request is not None
        return self.before.request

    @property
    def format(self) -> str | None:
        return self.after.format

    def calls_by_wire(self) -> dict[str, list[Placed]]:
        if self._calls is None:
            self._calls = self._by_wire(Invocation)
        return self._calls

    def results_by_wire(self) -> dict[str, list[Placed]]:
        if self._results is None:
            self._results = self._by_wire(Result)
        return self._results

    def _by_wire(self, kind: type[_Wired]) -> dict[str, list[Placed]]:
        out: dict[str, list[Placed]] = {}
        for ti, turn in enumerate(self.request.turns):
            for pi, part in enumerate(turn.parts):
                if isinstance(part, kind) and part.wire_id is not None:
                    out.setdefault(part.wire_id, []).append((ti, pi, part))
        return out

    def media(self) -> set[Any]:
        """The identity of every medium the replaying request carries, results included."""
        if self._media is None:
            self._media = {media_identity(m) for turn in self.request.turns for m in media_in(turn.parts)}
        return self._media

    def finding(self, ctx: Context, message: str, ti: int, pi: int | None = None) -> Finding:
        turn = self.request.turns[ti]
        source = turn.parts[pi].source if pi is not None else turn.source
        conv = self.conversation
        at = None
        if conv is not None and ti < len(conv.turns) and (conv.turns[ti] is turn or conv.turns[ti] == turn):
            at = ti
        return ctx.at(message, conversation=conv, turn=at, part=pi if at is not None else None,
                      source=source)


def replays(ctx: Context) -> list[Replay]:
    """Every (exchange, replaying exchange) of the file with its differing turns, computed once."""
    return ctx.shared("replays", lambda: list(_compute(ctx.loaded)), until="TD307")


def _compute(loaded: Loaded) -> Iterator[Replay]:
    conversations = {c.id: c for c in loaded.conversations}
    last_in: dict[str, ExchangeRead] = {}
    by_exchange: dict[int, ExchangeRead] = {}
    previous: ExchangeRead | None = None
    for read in loaded.reads:
        if read.request is None or read.conversation is None:  # (a read request is always stitched)
            continue
        before = last_in.get(read.conversation)
        if before is None and read.follows is not None:
            before = by_exchange.get(read.follows)
        elif before is None and previous is not None and _continues(previous, read):
            before = previous
        if before is not None and before.request is not None and not _rejected(before) \
                and not _chained(before) and not _chained(read):
            yield _pairs(Replay(conversations.get(read.conversation), before, read))
        last_in[read.conversation] = read
        by_exchange[read.exchange.index] = read
        previous = read


def _chained(read: ExchangeRead) -> bool:
    """A request whose history the provider kept replays nothing: a Responses request that
    continues stored state (`tooldbg.chains`), and any that carries only the turns after those
    (`ExchangeRead.stored`), as each model call of an agent's own session log does (`logs.session`)."""
    return read.request is not None and (read.stored > 0 or stored_key(read.request) is not None)


def _rejected(read: ExchangeRead) -> bool:
    """The provider refused the request: what follows is a retry, not a replay."""
    return any(r.error is not None for r in read.responses) and not any(
        r.turn is not None for r in read.responses)


def _continues(before: ExchangeRead, after: ExchangeRead) -> bool:
    """`after`'s history is `before`'s, turn by turn, with some turns changed, and goes on."""
    if before.request is None or after.request is None:
        return False
    old, new = before.request.turns, after.request.turns
    return (0 < len(old) < len(new) and (old[0] == new[0] or anchored(old[0], new[0]))
            and all(a == b or anchored(a, b) or bool(results_as_text(a, b))
                    for a, b in zip(old, new, strict=False)))


def _pairs(replay: Replay) -> Replay:
    old = replay.replayed.turns
    new = replay.request.turns
    exact = True
    kept = same_start(old, new)  # the history kept as the same objects, skipped at once
    for i in range(kept, len(old)):
        turn = old[i]
        if i < len(new) and (turn is new[i] or turn == new[i]):
            continue
        exact = False
        there = ((i, new[i]),) if i < len(new) else ()
        replay.pairs.append(Pair(replay, turn, i, False, there,
                                 anchored=bool(there) and anchored(turn, new[i])))
    answers = [r.turn for r in replay.before.responses if r.turn is not None]
    if len(answers) != 1:
        return replay
    answer, k = answers[0], len(old)
    j = k
    while j < len(new) and new[j].role == "assistant":
        j += 1
    run = tuple((i, new[i]) for i in range(k, j))
    trusted = exact and len(new) > k
    replay.pairs.append(Pair(replay, answer, k, True, run,
                             anchored=bool(run) and (trusted or anchored(answer, _merged(run))),
                             trusted=trusted))
    return replay


def _merged(run: tuple[tuple[int, Turn], ...]) -> Turn:
    """A run of assistant turns as the one turn they replay (made only when the answer is not
    trusted to be there: most are)."""
    return Turn(role="assistant", parts=tuple(p for _, t in run for p in t.parts))


# -------------------------------------------------------------------------------- sameness


def anchored(a: Turn, b: Turn) -> bool:
    """Is `b` evidently `a` replayed (changed or not)? Same role, and a shared id, text, call,
    signature or medium — or, without ids, the same tool names in the same order."""
    if a.role != b.role:
        return False
    ids = {p.wire_id for p in a.parts if isinstance(p, Invocation | Result) and p.wire_id}
    if any(isinstance(p, Invocation | Result) and p.wire_id in ids for p in b.parts):
        return True
    texts = {norm(p.text) for p in a.parts if isinstance(p, Text) and not blank(p)}
    if any(isinstance(p, Text) and norm(p.text) in texts for p in b.parts):
        return True
    signatures = {signature_key(p) for p in a.parts if isinstance(p, Reasoning)} - {None}
    if any(isinstance(p, Reasoning) and signature_key(p) in signatures for p in b.parts):
        return True
    if any(isinstance(p, Invocation) and any(_same(p, q) for q in b.parts) for p in a.parts):
        return True
    media = {media_identity(m) for m in media_in(a.parts)}
    if media and any(media_identity(m) in media for m in media_in(b.parts)):
        return True
    for kind in (Invocation, Result):
        names = [p.name for p in a.parts if isinstance(p, kind)]
        if names and names == [p.name for p in b.parts if isinstance(p, kind)]:
            return True
    return False


def results_as_text(original: Turn, turns: Turn | Iterable[Turn]) -> list[tuple[Result, Text]]:
    """Results of `original` whose content reappears inside a plain text part of `turns` (user
    or system text): the result replayed as text, its binding gone."""
    if isinstance(turns, Turn):
        turns = (turns,)
    texts = [p for t in turns if t.role in ("user", "system") for p in t.parts if isinstance(p, Text)]
    if not texts:
        return []
    out = []
    for result in original.results():
        content = squeeze(text_of(result.content))
        if len(content) < 3:
            continue
        hit = next((t for t in texts if content in squeeze(t.text)), None)
        if hit is not None:
            out.append((result, hit))
    return out


def _same_name(a: Any, b: Any) -> bool:
    return a.name is None or b.name is None or a.name == b.name


def _same(a: Any, b: Any) -> bool:
    """The same call (name and arguments), ids aside. (Results are never paired this way: a result
    identical to its original has nothing for a rule to report, so pairing it would change nothing.)"""
    if isinstance(a, Invocation) and isinstance(b, Invocation):
        return a.name == b.name and same_arguments(a, b)
    return False


def same_arguments(a: Invocation, b: Invocation) -> bool:
    if a.raw_arguments is not None or b.raw_arguments is not None:
        return a.raw_arguments == b.raw_arguments and a.arguments == b.arguments
    return first_difference(a.arguments, b.arguments) is None


def first_difference(a: Any, b: Any, pointer: str = "") -> str | None:
    """The JSON pointer of the first place two parsed JSON values differ (None: equal). Key order
    does not count; a boolean is not a number; 1 and 1.0 are the same number. (The pointer is
    written out for a difference only: most values compared are equal, and a string made for each
    key on the way made comparing a call's arguments with their replay four times slower.)"""
    path = _difference(a, b)
    if path is None:
        return None
    return pointer + "".join(f"/{_escape(key)}" for key in reversed(path))


def _difference(a: Any, b: Any) -> list[Any] | None:
    """The keys and indices down to the first place `a` and `b` differ, the innermost first; None
    when they are equal (`first_difference`)."""
    if type(a) is str:  # (most values compared: the rules below give the same for a string)
        return None if type(b) is str and a == b else []
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key not in b:
                return [key]
            found = _difference(a[key], b[key])
            if found is not None:
                found.append(key)
                return found
        for key in b:
            if key not in a:
                return [key]
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _difference(x, y)
            if found is not None:
                found.append(i)
                return found
        return None if len(a) == len(b) else [min(len(a), len(b))]
    if isinstance(a, bool) or isinstance(b, bool):
        return None if type(a) is type(b) and a == b else []
    if isinstance(a, int | float) and isinstance(b, int | float):
        return None if a == b else []
    return None if type(a) is type(b) and a == b else []


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def resolve_pointer(value: Any, pointer: str) -> Any:
    """The value at a pointer `first_difference` returned (a missing member: `_MISSING`)."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return MISSING
    return value


MISSING = object()


def norm(text: str) -> str:
    """Text with runs of whitespace collapsed: replays may re-space, never re-word."""
    return " ".join(text.split())


def squeeze(text: str) -> str:
    """Text with all whitespace removed: JSON re-serialized with other spacing still matches."""
    return "".join(text.split())


def text_of(parts: Iterable[Part]) -> str:
    """The readable text of some parts (result content): text as is, structured content as JSON."""
    out = []
    for part in parts:
        if isinstance(part, Text):
            out.append(part.text)
        elif isinstance(part, Json):
            out.append(dumps_str(part.value))
    return "\n".join(out)


def snippet(text: str, width: int = 60) -> str:
    return quote(norm(text), width)


# -------------------------------------------------------------------- signatures and media


def decoded(value: str) -> bytes | str:
    """A base64 string's bytes, whatever the alphabet (standard or URL-safe) and padding; the string
    itself when it is not base64."""
    compact = "".join(value.split())
    try:
        return base64.b64decode(compact.replace("-", "+").replace("_", "/") + "=" * (-len(compact) % 4),
                                validate=True)
    except (binascii.Error, ValueError):
        return value


def signature_key(part: Reasoning) -> Any:
    """What identifies signed reasoning across a replay: the decoded signature, or the redacted data."""
    if part.signature:
        return ("signature", decoded(part.signature))
    if part.redacted:
        return ("redacted", decoded(part.redacted))
    return None


def media_in(parts: Iterable[Part]) -> Iterator[Media]:
    """Every medium among parts and inside their results."""
    for part in parts:
        if isinstance(part, Media):
            yield part
        elif isinstance(part, Result):
            yield from media_in(part.content)


def media_identity(media: Media) -> Any:
    """The same medium whether inline or as a data URL, in either base64 alphabet."""
    data = media.data
    if data is None and media.url is not None and media.url.startswith("data:") and "," in media.url:
        data = media.url.split(",", 1)[1]
    if data is not None:
        raw = decoded(data)
        return ("data", blake2b(raw if isinstance(raw, bytes) else raw.encode(),
                                        digest_size=16).digest())
    if media.url is not None:
        return ("url", media.url)
    return ("file", media.file_id)


def origin(pair: Pair) -> str:
    """Where the original turn was: `exchange 0's response`, `exchange 1's request`."""
    return f"exchange {pair.replay.before.exchange.index}'s {'response' if pair.from_response else 'request'}"


def call_label(call: Invocation) -> str:
    return f"{quote(call.name)}" + (f" ({plain(call.wire_id)})" if call.wire_id else "")
