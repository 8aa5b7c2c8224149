"""TD4xx order and structure, TD6xx loop symptoms: each rule finds its defect at the right place,
stays quiet on the mended history, and on the real-traffic shapes the issue names (forced tool choice
answered with "stop", Gemini STOP, consecutive Anthropic messages, whole-call fragments…)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import paths
from tests.checks.helpers import DAMAGED, SYMPTOM, provider, run_rules
from tooldbg.checks import run_checks, select_rules
from tooldbg.convert import export
from tooldbg.load import load_bytes, load_file

ANTHROPIC = "https://api.anthropic.com/v1/messages"
OPENAI = "https://api.openai.com/v1/chat/completions"
RESPONSES = "https://api.openai.com/v1/responses"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5/converse"


def record(url, request, response=None, status=200):
    out = {"request": {"method": "POST", "url": url, "headers": {"content-type": "application/json"},
                       "body": request}}
    if response is not None:
        ctype = "text/event-stream" if isinstance(response, str) else "application/json"
        out["response"] = {"status": status, "headers": {"content-type": ctype}, "body": response}
    return out


def check(code, *records, name="log.jsonl"):
    """Load the records as JSON Lines (one exchange a line) and run the rules starting with `code`
    (a prefix, or several separated by commas)."""
    data = "\n".join(json.dumps(r) for r in records).encode()
    loaded = load_bytes(name, data)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return run_rules(loaded, select_rules(code.split(",")))


def one(findings, code):
    assert [f.code for f in findings] == [code], [f"{f.code} {f.message}" for f in findings]
    return findings[0]


# ------------------------------------------------------------------------------------ wire bits

def user(text):
    return {"role": "user", "content": text}


def oa_call(call_id, city, name="get_weather"):
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps({"city": city})}}


def oa_assistant(*calls, content=None):
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def oa_tool(call_id, content):
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def oa_request(*messages, **extra):
    return {"model": "gpt-4o-mini", "messages": list(messages), "tools": [OA_TOOL], **extra}


def oa_response(content=None, calls=(), finish="stop"):
    message = {"role": "assistant", "content": content, "refusal": None}
    if calls:
        message["tool_calls"] = list(calls)
    return {"id": "chatcmpl-B9x1", "object": "chat.completion", "created": 1767607512,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": 80, "completion_tokens": 12, "total_tokens": 92}}


FORCED = {"type": "function", "function": {"name": "get_weather"}}
OA_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
AN_TOOL = {"name": "get_weather", "description": "Current weather",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}


def tool_use(tool_id, city, **extra):
    return {"type": "tool_use", "id": tool_id, "name": "get_weather", "input": {"city": city}, **extra}


def tool_result(tool_id, content="4°C, overcast", **extra):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def text(value):
    return {"type": "text", "text": value}


def an_request(*messages, **extra):
    return {"model": "claude-haiku-4-5-20251001", "max_tokens": 1024, "tools": [AN_TOOL],
            "messages": list(messages), **extra}


def an_response(*content, stop="end_turn"):
    return {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
            "model": "claude-haiku-4-5-20251001", "content": list(content), "stop_reason": stop,
            "stop_sequence": None, "usage": {"input_tokens": 400, "output_tokens": 30}}


def an_error(message):
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message},
            "request_id": "req_011Cak2XdJgnzxKCY2BC2Beh"}


def fcall(name, city, **extra):
    return {"functionCall": {"name": name, "args": {"city": city}, **extra}}


def fresp(name, output, **extra):
    return {"functionResponse": {"name": name, "response": {"output": output}, **extra}}


def gm_request(*contents, mode="AUTO"):
    return {"contents": list(contents),
            "tools": [{"functionDeclarations": [
                {"name": "get_weather", "parametersJsonSchema": {"type": "object"}},
                {"name": "get_time", "parametersJsonSchema": {"type": "object"}}]}],
            "toolConfig": {"functionCallingConfig": {"mode": mode}}}


def gm_response(*parts, finish="STOP"):
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": finish,
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 61, "candidatesTokenCount": 15, "totalTokenCount": 76},
            "modelVersion": "gemini-2.5-flash", "responseId": "C7b3aaT"}


def br_request(*messages):
    return {"messages": list(messages), "inferenceConfig": {"maxTokens": 512},
            "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather",
                                                   "inputSchema": {"json": {"type": "object"}}}}]}}


def br_use(tool_id, city):
    return {"toolUse": {"toolUseId": tool_id, "name": "get_weather", "input": {"city": city}}}


def br_result(tool_id, content="4°C"):
    return {"toolResult": {"toolUseId": tool_id, "content": [{"text": content}], "status": "success"}}


# ------------------------------------------------------------------------- TD401 out of order


def test_td401_results_in_completion_order_are_a_warning_with_ids():
    history = [user("Weather in Oslo and Bergen?"),
               oa_assistant(oa_call("call_A1", "Oslo"), oa_call("call_B2", "Bergen")),
               oa_tool("call_B2", "7°C"), oa_tool("call_A1", "4°C")]
    f = one(check("TD401", record(OPENAI, oa_request(*history), oa_response("Oslo 4, Bergen 7."))), "TD401")
    assert f.severity == "warning"
    assert (f.conversation, f.turn, f.part) == ("c1", 2, 0)
    assert f.pointer == "/request/body#/messages/2"
    assert "'call_B2', 'call_A1'" in f.message and "'call_A1', 'call_B2'" in f.message


def test_td401_points_at_the_first_result_out_of_place():
    history = [user("Weather in Oslo, Rome and Bergen?"),
               oa_assistant(oa_call("call_A1", "Oslo"), oa_call("call_B2", "Rome"), oa_call("call_C3", "Bergen")),
               oa_tool("call_A1", "4°C"), oa_tool("call_C3", "7°C"), oa_tool("call_B2", "20°C")]
    f = one(check("TD401", record(OPENAI, oa_request(*history), oa_response("Done."))), "TD401")
    assert (f.turn, f.part, f.pointer) == (2, 1, "/request/body#/messages/3")


def test_td401_in_call_order_is_clean():
    history = [user("Weather in Oslo and Bergen?"),
               oa_assistant(oa_call("call_A1", "Oslo"), oa_call("call_B2", "Bergen")),
               oa_tool("call_A1", "4°C"), oa_tool("call_B2", "7°C")]
    assert check("TD401", record(OPENAI, oa_request(*history), oa_response("Oslo 4, Bergen 7."))) == []


def test_td401_gemini_without_ids_is_an_error():
    contents = [{"role": "user", "parts": [{"text": "Weather and time in Oslo?"}]},
                {"role": "model", "parts": [fcall("get_weather", "Oslo"), fcall("get_time", "Oslo")]},
                {"role": "user", "parts": [fresp("get_time", "14:05"), fresp("get_weather", {"temp_c": 4})]}]
    f = one(check("TD401", record(GEMINI, gm_request(*contents), gm_response({"text": "4 °C at 14:05."}))),
            "TD401")
    assert f.severity == "error"
    assert (f.turn, f.part) == (2, 0)
    assert f.pointer == "/request/body#/contents/2/parts/0"
    assert "by position" in f.message


def test_td401_gemini_with_ids_is_a_warning():
    contents = [{"role": "user", "parts": [{"text": "Weather and time in Oslo?"}]},
                {"role": "model", "parts": [fcall("get_weather", "Oslo", id="call_1"),
                                            fcall("get_time", "Oslo", id="call_2")]},
                {"role": "user", "parts": [fresp("get_time", "14:05", id="call_2"),
                                           fresp("get_weather", {"temp_c": 4}, id="call_1")]}]
    f = one(check("TD401", record(GEMINI, gm_request(*contents), gm_response({"text": "4 °C."}))), "TD401")
    assert f.severity == "warning"


def test_td401_sequential_calls_are_not_parallel():
    history = [user("Weather in Oslo, then Bergen?"), oa_assistant(oa_call("call_A1", "Oslo")),
               oa_tool("call_A1", "4°C"), oa_assistant(oa_call("call_B2", "Bergen")),
               oa_tool("call_B2", "7°C")]
    assert check("TD401", record(OPENAI, oa_request(*history), oa_response("Done."))) == []


# ------------------------------------------------------------------------ TD402 not adjacent


def test_td402_user_message_between_call_and_result():
    history = [user("Weather in Oslo?"), oa_assistant(oa_call("call_9", "Oslo")), user("Use Celsius."),
               oa_tool("call_9", "4°C")]
    f = one(check("TD402", record(OPENAI, oa_request(*history))), "TD402")
    assert (f.severity, f.evidence) == ("error", "provider")  # sent to OpenAI, which refuses it
    assert (f.conversation, f.turn, f.part) == ("c1", 3, 0)
    assert f.pointer == "/request/body#/messages/3"
    assert "'call_9'" in f.message and "turn 1" in f.message


def test_td402_counts_the_messages_between_when_there_are_several():
    history = [user("Weather in Oslo?"), oa_assistant(oa_call("call_9", "Oslo")), user("Use Celsius."),
               user("Hurry."), oa_tool("call_9", "4°C")]
    f = one(check("TD402", record(OPENAI, oa_request(*history))), "TD402")
    assert f.message == ("2 messages (from turn 2) come between the call 'call_9' (turn 1) and its result — "
                         "error: OpenAI rejects it (the URL host api.openai.com)")


def test_td402_a_result_after_an_orphan_in_the_same_tool_turn_is_still_judged():
    """Consecutive tool messages are one turn: the orphan (TD101's) before the late result does not
    end the search."""
    history = [user("Weather?"), oa_assistant(oa_call("call_A", "Oslo")), user("Hurry."),
               oa_tool("call_X", "?"), oa_tool("call_A", "4°C")]
    f = one(check("TD402", record(OPENAI, oa_request(*history))), "TD402")
    assert (f.turn, f.part, f.pointer) == (3, 1, "/request/body#/messages/4")
    assert f.message == ("a user message (turn 2) comes between the call 'call_A' (turn 1) and its result — "
                         "error: OpenAI rejects it (the URL host api.openai.com)")


def test_td402_in_a_canonical_document_each_turn_is_its_own_message():
    """A canonical document has no wire messages to regroup turns by: the user turn between the call
    and its result is still reported, as it was in the log the document was converted from."""
    history = [user("Weather in Oslo?"), oa_assistant(oa_call("call_9", "Oslo")), user("Use Celsius."),
               oa_tool("call_9", "4°C")]
    log = json.dumps(record(OPENAI, oa_request(*history), oa_response("4 °C."))).encode()
    document = export(load_bytes("log.jsonl", log).conversations, "canonical").body
    loaded = load_bytes("session.json", json.dumps(document).encode())
    assert [(f.code, f.conversation, f.turn, f.part, f.message) for f in run_rules(loaded, select_rules(["TD4"]))] \
        == [("TD402", "c1", 3, 0, "a user message (turn 2) comes between the call 'call_9' (turn 1) and its result"
             " — warning: not documented as refused")]  # a document has no wire that pairs strictly

def test_td402_adjacent_results_are_clean():
    history = [user("Weather in Oslo?"), oa_assistant(oa_call("call_9", "Oslo")), oa_tool("call_9", "4°C"),
               user("Use Celsius.")]
    assert check("TD402", record(OPENAI, oa_request(*history), oa_response("4 °C."))) == []


def test_td402_gemini_results_split_over_two_contents():
    contents = [{"role": "user", "parts": [{"text": "Weather and time in Oslo?"}]},
                {"role": "model", "parts": [fcall("get_weather", "Oslo"), fcall("get_time", "Oslo")]},
                {"role": "user", "parts": [fresp("get_weather", {"temp_c": 4})]},
                {"role": "user", "parts": [fresp("get_time", "14:05")]}]
    f = one(check("TD402", record(GEMINI, gm_request(*contents))), "TD402")
    assert (f.turn, f.part, f.severity) == (3, 0, "error")
    assert f.pointer == "/request/body#/contents/3/parts/0"


def test_td402_anthropic_consecutive_user_messages_are_combined():
    """The recorded shape Anthropic accepted: results in the first of two user messages, and a call
    split from its text into a second assistant message."""
    messages = [{"role": "assistant", "content": [text("I will check the weather.")]},
                {"role": "assistant", "content": [tool_use("call_1", "Paris")]},
                {"role": "user", "content": [tool_result("call_1")]},
                {"role": "user", "content": [text("Use that result to answer briefly.")]}]
    assert check("TD4", record(ANTHROPIC, an_request(*messages), an_response(text("72F.")))) == []


def test_td402_responses_api_is_a_warning():
    body = {"model": "gpt-5.5", "input": [
        {"role": "user", "content": "Weather in Oslo?"},
        {"type": "function_call", "call_id": "call_X", "name": "get_weather",
         "arguments": "{\"city\":\"Oslo\"}"},
        {"role": "user", "content": "Celsius please."},
        {"type": "function_call_output", "call_id": "call_X", "output": "4°C"}]}
    f = one(check("TD402", record(RESPONSES, body)), "TD402")
    assert (f.turn, f.severity) == (3, "warning")


# ------------------------------------------------------------------------ TD403 after text


def test_td403_text_before_the_results():
    messages = [user("Weather in Oslo?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo")]},
                {"role": "user", "content": [text("Here is what the tool said."), tool_result("toolu_01A")]}]
    f = one(check("TD403", record(ANTHROPIC, an_request(*messages))), "TD403")
    assert (f.conversation, f.turn, f.part, f.severity) == ("c1", 3, 0, "error")
    assert f.pointer == "/request/body#/messages/2/content/1"
    assert "toolu_01A" in f.message


def test_td403_results_first_is_clean():
    messages = [user("Weather in Oslo?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo")]},
                {"role": "user", "content": [tool_result("toolu_01A"), text("Answer in Celsius.")]}]
    assert check("TD403", record(ANTHROPIC, an_request(*messages), an_response(text("4 °C.")))) == []


def test_td403_text_message_before_the_result_message_is_combined():
    messages = [user("Weather in Oslo?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo")]},
                user("Here you go."), {"role": "user", "content": [tool_result("toolu_01A")]}]
    f = one(check("TD403", record(ANTHROPIC, an_request(*messages))), "TD403")
    assert f.pointer == "/request/body#/messages/3/content/0"


def test_td403_only_anthropic():
    contents = [{"role": "user", "parts": [{"text": "Weather?"}]},
                {"role": "model", "parts": [fcall("get_weather", "Oslo")]},
                {"role": "user", "parts": [{"text": "Here:"}, fresp("get_weather", {"temp_c": 4})]}]
    assert check("TD403", record(GEMINI, gm_request(*contents))) == []


# ------------------------------------------------------------------------ TD404 malformed turn


def test_td404_gemini_function_role():
    contents = [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
                {"role": "model", "parts": [fcall("get_weather", "Oslo")]},
                {"role": "function", "parts": [fresp("get_weather", {"temp_c": 4})]}]
    f = one(check("TD404", record(GEMINI, gm_request(*contents))), "TD404")
    assert (f.turn, f.part, f.severity) == (2, None, "error")
    assert f.pointer == "/request/body#/contents/2/role"
    assert "function" in f.message


def test_a_request_that_could_not_be_read_is_reported_not_judged():
    """Its tools are not a list: the request is an error of the file, and its roles (a `function`
    content, TD404's in a readable request) are not judged from its raw body."""
    contents = [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
                {"role": "model", "parts": [fcall("get_weather", "Oslo")]},
                {"role": "function", "parts": [fresp("get_weather", {"temp_c": 4})]}]
    body = {**gm_request(*contents), "tools": "get_weather"}
    loaded = load_bytes("log.jsonl", json.dumps(record(GEMINI, body, gm_response({"text": "4 °C."}))).encode())
    assert [str(e) for e in loaded.errors] == ["log.jsonl:/request/body#/tools: tools must be a list, not a string"]
    assert run_checks(loaded, select_rules(["TD4"])) == []


def test_td404_gemini_call_turn_after_a_model_turn():
    contents = [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
                {"role": "model", "parts": [{"text": "Let me check."}]},
                {"role": "model", "parts": [fcall("get_weather", "Oslo")]},
                {"role": "user", "parts": [fresp("get_weather", {"temp_c": 4})]}]
    f = one(check("TD404", record(GEMINI, gm_request(*contents))), "TD404")
    assert (f.turn, f.part) == (2, 0)
    assert f.pointer == "/request/body#/contents/2/parts/0"
    assert f.message.startswith("a function call turn follows another model turn: Gemini answers \"Please ensure "
                                "that function call turn comes immediately after a user turn or after a function "
                                "response turn.\" — ")


def test_td404_a_replayed_call_turn_is_found_in_the_request_that_replays_it():
    """The call turn came in exchange 0's response; exchange 1 replays it after another model turn,
    which is what Gemini refuses: the finding points into that request, not into the response."""
    asked = [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
             {"role": "model", "parts": [{"text": "Let me check."}]}]
    replayed = [*asked, {"role": "model", "parts": [fcall("get_weather", "Oslo")]},
                {"role": "user", "parts": [fresp("get_weather", {"temp_c": 4})]}]
    f = one(check("TD404", record(GEMINI, gm_request(*asked), gm_response(fcall("get_weather", "Oslo"))),
                  record(GEMINI, gm_request(*replayed))), "TD404")
    assert (f.exchange, f.turn, f.part) == (1, 2, 0)
    assert f.pointer == "line 2/request/body#/contents/2/parts/0"


def test_td404_bedrock_an_answer_replayed_after_another_assistant_message_is_found_in_the_request():
    answer = {"output": {"message": {"role": "assistant", "content": [{"text": "It is cold."}]}},
              "stopReason": "end_turn", "usage": {"inputTokens": 5, "outputTokens": 3, "totalTokens": 8}}
    ask = {"role": "user", "content": [{"text": "Weather in Oslo?"}]}
    prefill = {"role": "assistant", "content": [{"text": "Let me think."}]}
    replayed = br_request(ask, prefill, answer["output"]["message"], {"role": "user", "content": [{"text": "Thanks"}]})
    f = one(check("TD404", record(BEDROCK, br_request(ask, prefill), answer), record(BEDROCK, replayed)), "TD404")
    assert (f.exchange, f.turn, f.pointer) == (1, 2, "line 2/request/body#/messages/2")
    assert f.message.startswith("two consecutive assistant messages: Bedrock answers")


def test_td404_gemini_history_opening_with_a_call():
    contents = [{"role": "model", "parts": [fcall("get_weather", "Oslo")]},
                {"role": "user", "parts": [fresp("get_weather", {"temp_c": 4})]}]
    f = one(check("TD404", record(GEMINI, gm_request(*contents))), "TD404")
    assert (f.turn, f.part) == (0, 0) and "opens the history" in f.message


def test_td404_gemini_clean_loop():
    contents = [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
                {"role": "model", "parts": [{"text": "Checking."}, fcall("get_weather", "Oslo")]},
                {"role": "user", "parts": [fresp("get_weather", {"temp_c": 4})]},
                {"role": "model", "parts": [fcall("get_weather", "Bergen")]},
                {"role": "user", "parts": [fresp("get_weather", {"temp_c": 7})]}]
    assert check("TD404", record(GEMINI, gm_request(*contents), gm_response({"text": "4 and 7."}))) == []


def test_td404_anthropic_accepts_consecutive_roles_and_an_assistant_start():
    messages = [{"role": "assistant", "content": [text("I will check the weather.")]},
                {"role": "assistant", "content": [tool_use("call_1", "Paris")]},
                {"role": "user", "content": [tool_result("call_1")]}, user("Answer briefly.")]
    assert check("TD404", record(ANTHROPIC, an_request(*messages), an_response(text("72F.")))) == []


def test_td404_anthropic_empty_message_but_not_the_final_prefill():
    messages = [user("Weather in Oslo?"), {"role": "assistant", "content": []}, user("Hello?"),
                {"role": "assistant", "content": ""}]
    f = one(check("TD404", record(ANTHROPIC, an_request(*messages))), "TD404")
    assert (f.turn, f.part, f.severity) == (1, None, "error")
    assert f.pointer == "/request/body#/messages/1"
    assert "non-empty content" in f.message


def test_td404_bedrock_roles_must_alternate():
    messages = [{"role": "user", "content": [{"text": "Weather in Oslo?"}]},
                {"role": "user", "content": [{"text": "In Celsius."}]}]
    f = one(check("TD404", record(BEDROCK, br_request(*messages))), "TD404")
    assert (f.turn, f.severity) == (1, "error")
    assert f.pointer == "/request/body#/messages/1"


def test_td404_bedrock_must_start_with_user():
    messages = [{"role": "assistant", "content": [{"text": "Hello!"}]},
                {"role": "user", "content": [{"text": "Weather in Oslo?"}]}]
    f = one(check("TD404", record(BEDROCK, br_request(*messages))), "TD404")
    assert f.turn == 0 and "start with a user message" in f.message


def test_td404_bedrock_results_and_text_in_one_message_are_one_message():
    messages = [{"role": "user", "content": [{"text": "Weather in Oslo?"}]},
                {"role": "assistant", "content": [br_use("tooluse_a8nlf2bqGLcZvaSoBpQ1sH", "Oslo")]},
                {"role": "user", "content": [br_result("tooluse_a8nlf2bqGLcZvaSoBpQ1sH"),
                                             {"text": "Briefly."}]}]
    assert check("TD4", record(BEDROCK, br_request(*messages))) == []


def test_td404_openai_assistant_with_null_content_and_no_calls():
    history = [user("Hi"), {"role": "assistant", "content": None}, user("Weather in Oslo?")]
    f = one(check("TD404", record(OPENAI, oa_request(*history))), "TD404")
    assert (f.turn, f.severity) == (1, "error")
    history[1] = {"role": "assistant", "content": ""}
    f = one(check("TD404", record(OPENAI, oa_request(*history))), "TD404")
    assert f.severity == "warning"


def test_td404_gemini_content_without_parts_and_openai_audio_replay():
    contents = [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]}, {"role": "model", "parts": []},
                {"role": "user", "parts": [{"text": "Hello?"}]}]
    f = one(check("TD404", record(GEMINI, gm_request(*contents))), "TD404")
    assert (f.turn, f.severity) == (1, "error")
    assert f.message == ("an empty model message: Gemini: contents.parts must not be empty — error: Google Gemini "
                         "rejects it (the URL host generativelanguage.googleapis.com)")
    history = [user("Say hi"), {"role": "assistant", "content": None, "audio": {"id": "audio_6f1e2d"}},
               user("Again?")]
    assert check("TD404", record(OPENAI, oa_request(*history))) == []
    # the audio answer is passed over, not the end of the search: an empty one after it is found
    history += [{"role": "assistant", "content": None}, user("Hello?")]
    f = one(check("TD404", record(OPENAI, oa_request(*history))), "TD404")
    assert (f.turn, f.severity) == (3, "error")
    assert f.message.startswith("an empty assistant message: OpenAI: an assistant message without tool_calls "
                                "needs a content — ")


