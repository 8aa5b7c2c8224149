"""The writers' shortcuts give what the general path gives: `Fitting.written_call_id` is `call_id`
(the same losses) then `written_id`, also for calls that share a canonical id or whose id cannot be
made to fit; `settings.lifted` of a conversation without meta is its own settings."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import conversations, hostile_conversations
from tooldbg.formats.settings import lifted
from tooldbg.formats.writer import Fitting, _settings_paths
from tooldbg.model import Conversation, Invocation, Loss, Settings, Turn

TARGETS = ("openai-chat", "mistral", "anthropic", "gemini", "bedrock")


@st.composite
def shared_ids(draw: st.DrawFn) -> Conversation:
    """A hostile conversation where some calls share one canonical id (a hand-made document)."""
    conv = draw(hostile_conversations())
    turns: list[Turn] = []
    for turn in conv.turns:
        parts = tuple(replace(part, id="shared") if type(part) is Invocation and draw(st.booleans()) else part
                      for part in turn.parts)
        turns.append(replace(turn, parts=parts))
    return replace(conv, turns=tuple(turns))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(hostile_conversations(), shared_ids()), st.sampled_from(TARGETS),
       st.sampled_from(["call_", None]), st.booleans())
def test_written_call_id_is_call_id_then_written_id(conv: Conversation, target: str, prefix: str | None,
                                                    unique: bool):
    fast_losses: list[Loss] = []
    general_losses: list[Loss] = []
    fast = Fitting(conv, target, fast_losses, id_prefix=prefix, unique_ids=unique)
    general = Fitting(conv, target, general_losses, id_prefix=prefix, unique_ids=unique)
    for t, turn in enumerate(conv.turns):
        for p, part in enumerate(turn.parts):
            if type(part) is Invocation:
                general.call_id(part, t, p)
                assert fast.written_call_id(part, t, p) == general.written_id(part.id or f"@{t}.{p}")
                assert fast_losses == general_losses


@settings(max_examples=50, deadline=None)
@given(conversations(), st.builds(Settings, max_tokens=st.none() | st.integers(1, 10**5),
                                  temperature=st.none() | st.floats(0, 2), stop=st.none() | st.just(("END",))))
def test_settings_of_a_conversation_without_meta_are_its_own(conv: Conversation, own: Settings):
    conv = replace(conv, settings=own, meta={})
    found, rest = lifted(conv, "anthropic", _settings_paths)
    assert found == own and rest == {}
