"""Regression tests for what fuzzing found (issue 11), each with its reproducer built here: deep
JSON, fields of the wrong type, one bad record among good ones, long lines, and the cost of many
conversations. Every failure is one line naming the file and the location, or a finding; a bad
record is reported and skipped, the rest of the file is still read."""

from __future__ import annotations

import io
import json
import sys
import tracemalloc
from collections import Counter
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from tests import paths
from tests.command import run
from tooldbg import jsonio
from tooldbg.checks import run_checks
from tooldbg.convert import export
from tooldbg.errors import BUG, FormatError
from tooldbg.formats import WIRE_FORMATS
from tooldbg.jsonio import MAX_DEPTH, TooDeep
from tooldbg.load import Loaded, load, load_bytes
from tooldbg.model import Conversation, Invocation
from tooldbg.shorten import one_line, quote, shorten_lines
from tooldbg.show import render_loaded
from tooldbg.stitch import turn_hash

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"



def nested(depth: int, leaf: object = 1, key: str | None = "a") -> object:
    """A value `depth` levels deep (objects under `key`, or arrays when key is None)."""
    value = leaf
    for _ in range(depth):
        value = [value] if key is None else {key: value}
    return value


def deep_text(depth: int) -> str:
    """JSON text nested `depth` levels (the standard library cannot write it past ~990)."""
    return "[" * depth + "]" * depth


def anthropic_request(tool_input: object = None) -> dict:
    messages: list[dict] = [{"role": "user", "content": "Weather in Oslo?"}]
    if tool_input is not None:
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": tool_input}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "12 °C"}]})
    return {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": messages}


def good_record() -> str:
    return json.dumps({"request": {"url": ANTHROPIC_URL, "body": anthropic_request({"city": "Oslo"})}})


def one_line_error(err: str, path: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"tooldbg: {path}:"), err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


# ----------------------------------------------------------------------------------- deep JSON


@pytest.mark.parametrize("long", [False, True], ids=["short", "long"])
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 255, 300, 1000, 1023])
def test_a_deep_body_is_one_error_at_its_pointer(tmp_path, capsys, depth, long):
    """Before: `convert` on a body nested 1,000 deep ended in `internal error: RecursionError`
    (and 255–1,024 deep, in the places that printed or copied the value). A long body's depth is
    tested by its parse (`jsonio.loads_within`), a short one's by printing it: the same error."""
    path = tmp_path / "deep.json"
    request = anthropic_request()
    if long:
        request["system"] = "x" * jsonio.WRAPPED_FROM
    body = json.dumps(request).replace('"max_tokens"', f'"x": {deep_text(depth)}, "max_tokens"')
    path.write_text(body)
    [loaded] = load([path])
    [error] = loaded.errors
    assert error.location.startswith("/x/0/0/") and error.location.count("/") == MAX_DEPTH
    assert "nested deeper than 200 levels" in error.message
    for command in (["check"], ["show"], ["convert", "--to", "canonical"], ["convert", "--to", "openai-chat"]):
        code, _, err = run(capsys, *command, str(path))
        line = one_line_error(err, str(path))
        assert code == 2 and "/x/0/0/0" in line and "…" in line  # the pointer, cut in the middle


def test_a_deep_record_is_skipped_and_the_good_one_read(tmp_path, capsys):
    """Before: a JSON Lines file with one good record and one deep record lost both in the CLI."""
    deep = json.dumps({"request": {"url": ANTHROPIC_URL, "body": anthropic_request({"q": 0})}})
    deep = deep.replace('{"q": 0}', '{"q": ' + deep_text(900) + "}")
    path = tmp_path / "log.jsonl"
    path.write_text(good_record() + "\n" + deep + "\n")
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    doc = json.loads(out)
    [item] = doc["inputs"]
    assert item["conversations"] == 1 and item["exchanges"] == 1
    [error] = item["errors"]
    assert error["location"].startswith("line 2/request/body/messages/1/content/0/input/q/0/0")
    assert "Traceback" not in err and "internal error" not in err


def test_tool_arguments_300_deep_are_reported_not_hashed_into_a_crash():
    """Before: tool arguments 300 deep raised `TypeError: Recursion limit reached` in
    `stitch.turn_hash` while loading. An object argument is a format error at its pointer; a
    string argument (OpenAI) is kept raw and TD202 says why it was not read."""
    body = anthropic_request(nested(300))
    loaded = load_bytes("a.json", json.dumps(body).encode())  # orjson would not write it
    [error] = loaded.errors
    assert error.location.startswith("/messages/1/content/0/input/a/a") and "deeper" in error.message

    arguments = json.dumps(nested(300))  # a JSON string holding a 300-deep value
    chat = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]}
    loaded = load_bytes("chat.json", orjson.dumps(chat))
    assert loaded.errors == []
    [call] = [p for t in loaded.conversations[0].turns for p in t.parts if isinstance(p, Invocation)]
    assert call.arguments is None and call.raw_arguments == arguments
    [finding] = [f for f in run_checks(loaded) if f.code == "TD202"]
    assert "nested deeper than 200 levels" in finding.message and len(finding.message) < 400


