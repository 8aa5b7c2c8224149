"""A container's records found in its bytes, so that each is parsed on its own, when it is read:
a HAR's entries however the file is laid out (one line, indented with spaces or tabs, CRLF, `entries`
before or after the other members of `log`), and the records of any container too deep to parse whole.

Parsing a HAR as one document holds every body text it carries at once (and the parser's own copy
of the file while it runs: three times the file at the peak). Entries are found instead:

* HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) makes the document `{"log": {…,
  "entries": […], …}}`; the `entries` array opens after its key.
* Exporters write every entry with the same first member (mitmproxy `startedDateTime`, Chrome
  `_initiator`, …). An object whose first member is that key is found in the bytes by the key with
  its quotes: inside a JSON string a quote is escaped (RFC 8259 §7,
  https://www.rfc-editor.org/rfc/rfc8259#section-7), so `{"startedDateTime":` — a brace, blank
  space, the key in plain quotes, a colon — is never text inside a string, only an object.
* An entry runs from its brace to the next such object preceded by a comma, when the bytes between
  parse as one JSON value: what is cut inside an entry (an object of its own with the same first
  key) does not. The last entry runs to the file's last `]` (the array's, when no member after
  `entries` holds an array), when the bytes between parse as one value. Where that fails, the
  entry's end is found by skipping its strings whole (`_value_end`, a regular expression: slower,
  the same answer). A value is the one that begins at its first byte, so bytes that parse as one
  value from that byte end where it ends.
* After the last entry comes the `]` that closes the array; the document with the array replaced by
  a marker string must then parse, and be a HAR whose `log.entries` is the marker.

So what the split gives is exactly what the whole document would: every entry is a JSON value
parsed from its own bytes, they are separated by commas alone, and what is around them is the HAR.
When a check fails (an entry that is not an object, bytes that are not JSON at all), `Reread` is
raised while the entries are read, and the file is read again as one document — which reports a
broken file as it always did.

A document the parser refuses whole because a record is nested past its 1,024 levels is split by
`find_records` instead, whatever its layout: its strings and brackets are walked to find the
records of a HAR's `log.entries`, a recording's `interactions` or a top-level array, so that one
record too deep is that record's error (`jsonio.TooDeep`, at the pointer `ensure_depth` gives) and
the others are read — as they are when the same records sit one a line, or in a JSON Lines file.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import FormatError
from ..jsonio import STRING, TooDeep, loads, walk
from ..model import is_canonical

#: How a HAR begins (HAR 1.2: the document is `{"log": {…}}`), before anything is searched for.
_LOG = re.compile(rb'\s*\{\s*"log"\s*:\s*\{')
#: The `entries` key and the bracket that opens its array.
_ENTRIES = re.compile(rb'"entries"\s*:\s*\[')
#: The first member of an object: its brace, and its key when that is written without escapes.
_FIRST_KEY = re.compile(rb'\{\s*"([^"\\]*)"\s*:')
#: JSON's blank space (RFC 8259 §2).
_BLANK = re.compile(rb"[ \t\r\n]*")
#: A JSON string (`jsonio.STRING`: skipped whole, one never closed to the end) or a bracket: what
#: `_value_end` counts (and the TUI's preview, `_element_end`).
STRING_OR_BRACKET = re.compile(STRING + rb"|[\[\]{}]", re.DOTALL)
_COMMA, _CLOSE, _BRACE = ord(","), ord("]"), ord("{")
#: What a records array is replaced by to read the rest of the document (a NUL: no log has it).
MARKER = "\x00tooldbg: log.entries"
_MARKER_JSON = b'"\\u0000tooldbg: log.entries"'
#: Where a container keeps its records: HAR `log.entries`, recordings' `interactions`, or the
#: document itself (a JSON array of exchanges).
RECORD_ARRAYS = (("log", "entries"), ("interactions",), ())
_DEEPEST_RECORDS = max(map(len, RECORD_ARRAYS))


class Reread(Exception):
    """The entries found in the bytes did not each parse: read the file as one document."""


@dataclass(slots=True)
class Split:
    """A HAR whose entries are read from its bytes (see the module docstring): where its entries
    array opens, and where objects with the first entry's first key begin (where entries may)."""

    data: bytes
    #: Where the document starts (after a byte-order mark) and where the entries array's `[` is.
    skip: int
    opened: int
    #: The braces of the objects whose first member has the first entry's key, in file order.
    starts: list[int]

    @property
    def records(self) -> int:
        """The records counted: the objects that may begin an entry."""
        return len(self.starts)

    def entries(self) -> Iterator[Any]:
        """Each entry parsed, in order (depth unchecked: the caller checks each record). Raises
        `Reread` when the bytes do not split (see the module docstring)."""
        data, view = self.data, memoryview(self.data)
        at = blank(data, self.opened + 1)
        if at < len(data) and data[at] != _CLOSE:
            while True:
                if at >= len(data) or data[at] != _BRACE:
                    raise Reread  # not an object: the whole document's reading says so
                entry, end = self._entry(view, at)
                yield entry
                at = blank(data, end)
                if at < len(data) and data[at] == _COMMA:
                    at = blank(data, at + 1)
                    continue
                break
        if at >= len(data) or data[at] != _CLOSE or _rest(data, self.skip, self.opened, at) is None:
            raise Reread

    def _entry(self, view: memoryview, at: int) -> tuple[Any, int]:
        """The entry whose brace is at `at`, parsed, and the offset just after it."""
        data, starts = self.data, self.starts
        for n in range(bisect_right(starts, at), len(starts)):
            end = _blank_before(data, at, starts[n])
            if data[end - 1] != _COMMA:
                continue  # an object in a list or a member: not an entry's start
            end = _blank_before(data, at, end - 1)
            try:
                return loads(view[at:end], check_depth=False), end
            except FormatError:
                break  # cut inside an entry, or past one that began otherwise: find its end
        else:  # no entry begins after it: the last, most often followed by the array's `]` alone
            closing = data.rfind(b"]", at)
            end = _blank_before(data, at, closing) if closing > at else at
            try:
                return loads(view[at:end], check_depth=False), end
            except FormatError:
                pass  # another array after the entries, or not an entry's end: find it
        end = _value_end(data, at)
        try:
            return loads(view[at:end], check_depth=False), end
        except TooDeep as err:  # past the parser's own limit: that entry's error, in its place
            return err, end
        except FormatError:
            raise Reread from None