def test_td404_responses_has_no_tool_role():
    body = {"model": "gpt-5.5", "input": [
        {"role": "user", "content": "Weather in Oslo?"},
        {"type": "function_call", "call_id": "call_X", "name": "get_weather",
         "arguments": "{\"city\":\"Oslo\"}"},
        {"role": "tool", "tool_call_id": "call_X", "content": "4°C"}]}
    f = one(check("TD404", record(RESPONSES, body)), "TD404")
    assert f.pointer == "/request/body#/input/2" and "'tool'" in f.message
    assert (f.turn, f.part) == (2, 0)


def test_td404_an_empty_answer_is_not_judged():
    """Gemini answers a malformed call with no content: that is the provider's output, not a request."""
    contents = [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]}]
    response = {"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}],
                "modelVersion": "gemini-2.5-flash"}
    assert check("TD404", record(GEMINI, gm_request(*contents), response)) == []


def _every_rule(*records, target=None):
    data = "\n".join(json.dumps(r) for r in records).encode()
    loaded = load_bytes("log.jsonl", data)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return loaded, run_rules(loaded, select_rules(target=target), target)


ANTHROPIC_CALL = {"type": "tool_use", "id": "toolu_01Hq5fWm3Tk", "name": "get_weather", "input": {"city": "Oslo"}}
ANTHROPIC_RESULT = {"type": "tool_result", "tool_use_id": "toolu_01Hq5fWm3Tk", "content": "4°C", "is_error": False}