def test_values_at_the_limit_are_read_hashed_printed_and_converted(capsys):
    """Depth up to the limit is handled everywhere: stitching hashes the turn, `show` prints it,
    every writer writes it and the canonical document reads back."""
    depth = MAX_DEPTH - 5  # the argument's own levels: the body adds five around it
    body = anthropic_request(nested(depth, key="k"))
    loaded = load_bytes("limit.json", orjson.dumps(body))
    assert loaded.errors == []
    [conv] = loaded.conversations
    assert all(turn_hash(t) for t in conv.turns)
    console = Console(file=io.StringIO(), width=100)
    for renderable in render_loaded(loaded):
        console.print(renderable)
    for target in WIRE_FORMATS:
        assert export([conv], target).text()
    canonical = export([conv], "canonical").text()
    back = load_bytes("back.json", canonical.encode())
    assert back.errors == [] and back.conversations[0].turns == conv.turns


def test_printing_never_recurses_and_never_raises():
    deep = nested(5000, key=None)
    assert jsonio.dumps(deep) == b"[" * 5000 + b"1" + b"]" * 5000
    odd = {"big": 2 ** 70, 3: "int key", "lone": "\ud800", "tuple": (1, 2), "obj": object()}
    text = jsonio.dumps(odd).decode()
    assert '"big":1180591620717411303424' in text and '"3":"int key"' in text and "<object>" in text
    scalars = {"t": True, "f": False, "n": None, "x": 1.5, "nan": float("nan"), "inf": float("inf"),
               "-inf": float("-inf")}  # (orjson writes the three that are not JSON numbers as null)
    for value in ({"a": [1, {"b": None}], "c": "é"}, [], {}, [[], {}], scalars, {"z": 1, "a": [scalars]}):
        for indent in (False, True):
            for sort_keys in (False, True):
                option = (orjson.OPT_INDENT_2 if indent else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
                assert jsonio.dumps(value, indent=indent, sort_keys=sort_keys) == orjson.dumps(value, option=option)
                assert jsonio._dumps_any(value, indent=indent, sort_keys=sort_keys) == \
                    orjson.dumps(value, option=option).decode()


def test_depth_is_checked_once_where_json_is_parsed():
    for text in (deep_text(MAX_DEPTH), deep_text(MAX_DEPTH).encode()):
        assert jsonio.loads(text) is not None
    for text in (deep_text(MAX_DEPTH + 1), deep_text(MAX_DEPTH + 1).encode(),  # (its brackets counted)
                 deep_text(1100), deep_text(1100).encode()):  # (past the parser's own limit)
        with pytest.raises(TooDeep) as info:
            jsonio.loads(text)
        assert isinstance(info.value, FormatError) and info.value.pointer == "/0" * MAX_DEPTH
    long = '"' + "x" * 10_000 + '"'  # a long text is walked without its brackets counted first
    assert jsonio.loads("[" * MAX_DEPTH + long + "]" * MAX_DEPTH) is not None
    with pytest.raises(TooDeep) as info:
        jsonio.loads("[" * (MAX_DEPTH + 1) + long + "]" * (MAX_DEPTH + 1))
    assert info.value.pointer == "/0" * MAX_DEPTH
    assert jsonio.try_loads(deep_text(1000)) == (False, None)
    assert jsonio.count_values(deep_text(5000)) == 0  # the standard library's parser recurses
    assert jsonio.count_values("1" * 5000) == 0  # …and refuses integers of more than 4,300 digits


def test_the_limits_of_orjson_are_found_by_trying(monkeypatch):
    """The levels orjson parses and prints are found once, by trying (another release may have
    others): tried first at the known limits, searched for when those do not hold, and a parser
    with no limit leaves long texts to the printing test."""
    for cache in ("_PARSED_LEVELS", "_PRINTED_LEVELS", "_NESTS"):
        monkeypatch.setattr(jsonio, cache, [])
    assert (jsonio._parsed_levels(), jsonio._printed_levels()) == (1024, 254)
    monkeypatch.setattr(jsonio, "_ORJSON_3_PARSED", 1000)  # (a wrong first guess: searched for)
    monkeypatch.setattr(jsonio, "_ORJSON_3_LEVELS", 300)
    for cache in ("_PARSED_LEVELS", "_PRINTED_LEVELS", "_NESTS"):
        monkeypatch.setattr(jsonio, cache, [])
    assert (jsonio._parsed_levels(), jsonio._printed_levels()) == (1024, 254)
    for limit in (MAX_DEPTH, jsonio._printed_levels()):  # (the lists wrapped around it made again)
        jsonio.ensure_depth(_nested([("list", False)] * (limit - 1), [0]), "", limit)
        with pytest.raises(TooDeep):
            jsonio.ensure_depth(_nested([("list", False)] * limit, [0]), "", limit)
    monkeypatch.setattr(jsonio, "_PARSED_LEVELS", [])
    monkeypatch.setattr(jsonio, "_parses", lambda levels: True)
    assert jsonio._parsed_levels() == 0
    long = deep_text(MAX_DEPTH).encode() + b" " * jsonio.WRAPPED_FROM
    assert jsonio.loads_within(long) == (jsonio.loads(long), False)


def test_a_value_orjson_cannot_print_is_walked_for_its_depth():
    """An integer wider than 64 bits (valid JSON, which orjson neither parses nor prints) leaves
    the depth to the walk: it allows what printing would, and refuses at the same pointer."""
    for leaf in (2 ** 70, [2 ** 70]):
        extra = 1 if isinstance(leaf, list) else 0
        jsonio.ensure_depth(_nested([("dict", True)] * (MAX_DEPTH - extra), leaf))
        with pytest.raises(TooDeep) as info:
            jsonio.ensure_depth(_nested([("dict", True)] * (MAX_DEPTH + 1 - extra), leaf))
        assert info.value.pointer == "/k" * MAX_DEPTH


def _nested(shape: list[tuple[str, bool]], leaf: object) -> object:
    """Containers around `leaf`, outermost first: ("list" | "dict", with a sibling scalar)."""
    value = leaf
    for kind, sibling in reversed(shape):
        if kind == "list":
            value = [1, value] if sibling else [value]
        else:
            value = {"s": "x", "k": value} if sibling else {"k": value}
    return value


@settings(max_examples=60, deadline=None)
@given(kinds=st.lists(st.tuples(st.sampled_from(["list", "dict"]), st.booleans()),
                      min_size=MAX_DEPTH + 3, max_size=MAX_DEPTH + 3),
       levels=st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3),
       leaf=st.sampled_from([0, "text", None, [], {}, [1], {"a": 1}, 2 ** 70, [2 ** 70]]),
       limit=st.sampled_from([MAX_DEPTH, MAX_DEPTH + 1]))
