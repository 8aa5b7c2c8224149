"""The writers' usual cases give what their general paths give. `Fitting`'s usual case (every call keeps its own wire id: `_ids_fit`) plans what the general
planning (`_plan_ids`) plans: the same ids, the same losses, the same bodies and origins from every
writer that fits ids — over well-formed, hostile and untidy conversations (calls sharing a canonical
id, results before their call or answering none, ids missing, repeated or not fitting); the Chat
Completions writer's usual call and result are written as `any_call` and `any_tool_message` write them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import conversations, hostile_conversations
from tooldbg.convert import export
from tooldbg.formats.openai_chat.serialize import _Writer
from tooldbg.formats.writer import Fitting
from tooldbg.model import Conversation, Invocation, Json, Loss, Result, Text, Tool, Turn

CHAT_TARGETS = ("openai-chat", "mistral", "deepseek", "kimi")
WIRE_TARGETS = ("openai-chat", "mistral", "deepseek", "kimi", "openai-responses", "anthropic", "gemini",
                "bedrock")
IDS = st.sampled_from([None, "call_a", "call_b", "toolu_01A", "abcDEF123", "a.b", "", "x" * 70])
KEYS = st.sampled_from([None, "k1", "k2", "k3"])
NAMES = st.sampled_from(["get_weather", "run_sql", "a.b"])
# Details a reader keeps on a part: a legacy `function_call`, a freeform call, a legacy `function`
# message, a tool message's `name`, another format's.
CALL_META = st.sampled_from([{}, {}, {"openai-chat": {"function_call": True}}, {"openai-chat": {"type": "custom"}},
                             {"anthropic": {"cache_control": {"type": "ephemeral"}}}])
RESULT_META = st.sampled_from([{}, {}, {"openai-chat": {"role": "function"}}, {"openai-chat": {"name": True}},
                               {"anthropic": {"cache_control": {"type": "ephemeral"}}}])
CONTENT = st.sampled_from([(Text(text="ok"),), (Text(text=""),), (Json(value={"a": 1}),),
                           (Text(text="a"), Text(text="b")), ()])


@st.composite
def untidy_conversations(draw: st.DrawFn) -> Conversation:
    """Calls and results with ids drawn from small pools, so that keys and wire ids repeat, results
    come before their call or answer none, and some ids are missing or do not fit; a result answers
    a call made before it (by its key, with its wire id or another) as often as not."""
    turns: list[Turn] = [Turn(role="user", parts=(Text(text="go"),))]
    made: list[Invocation] = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            calls = tuple(Invocation(id=draw(KEYS), name=draw(NAMES), wire_id=draw(IDS), meta=meta,
                                     arguments="text" if "type" in meta.get("openai-chat", {}) else {"n": 1})
                          for meta in draw(st.lists(CALL_META, min_size=1, max_size=3)))
            made += calls
            turns.append(Turn(role="assistant", parts=(Text(text="calling"), *calls)))
            continue
        results = []
        for _ in range(draw(st.integers(1, 3))):
            call = draw(st.sampled_from(made)) if made and draw(st.booleans()) else None
            usual = draw(st.booleans())
            results.append(Result(
                invocation_id=call.id if call is not None else draw(KEYS),
                wire_id=call.wire_id if call is not None and draw(st.booleans()) else draw(IDS),
                name=draw(st.sampled_from([None, call.name]) if call is not None else st.none() | NAMES),
                content=(Text(text="ok"),) if usual else draw(CONTENT),
                is_error=not usual and draw(st.booleans()), meta={} if usual else draw(RESULT_META)))
        turns.append(Turn(role="tool", parts=tuple(results)))
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


@contextmanager
def general_chat_writing() -> Iterator[None]:
    """The Chat Completions writer with every call and result written the general way."""
    with general_planning(), patch.object(_Writer, "call", _Writer.any_call), \
            patch.object(_Writer, "tool_message",
                         lambda self, t, p, result: self.keep(*self.any_tool_message(t, p, result), t, p)):
        yield


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_CONVERSATION, st.sampled_from(CHAT_TARGETS), st.booleans())
def test_usual_calls_and_results_are_written_as_any_are(conv: Conversation, target: str, origins: bool):
    fast = export([conv], target, allow_blanks=True, origins=origins)
    with general_chat_writing():
        general = export([conv], target, allow_blanks=True, origins=origins)
    assert fast.body == general.body
    assert fast.losses == general.losses
    assert dict(fast.origins) == dict(general.origins)
