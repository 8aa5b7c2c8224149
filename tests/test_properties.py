"""Cross-format properties: F → G → F keeps everything both can express, and loading arbitrary
bytes never raises — bad input becomes a located error."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import WIRE_FORMATS, conversations, differences
from tooldbg import formats
from tooldbg.errors import InputError
from tooldbg.load import load_bytes
from tooldbg.model import Conversation, Source


def through(conv: Conversation, target: str):
    written = formats.get(target).write(conv)
    request = formats.get(target).read_request(written.body, Source())
    back = Conversation(model=conv.model, system=request.system, tools=request.tools,
                        tool_choice=request.tool_choice, turns=request.turns)
    return back, written.losses


PAIRS = [(f, g) for f in WIRE_FORMATS for g in WIRE_FORMATS if f != g]


@pytest.mark.parametrize("origin, via", PAIRS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_format_to_format_and_back_keeps_what_both_express(origin, via, data):
    conv = data.draw(conversations(reasoning_origin=origin))
    # Start from what `origin` itself carries, so only `via` can lose something.
    start, _ = through(conv, origin)
    there, losses_there = through(start, via)
    back, losses_back = through(there, origin)
    changed, _ = differences(start, back)
    named = {loss.turn for loss in (*losses_there, *losses_back) if loss.turn is not None}
    assert changed <= named, (
        f"{origin} → {via} → {origin} changed turns {sorted(changed - named)} without a loss")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_loading_arbitrary_bytes_never_raises(data):
    loaded = load_bytes("fuzz.bin", data)
    assert all(isinstance(err, InputError) for err in loaded.errors)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1), st.text(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(
                                ["messages", "contents", "input", "role", "content", "type",
                                 "tool_calls", "parts", "choices", "candidates", "output",
                                 "request", "response", "body", "log", "entries", "interactions"]),
                                inner, max_size=4)),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_loading_arbitrary_json_never_raises(value):
    import orjson

    loaded = load_bytes("fuzz.json", orjson.dumps(value))
    assert all(isinstance(err, InputError) for err in loaded.errors)