def test_td404_anthropic_blocks_on_the_chat_endpoint_still_pair():
    """Each foreign block is one TD404 at the block; read as the call and its result, so no orphan,
    unanswered call or argument rule adds to it."""
    body = {"model": "gpt-4.1", "messages": [
        user("Weather in Oslo?"),
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, ANTHROPIC_CALL]},
        {"role": "user", "content": [ANTHROPIC_RESULT, {"type": "text", "text": "And tomorrow?"}]}]}
    loaded, findings = _every_rule(record(OPENAI, body))
    assert [(f.code, f.turn, f.part, f.pointer) for f in findings] == [
        ("TD404", 1, 1, "/request/body#/messages/1/content/1"),
        ("TD404", 2, 0, "/request/body#/messages/2/content/0")]
    assert "read as the call i1 get_weather" in findings[0].message
    [conv] = loaded.conversations
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool", "user"]
    [call] = conv.turns[1].invocations()
    [result] = conv.turns[2].results()
    assert (call.wire_id, call.arguments, result.invocation_id) == ("toolu_01Hq5fWm3Tk", {"city": "Oslo"}, call.id)


@pytest.mark.parametrize("block", [
    {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"},
    {"type": "image", "source_type": "base64", "data": "iVBORw0KGgo=", "mime_type": "image/png"},
    {"type": "image", "url": "data:image/png;base64,iVBORw0KGgo="},
], ids=["langchain-v1", "langchain-v0", "langchain-data-url"])
def test_td404_a_langchain_image_block_in_a_tool_message_and_td804_with_the_target(block):
    body = {"model": "gpt-4.1", "messages": [
        user("Screenshot it"), oa_assistant(oa_call("call_A1", "Oslo", name="screenshot")),
        {"role": "tool", "tool_call_id": "call_A1", "content": [block]}]}
    loaded, findings = _every_rule(record(OPENAI, body))
    f = one(findings, "TD404")
    assert (f.turn, f.part, f.pointer) == (2, 0, "/request/body#/messages/2/content/0")
    assert f.message.endswith("read as image (image/png) — error: OpenAI rejects it (the URL host api.openai.com)")
    [media] = loaded.conversations[0].turns[2].parts[0].content
    assert (media.kind, media.media_type, media.data) == ("image", "image/png", "iVBORw0KGgo=")
    _, targeted = _every_rule(record(OPENAI, body), target="openai-chat")
    assert [x.code for x in targeted] == ["TD404", "TD804"]


def test_td404_a_chat_image_url_part_in_an_anthropic_message():
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is in the picture?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "high"}}]}]}
    loaded, findings = _every_rule(record(ANTHROPIC, body))
    f = one(findings, "TD404")
    assert (f.turn, f.part) == (0, 1)
    assert f.message.endswith("read as image — error: Anthropic rejects it (the URL host api.anthropic.com)")
    assert loaded.conversations[0].turns[0].parts[1].url == "https://example.com/cat.png"


