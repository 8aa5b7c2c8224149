"""TD307 per reasoning shape: what a response gave with its calls, compared with its replay."""

from __future__ import annotations

import base64

from tests.checks.helpers import accepted
from tests.checks.test_replay import (
    A_ASK,
    A_OK,
    ANTHROPIC,
    G_ASK,
    G_TOOLS,
    GEMINI,
    RESPONSES,
    SIGNATURE,
    TOOLS,
    anthropic_message,
    anthropic_request,
    bedrock_request,
    bedrock_response,
    chat_answer,
    chat_call,
    chat_completion,
    check,
    exchange,
    gemini_response,
    log,
)
from tests.fixing import fix
from tooldbg.load import load_bytes
from tooldbg.model import Reasoning

DEEPSEEK = "https://api.deepseek.com/chat/completions"
#: How a TD307 message ends where the replay it reports was answered (exchange 1 of these logs).
LOST = accepted(1, "the model did not see its earlier reasoning")
OPENROUTER = "https://openrouter.ai/api/v1/chat/completions"
BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-v1%3A0/converse"
ASK = {"role": "user", "content": "Weather in Oslo?"}
CALL = chat_call("call_00_Q3zb", "get_weather", {"city": "Oslo"})
RESULT = {"role": "tool", "tool_call_id": "call_00_Q3zb", "content": '{"temp_c": 4}'}
THOUGHT = "The user wants Oslo's weather: call get_weather."


def chat_two(first, replayed, url=DEEPSEEK, model="deepseek-reasoner"):
    """Exchange 0 answers `first` (an assistant message); exchange 1 replays it as `replayed`."""
    return log(
        exchange(url, {"model": model, "messages": [ASK], "tools": TOOLS}, chat_completion(first)),
        exchange(url, {"model": model, "messages": [ASK, {"role": "assistant", **replayed}, RESULT],
                       "tools": TOOLS}, chat_answer("4 °C.")),
    )


# ------------------------------------------------------------------ reasoning_content / reasoning


def test_reasoning_content_dropped_from_a_tool_turn():
    first = {"content": "", "reasoning_content": THOUGHT, "tool_calls": [CALL]}
    [f] = check(chat_two(first, {"content": "", "tool_calls": [CALL]}))
    assert (f.code, f.exchange, f.turn, f.part) == ("TD307", 1, 1, 0)
    # DeepSeek answered the replay: the log shows it accepted, so a warning that says what was lost
    assert f.message == ("the reasoning_content before the call 'get_weather' in exchange 0's response was "
                         "dropped on replay" + LOST)
    assert check(chat_two(first, {"content": "", "reasoning_content": THOUGHT, "tool_calls": [CALL]})) == []


def test_unsigned_reasoning_is_judged_present_not_word_for_word():
    first = {"content": "", "reasoning_content": THOUGHT, "tool_calls": [CALL]}
    trimmed = {"content": "", "reasoning_content": "Oslo weather.", "tool_calls": [CALL]}
    assert check(chat_two(first, trimmed)) == []  # DeepSeek checks the field is there, not what it says


def test_reasoning_field_of_vllm_and_gpt_oss_dropped_or_moved():
    first = {"content": None, "reasoning": THOUGHT, "tool_calls": [CALL]}
    url = "http://localhost:8000/v1/chat/completions"
    [f] = check(chat_two(first, {"content": None, "tool_calls": [CALL]}, url, "openai/gpt-oss-120b"))
    assert f.code == "TD307" and "the reasoning before the call 'get_weather'" in f.message
    moved = {"content": None, "reasoning_content": THOUGHT, "tool_calls": [CALL]}
    assert check(chat_two(first, moved, url, "openai/gpt-oss-120b")) == []


def test_reasoning_before_a_plain_answer_may_be_dropped():
    data = log(
        exchange(DEEPSEEK, {"model": "deepseek-reasoner", "messages": [ASK]},
                 chat_completion({"content": "Which unit?", "reasoning_content": "Ask first."}, "stop")),
        exchange(DEEPSEEK, {"model": "deepseek-reasoner", "messages": [
            ASK, {"role": "assistant", "content": "Which unit?"}, {"role": "user", "content": "Celsius"}]},
            chat_answer("4 °C.")),
    )
    assert check(data) == []


