"""One canonical turn as another provider would carry it: the wire items it became, and its losses.

Writers merge turns (Anthropic folds tool results and the next user text into one user message,
Gemini puts every result of a round into one `user` content, Responses flattens turns into items),
so "the wire form of turn i" is not a slice of the written body one can look up. It is found by
difference: write `turns[:i]` and `turns[:i + 1]` with the target's writer and keep the items of
the message list from the first index where the two bodies differ. That is exactly what adding the
turn changed — a new message, or the previous message grown by the turn's blocks.

Some writer decisions depend on what comes later: a call still unanswered when a prefix ends is kept
there, but dropped from the whole conversation when its result comes too late; a call unanswered
when the user speaks is dropped from a prefix, although the whole conversation answers it after the
user's text (TD403). So the prefix's items are checked against the whole written conversation (the
last one may have grown there, later turns merged into it); when they disagree, the turn's items
are taken from the whole conversation instead: the span that changes when the turn is left out.

The losses are those the writer reports for turn `i` when it writes the whole conversation, which is
what an export would report (a prefix ending on a call would report the call as unanswered).
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from . import formats
from .formats.base import Written
from .model import Conversation, Loss


@dataclass(frozen=True, slots=True)
class TurnInFormat:
    """Turn `index` written as `target`: `items` of the body's `key` list from position `start`;
    for a turn that writes no item, the top-level entries it changed instead (`changed`: a leading
    system turn goes to Anthropic's `system`); the writer's losses for the turn, and how many
    conversation-wide losses the writer reported besides (`elsewhere`: tools, system, settings)."""

    target: str
    index: int
    key: str
    start: int
    items: tuple[Any, ...]
    losses: tuple[Loss, ...]
    changed: dict[str, Any]
    elsewhere: int = 0

    @property
    def pointer(self) -> str:
        """Where the items start in the written body (`/messages/4`)."""
        return f"/{self.key}/{self.start}"


class Reserializer:
    """Finds turns in other formats, with a small cache of written conversations (stepping turn by
    turn writes each prefix once: turn i's "after" is turn i+1's "before"). Safe to share between
    worker threads.

    A long conversation is not written up to the turn each time: the turn is written in a window
    that starts at the last *cut* before it — a user turn after an assistant turn without calls,
    with no call before it answered after it, where every writer starts a fresh message — and the
    window's items are placed in the whole written conversation (written once per format) at the
    cut's position, found once per cut. When they are not there, the full prefixes are written
    instead; `window=False` always does."""

    def __init__(self, size: int = 4, *, window: bool = True) -> None:
        self.size = size
        self.window = window
        self._written: OrderedDict[tuple[int, str, int], tuple[Conversation, Written]] = OrderedDict()
        self._cuts: OrderedDict[int, tuple[Conversation, list[int]]] = OrderedDict()
        self._positions: OrderedDict[tuple[int, str, int], tuple[Conversation, int | None]] = OrderedDict()
        self._lock = threading.Lock()

    def write(self, conversation: Conversation, target: str, count: int | None = None) -> Written:
        """`conversation` (its first `count` turns) written as `target`."""
        n = len(conversation.turns) if count is None else count
        key = (id(conversation), target, n)
        with self._lock:
            hit = self._written.get(key)
            if hit is not None and hit[0] is conversation:
                self._written.move_to_end(key)
                return hit[1]
        part = conversation if n == len(conversation.turns) else \
            replace(conversation, turns=conversation.turns[:n])
        written = formats.get(target).write(part)
        with self._lock:
            self._written[key] = (conversation, written)
            while len(self._written) > self.size:
                self._written.popitem(last=False)
        return written

    def turn(self, conversation: Conversation, index: int, target: str) -> TurnInFormat:
        if target not in formats.FORMATS:
            raise ValueError(f"not a wire format: {target}")
        if not 0 <= index < len(conversation.turns):
            raise IndexError(f"turn {index} out of range")
        key = formats.facts(target).messages_key
        whole = self.write(conversation, target)
        full = whole.body.get(key) or []
        found = self._in_window(conversation, index, target, full) if self.window else None
        start, items, changed = found or self._by_prefix(conversation, index, target, full)
        losses = tuple(loss for loss in whole.losses if loss.turn == index)
        elsewhere = sum(1 for loss in whole.losses if loss.turn is None)
        return TurnInFormat(target, index, key, start, tuple(items), losses, changed, elsewhere)

    def _by_prefix(self, conversation: Conversation, index: int, target: str,
                   full: list[Any]) -> tuple[int, list[Any], dict[str, Any]]:
        key = formats.facts(target).messages_key
        before = self.write(conversation, target, index).body
        after = self.write(conversation, target, index + 1).body
        old, new = before.get(key) or [], after.get(key) or []
        start = _start(old, new)
        items = new[start:]
        if not _agrees(items, full[start:start + len(items)]):
            start, items = self._left_out(conversation, index, target, full)
        changed = {} if items else {k: v for k, v in after.items() if k != key and before.get(k) != v}
        return start, items, changed

    def _in_window(self, conversation: Conversation, index: int, target: str,
                   full: list[Any]) -> tuple[int, list[Any], dict[str, Any]] | None:
        """The prefix method on turns[cut:], placed in the whole written conversation; None when the
        window's items are not where the cut's position says (or no cut makes a window worth it)."""
        cuts = self._cuts_of(conversation)
        cut = cuts[bisect_right(cuts, index) - 1] if cuts and cuts[0] <= index else 0
        if cut == 0:
            return None
        key, write = formats.facts(target).messages_key, formats.get(target).write
        head = write(replace(conversation, turns=())).body.get(key) or []
        before = write(replace(conversation, turns=conversation.turns[cut:index])).body
        after = write(replace(conversation, turns=conversation.turns[cut:index + 1])).body
        old, new = before.get(key) or [], after.get(key) or []
        h = len(head)
        if new[:h] != head or old[:h] != head or full[:h] != head or len(new) == h:
            return None
        start = max(h, _start(old, new))
        prior, items = new[h:start], new[start:]
        if not items:  # where else it went (a top-level entry) only the prefixes tell
            return None
        at = self._position(conversation, cut, target, full, h)
        if at is None or full[at:at + len(prior)] != prior \
                or not _agrees(items, full[at + len(prior):at + len(prior) + len(items)]):
            return None
        return at + len(prior), items, {}

    def _position(self, conversation: Conversation, cut: int, target: str, full: list[Any],
                  h: int) -> int | None:
        """Where the items of turns[cut:] start in the whole written conversation: counted from
        the turns before the cut written alone, or from the turns after it, whichever is fewer
        (and checked against the whole). Cached: every turn up to the next cut shares it."""
        key = (id(conversation), target, cut)
        with self._lock:
            hit = self._positions.get(key)
            if hit is not None and hit[0] is conversation:
                return hit[1]
        turns, write = conversation.turns, formats.get(target).write
        name = formats.facts(target).messages_key
        at: int | None = None
        if cut <= len(turns) - cut:
            before = write(replace(conversation, turns=turns[:cut])).body.get(name) or []
            n = len(before)
            if h < n <= len(full) and full[:n - 1] == before[:n - 1] \
                    and (full[n - 1] == before[n - 1] or _same_shape(before[n - 1], full[n - 1])):
                at = n
        else:
            after = write(replace(conversation, turns=turns[cut:])).body.get(name) or []
            m = len(after) - h
            if after[:h] == full[:h] and 0 < m <= len(full) - h and full[len(full) - m:] == after[h:]:
                at = len(full) - m
        with self._lock:
            self._positions[key] = (conversation, at)
            while len(self._positions) > 64:
                self._positions.popitem(last=False)
        return at

    def _cuts_of(self, conversation: Conversation) -> list[int]:
        """Turns a writer starts afresh at: a user turn without results right after an assistant
        turn without calls, with every call made before it answered before it."""
        with self._lock:
            hit = self._cuts.get(id(conversation))
            if hit is not None and hit[0] is conversation:
                return hit[1]
        answered: dict[str, int] = {}
        for t, turn in enumerate(conversation.turns):
            for result in turn.results():
                if result.invocation_id is not None:
                    answered.setdefault(result.invocation_id, t)
        cuts, latest = [], -1
        turns = conversation.turns
        for t, turn in enumerate(turns):
            if t and turn.role == "user" and turns[t - 1].role == "assistant" and latest < t \
                    and not any(True for _ in turn.results()) \
                    and not any(True for _ in turns[t - 1].invocations()):
                cuts.append(t)
            for call in turn.invocations():
                latest = max(latest, answered.get(call.id, -1))
        with self._lock:
            self._cuts[id(conversation)] = (conversation, cuts)
            while len(self._cuts) > self.size:
                self._cuts.popitem(last=False)
        return cuts

    def _left_out(self, conversation: Conversation, index: int, target: str,
                  full: list[Any]) -> tuple[int, list[Any]]:
        """The items of the whole written conversation that change when turn `index` is left out."""
        turns = conversation.turns[:index] + conversation.turns[index + 1:]
        without = formats.get(target).write(replace(conversation, turns=turns)).body
        rest = without.get(formats.facts(target).messages_key) or []
        start = _first_difference(rest, full)
        end = len(full)
        while end > start and len(rest) - (len(full) - end) > start and \
                rest[len(rest) - (len(full) - end) - 1] == full[end - 1]:
            end -= 1
        return start, full[start:end]


def _agrees(items: list[Any], written: list[Any]) -> bool:
    """Do a prefix's items appear in the whole written conversation? The last may have grown there
    (later turns merged into its message: a content list longer, the rest equal)."""
    if len(items) != len(written) or items[:-1] != written[:-1]:
        return False
    return not items or _grows(items[-1], written[-1])


def _grows(old: Any, new: Any) -> bool:
    if old == new:
        return True
    if not (isinstance(old, dict) and isinstance(new, dict)) or old.keys() != new.keys():
        return False
    return all(old[k] == new[k] or (isinstance(old[k], list) and isinstance(new[k], list)
                                    and new[k][:len(old[k])] == old[k])
               or _grows(old[k], new[k]) for k in old)


def _start(old: list[Any], new: list[Any]) -> int:
    """Where a turn's items start: the first item the longer prefix writes differently. A request
    ending on an assistant message has it tidied (Anthropic strips its trailing whitespace); that
    item coming back untidied, same shape, is not the next turn's doing."""
    start = _first_difference(old, new)
    if start == len(old) - 1 and start < len(new) and _same_shape(old[start], new[start]):
        start += 1
    return start


def _same_shape(a: Any, b: Any) -> bool:
    """The same keys and list lengths all the way down (only scalar values differ)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_shape(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_shape(x, y) for x, y in zip(a, b, strict=True))
    return not isinstance(a, dict | list) and not isinstance(b, dict | list)


def _first_difference(old: list[Any], new: list[Any]) -> int:
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return i
    return min(len(old), len(new))


def reserialize(conversation: Conversation, index: int, target: str) -> TurnInFormat:
    """Turn `index` of `conversation` written as `target`, with the details (see `TurnInFormat`)."""
    return Reserializer().turn(conversation, index, target)


def turn_in_format(conversation: Conversation, index: int, target: str) -> tuple[list[Any], list[Loss]]:
    """(the wire items turn `index` became in `target`, the writer's losses naming that turn)."""
    found = reserialize(conversation, index, target)
    return list(found.items), list(found.losses)
