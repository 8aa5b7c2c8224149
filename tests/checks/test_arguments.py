"""TD2xx arguments: each rule finds its defect at the right place, leaves the mended case alone, and
keeps quiet on the real-traffic shapes the issue names (forced tool_choice answered with "stop",
Gemini's STOP, Groq's whole-call fragment, OpenAI's obfuscation padding, client-invented ids)."""

import json

import pytest

from tests import paths
from tests.checks.helpers import DAMAGED, run_rules, unknown
from tooldbg.checks import run_checks, select_rules
from tooldbg.checks.schema import validate
from tooldbg.load import load_bytes, load_file

CHAT = "https://api.openai.com/v1/chat/completions"
RESPONSES = "https://api.openai.com/v1/responses"
ANTHROPIC = "https://api.anthropic.com/v1/messages"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-micro-v1:0/converse"

WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                  "additionalProperties": False}
CHAT_TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                                                "parameters": WEATHER_SCHEMA}}]
CHAT_USER = [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Weather in Paris?"}]


# ------------------------------------------------------------------------------------ helpers


def record(url, request=None, response=None, status=200):
    out = {}
    if request is not None:
        out["request"] = {"method": "POST", "url": url, "body": request}
    if response is not None:
        out["response"] = {"status": status, "body": response}
    return out


def jsonl(*records):
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


def sse(*chunks, done=True):
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return text + ("data: [DONE]\n\n" if done else "")


def check(name, data, select=("TD2",)):
    loaded = load_bytes(name, data if isinstance(data, bytes) else json.dumps(data).encode())
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return run_rules(loaded, select_rules(select))


def codes(findings):
    return [f.code for f in findings]


def chat_call(args, name="get_weather", call_id="call_A1"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def chat_request(args, tools=CHAT_TOOLS, name="get_weather"):
    """A request of its own: editing one (its messages too) changes no other."""
    return {"model": "gpt-4o-mini", "tools": json.loads(json.dumps(tools)), "messages": [
        *json.loads(json.dumps(CHAT_USER)),
        {"role": "assistant", "content": None, "tool_calls": [chat_call(args, name)]},
        {"role": "tool", "tool_call_id": "call_A1", "content": "22°C"}]}


def chat_response(*calls, finish="tool_calls"):
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1777157474,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                         "message": {"role": "assistant", "content": None, "refusal": None,
                                     "tool_calls": list(calls)}}]}


def chunk(delta, finish=None, **extra):
    return {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1777157474,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], **extra}


def fragment(index=0, arguments=None, call_id=None, name=None):
    out = {"index": index}
    if call_id:
        out.update(id=call_id, type="function")
    fn = {}
    if name:
        fn["name"] = name
    if arguments is not None:
        fn["arguments"] = arguments
    out["function"] = fn
    return {"tool_calls": [out]}


def anthropic_request(input_value, tools=None):
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024,
            "tools": tools if tools is not None
            else [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}],
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": input_value}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "22°C"}]}]}


