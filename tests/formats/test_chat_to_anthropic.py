"""The shortcuts of the OpenAI Chat reader and the Anthropic writer give what their general paths
give: a tool result's id is its call's id as `Fitting` writes it, with the same loss."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import conversations, hostile_conversations
from tooldbg.formats import anthropic
from tooldbg.formats.writer import Fitting
from tooldbg.model import Conversation, Loss, Result

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _blanked(conv: Conversation, data: st.DataObject) -> Conversation:
    """`conv` with some results' wire ids dropped (a client that quotes none: its call's id is
    written for it, and said)."""
    turns = []
    for turn in conv.turns:
        parts = tuple(Result(invocation_id=p.invocation_id, content=p.content, is_error=p.is_error,
                             name=p.name, wire_id=None if data.draw(st.booleans()) else p.wire_id)
                      if type(p) is Result else p for p in turn.parts)
        turns.append(type(turn)(role=turn.role, parts=parts, meta=turn.meta))
    return Conversation(model=conv.model, tools=conv.tools, tool_choice=conv.tool_choice, turns=tuple(turns))


@PROPERTY
@given(st.one_of(conversations(), hostile_conversations()), st.data())
def test_a_result_is_written_with_the_id_fitting_gives_it(conv, data):
    conv = _blanked(conv, data) if data.draw(st.booleans()) else conv
    written = anthropic.write(conv)
    blocks = {pointer: origin for pointer, origin in written.origins.items()
              if origin is not None and origin[1] is not None}
    fitting = Fitting(conv, "anthropic", [], id_prefix="toolu_", unique_ids=True)
    for pointer, (ti, pi) in blocks.items():
        part = conv.turns[ti].parts[pi]
        if type(part) is not Result:
            continue
        m, b = (int(k) for k in pointer.split("/")[2::2])
        expected: list[Loss] = []
        fitting.losses = expected
        assert written.body["messages"][m]["content"][b]["tool_use_id"] == (fitting.result_id(part, ti, pi) or "")
        said = [loss for loss in written.losses if (loss.turn, loss.part) == (ti, pi)
                and loss.message.startswith(("result id", "result had no id"))]
        assert said == expected
