"""The logs people already have — agent sessions, traces, capture tools' files — detected by their
content and read into canonical conversations. One module per log format (the names each defines:
`logs.base`); registered here once, in the order detection tries them."""

from __future__ import annotations

from typing import Any

from ..errors import FormatError
from ..jsonio import loads
from ..records.lines import BLANK
from . import claude_code, claude_tap, claude_trace, codex, inspect_ai, litellm, otlp
from .base import LogFormat, Peek

#: Detection order: the more specific shapes first.
LOGS: dict[str, LogFormat] = {m.NAME: m for m in (claude_code, codex, inspect_ai, claude_trace, claude_tap,
                                                   litellm, otlp)}


def get(name: str) -> LogFormat | None:
    """The log format named `name` (`--input-format`), None for any other name."""
    return LOGS.get(name)


def detect(peek: Peek) -> LogFormat | None:
    """The log format whose shape the file has, if any."""
    return next((m for m in LOGS.values() if m.sniff(peek)), None)


def detect_document(document: Any, head: bytes) -> LogFormat | None:
    """The log format of a file that is one JSON document, told from the document parsed."""
    return detect(Peek(head, (document,), document=True, data=head))


#: How many first lines of JSON Lines detection looks at.
PEEKED = 8


def peek(data: bytes, parsed: dict[tuple[int, int], Any] | None = None) -> Peek:
    """The file's first bytes, and its first lines parsed while each is a JSON value of its own (JSON
    Lines); a one-line or pretty-printed document is looked at once parsed (`detect_document`).
    Each line parsed is put in `parsed` too, by its span (`records.lines.lines`) when it is all the
    line holds but its ending: the container reading the file takes it there, not parsing it again."""
    head = data[:4096]
    at = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    records: list[Any] = []
    view = memoryview(data)
    while len(records) < PEEKED:
        end = data.find(b"\n", at)
        if end < 0 or (not records and BLANK.fullmatch(data, end)):  # (not a copy of the file)
            break  # the last line (or the only one: a document, parsed once, by the container)
        start, line_end = at, end - 1 if end > at and data[end - 1] == 13 else end
        # (a line that neither begins nor ends with blank space is parsed in place, not copied)
        bare = start < line_end and data[start] not in _BLANKS and data[line_end - 1] not in _BLANKS
        line = view[start:line_end] if bare else data[at:end].strip()
        at = end + 1
        if not line:
            continue
        try:
            records.append(loads(line, check_depth=False))
        except FormatError:
            break
        if parsed is not None and bare:
            parsed[start, line_end] = records[-1]
    return Peek(head, tuple(records), data=data)


#: What `bytes.strip` strips.
_BLANKS = b" \t\n\r\x0b\x0c"
