"""The Anthropic writer's usual assistant parts — a plain text written in `assistant`'s loop rather
than by `block`, a call written with its own name and id when every one fits (`Fitting.names_kept`,
`ids_kept`) rather than asked of `Fitting` — write what the general paths write: the same body,
losses and origins, over well-formed, hostile and untidy conversations.

The general way (`block`, `tool_use`) is taken by a text of a subclass of `Text` (a usual text is a
`Text` itself) and by a call with details (an empty entry of the writer's own, which writes nothing)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import conversations, hostile_conversations
from tooldbg.convert import export
from tooldbg.model import Conversation, Invocation, Part, Result, Text, Tool, Turn


class _AnyText(Text):
    """A text the usual paths do not take (they ask for a `Text` itself)."""

    __slots__ = ()


_TEXTS = st.sampled_from(["calling", "", " \n", "done\n"])
_META = st.sampled_from([{}, {}, {"anthropic": {"cache_control": {"type": "ephemeral"}}}, {"openai-chat": {"x": 1}}])
_NAMES = st.sampled_from(["get_weather", "run_sql", "a.b", "x" * 80])
_IDS = st.sampled_from([None, "toolu_1", "toolu_2", "call_1", "a.b", ""])


@st.composite
def _untidy(draw: st.DrawFn) -> Conversation:
    """Assistant turns of texts (empty, blank, with details) and calls (names and ids that do not fit
    or repeat) around them, answered or not."""
    turns: list[Turn] = [Turn(role="user", parts=(Text(text="go"),))]
    for k in range(draw(st.integers(1, 4))):
        parts: list[Part] = []
        for _ in range(draw(st.integers(1, 4))):
            if draw(st.booleans()):
                parts.append(Text(text=draw(_TEXTS), meta=draw(_META)))
            else:
                parts.append(Invocation(id=f"i{k}{len(parts)}", name=draw(_NAMES), wire_id=draw(_IDS),
                                        arguments={"n": 1}))
        turns.append(Turn(role="assistant", parts=tuple(parts)))
        if draw(st.booleans()):
            turns.append(Turn(role="tool", parts=tuple(
                Result(invocation_id=p.id, wire_id=p.wire_id, content=(Text(text="ok"),))
                for p in parts if isinstance(p, Invocation))))
    tools = tuple(Tool(name=n, parameters={"type": "object"}) for n in draw(st.sets(_NAMES, max_size=2)))
    return Conversation(model="m", tools=tools, turns=tuple(turns))


_ANY = st.one_of(conversations(media=False), hostile_conversations(), _untidy())


def _general(part: Any) -> Any:
    """The part as the usual paths do not take it: a text as an `_AnyText`, a call with details
    (none that are written: an empty entry of the writer's own)."""
    if type(part) is Text:
        return _AnyText(text=part.text, meta=part.meta, source=part.source)
    if type(part) is Invocation and not part.meta:
        return replace(part, meta={"anthropic": {}})
    return part


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ANY, st.booleans())
def test_the_usual_assistant_parts_are_written_as_any_are(conv: Conversation, origins: bool) -> None:
    fast = export([conv], "anthropic", allow_blanks=True, origins=origins)
    general_conv = replace(conv, turns=tuple(replace(t, parts=tuple(map(_general, t.parts)))
                                             if t.role == "assistant" else t for t in conv.turns))
    general = export([general_conv], "anthropic", allow_blanks=True, origins=origins)
    assert fast.body == general.body
    assert fast.losses == general.losses
    assert dict(fast.origins) == dict(general.origins)