def test_td404_an_unknown_block_is_kept_verbatim_and_reported():
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": [
        {"type": "input_text", "text": "Weather in Oslo?"}]}]}
    f = one(check("TD404", record(OPENAI, body)), "TD404")
    assert f.message.endswith("kept verbatim" + provider("OpenAI", "the URL host api.openai.com"))
    assert "'input_text'" in f.message


def test_td404_anthropic_server_tool_blocks_are_its_own():
    """`server_tool_use`, `*_tool_result` and a tool result's own blocks are Anthropic's: no finding."""
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "Oslo"}}
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [
        user("Weather in Oslo?"),
        {"role": "assistant", "content": [search, found, {"type": "text", "text": "Checking."}, ANTHROPIC_CALL]},
        {"role": "user", "content": [{**ANTHROPIC_RESULT, "content": [{"type": "text", "text": "4°C"}]}]}]}
    assert check("TD404", record(ANTHROPIC, body)) == []


# ------------------------------------------------------------------------ TD405 text after call


def test_td405_the_recorded_rejection():
    """The shape of opencode's `rejects-malformed-assistant-tool-order-without-patch` recording."""
    messages = [{"role": "assistant",
                 "content": [tool_use("call_1", "Paris"), text("I will check the weather.")]},
                {"role": "user", "content": [tool_result("call_1", "{\"temperature\":\"72F\"}")]},
                user("Use that result to answer briefly.")]
    error = an_error("messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
                     "after: call_1. Each `tool_use` block must have a corresponding `tool_result` block "
                     "in the next message.")
    findings = check("TD4", record(ANTHROPIC, an_request(*messages, stream=True), error, 400))
    f = one(findings, "TD405")
    assert (f.conversation, f.turn, f.part, f.severity) == ("c1", 0, 1, "error")
    assert f.pointer == "/request/body#/messages/0/content/1"
    assert "'call_1'" in f.message