def test_the_depth_guard_decides_as_its_walk_does(kinds, levels, leaf, limit):
    """`ensure_depth` first asks orjson to print the value (fast); the answer is the level-by-level
    walk's, at every depth around the limit, whatever the containers and the leaf (an integer
    orjson cannot print: then the walk is the answer)."""
    shape = kinds[:levels]
    value = _nested(shape, leaf)
    depth = len(shape) + (1 if isinstance(leaf, list | dict) else 0)
    if depth <= limit:
        jsonio.ensure_depth(value, "", limit)
    else:
        with pytest.raises(TooDeep) as info:
            jsonio.ensure_depth(value, "", limit)
        assert info.value.pointer.count("/") == limit


@settings(max_examples=60, deadline=None)
@given(kinds=st.lists(st.tuples(st.sampled_from(["list", "dict"]), st.booleans()),
                      min_size=MAX_DEPTH + 3, max_size=MAX_DEPTH + 3),
       levels=st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3),
       leaf=st.sampled_from([0, "text", None, [], {}, [1], {"a": 1}]))
def test_the_parser_tests_depth_as_the_guard_does(kinds, levels, leaf):
    """`loads_within` (orjson's parse of the text wrapped in lists) finds a value within the limit
    exactly when `ensure_depth` does, and parses the same value; a long text `loads` refuses is
    refused at the guard's pointer."""
    value = _nested(kinds[:levels], leaf)
    text = orjson.dumps(value) + b" " * jsonio.WRAPPED_FROM  # (long, by blank space after the value)
    parsed, within = jsonio.loads_within(text)
    assert parsed == value
    try:
        jsonio.ensure_depth(value)
    except TooDeep as refused:
        assert not within
        with pytest.raises(TooDeep) as info:
            jsonio.loads(text)
        assert info.value.pointer == refused.pointer
    else:
        assert within and jsonio.loads(text) == value


def test_a_document_past_the_wrapped_length_is_not_copied_to_be_parsed(monkeypatch):
    """A recording read whole is tested record by record: its parse adds no copy of it."""
    text = b"[1]" + b" " * (4 * jsonio.WRAPPED_FROM)
    peaks = []
    for wrapped_to, copied in ((len(text) + 1, True), (len(text), False)):
        monkeypatch.setattr(jsonio, "WRAPPED_TO", wrapped_to)
        tracemalloc.start()
        try:
            assert jsonio.loads_within(text) == ([1], copied)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[0] - peaks[1] >= len(text)  # (the parser's own buffers, in both)


@settings(max_examples=80, deadline=None)
@given(kinds=st.lists(st.tuples(st.sampled_from(["list", "dict"]), st.booleans()),
                      min_size=MAX_DEPTH + 3, max_size=MAX_DEPTH + 3),
       levels=st.integers(MAX_DEPTH - 6, MAX_DEPTH + 2),
       leaf=st.sampled_from([0, "text", None, [], {}, [1], {"a": 1}]),
       wrapped=st.sampled_from(["bare", "record", "body"]))
def test_the_depth_guard_that_prints_lists_decides_as_the_guard_does(kinds, levels, leaf, wrapped):
    """`checked_lists` (the guard of JSON Lines records and bodies, which prints a record's message
    list apart for `history`) accepts and refuses what `ensure_depth` does, at the same pointer,
    and gives for each list under the record's first objects the bytes `dumps` writes of it."""
    deep = _nested(kinds[:levels], leaf)
    value = {"bare": deep, "record": {"request": {"body": {"model": "m", "messages": [{"a": 1}, deep]}},
                                      "response": {"status": 200, "body": [1, 2]}},
             "body": {"messages": deep, "tools": [{"name": "t"}], "n": 1}}[wrapped]
    try:
        jsonio.ensure_depth(value)
    except TooDeep as refused:
        with pytest.raises(TooDeep) as info:
            jsonio.checked_lists(value)
        assert info.value.pointer == refused.pointer
        return
    printed = jsonio.checked_lists(value)
    # every list reached through objects alone in the record's first three levels, and only those
    reached, stack = {}, [(value, 3)]
    while stack:
        node, left = stack.pop()
        if isinstance(node, list):
            reached[id(node)] = node
        elif isinstance(node, dict) and left:
            stack.extend((child, left - 1) for child in node.values())
    assert {key: text[spare:len(text) - spare] for key, (text, spare) in printed.items()} == \
        {key: jsonio.dumps(item) for key, item in reached.items()}
    if wrapped == "record":  # a record's message list is printed apart, for `history`
        assert id(value["request"]["body"]["messages"]) in printed