def gemini_request(args):
    return {"contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": args}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
                                                         "response": {"output": "22°C"}}}]}],
        "tools": [{"functionDeclarations": [{"name": "get_weather", "parameters": {
            "type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]}}]}]}


def bedrock_request(input_value):
    return {"messages": [
        {"role": "user", "content": [{"text": "Weather in Paris?"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_a8nlf2bqGLcZvaSoBpQ1sH",
                                                       "name": "get_weather", "input": input_value}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_a8nlf2bqGLcZvaSoBpQ1sH",
                                                     "content": [{"text": "22°C"}]}}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather",
                                               "inputSchema": {"json": WEATHER_SCHEMA}}}]}}


def responses_request(arguments, name="get_weather", tools=None):
    return {"model": "gpt-5.5", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
        {"type": "function_call", "call_id": "call_X", "name": name, "arguments": arguments},
        {"type": "function_call_output", "call_id": "call_X", "output": "22°C"}],
        "tools": tools if tools is not None else [
            {"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA, "strict": True}]}


# --------------------------------------------------------------------- TD201 double-encoded


DOUBLE = json.dumps(json.dumps({"city": "Paris"}))  # "\"{\\\"city\\\": \\\"Paris\\\"}\""


def test_td201_double_encoded_chat_arguments_in_a_request():
    [f] = check("req.json", chat_request(DOUBLE))
    assert (f.code, f.severity, f.conversation, f.exchange) == ("TD201", "error", "c1", 0)
    assert (f.turn, f.part) == (1, 0)
    assert f.pointer == "/messages/2/tool_calls/0/function/arguments"
    assert "JSON-encoded twice" in f.message and "get_weather" in f.message and "Paris" in f.message


def test_td201_in_a_response_is_reported_once_although_the_next_request_replays_it():
    data = jsonl(record(CHAT, {"model": "gpt-4o-mini", "messages": CHAT_USER, "tools": CHAT_TOOLS},
                        chat_response(chat_call(DOUBLE))),
                 record(CHAT, chat_request(DOUBLE), {"id": "chatcmpl-2", "object": "chat.completion",
                                                      "choices": [{"index": 0, "finish_reason": "stop",
                                                                   "message": {"role": "assistant",
                                                                               "content": "22°C."}}]}))
    [f] = check("log.jsonl", data)
    assert (f.code, f.exchange, f.turn, f.part) == ("TD201", 0, 1, 0)
    assert f.pointer == "line 1/response/body#/choices/0/message/tool_calls/0/function/arguments"


def test_td201_responses_and_triple_encoding():
    [f] = check("req.json", responses_request(json.dumps(DOUBLE)))
    assert f.code == "TD201" and "3 times" in f.message and f.pointer == "/input/1/arguments"


def test_td201_an_object_format_string_holding_the_object_is_td204_not_td201():
    assert codes(check("req.json", gemini_request(json.dumps({"city": "Paris"})))) == ["TD204"]
    assert codes(check("req.json", anthropic_request(json.dumps({"city": "Paris"})))) == ["TD204"]


def test_td201_an_object_format_string_holding_a_json_string_is_both():
    assert codes(check("req.json", anthropic_request(DOUBLE))) == ["TD201", "TD204"]


def test_td201_good_and_edge_cases():
    assert check("req.json", chat_request(json.dumps({"city": "Paris"}))) == []
    # a string argument value that happens to hold JSON is data, not double encoding
    request = chat_request(json.dumps({"city": "Paris", "note": "{\"a\": 1}"}))
    request["tools"][0]["function"]["parameters"] = None
    assert check("req.json", request) == []
    # a freeform (custom) tool's input is text by design, even when it looks like JSON
    custom = {"model": "gpt-5", "tools": [{"type": "custom", "custom": {"name": "apply_patch"}}],
              "messages": [*CHAT_USER, {"role": "assistant", "content": None, "tool_calls": [
                  {"id": "call_C", "type": "custom", "custom": {"name": "apply_patch", "input": DOUBLE}}]},
                  {"role": "tool", "tool_call_id": "call_C", "content": "done"}]}
    assert check("req.json", custom) == []


def test_td201_in_a_canonical_document():
    doc = {"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "turns": [
        {"role": "user", "parts": [{"type": "text", "text": "Weather in Paris?"}]},
        {"role": "assistant", "parts": [{"type": "invocation", "id": "i1", "name": "get_weather",
                                         "arguments": json.dumps({"city": "Paris"})}]}]}]}
    [f] = check("doc.json", doc)
    assert (f.code, f.turn, f.part) == ("TD201", 1, 0)


# ------------------------------------------------------------------------ TD202 invalid JSON


def test_td202_python_literal_arguments_in_a_response():
    data = jsonl(record(CHAT, {"model": "qwen2.5-coder", "messages": CHAT_USER, "tools": CHAT_TOOLS},
                        chat_response(chat_call("{'city': 'Paris'}"))))
    [f] = check("log.jsonl", data)
    assert (f.code, f.severity, f.exchange, f.turn, f.part) == ("TD202", "error", 0, 1, 0)
    assert f.pointer.endswith("#/choices/0/message/tool_calls/0/function/arguments")
    assert "not valid JSON" in f.message and "{'city': 'Paris'}" in f.message


def test_td202_truncated_arguments_replayed_in_a_rejected_request():
    cut = '{"city": "Par'
    data = jsonl(record(CHAT, chat_request(cut), {"error": {
        "message": "messages.2.tool_calls.0.function.arguments: arguments must be a valid JSON object string",
        "type": "invalid_request_error", "param": None, "code": None}}, status=400))
    [f] = check("log.jsonl", data)
    assert (f.code, f.exchange, f.turn) == ("TD202", 0, 1)
    assert f.pointer == "/request/body#/messages/2/tool_calls/0/function/arguments"


def test_td202_a_broken_stream_is_left_to_the_stream_rules_but_its_replay_is_not():
    stream = sse(chunk({"role": "assistant", "content": None, **fragment(0, "", "call_A1", "get_weather")}),
                 chunk(fragment(0, '{"city": "Par')), chunk(fragment(0, "is\"")), chunk({}, "tool_calls"))
    first = record(CHAT, {"model": "gpt-4o-mini", "messages": CHAT_USER, "tools": CHAT_TOOLS, "stream": True},
                   stream)
    assert check("one.jsonl", jsonl(first)) == []
    data = jsonl(first, record(CHAT, chat_request('{"city": "Paris"'), {"error": {
        "message": "`arguments` must be valid JSON", "type": "invalid_request_error"}}, status=400))
    [f] = check("two.jsonl", data)
    assert (f.code, f.exchange, f.turn) == ("TD202", 1, 1) and "/request/body#" in f.pointer


def test_td202_a_truncated_stream_is_left_to_td504():
    stream = sse(chunk({"role": "assistant", **fragment(0, "", "call_A1", "get_weather")}),
                 chunk(fragment(0, '{"city": "Os')), done=False)
    assert check("cut.sse", stream.encode()) == []


def test_td202_is_not_raised_for_empty_strings_or_object_formats():
    assert codes(check("req.json", chat_request(""))) == ["TD205"]
    assert codes(check("req.json", anthropic_request("{'city': 'Paris'}"))) == ["TD204"]
    # in an object format an empty string is not an object: TD204's, not TD205's
    assert codes(check("req.json", anthropic_request(""))) == ["TD204"]


def test_the_same_call_in_two_conversations_is_found_in_each():
    """Two sessions of one agent make the same call at the same place: each conversation has its
    finding (a call is reported once per conversation, not once per file)."""
    first, second = responses_request(""), responses_request("")
    second["input"][0]["content"][0]["text"] = "Weather in Paris, please?"
    findings = check("log.jsonl", jsonl(record(RESPONSES, first), record(RESPONSES, second)))
    assert [(f.code, f.exchange, f.conversation, f.turn, f.part) for f in findings] == [
        ("TD205", 0, "c1", 1, 0), ("TD205", 1, "c2", 1, 0)]


def test_td204_says_when_a_string_input_is_not_even_json():
    [f] = check("req.json", anthropic_request("{'city': 'Paris'}"))
    assert f.message == ("input of 'get_weather' is a string (not even JSON) (\"{'city': 'Paris'}\"); anthropic "
                         "requires an object — error: Anthropic rejects it (the model claude-sonnet-4-5)")


# --------------------------------------------------------------------- TD203 not a string


OBJECT_ERROR = {"error": {"message": "Invalid type for 'messages[2].tool_calls[0].function.arguments': "
                                     "expected a string, but got an object instead.",
                          "type": "invalid_request_error",
                          "param": "messages[2].tool_calls[0].function.arguments", "code": "invalid_type"}}


def test_td203_the_rejected_request_gives_the_finding_that_explains_the_rejection():
    good = json.dumps({"city": "Paris"})
    data = jsonl(record(CHAT, {"model": "gpt-4o-mini", "messages": CHAT_USER, "tools": CHAT_TOOLS},
                        chat_response(chat_call(good))),
                 record(CHAT, chat_request({"city": "Paris"}), OBJECT_ERROR, status=400))
    [f] = check("log.jsonl", data)
    assert (f.code, f.severity, f.exchange, f.conversation) == ("TD203", "error", 1, "c1")
    assert (f.turn, f.part) == (1, 0)
    assert f.pointer == "line 2/request/body#/messages/2/tool_calls/0/function/arguments"
    assert "an object" in f.message and "JSON string" in f.message


def test_td203_repeated_in_every_request_is_reported_once():
    request = chat_request({"city": "Paris"})
    again = json.loads(json.dumps(request))
    again["messages"] += [{"role": "assistant", "content": "22°C."}, {"role": "user", "content": "And Rome?"}]
    [f] = check("log.jsonl", jsonl(record(CHAT, request), record(CHAT, again)))
    assert (f.code, f.exchange) == ("TD203", 0)


def test_td203_responses_legacy_function_call_and_non_object_values():
    [f] = check("req.json", responses_request({"city": "Paris"}))
    assert (f.code, f.pointer) == ("TD203", "/input/1/arguments")
    legacy = {"model": "gpt-3.5-turbo", "functions": [{"name": "get_weather", "parameters": WEATHER_SCHEMA}],
              "messages": [*CHAT_USER, {"role": "assistant", "content": None,
                                        "function_call": {"name": "get_weather",
                                                          "arguments": {"city": "Paris"}}},
                           {"role": "function", "name": "get_weather", "content": "22°C"}]}
    [f] = check("req.json", legacy)
    assert (f.code, f.pointer) == ("TD203", "/messages/2/function_call/arguments")
    [f] = check("req.json", chat_request(None))
    assert f.code == "TD203" and "null" in f.message


def test_td203_good_string_arguments():
    assert check("req.json", chat_request(json.dumps({"city": "Paris"}))) == []
    assert check("req.json", responses_request(json.dumps({"city": "Paris"}))) == []


# --------------------------------------------------------------------- TD204 not an object


def test_td204_anthropic_string_input_rejected():
    error = {"type": "error", "request_id": "req_011CVb", "error": {
        "type": "invalid_request_error",
        "message": "messages.1.content.1.tool_use.input: Input should be a valid dictionary"}}
    data = jsonl(record(ANTHROPIC, anthropic_request(json.dumps({"city": "Paris"})), error, status=400))
    [f] = check("log.jsonl", data)
    assert (f.code, f.severity, f.exchange, f.turn, f.part) == ("TD204", "error", 0, 1, 1)
    assert f.pointer == "/request/body#/messages/1/content/1/input"
    assert "input of 'get_weather' is a JSON string" in f.message


def test_td204_gemini_args_and_bedrock_input():
    [f] = check("req.json", gemini_request(json.dumps({"city": "Paris"})))
    assert (f.code, f.pointer) == ("TD204", "/contents/1/parts/0/functionCall/args")
    assert f.message.startswith("args of 'get_weather'")
    [f] = check("req.json", bedrock_request(json.dumps({"city": "Paris"})))
    assert (f.code, f.pointer) == ("TD204", "/messages/1/content/0/toolUse/input")
    [f] = check("req.json", anthropic_request(["Paris"]))
    assert f.code == "TD204" and "an array" in f.message
    [f] = check("req.json", anthropic_request(None))
    assert f.code == "TD204" and "is null" in f.message
    [f] = check("req.json", anthropic_request(True))
    assert f.message == ("input of 'get_weather' is a boolean (true); anthropic requires an object — error: "
                         "Anthropic rejects it (the model claude-sonnet-4-5)")
    request = gemini_request(None)  # protobuf JSON: a null message field is unset, i.e. {}
    request["tools"][0]["functionDeclarations"][0]["parameters"]["required"] = []
    assert check("req.json", request) == []


def test_td204_gemini_snake_case_function_call():
    """The REST API also accepts proto field names (`function_call`, as Python clients dumping the SDK
    objects send them): the string args are found, and pointed at, under that spelling."""
    request = gemini_request(json.dumps({"city": "Paris"}))
    part = request["contents"][1]["parts"][0]
    part["function_call"] = part.pop("functionCall")
    [f] = check("req.json", request)
    assert (f.code, f.turn, f.part, f.pointer) == ("TD204", 1, 0, "/contents/1/parts/0/function_call/args")
    # a Gemini body with no URL: the provider is not known, and only Anthropic's refusal is documented
    assert f.message == """args of 'get_weather' is a JSON string ("{\\"city\\": \\"Paris\\"}"); gemini requires an """ \
        """object""" + unknown("Anthropic", many=False)
    # beside a camelCase `functionCall` (the one read), a stray snake_case copy is not the call
    part["functionCall"] = {"name": "get_weather", "args": {"city": "Paris"}}
    assert check("req.json", request) == []


def test_td204_anthropic_response_body():
    body = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_01A", "name": "get_weather",
                         "input": "{\"city\": \"Paris\"}"}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}
    [f] = check("resp.json", body)
    assert (f.code, f.turn, f.part, f.pointer) == ("TD204", 0, 0, "/content/0/input")


