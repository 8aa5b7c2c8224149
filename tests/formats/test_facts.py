"""One home per provider fact: every registered format declares a complete `Facts` record, the
record is true of the format's own writer, reader and samples, and no module outside
`tooldbg/formats/` (and `targets.py`, the pre-flight tables) keeps a table of formats of its own.

Adding a provider format is one module with its `FACTS`, plus its rows in `targets.py` (and its
samples): these tests fail until every fact is declared and agrees with the module."""

from __future__ import annotations

import ast
import dataclasses
import types
from collections.abc import Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

from tests.paths import ROOT, SAMPLES
from tooldbg import formats, targets
from tooldbg.formats import catalog
from tooldbg.formats.base import Facts
from tooldbg.formats.reading import link
from tooldbg.jsonio import loads, resolve
from tooldbg.load import load_file
from tooldbg.model import Conversation, Invocation, Media, Result, Text, Tool, Turn
from tooldbg.source import Source

NAMES = list(formats.FORMATS)
HINTS = get_type_hints(Facts)
ARGUMENTS = {"city": "Oslo", "days": 2}


def _valid(value: Any, hint: Any) -> bool:
    """Is `value` a meaningful value of the field type `hint` (no empty strings or tuples)?"""
    origin = get_origin(hint)
    if origin is Literal:
        return value in get_args(hint)
    if origin in (Union, types.UnionType):
        return any(_valid(value, arm) for arm in get_args(hint))
    if hint is type(None):
        return value is None
    if origin in (Mapping, dict):  # a mapping may be empty (a format without such a field)
        key, item = get_args(hint)
        return isinstance(value, Mapping) and all(_valid(k, key) and _valid(v, item) for k, v in value.items())
    if hint is Any:
        return True
    if origin is tuple:
        args = get_args(hint)
        if args[-1] is not Ellipsis:  # a fixed-size tuple: (low, high)
            return isinstance(value, tuple) and len(value) == len(args) and all(map(_valid, value, args))
        return isinstance(value, tuple) and bool(value) and all(_valid(v, args[0]) for v in value)
    if hint is bool:
        return type(value) is bool
    if hint is int:
        return type(value) is int
    if hint is float:
        return type(value) is float
    if hint is str:
        return isinstance(value, str) and value.strip() != ""
    raise AssertionError(f"no check for a field of type {hint}: add one to _valid")


def _conversation() -> Conversation:
    """A user question, a call beside text, its failed result, the answer."""
    turns = link((
        Turn(role="user", parts=(Text(text="Weather in Oslo?"),)),
        Turn(role="assistant", parts=(
            Text(text="Checking."),
            Invocation(name="get_weather", arguments=ARGUMENTS, wire_id="call_1"))),
        Turn(role="tool", parts=(
            Result(wire_id="call_1", name="get_weather", content=(Text(text="Error: timed out"),),
                   is_error=True),)),
        Turn(role="assistant", parts=(Text(text="The weather service timed out."),)),
    ))
    tool = Tool(name="get_weather", description="Weather for a city",
                parameters={"type": "object", "properties": {"city": {"type": "string"},
                                                             "days": {"type": "integer"}}})
    return Conversation(model="m", tools=(tool,), turns=turns)


def _written(name: str) -> tuple[dict[str, Any], list[Turn]]:
    """The conversation written by `name`'s writer, and that body read back by its reader."""
    module = formats.get(name)
    body = module.write(_conversation()).body
    return body, list(module.read_request(body, Source(side="request")).turns)


# ------------------------------------------------------------------------- declared, complete


@pytest.mark.parametrize("name", NAMES)
def test_every_format_declares_its_facts(name):
    module = formats.get(name)
    assert isinstance(getattr(module, "FACTS", None), Facts), f"{module.__name__} declares no FACTS"
    assert module.FACTS.name == module.NAME == name
    assert formats.facts(name) is module.FACTS


def test_no_fact_has_a_default():
    """A new field has to be answered by every format, not defaulted for them."""
    for f in dataclasses.fields(Facts):
        assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING, f.name


@pytest.mark.parametrize("name", NAMES)
def test_every_fact_has_a_valid_value(name):
    facts = formats.facts(name)
    for f in dataclasses.fields(Facts):
        value = getattr(facts, f.name)
        assert _valid(value, HINTS[f.name]), f"{name}: {f.name} = {value!r} is not a {HINTS[f.name]}"
    assert facts.finish_pointer.startswith("/")
    assert (facts.failure_wording is None) == (facts.failure == "text"), \
        "a format that marks failures says how; one that cannot has no wording"


def test_names_are_unique_and_orders_distinct():
    declared = [formats.facts(n) for n in NAMES]
    assert len({f.name for f in declared}) == len(declared)
    assert len({f.order for f in declared}) == len(declared)


