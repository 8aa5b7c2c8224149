"""Server-sent events → `StreamEvent`s, following the WHATWG parsing rules.

Lines end in CRLF, LF or CR (Gemini uses `\r\n\r\n`); a line starting with `:` is a comment
(`: OPENROUTER PROCESSING`); `data:` lines of one event are joined with newlines; a blank line ends
the event. Payloads are parsed as JSON where they are JSON (Anthropic pads them with spaces, which
JSON allows); `[DONE]` and other text stay strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import repeat

from ..errors import FormatError
from ..formats.base import StreamEvent
from ..jsonio import loads

_LINE = re.compile(r"\r\n|\r|\n")


def looks_like_sse(text: str) -> bool:
    """True when the text starts (after comments and blank lines) with an SSE field. Asked of every
    body a capture holds as text, most of them JSON: those are told by their first character, and
    the others read a line at a time up to the first that is not blank or a comment."""
    if text[:64].lstrip()[:1] in ("{", "["):  # (not "": a text of blanks is read below)
        return False
    head, start = text[:4096], 0
    for end in _LINE.finditer(head):
        found = _first_field(head[start:end.start()])
        if found is not None:
            return found
        start = end.end()
    return _first_field(head[start:]) is True


def _first_field(line: str) -> bool | None:
    """Whether a line opens with an SSE field; None for a blank or comment line (read on)."""
    stripped = line.strip()
    if not stripped or stripped.startswith(":"):
        return None
    return stripped.startswith(("data:", "event:", "id:", "retry:"))


def parse(text: str) -> list[StreamEvent]:
    """Split an SSE capture into events, keeping each event's character offset. One loop over the
    lines, without a generator between (a stream has thousands): `data: ` and `event: ` lines, the
    usual ones, are told by a slice before the general `field: value` split."""
    events: list[StreamEvent] = []
    data: list[str] = []
    name: str | None = None
    start: int | None = None
    lines, endings = _lines(text)
    at = 0  # the offset of `line`
    for line, ending in zip(lines, endings, strict=False):  # (`endings` may repeat for ever)
        if not line:
            if data:
                events.append(_event(len(events), name, data, start))
                data = []
            name = start = None
        elif line[0] != ":":  # (not a comment: indexing and comparing, quicker than a method call)
            if start is None:
                start = at
            if line[:6] == "data: ":
                data.append(line[6:])
            elif line[:7] == "event: ":
                name = line[7:]
            else:
                field, _, value = line.partition(":")
                if value[:1] == " ":
                    value = value[1:]
                if field == "data":
                    data.append(value)
                elif field == "event":
                    name = value
        at += len(line) + ending
    if data:
        events.append(_event(len(events), name, data, start))
    return events


def _lines(text: str) -> tuple[list[str], Iterable[int]]:
    """The text's lines, without their endings, and the length of each one's ending (the last line
    is what follows the last ending, maybe nothing: its ending counts 0, as nothing follows)."""
    if "\r" not in text:  # LF alone, as most streams end their lines: `str.split` cuts quickest
        return text.split("\n"), repeat(1)
    return _LINE.split(text), [*map(len, _LINE.findall(text)), 0]


def _event(index: int, name: str | None, data: list[str], offset: int | None) -> StreamEvent:
    payload = "\n".join(data)
    stripped = payload.strip()
    value: object = payload
    if stripped[:1] in ("{", "["):
        try:
            value = loads(stripped)
        except FormatError:
            value = payload
    return StreamEvent(index, value, name, offset)