def test_a_rejection_two_rules_explain_names_both():
    """Text after the call, and no result after it: Anthropic's one 400 for both, which TD901 quotes and
    points at each rule that found its cause on the request."""
    messages = [user("Weather?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo"), text("Checking.")]},
                user("Well?")]
    error = an_error("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
                     "toolu_01A. Each `tool_use` block must have a corresponding `tool_result` block in the next "
                     "message.")
    findings = check("TD", record(ANTHROPIC, an_request(*messages), error, 400))
    assert [f.code for f in findings] == ["TD901", "TD102", "TD405"]
    assert findings[0].message.endswith("in the next message.” — see TD102, TD405")


@pytest.mark.parametrize(("block", "named"), [
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
     "an image block"),
    ({"type": "search_result", "source": "https://example.com/oslo", "title": "Oslo",
      "content": [{"type": "text", "text": "4°C"}]}, "a search_result block"),
])
def test_td405_names_the_block_after_the_call_as_the_wire_does(block, named):
    messages = [user("Weather?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo"), block]},
                {"role": "user", "content": [tool_result("toolu_01A")]}]
    f = one(check("TD405", record(ANTHROPIC, an_request(*messages))), "TD405")
    assert (f.turn, f.part) == (1, 1)
    assert f.message == (f"{named} after tool_use 'toolu_01A' in the same assistant message: Anthropic rejects "
                         "it as if the call had no tool_result — error: Anthropic rejects it (the URL host "
                         "api.anthropic.com)")


def test_td405_text_first_is_clean():
    messages = [user("Weather?"),
                {"role": "assistant", "content": [text("I will check."), tool_use("toolu_01A", "Oslo")]},
                {"role": "user", "content": [tool_result("toolu_01A")]}]
    assert check("TD405", record(ANTHROPIC, an_request(*messages))) == []


def test_td405_a_text_message_after_the_call_message_is_combined_with_it():
    messages = [user("Weather?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo")]},
                {"role": "assistant", "content": "I will check."},
                {"role": "user", "content": [tool_result("toolu_01A")]}]
    f = one(check("TD405", record(ANTHROPIC, an_request(*messages))), "TD405")
    assert (f.turn, f.part) == (2, 0)


def test_td405_calls_made_by_code_execution_and_unreplayed_answers_are_skipped():
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_01Cb"}
    answer = an_response(tool_use("toolu_01P", "Oslo", caller=caller), text("Game over!"))
    assert check("TD405", record(ANTHROPIC, an_request(user("Play.")), answer)) == []
    replayed = {"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_01Cb", "name": "code_execution", "input": {"code": "…"}},
        tool_use("toolu_01P", "Oslo", caller=caller),
        {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_01Cb",
         "content": {"type": "code_execution_result", "stdout": "3-0", "stderr": "", "return_code": 0}},
        text("Game over!")]}
    assert check("TD405", record(ANTHROPIC, an_request(user("Play."), replayed, user("Again?")))) == []
    answer = an_response(tool_use("toolu_01A", "Oslo"), text("Checking."), stop="tool_use")
    assert check("TD405", record(ANTHROPIC, an_request(user("Weather?")), answer)) == []


