"""A canonical turn in another provider's request: the writer writes the whole conversation once, and
the turn is the items whose origin is that turn (a message merged from several turns trimmed to the
turn's blocks); the node carrying a part is found by its (turn, part). The losses are the writer's
for that turn."""

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paths import SAMPLES
from tests.strategies import conversations
from tooldbg import formats
from tooldbg.formats.base import Written
from tooldbg.formats.reading import link
from tooldbg.load import load
from tooldbg.model import Conversation, Invocation, Result, Turn
from tooldbg.model import Text as TextPart
from tooldbg.reserialize import Reserializer, TurnInFormat, reserialize, turn_in_format

PARALLEL = SAMPLES / "anthropic" / "parallel-calls.jsonl"  # 0 user, 1 two calls, 2 results (one failed), 3 answer
TD403 = SAMPLES / "defects" / "TD403-text-before-tool-results.jsonl"


def conversation(path, index: int = 0) -> Conversation:  # noqa: ANN001
    (loaded,) = load([path])
    return loaded.conversations[index]


def node_at(body, pointer: str):  # noqa: ANN001, ANN201
    for token in pointer.split("/")[1:]:
        body = body[int(token)] if isinstance(body, list) else body[token]
    return body


def shown_at(found: TurnInFormat, pointer: str):  # noqa: ANN201
    """The node at `pointer` in what is shown of the turn (the items as the list `/{key}`)."""
    return node_at({found.key: list(found.items), **found.changed}, pointer)


# 0 user; 1 text beside two parallel calls; 2 both results, the second failed; 3 the user's next
# question, which Anthropic and Bedrock merge with the results into one user message; 4 the answer.
WEATHER = Conversation(model="m", turns=link([
    Turn(role="user", parts=(TextPart(text="Weather in Paris and Rome?"),)),
    Turn(role="assistant", parts=(
        TextPart(text="Checking both."),
        Invocation(name="get_weather", arguments={"city": "Paris"}, wire_id="call_paris"),
        Invocation(name="get_weather", arguments={"city": "Rome"}, wire_id="call_rome"))),
    Turn(role="tool", parts=(
        Result(wire_id="call_paris", content=(TextPart(text="18C"),)),
        Result(wire_id="call_rome", content=(TextPart(text="timeout"),), is_error=True))),
    Turn(role="user", parts=(TextPart(text="And tomorrow?"),)),
    Turn(role="assistant", parts=(TextPart(text="Paris 18C, Rome unknown."),)),
]))

#: format → turn → (where its items are, where each of its parts is)
WHERE = {
    "openai-chat": {
        0: (["/messages/0"], {0: "/messages/0/content"}),
        1: (["/messages/1"], {0: "/messages/1/content", 1: "/messages/1/tool_calls/0",
                              2: "/messages/1/tool_calls/1"}),
        2: (["/messages/2", "/messages/3"], {0: "/messages/2", 1: "/messages/3"}),
        3: (["/messages/4"], {0: "/messages/4/content"}),
        4: (["/messages/5"], {0: "/messages/5/content"}),
    },
    "openai-responses": {
        0: (["/input/0"], {0: "/input/0/content/0"}),
        1: (["/input/1", "/input/2", "/input/3"], {0: "/input/1/content/0", 1: "/input/2", 2: "/input/3"}),
        2: (["/input/4", "/input/5"], {0: "/input/4", 1: "/input/5"}),
        3: (["/input/6"], {0: "/input/6/content/0"}),
        4: (["/input/7"], {0: "/input/7/content/0"}),
    },
    "anthropic": {
        0: (["/messages/0"], {0: "/messages/0/content/0"}),
        1: (["/messages/1"], {0: "/messages/1/content/0", 1: "/messages/1/content/1",
                              2: "/messages/1/content/2"}),
        2: (["/messages/2"], {0: "/messages/2/content/0", 1: "/messages/2/content/1"}),
        3: (["/messages/2"], {0: "/messages/2/content/2"}),
        4: (["/messages/3"], {0: "/messages/3/content/0"}),
    },
    "gemini": {
        0: (["/contents/0"], {0: "/contents/0/parts/0"}),
        1: (["/contents/1"], {0: "/contents/1/parts/0", 1: "/contents/1/parts/1", 2: "/contents/1/parts/2"}),
        2: (["/contents/2"], {0: "/contents/2/parts/0", 1: "/contents/2/parts/1"}),
        3: (["/contents/3"], {0: "/contents/3/parts/0"}),
        4: (["/contents/4"], {0: "/contents/4/parts/0"}),
    },
    "bedrock": {
        0: (["/messages/0"], {0: "/messages/0/content/0"}),
        1: (["/messages/1"], {0: "/messages/1/content/0", 1: "/messages/1/content/1",
                              2: "/messages/1/content/2"}),
        2: (["/messages/2"], {0: "/messages/2/content/0", 1: "/messages/2/content/1"}),
        3: (["/messages/2"], {0: "/messages/2/content/2"}),
        4: (["/messages/3"], {0: "/messages/3/content/0"}),
    },
}


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
def test_each_turn_is_found_at_its_items_with_each_part_at_its_node(target):
    written = formats.get(target).write(WEATHER)
    cache = Reserializer()
    for index, (pointers, parts) in WHERE[target].items():
        found = cache.turn(WEATHER, index, target)
        assert (list(found.pointers), found.parts) == (pointers, parts), index
        assert found.pointer == pointers[0] and found.key == formats.facts(target).messages_key
        assert found.losses == tuple(x for x in written.losses if x.turn == index)
        for shown, pointer in enumerate(found.pointers):  # items not shared are shown whole
            if pointer not in found.shared:
                assert found.items[shown] == node_at(written.body, pointer)
    # the part a finding points at, in the body: the failed result, and the call it answers
    failed = node_at(written.body, cache.turn(WEATHER, 2, target).parts[1])
    assert "timeout" in str(failed) and "call_rome" in str(failed)
    call = node_at(written.body, cache.turn(WEATHER, 1, target).parts[2])
    assert "Rome" in str(call) and "call_rome" in str(call)


