"""The canonical model: its JSON form reads back equal, and linking binds results to calls."""

import pickle
from dataclasses import fields

import pytest
from hypothesis import given, settings

from tests.strategies import conversations
from tooldbg.constructors import constructor, new_invocation, new_result, new_text, new_turn
from tooldbg.errors import FormatError
from tooldbg.formats.reading import link
from tooldbg.jsonio import dumps, loads
from tooldbg.model import (
    CANONICAL_FORMAT,
    PART_TYPES,
    Conversation,
    Invocation,
    Media,
    Opaque,
    Reasoning,
    Result,
    Text,
    Tool,
    ToolChoice,
    Turn,
    conversation_to_dict,
    document,
    read_document,
)
from tooldbg.source import Source


def test_document_shape_is_documented_form():
    conv = Conversation(turns=link([
        Turn(role="user", parts=(Text(text="Weather in Oslo?"),)),
        Turn(role="assistant", parts=(Invocation(name="get_weather", arguments={"city": "Oslo"},
                                                 wire_id="call_1"),)),
        Turn(role="tool", parts=(Result(wire_id="call_1", content=(Text(text="12C"),)),)),
    ]))
    assert document([conv], sources=False) == {
        "format": CANONICAL_FORMAT,
        "conversations": [{
            "id": "c1", "system": [], "tools": [],
            "turns": [
                {"role": "user", "parts": [{"type": "text", "text": "Weather in Oslo?"}]},
                {"role": "assistant", "parts": [{"type": "invocation", "id": "i1", "name": "get_weather",
                                                 "arguments": {"city": "Oslo"}, "wire_id": "call_1"}]},
                {"role": "tool", "parts": [{"type": "result", "invocation_id": "i1", "is_error": False,
                                            "wire_id": "call_1", "name": "get_weather",
                                            "content": [{"type": "text", "text": "12C"}]}]},
            ]}],
    }


@settings(max_examples=100, deadline=None)
@given(conversations(reasoning_origin="anthropic"))
def test_canonical_json_reads_back_equal(conv):
    back = read_document(loads(dumps(document([conv]))))
    assert back == [conv]


@pytest.mark.parametrize("choice", [ToolChoice(mode=""), ToolChoice(mode="tool", name=""),
                                    ToolChoice(mode="auto", parallel=False)])
def test_empty_values_read_back_as_they_were_not_as_absent(choice):
    """An empty string or object the log held is not a missing field: an OpenAI `tool_choice: ""`
    read back as auto, an opaque part's `origin: ""` left out (and the document then refused), an
    empty call id (TD108) dropped — each changed the conversation on its way through the file."""
    conv = Conversation(
        tools=(Tool(name="f", description="", parameters={}, origin="", raw={}),), tool_choice=choice,
        turns=link([
            Turn(role="user", parts=(Text(text=""), Media(kind="", media_type="", data="", url="", file_id=""))),
            Turn(role="assistant", parts=(Reasoning(signature="", redacted="", origin="", wire_id=""),
                                          Invocation(name="", arguments={}, raw_arguments="", wire_id=""),
                                          Opaque(origin="", value={}))),
            Turn(role="tool", parts=(Result(wire_id="", name="", content=(Text(text=""),)),)),
        ]))
    assert read_document(loads(dumps(document([conv])))) == [conv]


def test_sources_survive_the_json_form_but_not_equality():
    src = Source(file="run.har", exchange=1, side="request",
                 location="/log/entries/1/request/postData/text", pointer="/messages/0")
    conv = Conversation(turns=(Turn(role="user", parts=(Text(text="hi", source=src),), source=src),))
    back = read_document(loads(dumps(document([conv]))))[0]
    assert back.turns[0].parts[0].source == src
    assert back.turns[0].source.address == "/log/entries/1/request/postData/text#/messages/0"
    assert Text(text="hi", source=src) == Text(text="hi")


def test_invalid_arguments_keep_the_raw_string():
    part = Invocation(name="f", raw_arguments='{"city": "Par')
    data = conversation_to_dict(Conversation(turns=link([Turn(role="assistant", parts=(part,))])))
    assert data["turns"][0]["parts"][0] == {"type": "invocation", "id": "i1", "name": "f",
                                            "arguments": None, "raw_arguments": '{"city": "Par'}


@pytest.mark.parametrize("doc, pointer", [
    ({"format": CANONICAL_FORMAT, "conversations": [{"turns": [{"role": "robot"}]}]},
     "/conversations/0/turns/0"),
    ({"format": CANONICAL_FORMAT, "conversations": [{"turns": [{"role": "user",
                                                                "parts": [{"type": "x"}]}]}]},
     "/conversations/0/turns/0/parts/0/type"),
    # a type that is not a string (unhashable, even) is an unknown type too, not a TypeError
    ({"format": CANONICAL_FORMAT, "conversations": [{"turns": [{"role": "user",
                                                                "parts": [{"type": ["text"]}]}]}]},
     "/conversations/0/turns/0/parts/0/type"),
    ({"format": CANONICAL_FORMAT, "conversations": {}}, "/conversations"),
])
def test_bad_canonical_documents_name_the_location(doc, pointer):
    with pytest.raises(FormatError) as err:
        read_document(doc)
    assert err.value.pointer == pointer


