"""`records.lines.ExtendingLines` against the general path it shortcuts (each JSON Lines record
parsed and printed whole): files of exchange records, each line often the one before with elements
added to a list of `request.body`, sometimes changed otherwise, laid out in any way, with duplicate
keys at each level, the `"\\u0000"` key, elements nested about as deep as a value may be, or
elements that do not parse. Every file gives the same exchanges (values, key order and all), errors,
and JSON bytes of the body's lists where both give them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.strategies import json_values, nested
from tooldbg.errors import InputError
from tooldbg.jsonio import dumps, inside
from tooldbg.records.containers import open_capture
from tooldbg.records.lines import ExtendingLines

KEYS = ["messages", "input", "tools", "model", "body", "request", "response", "\x00", "_x"]


@dataclass
class Raw:
    """Text written as it is (an element that does not parse, or does not parse alone)."""

    text: str


@dataclass
class Obj:
    """An object as (key, value) pairs, written in order: a key may come twice."""

    pairs: list[tuple[str, Any]]


def element(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 12))
    if kind == 0:
        return nested(draw(st.integers(190, 200)))
    if kind == 1:
        return Raw(draw(st.sampled_from(["nul", "{", "", "1 2", '"\\u0000"', '{"\\u0000": 1}', "]"])))
    if kind == 2:
        return {"request": {"body": {"messages": [1]}}, "x\"messages": [draw(st.text(max_size=3))]}
    if kind == 3:
        return draw(st.sampled_from([15, 1.5, -3, True, None, '"request": {', "\\", "\x00"]))
    return {"role": draw(st.sampled_from(["user", "assistant"])), "content": draw(json_values)}


def members(draw: st.DrawFn) -> list[tuple[str, Any]]:
    return [(k, draw(json_values)) for k in draw(st.lists(st.sampled_from(KEYS), max_size=2))]


@st.composite
def files(draw: st.DrawFn) -> bytes:
    """A file of exchange records: each line the last record changed (mostly: elements added to
    one list of its body) and written out (mostly in the file's one layout)."""
    target = draw(st.sampled_from(["messages", "input", "tools"]))
    array = [element(draw) for _ in range(draw(st.integers(0, 2)))]
    body_before, body_after = members(draw), members(draw)
    request_before = [("method", "POST"), ("url", "https://api.openai.com/v1/chat/completions")] + members(draw)
    request_after, record_before = members(draw), members(draw)
    style = draw(layouts())
    lines = []
    for _ in range(draw(st.integers(2, 6))):
        step = draw(st.integers(0, 11))
        if step < 6:
            array = array + [element(draw) for _ in range(draw(st.integers(1, 3)))]
        elif step == 6:
            body_after = members(draw)
        elif step == 7 and array:
            array = array[:-1] + [element(draw)]
        elif step == 8:
            record_before = members(draw)
        body = Obj([*body_before, (target, array), *body_after])
        record = Obj([*record_before, ("request", Obj([*request_before, ("body", body), *request_after])),
                      ("response", Obj([("status", 200), ("body", {"choices": draw(json_values)})])),
                      *members(draw)])
        text = write(record, draw(layouts()) if draw(st.integers(0, 9)) == 0 else style)
        edit = draw(st.integers(0, 15)) if lines else None  # (the first line makes it JSON Lines)
        if edit == 0:
            text = json.dumps(draw(json_values))  # not an exchange
        elif edit == 1:
            text = text[:draw(st.integers(0, len(text)))]  # a record cut short
        lines.append(text)
    return "\n".join(lines).encode()


def layouts() -> st.SearchStrategy[tuple[str, str, bool]]:
    """(blank space after `{`, `[` and `,`; after `:`; whether text is written as ASCII)."""
    return st.tuples(st.sampled_from(["", " ", "\n  ", "\t"]), st.sampled_from(["", " ", " \t"]),
                     st.booleans())


def write(value: Any, style: tuple[str, str, bool]) -> str:
    blank, colon, ascii_only = style
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Obj):
        return "{" + blank + ("," + blank).join(
            json.dumps(k, ensure_ascii=ascii_only) + ":" + colon + write(v, style) for k, v in value.pairs) + "}"
    if isinstance(value, list):
        return "[" + blank + ("," + blank).join(write(v, style) for v in value) + "]"
    return json.dumps(value, separators=("," + blank, ":" + colon), ensure_ascii=ascii_only)