# ------------------------------------------------------------------------------ reasoning_details

SUMMARY = "**Checking the weather**\n\nCall get_weather for Oslo."
ENCRYPTED = {"type": "reasoning.encrypted", "data": "gAAAAABpqDi68TvIkGha", "id": "rs_0d4f6a8c",
             "format": "openai-responses-v1", "index": 1}
DETAILS = [{"type": "reasoning.summary", "summary": SUMMARY, "format": "openai-responses-v1", "index": 0}, ENCRYPTED]
SIGNED = {"type": "reasoning.text", "text": THOUGHT, "signature": "EqQBCkYIBRgCKkA", "format": "anthropic-claude-v1",
          "index": 0}


def test_reasoning_details_dropped_entirely_or_behind_the_plain_string():
    first = {"content": "", "reasoning": SUMMARY, "reasoning_details": DETAILS, "tool_calls": [CALL]}
    [f] = check(chat_two(first, {"content": "", "tool_calls": [CALL]}, OPENROUTER, "openai/gpt-5"))
    assert "the reasoning_details block reasoning.summary before the call" in f.message
    [f] = check(chat_two(first, {"content": "", "reasoning": SUMMARY, "tool_calls": [CALL]}, OPENROUTER, "openai/gpt-5"))
    assert (f.turn, f.part) == (1, 1)
    assert "the reasoning_details block reasoning.encrypted before the call 'get_weather'" in f.message
    assert check(chat_two(first, first, OPENROUTER, "openai/gpt-5")) == []


def test_a_signed_reasoning_details_text_edited_on_replay():
    first = {"content": "", "reasoning": THOUGHT, "reasoning_details": [SIGNED], "tool_calls": [CALL]}
    edited = {**first, "reasoning_details": [{**SIGNED, "text": THOUGHT.upper()}]}
    [f] = check(chat_two(first, edited, OPENROUTER, "anthropic/claude-sonnet-4.5"))
    assert (f.turn, f.part) == (1, 1) and "was edited on replay, its signature kept" in f.message
    assert f.pointer.endswith("/messages/1/reasoning_details/0")


# ------------------------------------------------------------------------- Responses reasoning items

ITEM = {"id": "rs_0a7c3e5f", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Oslo."}],
        "encrypted_content": "gAAAAABo4vHEq9Lm"}
FC = {"id": "fc_0a7c3e5f", "type": "function_call", "call_id": "call_Hm3X", "name": "get_weather",
      "arguments": '{"city":"Oslo"}'}
OUTPUT = {"type": "function_call_output", "call_id": "call_Hm3X", "output": "4 °C"}
R_ASK = {"role": "user", "content": "Weather in Oslo?"}


def responses_two(replayed, first_store=None, replay_store=None, encrypted=True):
    item = ITEM if encrypted else {k: v for k, v in ITEM.items() if k != "encrypted_content"}

    def body(inputs, store):
        return {"model": "gpt-5", "input": inputs, **({"store": store} if store is not None else {})}

    return log(
        exchange(RESPONSES, body([R_ASK], first_store),
                 {"id": "resp_1", "object": "response", "status": "completed", "output": [item, {**FC, "status": "completed"}]}),
        exchange(RESPONSES, body([R_ASK, *replayed, FC, OUTPUT], replay_store),
                 {"id": "resp_2", "object": "response", "status": "completed", "output": []}),
    )


def test_a_reasoning_item_by_id_without_encrypted_content_is_lost_only_when_nothing_is_stored():
    by_id = {"type": "reasoning", "id": "rs_0a7c3e5f", "summary": []}
    [f] = check(responses_two([by_id], False, False))
    assert (f.code, f.turn, f.part) == ("TD307", 1, 0)
    assert f.pointer.endswith("#/input/1")
    assert "was replayed by id only, without its encrypted_content, while store is false" in f.message
    assert "Item with id 'rs_0a7c3e5f' not found. Items are not persisted when `store` is set to false." in f.message
    # produced unstored, replayed to a stored request: the item was never kept
    assert [f.code for f in check(responses_two([by_id], False, None))] == ["TD307"]
    # stored (the default): the id names the stored item
    assert check(responses_two([by_id])) == []
    assert check(responses_two([by_id], True, True)) == []
    # stateless done right: the item comes back with its encrypted_content
    assert check(responses_two([ITEM], False, False)) == []


