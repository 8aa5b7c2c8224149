"""Replayed history, recognised before it is read: each distinct message becomes turns once.

An agent loop sends its whole history again with every request, so a log of n exchanges holds each
early message n times, and reading every request in full costs the square of the session's length.
`History` reads a request's message list (the format's `Facts.messages_key`) against the last
request of the conversation that sent the same messages before it:

* Every message is known by its digest (a hash of its JSON bytes as orjson writes the parsed
  value; equal digests are confirmed by comparing the parsed values, so a collision costs only the
  reuse). The chained digests of a request's prefixes index the conversation that last sent them.
* The longest prefix the request shares with that conversation's last request keeps the turn
  objects that request had — the same objects, with the sources of the exchange that first sent
  them — and the reader reads the rest of the list alone, after them (`read_request(body, source,
  start=cut, prior=kept)`, see `formats.base.Format`): its turns point into the whole list and are
  linked after the kept ones as they are made, as a read of the whole list would have made them.
* The cut is made where the earlier read began a turn, and never where the first new turn has the
  role of the last kept one (a reader may merge such a run into one turn: Chat tool messages,
  Responses items); then the cut moves back one turn, or the request is read whole.

The kept turns are the ones the stitcher would put in the timeline anyway (`stitch`: a turn that
reappears unchanged keeps the object of its first appearance), so a request may keep them only if
it continues that conversation: `load` asks `Stitcher.match` and reads the request whole when it
starts or continues another (a second run of the same task keeps its own sources). A turn that
changed on replay is never kept: it is read from the request that sent it and points there, which
is where the TD3xx replay rules report it.

What is replayed is held once, too: the request body itself is made to hold the earlier request's
parsed messages where they are proven equal (the shared prefix byte for byte, or each message at
the same place by digest and value), and the earlier body's other members (`tools`, `system`, …)
where they are equal as JSON bytes — the same objects (`is`), replaced in place in the list and the
body, the values unchanged — so a log of n requests holds each distinct message once, not n times,
and a reader that remembers what it read of an object (`tools` read once) finds it by identity.

The readers stay whole-body functions: a format needs nothing beyond its `messages_key` and the
`start`/`prior` of its `read_request` for this.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from operator import is_not
from typing import Any, Protocol

from . import formats
from .formats.base import Request
from .jsonio import Printed, dumps, inside
from .model import Turn
from .source import NO_SOURCE, Source


class Reader(Protocol):
    """A reader of one request body: a format's `read_request` (`formats.base.Format`)."""

    def __call__(self, body: Any, source: Source, /, *, start: int = 0,
                 prior: tuple[Turn, ...] = ()) -> Request: ...


@dataclass(slots=True)
class Listed:
    """A request's message list as `History` knows it: each message's digest, the chained digest of
    each prefix, and the list as JSON bytes (kept for the latest request only: `UNWRITTEN`
    otherwise); and the JSON bytes of the body's other members that were written to be compared.
    JSON bytes are held as the depth test printed them, in place (`jsonio.Printed`; `(text, 0)`
    when printed here)."""

    digests: list[int]
    chains: list[int]
    written: Printed
    members: dict[str, Printed] = field(default_factory=dict)


#: A list whose JSON bytes are not kept (`Listed.written`).
UNWRITTEN: Printed = (b"", 0)


@dataclass(slots=True)
class Sent:
    """The last request of a conversation, by message: what the next one is compared with."""

    format: str
    body: dict[str, Any]
    messages: list[Any]
    listed: Listed
    request: Request
    #: The message each of `request`'s turns was read from, in order (None when a turn was not
    #: read from the list: then the request is not cut).
    starts: list[int] | None


