"""How `diff` pairs two logs, by content and never by position: conversations by what they share,
exchanges in log order within a window, and parts within a paired exchange (steps 1–3 of the
package's docstring); and the paired turns as the rows of a side-by-side view."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from difflib import SequenceMatcher
from typing import Any

from ..checks.replay import norm
from ..load import Loaded
from ..model import (
    Conversation,
    Invocation,
    Media,
    Result,
)
from .results import Diff, Note, Place
from .units import _fingerprint, _similarity, _Snapshot, _turn_sig, _Unit, _units

#: B exchanges looked at, past the last one paired, for each A exchange.
WINDOW = 8
#: Below this share of common content two exchanges are not the same exchange.
MIN_SIMILARITY = 0.2


def _pair_conversations(a: Loaded, b: Loaded, out: Diff) -> list[tuple[Conversation, Conversation]]:
    if len(a.conversations) == 1 and len(b.conversations) == 1:
        return [(a.conversations[0], b.conversations[0])]
    prints = {}
    for side, loaded in (("a", a), ("b", b)):
        for conv in loaded.conversations:
            indexed = [(i, t, "request") for i, t in enumerate(conv.turns)]
            prints[(side, conv.id)] = _fingerprint(u for units in _units(indexed) for u in units)
    scores = sorted(((_similarity(prints[("a", ca.id)], prints[("b", cb.id)]), i, j)
                     for i, ca in enumerate(a.conversations) for j, cb in enumerate(b.conversations)),
                    key=lambda s: (-s[0], s[1], s[2]))
    used_a: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    for score, i, j in scores:
        if score <= 0 or i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        pairs.append((a.conversations[i], b.conversations[j]))
    for side, loaded, used in (("a", a, used_a), ("b", b, used_b)):
        other = "b" if side == "a" else "a"
        for i, conv in enumerate(loaded.conversations):
            if i not in used:
                place = Place(loaded.path, conversation=conv.id)
                out.notes.append(Note(f"{side}'s conversation {conv.id} has no counterpart in {other}",
                                      **{side: place}))
    return sorted(pairs, key=lambda p: a.conversations.index(p[0]))


def _rows(pairs: set[tuple[int, int]], na: int, nb: int) -> list[tuple[int | None, int | None]]:
    """Turn pairs as the rows of a side-by-side view, both columns in order: a turn paired with two
    (merged or split) takes the first, the second shows beside nothing."""
    rows: list[tuple[int | None, int | None]] = []
    next_a = next_b = 0
    for ta, tb in sorted(pairs):
        if ta < next_a or tb < next_b:
            continue
        rows.extend((i, None) for i in range(next_a, ta))
        rows.extend((None, j) for j in range(next_b, tb))
        rows.append((ta, tb))
        next_a, next_b = ta + 1, tb + 1
    rows.extend((i, None) for i in range(next_a, na))
    rows.extend((None, j) for j in range(next_b, nb))
    return rows


# -------------------------------------------------------------------------------------- pairing


def _pair_snapshots(sa: list[_Snapshot], sb: list[_Snapshot]) \
        -> Iterator[tuple[_Snapshot | None, _Snapshot | None]]:
    """Exchanges in log order, each A one with its best match: the most similar of the next B ones
    not yet paired — unless one of the next A ones has that B one for its own best match and is
    closer to it (then that A one takes it, and this one has no partner). So a log's conversion, one
    request replaying every exchange, pairs with the exchange it replays whole (the last), not with
    the first that shares enough of it."""
    prints_a = [_fingerprint(u for units in s.units for u in units) for s in sa]
    prints_b = [_fingerprint(u for units in s.units for u in units) for s in sb]
    scores: dict[tuple[int, int], float] = {}

    def score(i: int, k: int) -> float:
        if (i, k) not in scores:
            scores[i, k] = _similarity(prints_a[i], prints_b[k])
        return scores[i, k]

    def best(i: int, j: int) -> tuple[int | None, float]:
        """A exchange `i`'s most similar B exchange from `j` on (within the window), and its score."""
        found, top = None, MIN_SIMILARITY
        for k in range(j, min(j + WINDOW, len(sb))):
            s = score(i, k)
            if s > top or found is None and s >= top:
                found, top = k, s
        return found, top

    def closer(later: int, i: int, k: int, top: float) -> bool:
        """Is A exchange `later` a better match for B exchange `k` than `i` is (its score `top`)?
        Its best match is `k`, and it is more similar — or as similar and larger: a later exchange
        replays what an earlier one sent, and more (a retry sent again as it was is not larger)."""
        mine = score(later, k)
        return best(later, j)[0] == k and (mine > top or mine == top and
                                            prints_a[later].total() > prints_a[i].total())

    j = 0
    for i, snap in enumerate(sa):
        found, top = best(i, j)
        following = range(i + 1, min(i + WINDOW, len(sa)))
        if found is None or any(closer(later, i, found, top) for later in following):
            yield snap, None
            continue
        for k in range(j, found):
            yield None, sb[k]
        yield snap, sb[found]
        j = found + 1
    for k in range(j, len(sb)):
        yield None, sb[k]