def test_an_item_reference_names_a_stored_reasoning_item():
    reference = {"type": "item_reference", "id": "rs_0a7c3e5f"}
    assert check(responses_two([reference])) == []
    [f] = check(responses_two([reference], False, False))
    assert f.code == "TD307" and "by id only" in f.message and f.pointer.endswith("#/input/2")


def test_a_reasoning_item_dropped_before_its_function_call():
    [f] = check(responses_two([], encrypted=False))  # stored, no encrypted_content: the id was all it had
    assert f.code == "TD307"
    assert f.message == ("the reasoning item rs_0a7c3e5f before the call 'get_weather' in exchange 0's response "
                         "was dropped on replay" + LOST)


# ----------------------------------------------------------------------------- signed thinking

THINKING = {"type": "thinking", "thinking": "Oslo: one call to get_weather.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA"}
USE = {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}}


def anthropic_two(replayed):
    on = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    return log(
        exchange(ANTHROPIC, anthropic_request([A_ASK], **on), anthropic_message([THINKING, USE])),
        exchange(ANTHROPIC, anthropic_request([A_ASK, {"role": "assistant", "content": replayed},
                                               {"role": "user", "content": [A_OK]}], **on),
                 anthropic_message([{"type": "text", "text": "4 °C."}], "end_turn")),
    )


def test_anthropic_thinking_edited_with_its_signature_kept():
    for text in ("Oslo: one call.", "Oslo: one call to get_weather. "):
        [f] = check(anthropic_two([{**THINKING, "thinking": text}, USE]))
        assert (f.code, f.turn, f.part) == ("TD307", 1, 0)
        assert f.message.startswith("the thinking block before the call 'get_weather' in exchange 0's response was "
                                    "edited on replay, its signature kept")
        assert "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified" \
            in f.message
    assert check(anthropic_two([THINKING, USE])) == []