@dataclass(slots=True)
class History:
    """One file's message digests and each conversation's last request (see the module docstring)."""

    _owner: dict[int, str] = field(default_factory=dict)
    _last: dict[str, Sent] = field(default_factory=dict)
    #: The conversation remembered last (the one the next request most often goes on from).
    _latest: str | None = None
    #: The first request remembered, until a second one comes (`remember`, `_settle`).
    _first: tuple[str, Any, str, Request] | None = None

    def read(self, fmt: str, read_request: Reader, body: Any, source: Source,
             lists: dict[str, Printed] | None = None) -> tuple[Request, str | None, Listed | None]:
        """`read_request(body, source)`, keeping the history turns an earlier request had: the
        request, the conversation whose turns it kept (None: read whole), and its message list as
        known here (None: it has none, or it is the first request: see `remember`). `lists` holds
        the JSON bytes of the body's list members where they were printed already
        (`records.containers.Message.lists`)."""
        key = formats.facts(fmt).messages_key
        messages = body.get(key) if isinstance(body, dict) else None
        if not isinstance(messages, list):
            return read_request(body, source), None, None
        self._settle()
        if not self._last:  # nothing to keep: the list is described when another request comes
            return read_request(body, source), None, None
        conversation: str | None = self._latest
        latest = sent = self._last.get(conversation) if conversation is not None else None
        written = lists.get(key) if lists else None
        listed = _going_on(messages, sent, written) if sent is not None and sent.format == fmt else None
        if listed is not None and sent is not None:
            # The usual request: the latest one's whole list and more (compared as JSON bytes).
            shared = len(sent.messages)
            messages[:shared] = sent.messages  # the same objects: held once
        else:
            listed = _listed(messages)
            conversation, sent = self._previous(listed.chains)
            shared = _share_messages(messages, listed.digests, sent) if sent is not None else 0
        if (previous := sent or latest) is not None:
            listed.members = _share_members(body, key, previous, lists)
        if sent is not None and conversation is not None and sent.format == fmt:
            kept = _resume(read_request, body, source, key, sent, shared)
            if kept is not None:
                return kept, conversation, listed
        return read_request(body, source), None, listed

    def remember(self, conversation: str, body: Any, fmt: str, listed: Listed | None,
                 request: Request) -> None:
        """`request` (with its message list as `read` knew it) is now `conversation`'s last. The
        first request of a file is described (digests, the message each turn came from) only when
        a second one comes: a file of one request body, what `convert` reads most, never is."""
        if listed is None:
            key = formats.facts(fmt).messages_key
            if not self._last and self._first is None and isinstance(body, dict) \
                    and isinstance(body.get(key), list):
                self._first = (conversation, body, fmt, request)
            return
        self._remember(conversation, body, fmt, listed, request)

    def _settle(self) -> None:
        """Describe the first request, now that another may go on from it."""
        if self._first is not None:
            conversation, body, fmt, request = self._first
            self._first = None
            self._remember(conversation, body, fmt, _listed(body[formats.facts(fmt).messages_key]),
                           request)

    def _remember(self, conversation: str, body: Any, fmt: str, listed: Listed, request: Request) -> None:
        key = formats.facts(fmt).messages_key
        previous = self._last.get(conversation)
        same = 0  # the turns it kept of the conversation's previous request know their message
        if previous is not None:
            # (compared in C, not a Python loop over every kept turn: that loop was most of `_remember`)
            differ = list(map(is_not, request.turns, previous.request.turns))
            same = differ.index(True) if True in differ else len(differ)
        base = NO_SOURCE.child(key).pointer  # (a body's own source points at its root)
        known = previous.starts[:same] if previous is not None and previous.starts is not None else None
        if known is None:
            same, known = 0, []
        starts: list[int] | None = known + [at for t in request.turns[same:]
                                            if (at := _message_at(t.source.pointer, base)) is not None]
        if starts is not None and (len(starts) != len(request.turns) or starts != sorted(starts)):
            starts = None  # a turn not read from the list, or out of its order: no cut is safe
        latest = self._last.get(self._latest) if self._latest is not None else None
        if latest is not None:  # only the latest keeps its list as bytes (for `_going_on`)
            latest.listed.written, latest.listed.members = UNWRITTEN, {}
        self._last[conversation] = Sent(fmt, body, body[key], listed, request, starts)
        self._latest = conversation
        self._owner.update(dict.fromkeys(listed.chains, conversation))

    def _previous(self, chains: list[int]) -> tuple[str | None, Sent | None]:
        """The conversation whose requests sent the longest prefix of these messages, and its last."""
        for chain in reversed(chains):
            conversation = self._owner.get(chain)
            if conversation is not None:
                return conversation, self._last[conversation]
        return None, None


def _listed(messages: list[Any], known: Listed | None = None, whole: Printed | None = None) -> Listed:
    """`messages` as `History` knows them; the first ones those `known` already describes (`whole`:
    the list's JSON bytes, when printed already)."""
    digests, chains = (list(known.digests), list(known.chains)) if known is not None else ([], [])
    written = [dumps(m) for m in messages[len(digests):]]
    chain = chains[-1] if chains else 0
    for text in written:
        digests.append(hash(text))
        chain = hash((chain, digests[-1]))
        chains.append(chain)
    if whole is not None:
        return Listed(digests, chains, whole)
    if known is None:
        return Listed(digests, chains, (b"[" + b",".join(written) + b"]", 0))
    joined = b"".join((inside(known.written)[:-1], b"," if known.digests and written else b"",
                       b",".join(written), b"]"))
    return Listed(digests, chains, (joined, 0))


def _going_on(messages: list[Any], latest: Sent, whole: Printed | None = None) -> Listed | None:
    """`messages` as known, when they begin with all of `latest`'s, byte for byte (one write of
    that part and one comparison, not one per message — no write at all when the list's JSON bytes
    `whole` were printed already); None when they do not."""
    shared, before = len(latest.messages), latest.listed.written
    if not before[0] or len(messages) < shared:
        return None
    if whole is None:
        if not _same((dumps(messages[:shared]), 0), before):
            return None
    elif not _begins_with(whole, before):
        return None
    return _listed(messages, latest.listed, whole)