def outcome(data: bytes) -> tuple[Any, ...]:
    try:
        capture = open_capture("log.jsonl", data)
        exchanges = list(capture.exchanges)
    except InputError as err:
        return ("error", err.location, err.message)
    read = []
    for exchange in exchanges:
        sides = [None if m is None else (dumps(m.body), m.location, m.url, m.method, m.headers, m.status,
                                         m.text, None if m.events is None else [dumps(e.data) for e in m.events])
                 for m in (exchange.request, exchange.response)]
        read.append((exchange.index, dumps(exchange.meta), sides))
    return read, [(e.location, e.message) for e in capture.errors]


def printed(data: bytes) -> list[dict[str, bytes]]:
    """The JSON bytes of each exchange's request body lists, by member name."""
    return [{name: bytes(inside(text)) for name, text in (e.request.lists or {}).items()}
            if e.request is not None else {} for e in open_capture("log.jsonl", data).exchanges]


PAD = '"system": "' + "s" * 4100 + '", '  # (a short record is not printed for its depth)


def line(before: str, array: str, after: str = "") -> str:
    return '{"request": {"body": {' + PAD + before + array + after + '}}, "response": {"body": {}}}'


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=files())
# the list's member again after it (the value keeps that one)
@example(data=(line('"messages": ', "[1]", ', "messages": [2]') + "\n" +
               line('"messages": ', "[1, 3]", ', "messages": [2]')).encode())
# the list's member before it (the value keeps the list, at the first one's place)
@example(data=(line('"a": [1], "b": [2], "a": ', "[3]") + "\n" + line('"a": [1], "b": [2], "a": ', "[3, 4]")).encode())
# `body` and `request` again after the open ones, at each level
@example(data=(line("", '"m": [1]', '}, "body": {"x": [5]') + "\n" + line("", '"m": [1, 2]', '}, "body": {"x": [5]')).encode())
# the lines part inside a number
@example(data=(line('"messages": ', "[15]") + "\n" + line('"messages": ', "[1, 2, 35]")).encode())
# a line parting from the last inside the number that ends the last one's new elements
@example(data="\n".join(line('"messages": ', a) for a in ("[1]", "[1, 35]", "[1, 3, 4]")).encode())
# a line that extends another list of the body than the one the last line extended
@example(data="\n".join(line('"messages": ', a, ', "tools": ' + t)
                        for a, t in (("[1]", "[5]"), ("[1, 2]", "[5]"), ("[1, 2]", "[5, 6]"))).encode())
# a comma and no element after it, after elements or none
@example(data=(line('"messages": ', "[1]") + "\n" + line('"messages": ', "[1, ]")).encode())
@example(data=(line('"messages": ', "[]") + "\n" + line('"messages": ', "[, 1]")).encode())
# the new element names the key the levels are parsed under
@example(data=(line('"messages": ', "[1]") + "\n" + line('"messages": ', '[1, {"\\u0000": 2}]')).encode())
# the key the levels are parsed under, before the list
@example(data=(line('"\\u0000": 0, "messages": ', "[1]") + "\n" + line('"\\u0000": 0, "messages": ', "[1, 2]")).encode())
# a list too deep, in a record that keeps another member of the same name: the next line keeps it
@example(data=('{"request": {"body": {"messages": [' + json.dumps(nested(197)) + ']}}, "request": null}\n'
               '{"request": {"body": {"messages": [' + json.dumps(nested(197)) + ', 1]}}}').encode())
# a line that extends a line that extends another, and one that changes the last one's new element
@example(data="\n".join(line('"messages": ', a) for a in ("[1]", "[1, 2]", "[1, 2, 3]", "[1, 2, 4, 5]")).encode())
def test_lines_read_as_each_line_parsed_whole(data: bytes) -> None:
    with mock.patch.object(ExtendingLines, "extended", lambda self, start, end: None):
        expected, expected_lists = outcome(data), printed(data) if "error" not in outcome(data) else None
    assert outcome(data) == expected
    if expected_lists is not None:
        for mine, whole in zip(printed(data), expected_lists, strict=True):
            assert mine.items() <= whole.items()


def test_a_session_is_read_from_where_each_line_parts_from_the_last() -> None:
    """The usual log: every line after the first read from where it goes on (its list's bytes given)."""
    data = "\n".join(line('"model": "m", "messages": ', "[" + ", ".join(str(i) for i in range(n)) + "]",
                          ', "tools": [{"type": "function"}]') for n in range(1, 6)).encode()
    calls = []
    original = ExtendingLines.extended

    def spied(self: ExtendingLines, start: int, end: int) -> Any:
        calls.append(found := original(self, start, end))
        return found

    with mock.patch.object(ExtendingLines, "extended", spied):
        lists = printed(data)
    assert [found is not None for found in calls] == [False, True, True, True, True]
    assert [set(listed) for listed in lists] == [{"messages", "tools"}] * 5
    assert lists[-1]["messages"] == b"[0,1,2,3,4]"
