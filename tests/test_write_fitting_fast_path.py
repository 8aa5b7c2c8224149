"""`Fitting`'s usual case (every call keeps its own wire id: `_ids_fit`) plans what the general
planning (`_plan_ids`) plans: the same ids, the same losses, the same bodies and origins from every
writer that fits ids — over well-formed, hostile and untidy conversations (calls sharing a canonical
id, results before their call or answering none, ids missing, repeated or not fitting)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import conversations, hostile_conversations
from tooldbg.convert import export
from tooldbg.formats.writer import Fitting
from tooldbg.model import Conversation, Invocation, Loss, Result, Text, Tool, Turn

WIRE_TARGETS = ("openai-chat", "mistral", "deepseek", "kimi", "openai-responses", "anthropic", "gemini",
                "bedrock")
IDS = st.sampled_from([None, "call_a", "call_b", "toolu_01A", "abcDEF123", "a.b", "", "x" * 70])
KEYS = st.sampled_from([None, "k1", "k2", "k3"])
NAMES = st.sampled_from(["get_weather", "run_sql", "a.b"])


@st.composite
def untidy_conversations(draw: st.DrawFn) -> Conversation:
    """Calls and results with ids drawn from small pools, so that keys and wire ids repeat, results
    come before their call or answer none, and some ids are missing or do not fit."""
    turns: list[Turn] = [Turn(role="user", parts=(Text(text="go"),))]
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            calls = tuple(Invocation(id=draw(KEYS), name=draw(NAMES), arguments={"n": 1}, wire_id=draw(IDS))
                          for _ in range(draw(st.integers(1, 3))))
            turns.append(Turn(role="assistant", parts=(Text(text="calling"), *calls)))
        else:
            results = tuple(Result(invocation_id=draw(KEYS), wire_id=draw(IDS), name=draw(st.none() | NAMES),
                                   content=(Text(text="ok"),))
                            for _ in range(draw(st.integers(1, 3))))
            turns.append(Turn(role="tool", parts=results))
    tools = tuple(Tool(name=n, parameters={"type": "object"}) for n in draw(st.sets(NAMES, max_size=3)))
    return Conversation(model="m", tools=tools, turns=tuple(turns))


ANY_CONVERSATION = st.one_of(conversations(media=False), hostile_conversations(), untidy_conversations())


@contextmanager
def general_planning() -> Iterator[None]:
    """Every `Fitting` made in the block plans its ids the general way."""
    with patch.object(Fitting, "_ids_fit", lambda *_: False):
        yield


def _answers(conv: Conversation, target: str, prefix: str | None, unique: bool) -> tuple[Any, ...]:
    """What a writer asks of a `Fitting`, in order, with the losses it reports."""
    losses: list[Loss] = []
    fit = Fitting(conv, target, losses, id_prefix=prefix, unique_ids=unique)
    said: list[Any] = []
    for t, turn in enumerate(conv.turns):
        for p, part in enumerate(turn.parts):
            if type(part) is Invocation:
                said += [fit.written_call_id(part, t, p), fit.call_id(part, t, p), fit.written_id(part.id)]
            elif type(part) is Result:
                said.append(fit.result_id(part, t, p))
    return tuple(said), tuple(losses)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_CONVERSATION, st.sampled_from(WIRE_TARGETS), st.sampled_from(["call_", None]), st.booleans())
def test_usual_ids_are_planned_as_the_general_planning_plans_them(conv: Conversation, target: str,
                                                                  prefix: str | None, unique: bool):
    fast = _answers(conv, target, prefix, unique)
    with general_planning():
        general = _answers(conv, target, prefix, unique)
    assert fast == general


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_CONVERSATION, st.sampled_from(WIRE_TARGETS), st.booleans())
def test_every_writer_writes_the_same_with_either_planning(conv: Conversation, target: str, origins: bool):
    fast = export([conv], target, allow_blanks=True, origins=origins)
    with general_planning():
        general = export([conv], target, allow_blanks=True, origins=origins)
    assert fast.body == general.body
    assert fast.losses == general.losses
    assert dict(fast.origins) == dict(general.origins)