def test_td204_good_objects_and_streams_of_string_fragments():
    assert check("req.json", anthropic_request({"city": "Paris"})) == []
    assert check("req.json", gemini_request({"city": "Paris"})) == []
    assert check("req.json", bedrock_request({"city": "Paris"})) == []
    bedrock_stream = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {
            "toolUseId": "tooluse_abc", "name": "get_weather"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"city\":"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "\"Paris\"}"}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 425, "outputTokens": 45, "totalTokens": 470},
                      "metrics": {"latencyMs": 499}}}]
    assert check("stream.jsonl", jsonl(*bedrock_stream)) == []
    anthropic_stream = "".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in [
            {"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant",
                                                  "model": "claude-haiku-4-5", "content": [],
                                                  "stop_reason": None, "usage": {"input_tokens": 9}}},
            {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {}}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "input_json_delta", "partial_json": ""}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "input_json_delta", "partial_json": "{\"city"}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "input_json_delta", "partial_json": "\": \"Paris\"}"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}},
            {"type": "message_stop"}])
    assert check("stream.sse", anthropic_stream.encode()) == []


def test_td204_canonical_document_keeps_the_anthropic_fact():
    doc = {"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "turns": [
        {"role": "assistant", "parts": [{"type": "invocation", "id": "i1", "name": "get_weather",
                                         "arguments": {"city": "Paris"},
                                         "meta": {"anthropic": {"string_input": True}}}]}]}]}
    [f] = check("doc.json", doc)
    assert (f.code, f.turn, f.part) == ("TD204", 0, 0)