@pytest.mark.parametrize("target", ["anthropic", "bedrock"])
def test_a_message_merged_from_two_turns_shows_each_its_own_blocks(target):
    """The results (turn 2) and the user's next question (turn 3) are one user message: each turn
    shows that message with its own blocks, each still named by where it is in the written body."""
    results, question = reserialize(WEATHER, 2, target), reserialize(WEATHER, 3, target)
    assert results.pointers == question.pointers == ("/messages/2",)
    assert results.shared == {"/messages/2": (3,)} and question.shared == {"/messages/2": (2,)}
    (merged,) = results.items
    assert merged["role"] == "user" and len(merged["content"]) == 2
    assert "And tomorrow?" not in str(merged)
    (asked,) = question.items
    text = {"anthropic": {"type": "text", "text": "And tomorrow?"}, "bedrock": {"text": "And tomorrow?"}}
    assert asked == {"role": "user", "content": [text[target]]}
    assert question.place("/messages/0/content/0/text") == "/messages/2/content/2/text"
    assert question.place("/messages/0/role") == "/messages/2/role"
    assert results.place("/messages/0/content/1") == "/messages/2/content/1"
    whole = formats.get(target).write(WEATHER).body["messages"][2]["content"]
    assert shown_at(question, "/messages/0/content/0") == whole[2]


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
    found = reserialize(conversation(PARALLEL), 2, target)
    (message,) = found.items
    assert message["role"] == role
    assert [b.get("type", next(iter(b))) for b in message["content"]] == [block, block]
    assert found.pointer == "/messages/2"


def test_gemini_puts_the_results_of_a_round_in_one_user_content():
    (content,) = reserialize(conversation(PARALLEL), 2, "gemini").items
    assert content["role"] == "user"
    assert [next(iter(p)) for p in content["parts"]] == ["functionResponse", "functionResponse"]


def test_responses_items_of_a_call_turn_are_the_text_and_each_call():
    found = reserialize(conversation(PARALLEL), 1, "openai-responses")
    assert [i.get("type", "message") for i in found.items] == ["message", "function_call", "function_call"]
    assert found.key == "input"


def test_results_after_the_users_text_are_moved_before_it_and_each_turn_shows_its_blocks():
    """TD403: the user's text (turn 2) came before the results (turn 3). Anthropic writes one user
    message, results first: turn 3 is its first two blocks, turn 2 its last, both with the loss."""
    conv = conversation(TD403)
    text, results = reserialize(conv, 2, "anthropic"), reserialize(conv, 3, "anthropic")
    assert text.parts == {0: "/messages/2/content/2"}
    assert results.parts == {0: "/messages/2/content/0", 1: "/messages/2/content/1"}
    assert [b["type"] for b in results.items[0]["content"]] == ["tool_result", "tool_result"]
    assert [b["type"] for b in text.items[0]["content"]] == ["text"]
    for found in (text, results):
        assert any("tool results first" in loss.message for loss in found.losses)


def test_a_leading_system_turn_goes_to_the_top_level_system():
    conv = Conversation(model="m", system=(TextPart(text="From the conversation."),), turns=(
        Turn(role="system", parts=(TextPart(text="Be brief."),)),
        Turn(role="user", parts=(TextPart(text="hi"),)),
    ))
    found = reserialize(conv, 0, "anthropic")
    assert found.items == () and found.pointer == ""
    assert found.changed == {"system": [{"type": "text", "text": "Be brief."}]}
    assert found.parts == {0: "/system/1"} and found.place("/system/0") == "/system/1"