def test_quote_is_bounded_escaped_and_depth_safe():
    assert quote("get_weather") == "'get_weather'" and quote(None) == "None"
    assert quote({"a": [1, "x"]}) == "{'a': [1, 'x']}"
    assert len(quote("x" * 1_000_000)) <= 110
    assert "\x1b" not in quote("\x1b[2J") and "\u202e" not in quote("\u202eevil")
    assert quote(nested(100_000)).endswith("…") and len(quote(nested(100_000))) <= 101
    assert len(quote(list(range(100_000)))) <= 101
    assert quote(10 ** 5000).startswith("<an integer of") and b"an integer of" in jsonio.dumps([10 ** 5000])


# ------------------------------------------------------------------------- fields of wrong type


def har(entries: list) -> str:
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})


def har_entry() -> dict:
    return {"request": {"method": "POST", "url": ANTHROPIC_URL, "headers": [],
                        "postData": {"mimeType": "application/json",
                                     "text": json.dumps(anthropic_request({"city": "Oslo"}))}},
            "response": {"status": 200, "headers": [], "content": {"mimeType": "application/json", "text": json.dumps(
                {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "text", "text": "12 °C in Oslo."}], "stop_reason": "end_turn"})}}}


@pytest.mark.parametrize("field, value, location, words", [
    ("response/content", "oops", "/log/entries/1/response/content", "content must be an object, not a string"),
    ("response/content", [1], "/log/entries/1/response/content", "not a list"),
    ("response/content/text", {"a": 1}, "/log/entries/1/response/content/text", "text must be a string"),
    ("request/postData", "oops", "/log/entries/1/request/postData", "postData must be an object"),
    ("request/headers", "oops", "/log/entries/1/request/headers", "headers must be an object or a list"),
    ("request/headers", [{"name": "x", "value": nested(50)}], "/log/entries/1/request/headers/0", "must be a string"),
    ("request/url", nested(150), "/log/entries/1/request/url", "url must be a string, not an object"),
    ("response/status", "teapot", "/log/entries/1/response/status", "status must be an HTTP status code"),
    ("response", 7, "/log/entries/1/response", "expected an object, not a number"),
])
def test_a_har_entry_with_a_field_of_the_wrong_type_loses_only_that_side(tmp_path, capsys, field, value,
                                                                          location, words):
    """Before: HAR `response.content` that is not an object raised AttributeError, and a HAR with
    one good entry and one such entry lost the good one too."""
    bad = har_entry()
    node = bad
    *parents, last = field.split("/")
    for key in parents:
        node = node[key]
    node[last] = value
    path = tmp_path / "run.har"
    path.write_text(har([har_entry(), bad]))
    [loaded] = load([path])
    [error] = loaded.errors
    assert error.location == location and words in error.message, str(error)
    assert len(str(error)) < 300
    assert loaded.conversations and len(loaded.reads) == 2
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    assert code in (0, 1, 2) and "internal error" not in err
    assert json.loads(out)["inputs"][0]["errors"] == [{"location": location, "message": error.message}]


def test_previous_response_id_of_the_wrong_type_is_a_format_error(tmp_path, capsys):
    """Before: `previous_response_id` that is a list ended `check` in `TypeError: unhashable`."""
    path = tmp_path / "req.json"
    path.write_text(json.dumps({"model": "gpt-5", "previous_response_id": ["resp_1"],
                                "input": [{"role": "user", "content": "hi"}]}))
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    assert "internal error" not in err
    [error] = json.loads(out)["inputs"][0]["errors"]
    assert error == {"location": "/previous_response_id",
                     "message": "previous_response_id must be a string, not a list"}


def test_an_unknown_tool_choice_object_converts_to_openai_chat(tmp_path, capsys):
    """Before (fixed on main, kept here with the others): an unknown `tool_choice` object raised
    AttributeError in the openai-chat writer."""
    body = anthropic_request()
    body["tool_choice"] = {"type": "some_future_choice", "x": {"y": 1}}
    path = tmp_path / "req.json"
    path.write_text(json.dumps(body))
    code, out, err = run(capsys, "convert", str(path), "--to", "openai-chat")
    assert code == 0 and json.loads(out)["messages"] and "internal error" not in err


def test_an_id_with_a_line_break_is_compared_without_a_crash():
    """Before: a result id holding a newline failed an assert in TD103's prefix split."""
    body = anthropic_request({"city": "Oslo"})
    body["messages"][2]["content"][0]["tool_use_id"] = "toolu_\n01"
    loaded = load_bytes("a.json", orjson.dumps(body))
    assert {f.code for f in run_checks(loaded)} >= {"TD101"}


def test_an_empty_tool_name_round_trips_through_the_canonical_document():
    body = anthropic_request({"city": "Oslo"})
    body["messages"][1]["content"][0]["name"] = ""
    [conv] = load_bytes("a.json", orjson.dumps(body)).conversations
    back = load_bytes("back.json", export([conv], "canonical").text().encode())
    assert back.errors == [] and back.conversations[0].turns == conv.turns


