"""`wirejson.pretty`: JSON laid out exactly as orjson's two-space indent, with the line span of every
JSON pointer — what the wire view highlights and scrolls to."""

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import json_values
from tooldbg.jsonio import resolve
from tooldbg.source import escape_pointer
from tooldbg.wirejson import pretty, walk_pointers

BODY = {
    "model": "claude-sonnet-4-5",
    "messages": [
        {"role": "user", "content": "What is the weather in Oslo?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "503", "is_error": True}]},
    ],
    "tools": [],
    "metadata": {},
}


def test_layout_is_orjson_indent_2():
    laid = pretty(BODY)
    assert laid.text == orjson.dumps(BODY, option=orjson.OPT_INDENT_2).decode()


def test_a_pointer_spans_exactly_its_node():
    laid = pretty(BODY)
    first, last = laid.span("/messages/1/content/1")
    assert laid.lines[first].strip() == "{"
    assert laid.lines[last].strip() == "},"[: len(laid.lines[last].strip())]
    assert '"type": "tool_use"' in laid.lines[first + 1]
    assert '"city": "Oslo"' in "\n".join(laid.lines[first:last + 1])
    # a key's span starts on the line that names it
    first, last = laid.span("/messages/2/content/0/is_error")
    assert first == last and laid.lines[first].strip() == '"is_error": true'


def test_the_root_spans_everything_and_empty_containers_are_one_line():
    laid = pretty(BODY)
    assert laid.span("") == (0, len(laid.lines) - 1)
    first, last = laid.span("/tools")
    assert first == last and laid.lines[first].strip() == '"tools": [],'
    first, last = laid.span("/metadata")
    assert first == last and laid.lines[first].strip() == '"metadata": {}'


def test_a_missing_pointer_falls_back_to_its_nearest_ancestor():
    laid = pretty(BODY)
    assert laid.span("/messages/2/content/0/missing") == laid.span("/messages/2/content/0")
    assert laid.span("/messages/99") == laid.span("/messages")
    assert laid.span("messages/0") == laid.span("/messages/0")  # a missing leading slash
    assert pretty([]).span("/0") == (0, 0)


def test_keys_with_slash_and_tilde_are_escaped_in_pointers():
    value = {"a/b": {"c~d": 1}, "": 2}
    laid = pretty(value)
    assert laid.lines[laid.span("/a~1b/c~0d")[0]].strip() == '"c~d": 1'
    assert laid.lines[laid.span("/")[0]].strip() == '"": 2'


def test_a_pointer_is_resolved_token_by_token_as_rfc_6901_reads_it():
    """An empty key is a token too: `//a` is `a` inside the member named "" (every leading slash
    was stripped, and `//a` read as `/a`), as the wire view's spans have it."""
    value = {"": {"a": 1}, "a": 2, "Xb": 3, "a/b~": [4, 5]}
    assert resolve(value, "//a") == 1
    assert resolve(value, "/Xb") == 3 and resolve(value, "/a~1b~0/1") == 5
    assert resolve(value, "") is value and resolve(value, "/") == {"a": 1} and resolve(value, "/b") is None
    laid = pretty(value)
    first, last = laid.span("//a")
    assert laid.lines[first:last + 1] == ['    "a": 1']


def test_a_base_prefixes_every_pointer():
    laid = pretty([{"role": "user"}], "/messages")
    assert set(laid.spans) == {"/messages", "/messages/0", "/messages/0/role"}


def test_control_characters_and_newlines_stay_escaped_on_one_line():
    laid = pretty({"text": "line one\nline two \x1b[31mred\x1b[0m [bold]x[/bold]"})
    assert len(laid.lines) == 3
    assert "\\n" in laid.lines[1] and "\\u001b" in laid.lines[1] and "\x1b" not in laid.text


def test_deep_nesting_lays_out_without_recursion():
    value: object = 1
    for _ in range(5000):
        value = [value]
    laid = pretty(value)
    assert len(laid.lines) == 2 * 5000 + 1
    assert laid.span("/0" * 5000) == (5000, 5000)


def test_values_json_cannot_hold_degrade_instead_of_raising():
    laid = pretty({"big": 2**70, "nan": float("nan")})
    assert str(2**70) in laid.text


def test_pointer_at_finds_the_innermost_node():
    laid = pretty(BODY)
    line = laid.span("/messages/1/content/1/input/city")[0]
    assert laid.pointer_at(line) == "/messages/1/content/1/input/city"


@settings(max_examples=200, deadline=None)
@given(value=json_values)
def test_every_pointer_has_a_span_and_it_holds_its_value(value):
    laid = pretty(value)
    assert laid.text == orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    pointers = list(walk_pointers(value))
    assert set(pointers) == set(laid.spans)
    for pointer in pointers:
        first, last = laid.span(pointer)
        text = "\n".join(laid.lines[first:last + 1]).strip().rstrip(",")
        parent = resolve(value, pointer.rsplit("/", 1)[0]) if pointer else None
        if isinstance(parent, dict):  # drop the key the node's first line starts with
            key = next(k for k in parent if pointer.endswith("/" + escape_pointer(k)))
            head = orjson.dumps(key).decode() + ": "
            assert text.startswith(head)
            text = text[len(head):]
        assert orjson.loads(text) == resolve(value, pointer)


@given(st.lists(st.integers(), max_size=30))
def test_spans_of_siblings_follow_each_other(items):
    laid = pretty(items)
    spans = [laid.span(f"/{i}") for i in range(len(items))]
    assert [s[0] for s in spans] == list(range(1, len(items) + 1))