# ----------------------------------------------------------------------- TD205 empty arguments


def test_td205_a_parameterless_call_streamed_with_no_argument_fragment():
    tools = [{"type": "function", "function": {"name": "list_open_tickets",
                                               "parameters": {"type": "object", "properties": {}}}}]
    stream = sse(chunk({"role": "assistant", "content": None,
                        **fragment(0, "", "call_Zt41xQ", "list_open_tickets")}),
                 chunk({}, "tool_calls"))
    data = jsonl(record(CHAT, {"model": "z-ai/glm-4.6", "stream": True, "tools": tools,
                               "messages": [{"role": "user", "content": "Any open tickets?"}]}, stream))
    [f] = check("log.jsonl", data)
    assert (f.code, f.severity, f.exchange, f.turn, f.part, f.chunk) == ("TD205", "error", 0, 1, 0, 0)
    assert f.pointer == "/response/body#/choices/0/message/tool_calls/0/function/arguments"
    assert '""' in f.message and '"{}"' in f.message


def test_td205_in_a_request_and_whitespace_only():
    [f] = check("req.json", chat_request(""))
    assert (f.code, f.pointer) == ("TD205", "/messages/2/tool_calls/0/function/arguments")
    [f] = check("req.json", responses_request("  "))
    assert f.code == "TD205" and "whitespace" in f.message


def test_td205_good_cases():
    assert check("req.json", chat_request("{}", tools=[])) == []
    # OpenAI's first fragment carries "" and the arguments follow: nothing to report
    stream = sse(chunk({"role": "assistant", "content": None, **fragment(0, "", "call_A1", "get_weather")},
                       obfuscation="k2"),
                 chunk(fragment(0, "{\""), obfuscation="TQpWHk4roxU"),
                 chunk(fragment(0, "city\":\"Paris\"}"), obfuscation="Z5"),
                 chunk({}, "stop", obfuscation="x"))
    assert check("stream.sse", stream.encode()) == []


# --------------------------------------------------------------------- TD206 schema violation


def test_td206_wrong_type_and_missing_required_property():
    data = jsonl(record(CHAT, {"model": "gpt-4o-mini", "messages": CHAT_USER, "tools": CHAT_TOOLS},
                        chat_response(chat_call(json.dumps({"city": 75001})))))
    [f] = check("log.jsonl", data)
    assert (f.code, f.severity, f.exchange, f.turn, f.part) == ("TD206", "error", 0, 1, 0)
    assert f.pointer.endswith("#/choices/0/message/tool_calls/0/function/arguments")
    assert "$.city: expected string, got number" in f.message
    [f] = check("req.json", chat_request(json.dumps({"town": "Paris"})))
    assert "$.city: required property is missing" in f.message
    assert "$.town: property is not declared" in f.message