def test_a_turn_found_anywhere_in_the_body_is_shown_where_it_is(monkeypatch: pytest.MonkeyPatch):
    """Whatever a writer makes of a turn, the origins say where: here a top-level object."""
    conv = Conversation(model="m", turns=(Turn(role="system", parts=(TextPart(text="Be brief."),)),
                                          Turn(role="user", parts=(TextPart(text="hi"),))))
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "systemInstruction": {"parts": [{"text": "Be brief."}]}}
    written = Written(body=body, origins={
        "/contents/0": (1, None), "/contents/0/parts/0": (1, 0), "/systemInstruction/parts/0": (0, 0)})
    monkeypatch.setattr(formats.get("gemini"), "write", lambda c: written)
    found = reserialize(conv, 0, "gemini")
    assert found.items == () and found.changed == {"systemInstruction": {"parts": [{"text": "Be brief."}]}}
    assert found.parts == {0: "/systemInstruction/parts/0"}
    assert found.place("/systemInstruction/parts/0") == "/systemInstruction/parts/0"
    assert reserialize(conv, 1, "gemini").items == tuple(body["contents"])


def test_a_dropped_turn_has_no_items_and_says_why():
    conv = conversation(SAMPLES / "defects" / "TD101-history-trimmed-through-a-call.jsonl", 1)
    assert conv.turns[0].role == "tool"  # history trimmed through the call: its result is an orphan
    found = reserialize(conv, 0, "anthropic")
    assert found.items == () and found.changed == {} and found.parts == {}
    assert found.losses


def test_a_dropped_call_has_no_node():
    """A call left unanswered by the next message is dropped by Anthropic: its part has no node,
    the other parts of the turn keep theirs."""
    conv = Conversation(model="m", turns=link([
        Turn(role="user", parts=(TextPart(text="go"),)),
        Turn(role="assistant", parts=(TextPart(text="calling"),
                                      Invocation(name="f", arguments={}, wire_id="c1"))),
        Turn(role="user", parts=(TextPart(text="never mind"),)),
    ]))
    found = reserialize(conv, 1, "anthropic")
    assert found.parts == {0: "/messages/1/content/0"}
    assert [(loss.turn, loss.part) for loss in found.losses] == [(1, 1)]


def test_stepping_through_turns_writes_the_conversation_once(monkeypatch: pytest.MonkeyPatch):
    conv = conversation(PARALLEL)
    module = formats.get("gemini")
    calls: list[int] = []
    real = module.write
    monkeypatch.setattr(module, "write", lambda c: calls.append(len(c.turns)) or real(c))
    cache = Reserializer()
    for index in range(len(conv.turns)):
        cache.turn(conv, index, "gemini")
    assert calls == [len(conv.turns)]
    assert cache.write(conv, "gemini") is cache.write(conv, "gemini")
    assert calls == [len(conv.turns)]


def test_bad_arguments_raise():
    conv = conversation(PARALLEL)
    with pytest.raises(ValueError):
        reserialize(conv, 0, "canonical")
    with pytest.raises(IndexError):
        reserialize(conv, len(conv.turns), "anthropic")


@st.composite
def sessions(draw: st.DrawFn) -> Conversation:
    """Several conversations one after the other."""
    parts = draw(st.lists(conversations(), min_size=1, max_size=3))
    return replace(parts[0], tools=tuple({t.name: t for c in parts for t in c.tools}.values()),
                   turns=link([t for c in parts for t in c.turns]))


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv=sessions())
def test_the_turns_cover_the_written_messages_and_their_parts(target, conv):
    """Every written message is some turn's; a turn's parts are inside its items, where they show
    the node the written body has there."""
    cache = Reserializer()
    written = cache.write(conv, target)
    key = formats.facts(target).messages_key
    seen: set[str] = set()
    for index in range(len(conv.turns)):
        found = cache.turn(conv, index, target)
        seen.update(found.pointers)
        shown = {found.place(f"/{key}/{n}"): n for n in range(len(found.items))}
        for part, pointer in found.parts.items():
            entry = "/".join(pointer.split("/")[:3])
            assert entry in shown, (index, part, pointer)
            inside = [p for p in _pointers(found.items[shown[entry]], f"/{key}/{shown[entry]}")
                      if found.place(p) == pointer]
            assert inside, (index, part, pointer)
            assert node_at({key: list(found.items)}, inside[0]) == node_at(written.body, pointer)
    assert seen == {f"/{key}/{n}" for n in range(len(written.body[key]))} - _system_messages(written, key)


def _pointers(node, base: str):  # noqa: ANN001, ANN202
    yield base
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for k, child in children:
        yield from _pointers(child, f"{base}/{k}")


def _system_messages(written, key: str) -> set[str]:  # noqa: ANN001
    """Messages written from the conversation's system prompt, which is no turn."""
    return {f"/{key}/{n}" for n, m in enumerate(written.body[key])
            if isinstance(m, dict) and m.get("role") in ("system", "developer")}