# ----------------------------------------------------------------------------- the safety nets


def test_a_reader_that_raises_unexpectedly_costs_its_record_only(monkeypatch):
    from tooldbg.formats import anthropic

    real = anthropic.read_request

    def flaky(body, source):
        if body["messages"][0]["content"] == "boom":
            raise KeyError("boom")
        return real(body, source)

    monkeypatch.setattr(anthropic, "read_request", flaky)
    monkeypatch.delenv("TOOLDBG_DEBUG", raising=False)
    bad = json.dumps({"request": {"url": ANTHROPIC_URL, "body": {
        "model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "boom"}]}}})
    loaded = load_bytes("log.jsonl", (good_record() + "\n" + bad + "\n").encode())
    [error] = loaded.errors
    assert error.location == "line 2/request/body#"
    assert BUG in error.message and "KeyError" in error.message
    assert len(loaded.conversations) == 1
    monkeypatch.setenv("TOOLDBG_DEBUG", "1")  # the debugging switch shows the exception itself
    with pytest.raises(KeyError):
        load_bytes("log.jsonl", (good_record() + "\n" + bad + "\n").encode())


def _raises(*_args, **_kwargs):
    raise KeyError("boom")


@pytest.mark.parametrize(("where", "container", "locations"), [
    # the net under the containers: the file is unread, said at its root
    ("tooldbg.load.open_capture", "unknown", [""]),
    # the records' exchanges cannot be made: the capture's net
    ("tooldbg.records.containers.exchange_record", "unknown", [""]),
    # a canonical document whose reading raised
    ("tooldbg.load.read_document", "canonical", [""]),
    # detecting an exchange's format raised: that exchange only, each at its line
    ("tooldbg.load._detect", "jsonl", ["line 1/request/body", "line 2/request/body"]),
])
def test_each_net_under_the_readers_names_the_file_the_place_and_the_bug(monkeypatch, where, container, locations):
    """An exception no reader should raise ends as an error at the file and the place it reached,
    saying it is a bug in tooldbg — never a traceback, never an error without its file."""
    module, name = where.rsplit(".", 1)
    log = (good_record() + "\n" + good_record() + "\n").encode()
    if container == "canonical":
        log = export(load_bytes("log.jsonl", log).conversations, "canonical").text().encode()
    monkeypatch.setattr(sys.modules[module], name, _raises)
    monkeypatch.delenv("TOOLDBG_DEBUG", raising=False)
    loaded = load_bytes("log.jsonl", log)
    assert loaded.container == container
    assert [(e.path, e.location, e.message) for e in loaded.errors] == [
        ("log.jsonl", location, f"could not be read: KeyError: 'boom' ({BUG})") for location in locations]


def test_a_response_reader_that_raises_costs_that_response_only(monkeypatch):
    from tooldbg.formats import anthropic

    monkeypatch.setattr(anthropic, "read_response", _raises)
    monkeypatch.delenv("TOOLDBG_DEBUG", raising=False)
    record = json.loads(good_record())
    record["response"] = {"status": 200, "body": {"id": "msg_1", "type": "message", "role": "assistant",
                                                  "model": "m", "content": [{"type": "text", "text": "Hi."}]}}
    loaded = load_bytes("log.jsonl", json.dumps(record).encode())
    [error] = loaded.errors
    assert (error.path, error.location) == ("log.jsonl", "/response/body#")
    assert BUG in error.message and "KeyError" in error.message
    assert len(loaded.conversations) == 1  # the request is read all the same


def test_a_rule_that_raises_is_reported_and_the_others_run(monkeypatch):
    from dataclasses import replace

    from tooldbg.checks import RULES

    def broken(ctx):
        raise ValueError("rule bug")
        yield

    monkeypatch.delenv("TOOLDBG_DEBUG", raising=False)
    loaded = load_bytes("x.jsonl", (paths.SAMPLES / "defects" / "TD102-failed-parallel-result-dropped.jsonl")
                        .read_bytes())
    findings = run_checks(loaded, [replace(RULES["TD101"], check=broken), RULES["TD102"]])
    assert [f.code for f in findings] == ["TD102"]
    assert any("rule TD101 could not run: ValueError: rule bug" in e.message for e in loaded.errors)


# ------------------------------------------------------------------------ long lines, many files


def test_a_url_of_200000_lines_is_shortened_before_it_is_rendered(tmp_path, capsys):
    """Before: `show` took 7.4 s and 282 MB on a 1.2 MB file whose URL had 200,000 lines (rich
    wrapped every one). The header line is cut before rendering: the output does not grow with it."""
    record = json.loads(good_record())
    sizes = []
    for lines in (2_000, 200_000):
        record["request"]["url"] = ANTHROPIC_URL + "?" + "a\n" * lines
        path = tmp_path / f"url{lines}.jsonl"
        path.write_text(json.dumps(record) + "\n")
        code, out, err = run(capsys, "show", str(path), "--width", "120")
        assert code == 0, err
        sizes.append(len(out))
        assert "characters)" in out.replace("\n", "") and len(out.splitlines()) < 60
    assert abs(sizes[0] - sizes[1]) < 20  # the file name and the count of cut characters differ


def test_shortening_helpers():
    assert one_line("a\nb") == "a\\nb"
    cut = one_line("x" * 10_000, 100)
    assert len(cut) < 140 and "(9,900 characters)" in cut
    text = shorten_lines("\n".join(["y" * 5000] * 1000), 200, 40)
    assert text.count("\n") == 40 and "960 more lines" in text and len(text) < 40 * 260


class CountingList(list):
    """A list that counts the scans made over it."""

    scans = 0

    def __iter__(self):
        CountingList.scans += 1
        return super().__iter__()


def test_finding_a_conversation_by_id_does_not_scan_the_list():
    conversations = CountingList(Conversation(id=f"c{i}") for i in range(1000))
    loaded = Loaded("x", "json", conversations=conversations)
    CountingList.scans = 0
    for i in range(1000):
        assert loaded.conversation(f"c{i}").id == f"c{i}"
    assert loaded.conversation("nope") is None
    assert CountingList.scans <= 1  # the index is built once
    loaded.conversations = [Conversation(id="other")]  # a new list is indexed again
    assert loaded.conversation("other").id == "other" and loaded.conversation("c1") is None


def _har_of(n: int) -> bytes:
    entries = []
    for i in range(n):
        entry = har_entry()
        entry["request"]["postData"]["text"] = json.dumps(
            {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": f"question {i}"}]})
        entries.append(entry)
    return har(entries).encode()


def _calls(fn) -> int:
    """How many Python functions `fn()` calls: a count, not a clock (CI machines differ)."""
    count = Counter()

    def profile(frame, event, arg):
        if event == "call":
            count["calls"] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count["calls"]


@pytest.mark.parametrize("step", ["load", "check", "show", "json report"])
def test_cost_is_linear_in_conversations(step):
    """Before: `check` on a HAR of 50,000 entries did not finish in 10 minutes, because
    `Loaded.conversation()` scanned the list on every call (1.4 s at 2k, 10.2 s at 8k); `show`
    scanned every exchange for each conversation. Four times the conversations may cost four times
    the calls, not sixteen."""
    from tooldbg.scan import Checked, to_json

    def work(n: int):
        data = _har_of(n)

        def go():
            loaded = load_bytes("run.har", data)
            if step == "check":
                run_checks(loaded)
            elif step == "show":
                console = Console(file=io.StringIO(), width=100)
                for renderable in render_loaded(loaded):
                    console.print(renderable)
            elif step == "json report":
                jsonio.dumps(to_json([Checked(loaded, run_checks(loaded))]))
        return go

    small, large = _calls(work(60)), _calls(work(240))
    assert large < 4.4 * small, (small, large)


def test_a_whole_file_that_cannot_be_read_names_the_file(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps({"request": {"body": nested(400)}}) + "\n")
    code, _, err = run(capsys, "check", str(path))
    line = one_line_error(err, str(path))
    assert code == 2 and f"{path}:/request/body/a/a/a" in line  # one line: a JSON document


def test_the_corpus_and_samples_still_load_clean():
    for file in [*sorted(paths.SAMPLES.rglob("*.json*")), *sorted(paths.REAL_CLIENTS.glob("*.har"))]:
        loaded = load_bytes(str(file), Path(file).read_bytes())
        assert not loaded.errors, (file, loaded.errors)


def test_the_tui_wire_view_cuts_long_lines_with_the_same_helper():
    from tooldbg.tui.widgets.wire_lines import MAX_LINE, Body, source_body

    body = source_body({"url": "x" * 1_000_000, "lines": "a\n" * 200_000})
    assert all(len(line) < MAX_LINE + 40 for line in body.lines)
    assert any("characters) …" in line for line in body.lines)
    assert Body.of(["short"]).lines == ["short"]


def test_a_gemini_partial_args_path_cannot_build_arguments_deeper_than_the_parser_reads():
    """A short input can describe deep arguments: a Vertex `partialArgs` path of 3,000 steps built
    arguments 3,000 levels deep (the parser's limit never saw them). The path is held to the
    limit: a stream problem at its chunk, and the arguments are not built."""
    def chunk(call: dict, finish: str | None = None) -> dict:
        candidate: dict = {"content": {"role": "model", "parts": [{"functionCall": call}]}}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate]}

    lines = [chunk({"name": "f", "willContinue": True}),
             chunk({"partialArgs": [{"jsonPath": "$" + ".a" * 3000, "stringValue": "x"}], "willContinue": True}),
             chunk({}, "STOP")]
    loaded = load_bytes("vertex.jsonl", "\n".join(json.dumps(x) for x in lines).encode())
    [problem] = [p for r in loaded.reads for s in r.streams for p in s.problems]
    assert problem.chunk == 1 and "deeper than 190 levels" in problem.message and len(problem.message) < 300
    [call] = [p for t in loaded.conversations[0].turns for p in t.parts if isinstance(p, Invocation)]
    assert call.arguments == {}
    assert jsonio.dumps(call.arguments) == b"{}"


def test_ensure_depth_takes_scalars():
    jsonio.ensure_depth("text")
    jsonio.ensure_depth(7, "", 1)
    with pytest.raises(TooDeep):
        jsonio.ensure_depth(7, "", 0)


def test_streamed_arguments_of_5000_digits_are_judged_without_a_crash():
    """TD502 asks how many JSON values the assembled arguments hold; the standard library refuses
    to read an integer of more than 4,300 digits (ValueError) — an invalid-arguments finding, not
    a rule that cannot run."""
    def chunk(delta: dict, finish: str | None = None) -> str:
        return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [
            {"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"

    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": "1" * 5000}}
    sse = chunk({"role": "assistant", "tool_calls": [call]}) + chunk({}, "tool_calls") + "data: [DONE]\n\n"
    loaded = load_bytes("s.sse", sse.encode())
    findings = run_checks(loaded)
    assert not loaded.errors and "TD502" in {f.code for f in findings}


def test_finding_messages_quote_log_values_on_one_bounded_line():
    """Found by the long fuzz run (seed 2025, inputs 15530, 21241, 25126): TD108, TD207 and TD101
    wrote a tool name, the declared tools' names or a result id into their message whole — a
    message of 100,000 characters and as many lines. Names and ids are shortened where they are
    quoted, and every message is one line of at most 1,000 characters when it is made."""
    huge = "line\n" * 20_000
    body = anthropic_request({"city": "Oslo"})
    body["tools"] = [{"name": "x" * 5000 + str(i), "input_schema": {"type": "object"}} for i in range(3)]
    call = body["messages"][1]["content"][0]
    call["id"], call["name"] = " ", huge  # TD108 (a blank id), TD207 (an undeclared tool)
    body["messages"][2]["content"][0]["tool_use_id"] = "orphan" + "\n" * 10_000  # TD101
    loaded = load_bytes("a.json", json.dumps(body).encode())
    findings = run_checks(loaded)
    assert {"TD101", "TD108", "TD207"} <= {f.code for f in findings}
    for finding in findings:
        assert "\n" not in finding.message and len(finding.message) <= 1100, finding


def test_errors_problems_and_losses_are_one_bounded_line_when_made():
    from tooldbg.errors import InputError
    from tooldbg.formats.base import StreamProblem
    from tooldbg.model import Loss

    for made in (FormatError("a\n" * 10_000), InputError("f", "", "b\n" * 10_000),
                 StreamProblem("other", "c\n" * 10_000), Loss("d\n" * 10_000)):
        assert "\n" not in made.message and len(made.message) < 1100


@pytest.mark.parametrize("kept", [3.5, ["x"], "id"])
def test_a_canonical_file_with_format_details_of_the_wrong_type_still_converts(kept):
    """Found by the long fuzz run (seed 2025, input 56374): a canonical document whose text part
    kept `{"openai-responses": {"message": 3.5}}` ended the Responses writer in a TypeError. A
    canonical file is the storage format users keep (and edit): details of the wrong shape are
    ignored by the writer that owns them."""
    doc = {"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "turns": [
        {"role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "parts": [{"type": "text", "text": "hello",
                                         "meta": {"openai-responses": {"message": kept}}}]}]}]}
    [conv] = load_bytes("c.json", json.dumps(doc).encode()).conversations
    body = export([conv], "openai-responses").body
    assert body["input"][-1]["content"][0]["text"] == "hello"


@pytest.mark.parametrize("kept", [3.5, ["x"], "id"])
def test_format_details_of_the_wrong_type_are_ignored_by_the_target_rules_and_writers(kept, monkeypatch):
    """Found by the long fuzz run (seed 33, inputs 39341 and 53731): a canonical document whose
    reasoning detail kept a list for its `type` ended the OpenAI Chat writer (mistral, deepseek) in
    a TypeError, and calls and signature carriers whose format details were not objects stopped
    TD805 ("rule TD805 could not run") under --target. Details of the wrong shape are ignored."""
    from tooldbg.checks import select_rules

    monkeypatch.delenv("TOOLDBG_DEBUG", raising=False)
    reasoning = {"type": "reasoning", "summary": ["Look it up."], "origin": "openai-chat",
                 "meta": {"openai-chat": {"field": "reasoning_details", "type": [kept], "index": 0}}}
    doc = {"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "model": "gemini-3-pro", "turns": [
        {"role": "user", "parts": [{"type": "text", "text": "Where is my order?"}]},
        {"role": "assistant", "parts": [
            reasoning,
            {"type": "reasoning", "signature": "c2ln", "origin": "gemini", "meta": {"gemini": kept}},
            {"type": "invocation", "id": "i1", "name": "get_order", "arguments": {},
             "meta": {"openai-responses": kept, "gemini": kept}}]},
        {"role": "tool", "parts": [{"type": "result", "invocation_id": "i1",
                                    "content": [{"type": "text", "text": "shipped"}]}]}]}]}
    data = json.dumps(doc).encode()
    for target in ("openai-chat", "mistral", "deepseek"):
        [conv] = load_bytes("c.json", data).conversations
        message = export([conv], target, allow_blanks=True).body["messages"][1]
        assert message["reasoning_details"][0] == {
            "type": "reasoning.summary", "summary": "Look it up.", "index": 0}, target
    for target in ("openai-responses", "gemini"):
        loaded = load_bytes("c.json", data)
        run_checks(loaded, select_rules(target=target), target)
        assert not loaded.errors, (target, loaded.errors)