def test_td206_undeclared_properties_are_allowed_unless_the_schema_forbids_them():
    tools = json.loads(json.dumps(CHAT_TOOLS))
    del tools[0]["function"]["parameters"]["additionalProperties"]
    assert check("req.json", chat_request(json.dumps({"city": "Paris", "unit": "C"}), tools=tools)) == []


def test_td206_gemini_upper_case_schema():
    request = gemini_request({"city": "Paris"})
    request["tools"][0]["functionDeclarations"][0]["parameters"] = {
        "type": "OBJECT", "properties": {
            "city": {"type": "STRING"},
            "days": {"type": "INTEGER", "nullable": True},
            "units": {"type": "STRING", "enum": ["celsius", "fahrenheit"]},
            "stops": {"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": "2"}},
        "required": ["city"]}
    assert check("req.json", request) == []
    request["contents"][1]["parts"][0]["functionCall"]["args"] = {
        "city": "Paris", "days": None, "units": "metric", "stops": ["a", "b", "c"]}
    [f] = check("req.json", request)
    assert f.code == "TD206" and f.pointer == "/contents/1/parts/0/functionCall/args"
    assert "$.units: \"metric\" is not one of \"celsius\", \"fahrenheit\"" in f.message
    assert "$.stops: 3 items, more than maxItems 2" in f.message


