"""`records.sse.parse` reads `data: ` and `event: ` lines by a slice, in one loop over lines split
at once, where the WHATWG reading splits each line into its field and value as a stream of lines.
The two read every capture alike: the events, their names, payloads and offsets (CRLF, CR and LF
endings, comments, fields without a space or a value, blank lines anywhere)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldbg.errors import FormatError
from tooldbg.formats.base import StreamEvent
from tooldbg.jsonio import loads
from tooldbg.records.sse import parse


def reference(text: str) -> list[StreamEvent]:
    """The WHATWG reading, a line at a time: each line split into field and value."""
    events: list[StreamEvent] = []
    data: list[str] = []
    name: str | None = None
    start: int | None = None
    at = 0
    pieces = re.split(r"(\r\n|\r|\n)", text)
    for line, ending in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
        if not line:
            if data:
                events.append(_event(len(events), name, data, start))
            data, name, start = [], None, None
        elif not line.startswith(":"):
            if start is None:
                start = at
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value
        at += len(line) + len(ending)
    if data:
        events.append(_event(len(events), name, data, start))
    return events


def _event(index: int, name: str | None, data: list[str], offset: int | None) -> StreamEvent:
    payload = "\n".join(data)
    value: object = payload
    if payload.strip()[:1] in ("{", "["):
        try:
            value = loads(payload.strip())
        except FormatError:
            value = payload
    return StreamEvent(index, value, name, offset)


_LINES = st.sampled_from([
    "data: {\"type\": \"ping\"}", "data:{\"a\": [1, 2]}", "data:  {\"b\": 1}  ", "data: [DONE]", "data: ",
    "data:", "data", "data: {broken", "data: [", "event: message_start", "event:delta", "event",
    "event: ", ": OPENROUTER PROCESSING", ":", "id: 7", "retry: 10", "other: x", "  data: x", "",
    "data: : not a comment", "DATA: x",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_LINES, st.sampled_from(["\n", "\r\n", "\r", "\n\n"])), max_size=24),
       st.booleans())
def test_parse_reads_as_the_line_by_line_reading(lines: list[tuple[str, str]], ended: bool) -> None:
    text = "".join(line + ending for line, ending in lines)
    if not ended and lines:
        text = text[:len(text) - len(lines[-1][1])]
    assert parse(text) == reference(text)


_USUAL_EVENTS = st.sampled_from([
    "event: message_start\ndata: {\"type\": \"message_start\"}\n\n", "data: {\"a\": [1, 2]}\n\n",
    "event: ping\ndata: \n\n", "data: [DONE]\n\n", "event: \ndata: {broken\n\n", "event: a\r\ndata: 1\n\n",
    "event: a\ndata: 1\r\n\n", "event: a\ndata: 1\n\r\n", "data: 1\r\n\r\n", "event: a\nevent: b\ndata: 1\n\n",
    "event: a\ndata: 1\ndata: 2\n\n", "data:1\n\n", "event:a\ndata: 1\n\n", ": c\ndata: 1\n\n",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_USUAL_EVENTS, max_size=6),
       st.lists(st.tuples(_LINES, st.sampled_from(["\n", "\r\n", "\r", "\n\n"])), max_size=8))
def test_usual_events_read_as_the_line_by_line_reading(events: list[str], lines: list[tuple[str, str]]) -> None:
    """`parse` reads the usual events at the start of a stream by a regular expression: the same
    events as the line by line reading, whatever follows them (and a stream with a CR anywhere by
    the lines alone)."""
    text = "".join(events) + "".join(line + ending for line, ending in lines)
    assert parse(text) == reference(text)
    assert parse(text[:-1]) == reference(text[:-1])


def test_a_crlf_stream_keeps_each_event_offset() -> None:
    text = "event: a\r\ndata: {\"x\": 1}\r\n\r\n: note\r\ndata: 2\r\n\r\n"
    assert parse(text) == [StreamEvent(0, {"x": 1}, "a", 0), StreamEvent(1, "2", None, 36)]