def begins_as_har(data: bytes, skip: int) -> bool:
    """Whether `data` (from `skip` on) begins as a HAR: `{"log": {`."""
    return _LOG.match(data, skip) is not None


def split_har(data: bytes, skip: int) -> Split | None:
    """The HAR in `data` (from `skip` on), its entries to be found in its bytes; None when `data`
    does not begin as a HAR (then it is parsed as one document)."""
    if not begins_as_har(data, skip):
        return None
    at, found = data.find(b'"entries"', skip), None
    while at >= 0 and (found := _ENTRIES.match(data, at)) is None:
        at = data.find(b'"entries"', at + 1)
    if found is None:
        return None
    opened = found.end() - 1
    first = _FIRST_KEY.match(data, blank(data, found.end()))
    if first is None:  # no entry, or a first key with escapes: each entry's end is found by scanning
        return Split(data, skip, opened, [])
    key = b'"' + first.group(1) + b'"'
    starts = []
    at = data.find(key, found.end())
    while at >= 0:
        brace = _blank_before(data, 0, at) - 1
        if brace >= 0 and data[brace] == _BRACE and data[blank(data, at + len(key))] == ord(":"):
            starts.append(brace)
        at = data.find(key, at + len(key))
    return Split(data, skip, opened, starts)


def blank(data: bytes, at: int, end: int | None = None) -> int:
    """The offset of the first byte at or after `at` (before `end`) that is not blank space."""
    found = _BLANK.match(data, at) if end is None else _BLANK.match(data, at, end)
    return found.end()  # type: ignore[union-attr]  # (matches the empty string)


def _blank_before(data: bytes, low: int, at: int) -> int:
    """The offset just after the last byte before `at` (not before `low`) that is not blank."""
    while at > low and data[at - 1] in b" \t\r\n":
        at -= 1
    return at