def test_the_catalog_holds_the_facts_of_every_registered_format():
    # `formats.catalog` is what the writers' shared steps read another format's facts from (the
    # registry imports the writers): a format registered there but not here would go unreported.
    assert dict(catalog.FACTS) == {name: module.FACTS for name, module in formats.FORMATS.items()}


def test_wire_formats_is_every_format_in_display_order():
    assert sorted(formats.WIRE_FORMATS) == sorted(NAMES)
    orders = [formats.facts(n).order for n in formats.WIRE_FORMATS]
    assert orders == sorted(orders)


@pytest.mark.parametrize("name", NAMES)
def test_every_format_has_its_target_table(name):
    """`targets.py` rows are the other half of a format; their pairing agrees with the facts."""
    table = targets.table(name)
    assert table is not None and table.pairing is not None, f"no targets.py table for {name}"
    facts = formats.facts(name)
    assert facts.strict_pairing == (table.pairing.scope == "next")
    assert facts.calls_last or not table.pairing.calls_last


# ----------------------------------------------------------------- true of the format's module


@pytest.mark.parametrize("name", NAMES)
def test_messages_key_is_where_the_writer_puts_the_messages(name):
    key = formats.facts(name).messages_key
    body, turns = _written(name)
    assert isinstance(body.get(key), list) and body[key], f"{name} writes no list under {key!r}"
    assert turns
    for turn in turns:
        assert turn.source.pointer.startswith(f"/{key}/"), (name, turn.source.pointer)


@pytest.mark.parametrize("name", NAMES)
def test_arguments_are_where_and_as_the_facts_say(name):
    facts = formats.facts(name)
    body, turns = _written(name)
    calls = [p for t in turns for p in t.parts if isinstance(p, Invocation)]
    assert len(calls) == 1
    value: Any = resolve(body, calls[0].source.pointer)
    for key in facts.arguments_path:
        assert isinstance(value, dict) and key in value, (name, calls[0].source.pointer, key)
        value = value[key]
    if facts.arguments == "string":
        assert isinstance(value, str) and loads(value) == ARGUMENTS
    else:
        assert value == ARGUMENTS


@pytest.mark.parametrize("name", NAMES)
def test_call_ids_are_under_the_keys_the_facts_name(name):
    """The writer puts the call's id and the result's reference under the declared keys (a format
    with optional ids declares none); without them the reader keeps the call id-less, invents none."""
    keys = formats.facts(name).call_id_keys
    body, turns = _written(name)
    [call] = [p for t in turns for p in t.parts if isinstance(p, Invocation)]
    [result] = [p for t in turns for p in t.parts if isinstance(p, Result)]
    if keys is None:
        return
    call_key, result_key = keys
    assert _holds(resolve(body, call.source.pointer), call_key, call.wire_id), (name, call_key)
    assert _holds(resolve(body, result.source.pointer), result_key, call.wire_id), (name, result_key)
    _drop(body, {call_key, result_key}, call.wire_id)
    read = [p for t in formats.get(name).read_request(body, Source(side="request")).turns for p in t.parts]
    [bare_call] = [p for p in read if isinstance(p, Invocation)]
    [bare_result] = [p for p in read if isinstance(p, Result)]
    assert (bare_call.wire_id, bare_result.wire_id) == (None, None), name
    assert bare_result.invocation_id == bare_call.id, f"{name}: the id-less result pairs by position"


def _drop(node: Any, keys: set[str], value: Any) -> None:
    """Remove every `key: value` of `keys` from the objects in `node`."""
    if isinstance(node, dict):
        for key in [k for k in node if k in keys and node[k] == value]:
            del node[key]
        node = list(node.values())
    if isinstance(node, list):
        for item in node:
            _drop(item, keys, value)


_WRITTEN_TEXT_AND_IMAGE = {"openai-chat": {"text", "image_url"}, "openai-responses": {"input_text", "input_image"},
                           "gemini": {"text", "inlineData"}}


@pytest.mark.parametrize("name", NAMES)
def test_content_blocks_cover_what_the_writer_writes(name):
    """Every block the format's own writer puts in a content array (an image, text, a call and its
    result where they are blocks) has a type the facts declare, or, in a union-keyed format, one of its members
    and no `type`: TD404 never reports the format's own blocks."""
    facts = formats.facts(name)
    assert (facts.content_types is None) != (facts.content_members is None), name
    conv = _conversation()
    asked = Turn(role="user", parts=(Text(text="And this one?"), Media(kind="image", media_type="image/png",
                                                                      data="iVBORw0KGgo=")))
    body = formats.get(name).write(dataclasses.replace(conv, turns=(*conv.turns, asked))).body
    blocks = list(_blocks(body[facts.messages_key]))
    if facts.content_types is not None:
        written = [b["type"] for b in blocks if isinstance(b.get("type"), str)]
        assert [t for t in written if not any(fnmatchcase(t, p) for p in facts.content_types)] == [], name
    else:
        assert [b for b in blocks if "type" in b or not set(b) & set(facts.content_members or ())] == []
        written = [key for b in blocks for key in b if key in (facts.content_members or ())]
    assert _WRITTEN_TEXT_AND_IMAGE.get(name, {"text", "image"}) <= set(written), written


