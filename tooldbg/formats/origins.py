"""Where each item a writer emits came from: `Origin` (a turn and part of the canonical
conversation) and `Origins`, which records them as a writer makes its nodes and finds their JSON
pointers in the final body (`Written.origins`)."""

from __future__ import annotations

import gc
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from copy import copy
from typing import Any, TypeVar

from ..source import escape_pointer

_Emitted = TypeVar("_Emitted")

#: What a written node carries: (turn, part) of the canonical conversation; part None for a node
#: that carries a turn as a whole (a message, or a top-level entry such as Anthropic's `system`).
Origin = tuple[int, int | None]


class Origins:
    """Records, as a writer emits them, which (turn, part) each wire node carries, and finds the
    nodes' JSON pointers once the body is final.

    Nodes are recorded by identity, so a writer marks a block where it makes it and need not know
    where it will end up: messages merged, reordered or dropped afterwards (an unanswered call
    left out) are found where they are in the final body, or not at all. A node emitted twice (a
    verbatim opaque value two parts share) is copied the second time: `mark` returns the node to
    emit. A string cannot be told apart by identity: mark the object holding it, with `at`
    naming the key (`mark(message, t, p, "/content")` when the text became the content string).

    `resolve` walks the body four levels deep (`/messages/3/content/1`), where writers put the
    nodes that carry parts; an item of a top-level list that is not marked but holds marks of a
    single turn carries that turn (`(turn, None)`)."""

    __slots__ = ("_at", "_at_codes", "_codes", "_keep", "_more")

    DEPTH = 4

    def __init__(self) -> None:
        # Origins packed into ints by node id, no container per mark: a writer makes tens of
        # thousands of marks, and every container allocated brings the next full garbage
        # collection (a pause of the interface) nearer.
        self._codes: dict[int, int] = {}  # id(node) → packed origin
        self._at: dict[int, str] = {}  # id(node) → the key path of its first keyed mark
        self._at_codes: dict[int, int] = {}  # id(node) → that mark's packed origin
        self._more: dict[int, list[tuple[str, int]]] = {}  # id(node) → its other keyed marks (rare)
        self._keep: list[Any] = []  # the marked nodes, alive: an id is not reused while marks hold it

    def mark(self, node: _Emitted, turn: int | None, part: int | None = None, at: str = "") -> _Emitted:
        """`node` (a dict or list the writer emits, or None: nothing) carries part `part` of turn
        `turn` (part None: the turn as a whole); nothing is recorded for content outside the turns
        (turn None). Mark each node once: the node returned is the one to emit."""
        if turn is None or node is None:
            return node
        code = turn << 32 | (0 if part is None else part + 1)  # see `_unpack`
        if at:
            self._mark_at(node, at, code)
            return node
        key = id(node)
        if key in self._codes:
            node = copy(node)
            key = id(node)
        self._codes[key] = code
        self._keep.append(node)
        return node

    def moved(self, node: Any, holder: dict[str, Any] | list[Any], at: str) -> None:
        """What `node` carried is now `holder`'s `at` (a one-text content list written as its string)."""
        code = self._codes.get(id(node))
        if code is not None:
            self._mark_at(holder, at, code)

    def _mark_at(self, node: Any, at: str, code: int) -> None:
        key = id(node)
        if key in self._at:
            self._more.setdefault(key, []).append((at, code))
        else:
            self._at[key] = at
            self._at_codes[key] = code
            self._keep.append(node)

    def resolve(self, body: dict[str, Any]) -> dict[str, Origin]:
        """The pointer of every marked node in `body`, in document order."""
        out: dict[str, Origin] = {}
        if self._keep:
            self._visit(body, "", 0, out, [])
        return out

    def carried(self, body: dict[str, Any]) -> set[Origin]:
        """The (turn, part) of every part a node marked and still in `body` carries: what
        `resolve(body)` names, the turns as a whole left out, found without making a pointer (the
        blank guard asks only this of a convert). The nodes of the levels `resolve` looks at are
        gathered a level at a time by `gc.get_referents` (what each dict and list holds, listed in
        C: a Python loop over the body cost as much as writing it), and met with the marks."""
        present: set[int] = set()
        level: list[Any] = [body]
        for depth in range(self.DEPTH + 1):
            present.update(map(id, level))
            if depth < self.DEPTH:
                level = gc.get_referents(*level)
        codes = [self._codes[key] for key in self._codes.keys() & present]
        for key in self._at.keys() & present:
            codes.append(self._at_codes[key])
            codes += [code for _, code in self._more.get(key, ())]
        return {(code >> 32, (code & _PART) - 1) for code in codes if code & _PART}  # (`_unpack`)

    def later(self, body: dict[str, Any]) -> Mapping[str, Origin]:
        """`resolve(body)`, done the first time it is read: a convert never reads it."""
        return _Resolved(self, body) if self._keep else {}

    def _visit(self, node: Any, pointer: str, depth: int, out: dict[str, Any], seen: list[int]) -> None:
        """Record the marks on `node` and below it (their turns also in `seen`). Only containers
        are visited, and on the last level a pointer is made only for a marked node: this walks
        every message of the body."""
        codes, at = self._codes, self._at
        if id(node) in codes or id(node) in at:
            self._record(node, pointer, out, seen)
        items = depth == 1 and type(node) is list  # a top-level list: messages, contents, input
        leaves = depth + 2 == self.DEPTH
        for key, child in node.items() if type(node) is dict else enumerate(node):
            kind = type(child)
            if kind is not dict and kind is not list:
                continue
            if leaves:  # `child` is the last level visited: its children are only looked up
                here = None
                if id(child) in codes or id(child) in at:
                    here = f"{pointer}/{_token(key)}"
                    self._record(child, here, out, seen)
                for k, leaf in child.items() if kind is dict else enumerate(child):
                    if id(leaf) in codes or id(leaf) in at:
                        here = here or f"{pointer}/{_token(key)}"
                        self._record(leaf, f"{here}/{_token(k)}", out, seen)
                continue
            here = f"{pointer}/{_token(key)}"
            if items and id(child) not in codes:
                start = len(seen)
                out[here] = None  # the item's own origin, when its marks name one turn: first
                self._visit(child, here, 2, out, seen)
                turn = _only(seen, start)
                if turn is not None:
                    out[here] = (turn, None)
                else:
                    del out[here]
            else:
                self._visit(child, here, depth + 1, out, seen)

    def _record(self, node: Any, pointer: str, out: dict[str, Any], seen: list[int]) -> None:
        key = id(node)
        code = self._codes.get(key)
        if code is not None:
            out[pointer] = origin = _unpack(code)
            seen.append(origin[0])
        at = self._at.get(key)
        if at is not None:
            out[pointer + at] = origin = _unpack(self._at_codes[key])
            seen.append(origin[0])
            for suffix, code in self._more.get(key, ()):
                out[pointer + suffix] = origin = _unpack(code)
                seen.append(origin[0])