def _value_end(data: bytes, at: int) -> int:
    """The offset just after the object or array whose bracket is at `at`, its strings skipped
    whole; the end of `data` when it is not closed (the parse then fails)."""
    depth = 0
    for token in STRING_OR_BRACKET.finditer(data, at):
        kind = data[token.start()]
        if kind == 0x22:  # a string
            continue
        depth += 1 if kind in b"[{" else -1
        if depth == 0:
            return token.end()
    return len(data)


def _rest(data: bytes, skip: int, opened: int, closed: int) -> Any:
    """The HAR document with the marker for its entries (from `opened` to `closed`), or None when
    the bytes around them do not make one."""
    document = _without_records(data[skip:opened], data[closed + 1:], ("log", "entries"))
    return None if document is None or is_canonical(document) else document


#: Where a HAR entry holds its bodies' texts: the side, and its payload (`containers._har_side`).
PAYLOADS = (("request", "postData"), ("response", "content"))


def without_texts(entry: Any) -> Any:
    """A HAR entry as deep as `entry`, and the same containers in the same order, but its bodies'
    texts emptied (copies of the objects that hold them): the entry's depth is told by printing it
    (`ensure_depth`), and its texts hold most of its bytes (a walk of the entry instead cost 57 k
    instructions an entry, 1.1 M of 64 M checking a 1 MB HAR; the copies and the print, ~10 k)."""
    if not isinstance(entry, dict):
        return entry
    light = None
    for side_key, payload_key in PAYLOADS:
        side = entry.get(side_key)
        payload = side.get(payload_key) if isinstance(side, dict) else None
        if isinstance(side, dict) and isinstance(payload, dict) and isinstance(payload.get("text"), str):
            light = light or dict(entry)
            light[side_key] = {**side, payload_key: {**payload, "text": ""}}
    return entry if light is None else light


#: How exporters say they cut or left out a body (`content.comment`, HAR 1.2): HTTP Toolkit's "Body
#: discarded during HAR generation: longer than limit of 500000 bytes" (httptoolkit/httptoolkit#477).
_CUT = r"(?i)truncat|discard|omit|too (large|long)|longer than|exceed"  # compiled where used


def truncation(comment: Any) -> str | None:
    """The exporter's comment when it says the body was cut, else None."""
    return comment if isinstance(comment, str) and re.compile(_CUT).search(comment) else None


@dataclass(slots=True)
class Walked:
    """A container document too deep to parse whole, without its records (the records array is
    `MARKER`; None for a top-level array), where each record's bytes are, and the path of the
    records array (`find_records`)."""

    document: Any
    data: bytes
    spans: list[tuple[int, int]]
    path: tuple[str, ...]

    @property
    def records(self) -> int:
        """How many records the container holds."""
        return len(self.spans)

    def entries(self) -> Iterator[Any]:
        """Each record parsed, in order (depth unchecked: the caller checks each record); a record
        that does not parse (too deep, or not JSON) comes as its error, in its place."""
        view = memoryview(self.data)
        for start, stop in self.spans:
            try:
                yield loads(view[start:stop], check_depth=False)
            except FormatError as err:
                yield err


def find_records(data: bytes, skip: int) -> Walked | None:
    """The records of a container document too deep to parse whole, found by walking its strings
    and brackets (`jsonio.walk`): the first array at one of `RECORD_ARRAYS`, each of its items
    between the commas at its level. None when there is no such array, or the document around it
    does not parse."""
    walker = walk(data, skip)
    for char, opening, slots in walker:
        # (an array deeper than any records array is none: its path is not built — a document
        # nested thousands of levels made a path of thousands of slots at every bracket)
        if char != b"[" or len(slots) > _DEEPEST_RECORDS:
            continue
        path = tuple(s for s in slots if isinstance(s, str))
        if len(path) != len(slots) or path not in RECORD_ARRAYS:
            continue
        spans, depth, start = [], len(slots) + 1, opening.end()
        for char, match, slots in walker:
            if len(slots) != depth or char not in b",]":
                continue
            first = blank(data, start)
            stop = _blank_before(data, first, match.start())
            if stop > first or char == b",":
                spans.append((first, stop))
            start = match.end()
            if char == b"]":
                if not path:
                    return Walked(None, data, spans, path)
                document = _without_records(data[skip:opening.start()], data[match.end():], path)
                return None if document is None else Walked(document, data, spans, path)
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