def _blocks(messages: list[Any]) -> Any:
    """The blocks of each message's `content` (Gemini: `parts`), a tool result's own included."""
    for message in messages:
        content = message.get("parts", message.get("content")) if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict):
                yield block
                result = block.get("toolResult")
                yield from _blocks([result if isinstance(result, dict) else block])


@pytest.mark.parametrize("name", NAMES)
def test_failure_is_marked_as_the_facts_say(name):
    """A flag or an error key survives writing and reading back; a text format has neither. A flag's
    wording is the wire's own `key: value`."""
    facts = formats.facts(name)
    body, turns = _written(name)
    [result] = [p for t in turns for p in t.parts if isinstance(p, Result)]
    assert result.is_error == (facts.failure != "text")
    if facts.failure == "flag":
        assert facts.failure_wording is not None
        key, _, value = facts.failure_wording.partition(": ")
        assert _holds(resolve(body, result.source.pointer), key, loads(value)), (name, key, value)


def _holds(node: Any, key: str, value: Any) -> bool:
    """Does an object in `node` (itself or a nested one) have `key` set to `value`?"""
    if isinstance(node, dict):
        return node.get(key) == value or any(_holds(v, key, value) for v in node.values())
    return isinstance(node, list) and any(_holds(v, key, value) for v in node)


@pytest.mark.parametrize("name", NAMES)
def test_finish_pointer_is_where_the_reader_finds_the_finish_reason(name):
    """In every sample response of the format, plain or assembled from a stream."""
    pointer = formats.facts(name).finish_pointer
    checked = 0
    for path in sorted((SAMPLES / name).iterdir()):
        for read in load_file(path).reads:
            if read.format != name:
                continue
            for k, response in enumerate(read.responses):
                if response.turn is None:
                    continue
                if read.streams:
                    body = read.streams[k].body
                else:
                    assert read.exchange.response is not None
                    body = read.exchange.response.body
                assert resolve(body, pointer) == response.finish_reason, (path.name, k)
                checked += response.finish_reason is not None
    assert checked, f"no sample response of {name} has a finish reason"


# ------------------------------------------------------------------ no tables outside formats/

#: Where format names may be listed together: the formats' own package, and the pre-flight tables.
ALLOWED = (ROOT / "tooldbg" / "formats", ROOT / "tooldbg" / "targets.py")
#: Where they may not: the package, the scripts, and the strategies every format test draws from.
SCANNED = (ROOT / "tooldbg", ROOT / "scripts", ROOT / "tests" / "strategies.py")


def format_tables(source: str, names: set[str]) -> list[tuple[int, list[str]]]:
    """(line, names) of every tuple, list, set or dict literal naming two or more formats."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            items = [*node.keys, *node.values]
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = node.elts
        else:
            continue
        named = [i.value for i in items if isinstance(i, ast.Constant) and i.value in names]
        if len(named) >= 2:
            found.append((node.lineno, named))
    return found


def _sources() -> list[Path]:
    files = []
    for root in SCANNED:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            if not any(path == allowed or allowed in path.parents for allowed in ALLOWED):
                files.append(path)
    return files


def test_the_scan_finds_a_table_of_formats():
    names = set(NAMES)
    assert format_tables('STRICT = frozenset({"openai-chat", "anthropic"})', names) == \
        [(1, ["openai-chat", "anthropic"])]
    assert format_tables('KEYS = {"gemini": "contents", "bedrock": "messages"}', names)
    assert format_tables('if fmt in ("anthropic", "bedrock"):\n    pass', names)
    assert format_tables('x = ["bedrock", "gemini"]', names)
    assert not format_tables('if fmt == "anthropic":\n    pass', names)
    assert not format_tables('PROFILES = {"mistral": "openai-chat"}', names)


def test_the_scan_covers_the_code_that_read_format_tables():
    scanned = {p.relative_to(ROOT).as_posix() for p in _sources()}
    assert {"tooldbg/reserialize.py", "tooldbg/checks/structure.py", "tooldbg/checks/replay.py",
            "tooldbg/checks/rules/td405_text_after_call.py", "tooldbg/tui/widgets/wire_view.py",
            "tests/strategies.py"} <= scanned
    assert not any(s.startswith("tooldbg/formats/") or s == "tooldbg/targets.py" for s in scanned)


def test_no_module_outside_formats_keeps_a_table_of_formats():
    names = set(NAMES)
    tables = [f"{path.relative_to(ROOT)}:{line}: {', '.join(found)}"
              for path in _sources() for line, found in format_tables(path.read_text(), names)]
    assert not tables, "read formats.facts(name) instead of listing formats:\n" + "\n".join(tables)
