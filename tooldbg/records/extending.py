"""A run of JSON texts each often the one before it and more — an agent's requests, each the
conversation so far and its new messages — parsed by what is new in each (`Extending`), and the
longest common start of two texts (`common_prefix`, also `lines.ExtendingLines`'s)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..errors import FormatError
from ..jsonio import Printed, checked_lists, inside, loads, loads_listed, may_nest

#: How a text is parsed, with the lists its depth test printed (`loads_listed`, `Extending`).
Parse = Callable[[str], tuple[Any, dict[int, Printed]]]


def printed_members(value: dict[str, Any], lists: dict[int, Printed]) -> dict[str, Printed]:
    """The JSON bytes of `value`'s list members among `lists` (printed lists by their `id`, as
    `loads_listed` gives them), by member name."""
    return {name: text for name, member in value.items() if (text := lists.get(id(member))) is not None}


class Extending:
    """`loads_listed` for a run of texts where a text is often the one before it with elements added
    at the end of an array member of its top-level object: an agent's requests, each the conversation
    so far and its new messages. Of such a text only the new elements are parsed and printed: its
    value is the last one's with that array extended (the other members the last one's objects), its
    lists the last one's bytes, the array's with the new elements' (checking a 1 MB HAR of a
    20-request session, 63.8 → 54.6 M: each request was parsed and printed whole).

    A text extends the last one when it is the last one's `head` (up to where the array's last
    element ends), a comma and elements, then the last one's `tail` (the array's `]`, the members
    after it, the object's `}`). That the cut is there is checked when a run begins (`_array_key`),
    and holds for the texts that extend it: they share the head and the tail. Any other text is
    parsed whole (`loads_listed`), and so is one whose new elements do not parse or are too deep,
    to fail as it does."""

    def __init__(self) -> None:
        self._text = ""
        #: The last value's members (a copy of the object: the reader may change its members) and
        #: the bytes printed of its lists, by name.
        self._members: dict[str, Any] = {}
        self._printed: dict[str, Printed] = {}
        #: The array member texts extend, and where it ends in the last text, once checked.
        self._key: str | None = None
        self._cut = 0

    def loads_listed(self, text: str) -> tuple[Any, dict[int, Printed]]:
        found = self._extended(text) if self._printed and may_nest(text) else None
        if found is None:
            self._key = None
            found = loads_listed(text)
        value, lists = found
        self._text = text
        self._members = dict(value) if type(value) is dict else {}
        self._printed = printed_members(value, lists) if type(value) is dict else {}
        return found

    def _extended(self, text: str) -> tuple[dict[str, Any], dict[int, Printed]] | None:
        """`text`'s value and printed lists when it extends the last text, else None."""
        last, key = self._text, self._key
        if len(text) <= len(last) or key is not None and not text.startswith(last[:self._cut]):
            return None  # (a run's texts share the head: one comparison, not a search)
        cut = self._cut if key is not None else common_prefix(last, text)
        tail = last[cut:]
        added = text[cut:len(text) - len(tail)]
        if not text.endswith(tail) or not tail.lstrip().startswith("]") or not added.lstrip().startswith(","):
            return None
        key = key if key is not None else _array_key(last, cut, self._members)
        before = self._printed.get(key) if key is not None else None
        if key is None or before is None:
            return None
        try:
            new = loads("[" + added[added.index(",") + 1:] + "]", check_depth=False)
            printed = checked_lists({key: new}).get(id(new))  # (at the array's level: its limit)
        except FormatError:
            return None
        if not new or printed is None:
            return None
        members = dict(self._members)
        members[key] = extended = self._members[key] + new
        lists = {id(members[name]): written for name, written in self._printed.items() if name != key}
        lists[id(extended)] = (b"".join((inside(before)[:-1], b",", inside(printed)[1:])), 0)  # (one copy)
        self._key, self._cut = key, len(text) - len(tail)
        return members, lists


def _array_key(text: str, cut: int, members: dict[str, Any]) -> str | None:
    """The member of `text`'s top-level object (parsed: `members`) whose array holds `cut`, right
    after its last element, or None when `cut` is not there. The tail closes one array and then the
    object when `{"\\u0000":[` and it parse as one object; the array is the member's when the text
    from the bracket after its key (its name in plain quotes, not after a backslash: a key, not a
    string's text) up to `cut`, and `]`, parse as one array (a bracket nested in another member,
    or in an element, closes more than it opens before `cut`). A member of the same name in the
    tail would be the one the value keeps: not extended."""
    try:
        after = loads('{"\\u0000":[' + text[cut:], check_depth=False)
    except FormatError:
        return None
    head = text[:cut]
    for key, member in reversed(members.items()):
        if type(member) is not list or not member or key in after:
            continue
        for found in re.finditer(r'(?<!\\)"' + re.escape(key) + r'"[ \t\r\n]*:[ \t\r\n]*\[', head):
            try:
                loads(head[found.end() - 1:] + "]", check_depth=False)
            except FormatError:
                continue
            return key
    return None


def common_prefix(a: str | bytes, b: str | bytes, a_at: int = 0, a_end: int | None = None,
                  b_at: int = 0, b_end: int | None = None) -> int:
    """How many characters (or bytes) `a[a_at:a_end]` and `b[b_at:b_end]` begin with alike: a
    binary search, each step comparing in place (`startswith` at an offset) a window half the last
    (`Extending`, `records.lines.ExtendingLines`: two requests of a conversation share its start)."""
    window: Any = memoryview(a) if isinstance(a, bytes) else a  # (a bytes window without a copy)
    a_end = len(a) if a_end is None else a_end
    b_end = len(b) if b_end is None else b_end
    low, high = 0, min(a_end - a_at, b_end - b_at)
    while low < high:
        middle = (low + high + 1) // 2
        if b.startswith(window[a_at + low:a_at + middle], b_at + low):
            low = middle
        else:
            high = middle - 1
    return low
