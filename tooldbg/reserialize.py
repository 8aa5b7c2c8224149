"""One canonical turn as another provider would carry it: the wire items it became, and its losses.

Every writer says where each wire item came from (`Written.origins`: JSON pointer in the written
body → the (turn, part) it carries), so "turn i in format F" is a lookup: F's writer writes the whole
conversation once (cached per conversation and format), and turn i is the items whose origin is
turn i, at their pointers. A message merged from several turns (Anthropic folds tool results and the
next user text into one user message, Bedrock sends consecutive same-role turns as one message,
Gemini puts results from several turns into the user content after their calls) is shown trimmed
to the blocks of turn i, each still named by its pointer in the written body. The node that carries
a part — the one a finding points at — is `parts[part]`.

The losses are those the writer reports for turn i when it writes the whole conversation, which is
what an export reports.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from . import formats
from .formats.base import Written
from .formats.origins import Origin
from .model import Conversation, Loss


@dataclass(frozen=True, slots=True)
class TurnInFormat:
    """Turn `index` written as `target`.

    `items` are the entries of the body's `key` list that carry the turn, `pointers` where each
    sits in the written body (`/messages/4`); an entry merged from several turns is trimmed to the
    turn's blocks. `changed` holds, by top-level key, what the turn put outside the list (a leading
    system turn goes to Anthropic's `system`). `parts` maps each part the writer carried to the
    pointer of the node carrying it. `shared` names the entries trimmed so, with the other turns
    they hold. `losses` are the writer's losses for the turn; `elsewhere` counts the
    conversation-wide ones it reported besides (tools, system, settings).

    The items are shown as the list `/{key}/0`, `/{key}/1`… and `changed` as a document of its
    own; `place` turns a pointer into what is shown into the pointer in the written body."""

    target: str
    index: int
    key: str
    items: tuple[Any, ...]
    pointers: tuple[str, ...]
    parts: dict[int, str]
    losses: tuple[Loss, ...]
    changed: dict[str, Any] = field(default_factory=dict)
    shared: dict[str, tuple[int, ...]] = field(default_factory=dict)
    elsewhere: int = 0
    places: dict[str, str] = field(default_factory=dict, repr=False)
    """Pointer of a shown node → its pointer in the written body (items, trimmed blocks)."""

    @property
    def pointer(self) -> str:
        """Where the turn's first item is in the written body ("" when it has none)."""
        return self.pointers[0] if self.pointers else ""

    def place(self, shown: str) -> str:
        """The pointer in the written body of the node at `shown` in what is shown."""
        places = self.places
        cut = len(shown)
        while cut > 0:
            prefix = shown[:cut]
            hit = places.get(prefix)
            if hit is not None:
                return hit + shown[cut:]
            cut = shown.rfind("/", 0, cut)
        return shown


@dataclass(slots=True)
class _Index:
    """A written conversation with its origins grouped by turn, and the entries several turns
    share. Flat (a list of pointers, ints by turn): a 10,000-turn conversation has some 30,000
    origins, and the index must not fill the heap with small containers."""

    written: Written
    origins: dict[str, Origin]  # the written origins, as a plain dict
    order: list[str]  # the pointers of the origins by turn, in document order within a turn
    starts: dict[int, int]  # turn → where its pointers start in `order`
    ends: dict[int, int]  # turn → where they end
    shared: dict[str, tuple[tuple[int, ...], set[str]]]  # entry of several turns → them, fields with origins
    losses: dict[int | None, list[Loss]]

    @classmethod
    def of(cls, written: Written) -> _Index:
        origins = dict(written.origins.items())
        order = sorted(origins, key=lambda pointer: origins[pointer][0])
        starts: dict[int, int] = {}
        ends: dict[int, int] = {}
        for n, pointer in enumerate(order):
            turn = origins[pointer][0]
            starts.setdefault(turn, n)
            ends[turn] = n + 1
        first: dict[str, int] = {}  # entry → the turn of its first origin
        mixed: set[str] = set()
        for pointer, (turn, _) in origins.items():
            if first.setdefault(_entry(pointer), turn) != turn:
                mixed.add(_entry(pointer))
        shared: dict[str, tuple[tuple[int, ...], set[str]]] = {}
        if mixed:
            turns_of: dict[str, set[int]] = {}
            fields_of: dict[str, set[str]] = {}
            for pointer, (turn, _) in origins.items():
                entry = _entry(pointer)
                if entry in mixed:
                    turns_of.setdefault(entry, set()).add(turn)
                    rest = pointer[len(entry) + 1:]
                    if rest:
                        fields_of.setdefault(entry, set()).add(rest.split("/", 1)[0])
            shared = {entry: (tuple(sorted(turns)), fields_of.get(entry, set()))
                      for entry, turns in turns_of.items()}
        losses: dict[int | None, list[Loss]] = {}
        for loss in written.losses:
            losses.setdefault(loss.turn, []).append(loss)
        return cls(written, origins, order, starts, ends, shared, losses)


