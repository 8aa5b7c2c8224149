"""JSON Lines read in place: the lines of a file's bytes found as offsets (no copy of the file), and
each parsed where it is. The exchange container (`containers`) and the agents' own logs
(`tooldbg.logs`) read their lines so."""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ..errors import FormatError, InputError
from ..jsonio import MAX_DEPTH, Printed, TooDeep, checked_lists, ensure_depth, inside, loads
from .entries import blank
from .extending import common_prefix

#: The UTF-8 byte-order mark some writers put first.
BOM = b"\xef\xbb\xbf"
#: A run of blank space (a blank line, or a file of nothing else).
BLANK = re.compile(rb"\s*")


def lines(data: bytes, start: int = 0) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of every line of `data` from `start` on that is not blank, split
    as `bytes.splitlines` splits (CRLF, CR, LF): offsets, so no copy of the file is made."""
    end, number = len(data), 0
    while start < end:
        stop = data.find(b"\n", start)
        stop = end if stop < 0 else stop
        line_end = stop - 1 if stop > start and data[stop - 1] == 13 else stop
        if data.find(b"\r", start, line_end) < 0:
            number += 1
            if not BLANK.fullmatch(data, start, line_end):
                yield number, start, line_end
        else:  # lone carriage returns end lines too (rare: split this one line)
            at = start
            for piece in data[start:line_end].split(b"\r"):
                number += 1
                if piece.strip():
                    yield number, at, at + len(piece)
                at += len(piece) + 1
        start = stop + 1


def line_table(data: bytes, start: int = 0) -> array[int]:
    """`lines(data, start)` found at once, as a flat table of (line number, start, end): for a reader
    that counts a file's lines before it reads them, rather than finding them twice (that second
    pass over the file was 0.2 M instructions of checking a 1 MB JSON Lines capture). 24 bytes a
    line, not a tuple of three numbers (a hundred)."""
    return array("q", chain.from_iterable(lines(data, start)))


def table_lines(table: array[int]) -> Iterator[tuple[int, int, int]]:
    """The (line number, start, end) of each line of a `line_table`."""
    found = iter(table)
    return zip(found, found, found, strict=True)


def parses(view: memoryview) -> bool:
    """Is this one JSON value (nested too deep to read counts: it is a record, reported as such)?"""
    try:
        loads(view, check_depth=False)
    except TooDeep:
        return True
    except FormatError:
        return False
    return True


def record_shaped(data: bytes, skip: int) -> bool:
    """Does a line after the first have a JSON Lines record's shape — an object or an array on its
    own, from the start of the line to its end (whether or not it parses: a record may be broken)?
    A document pretty-printed over many lines has none (what it nests is indented, and its own
    brackets stand alone on their lines), so its syntax error is reported where it is, not as each
    of its lines' errors."""
    found = lines(data, skip)
    next(found, None)
    return any(data[start] in b"{[" and data[end - 1 - _trailing(data, start, end)] in b"}]"
               for _, start, end in found)


def _trailing(data: bytes, start: int, end: int) -> int:
    """How many blank characters end the line `data[start:end]`."""
    count = 0
    while end - count > start + 1 and data[end - 1 - count] in b" \t":
        count += 1
    return count