def test_td405_bedrock_is_a_warning():
    messages = [{"role": "user", "content": [{"text": "Weather in Oslo?"}]},
                {"role": "assistant", "content": [br_use("tooluse_abc", "Oslo"), {"text": "Checking."}]},
                {"role": "user", "content": [br_result("tooluse_abc")]}]
    f = one(check("TD405", record(BEDROCK, br_request(*messages))), "TD405")
    assert (f.turn, f.part, f.severity) == (1, 1, "warning")


# ------------------------------------------------------------------------ TD406 empty text


def test_td406_empty_text_beside_a_call():
    messages = [user("Weather?"), {"role": "assistant", "content": [text(""), tool_use("toolu_01A", "Oslo")]},
                {"role": "user", "content": [tool_result("toolu_01A")]}]
    f = one(check("TD406", record(ANTHROPIC, an_request(*messages))), "TD406")
    assert (f.turn, f.part, f.severity) == (1, 0, "error")
    assert f.pointer == "/request/body#/messages/1/content/0"
    assert "beside the call 'get_weather'" in f.message and "must be non-empty" in f.message


def test_td406_whitespace_and_bedrock_blank_text():
    messages = [user("Weather?"),
                {"role": "assistant", "content": [text(" \n"), tool_use("toolu_01A", "Oslo")]},
                {"role": "user", "content": [tool_result("toolu_01A")]}]
    assert one(check("TD406", record(ANTHROPIC, an_request(*messages))), "TD406").message == (
        "a whitespace-only text block beside the call 'get_weather'; Anthropic: text content blocks must contain "
        "non-whitespace text — error: Anthropic rejects it (the URL host api.anthropic.com)")
    messages = [{"role": "user", "content": [{"text": "Weather in Oslo?"}]},
                {"role": "assistant", "content": [{"text": ""}, br_use("tooluse_abc", "Oslo")]},
                {"role": "user", "content": [br_result("tooluse_abc")]}]
    f = one(check("TD406", record(BEDROCK, br_request(*messages))), "TD406")
    assert f.pointer == "/request/body#/messages/1/content/0" and "blank" in f.message


def test_td406_an_empty_string_content_is_an_empty_text_block():
    messages = [user(""), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo")]},
                {"role": "user", "content": [tool_result("toolu_01A")]}, {"role": "assistant", "content": ""}]
    findings = check("TD4", record(ANTHROPIC, an_request(*messages)))
    f = one(findings, "TD406")
    assert (f.turn, f.part) == (0, 0) and f.pointer == "/request/body#/messages/0/content"
    assert "must be non-empty" in f.message


def test_td406_other_formats_and_answers_are_not_judged():
    history = [user("Weather?"),
               oa_assistant(oa_call("call_9", "Oslo"), content=[{"type": "text", "text": ""}]),
               oa_tool("call_9", "4°C")]
    assert check("TD406", record(OPENAI, oa_request(*history))) == []
    answer = an_response(text(""), tool_use("toolu_01A", "Oslo"), stop="tool_use")
    assert check("TD406", record(ANTHROPIC, an_request(user("Weather?")), answer)) == []


def test_td406_an_answer_replayed_with_its_empty_text_is_found_in_the_request_that_sends_it():
    answer = an_response(text(""), tool_use("toolu_01A", "Oslo"), stop="tool_use")
    replayed = an_request(user("Weather?"), {"role": "assistant", "content": [text(""), tool_use("toolu_01A", "Oslo")]},
                          {"role": "user", "content": [tool_result("toolu_01A")]})
    f = one(check("TD406", record(ANTHROPIC, an_request(user("Weather?")), answer), record(ANTHROPIC, replayed)),
            "TD406")
    assert (f.exchange, f.turn, f.part) == (1, 1, 0)
    assert f.pointer == "line 2/request/body#/messages/1/content/0"


# ------------------------------------------------------------------------ TD601 repeated call


def _loop(second_args, result="4°C, overcast", between=()):
    first = [user("Weather in Oslo?"), oa_assistant(oa_call("call_1", "Oslo")), oa_tool("call_1", result),
             *between]
    return record(OPENAI, oa_request(*first),
                  oa_response(calls=[oa_call("call_2", second_args)], finish="tool_calls"))


def test_td601_the_same_call_right_after_its_result():
    f = one(check("TD601", _loop("Oslo")), "TD601")
    assert (f.conversation, f.turn, f.part, f.severity) == ("c1", 3, 0, "warning")
    assert f.pointer == "/response/body#/choices/0/message/tool_calls/0"
    assert "'call_1'" in f.message and "turn 2" in f.message


def test_td601_equal_arguments_are_compared_parsed():
    rec = _loop("Oslo")
    rec["response"]["body"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = \
        '{ "city" : "Oslo" }'
    assert [f.code for f in check("TD601", rec)] == ["TD601"]


def test_td601_key_order_does_not_make_other_arguments():
    """The model repeats the call with its keys in another order: the same arguments, reported."""
    history = [user("Weather in Oslo?"), oa_assistant(oa_call("call_1", "Oslo")), oa_tool("call_1", "4°C")]
    history[1]["tool_calls"][0]["function"]["arguments"] = '{"city": "Oslo", "units": "metric"}'
    again = oa_call("call_2", "Oslo")
    again["function"]["arguments"] = '{"units": "metric", "city": "Oslo"}'
    rec = record(OPENAI, oa_request(*history), oa_response(calls=[again], finish="tool_calls"))
    assert [(f.code, f.turn, f.part, f.message) for f in check("TD601", rec)] == [
        ("TD601", 3, 0, "get_weather called again with the same arguments as 'call_1', right after its "
                        "result came back in turn 2: the model may not have seen that result" + SYMPTOM)]

def test_td601_other_arguments_a_failed_result_or_a_user_turn_between_are_clean():
    assert check("TD601", _loop("Bergen")) == []
    rec = record(ANTHROPIC, an_request(
        user("Weather in Oslo?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo")]},
        {"role": "user", "content": [tool_result("toolu_01A", "timeout", is_error=True)]}),
        an_response(tool_use("toolu_01B", "Oslo"), stop="tool_use"))
    assert check("TD601", rec) == []
    assert check("TD601", _loop("Oslo", between=[oa_assistant(content="4 °C."), user("Check again?")])) == []


