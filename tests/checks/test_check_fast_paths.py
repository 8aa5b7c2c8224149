"""Fast paths in the checks give what the general path they skip gives: the schema validator's
plain-leaf test (`schema._plainly_fits`) and the pairing's one walk for calls and results
(`pairing.located`)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldbg.checks import schema
from tooldbg.checks.pairing import Located, located
from tooldbg.model import Conversation, Invocation, Reasoning, Result, Text, Turn

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-3, 3, allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=12)
TYPES = st.sampled_from(["string", "STRING", "integer", "number", "boolean", "object", "array", "null",
                         "Integer", "TYPE_UNSPECIFIED", "thing"])
WORDS = st.fixed_dictionaries({}, optional={"description": st.text(max_size=3), "title": st.just("t"),
                                            "format": st.just("date"), "default": JSON, "examples": JSON})
LEAF = st.one_of(
    st.builds(lambda words, kind: {**words, "type": kind}, WORDS, TYPES | st.lists(TYPES, max_size=2)),
    WORDS, st.booleans(), st.just({"type": "string", "minLength": 2}), st.just({"enum": [1, "a"]}),
    st.just({"type": "integer", "nullable": True}), st.just({"const": None}))
SCHEMAS = st.recursive(LEAF, lambda inner: st.one_of(
    st.builds(lambda props, req, extra: {"type": "object", "properties": props, "required": req,
                                         "additionalProperties": extra},
              st.dictionaries(st.sampled_from("abc"), inner, max_size=3), st.lists(st.sampled_from("abc"), max_size=2),
              st.booleans() | inner),
    st.builds(lambda items: {"type": "array", "items": items}, inner),
    st.builds(lambda alts: {"anyOf": alts}, st.lists(inner, min_size=1, max_size=2))), max_leaves=8)


@settings(max_examples=200)
@given(JSON, SCHEMAS)
def test_a_plain_fit_is_what_check_finds_nothing_in(value, node):
    if schema._plainly_fits(value, node):
        assert list(schema._Validator(node).check(value, node, (), 0)) == []


def _general(value, node, limit):
    """`validate` with the plain-leaf test switched off, and the budget it left."""
    validator = schema._Validator(node)
    out = []
    for error in validator.check(value, node, (), 0):
        out.append(error)
        if len(out) >= limit:
            break
    return out, validator.budget


@settings(max_examples=200)
@given(JSON, SCHEMAS, st.integers(1, 3))
def test_validation_with_the_plain_fit_is_validation_without_it(value, node, limit):
    fast = schema._Validator(node)
    errors = []
    for error in fast.check(value, node, (), 0):
        errors.append(error)
        if len(errors) >= limit:
            break
    plain_fits, schema._plainly_fits = schema._plainly_fits, lambda value, node: False
    try:
        assert (errors, fast.budget) == _general(value, node, limit)
    finally:
        schema._plainly_fits = plain_fits
    assert schema.validate(value, node, limit=limit) == errors


PARTS = st.lists(st.sampled_from(["text", "call", "result", "reasoning"]), max_size=4)


def _part(kind, k):
    if kind == "call":
        return Invocation(id=f"i{k}", name="f", arguments={})
    if kind == "result":
        return Result(invocation_id=f"i{k}")
    if kind == "reasoning":
        return Reasoning(text="r")
    return Text(text="t")


@given(st.lists(PARTS, max_size=5))
def test_one_walk_finds_the_calls_and_results_two_walks_find(shape):
    conv = Conversation(turns=tuple(Turn(role="assistant", parts=tuple(_part(kind, k) for k, kind in enumerate(kinds)))
                                    for kinds in shape))
    calls, results = located(conv)
    every = [(t, p, part) for t, turn in enumerate(conv.turns) for p, part in enumerate(turn.parts)]
    assert calls == [Located(t, p, part) for t, p, part in every if isinstance(part, Invocation)]
    assert results == [Located(t, p, part) for t, p, part in every if isinstance(part, Result)]
    assert all(type(found) is Located for found in calls + results)