def json_lines(path: str, data: bytes, errors: list[InputError]) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of JSON Lines (`json_records`)."""
    for number, _, _, value in json_records(path, data, errors):
        yield number, value


def json_records(path: str, data: bytes, errors: list[InputError]) -> Iterator[tuple[int, int, int, Any]]:
    """(line number, start, end, value) of each non-blank line of JSON Lines, parsed from a view into
    the bytes (a byte-order mark skipped), `data[start:end]` its text; a line that does not parse, or
    nests too deep, is an error in `errors` and the next line is read. The agents' own logs
    (`tooldbg.logs`) are read so."""
    view = memoryview(data)
    for number, start, end in lines(data, len(BOM) if data.startswith(BOM) else 0):
        try:
            value = loads(view[start:end], check_depth=False)
            # (a line with fewer brackets than the limit cannot nest past it: counted at the speed
            # of memory, where the walk costs a Python loop a level)
            if data.count(b"{", start, end) + data.count(b"[", start, end) > MAX_DEPTH:
                ensure_depth(value)
        except FormatError as err:
            errors.append(InputError(path, f"line {number}{err.pointer}", err.message))
            continue
        yield number, start, end, value


#: What opens a member's container after its key (a quote after no backslash begins a key: inside a
#: string a quote is escaped), for the key and the bracket (`ExtendingLines`).
_OPENER = rb'(?<!\\)"%s"[ \t\r\n]*:[ \t\r\n]*\%s'
#: Three objects and an array opened, each under the key "\u0000": the text after a line's cut,
#: parsed at the levels it is at in the line.
_INSIDE = b'{"\\u0000":{"\\u0000":{"\\u0000":['
_Z = "\x00"


@dataclass(slots=True)
class _Run:
    """Lines extending each other: the members each open object has before the open one (`heads`,
    as the line's text gives them) and the open ones' keys; the open array's elements and their
    JSON bytes; where the last line's new elements begin (None: a run begun at the cut)."""

    heads: tuple[dict[str, Any], ...]
    keys: tuple[str, ...]
    array: list[Any]
    printed: Printed
    added: int | None = None


class ExtendingLines:
    """The JSON Lines records of an agent's exchanges where a line is often the line before it
    with messages added at the end of `request.body`'s message list: of such a line only the new
    messages and what comes after the list (the rest of the body, the response) are parsed and
    printed; the value holds the line before's messages (the same objects) and the objects
    before the list (checking a 1 MB JSON Lines capture of a 21-request session, 54.8 → 49.0 M,
    one with SSE responses 65.8 → 60.1 M: each line was parsed and printed whole, history and
    all). The first lines, parsed already to detect the file's format (`logs.peek`), are taken
    as they are: extending them too cost 1.2 M more than printing them.

    A line extends the last one from where the two part (`cut`) when the last one is proven to be
    inside the message list there, after an element, and the line goes on with a comma: the
    first time by parsing what opens each level up to the cut (`_proven`), later by parsing the
    last line's new elements up to the cut as an array of as many elements. Its text after the
    comma is then parsed under `_INSIDE`: the same levels, so the same value, nesting and errors.
    Any other line is read whole (`extended` gives None), and so is one whose new part does not
    parse, is too deep, or names the `"\\u0000"` key those levels are parsed under."""

    def __init__(self, data: bytes) -> None:
        self._data, self._view = data, memoryview(data)
        self._last: tuple[int, int] | None = None
        self._value: Any = None  # (the last line's)
        self._run: _Run | None = None

    def read(self, start: int, end: int, value: Any) -> None:
        """The line `data[start:end]` was read whole, without error (its `value`): the next may
        extend it."""
        self._last, self._run, self._value = (start, end), None, value

    def extended(self, start: int, end: int) -> tuple[dict[str, Any], dict[int, Printed]] | None:
        """The value of the line `data[start:end]` and its message list's JSON bytes (by `id`), when
        it extends the last line; None when it is to be read whole."""
        last, run, self._run = self._last, self._run, None
        if last is None:
            return None
        data, view = self._data, self._view
        shared = common_prefix(data, data, last[0], last[1], start, end)
        comma = blank(data, start + shared, end)
        if data[comma:comma + 1] != b"," or data.find(b"\\u0000", comma, end) >= 0:
            return None
        cut = last[0] + shared  # (where the last line is inside its message list, after an element)
        run = self._proven(last[0], cut, last[1]) if run is None else self._continued(run, cut, last[1])
        if run is None:
            return None
        try:
            parsed = loads(_INSIDE + view[comma + 1:end], check_depth=False)
            printed = checked_lists(parsed)  # (the levels of the line: its depth test)
        except FormatError:
            return None
        request = parsed[_Z]
        body = request[_Z]
        new = body[_Z]
        written = printed.pop(id(new), None)
        if not new or written is None:  # (`[` and `,`: not an element after the comma)
            return None
        array = run.array + new
        value = _merged(run.heads[0], run.keys[0], _merged(run.heads[1], run.keys[1], _merged(
            run.heads[2], run.keys[2], array, body), request), parsed)
        joined = b"".join((inside(run.printed)[:-1], b",", inside(written)[1:]))
        printed[id(array)] = (joined, 0)
        self._last, self._run = (start, end), _Run(run.heads, run.keys, array, (joined, 0), comma + 1)
        return value, printed

    def _proven(self, start: int, cut: int, end: int) -> _Run | None:
        """The run the line at `start` begins when it is inside its record's `request.body` and
        an array member of that, after an element, at `cut` (proven by parsing: the text from
        each container's opening bracket to the next one's, closed, is one value; the array's up
        to `cut`, closed, too); None when it is not."""
        data, view = self._data, self._view
        at = blank(data, start, cut)
        if data[at:at + 1] != b"{":
            return None
        heads: list[dict[str, Any]] = []
        keys: list[str] = []
        array: Any = None  # (the elements of the body's array up to `cut`, once found)
        for level, key in enumerate(("request", "body", self._array_key(cut, end))):
            if key is None:
                return None
            empty = b"[]}" if level == 2 else b"{}}"
            pattern = re.compile(_OPENER % (re.escape(key.encode()), empty[:1]))
            head = None
            for tries, match in enumerate(pattern.finditer(data, at + 1, cut)):
                opener = match.end() - 1
                head = _parsed(view[at:opener], empty)
                if head is not None and level == 2:
                    array = _parsed(view[opener:cut], b"]")
                if head is not None and (level < 2 or array) or tries == _TRIES:
                    break
            if head is None or level == 2 and not array or _Z in head:
                return None
            heads.append(head)
            keys.append(key)
            at = opener
        # The levels again, their depth tested (a line's text may hold what its value does not
        # keep: a member of the same name after it takes its place), the array's bytes printed.
        levels: Any = array
        for head, key in zip(reversed(heads), reversed(keys), strict=True):
            levels = {**head, key: levels}
        try:
            printed = checked_lists(levels).get(id(array))
        except FormatError:
            return None
        return _Run(tuple(heads), tuple(keys), array, printed) if printed is not None else None

    def _array_key(self, cut: int, end: int) -> str | None:
        """The member of the last line's `request.body` that would be open at `cut`: the one before
        the members its text has after `cut` (where `_proven` looks for it first)."""
        request = self._value.get("request") if type(self._value) is dict else None
        body = request.get("body") if type(request) is dict else None
        tail = _parsed(self._view[cut:end], b"", _INSIDE) if type(body) is dict else None
        request = tail.get(_Z) if type(tail) is dict else None
        after = request.get(_Z) if type(request) is dict else None
        if type(after) is not dict or type(body) is not dict:
            return None
        keys, later = list(body), [k for k in after if k != _Z]
        at = len(keys) - len(later) - 1
        return keys[at] if at >= 0 and keys[at + 1:] == later else None

    def _continued(self, run: _Run, cut: int, end: int) -> _Run | None:
        """`run` when the last line's new elements (it ends at `end`) all end at `cut`: the text
        from the first one to `cut` is an array of elements, and the line closes its list there
        (not a number cut short: `3` of `35`)."""
        data = self._data
        if run.added is None or data[(at := blank(data, cut, end)):at + 1] != b"]":
            return None
        return run if _parsed(self._view[run.added:cut], b"]", b"[") else None  # (`[]`: none)


#: How many places a container's key is tried at before a run is not begun (each try parses up to it).
_TRIES = 4


def _parsed(text: memoryview, end: bytes, begin: bytes = b"") -> Any:
    """`begin`, `text` and `end` parsed as one value; None when they do not parse."""
    try:
        return loads(b"".join((begin, text, end)), check_depth=False)
    except FormatError:
        return None


def _merged(head: dict[str, Any], key: str, value: Any, after: dict[str, Any]) -> dict[str, Any]:
    """An object of the members `head`, then `key`, then those of `after` (but its `_Z`), as a
    parse of them in that order makes it: a later member of a name takes the earlier's place."""
    merged = dict(head)
    merged[key] = value
    merged.update(after)
    del merged[_Z]
    return merged