#: The bits of a packed origin that hold its part + 1 (see `_unpack`).
_PART = 0xFFFFFFFF


def _unpack(code: int) -> Origin:
    """The origin `mark` packed into one int: the turn above bit 32, the part + 1 below (0: None)."""
    part = code & _PART
    return code >> 32, part - 1 if part else None


def _only(turns: list[int], start: int) -> int | None:
    """The one turn `turns[start:]` names, if they name exactly one (no slice: no allocation)."""
    if start >= len(turns):
        return None
    first = turns[start]
    for k in range(start + 1, len(turns)):
        if turns[k] != first:
            return None
    return first


def _token(key: str | int) -> str | int:
    """A key or index as a JSON-pointer token (escaped only when it has to be)."""
    return key if isinstance(key, int) or ("~" not in key and "/" not in key) else escape_pointer(key)


class Unrecorded:
    """`Origins` for a write whose origins may never be asked for (`convert.export` for a caller that
    does not say it will read them: a library's conversion): nothing is recorded as the writer emits,
    and when the origins are read after all, `again` writes the conversation again, recording
    them, and gives their mapping. A writer writes the same body from the same conversation, so
    the pointers found in the second body are those of the first. (Recording cost a writer a
    tenth of its time.)"""

    __slots__ = ("_again", "_written")

    def __init__(self, again: Callable[[], Mapping[str, Origin]]) -> None:
        self._again = again
        self._written: Mapping[str, Origin] | None = None

    def mark(self, node: _Emitted, turn: int | None, part: int | None = None, at: str = "") -> _Emitted:
        """`node` itself: nothing is recorded (see `Origins.mark`)."""
        return node

    def moved(self, node: Any, holder: dict[str, Any] | list[Any], at: str) -> None:
        """Nothing to move (see `Origins.moved`)."""

    def later(self, body: dict[str, Any]) -> Mapping[str, Origin]:
        """The origins of `body`, found by writing it again when first read."""
        return _Resolved(self, body)

    def _origins(self) -> Mapping[str, Origin]:
        written = self._written
        if written is None:
            written = self._written = self._again()
        return written

    def resolve(self, body: dict[str, Any]) -> dict[str, Origin]:
        """The pointer of every node of `body` (as `Origins.resolve`), from the body written again."""
        return dict(self._origins().items())

    def carried(self, body: dict[str, Any]) -> set[Origin]:
        """What the parts of `body` carry (as `Origins.carried`), from the body written again."""
        return carried(self._origins())


class _Resolved(Mapping[str, Origin]):
    """`Origins.resolve(body)`, computed when first read (by one thread or several, alike)."""

    __slots__ = ("_body", "_marks", "_resolved")

    def __init__(self, marks: Origins | Unrecorded, body: dict[str, Any]) -> None:
        self._marks, self._body = marks, body
        self._resolved: dict[str, Origin] | None = None

    def carried(self) -> set[Origin]:
        """`Origins.carried` of the body (from the pointers, when they were made already)."""
        if self._resolved is not None:
            return {o for o in self._resolved.values() if o is not None and o[1] is not None}
        return self._marks.carried(self._body)

    def _origins(self) -> dict[str, Origin]:
        resolved = self._resolved
        if resolved is None:
            resolved = self._resolved = self._marks.resolve(self._body)
        return resolved

    def __getitem__(self, pointer: str) -> Origin:
        return self._origins()[pointer]

    def __iter__(self) -> Iterator[str]:
        return iter(self._origins())

    def __len__(self) -> int:
        return len(self._origins())

    # The dict's own views: iterating them runs in C, not through `__getitem__` per key.
    def keys(self) -> KeysView[str]:
        return self._origins().keys()

    def items(self) -> ItemsView[str, Origin]:
        return self._origins().items()

    def values(self) -> ValuesView[Origin]:
        return self._origins().values()

    def __repr__(self) -> str:
        return repr(self._origins())



def carried(origins: Mapping[str, Origin | None]) -> set[Origin]:
    """The (turn, part) of every part the nodes of a written body carry (`Written.origins`: a
    writer's are found without making their pointers)."""
    if isinstance(origins, _Resolved):
        return origins.carried()
    return {o for o in origins.values() if o is not None and o[1] is not None}