def test_td601_another_call_between_is_clean():
    history = [user("Weather in Oslo?"), oa_assistant(oa_call("call_1", "Oslo")), oa_tool("call_1", "4°C"),
               oa_assistant(oa_call("call_2", "Bergen")), oa_tool("call_2", "7°C")]
    rec = record(OPENAI, oa_request(*history),
                 oa_response(calls=[oa_call("call_3", "Oslo")], finish="tool_calls"))
    assert check("TD601", rec) == []


def test_td601_result_text_beside_the_results_does_not_hide_a_repeat():
    rec = record(ANTHROPIC, an_request(
        user("Weather in Oslo?"), {"role": "assistant", "content": [tool_use("toolu_01A", "Oslo")]},
        {"role": "user", "content": [tool_result("toolu_01A"), text("Answer briefly.")]}),
        an_response(tool_use("toolu_01B", "Oslo"), stop="tool_use"))
    f = one(check("TD601", rec), "TD601")
    assert f.turn == 4


# ------------------------------------------------------------------------ TD602 finish reason


def test_td602_tool_calls_finish_without_a_call():
    rec = record(OPENAI, oa_request(user("Weather in Oslo?")),
                 oa_response("I'll look that up.", finish="tool_calls"))
    f = one(check("TD602", rec), "TD602")
    assert (f.conversation, f.turn, f.part, f.severity) == ("c1", 1, None, "error")
    assert f.pointer == "/response/body#/choices/0/finish_reason"


def test_td602_points_at_the_chunk_of_a_stream():
    chunks = [{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me check."},
                            "finish_reason": None}], "obfuscation": "x1"},
              {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}], "obfuscation": "y2"}]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    f = one(check("TD602", record(OPENAI, oa_request(user("Weather?"), stream=True), sse)), "TD602")
    assert f.chunk == 1 and f.pointer == "/response/body#/choices/0/finish_reason"


def test_td602_anthropic_tool_use_stop_without_a_tool_use():
    rec = record(ANTHROPIC, an_request(user("Weather in Oslo?")),
                 an_response(text("Checking."), stop="tool_use"))
    f = one(check("TD602", rec), "TD602")
    assert f.pointer == "/response/body#/stop_reason"


def test_td602_the_reverse_is_normal():
    """OpenAI answers a forced tool_choice with "stop", Gemini ends a call turn with STOP."""
    forced = oa_request(user("Weather?"), tool_choice=FORCED)
    answer = oa_response(calls=[oa_call("call_9", "Oslo")], finish="stop")
    assert check("TD602", record(OPENAI, forced, answer)) == []
    answer = gm_response(fcall("get_weather", "Oslo"), finish="STOP")
    question = gm_request({"role": "user", "parts": [{"text": "Weather?"}]})
    assert check("TD602", record(GEMINI, question, answer)) == []
    assert check("TD602", record(OPENAI, oa_request(user("Hi")), oa_response("Hello!"))) == []


def _legacy(message, finish="function_call"):
    """A Chat Completions answer from the `functions` era: `finish_reason: "function_call"`."""
    request = {"model": "gpt-3.5-turbo-0613", "messages": [user("Weather in Oslo?")],
               "functions": [{"name": "get_weather", "parameters": {
                   "type": "object", "properties": {"city": {"type": "string"}}}}]}
    response = {"id": "chatcmpl-7", "object": "chat.completion", "created": 1686000000,
                "model": "gpt-3.5-turbo-0613",
                "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}]}
    return record(OPENAI, request, response)


def test_td602_legacy_function_call_finish_with_its_function_call_is_clean():
    rec = _legacy({"content": None, "function_call": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}})
    assert check("TD602", rec) == []
    assert check("TD", rec) == []


def test_td602_legacy_function_call_finish_without_a_call():
    f = one(check("TD602", _legacy({"content": "Let me look that up."})), "TD602")
    assert (f.severity, f.exchange, f.conversation, f.turn, f.part, f.pointer) == (
        "error", 0, "c1", 1, None, "/response/body#/choices/0/finish_reason")
    assert f.message == ("finish reason 'function_call', but the message holds no tool call (text only): "
                         "the calls were lost before the log" + DAMAGED)


def test_td602_a_call_kept_verbatim_is_still_a_call():
    """A relay put Gemini's `functionCall` part into a Converse answer: the reader keeps the block
    verbatim, but the call the `tool_use` stop announces is there, so nothing was lost."""
    answer = {"output": {"message": {"role": "assistant", "content": [
                  {"text": "Checking."}, {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]}},
              "stopReason": "tool_use", "usage": {"inputTokens": 30, "outputTokens": 20, "totalTokens": 50},
              "metrics": {"latencyMs": 812}}
    rec = record(BEDROCK, br_request({"role": "user", "content": [{"text": "Weather in Oslo?"}]}), answer)
    assert check("TD602", rec) == []
    del answer["output"]["message"]["content"][1]  # without it, the calls were lost
    assert [(f.code, f.turn, f.part) for f in check("TD602", rec)] == [("TD602", 1, None)]

# ------------------------------------------------------------------------ TD603 tools ignored


def test_td603_required_tool_choice_answered_with_text():
    rec = record(OPENAI, oa_request(user("Weather in Oslo?"), tool_choice="required"),
                 oa_response("It is usually cold in Oslo."))
    f = one(check("TD603", rec), "TD603")
    assert (f.conversation, f.turn, f.part, f.severity) == ("c1", 1, 0, "warning")
    assert f.pointer == "/response/body#/choices/0/message/content"


def test_td603_gemini_mode_any_answered_with_text():
    answer = gm_response({"text": "Oslo is cold."})
    rec = record(GEMINI, gm_request({"role": "user", "parts": [{"text": "Weather?"}]}, mode="ANY"), answer)
    assert one(check("TD603", rec), "TD603").turn == 1


def test_td603_a_refusal_is_not_ignoring_the_tools():
    answer = oa_response()
    answer["choices"][0]["message"]["refusal"] = "I can't help with that."
    rec = record(OPENAI, oa_request(user("Weather in Oslo?"), tool_choice="required"), answer)
    assert check("TD603", rec) == []


def test_td603_auto_or_a_forced_call_is_clean():
    rec = record(OPENAI, oa_request(user("Hi"), tool_choice="auto"), oa_response("Hello!"))
    assert check("TD603", rec) == []
    forced = oa_request(user("Weather?"), tool_choice=FORCED)
    groq = oa_response(calls=[oa_call("mcf2d8nn1", "Oslo")], finish="tool_calls")
    assert check("TD603", record(OPENAI, forced, groq)) == []
    assert check("TD603", record(OPENAI, forced, oa_response(calls=[oa_call("call_9", "Oslo")]))) == []


# ------------------------------------------------------------------- precision on real shapes


@pytest.mark.parametrize("code", ["TD4", "TD6"])
def test_whole_call_in_one_fragment_and_obfuscation_padding_are_clean(code):
    """Groq sends a whole call in one chunk; OpenAI pads chunks with obfuscation."""
    chunks = [{"id": "chatcmpl-g", "object": "chat.completion.chunk", "created": 1, "model": "llama",
               "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                   {"id": "mcf2d8nn1", "type": "function", "function": {"name": "get_weather",
                                                                         "arguments": "{\"city\":\"Oslo\"}"},
                    "index": 0}]}, "finish_reason": None}], "obfuscation": "abc"},
              {"id": "chatcmpl-g", "object": "chat.completion.chunk", "created": 1, "model": "llama",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}], "obfuscation": "de"}]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    forced = oa_request(user("Weather?"), stream=True, tool_choice="required")
    assert check(code, record(OPENAI, forced, sse)) == []