def test_td206_quotes_a_value_whole_up_to_60_characters_and_cuts_a_longer_one():
    units = {"type": "object", "properties": {"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}
    tools = [{"name": "get_weather", "input_schema": units}]
    fits, longer = "k" * 58, "k" * 59  # 60 and 61 characters as JSON
    [f] = check("req.json", anthropic_request({"units": fits}, tools=tools))
    assert f'$.units: "{fits}" is not one of "celsius", "fahrenheit"' in f.message
    [f] = check("req.json", anthropic_request({"units": longer}, tools=tools))
    assert f'$.units: "{longer[:58]}… is not one of "celsius", "fahrenheit"' in f.message


def test_td206_a_value_that_misses_its_pattern_is_quoted_to_40_characters():
    city = {"type": "object", "properties": {"city": {"type": "string", "pattern": "^[A-Z][a-z]+$"}}}
    [f] = check("req.json", anthropic_request({"city": "x" * 45}, tools=[{"name": "get_weather", "input_schema": city}]))
    assert f.message == ("arguments of 'get_weather' do not fit its schema: $.city: \"" + "x" * 38 + "… does not match "
                         "pattern '^[A-Z][a-z]+$'" + DAMAGED)


def test_td206_an_array_schema_with_items_per_position():
    """Draft 4's tuple form: `items` a list of schemas, one per position, `additionalItems` the rest."""
    stops = {"type": "object", "properties": {"stops": {"type": "array", "items": [{"type": "string"}],
                                                        "additionalItems": False}}}
    tools = [{"name": "get_weather", "input_schema": stops}]
    [f] = check("req.json", anthropic_request({"stops": [1]}, tools=tools))
    assert "$.stops[0]: expected string, got number" in f.message
    [f] = check("req.json", anthropic_request({"stops": ["Oslo", "Rome"]}, tools=tools))
    assert "$.stops: 2 items, at most 1 allowed" in f.message
    assert check("req.json", anthropic_request({"stops": ["Oslo"]}, tools=tools)) == []


def test_td206_true_is_not_1():
    """JSON Schema compares as JSON: `true` is no member of `[1, 2]`, though Python holds True == 1."""
    days = {"type": "object", "properties": {"days": {"enum": [1, 2]}}}
    [f] = check("req.json", anthropic_request({"days": True}, tools=[{"name": "get_weather", "input_schema": days}]))
    assert f.message == ("arguments of 'get_weather' do not fit its schema: $.days: true is not one of 1, 2"
                         + DAMAGED)
    assert check("req.json", anthropic_request({"days": 1}, tools=[{"name": "get_weather", "input_schema": days}])) == []


def test_td206_anthropic_and_bedrock_schemas():
    [f] = check("req.json", anthropic_request({"city": ["Paris"]}))
    assert f.code == "TD206" and "$.city: expected string, got array" in f.message
    [f] = check("req.json", bedrock_request({}))
    assert f.code == "TD206" and "$.city: required property is missing" in f.message


def test_td206_no_schema_unknown_tool_or_unreadable_arguments_are_not_judged():
    tools = [{"type": "function", "function": {"name": "get_weather"}}]
    assert check("req.json", chat_request(json.dumps({"anything": 1}), tools=tools)) == []
    assert codes(check("req.json", chat_request("{oops", tools=CHAT_TOOLS))) == ["TD202"]
    # a response-only log has no declared schema to compare with
    assert check("resp.json", chat_response(chat_call(json.dumps({"city": 1})))) == []


UNITS_TOOLS = [{"name": "get_weather", "input_schema": {"type": "object", "properties": {
    "city": {"type": "string"}, "units": {"type": "string", "enum": ["metric", "imperial"]}},
    "required": ["city"]}}]
KELVIN = "arguments of 'get_weather' do not fit its schema: " '$.units: "kelvin" is not one of "metric", "imperial"' + DAMAGED


def anthropic_replay(answered_input, replayed_input):
    """Exchange 0's answer calls get_weather with `answered_input`; exchange 1 replays that call with
    `replayed_input`, and its result."""
    ask = {"role": "user", "content": "Weather in Paris?"}
    first = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "tools": UNITS_TOOLS, "messages": [ask]}
    answer = {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
              "model": "claude-sonnet-4-5-20250929", "stop_reason": "tool_use", "stop_sequence": None,
              "content": [{"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": answered_input}],
              "usage": {"input_tokens": 412, "output_tokens": 38}}
    replay = dict(first, messages=[
        ask, {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": replayed_input}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "22°C"}]}])
    return jsonl(record(ANTHROPIC, first, answer), record(ANTHROPIC, replay))


def test_td206_a_replay_with_its_keys_reordered_is_the_same_call():
    """The model's bad call is reported once, where it was made: the client re-serialized it with
    its keys in another order, which is not a new call to judge again."""
    data = anthropic_replay({"city": "Paris", "units": "kelvin"}, {"units": "kelvin", "city": "Paris"})
    assert [(f.code, f.exchange, f.turn, f.part, f.pointer, f.message) for f in check("log.jsonl", data)] == [
        ("TD206", 0, 1, 0, "line 1/response/body#/content/0/input", KELVIN)]


def test_td206_a_replay_with_changed_arguments_is_judged_on_its_own():
    """The model's call was fine; the client replayed it with a value the schema forbids: that
    occurrence is a call of its own, reported in the request that sent it."""
    data = anthropic_replay({"city": "Paris"}, {"city": "Paris", "units": "kelvin"})
    assert [(f.code, f.exchange, f.turn, f.part, f.pointer, f.message) for f in check("log.jsonl", data)] == [
        ("TD206", 1, 1, 0, "line 2/request/body#/messages/1/content/0/input", KELVIN)]


# ------------------------------------------------------------------------- TD207 unknown tool


def test_td207_the_same_call_made_again_later_is_reported_again():
    """Gemini calls have no ids: the model calling the undeclared tool again with the same arguments,
    after the error came back, is a second call, at its own turn."""
    call = {"functionCall": {"name": "get_forecast", "args": {"city": "Paris"}}}
    error = {"functionResponse": {"name": "get_forecast", "response": {"error": "unknown function get_forecast"}}}
    request = gemini_request({"city": "Paris"})
    request["contents"] = [{"role": "user", "parts": [{"text": "Weather in Paris tomorrow?"}]},
                           {"role": "model", "parts": [call]}, {"role": "user", "parts": [error]},
                           {"role": "model", "parts": [call]}, {"role": "user", "parts": [error]}]
    undeclared = "call to 'get_forecast', which the request does not declare (it declares get_weather)" + DAMAGED
    assert [(f.code, f.turn, f.part, f.pointer, f.message) for f in check("req.json", request)] == [
        ("TD207", 1, 0, "/contents/1/parts/0", undeclared), ("TD207", 3, 0, "/contents/3/parts/0", undeclared)]


def test_td207_a_call_to_an_undeclared_tool():
    data = jsonl(record(CHAT, {"model": "openai/gpt-oss-120b", "messages": CHAT_USER, "tools": CHAT_TOOLS},
                        chat_response(chat_call(json.dumps({"city": "Paris"}), name="get_forecast"))))
    [f] = check("log.jsonl", data)
    assert (f.code, f.severity, f.exchange, f.turn, f.part) == ("TD207", "error", 0, 1, 0)
    assert f.pointer == "/response/body#/choices/0/message/tool_calls/0"
    assert f.message == "call to 'get_forecast', which the request does not declare (it declares get_weather)" + DAMAGED


def test_td207_history_first_seen_in_a_request():
    [f] = check("req.json", anthropic_request({"city": "Paris"}, tools=[
        {"name": "get_forecast", "input_schema": {"type": "object"}}]))
    assert (f.code, f.turn, f.part, f.pointer) == ("TD207", 1, 1, "/messages/1/content/1")


def test_td207_precision():
    # no tools declared at all (a tool-less follow-up request, or a response-only log)
    request = chat_request(json.dumps({"city": "Paris"}))
    del request["tools"]
    assert check("req.json", request) == []
    assert check("resp.json", chat_response(chat_call("{}", name="anything"))) == []
    # only hosted tools declared
    hosted = responses_request(json.dumps({"city": "Paris"}), tools=[{"type": "web_search"}])
    assert check("req.json", hosted) == []
    # a tool search can bring in tools the request did not list
    search = responses_request(json.dumps({"city": "Paris"}), name="get_forecast", tools=[
        {"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA, "strict": True},
        {"type": "tool_search"}])
    assert check("req.json", search) == []
    # a call in a namespace (a Responses item's `namespace`: an MCP server's tools, loaded apart)
    namespaced = responses_request(json.dumps({"title": "Flaky test"}), name="create_issue")
    assert codes(check("req.json", namespaced)) == ["TD207"]
    namespaced["input"][1]["namespace"] = "mcp_github"
    assert check("req.json", namespaced) == []
    # a later request that no longer declares the tool does not re-judge the old call
    first = record(CHAT, {"model": "gpt-4o-mini", "messages": CHAT_USER, "tools": CHAT_TOOLS},
                   chat_response(chat_call(json.dumps({"city": "Paris"}))))
    later = chat_request(json.dumps({"city": "Paris"}), tools=[
        {"type": "function", "function": {"name": "send_email", "parameters": {"type": "object"}}}])
    assert check("log.jsonl", jsonl(first, record(CHAT, later))) == []


def test_td207_provider_defined_client_tools_are_declared_by_their_name():
    body = anthropic_request({"command": "ls -la"}, tools=[
        {"type": "bash_20250124", "name": "bash"}, {"name": "get_weather", "input_schema": WEATHER_SCHEMA}])
    body["messages"][1]["content"][1]["name"] = "bash"
    assert check("req.json", body) == []


def test_td207_anthropic_server_tools_are_not_calls():
    body = anthropic_request({"city": "Paris"}, tools=[
        {"type": "web_search_20250305", "name": "web_search"},
        {"name": "get_weather", "input_schema": WEATHER_SCHEMA}])
    body["messages"][1]["content"].insert(1, {"type": "server_tool_use", "id": "srvtoolu_01",
                                              "name": "web_search", "input": {"query": "Paris weather"}})
    body["messages"][1]["content"].insert(2, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
                                              "content": []})
    assert check("req.json", body) == []


def _custom_only(call_name, fmt):
    """A request declaring only freeform (custom) tools, no function tool, whose history holds a
    custom call to `call_name` (Chat Completions or Responses)."""
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-x = 1\n+x = 2\n*** End Patch"
    if fmt == "openai-chat":
        return {"model": "gpt-5", "tools": [{"type": "custom", "custom": {"name": "apply_patch"}},
                                            {"type": "custom", "custom": {"name": "run_sql"}}],
                "messages": [*CHAT_USER, {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_C", "type": "custom", "custom": {"name": call_name, "input": patch}}]},
                    {"role": "tool", "tool_call_id": "call_C", "content": "done"}]}
    return {"model": "gpt-5", "tools": [{"type": "custom", "name": "apply_patch"},
                                        {"type": "custom", "name": "run_sql"}],
            "input": [{"role": "user", "content": "Set x to 2."},
                      {"type": "custom_tool_call", "call_id": "call_C", "name": call_name, "input": patch},
                      {"type": "custom_tool_call_output", "call_id": "call_C", "output": "done"}]}


@pytest.mark.parametrize(("fmt", "pointer"), [("openai-chat", "/messages/2/tool_calls/0"),
                                              ("openai-responses", "/input/1")])
def test_td207_a_request_whose_tools_are_all_custom_tools(fmt, pointer):
    """Custom tools are declared tools: a call to one of them is clean — free text, not JSON, so no
    TD2xx either — and a call to a name they do not include is TD207."""
    assert check("req.json", _custom_only("apply_patch", fmt)) == []
    [f] = check("req.json", _custom_only("shell", fmt))
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part, f.pointer) == (
        "TD207", "error", 0, "c1", 1, 0, pointer)
    assert f.message == "call to 'shell', which the request does not declare (it declares apply_patch, run_sql)" \
        + DAMAGED



# ------------------------------------------------------------------------------- precision


def test_forced_tool_choice_answered_with_stop_groq_whole_call_and_gemini_stop():
    forced = {"model": "gpt-4o-mini", "messages": CHAT_USER, "tools": CHAT_TOOLS, "stream": True,
              "tool_choice": {"type": "function", "function": {"name": "get_weather"}}}
    opened = fragment(0, "", "call_FmHTQJayvEiTFwo0Y0jRnzpP", "get_weather")
    openai = sse(chunk({"role": "assistant", "content": None, **opened}, obfuscation="1"),
                 chunk(fragment(0, "{\"city\":\"Paris\"}"), obfuscation="TQpW"),
                 chunk({}, "stop", obfuscation="Hk4"))
    groq = sse(chunk({"role": "assistant", "tool_calls": [
        {"id": "mcf2d8nn1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}, "index": 0}]}),
        chunk({}, "tool_calls"))
    gemini = {"candidates": [{"index": 0, "finishReason": "STOP",
                              "finishMessage": "Model generated function call(s).",
                              "content": {"role": "model", "parts": [
                                  {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                                   "thoughtSignature": "CiQBDDnW"}]}}],
              "modelVersion": "gemini-2.5-flash"}
    data = jsonl(record(CHAT, forced, openai), record(CHAT, {**forced, "model": "llama-3.3-70b"}, groq),
                 record(GEMINI, gemini_request({"city": "Paris"}), gemini))
    assert check("log.jsonl", data) == []


def test_client_invented_ids_are_fine():
    request = chat_request(json.dumps({"city": "Paris"}))
    request["messages"][2]["tool_calls"][0]["id"] = "call_weather"
    request["messages"][3]["tool_call_id"] = "call_weather"
    assert check("req.json", request) == []
    gemini = gemini_request({"city": "Paris"})
    gemini["contents"][1]["parts"][0]["functionCall"]["id"] = "tool_0"
    gemini["contents"][2]["parts"][0]["functionResponse"]["id"] = "tool_0"
    assert check("req.json", gemini) == []


CORPUS = paths.corpus_files()
CLEAN = sorted(p for p in paths.SAMPLES.rglob("*") if p.is_file() and "defects" not in p.parts
               and p.name != "README.md")


@pytest.mark.parametrize("path", paths.corpus_params(CORPUS + CLEAN), ids=lambda p: p.name)
def test_real_traffic_and_clean_samples_give_no_argument_findings(path):
    findings = run_checks(load_file(path), select_rules(["TD2"]))
    assert findings == [], [f"{f.code} {f.message} at {f.pointer}" for f in findings]


@pytest.mark.parametrize("code", ["TD201", "TD202", "TD203", "TD204", "TD205", "TD206", "TD207"])
def test_each_rule_has_a_sample_that_gives_exactly_it(code):
    [sample] = sorted((paths.SAMPLES / "defects").glob(f"{code}-*"))[:1]
    loaded = load_file(sample)
    assert loaded.errors == []
    assert {f.code for f in run_checks(loaded, select_rules(["TD2"]))} == {code}


# ----------------------------------------------------------------------------- the validator


@pytest.mark.parametrize(("value", "schema", "errors"), [
    ({"city": 1}, {"type": "object", "properties": {"city": {"type": "string"}}},
     ["$.city: expected string, got number"]),
    ({"n": 3.0}, {"properties": {"n": {"type": "integer"}}}, []),
    ({"n": True}, {"properties": {"n": {"type": "number"}}}, ["$.n: expected number, got boolean"]),
    ({"n": None}, {"properties": {"n": {"type": ["string", "null"]}}}, []),
    ({"n": None}, {"properties": {"n": {"type": "STRING", "nullable": True}}}, []),
    ({"u": "K"}, {"properties": {"u": {"enum": ["C", "F"]}}}, ['$.u: "K" is not one of "C", "F"']),
    ({"k": "v"}, {"properties": {"k": {"const": "w"}}}, ['$.k: expected "w", got "v"']),
    ({"x": 5}, {"properties": {"x": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}, []),
    ({"x": 5}, {"properties": {"x": {"oneOf": [{"type": "number"}, {"type": "integer"}]}}}, []),
    ({"x": []}, {"properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}},
     ["$.x: [] matches none of the oneOf alternatives"]),
    ({"x": 5}, {"allOf": [{"properties": {"x": {"minimum": 6}}}, {"required": ["y"]}]},
     ["$.x: 5 is less than minimum 6", "$.y: required property is missing"]),
    ({"x": 10}, {"properties": {"x": {"exclusiveMaximum": 10}}},
     ["$.x: 10 is not less than exclusiveMaximum 10"]),
    ({"s": "ab"}, {"properties": {"s": {"minLength": 3, "pattern": "^a"}}},
     ["$.s: 2 characters, fewer than minLength 3"]),
    ({"s": "zz"}, {"properties": {"s": {"pattern": "^a"}}}, ['$.s: "zz" does not match pattern \'^a\'']),
    ({"s": "x"}, {"properties": {"s": {"pattern": "("}}}, []),
    ({"a": [1, "b"]}, {"properties": {"a": {"type": "array", "items": {"type": "integer"}, "minItems": 3}}},
     ["$.a: 2 items, fewer than minItems 3", "$.a[1]: expected integer, got string"]),
    ({"a": {"b c": 1}}, {"properties": {"a": {"additionalProperties": {"type": "string"}}}},
     ["$.a['b c']: expected string, got number"]),
    ({"p": {"q": 1}}, {"$defs": {"Q": {"type": "object", "properties": {"q": {"type": "string"}}}},
                       "properties": {"p": {"$ref": "#/$defs/Q"}}}, ["$.p.q: expected string, got number"]),
    ({"d": "2026-01-01"}, {"properties": {"d": {"type": "string", "format": "date-time"}}}, []),
    ({"t": 1}, {"properties": {"t": {"type": "TYPE_UNSPECIFIED"}}}, []),
])
def test_validator(value, schema, errors):
    assert validate(value, schema) == errors


def test_validator_survives_recursive_and_pathological_refs():
    assert validate({"a": 1}, {"$ref": "#"}) == []
    explosive = {"anyOf": [{"$ref": "#"}, {"$ref": "#"}, {"type": "string"}]}
    assert validate({"a": 1}, explosive) == []  # gives up within its budget instead of 3**64 steps


def test_validator_limits_the_number_of_errors():
    schema = {"type": "object", "additionalProperties": False}
    assert len(validate({f"k{i}": i for i in range(50)}, schema)) == 20


# ----------------------------------------------- the schema validator behind TD206, keyword by keyword


@pytest.mark.parametrize(("value", "schema", "messages"), [
    # items apply after the prefixItems, not to them
    (["a", 1], {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}}, []),
    (["a", "b"], {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}},
     ["$[1]: expected number, got string"]),
    # a nested array item is located by its index
    ({"stops": ["Oslo", 3]}, {"type": "object", "properties": {"stops": {"type": "array", "items": {"type": "string"}}}},
     ["$.stops[1]: expected string, got number"]),
    # const and enum compare arrays element by element
    ([1, 3], {"const": [1, 2]}, ["$: expected [1,2], got [1,3]"]),
    ([1, 2], {"const": [1, 2]}, []),
    # both bounds
    (11, {"type": "number", "maximum": 10}, ["$: 11 is greater than maximum 10"]),
    (10, {"type": "number", "maximum": 10}, []),
    # a property matching a pattern is declared
    ({"x_1": 1, "y": 2}, {"type": "object", "patternProperties": {"^x_": {}}, "additionalProperties": False},
     ["$.y: property is not declared (additionalProperties is false)"]),
    # a local $ref with an escaped "/" in its pointer
    ("a", {"$ref": "#/$defs/a~1b", "$defs": {"a/b": {"type": "number"}}}, ["$: expected number, got string"]),
    # the type a value has, named
    (True, {"type": "string"}, ["$: expected string, got boolean"]),
])
def test_schema_validator_keywords(value, schema, messages):
    assert validate(value, schema) == messages
