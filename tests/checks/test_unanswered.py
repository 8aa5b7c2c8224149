"""A request that ends on the model's calls (TD102, and TD803 against a target): the model is asked
to go on past calls it has no result for. A response that ends on calls is the model asking for a
tool, a log that ends there is waiting for the results, and a body with no response that ends there
is a history at rest (what `convert` and `fix` write for such a conversation): none is a finding."""

import json

import pytest

from tests.checks.helpers import accepted, run_rules
from tests.checks.test_pairing import (
    ANTHROPIC,
    GEMINI,
    OPENAI,
    RESPONSES,
    assistant,
    call,
    candidate,
    chat,
    check,
    claude,
    completion,
    fcall,
    fresponse,
    gemini,
    log,
    message,
    tool,
    tool_result,
    tool_use,
    user,
)
from tooldbg.checks import select_rules
from tooldbg.load import load_bytes

BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5/converse"
OSLO = {"city": "Oslo"}


def _responses_call(cid):
    return {"type": "function_call", "call_id": cid, "name": "get_weather", "arguments": json.dumps(OSLO)}


#: format → (url, a request body ending on a call, the JSON pointer of that call, its wire id)
ENDING_ON_A_CALL = {
    "openai-chat": (OPENAI, chat(user("Weather in Oslo?"), assistant(call("call_A1", "get_weather", OSLO))),
                    "/messages/1/tool_calls/0", "call_A1"),
    "anthropic": (ANTHROPIC, claude(user("Weather in Oslo?"),
                                    {"role": "assistant", "content": [tool_use("toolu_01A", "get_weather", OSLO)]}),
                  "/messages/1/content/0", "toolu_01A"),
    "gemini": (GEMINI, gemini({"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
                              {"role": "model", "parts": [fcall("get_weather", OSLO)]}),
               "/contents/1/parts/0", None),
    "bedrock": (BEDROCK, {"messages": [
        {"role": "user", "content": [{"text": "Weather in Oslo?"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_A1", "name": "get_weather",
                                                       "input": OSLO}}]}]},
                "/messages/1/content/0", "tooluse_A1"),
    "openai-responses": (RESPONSES, {"model": "gpt-5.5", "input": [
        {"role": "user", "content": "Weather in Oslo?"}, _responses_call("call_A1")]}, "/input/1", "call_A1"),
}

#: format → a 200 response that answers with text, as a lenient server does
TEXT_ANSWER = {
    "openai-chat": completion("It is 4 °C in Oslo.", finish="stop"),
    "anthropic": message({"type": "text", "text": "It is 4 °C in Oslo."}, stop="end_turn"),
    "gemini": candidate({"text": "It is 4 °C in Oslo."}),
    "bedrock": {"output": {"message": {"role": "assistant", "content": [{"text": "It is 4 °C in Oslo."}]}},
                "stopReason": "end_turn", "usage": {"inputTokens": 9, "outputTokens": 9, "totalTokens": 18}},
    "openai-responses": {"id": "resp_2", "object": "response", "status": "completed", "model": "gpt-5.5",
                         "output": [{"id": "msg_2", "type": "message", "role": "assistant", "status": "completed",
                                     "content": [{"type": "output_text", "text": "It is 4 °C in Oslo.",
                                                  "annotations": []}]}]},
}


@pytest.mark.parametrize("fmt", ENDING_ON_A_CALL)
def test_td102_a_request_that_ends_on_a_call(fmt):
    """A lenient server answered it: the model went on as if the tool had run."""
    url, body, pointer, wire_id = ENDING_ON_A_CALL[fmt]
    data = log((url, body, TEXT_ANSWER[fmt]))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.exchange, finding.turn, finding.part) == ("TD102", 0, 1, 0)
    assert finding.pointer == f"/request/body#{pointer}"
    assert finding.message == (f"call i1 get_weather ({repr(wire_id) if wire_id else '(no id)'}) has no result, "
                               "but the request ends on it: the model is asked to go on without the result"
                               + accepted(0, "the model went on without the call's result"))