def _begins_with(whole: Printed, start: Printed) -> bool:
    """Whether the JSON array `whole` begins with the elements of the JSON array `start`, byte for
    byte (both as `dumps` prints them): `start` but its `]`, then the end of an element — a comma or
    the end of `whole` (a number is not complete before that: `[1` begins `[12]` but `[1]` does not).
    Both are read where they were printed (`Printed`)."""
    (text, at), opened = whole, inside(start)[:-1]  # (`start` but its `]`: a view, not a copy)
    if len(opened) == 1:  # `[]`
        return True
    cut = at + len(opened)  # where `start`'s elements end in `whole`
    return text.startswith(opened, at) and text[cut:cut + 1] in (b",", b"]")


def _same(one: Printed, other: Printed) -> bool:
    """Whether two printed texts hold the same JSON bytes (compared where they were printed)."""
    (text, spare), (other_text, other_spare) = one, other
    if spare == other_spare:  # (the same lists around both)
        return text == other_text
    own = inside(other)
    return len(text) - 2 * spare == len(own) and text.startswith(own, spare)


def _share_messages(messages: list[Any], digests: list[int], sent: Sent) -> int:
    """Make the list hold `sent`'s message wherever one at the same place is equal (by the digest of
    their JSON bytes, then by value: a message changed on replay does not stop the ones after it
    from being held once); returns how many of its first messages it shares."""
    shared = None
    for at, (mine, digest, parsed, theirs) in enumerate(zip(digests, sent.listed.digests, messages,
                                                            sent.messages, strict=False)):
        if mine == digest and (parsed is theirs or parsed == theirs):
            messages[at] = theirs
        elif shared is None:
            shared = at
    return min(len(messages), len(sent.messages)) if shared is None else shared


def _share_members(body: dict[str, Any], key: str, sent: Sent,
                   lists: dict[str, Printed] | None = None) -> dict[str, Printed]:
    """Make `body` hold `sent`'s members (but its message list) where they are equal as JSON bytes:
    texts and containers, the ones worth holding once. Returns the JSON bytes written of `body`'s
    members (the next request is compared with them); `lists`: those printed already."""
    theirs_written: dict[str, Printed] = sent.listed.members
    written: dict[str, Printed] = {}
    printed = lists or {}
    for name, value in body.items():
        theirs = sent.body.get(name)
        if name == key or theirs is value or type(theirs) is not type(value):
            continue
        if isinstance(value, str):
            if theirs == value:
                body[name] = theirs
        elif isinstance(value, dict | list):
            mine, known = printed.get(name), theirs_written.get(name)
            if mine is None or known is None:  # (both printed: their bytes alone tell, no walk)
                if theirs != value:
                    continue
                mine, known = mine or (dumps(value), 0), known or (dumps(theirs), 0)
            written[name] = mine
            if _same(mine, known):  # 1 == 1.0 == True in Python: equal values may print apart
                body[name] = theirs
    return written


def _resume(read_request: Reader, body: dict[str, Any], source: Source, key: str, sent: Sent,
            shared: int) -> Request | None:
    """The request, read from the first message it does not share with `sent` on (see the module
    docstring; `shared`: how many it shares); None when no cut is safe."""
    starts = sent.starts
    if starts is None:
        return None
    base = source.child(key).pointer
    for cut in _cuts(starts, len(sent.messages), shared):
        kept = bisect_left(starts, cut)  # the turns read from the messages before the cut
        if kept == 0:
            continue
        prior = sent.request.turns[:kept]
        try:
            request = read_request(body, source, start=cut, prior=prior)
        except Exception:  # noqa: BLE001 - the whole read reports the error at its true place
            return None
        if len(request.turns) > kept and request.turns[kept].role == prior[-1].role:
            continue  # the first new turn might merge into the last kept one: cut a turn earlier
        # The system prompt is the request's own (a conversation takes its last request's), so
        # what the list gave it points into this request, not the one it was read from.
        from_list = tuple(replace(p, source=p.source.rebased(source))
                          for p in sent.request.system if _message_at(p.source.pointer, base) is not None)
        if from_list:
            _SET_SYSTEM(request, (*request.system, *from_list))
        return request
    return None


#: Sets the system parts of a request the reader has just made, which nothing else holds yet: in
#: place, as a frozen dataclass's `__post_init__` finishes a value (`formats.reading` gives calls
#: their ids so), not a copy of the request made to change one field (`dataclasses.replace`).
_SET_SYSTEM = vars(Request)["system"].__set__


def _cuts(starts: list[int], sent: int, shared: int) -> Iterator[int]:
    """Where a request may be cut, last first: where one of the earlier request's turns began, or
    after its last message, within the `shared` messages (each kept turn covers its messages up to
    the next turn's start)."""
    if 0 < sent <= shared:
        yield sent
    at = bisect_right(starts, shared) - 1
    while at >= 0 and starts[at] > 0:
        cut = starts[at]
        if cut < sent:
            yield cut
        at = bisect_left(starts, cut) - 1


def _message_at(pointer: str, base: str) -> int | None:
    """The index of the message a pointer lies in (`/messages/3/content` → 3), None when outside."""
    if not pointer.startswith(base + "/"):
        return None
    token = pointer[len(base) + 1:].split("/", 1)[0]
    return int(token) if token.isdigit() else None