def test_bedrock_reasoning_text_edited_with_its_signature_kept():
    reasoning = {"reasoningContent": {"reasoningText": {"text": "Oslo: one call.", "signature": "ErcBCkgIBxABGAIiQ"}}}
    call = {"toolUse": {"toolUseId": "tooluse_a8nlf2bq", "name": "get_weather", "input": {"city": "Oslo"}}}
    ask = {"role": "user", "content": [{"text": "Weather in Oslo?"}]}
    result = {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_a8nlf2bq", "content": [{"text": "4"}]}}]}

    def two(replayed):
        return log(exchange(BEDROCK, bedrock_request([ask]), bedrock_response([reasoning, call])),
                   exchange(BEDROCK, bedrock_request([ask, {"role": "assistant", "content": replayed}, result]),
                            bedrock_response([{"text": "4 °C."}], "end_turn")))

    edited = {"reasoningContent": {"reasoningText": {"text": "Oslo.", "signature": "ErcBCkgIBxABGAIiQ"}}}
    [f] = check(two([edited, call]))
    assert f.code == "TD307" and "edited on replay, its signature kept" in f.message and "Anthropic:" not in f.message
    assert check(two([reasoning, call])) == []


def test_gemini_parallel_calls_carry_the_signature_on_the_first_call_only():
    def call(city, signature=None):
        part = {"functionCall": {"name": "get_weather", "args": {"city": city}}}
        return {**part, "thoughtSignature": signature} if signature else part

    answer = [call("Oslo", SIGNATURE), call("Bergen")]
    results = [{"functionResponse": {"name": "get_weather", "response": {"temp_c": t}}} for t in (4, 7)]
    thought = {"text": "Two cities, two calls.", "thought": True}

    def two(first, replayed):
        return log(
            exchange(GEMINI, {"contents": [G_ASK], "tools": G_TOOLS}, gemini_response(first)),
            exchange(GEMINI, {"contents": [G_ASK, {"role": "model", "parts": replayed},
                                           {"role": "user", "parts": results}], "tools": G_TOOLS},
                     gemini_response([{"text": "4 and 7 °C."}])),
        )

    assert check(two(answer, answer)) == []
    assert check(two(answer, [call("Oslo", SIGNATURE), call("Bergen", SIGNATURE)])) == []
    assert check(two([thought, *answer], answer)) == []  # thought summaries need not come back
    [f] = check(two(answer, [call("Oslo"), call("Bergen")]))
    assert (f.code, f.turn, f.part) == ("TD307", 1, 0)
    assert "the thoughtSignature of the call 'get_weather'" in f.message
    other = base64.b64encode(b"a signature from another turn").decode()
    [f] = check(two(answer, [call("Oslo", other), call("Bergen")]))
    assert "replayed with a different signature" in f.message


# ------------------------------------------------------------------------------------------- fix


def fixed(data):
    """The replaying request's conversation, repaired (a changed replay may be stitched apart)."""
    loaded = load_bytes("run.jsonl", data)
    return fix(loaded, loaded.conversations[-1])


def test_fix_puts_back_the_thinking_as_the_response_gave_it():
    result = fixed(anthropic_two([{**THINKING, "thinking": "Oslo: one call."}, USE]))
    [repair] = result.repairs
    assert (repair.code, repair.turn, repair.part) == ("TD307", 1, 0)
    thought = result.conversation.turns[1].parts[0]
    assert isinstance(thought, Reasoning) and thought.text == THINKING["thinking"]
    assert thought.signature == THINKING["signature"]


def test_fix_sends_the_encrypted_content_back_and_refuses_to_guess_about_a_reference():
    result = fixed(responses_two([{"type": "reasoning", "id": "rs_0a7c3e5f", "summary": []}], False, False))
    [repair] = result.repairs
    item = result.conversation.turns[1].parts[repair.part]
    assert isinstance(item, Reasoning) and item.signature == ITEM["encrypted_content"]
    result = fixed(responses_two([{"type": "item_reference", "id": "rs_0a7c3e5f"}], False, False))
    assert result.repairs == [] and [r.code for r in result.refusals] == ["TD307"]


def test_fix_restores_dropped_reasoning_content():
    first = {"content": "", "reasoning_content": THOUGHT, "tool_calls": [CALL]}
    result = fixed(chat_two(first, {"content": "", "tool_calls": [CALL]}))
    [repair] = result.repairs
    assert (repair.turn, repair.part, repair.before) == (1, 0, "(missing)")
    assert result.conversation.turns[1].parts[0] == Reasoning(text=THOUGHT, origin="openai-chat")


def test_a_second_reasoning_item_dropped_beside_a_re_encrypted_first_is_dropped_not_altered():
    second = {**ITEM, "id": "rs_1b8d4f6a", "encrypted_content": "gAAAAABo4vHFx2Pq"}
    fc2 = {**FC, "id": "fc_1b8d4f6a", "call_id": "call_Jr7W", "arguments": '{"city":"Bergen"}'}
    output2 = {**OUTPUT, "call_id": "call_Jr7W"}
    data = log(
        exchange(RESPONSES, {"model": "gpt-5", "input": [R_ASK], "store": False},
                 {"id": "resp_1", "object": "response", "status": "completed", "output": [ITEM, FC, second, fc2]}),
        exchange(RESPONSES, {"model": "gpt-5", "store": False, "input": [
            R_ASK, {**ITEM, "encrypted_content": "gAAAAABo4vHEzz"}, FC, fc2, OUTPUT, output2]},
            {"id": "resp_2", "object": "response", "status": "completed", "output": []}),
    )
    [f] = check(data)
    assert f.message.startswith("the reasoning item rs_1b8d4f6a before the call 'get_weather'")
    assert f.message.endswith("was dropped on replay" + LOST) and f.pointer.endswith("#/input/3")
