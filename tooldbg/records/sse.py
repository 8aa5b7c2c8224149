"""Server-sent events → `StreamEvent`s, following the WHATWG parsing rules.

Lines end in CRLF, LF or CR (Gemini uses `\r\n\r\n`); a line starting with `:` is a comment
(`: OPENROUTER PROCESSING`); `data:` lines of one event are joined with newlines; a blank line ends
the event. Payloads are parsed as JSON where they are JSON (Anthropic pads them with spaces, which
JSON allows); `[DONE]` and other text stay strings.
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..formats.base import StreamEvent
from ..jsonio import loads

_LINE = re.compile(r"\r\n|\r|\n")


def looks_like_sse(text: str) -> bool:
    """True when the text starts (after comments and blank lines) with an SSE field."""
    for line in _LINE.split(text[:4096]):
        stripped = line.strip()
        if not stripped or stripped.startswith(":"):
            continue
        return stripped.startswith(("data:", "event:", "id:", "retry:"))
    return False


def parse(text: str) -> list[StreamEvent]:
    """Split an SSE capture into events, keeping each event's character offset."""
    events: list[StreamEvent] = []
    data: list[str] = []
    name: str | None = None
    start: int | None = None
    pos = 0
    for match in [*_LINE.finditer(text), None]:
        end = match.start() if match else len(text)
        line = text[pos:end]
        line_start = pos
        pos = match.end() if match else len(text)
        if not line:
            if data:
                events.append(_event(len(events), name, data, start))
            data, name, start = [], None, None
            if match is None:
                break
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if start is None:
            start = line_start
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
        if match is None:
            break
    if data:
        events.append(_event(len(events), name, data, start))
    return events


def _event(index: int, name: str | None, data: list[str], offset: int | None) -> StreamEvent:
    payload = "\n".join(data)
    stripped = payload.strip()
    value: object = payload
    if stripped.startswith(("{", "[")):
        try:
            value = loads(stripped)
        except FormatError:
            value = payload
    return StreamEvent(index=index, data=value, name=name, offset=offset)