def test_a_lone_surrogate_escape_is_read_as_a_replacement_character_not_a_lost_file():
    """Found by the property fuzz run (seed 37, input 1798): a recording whose one body held a
    lone surrogate escape (`"\\ud83d"`: a string cut between the halves of a pair, as JavaScript's
    JSON.stringify writes it) could not be read at all — orjson refuses it, though it is JSON
    (RFC 8259 §8.2) — while the same recording laid out again lost only that body. Every parse
    now reads it, each lone surrogate made U+FFFD as tooldbg writes one; NaN is still refused."""
    lines = (paths.SAMPLES / "anthropic" / "parallel-calls.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    records[0]["request"]["body"]["messages"][0]["content"] = "Weather in Oslo? \ud83d"

    def recording(ascii_bodies: bool) -> str:
        """The records as a recording, its bodies as strings: with `ascii_bodies` a body holds the
        escape (the file `\\\\ud83d`), else the character itself (the file the escape `\\ud83d`)."""
        return json.dumps({"version": 1, "interactions": [
            {"request": {"method": "POST", "url": r["request"]["url"],
                         "body": json.dumps(r["request"]["body"], ensure_ascii=ascii_bodies)},
             "response": {"status": 200, "body": json.dumps(r["response"]["body"])}} for r in records]})

    for name, data, escape in (("r.json", recording(False), '? \\ud83d\\"'),
                               ("r.json", recording(True), '? \\\\ud83d\\"'),
                               ("r.jsonl", "".join(json.dumps(r) + "\n" for r in records), '? \\ud83d"')):
        assert escape in data
        loaded = load_bytes(name, data.encode())
        assert loaded.errors == [] and len(loaded.reads) == len(records), name
        first = loaded.conversations[0].turns[0].parts[0].text
        assert first == "Weather in Oslo? \ufffd\ufffd\ufffd", name
        document = export(loaded.conversations, "canonical").text(redact=False)
        assert load_bytes("back.json", document.encode()).conversations == loaded.conversations
    assert jsonio.try_loads('{"city": "Oslo \\ud83d"}') == (True, {"city": "Oslo \ufffd\ufffd\ufffd"})
    with pytest.raises(FormatError, match="no low surrogate"):
        jsonio.loads('["\\ud83d", NaN]')


def test_a_canonical_file_with_a_100000_line_pointer_and_id_shows_in_bounded_output(tmp_path, capsys):
    """Found by the long fuzz run (seed 2025, input 51975): a canonical document whose turn source
    pointer held 100,000 line breaks took `show` 24 s (rich split the title line by line). Where a
    node came from, and a conversation's id, are cut to one line before they are drawn."""
    doc = {"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "turns": [
        {"role": "user", "parts": [{"type": "text", "text": "hi"}],
         "source": {"file": "x", "exchange": 0, "side": "request", "pointer": "/" + "\n" * 100_000}},
        {"role": "assistant", "parts": [{"type": "invocation", "id": "i1", "name": "f", "arguments": {}}]}]}]}
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    for command in (["show", "--width", "100"], ["check"]):
        code, out, err = run(capsys, *command, str(path))
        assert code in (0, 1) and len(out.splitlines()) < 60 and len(out) < 20_000, (command, len(out))
    # A conversation id names it on the command line, in file names and on screen: one short line.
    doc["conversations"][0]["id"] = "c1" + "\n" * 50_000
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "show", str(path))
    line = one_line_error(err, str(path))
    assert code == 2 and "/conversations/0/id: a conversation id is one line" in line


