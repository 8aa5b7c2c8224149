"""The fixed work of loading a file made cheaper gives what the general path gives: the depth guard
that prints in ready-made lists, the HAR entry walked rather than printed, headers checked, the
first lines of JSON Lines parsed once, and found once."""

from __future__ import annotations

import json
import threading

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldbg import jsonio, logs
from tooldbg.errors import InputError
from tooldbg.jsonio import MAX_DEPTH, TooDeep
from tooldbg.load import load_bytes
from tooldbg.records.containers import open_capture
from tooldbg.records.fields import header_map
from tooldbg.records.lines import line_table, lines, table_lines

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=12)


def _wrapped(value: object, lists: int) -> object:
    for _ in range(lists):
        value = [value]
    return value


@settings(max_examples=80, deadline=None)
@given(value=json_values, limit=st.integers(-3, 260))
def test_printing_in_ready_made_lists_gives_what_wrapping_anew_gives(value, limit):
    """`_printed` wraps in lists made once: the bytes (or the refusal) are those of the value
    wrapped in new lists, call after call (the lists it reuses hold nothing between calls)."""
    levels = jsonio._printed_levels()
    spare = levels - limit
    try:
        expected = orjson.dumps(_wrapped(value, spare)) if 0 <= spare <= levels else None
    except orjson.JSONEncodeError:
        expected = None
    assert jsonio._printed(value, limit) == expected
    assert jsonio._printed(value, limit) == expected


def test_a_value_orjson_refuses_leaves_the_lists_empty_for_the_next():
    # an integer wider than 64 bits: orjson does not print it, and the guard walks the value
    jsonio.ensure_depth({"n": [2**70]})
    assert jsonio._printed([1], MAX_DEPTH) == orjson.dumps(_wrapped([1], jsonio._printed_levels() - MAX_DEPTH))
    with pytest.raises(TooDeep):
        jsonio.ensure_depth(_wrapped(2**70, MAX_DEPTH + 1))
    assert all(not nest[0] for nest in jsonio._NESTS)


def test_threads_printing_at_once_each_get_their_own_value():
    values = [{"messages": [{"n": n, "text": "x" * n}]} for n in range(40)]
    failures: list[int] = []

    def guard(n: int) -> None:
        for _ in range(50):
            printed = {key: text[spare:len(text) - spare] for key, (text, spare) in jsonio.checked_lists(values[n]).items()}
            if printed != {id(values[n]["messages"]): jsonio.dumps(values[n]["messages"])}:
                failures.append(n)

    threads = [threading.Thread(target=guard, args=(n,)) for n in range(len(values))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def _entry(extra: object) -> dict:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    return {"startedDateTime": "2026-01-05T11:00:00Z",
            "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "headers": [],
                        "postData": {"mimeType": "application/json", "text": json.dumps(body)}},
            "response": {"status": 200, "headers": [], "content": {"mimeType": "application/json",
                                                                  "text": '{"type": "message", "content": []}'}},
            "_extra": extra}


@pytest.mark.parametrize("depth", [MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 5])
@pytest.mark.parametrize("kind", [list, dict])
def test_a_har_entry_walked_for_depth_is_refused_as_a_printed_one_was(depth, kind):
    """A HAR entry is walked (its bodies are texts), not printed: an entry nested past the limit is
    still its error, at the pointer the printing guard gives, and the other entries are read."""
    extra: object = 1
    for _ in range(depth):
        extra = [extra] if kind is list else {"k": extra}
    entry = _entry(extra)
    try:
        jsonio.ensure_depth(entry, "/log/entries/1")
        expected = []
    except TooDeep as refused:
        expected = [(refused.pointer, refused.message)]
    document = {"log": {"version": "1.2", "entries": [_entry(None), entry, _entry(None)]}}
    loaded = load_bytes("x.har", json.dumps(document).encode())
    assert [(e.location, e.message) for e in loaded.errors] == expected
    assert len(loaded.reads) == 3 - len(expected)
    assert (depth + 1 > MAX_DEPTH) == bool(expected)  # (the entry is a level of its own)


@pytest.mark.parametrize(("headers", "where", "message"), [
    ({"X-Id": {"a": 1}}, "/h/X-Id", "header 'X-Id' must be a string, not an object"),
    ([{"name": "a", "value": "1"}, {"name": "b", "value": [1]}], "/h/1", "header 'b' must be a string, not a list"),
    ([{"name": 5, "value": "1"}], "/h/0", "a header name must be a string, not a number"),
    ([{"name": 5, "value": "1"}, "x"], "/h/1", "a header must be an object, not a string"),
    ("x", "/h", "headers must be an object or a list, not a string"),
])
def test_a_header_of_the_wrong_shape_is_an_error_at_its_pointer(headers, where, message):
    with pytest.raises(InputError) as info:
        header_map("f", headers, "/h")
    assert (info.value.location, info.value.message) == (where, message)


def test_headers_are_lower_cased_and_scalars_written_as_json():
    assert header_map("f", {"A": "1", "B": 2, "C": True, "D": None, "E": 1.5}, "/h") == \
        {"a": "1", "b": "2", "c": "true", "d": "null", "e": "1.5"}
    assert header_map("f", [{"name": "A", "value": "1"}, {"name": "a", "value": 2}, {}], "/h") == \
        {"a": "2", "": ""}


_RECORD = json.dumps({"request": {"url": "https://api.anthropic.com/v1/messages", "body": {
    "model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}}})
_LINES = [_RECORD, " " + _RECORD, _RECORD + "\x0c", _RECORD[:40] + "\r" + _RECORD[40:], _RECORD + "\r",
          '{"request": ', "", "  ", '{"type": "ping"}', "null", _RECORD.replace('"hi"', '"h\\u0069"')]


def _read(data: bytes, parsed: dict | None) -> tuple[list, list]:
    capture = open_capture("f.jsonl", data, parsed=parsed)
    exchanges = [(e.index, e.request and (e.request.location, e.request.body), e.response and
                  (e.response.location, e.response.body, e.response.events)) for e in capture.exchanges]
    return exchanges, [(err.location, err.message) for err in capture.errors]


@settings(max_examples=150, deadline=None)
@given(picked=st.lists(st.sampled_from(_LINES), min_size=2, max_size=12), bom=st.booleans(),
       ending=st.sampled_from(["\n", "\r\n"]), last=st.booleans())
def test_lines_detection_parsed_are_read_as_the_container_parses_them(picked, bom, ending, last):
    """The first lines `logs.peek` parsed are taken by the JSON Lines container, not parsed again:
    the exchanges and errors are those it makes parsing every line itself, whatever the blank
    space, line endings and broken lines around them."""
    data = (("\ufeff" if bom else "") + ending.join(picked) + (ending if last else "")).encode()
    parsed: dict = {}
    logs.peek(data, parsed)
    try:
        expected = _read(data, None)
    except InputError as err:
        with pytest.raises(InputError) as info:
            _read(data, parsed)
        assert (info.value.location, info.value.message) == (err.location, err.message)
        return
    assert _read(data, parsed) == expected


@settings(max_examples=300, deadline=None)
@given(data=st.lists(st.sampled_from([b"{}", b"[1]", b" ", b"\t", b"\n", b"\r", b"\r\n", b"x", b"\x0c"]),
                     max_size=16).map(b"".join), start=st.integers(0, 4))
def test_the_line_table_holds_the_lines_found_one_by_one(data, start):
    """The JSON Lines container counts a file's lines and reads them from one table, not two
    passes: the table holds what `lines` yields, whatever the line ends and blank lines."""
    assert list(table_lines(line_table(data, start))) == list(lines(data, start))