@pytest.mark.parametrize("fmt", ENDING_ON_A_CALL)
def test_a_body_with_no_response_that_ends_on_a_call_is_a_history_to_td102_and_td803(fmt):
    """No call is left unanswered in a history awaiting its results; sent to Anthropic as it is, though,
    the request ends on the assistant's turn: TD807 (a warning: no tools declared, an older model)."""
    url, body, _, _ = ENDING_ON_A_CALL[fmt]
    loaded = load_bytes("log.jsonl", log((url, body, None)))
    findings = run_rules(loaded, select_rules(["TD1", "TD8"], target="anthropic"), "anthropic")
    assert [(f.code, f.severity, f.turn) for f in findings] == [("TD807", "warning", 1)]


@pytest.mark.parametrize("fmt", ENDING_ON_A_CALL)
def test_td803_a_request_that_ends_on_a_call_is_rejected_by_the_target(fmt):
    url, body, pointer, wire_id = ENDING_ON_A_CALL[fmt]
    loaded = load_bytes("log.jsonl", log((url, body, TEXT_ANSWER[fmt])))
    findings = run_rules(loaded, select_rules(["TD803"], target="anthropic"), "anthropic")
    assert [(f.code, f.turn, f.part, f.pointer) for f in findings] == [("TD803", 1, 0, f"/request/body#{pointer}")]
    assert findings[0].message.startswith("call 'get_weather' has no result: the request ends on it, and "
                                          "anthropic rejects it, “messages.N: `tool_use` ids were found without")


def test_td803_a_response_that_ends_on_a_call_is_not_a_finding():
    data = log((OPENAI, chat(user("Weather in Oslo?")), completion(tool_calls=[call("call_A1", "get_weather", OSLO)])))
    for target in ("anthropic", "gemini", "openai-responses"):
        assert run_rules(load_bytes("log.jsonl", data), select_rules(["TD803"], target=target), target) == []


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic", "gemini"])
def test_a_log_whose_last_response_ends_on_a_call_is_clean(fmt):
    """Two rounds: the second request sends the first call's result, its response makes another call
    and the log ends there — the second call's result is simply not sent yet."""
    second_call = {"city": "Bergen"}
    if fmt == "openai-chat":
        first = call("call_A1", "get_weather", OSLO)
        exchanges = [(OPENAI, chat(user("Oslo, then Bergen?")), completion(tool_calls=[first])),
                     (OPENAI, chat(user("Oslo, then Bergen?"), assistant(first), tool("call_A1", "4 °C")),
                      completion(tool_calls=[call("call_B2", "get_weather", second_call)]))]
    elif fmt == "anthropic":
        first = tool_use("toolu_01A", "get_weather", OSLO)
        exchanges = [(ANTHROPIC, claude(user("Oslo, then Bergen?")), message(first)),
                     (ANTHROPIC, claude(user("Oslo, then Bergen?"), {"role": "assistant", "content": [first]},
                                        {"role": "user", "content": [tool_result("toolu_01A", "4 °C")]}),
                      message(tool_use("toolu_01B", "get_weather", second_call)))]
    else:
        ask = {"role": "user", "parts": [{"text": "Oslo, then Bergen?"}]}
        exchanges = [(GEMINI, gemini(ask), candidate(fcall("get_weather", OSLO))),
                     (GEMINI, gemini(ask, {"role": "model", "parts": [fcall("get_weather", OSLO)]},
                                     {"role": "user", "parts": [fresponse("get_weather", {"temp": "4 °C"})]}),
                      candidate(fcall("get_weather", second_call)))]
    data = log(*exchanges)
    assert check(data, ["TD1"]) == []
    assert run_rules(load_bytes("log.jsonl", data), select_rules(["TD803"], target="anthropic"), "anthropic") == []


def test_td102_an_earlier_request_that_ended_on_a_call_is_reported_at_that_request():
    """The client sent the history ending on the call (the tool still running), then again with the
    result: the first request is the defect, the second is fine."""
    oslo = call("call_A1", "get_weather", OSLO)
    data = log((OPENAI, chat(user("Weather in Oslo?"), assistant(oslo)), completion("Checking…", finish="stop")),
               (OPENAI, chat(user("Weather in Oslo?"), assistant(oslo), tool("call_A1", "4 °C")),
                completion("It is 4 °C.", finish="stop")))
    findings = check(data, ["TD1"])
    assert [(f.code, f.exchange, f.turn, f.part, f.pointer) for f in findings] == [
        ("TD102", 0, 1, 0, "line 1/request/body#/messages/1/tool_calls/0")]