@pytest.mark.parametrize("guess", [jsonio._ORJSON_3_LEVELS, 100, 1000])
def test_the_levels_orjson_prints_are_found_whatever_its_release(monkeypatch, guess):
    # The depth guard wraps a value in as many lists as orjson's printing limit leaves spare: that
    # limit is tried at orjson 3's value first and searched for when another release moved it.
    monkeypatch.setattr(jsonio, "_ORJSON_3_LEVELS", guess)
    monkeypatch.setattr(jsonio, "_PRINTED_LEVELS", [])
    levels = jsonio._printed_levels()
    assert jsonio._prints(levels) and not jsonio._prints(levels + 1)


def test_a_string_never_closed_runs_to_the_end_of_the_search():
    """Found by the long fuzz run (seed 39, input 24890: no answer in 60 s): in a HAR whose quotes
    went out of step, every body's `\\"` read as an escape inside one string that never closed; the
    search for strings and brackets failed at the end and began again at the next bracket, once per
    bracket (15 s for 86 kB). A string never closed is now one token to the end, in both searches,
    and the HAR gives the error a whole parse gives, at once."""
    from tooldbg.records.entries import STRING_OR_BRACKET

    data = b'[{"a": 1}, "open \\" [ {\\"b\\": 2} ] }'
    assert [m.group() for m in STRING_OR_BRACKET.finditer(data)] == [
        b"[", b"{", b'"a"', b"}", b'"open \\" [ {\\"b\\": 2} ] }']
    assert [m.group() for m in jsonio._TOKENS.finditer(data)] == [
        b"[", b"{", b'"a"', b":", b"}", b",", b'"open \\" [ {\\"b\\": 2} ] }']
    body = json.dumps({"messages": [{"role": "user", "content": "x"}]})
    entry = {"request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                         "postData": {"mimeType": "application/json", "text": body}}}
    text = json.dumps({"log": {"version": "1.2", "entries": [entry, entry]}})
    broken = text.replace('\\"role', '"role', 1).encode()  # (one quote out of step)
    loaded = load_bytes("x.har", broken)
    with pytest.raises(FormatError) as whole:
        jsonio.loads(broken)
    assert [e.message for e in loaded.errors] == [whole.value.message]
