"""A container's records found in its bytes, so that each is parsed on its own, when it is read.

Parsing a HAR as one document holds every body text it carries at once (and the parser's own copy
of the file while it runs: three times the file at the peak). But a JSON string holds no raw line
break (RFC 8259 §7, https://www.rfc-editor.org/rfc/rfc8259#section-7: control characters in a
string are escaped), so a line break in a HAR is layout, and exporters start each of `log.entries`
on a new line at one indentation (mitmproxy, Chrome DevTools and Firefox pretty-print it; others
write an entry a line): an entry begins where a line holds that indentation and `{` (HAR 1.2,
http://www.softwareishard.com/blog/har-12-spec/: the document is `{"log": {…, "entries": […]}}`).

The split is checked, so what it gives is exactly what the whole document would: the document with
the entries array replaced by a marker string must parse, and be a HAR whose `log.entries` is the
marker; each piece, a JSON value and a comma (the last without), must parse alone. The first check
is made here; when a piece does not parse (an indentation the guess did not foresee, or a file that
is not JSON at all), `Reread` is raised while the entries are read, and the file is read again as
one document — which reports a broken file as it always did.

A document the parser refuses whole because a record is nested past its 1,024 levels is split by
`find_records` instead, whatever its layout: its strings and brackets are walked to find the
records of a HAR's `log.entries`, a recording's `interactions` or a top-level array, so that one
record too deep is that record's error (`jsonio.TooDeep`, at the pointer `ensure_depth` gives) and
the others are read — as they are when the same records sit one a line, or in a JSON Lines file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import FormatError
from ..jsonio import TooDeep, loads, walk

#: How a HAR begins (HAR 1.2: the document is `{"log": {…}}`), before anything is searched for.
_LOG = re.compile(rb'\s*\{\s*"log"\s*:\s*\{')
#: The `entries` key and the bracket that opens its array.
_ENTRIES = re.compile(rb'"entries"\s*:\s*\[')
#: Blank space up to the first entry's line, its indentation, and its brace.
_FIRST = re.compile(rb"\s*\n([ \t]*)\{")
#: What a records array is replaced by to read the rest of the document (a NUL: no log has it).
MARKER = "\x00tooldbg: log.entries"
_MARKER_JSON = b'"\\u0000tooldbg: log.entries"'
_SPACE = b" \t\r\n"
#: Closing brackets tried, from the file's end, as the one that closes the entries (members after
#: the entries, such as a `comment`, may hold brackets of their own).
_TAILS = 4
#: Where a container keeps its records: HAR `log.entries`, recordings' `interactions`, or the
#: document itself (a JSON array of exchanges).
RECORD_ARRAYS = (("log", "entries"), ("interactions",), ())


class Reread(Exception):
    """The entries found in the bytes did not each parse: read the file as one document."""


@dataclass(slots=True)
class Split:
    """A container document without its records (the records array is `MARKER`; None for a
    top-level array), where each record's bytes are, and the path of the records array."""

    document: Any
    data: bytes
    spans: list[tuple[int, int]]
    path: tuple[str, ...] = ("log", "entries")
    #: Found by `find_records`: a piece that does not parse is that record's error, not a reason
    #: to read the file again (read whole, it is too deep to parse).
    walked: bool = False

    def entries(self) -> Iterator[Any]:
        """Each record parsed, in order (depth unchecked: the caller checks each record). A record
        nested past what the parser reads comes as its `TooDeep` error, in its place; so does any
        error of a record of a walked split."""
        view = memoryview(self.data)
        for start, stop in self.spans:
            try:
                yield loads(view[start:stop], check_depth=False)
            except TooDeep as err:
                yield err
            except FormatError as err:
                if not self.walked:
                    raise Reread from None
                yield err


def split_har(data: bytes, skip: int) -> Split | None:
    """The entries of the HAR in `data` (from `skip` on), found in its bytes; None when `data` does
    not look like a HAR laid out an entry a line (then it is parsed as one document)."""
    if _LOG.match(data, skip) is None:
        return None
    at, found = data.find(b'"entries"', skip), None
    while at >= 0 and (found := _ENTRIES.match(data, at)) is None:
        at = data.find(b'"entries"', at + 1)
    if found is None:
        return None
    opened = found.end()
    first = _FIRST.match(data, opened)
    if first is None:
        return None
    end = len(data)
    for _ in range(_TAILS):
        end = data.rfind(b"]", first.end(), end)
        if end < 0:
            return None
        document = _without_records(data[skip:opened - 1], data[end + 1:], ("log", "entries"))
        if document is not None:
            break
    else:
        return None
    line = b"\n" + first.group(1) + b"{"
    starts = [first.end() - 1]
    at = data.find(line, starts[0], end)
    while at >= 0:
        starts.append(at + len(line) - 1)
        at = data.find(line, starts[-1], end)
    spans = []
    for i, start in enumerate(starts):
        last = i + 1 == len(starts)
        stop = _trimmed(data, start, end if last else starts[i + 1] - len(line) + 1)
        if not last:
            if data[stop - 1] != ord(","):
                return None
            stop -= 1
        spans.append((start, stop))
    return Split(document, data, spans)


def _trimmed(data: bytes, start: int, stop: int) -> int:
    while stop > start and data[stop - 1] in _SPACE:
        stop -= 1
    return stop


def find_records(data: bytes, skip: int) -> Split | None:
    """The records of a container document too deep to parse whole, found by walking its strings
    and brackets (`jsonio.walk`): the first array at one of `RECORD_ARRAYS`, each of its items
    between the commas at its level. None when there is no such array, or the document around it
    does not parse."""
    walker = walk(data, skip)
    for char, opening, slots in walker:
        path = tuple(s for s in slots if isinstance(s, str))
        if char != b"[" or len(path) != len(slots) or path not in RECORD_ARRAYS:
            continue
        spans, depth, start = [], len(slots) + 1, opening.end()
        for char, match, slots in walker:
            if len(slots) != depth or char not in b",]":
                continue
            first = start
            while first < match.start() and data[first] in _SPACE:
                first += 1
            stop = _trimmed(data, first, match.start())
            if stop > first or char == b",":
                spans.append((first, stop))
            start = match.end()
            if char == b"]":
                if not path:
                    return Split(None, data, spans, path, walked=True)
                document = _without_records(data[skip:opening.start()], data[match.end():], path)
                return None if document is None else Split(document, data, spans, path, walked=True)
        return None
    return None


def _without_records(head: bytes, tail: bytes, path: tuple[str, ...]) -> Any:
    """The container document with the marker for its records array, or None when the bytes around a
    guessed array do not make one (the marker is not at `path`)."""
    try:
        document = loads(head + _MARKER_JSON + tail, check_depth=False)
    except FormatError:
        return None
    node = document
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return document if node == MARKER else None