def test_link_numbers_calls_in_order_and_binds_by_wire_id_then_by_name():
    turns = link([
        Turn(role="assistant", parts=(Invocation(name="a", wire_id="x"), Invocation(name="b", wire_id="y"))),
        Turn(role="tool", parts=(Result(wire_id="y"), Result(wire_id="x"), Result(wire_id="nope"))),
        Turn(role="assistant", parts=(Invocation(name="w"), Invocation(name="w"))),
        Turn(role="tool", parts=(Result(name="w"), Result(name="w"), Result(name="w"))),
    ])
    assert [p.id for t in turns for p in t.invocations()] == ["i1", "i2", "i3", "i4"]
    assert [r.invocation_id for r in turns[1].results()] == ["i2", "i1", None]
    assert [r.invocation_id for r in turns[3].results()] == ["i3", "i4", None]


def test_link_continues_numbering_after_prior_turns():
    prior = link([Turn(role="assistant", parts=(Invocation(name="a", wire_id="x"),))])
    later = link([Turn(role="tool", parts=(Result(wire_id="x"),)),
                  Turn(role="assistant", parts=(Invocation(name="b"),))], prior=prior)
    assert later[0].parts[0].invocation_id == "i1"
    assert later[1].parts[0].id == "i2"


def test_a_source_below_another_escapes_each_token_and_keeps_the_rest():
    """Pointers name wire keys as RFC 6901 spells them: `~` and `/` inside a key are escaped; an
    index is its number. `at` swaps the pointer and keeps the chunk unless given another."""
    src = Source(file="log.har", exchange=3, side="request", location="/log/entries/3", pointer="/a",
                 chunk=7)
    child = src.child("messages", 12, "tool~name/x", "plain")
    assert child.pointer == "/a/messages/12/tool~0name~1x/plain"
    assert (child.file, child.exchange, child.side, child.location, child.chunk) == \
        ("log.har", 3, "request", "/log/entries/3", 7)
    assert src.at("/b") == Source(file="log.har", exchange=3, side="request",
                                  location="/log/entries/3", pointer="/b", chunk=7)
    assert src.at("/b", 2).chunk == 2 and src.at("/b").pointer == "/b"


def test_a_source_below_another_is_the_source_made_with_its_values():
    """`child` makes its sources its own cheaper way: they compare, hash, print and pickle as the
    source made with the same values."""
    src = Source(file="log.har", exchange=3, side="request", location="/log/entries/3", pointer="/a")
    below = src.child(0).child("content")
    made = Source(file="log.har", exchange=3, side="request", location="/log/entries/3",
                  pointer="/a/0/content")
    assert below == made and made == below and hash(below) == hash(made) and repr(below) == repr(made)
    assert pickle.loads(pickle.dumps(below)) == made and isinstance(below, Source)


@settings(max_examples=50)
@given(conversations())
def test_a_constructor_makes_the_node_its_class_makes(conv):
    """`constructor(cls)` takes the class's keywords and defaults and sets every field."""
    source = Source(file="log.har", pointer="/messages/0")
    nodes = [conv, *conv.system, *conv.tools, *conv.turns, *(p for t in conv.turns for p in t.parts)]
    for node in nodes:
        values = {f.name: source if f.name == "source" else getattr(node, f.name) for f in fields(node)}
        made = constructor(type(node))(**values)
        assert type(made) is type(node) and made == node and repr(made) == repr(node)
        assert all(getattr(made, k) is v for k, v in values.items())
    required = {Text: {"text": "a"}, Invocation: {"name": "f"}, Opaque: {"origin": "x"},
                Turn: {"role": "user"}, Tool: {"name": "f"}}
    for cls in (*PART_TYPES.values(), Turn, Tool, Conversation):
        made, expected = constructor(cls)(**required.get(cls, {})), cls(**required.get(cls, {}))
        assert [getattr(made, f.name) for f in fields(cls)] == [getattr(expected, f.name) for f in fields(cls)]
        assert made.meta is expected.meta


@settings(max_examples=50)
@given(conversations())
def test_a_constructor_in_order_makes_the_node_its_class_makes(conv):
    """`in_order`'s constructors take their fields in the order they declare, by position or by keyword,
    with the fields' defaults, and set every field."""
    made_by = {Text: new_text, Invocation: new_invocation, Result: new_result, Turn: new_turn}
    source = Source(file="log.har", pointer="/messages/0")
    nodes = [*conv.turns, *(p for t in conv.turns for p in t.parts)]
    for node in (n for n in nodes if type(n) in made_by):
        made = made_by[type(node)]
        order = made.__code__.co_varnames[:made.__code__.co_argcount]
        values = {name: source if name == "source" else getattr(node, name) for name in order}
        for built in (made(*values.values()), made(**values)):
            assert type(built) is type(node) and built == node and repr(built) == repr(node)
            assert all(getattr(built, k) is v for k, v in values.items())
    for cls, required in ((Text, {"text": "a"}), (Invocation, {"name": "f"}), (Result, {}), (Turn, {"role": "user"})):
        built, expected = made_by[cls](**required), cls(**required)
        assert [getattr(built, f.name) for f in fields(cls)] == [getattr(expected, f.name) for f in fields(cls)]
        assert built.meta is expected.meta