def test_client_invented_ids_in_a_clean_loop_are_clean():
    """Clients invent ids the provider accepts (`call_weather`, Gemini `tool_0`)."""
    history = [user("Weather in Paris?"), oa_assistant(oa_call("call_weather", "Paris")),
               oa_tool("call_weather", "{\"temperature\":\"72F\"}")]
    assert check("TD4", record(OPENAI, oa_request(*history), oa_response("72F."))) == []
    assert check("TD6", record(OPENAI, oa_request(*history), oa_response("72F."))) == []
    contents = [{"role": "user", "parts": [{"text": "Weather?"}]},
                {"role": "model", "parts": [fcall("get_weather", "Paris", id="tool_0")]},
                {"role": "user", "parts": [fresp("get_weather", {"temperature": "72F"}, id="tool_0")]}]
    assert check("TD4,TD6", record(GEMINI, gm_request(*contents), gm_response({"text": "72F."}))) == []


#: Real traffic with the shapes the issue names, each with what it shows.
REAL = {
    "opencode-recordings/openai-chat/streams-tool-call.json": "forced tool_choice answered with stop",
    "opencode-recordings/openai-compatible-chat/openrouter-streams-tool-call.json":
        "tool_calls finish with native stop",
    "opencode-recordings/gemini/streams-tool-call.json": "a Gemini call turn ending with STOP",
    "opencode-recordings/openai-compatible-chat/groq-streams-tool-call.json": "a whole call in one fragment",
    "opencode-recordings/openai-chat/continues-after-tool-result.json":
        "obfuscation padding, a client-invented id (call_weather)",
    "opencode-recordings/anthropic-messages/accepts-malformed-assistant-tool-order-with-default-patch.json":
        "consecutive same-role Anthropic messages, accepted",
    "real-clients/genai-generate.har": "parallel Gemini calls without ids, results in call order",
    "real-clients/anthropic-messages-stream.har": "parallel calls and an is_error result",
    "vercel-ai-fixtures/anthropic/anthropic-programmatic-tool-calling.1.json":
        "calls made by code, then text",
}


@pytest.mark.parametrize("name", paths.corpus_params(sorted(REAL)))
def test_real_traffic_gives_no_structure_or_loop_finding(name):
    loaded = load_file(paths.corpus_path(name))
    assert loaded.errors == []
    findings = run_checks(loaded, select_rules(["TD4", "TD6"]))
    assert findings == [], (REAL[name], [f"{f.code} {f.message}" for f in findings])


def test_td603_a_hosted_tool_call_answers_a_forced_choice():
    """A Responses `web_search_call` is the call the forced choice asked for, though the reader keeps
    it verbatim rather than as a function call: the text after it is the answer, not tools ignored."""
    request = {"model": "gpt-4.1", "tool_choice": "required", "tools": [{"type": "web_search"}],
               "input": [{"role": "user", "content": "Any news on the Oslo tram strike?"}]}
    response = {"id": "resp_68a1c2", "object": "response", "created_at": 1767607512, "status": "completed",
                "model": "gpt-4.1-2025-04-14", "output": [
                    {"type": "web_search_call", "id": "ws_68a1c3", "status": "completed",
                     "action": {"type": "search", "query": "Oslo tram strike"}},
                    {"type": "message", "id": "msg_68a1c4", "status": "completed", "role": "assistant",
                     "content": [{"type": "output_text", "text": "The strike ended on Monday.",
                                  "annotations": []}]}]}
    assert check("TD603", record(RESPONSES, request, response)) == []
    request["tools"], request["tool_choice"] = [OA_RESPONSES_TOOL], "required"
    response["output"] = response["output"][1:]  # the same answer without the call is the defect
    assert [(f.code, f.turn, f.part) for f in check("TD603", record(RESPONSES, request, response))] == [
        ("TD603", 1, 0)]


OA_RESPONSES_TOOL = {"type": "function", "name": "get_weather", "parameters": OA_TOOL["function"]["parameters"]}


def test_td603_an_answer_the_client_retried_is_reported_at_its_exchange():
    """The client retried the request that got text instead of the forced call. Answered otherwise,
    the retry is a branch (issue 17: the same request answered otherwise may as well be another
    session's first): the ignored answer keeps its conversation, and the finding points at it."""
    forced = oa_request(user("Weather in Oslo?"), tool_choice="required")
    ignored = record(OPENAI, forced, oa_response("It is usually cold in Oslo."))
    retried = record(OPENAI, forced, oa_response(calls=[oa_call("call_9", "Oslo")], finish="tool_calls"))
    [f] = check("TD603", ignored, retried)
    assert (f.code, f.exchange, f.conversation, f.turn, f.part) == ("TD603", 0, "c1", 1, 0)
    loaded = load_bytes("log.jsonl", "\n".join(json.dumps(r) for r in (ignored, retried)).encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c2"]
    assert f.pointer == "line 1/response/body#/choices/0/message/content"


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000a.\u200b")))
def test_a_blank_text_is_one_strip_would_empty(text):
    """`blank` tells white space without `strip()`'s copy, and says what `strip()` said: every
    character Python calls white space (the Unicode ones too), and not a zero-width space."""
    from tooldbg.checks.structure import blank
    from tooldbg.model import Invocation, Text

    assert blank(Text(text=text)) is (not text.strip())
    assert not blank(Invocation(name=text, arguments={}))
