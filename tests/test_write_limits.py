"""Writers make ids and tool names fit their target (issue 7): for every wire format and provider
profile, the body a writer emits passes that target's own TD801/TD806 pre-flight — the real rules,
run on the written body as `tooldbg convert` runs them — or the writer's losses name what could not
be made to fit; and, read back with the format's reader, every result still answers its own call."""

import re

import pytest
from hypothesis import HealthCheck, given, settings

from tests.strategies import HOSTILE_NAMES, hostile_conversations
from tooldbg import formats
from tooldbg.checks import preflight
from tooldbg.checks.targeting import failure, wire_ids
from tooldbg.formats.profiles import PROFILES, wire_format
from tooldbg.formats.reading import link
from tooldbg.jsonio import dumps_str
from tooldbg.model import Conversation, Invocation, Result, Text, Tool, ToolChoice, Turn, part_to_dict
from tooldbg.source import Source
from tooldbg.targets import table

TARGETS = (*formats.WIRE_FORMATS, *PROFILES)


def write(conv: Conversation, target: str):
    return formats.get(wire_format(target)).write(conv, target=target)


def read_back(body, target: str) -> Conversation:
    request = formats.get(wire_format(target)).read_request(body, Source())
    return Conversation(model="test-model", tools=request.tools, tool_choice=request.tool_choice,
                        turns=request.turns)


def unfit(conv: Conversation, target: str) -> set[str]:
    """Every id and tool name of `conv` (as read back) that `target`'s pre-flight would reject."""
    limits = table(target)
    ids = {wire_id for *_, wire_id in wire_ids(conv)
           if failure(wire_id, tuple(limit for limit in limits.call_id if limit.certain))}
    names = {t.name for t in conv.tools if t.kind == "function"}
    names |= {p.name for t in conv.turns for p in t.parts if isinstance(p, Invocation)}
    return ids | {name for name in names if failure(name, limits.tool_name)}


def markers(result: Result) -> list[int]:
    return [int(n) for n in re.findall(r'"r(\d+)"', dumps_str([part_to_dict(c) for c in result.content]))]


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv=hostile_conversations())
def test_what_a_writer_emits_passes_its_targets_id_and_name_preflight(target, conv):
    written = write(conv, target)
    findings = [f for f in preflight(written.body, target) if f.code in ("TD801", "TD806")]
    back = read_back(written.body, target)
    if findings:  # allowed only for what the writer said it could not make fit
        said = " ".join(loss.message for loss in written.losses if "cannot be made to fit" in loss.message)
        missing = [value for value in unfit(back, target) if repr(value) not in said]
        assert not missing, [f.message for f in findings]

    # Every call and every result is still there, each result answering its own call.
    calls = {c.id: c for t in back.turns for c in t.parts if isinstance(c, Invocation)}
    results = [r for t in back.turns for r in t.parts if isinstance(r, Result)]
    assert sorted(c.arguments["n"] for c in calls.values()) == \
        [c.arguments["n"] for t in conv.turns for c in t.parts if isinstance(c, Invocation)]
    assert len(results) == len(calls)
    for result in results:
        assert result.invocation_id in calls, f"result {markers(result)} answers no call"
        assert markers(result) == [calls[result.invocation_id].arguments["n"]]

    # A renamed tool is renamed everywhere: declared, called and forced under one name.
    declared = {t.name for t in back.tools}
    assert {c.name for c in calls.values()} <= declared
    if back.tool_choice is not None and back.tool_choice.name is not None:
        assert back.tool_choice.name in declared
    assert len(declared) == len({t.name for t in conv.tools})  # distinct names stay distinct


# ----------------------------------------------------------------------------- worked examples


def conversation(names: tuple[str, ...], ids: tuple[str | None, ...]) -> Conversation:
    calls = [Invocation(name=n, arguments={"n": k}, wire_id=i) for k, (n, i) in enumerate(zip(names, ids, strict=True))]
    return Conversation(
        model="test-model", tools=tuple(Tool(name=n, parameters={"type": "object"}) for n in dict.fromkeys(names)),
        tool_choice=ToolChoice(mode="tool", name=names[0]),
        turns=link([Turn(role="user", parts=(Text(text="go"),)),
                    Turn(role="assistant", parts=tuple(calls)),
                    Turn(role="tool", parts=tuple(Result(wire_id=c.wire_id, name=c.name,
                                                         content=(Text(text=f"r{k}"),))
                                                  for k, c in enumerate(calls)))]))


@pytest.mark.parametrize("target", TARGETS)
def test_names_that_collide_once_fitted_stay_apart(target):
    conv = conversation(("a.b", "a_b", "a:b"), ("a.b", "a_b", "a:b"))
    written = write(conv, target)
    assert [f.code for f in preflight(written.body, target) if f.code in ("TD801", "TD806")] == []
    back = read_back(written.body, target)
    names = [c.name for t in back.turns for c in t.parts if isinstance(c, Invocation)]
    assert len(set(names)) == 3
    if target in ("openai-chat", "openai-responses", "anthropic", "bedrock", "deepseek"):
        assert names[1] == "a_b"  # the name that fits keeps itself; the others make way
    ids = [c.wire_id for t in back.turns for c in t.parts if isinstance(c, Invocation)]
    assert len(set(ids)) == 3


def test_mistral_ids_are_the_same_for_the_same_original():
    """Mistral's nine characters come from a hash of the original id, so a history written twice
    (or each request of a session) gets the same ids."""
    conv = conversation(("get_weather", "get_weather"), ("call_0fypS1hVX", "functions.get_weather:0"))
    first, second = write(conv, "mistral"), write(conv, "mistral")
    assert first.body == second.body
    ids = [c["id"] for m in first.body["messages"] for c in m.get("tool_calls") or ()]
    assert all(re.fullmatch(r"[a-zA-Z0-9]{9}", i) for i in ids) and len(set(ids)) == 2
    assert [m["tool_call_id"] for m in first.body["messages"] if m["role"] == "tool"] == ids
    assert [str(loss) for loss in first.losses if "mistral" in loss.message] == [
        f"turn 1 part 0: call id 'call_0fypS1hVX' does not fit mistral (letters and digits, exactly 9 "
        f"characters); wrote {ids[0]!r}",
        f"turn 1 part 1: call id 'functions.get_weather:0' does not fit mistral (letters and digits, "
        f"exactly 9 characters); wrote {ids[1]!r}"]


def test_deepseek_and_kimi_keep_ids_openai_chat_would_cut():
    """OpenAI's 40-character id limit (uncertain, fitted all the same) is not DeepSeek's or Kimi's."""
    long_id = "fc_" + "0123456789abcdef" * 4
    conv = conversation(("get_weather",), (long_id,))
    assert write(conv, "openai-chat").body["messages"][1]["tool_calls"][0]["id"] == long_id[:40]
    for target in ("deepseek", "kimi"):
        written = write(conv, target)
        assert written.body["messages"][1]["tool_calls"][0]["id"] == long_id
        assert not [loss for loss in written.losses if "call id" in loss.message]


def test_a_writer_refuses_a_target_of_another_format():
    conv = conversation(("get_weather",), ("call_1",))
    with pytest.raises(ValueError, match="cannot write for 'mistral'"):
        formats.get("anthropic").write(conv, target="mistral")


def test_hostile_names_include_the_issue_cases():
    assert "x" * 100 in HOSTILE_NAMES and any(len(n) > 64 for n in HOSTILE_NAMES)
