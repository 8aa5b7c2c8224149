"""`turn_in_format`: what one canonical turn becomes in another provider's request, found by writing
the conversation up to the turn and up to the turn before it, and the writer's losses for that turn."""

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paths import SAMPLES
from tests.strategies import conversations
from tooldbg import formats
from tooldbg.formats.base import link
from tooldbg.load import load
from tooldbg.model import Conversation, Invocation, Result, Turn
from tooldbg.model import Text as TextPart
from tooldbg.reserialize import Reserializer, reserialize, turn_in_format

PARALLEL = SAMPLES / "anthropic" / "parallel-calls.jsonl"  # 0 user, 1 two calls, 2 results (one failed), 3 answer
TD403 = SAMPLES / "defects" / "TD403-text-before-tool-results.jsonl"


def conversation(path, index: int = 0) -> Conversation:  # noqa: ANN001
    (loaded,) = load([path])
    return loaded.conversations[index]


def test_it_returns_the_items_and_the_losses_of_that_turn():
    conv = conversation(PARALLEL)
    items, losses = turn_in_format(conv, 2, "openai-chat")
    assert [m["role"] for m in items] == ["tool", "tool"]
    assert [m["tool_call_id"] for m in items] == [c.wire_id for c in conv.turns[1].invocations()]
    (loss,) = losses
    assert (loss.turn, loss.part) == (2, 1) and "is_error" in loss.message
    # the failure is folded into the text, as the loss says
    assert items[1]["content"].startswith("Error")


@pytest.mark.parametrize("target, role, block", [
    ("anthropic", "user", "tool_result"),
    ("bedrock", "user", "toolResult"),
])
def test_results_become_blocks_of_a_user_message(target, role, block):
    conv = conversation(PARALLEL)
    found = reserialize(conv, 2, target)
    (message,) = found.items
    assert message["role"] == role
    kinds = [b.get("type", next(iter(b))) for b in message["content"]]
    assert kinds == [block, block]
    assert found.pointer == f"/messages/{found.start}"


def test_gemini_puts_the_results_of_a_round_in_one_user_content():
    conv = conversation(PARALLEL)
    (content,) = reserialize(conv, 2, "gemini").items
    assert content["role"] == "user"
    assert [next(iter(p)) for p in content["parts"]] == ["functionResponse", "functionResponse"]


def test_responses_items_of_a_call_turn_are_the_text_and_each_call():
    conv = conversation(PARALLEL)
    found = reserialize(conv, 1, "openai-responses")
    assert [i.get("type", "message") for i in found.items] == ["message", "function_call", "function_call"]
    assert found.key == "input"


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
def test_the_last_turn_is_the_tail_of_the_written_conversation(target):
    conv = conversation(PARALLEL)
    last = len(conv.turns) - 1
    found = reserialize(conv, last, target)
    whole = formats.get(target).write(conv).body[formats.facts(target).messages_key]
    assert list(found.items) == whole[found.start:]
    assert found.losses == tuple(x for x in formats.get(target).write(conv).losses if x.turn == last)


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
def test_turns_that_merge_show_the_message_they_grow(target):
    """A tool turn and the user text after it are one user message in Anthropic and Bedrock: the
    second turn's items are that message grown by its blocks."""
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(TextPart(text="weather?"),)),
        Turn(role="assistant", parts=(Invocation(id="i1", name="get_weather", arguments={}, wire_id="c1"),)),
        Turn(role="tool", parts=(Result(invocation_id="i1", wire_id="c1", content=(TextPart(text="4C"),)),)),
        Turn(role="user", parts=(TextPart(text="and tomorrow?"),)),
    ))
    tool, user = reserialize(conv, 2, target), reserialize(conv, 3, target)
    if target in ("anthropic", "bedrock"):
        assert user.start == tool.start  # the same message, grown
        (merged,) = user.items
        assert len(merged["content"]) == 2
    else:
        assert user.start > tool.start


def test_a_turn_a_later_result_answers_is_shown_as_the_whole_conversation_writes_it():
    """TD403: results after the user's text. Up to turn 2 the calls are unanswered (a prefix drops
    them); the whole conversation answers them, merging the text after the results. The turn's items
    come from the whole conversation then, with the loss that explains the merge."""
    conv = conversation(TD403)
    found = reserialize(conv, 2, "anthropic")
    whole = formats.get("anthropic").write(conv).body["messages"]
    (message,) = found.items
    assert message == whole[found.start]
    assert [b["type"] for b in message["content"]] == ["tool_result", "tool_result", "text"]
    assert any("tool results first" in loss.message for loss in found.losses)