def _align(xa: _Snapshot, xb: _Snapshot) -> list[tuple[_Unit | None, _Unit | None]]:
    """The units of two snapshots paired (see the module's docstring, step 3)."""
    sig_a = [_turn_sig(t, u) for (_, t, _), u in zip(xa.turns, xa.units, strict=True)]
    sig_b = [_turn_sig(t, u) for (_, t, _), u in zip(xb.turns, xb.units, strict=True)]
    pairs: list[tuple[_Unit | None, _Unit | None]] = []
    regions: list[tuple[list[_Unit], list[_Unit]]] = []
    matcher = SequenceMatcher(None, sig_a, sig_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                pairs.extend(zip(xa.units[i], xb.units[j], strict=True))
        else:
            regions.append(([u for units in xa.units[i1:i2] for u in units],
                            [u for units in xb.units[j1:j2] for u in units]))
    pairs.extend(_match_regions(regions, lambda u: u.kind != "result", (_strict, _loose, _JOINED, _kind)))
    calls = {ua.node.id: ub.node.id for ua, ub in pairs
             if ua is not None and ub is not None and isinstance(ua.node, Invocation)
             and isinstance(ub.node, Invocation)}

    def bound(unit: _Unit, side: str) -> Any:
        """A result by the call it answers, as b names it; the results whose call has no counterpart
        (a relay dropped it) and those that answer none (the orphan it left) go together."""
        node = unit.node
        assert isinstance(node, Result)
        own = node.invocation_id
        return ("result", unit.cls, calls.get(own) if side == "a" and own else own)

    pairs.extend(_match_regions(regions, lambda u: u.kind == "result", (_strict, bound, _kind)))
    return pairs


def _match_regions(regions: list[tuple[list[_Unit], list[_Unit]]], select: Callable[[_Unit], bool],
                   keys: Sequence[Any]) -> list[tuple[_Unit | None, _Unit | None]]:
    """The `select`ed units of each region paired (`_match`); then what the regions left unpaired,
    paired across them by the same passes: a part moved past others (a writer that puts tool results
    before the text of their message, a relay that reorders turns) lands in another region than its
    counterpart, and is moved, not lost on one side and added on the other."""
    found: list[tuple[_Unit | None, _Unit | None]] = []
    for left, right in regions:
        found.extend(_match([u for u in left if select(u)], [u for u in right if select(u)], keys))
    alone_a = [a for a, b in found if a is not None and b is None]
    alone_b = [b for a, b in found if b is not None and a is None]
    if not (alone_a and alone_b):
        return found
    paired: list[tuple[_Unit | None, _Unit | None]] = [(a, b) for a, b in found
                                                          if a is not None and b is not None]
    return paired + _match(alone_a, alone_b, keys)


def _strict(unit: _Unit, side: str) -> Any:
    return (unit.cls, unit.sig)


def _loose(unit: _Unit, side: str) -> Any:
    node = unit.node
    if isinstance(node, Invocation):
        return (unit.cls, "call", node.name)
    if isinstance(node, Media):
        return (unit.cls, "media", node.kind)
    return None


def _kind(unit: _Unit, side: str) -> Any:
    return (unit.cls, unit.kind)


#: The pass of `_match` that pairs texts merged into one turn on one side and split over several
#: on the other (a relay joining consecutive user messages, a writer splitting text blocks).
_JOINED = object()


def _match(left: list[_Unit], right: list[_Unit], keys: Sequence[Any]) \
        -> list[tuple[_Unit | None, _Unit | None]]:
    """Pair two lists of units: each pass pairs, in order, units whose key (for that pass) is equal."""
    out: list[tuple[_Unit | None, _Unit | None]] = []
    rest_a, rest_b = list(left), list(right)
    for key in keys:
        if key is _JOINED:
            joined = _joined(rest_a, rest_b)
            out.extend(joined)
            paired = {id(u) for pair in joined for u in pair if u is not None}
            rest_a = [u for u in rest_a if id(u) not in paired]
            rest_b = [u for u in rest_b if id(u) not in paired]
            continue
        waiting: dict[Any, deque[int]] = defaultdict(deque)
        for k, unit in enumerate(rest_b):
            value = key(unit, "b")
            if value is not None:
                waiting[value].append(k)
        taken: set[int] = set()
        kept = []
        for unit in rest_a:
            value = key(unit, "a")
            queue = waiting.get(value) if value is not None else None
            if queue:
                k = queue.popleft()
                taken.add(k)
                out.append((unit, rest_b[k]))
            else:
                kept.append(unit)
        rest_a = kept
        rest_b = [u for k, u in enumerate(rest_b) if k not in taken]
    out.extend((u, None) for u in rest_a)
    out.extend((None, u) for u in rest_b)
    return out


def _joined(left: list[_Unit], right: list[_Unit]) -> list[tuple[_Unit | None, _Unit | None]]:
    """The texts left over on each side, per speaker, when together they say the same: each paired
    with the first of the other side's (the rest beside it), as one merged turn and its parts."""
    out: list[tuple[_Unit | None, _Unit | None]] = []
    for cls in ("client", "model"):
        texts_a = [u for u in left if u.kind == "text" and u.cls == cls]
        texts_b = [u for u in right if u.kind == "text" and u.cls == cls]
        if len(texts_a) + len(texts_b) < 3 or not texts_a or not texts_b:
            continue
        if norm(" ".join(u.text for u in texts_a)) != norm(" ".join(u.text for u in texts_b)):
            continue
        for u in texts_a + texts_b:
            u.joined = True
        out.extend((u, texts_b[0]) for u in texts_a)
        out.extend((texts_a[0], u) for u in texts_b[1:])
    return out
