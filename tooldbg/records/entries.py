"""A HAR's entries found in its bytes, so that each is parsed on its own, when it is read.

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
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import FormatError
from ..jsonio import loads

#: How a HAR begins (HAR 1.2: the document is `{"log": {…}}`), before anything is searched for.
_LOG = re.compile(rb'\s*\{\s*"log"\s*:\s*\{')
#: The `entries` key and the bracket that opens its array.
_ENTRIES = re.compile(rb'"entries"\s*:\s*\[')
#: Blank space up to the first entry's line, its indentation, and its brace.
_FIRST = re.compile(rb"\s*\n([ \t]*)\{")
#: What the entries array is replaced by to read the rest of the document (a NUL: no HAR has it).
MARKER = "\x00tooldbg: log.entries"
_SPACE = b" \t\r\n"
#: Closing brackets tried, from the file's end, as the one that closes the entries (members after
#: the entries, such as a `comment`, may hold brackets of their own).
_TAILS = 4


class Reread(Exception):
    """The entries found in the bytes did not each parse: read the file as one document."""


@dataclass(slots=True)
class Split:
    """A HAR's document without its entries (`log.entries` is `MARKER`) and where each entry is."""

    document: Any
    data: bytes
    starts: list[int]
    #: The offset of the bracket that closes the entries array.
    end: int
    #: The length of the line break and indentation before each entry's brace.
    lead: int

    def entries(self) -> Iterator[Any]:
        """Each entry parsed, in order (depth unchecked: the caller checks each record)."""
        view, starts, data = memoryview(self.data), self.starts, self.data
        for i, start in enumerate(starts):
            last = i + 1 == len(starts)
            stop = self.end if last else starts[i + 1] - self.lead
            while stop > start and data[stop - 1] in _SPACE:
                stop -= 1
            if not last:
                if data[stop - 1] != ord(","):
                    raise Reread
                stop -= 1
            try:
                yield loads(view[start:stop], check_depth=False)
            except FormatError:
                raise Reread from None


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
        document = _without_entries(data[skip:opened - 1], data[end + 1:])
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
    return Split(document, data, starts, end, len(line) - 1)


def _without_entries(head: bytes, tail: bytes) -> Any:
    """The HAR document with the marker for its entries, or None when the bytes around a guessed
    entries array do not make one."""
    try:
        document = loads(head + b'"\\u0000tooldbg: log.entries"' + tail, check_depth=False)
    except FormatError:
        return None
    log = document.get("log") if isinstance(document, dict) else None
    return document if isinstance(log, dict) and log.get("entries") == MARKER else None