class Reserializer:
    """Finds turns in other formats: each conversation is written once per format (a small cache
    of the last few), and every turn is looked up in it. Safe to share between worker threads."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._indexes: OrderedDict[tuple[int, str], tuple[Conversation, _Index]] = OrderedDict()
        self._lock = threading.Lock()

    def write(self, conversation: Conversation, target: str) -> Written:
        """`conversation` written as `target` (cached)."""
        return self._index(conversation, target).written

    def _index(self, conversation: Conversation, target: str) -> _Index:
        key = (id(conversation), target)
        with self._lock:
            hit = self._indexes.get(key)
            if hit is not None and hit[0] is conversation:
                self._indexes.move_to_end(key)
                return hit[1]
        index = _Index.of(formats.get(target).write(conversation))
        with self._lock:
            self._indexes[key] = (conversation, index)
            while len(self._indexes) > self.size:
                self._indexes.popitem(last=False)
        return index

    def turn(self, conversation: Conversation, index: int, target: str) -> TurnInFormat:
        if target not in formats.FORMATS:
            raise ValueError(f"not a wire format: {target}")
        if not 0 <= index < len(conversation.turns):
            raise IndexError(f"turn {index} out of range")
        found = self._index(conversation, target)
        body, key = found.written.body, formats.facts(target).messages_key
        entries: dict[str, list[str]] = {}
        parts: dict[int, str] = {}
        origins = found.origins
        for pointer in found.order[found.starts.get(index, 0):found.ends.get(index, 0)]:
            entries.setdefault(_entry(pointer), []).append(pointer)
            part = origins[pointer][1]
            if part is not None:
                parts.setdefault(part, pointer)
        items: list[Any] = []
        pointers: list[str] = []
        changed: dict[str, Any] = {}
        places: dict[str, str] = {}
        shared: dict[str, tuple[int, ...]] = {}
        for entry, marked in entries.items():
            top, _, position = entry[1:].partition("/")
            name = _unescape(top)
            node = container = body[name]
            listed = isinstance(container, list)
            if position:
                node = container[int(position)] if listed else container[_unescape(position)]
            if top == key and position and listed:
                shown = f"/{key}/{len(items)}"
            elif position and listed:
                shown = f"/{top}/{len(changed.get(name, ()))}"
            else:
                shown = entry
            places[shown] = entry
            if entry in found.shared:
                turns, fields = found.shared[entry]
                shared[entry] = tuple(t for t in turns if t != index)
                node = _trim(node, entry, marked, fields, shown, places)
            if top == key and position and listed:
                items.append(node)
                pointers.append(entry)
            elif position and listed:
                changed.setdefault(name, []).append(node)
            elif position:
                changed.setdefault(name, {})[_unescape(position)] = node
            else:
                changed[name] = node
        losses = tuple(found.losses.get(index, ()))
        elsewhere = len(found.losses.get(None, ()))
        return TurnInFormat(target, index, key, tuple(items), tuple(pointers), parts, losses,
                            changed, shared, elsewhere, places)


def _entry(pointer: str) -> str:
    """The top-level entry a pointer is in: `/messages/4/content/1` → `/messages/4`, `/system` →
    `/system`."""
    second = pointer.find("/", 1)
    if second < 0:
        return pointer
    third = pointer.find("/", second + 1)
    return pointer if third < 0 else pointer[:third]


def _trim(node: Any, entry: str, marked: list[str], fields: set[str], shown: str,
          places: dict[str, str]) -> Any:
    """An entry several turns share, with each of its lists that hold origins cut down to the
    children holding the turn's (`marked`); the kept children's places recorded."""
    if not isinstance(node, dict):
        return node
    kept: dict[str, list[int]] = {}
    for pointer in marked:
        field_name, _, rest = pointer[len(entry) + 1:].partition("/")
        child = rest.split("/", 1)[0]
        if child.isdigit():
            at = kept.setdefault(_unescape(field_name), [])
            if not at or at[-1] != int(child):
                at.append(int(child))
    out = {}
    for name, value in node.items():
        escaped = name.replace("~", "~0").replace("/", "~1")
        if escaped in fields and isinstance(value, list):
            indices = sorted(set(kept.get(name, ())))
            out[name] = [value[i] for i in indices]
            for n, i in enumerate(indices):
                places[f"{shown}/{escaped}/{n}"] = f"{entry}/{escaped}/{i}"
        else:
            out[name] = value
    return out


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def reserialize(conversation: Conversation, index: int, target: str) -> TurnInFormat:
    """Turn `index` of `conversation` written as `target`, with the details (see `TurnInFormat`)."""
    return Reserializer().turn(conversation, index, target)


def turn_in_format(conversation: Conversation, index: int, target: str) -> tuple[list[Any], list[Loss]]:
    """(the wire items turn `index` became in `target`, the writer's losses naming that turn)."""
    found = reserialize(conversation, index, target)
    return list(found.items), list(found.losses)
