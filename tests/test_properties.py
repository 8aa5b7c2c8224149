"""Cross-format properties: F → G → F keeps everything both can express, and loading arbitrary
bytes never raises — bad input becomes a located error."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import WIRE_FORMATS, changed_regions, conversations
from tooldbg import formats
from tooldbg.model import Conversation
from tooldbg.source import Source


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
    named = {loss.turn for loss in (*losses_there, *losses_back) if loss.turn is not None}
    unexplained = [sorted(r) for r in changed_regions(start, back) if not r & named]
    assert not unexplained, f"{origin} → {via} → {origin} changed turns {unexplained} without a loss"
