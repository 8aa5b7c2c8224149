"""Server-sent events → `StreamEvent`s, following the WHATWG parsing rules.

Lines end in CRLF, LF or CR (Gemini uses `\r\n\r\n`); a line starting with `:` is a comment
(`: OPENROUTER PROCESSING`); `data:` lines of one event are joined with newlines; a blank line ends
the event. Payloads are parsed as JSON where they are JSON (Anthropic pads them with spaces, which
JSON allows); `[DONE]` and other text stay strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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
    """Split an SSE capture into events, keeping each event's character offset."""
    events: list[StreamEvent] = []
    data: list[str] = []
    name: str | None = None
    start: int | None = None
    for line, line_start in _lines(text):
        if not line:
            if data:
                events.append(_event(len(events), name, data, start))
            data, name, start = [], None, None
            continue
        if line[0] == ":":  # (indexing and comparing: quicker than a method call, per line)
            continue
        if start is None:
            start = line_start
        field, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
    if data:
        events.append(_event(len(events), name, data, start))
    return events


def _lines(text: str) -> Iterator[tuple[str, int]]:
    """Each line of the text, without its ending, and the offset it starts at (the last line is what
    follows the last ending, maybe nothing)."""
    at = 0
    if "\r" not in text:  # LF alone, as most streams end their lines: `str.split` cuts quickest
        for line in text.split("\n"):
            yield line, at
            at += len(line) + 1
        return
    for match in _LINE.finditer(text):
        yield text[at:match.start()], at
        at = match.end()
    yield text[at:], at


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