def test_a_leading_system_turn_changes_the_top_level_system():
    conv = Conversation(model="m", turns=(
        Turn(role="system", parts=(TextPart(text="Be brief."),)),
        Turn(role="user", parts=(TextPart(text="hi"),)),
    ))
    found = reserialize(conv, 0, "anthropic")
    assert found.items == ()
    assert found.changed["system"] == [{"type": "text", "text": "Be brief."}]


def test_a_dropped_turn_has_no_items_and_says_why():
    conv = conversation(SAMPLES / "defects" / "TD101-history-trimmed-through-a-call.jsonl", 1)
    assert conv.turns[0].role == "tool"  # history trimmed through the call: its result is an orphan
    found = reserialize(conv, 0, "anthropic")
    assert found.items == ()
    assert found.losses


def test_stepping_through_turns_writes_each_prefix_once(monkeypatch: pytest.MonkeyPatch):
    conv = conversation(PARALLEL)
    module = formats.get("gemini")
    calls: list[int] = []
    real = module.write
    monkeypatch.setattr(module, "write", lambda c: calls.append(len(c.turns)) or real(c))
    cache = Reserializer()
    for index in range(len(conv.turns)):
        cache.turn(conv, index, "gemini")
    assert sorted(calls) == [0, 1, 2, 3, 4]  # turns[:0] … turns[:4], the whole one shared


def test_bad_arguments_raise():
    conv = conversation(PARALLEL)
    with pytest.raises(ValueError):
        reserialize(conv, 0, "canonical")
    with pytest.raises(IndexError):
        reserialize(conv, len(conv.turns), "anthropic")


def rounds(count: int) -> Conversation:
    """`count` agent rounds: a question, a call, its result, an answer."""
    turns: list[Turn] = []
    for k in range(count):
        turns += [
            Turn(role="user", parts=(TextPart(text=f"weather in city {k}?"),)),
            Turn(role="assistant", parts=(Invocation(id=f"i{k + 1}", name="get_weather",
                                                     arguments={"city": k}, wire_id=f"call_{k}"),)),
            Turn(role="tool", parts=(Result(invocation_id=f"i{k + 1}", wire_id=f"call_{k}",
                                            content=(TextPart(text=f"{k % 30}C"),)),)),
            Turn(role="assistant", parts=(TextPart(text=f"It is {k % 30}C in city {k}."),)),
        ]
    return Conversation(model="m", system=(TextPart(text="You are a weather agent."),), turns=tuple(turns))


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
def test_a_long_conversation_writes_a_window_not_the_whole_prefix(target, monkeypatch: pytest.MonkeyPatch):
    conv = rounds(200)
    cache = Reserializer()
    cache.write(conv, target)  # the whole conversation, written once per format
    module = formats.get(target)
    written: list[int] = []
    real = module.write
    monkeypatch.setattr(module, "write", lambda c: written.append(len(c.turns)) or real(c))
    found = [cache.turn(conv, index, target) for index in (401, 402, 403, 404, 799)]
    monkeypatch.undo()
    for fast in found:
        slow = Reserializer(window=False).turn(conv, fast.index, target)
        assert (fast.start, fast.items, fast.changed, fast.losses) == \
            (slow.start, slow.items, slow.changed, slow.losses)
    # the cuts at 400 (turns 401-403), 404 and 796 were each placed once, from the turns before
    # or after them, whichever are fewer; everything else written was a window from the last cut
    large = [n for n in written if n > 4]
    assert sorted(large) == [396, 400]


@st.composite
def sessions(draw: st.DrawFn) -> Conversation:
    """Several conversations one after the other: rounds a window can start at."""
    parts = draw(st.lists(conversations(), min_size=2, max_size=3))
    return replace(parts[0], tools=tuple({t.name: t for c in parts for t in c.tools}.values()),
                   turns=link([t for c in parts for t in c.turns]))


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv=sessions())
def test_the_window_finds_what_the_prefixes_find(target, conv):
    fast, slow = Reserializer(), Reserializer(window=False)
    for index in range(len(conv.turns)):
        a, b = fast.turn(conv, index, target), slow.turn(conv, index, target)
        assert (a.start, a.items, a.changed, a.losses) == (b.start, b.items, b.changed, b.losses)
