"""TD3xx replay fidelity: each response (and each request turn) compared with its replay in the next
request of the same conversation. Inputs are small wire logs (JSON Lines of exchanges) read through
`load_bytes`, as a user's log would be."""

import base64
import json

import pytest

from tests import paths
from tests.checks.helpers import DAMAGED, SYMPTOM, run_rules
from tooldbg.checks import run_checks, select_rules
from tooldbg.checks.failures import failure_report
from tooldbg.checks.replay import first_difference
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Json, Text

OPENAI = "https://api.openai.com/v1/chat/completions"
RESPONSES = "https://api.openai.com/v1/responses"
ANTHROPIC = "https://api.anthropic.com/v1/messages"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-pro-v1%3A0/converse"


def exchange(url, request, response, status=200):
    return {
        "request": {
            "method": "POST",
            "url": url,
            "headers": {"content-type": "application/json"},
            "body": request,
        },
        "response": {"status": status, "headers": {"content-type": "application/json"}, "body": response},
    }


def log(*exchanges):
    return "".join(json.dumps(e) + "\n" for e in exchanges).encode()


def check(data, select=("TD3",), name="run.jsonl"):
    loaded = load_bytes(name, data)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return run_rules(loaded, select_rules(select))


def codes(findings):
    return [f.code for f in findings]


# ------------------------------------------------------------------------ wire builders


def chat_call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def chat_completion(message, finish="tool_calls"):
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "refusal": None, **message},
                "finish_reason": finish,
                "logprobs": None,
            }
        ],
    }


def chat_answer(text="Done."):
    return chat_completion({"content": text}, "stop")


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
SYSTEM = {"role": "system", "content": "Be terse."}
ASK = {"role": "user", "content": "Weather in Oslo and Bergen?"}
CALLS = [
    chat_call("call_Q3zb", "get_weather", {"city": "Oslo"}),
    chat_call("call_J7cV", "get_weather", {"city": "Bergen"}),
]
RESULTS = [
    {"role": "tool", "tool_call_id": "call_Q3zb", "content": '{"temp_c": 4}'},
    {"role": "tool", "tool_call_id": "call_J7cV", "content": '{"temp_c": 7}'},
]


def chat_loop(replayed, follow=RESULTS, first=None):
    """Exchange 0 answers with `first` (text + two calls); exchange 1 replays it as `replayed`."""
    first = first or {"content": "I'll check both cities.", "tool_calls": CALLS}
    return log(
        exchange(
            OPENAI, {"model": "gpt-4.1", "messages": [SYSTEM, ASK], "tools": TOOLS}, chat_completion(first)
        ),
        exchange(
            OPENAI,
            {"model": "gpt-4.1", "messages": [SYSTEM, ASK, replayed, *follow], "tools": TOOLS},
            chat_answer(),
        ),
    )


def anthropic_message(content, stop="tool_use"):
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def anthropic_request(messages, **extra):
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": messages,
        "tools": [
            {"name": "get_weather", "input_schema": {"type": "object"}},
            {"name": "screenshot", "input_schema": {"type": "object"}},
        ],
        **extra,
    }


A_ASK = {"role": "user", "content": "Weather in Oslo and Bergen?"}
A_CALLS = [
    {"type": "text", "text": "Checking both."},
    {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}},
    {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Bergen"}},
]
A_OK = {"type": "tool_result", "tool_use_id": "toolu_01A", "content": '{"temp_c": 4}'}
A_FAIL = {
    "type": "tool_result",
    "tool_use_id": "toolu_01B",
    "content": "Error: weather service timed out",
    "is_error": True,
}
A_NEXT = [
    {"type": "text", "text": "Bergen failed; retrying."},
    {"type": "tool_use", "id": "toolu_01C", "name": "get_weather", "input": {"city": "Bergen"}},
]
A_RETRY = {"type": "tool_result", "tool_use_id": "toolu_01C", "content": '{"temp_c": 7}'}


def anthropic_three(second_results, third_results):
    """Three exchanges: calls; results (`second_results`) and a retry call; everything replayed with
    the first results as `third_results`."""
    history = [A_ASK, {"role": "assistant", "content": A_CALLS}]
    return log(
        exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(A_CALLS)),
        exchange(
            ANTHROPIC,
            anthropic_request([*history, {"role": "user", "content": second_results}]),
            anthropic_message(A_NEXT),
        ),
        exchange(
            ANTHROPIC,
            anthropic_request(
                [
                    *history,
                    {"role": "user", "content": third_results},
                    {"role": "assistant", "content": A_NEXT},
                    {"role": "user", "content": [A_RETRY]},
                ]
            ),
            anthropic_message([{"type": "text", "text": "Oslo 4, Bergen 7."}], "end_turn"),
        ),
    )


def gemini_response(parts):
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
    }


G_ASK = {"role": "user", "parts": [{"text": "Weather in Oslo?"}]}
G_TOOLS = [{"functionDeclarations": [{"name": "get_weather", "parametersJsonSchema": {"type": "object"}}]}]
SIGNATURE = base64.b64encode(bytes(range(250, 256)) + bytes(range(0, 60)) + b"\xfb\xff\xfe").decode()


def gemini_loop(call_part, replayed_parts, result=None, status=200, answer=None):
    result = result or {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 4}}}}
    return log(
        exchange(GEMINI, {"contents": [G_ASK], "tools": G_TOOLS}, gemini_response([call_part])),
        exchange(
            GEMINI,
            {
                "contents": [
                    G_ASK,
                    {"role": "model", "parts": replayed_parts},
                    {"role": "user", "parts": [result]},
                ],
                "tools": G_TOOLS,
            },
            answer or gemini_response([{"text": "4 °C in Oslo."}]),
            status,
        ),
    )


def test_text_replayed_as_a_message_of_its_own_before_the_call_is_not_dropped():
    """The answer's text and call, replayed as two assistant messages (the text spaced otherwise):
    the text is looked for in every turn of the replay, not only the call's."""
    ask = {"role": "user", "content": "Weather in Oslo?"}
    call = chat_call("call_A1", "get_weather", {"city": "Oslo"})
    replayed = [ask, {"role": "assistant", "content": "Let me check  the weather."},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_A1", "content": "4°C"}]
    data = log(exchange(OPENAI, {"model": "gpt-4.1", "messages": [ask]},
                        chat_completion({"content": "Let me check the weather.", "tool_calls": [call]})),
               exchange(OPENAI, {"model": "gpt-4.1", "messages": replayed}, chat_answer("4 °C.")))
    assert check(data) == []


def test_parallel_calls_replayed_in_another_order_are_paired_by_id_even_beside_one_without():
    """Gemini's calls may carry an id or not: the one without is paired by order once those with an
    id have found theirs, so a replay that only reorders them changes no call."""
    def call(name, city, call_id=None):
        return {"functionCall": {"name": name, "args": {"city": city}, **({"id": call_id} if call_id else {})}}

    def answer(name, output, call_id=None):
        return {"functionResponse": {"name": name, "response": {"output": output},
                                     **({"id": call_id} if call_id else {})}}

    oslo, time, rome = call("get_weather", "Oslo"), call("get_time", "Oslo", "t1"), call("get_weather", "Rome", "w2")
    ask = {"role": "user", "parts": [{"text": "Weather and time in Oslo, weather in Rome?"}]}
    replayed = [ask, {"role": "model", "parts": [oslo, rome, time]},
                {"role": "user", "parts": [answer("get_weather", "4 °C"), answer("get_weather", "20 °C", "w2"),
                                           answer("get_time", "12:00", "t1")]}]
    data = log(exchange(GEMINI, {"contents": [ask]}, gemini_response([oslo, time, rome])),
               exchange(GEMINI, {"contents": replayed}, gemini_response([{"text": "4 °C and 20 °C."}])))
    assert check(data) == []


def bedrock_request(messages):
    return {
        "messages": messages,
        "toolConfig": {
            "tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]
        },
    }


def bedrock_response(content, stop="tool_use"):
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 400},
    }


B_ASK = {"role": "user", "content": [{"text": "Weather in Oslo?"}]}
B_CALL = [
    {"text": "Checking."},
    {"toolUse": {"toolUseId": "tooluse_a8nlf2bqGLcZvaSo", "name": "get_weather", "input": {"city": "Oslo"}}},
]


def bedrock_two(result):
    return log(
        exchange(BEDROCK, bedrock_request([B_ASK]), bedrock_response(B_CALL)),
        exchange(
            BEDROCK,
            bedrock_request(
                [
                    B_ASK,
                    {"role": "assistant", "content": B_CALL},
                    {"role": "user", "content": [{"toolResult": result}]},
                ]
            ),
            bedrock_response([{"text": "Sorry."}], "end_turn"),
        ),
    )


def sse(*events):
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events)


# ------------------------------------------------------------------------------ TD301


def test_td301_text_beside_calls_dropped_on_replay():
    [f] = check(chat_loop({"role": "assistant", "content": None, "tool_calls": CALLS}))
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part) == (
        "TD301",
        "error",
        1,
        "c1",
        1,
        None,
    )
    assert f.pointer == "line 2/request/body#/messages/2"
    assert "I'll check both cities." in f.message and "exchange 0's response" in f.message
    assert f.chunk is None


def test_td301_text_kept_is_clean():
    assert (
        check(chat_loop({"role": "assistant", "content": "I'll check both cities.", "tool_calls": CALLS}))
        == []
    )


def test_td301_text_respaced_or_split_into_its_own_message_is_kept():
    respaced = {
        "role": "assistant",
        "content": [{"type": "text", "text": "I'll check   both\ncities."}],
        "tool_calls": CALLS,
    }
    assert check(chat_loop(respaced)) == []
    # A client that sends the text and the calls as two consecutive assistant messages.
    history = [
        A_ASK,
        {"role": "assistant", "content": [A_CALLS[0]]},
        {"role": "assistant", "content": A_CALLS[1:]},
        {"role": "user", "content": [A_OK, {**A_FAIL, "is_error": True}]},
    ]
    data = log(
        exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(A_CALLS)),
        exchange(ANTHROPIC, anthropic_request(history), anthropic_message([{"type": "text", "text": "Ok"}])),
    )
    assert check(data) == []


def test_td301_whitespace_only_content_beside_a_call_may_be_dropped():
    # xAI streams a single " " content chunk before the call; nobody replays it.
    first = {"content": " ", "tool_calls": CALLS}
    assert check(chat_loop({"role": "assistant", "content": None, "tool_calls": CALLS}, first=first)) == []


def test_td301_from_a_streamed_response_points_at_the_replay():
    stream = (
        "event: message_start\ndata: "
        '{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant",'
        '"model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,'
        '"usage":{"input_tokens":10,"output_tokens":1}}}\n\n'
        "event: content_block_start\ndata: "
        '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
        "event: content_block_delta\ndata: "
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking Oslo."}}\n\n'
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0   }\n\n'
        "event: content_block_start\ndata: "
        '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use",'
        '"id":"toolu_01A","name":"get_weather","input":{},"caller":{"type":"direct"}}}\n\n'
        "event: content_block_delta\ndata: "
        '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}\n\n'
        "event: content_block_delta\ndata: "
        '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta",'
        '"partial_json":"{\\"city\\": \\"Oslo\\"}"}}\n\n'
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n'
        "event: message_delta\ndata: "
        '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},'
        '"usage":{"output_tokens":20}}\n\n'
        'event: message_stop\ndata: {"type":"message_stop"       }\n\n'
    )
    first = {
        "request": {
            "method": "POST",
            "url": ANTHROPIC,
            "headers": {"content-type": "application/json"},
            "body": anthropic_request([A_ASK], stream=True),
        },
        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": stream},
    }
    replay = [A_ASK, {"role": "assistant", "content": [A_CALLS[1]]}, {"role": "user", "content": [A_OK]}]
    data = log(first, exchange(ANTHROPIC, anthropic_request(replay), anthropic_message([], "end_turn")))
    [f] = check(data)
    assert (f.code, f.turn, f.pointer) == ("TD301", 1, "line 2/request/body#/messages/1")
    assert "'Checking Oslo.'" in f.message


def test_td301_responses_commentary_replayed_without_item_ids_is_clean():
    item = {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "phase": "commentary",
        "role": "assistant",
        "content": [{"type": "output_text", "annotations": [], "text": "I’ll check Paris."}],
    }
    call = {
        "id": "fc_1",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_X",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
    }
    ask = {"role": "user", "content": "Weather in Paris?"}
    replay = [
        ask,
        {
            "role": "assistant",
            "phase": "commentary",
            "content": [{"type": "output_text", "text": "I’ll check Paris."}],
        },
        {
            "type": "function_call",
            "call_id": "call_X",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_X", "output": '{"temp_c":22}'},
    ]
    data = log(
        exchange(
            RESPONSES,
            {"model": "gpt-5.5", "input": [ask]},
            {"id": "resp_1", "object": "response", "status": "completed", "output": [item, call]},
        ),
        exchange(
            RESPONSES,
            {"model": "gpt-5.5", "input": replay},
            {"id": "resp_2", "object": "response", "status": "completed", "output": []},
        ),
    )
    assert check(data) == []


# ------------------------------------------------------------------------------ TD302


def test_td302_calls_dropped_and_outcome_sent_as_user_text():
    replayed = {"role": "assistant", "content": "I'll check both cities."}
    follow = [{"role": "user", "content": "get_weather returned: Oslo 4 °C, Bergen 7 °C"}]
    [f] = check(chat_loop(replayed, follow))
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part) == (
        "TD302",
        "error",
        1,
        "c1",
        2,
        0,
    )
    assert f.pointer == "line 2/request/body#/messages/3/content"
    assert "'get_weather' (call_Q3zb)" in f.message and "dropped" in f.message


def test_td302_calls_kept_but_answered_by_user_text_naming_the_id_is_the_rejected_request():
    follow = [{"role": "user", "content": '[call_Q3zb] {"temp_c": 4}\n[call_J7cV] {"temp_c": 7}'}]
    error = {
        "error": {
            "message": "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            "response messages: call_Q3zb, call_J7cV",
            "type": "invalid_request_error",
            "param": "messages.[3].role",
            "code": None,
        }
    }
    data = log(
        exchange(
            OPENAI,
            {"model": "gpt-4.1", "messages": [SYSTEM, ASK], "tools": TOOLS},
            chat_completion({"content": "I'll check both cities.", "tool_calls": CALLS}),
        ),
        exchange(
            OPENAI,
            {
                "model": "gpt-4.1",
                "messages": [
                    SYSTEM,
                    ASK,
                    {"role": "assistant", "content": "I'll check both cities.", "tool_calls": CALLS},
                    *follow,
                ],
                "tools": TOOLS,
            },
            error,
            400,
        ),
    )
    [f] = check(data)
    assert (f.code, f.turn, f.part) == ("TD302", 2, 0) and "left unanswered" in f.message


def test_td302_result_sent_as_a_result_then_flattened_into_user_text():
    second = [
        {"type": "tool_result", "tool_use_id": "toolu_01A", "content": '{"temp_c": 4, "sky": "overcast"}'},
        {**A_FAIL},
    ]
    flattened = {"role": "user", "content": 'Results: {"temp_c":4,"sky":"overcast"} / Bergen timed out'}
    history = [A_ASK, {"role": "assistant", "content": A_CALLS}]
    data = log(
        exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(A_CALLS)),
        exchange(
            ANTHROPIC,
            anthropic_request([*history, {"role": "user", "content": second}]),
            anthropic_message([{"type": "text", "text": "Oslo is 4."}], "end_turn"),
        ),
        exchange(
            ANTHROPIC,
            anthropic_request(
                [
                    A_ASK,
                    {"role": "assistant", "content": [A_CALLS[0]]},
                    flattened,
                    {"role": "assistant", "content": "Oslo is 4."},
                    {"role": "user", "content": "And tomorrow?"},
                ]
            ),
            anthropic_message([{"type": "text", "text": "No idea."}], "end_turn"),
        ),
    )
    findings = check(data)
    assert [(f.exchange, f.turn, f.part) for f in findings] == [(2, 2, 0)]
    assert "'toolu_01A'" in findings[0].message


def test_td302_results_bound_by_id_or_a_user_merely_naming_the_tool_is_clean():
    assert (
        check(chat_loop({"role": "assistant", "content": "I'll check both cities.", "tool_calls": CALLS}))
        == []
    )
    follow = [*RESULTS, {"role": "user", "content": "Thanks. Don't call get_weather again, just tell me."}]
    assert (
        check(
            chat_loop(
                {"role": "assistant", "content": "I'll check both cities.", "tool_calls": CALLS}, follow
            )
        )
        == []
    )


# ------------------------------------------------------------------------------ TD303


def test_td303_anthropic_is_error_lost_in_the_next_request():
    lost = {k: v for k, v in A_FAIL.items() if k != "is_error"}
    [f] = check(anthropic_three([A_OK, A_FAIL], [A_OK, lost]))
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part) == (
        "TD303",
        "error",
        2,
        "c1",
        2,
        1,
    )
    assert f.pointer == "line 3/request/body#/messages/2/content/1"
    assert "'toolu_01B'" in f.message and "is_error: true" in f.message


def test_td303_found_when_the_changed_replay_starts_a_conversation_of_its_own():
    lost = {k: v for k, v in A_FAIL.items() if k != "is_error"}
    history = [A_ASK, {"role": "assistant", "content": A_CALLS}]
    data = log(
        exchange(
            ANTHROPIC,
            anthropic_request([*history, {"role": "user", "content": [A_OK, A_FAIL]}]),
            anthropic_message(A_NEXT),
        ),
        exchange(
            ANTHROPIC,
            anthropic_request(
                [
                    *history,
                    {"role": "user", "content": [A_OK, lost]},
                    {"role": "assistant", "content": A_NEXT},
                    {"role": "user", "content": [A_RETRY]},
                ]
            ),
            anthropic_message([{"type": "text", "text": "Oslo 4, Bergen 7."}], "end_turn"),
        ),
    )
    loaded = load_bytes("run.jsonl", data)
    assert len(loaded.conversations) == 2  # the stitcher could not join them
    [f] = run_checks(loaded, select_rules(["TD3"]))
    assert (f.code, f.exchange, f.conversation, f.turn, f.part) == ("TD303", 1, "c2", 2, 1)


def test_td303_bedrock_status_error_and_gemini_error_response_lost():
    def bedrock_three(replayed):
        call2 = [{"toolUse": {"toolUseId": "tooluse_Zq2", "name": "get_weather", "input": {"city": "Oslo"}}}]
        failed = {
            "toolUseId": "tooluse_a8nlf2bqGLcZvaSo",
            "content": [{"text": "upstream timeout"}],
            "status": "error",
        }
        history = [B_ASK, {"role": "assistant", "content": B_CALL}]
        return log(
            exchange(BEDROCK, bedrock_request([B_ASK]), bedrock_response(B_CALL)),
            exchange(
                BEDROCK,
                bedrock_request([*history, {"role": "user", "content": [{"toolResult": failed}]}]),
                bedrock_response(call2),
            ),
            exchange(
                BEDROCK,
                bedrock_request(
                    [
                        *history,
                        {"role": "user", "content": [{"toolResult": replayed}]},
                        {"role": "assistant", "content": call2},
                        {
                            "role": "user",
                            "content": [
                                {"toolResult": {"toolUseId": "tooluse_Zq2", "content": [{"text": "4 C"}]}}
                            ],
                        },
                    ]
                ),
                bedrock_response([{"text": "4 C."}], "end_turn"),
            ),
        )

    lost = {"toolUseId": "tooluse_a8nlf2bqGLcZvaSo", "content": [{"text": "upstream timeout"}]}
    [f] = check(bedrock_three(lost))
    assert (f.code, f.exchange, f.turn, f.part) == ("TD303", 2, 2, 0) and 'status: "error"' in f.message
    kept = {**lost, "status": "error"}
    assert check(bedrock_three(kept)) == []

    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    failed = {"functionResponse": {"name": "get_weather", "response": {"error": "quota exceeded"}}}
    as_output = {"functionResponse": {"name": "get_weather", "response": {"output": "quota exceeded"}}}
    second = [G_ASK, {"role": "model", "parts": [call]}]
    data = log(
        exchange(GEMINI, {"contents": [G_ASK]}, gemini_response([call])),
        exchange(
            GEMINI,
            {"contents": [*second, {"role": "user", "parts": [failed]}]},
            gemini_response([{"text": "Trying again."}, call]),
        ),
        exchange(
            GEMINI,
            {
                "contents": [
                    *second,
                    {"role": "user", "parts": [as_output]},
                    {"role": "model", "parts": [{"text": "Trying again."}, call]},
                    {"role": "user", "parts": [failed]},
                ]
            },
            gemini_response([{"text": "The service is out of quota."}]),
        ),
    )
    [f] = check(data)
    assert (f.code, f.exchange, f.turn, f.part) == ("TD303", 2, 2, 0) and '{"error": …}' in f.message


def test_td303_flag_kept_and_formats_without_a_flag_are_clean():
    assert check(anthropic_three([A_OK, A_FAIL], [A_OK, A_FAIL])) == []
    # OpenAI has no flag: an error said in the text is all there is, replayed unchanged.
    failing = [RESULTS[0], {"role": "tool", "tool_call_id": "call_J7cV", "content": "Error: timed out"}]
    assert (
        check(
            chat_loop(
                {"role": "assistant", "content": "I'll check both cities.", "tool_calls": CALLS}, failing
            )
        )
        == []
    )


# ------------------------------------------------------------------------------ TD304


def test_td304_anthropic_error_text_without_is_error():
    unflagged = {
        "type": "tool_result",
        "tool_use_id": "toolu_01B",
        "content": "Error: weather service timed out",
    }
    data = log(
        exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(A_CALLS)),
        exchange(
            ANTHROPIC,
            anthropic_request(
                [
                    A_ASK,
                    {"role": "assistant", "content": A_CALLS},
                    {"role": "user", "content": [A_OK, unflagged]},
                ]
            ),
            anthropic_message([{"type": "text", "text": "Oslo is 4."}], "end_turn"),
        ),
    )
    [f] = check(data)
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part) == (
        "TD304",
        "warning",
        1,
        "c1",
        2,
        1,
    )
    assert f.pointer == "line 2/request/body#/messages/2/content/1"
    assert "is_error: true" in f.message and "Error: weather service timed out" in f.message


@pytest.mark.parametrize(
    "content",
    [
        [{"text": "Traceback (most recent call last):\n  File \"tool.py\", line 3\nKeyError: 'city'"}],
        [{"json": {"error": {"code": 504, "message": "upstream timeout"}}}],
        [{"text": '{"ok": false, "reason": "rate limited"}'}],
        [{"text": "Request to api.met.no timed out after 10 s"}],
        [{"text": "Command failed with exit code 2"}],
        [{"json": {"status": "error", "error_message": "Weather information for 'Oslo' is not available."}}],
    ],
)
def test_td304_bedrock_failures_without_status(content):
    [f] = check(bedrock_two({"toolUseId": "tooluse_a8nlf2bqGLcZvaSo", "content": content}))
    assert (f.code, f.turn, f.part) == ("TD304", 2, 0) and 'status: "error"' in f.message


@pytest.mark.parametrize(
    "content",
    [
        [{"text": '{"temp_c": 4}'}],
        [{"text": "=== 12 passed, 0 failed in 3.1s ==="}],
        [{"text": "3 failed, 40 passed"}],
        [{"text": "errors: none"}],
        [{"json": {"error": None, "temp_c": 4}}],
        [{"text": "Error-free run; 0 warnings."}],
    ],
)
def test_td304_success_that_mentions_errors_is_clean(content):
    assert check(bedrock_two({"toolUseId": "tooluse_a8nlf2bqGLcZvaSo", "content": content})) == []


def test_td304_flagged_or_flagless_formats_are_clean():
    flagged = {
        "toolUseId": "tooluse_a8nlf2bqGLcZvaSo",
        "content": [{"text": "Error: timed out"}],
        "status": "error",
    }
    assert check(bedrock_two(flagged)) == []
    failing = [RESULTS[0], {"role": "tool", "tool_call_id": "call_J7cV", "content": "Error: timed out"}]
    assert (
        check(
            chat_loop(
                {"role": "assistant", "content": "I'll check both cities.", "tool_calls": CALLS}, failing
            )
        )
        == []
    )
    # Gemini's own marking: the failure under `error`
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    error = {"functionResponse": {"name": "get_weather", "response": {"error": "Error: timed out"}}}
    assert check(gemini_loop(call, [call], error)) == []


G_CALL = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}


@pytest.mark.parametrize(
    ("response", "words"),
    [
        ({"output": "Error: weather service timed out"}, "'Error: weather service timed out'"),
        ({"output": {"error": {"code": 504, "message": "upstream timeout"}}},
         '"error": {"code":504,"message":"upstream timeout"}'),
        # Google ADK's tool-result convention, sent as the whole response: no `error` key
        ({"status": "error", "error_message": "Weather information for 'Oslo' is not available."},
         '"error_message": "Weather information for \'Oslo\' is not available."'),
        ({"status": "failed", "detail": "quota exceeded"}, '"status": "failed"'),
        ({"content": "Traceback (most recent call last):\n  File \"tool.py\", line 3\nKeyError: 'city'"},
         "a Python traceback"),
        ({"result": "Request to api.met.no timed out after 10 s"}, "'Request to api.met.no timed out after 10 s'"),
    ],
)
def test_td304_gemini_failure_sent_without_the_error_key(response, words):
    result = {"functionResponse": {"name": "get_weather", "response": response}}
    [f] = check(gemini_loop(G_CALL, [G_CALL], result))
    assert (f.code, f.severity, f.exchange, f.turn, f.part) == ("TD304", "warning", 1, 2, 0)
    assert f.pointer == "line 2/request/body#/contents/2/parts/0"
    assert f.message == (f"result of 'get_weather' reports a failure ({words}) but is sent without "
                         'an {"error": …} response' + SYMPTOM)


@pytest.mark.parametrize(
    "response",
    [
        {"error": "weather service timed out"},
        {"error": {"code": 504, "message": "upstream timeout"}, "city": "Oslo"},
        {"output": {"temp_c": 4}},
        {"status": "success", "report": "4 °C and overcast in Oslo"},
        {"output": "3 failed, 40 passed"},
        {"result": {"error": None, "temp_c": 4}},
    ],
)
def test_td304_gemini_success_or_an_error_key_is_clean(response):
    result = {"functionResponse": {"name": "get_weather", "response": response}}
    assert check(gemini_loop(G_CALL, [G_CALL], result)) == []


def test_td304_leaves_a_lost_flag_to_td303():
    lost = {k: v for k, v in A_FAIL.items() if k != "is_error"}
    assert codes(check(anthropic_three([A_OK, A_FAIL], [A_OK, lost]))) == ["TD303"]


def test_failure_report_words():
    assert failure_report([Text(text="ERROR: upstream timeout")]) == "'ERROR: upstream timeout'"
    assert failure_report([Json(value={"success": False})]) == '"success": false'
    assert failure_report([Text(text="Weather: 4 °C\nerror bars ±1")]) is None


# ------------------------------------------------------------------------------ TD305

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(200))).decode()
SHOT = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}


def screenshot_log(replayed_result, extra=()):
    call = [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_01S", "name": "screenshot", "input": {}},
    ]
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_01S",
        "content": [SHOT, {"type": "text", "text": "1280x800"}],
    }
    nxt = [{"type": "tool_use", "id": "toolu_01T", "name": "screenshot", "input": {}}]
    history = [A_ASK, {"role": "assistant", "content": call}]
    return log(
        exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(call)),
        exchange(
            ANTHROPIC,
            anthropic_request([*history, {"role": "user", "content": [result]}]),
            anthropic_message(nxt),
        ),
        exchange(
            ANTHROPIC,
            anthropic_request(
                [
                    *history,
                    {"role": "user", "content": [replayed_result, *extra]},
                    {"role": "assistant", "content": nxt},
                    {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "toolu_01T", "content": "ok"}],
                    },
                ]
            ),
            anthropic_message([{"type": "text", "text": "Done."}], "end_turn"),
        ),
    )


def test_td305_image_in_a_tool_result_dropped():
    [f] = check(screenshot_log({"type": "tool_result", "tool_use_id": "toolu_01S", "content": "1280x800"}))
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part) == (
        "TD305",
        "error",
        2,
        "c1",
        2,
        0,
    )
    assert f.pointer == "line 3/request/body#/messages/2/content/0"
    assert "image (image/png)" in f.message and "'toolu_01S'" in f.message


def test_td305_image_kept_or_moved_next_to_the_result_is_clean():
    kept = {
        "type": "tool_result",
        "tool_use_id": "toolu_01S",
        "content": [SHOT, {"type": "text", "text": "1280x800"}],
    }
    assert check(screenshot_log(kept)) == []
    urlsafe = PNG.replace("+", "-").replace("/", "_")
    moved = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": urlsafe}}
    as_text = {"type": "tool_result", "tool_use_id": "toolu_01S", "content": "1280x800 (image below)"}
    assert check(screenshot_log(as_text, [moved])) == []


def test_td305_user_photo_and_generated_image_dropped():
    photo = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
    ask = {"role": "user", "content": [{"type": "text", "text": "Weather here?"}, photo]}
    call = chat_call("call_Q3zb", "get_weather", {"city": "Oslo"})
    data = log(
        exchange(
            OPENAI,
            {"model": "gpt-4.1", "messages": [ask], "tools": TOOLS},
            chat_completion({"content": None, "tool_calls": [call]}),
        ),
        exchange(
            OPENAI,
            {
                "model": "gpt-4.1",
                "tools": TOOLS,
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "Weather here?"}]},
                    {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": "call_Q3zb", "content": "4 C"},
                ],
            },
            chat_answer(),
        ),
    )
    [f] = check(data)
    assert (f.code, f.exchange, f.turn, f.part) == ("TD305", 1, 0, None) and "user turn" in f.message

    drawn = {"inlineData": {"mimeType": "image/png", "data": PNG}}
    data = log(
        exchange(GEMINI, {"contents": [G_ASK]}, gemini_response([{"text": "Here is a chart."}, drawn])),
        exchange(
            GEMINI,
            {
                "contents": [
                    G_ASK,
                    {"role": "model", "parts": [{"text": "Here is a chart."}]},
                    {"role": "user", "parts": [{"text": "Make it blue."}]},
                ]
            },
            gemini_response([{"text": "Sure."}]),
        ),
    )
    [f] = check(data)
    assert (f.code, f.exchange, f.turn) == ("TD305", 1, 1) and "exchange 0's response" in f.message


# ------------------------------------------------------------------------------ TD306


def test_td306_argument_changed_on_replay():
    replayed = {
        "role": "assistant",
        "content": "I'll check both cities.",
        "tool_calls": [CALLS[0], chat_call("call_J7cV", "get_weather", {"city": "Bergen, NO"})],
    }
    [f] = check(chat_loop(replayed))
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part) == (
        "TD306",
        "error",
        1,
        "c1",
        1,
        2,
    )
    assert f.pointer == "line 2/request/body#/messages/2/tool_calls/1"
    assert "/city" in f.message and '"Bergen"' in f.message and '"Bergen, NO"' in f.message


def test_td306_points_at_a_changed_key_holding_a_tilde_and_slashes():
    """The message names the changed argument by JSON pointer (RFC 6901): `~` and `/` inside a key are
    escaped, so `~/notes/todo.md` reads as one key, not a path three levels deep."""
    first = {"content": None, "tool_calls": [chat_call("call_Q3zb", "write_files", {
        "files": {"~/notes/todo.md": "buy milk"}})]}
    replayed = {"role": "assistant", "content": None, "tool_calls": [chat_call("call_Q3zb", "write_files", {
        "files": {"~/notes/todo.md": "buy oat milk"}})]}
    follow = [{"role": "tool", "tool_call_id": "call_Q3zb", "content": "written"}]
    [f] = check(chat_loop(replayed, follow, first))
    assert (f.code, f.exchange, f.turn, f.part) == ("TD306", 1, 1, 0)
    assert f.message == ("call 'write_files' (call_Q3zb) from exchange 0's response is replayed with other "
                         'arguments at /files/~0~1notes~1todo.md: "buy milk" became "buy oat milk"' + DAMAGED)


def test_td306_a_call_left_out_of_the_replay_is_not_paired_with_the_kept_one():
    """The client replays only the first of the model's two calls (with its result): the call it
    kept is paired by id, and the one left out has no replay, not the kept call's arguments."""
    replayed = {"role": "assistant", "content": "I'll check both cities.", "tool_calls": [CALLS[0]]}
    assert check(chat_loop(replayed, RESULTS[:1])) == []


def test_td306_name_changed_and_number_turned_string():
    renamed = {
        "role": "assistant",
        "content": "I'll check both cities.",
        "tool_calls": [chat_call("call_Q3zb", "weather", {"city": "Oslo"}), CALLS[1]],
    }
    [f] = check(chat_loop(renamed))
    assert (f.code, f.part) == ("TD306", 1) and "replayed as 'weather'" in f.message
    first = {
        "content": None,
        "tool_calls": [chat_call("call_Q3zb", "get_forecast", {"city": "Oslo", "days": 3})],
    }
    typed = {
        "role": "assistant",
        "content": None,
        "tool_calls": [chat_call("call_Q3zb", "get_forecast", {"city": "Oslo", "days": "3"})],
    }
    [f] = check(chat_loop(typed, [RESULTS[0]], first=first))
    assert f.code == "TD306" and "/days" in f.message


def test_td306_key_order_whitespace_and_number_spelling_are_not_mutations():
    first = {
        "content": None,
        "tool_calls": [
            {
                "id": "call_Q3zb",
                "type": "function",
                "function": {
                    "name": "get_forecast",
                    "arguments": '{"city":"Oslo","days":3,"hourly":true,"ratio":1}',
                },
            }
        ],
    }
    replayed = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_Q3zb",
                "type": "function",
                "function": {
                    "name": "get_forecast",
                    "arguments": '{\n  "ratio": 1.0,\n  "hourly": true,\n  "days": 3, "city": "Oslo"\n}',
                },
            }
        ],
    }
    assert check(chat_loop(replayed, [RESULTS[0]], first=first)) == []
    assert first_difference({"a": True}, {"a": 1}) == "/a"
    assert first_difference({"a": [1, 2]}, {"a": [1]}) == "/a/1"


def test_td306_leaves_double_encoded_or_invalid_model_arguments_to_td201_and_td202():
    double = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_Q3zb",
                "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps(json.dumps({"city": "Oslo"}))},
            }
        ],
    }
    first = {"content": None, "tool_calls": [chat_call("call_Q3zb", "get_weather", {"city": "Oslo"})]}
    assert check(chat_loop(double, [RESULTS[0]], first=first)) == []
    broken = {
        "content": None,
        "tool_calls": [
            {
                "id": "call_Q3zb",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Os'},
            }
        ],
    }
    repaired = {
        "role": "assistant",
        "content": None,
        "tool_calls": [chat_call("call_Q3zb", "get_weather", {})],
    }
    assert check(chat_loop(repaired, [RESULTS[0]], first=broken)) == []


def test_td306_gemini_calls_given_ids_by_the_client_are_paired_by_position():
    # gemini-2.5-flash returns calls without ids; the client invents "tool_0" when replaying.
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    with_id = {"functionCall": {"id": "tool_0", "name": "get_weather", "args": {"city": "Oslo"}}}
    result = {
        "functionResponse": {"id": "tool_0", "name": "get_weather", "response": {"output": {"temp_c": 4}}}
    }
    assert check(gemini_loop(call, [with_id], result)) == []
    changed = {"functionCall": {"id": "tool_0", "name": "get_weather", "args": {"city": "Bergen"}}}
    [f] = check(gemini_loop(call, [changed], result))
    assert (f.code, f.turn, f.part, f.pointer) == ("TD306", 1, 0, "line 2/request/body#/contents/1/parts/0")


def test_streamed_calls_from_real_traffic_shapes_replay_clean():
    """Groq sends a whole call in one fragment; OpenAI pads chunks with obfuscation and answers a
    forced tool_choice with finish_reason "stop": assembled and replayed, nothing lights up."""

    def streamed(events, replayed_call, choice=None):
        request = {"model": "m", "messages": [ASK], "tools": TOOLS, "stream": True}
        if choice:
            request["tool_choice"] = choice
        return log(
            {
                "request": {"method": "POST", "url": OPENAI, "headers": {}, "body": request},
                "response": {
                    "status": 200,
                    "headers": {"content-type": "text/event-stream"},
                    "body": sse(*events) + "data: [DONE]\n\n",
                },
            },
            exchange(
                OPENAI,
                {
                    "model": "m",
                    "tools": TOOLS,
                    "messages": [
                        ASK,
                        {"role": "assistant", "content": None, "tool_calls": [replayed_call]},
                        {"role": "tool", "tool_call_id": replayed_call["id"], "content": "4 C"},
                    ],
                },
                chat_answer(),
            ),
        )

    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    groq = [
        {
            **chunk,
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "mcf2d8nn1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                                "index": 0,
                            }
                        ],
                    },
                    "finish_reason": None,
                }
            ],
        },
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    assert check(streamed(groq, chat_call("mcf2d8nn1", "get_weather", {"city": "Oslo"}))) == []
    openai = [
        {
            **chunk,
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_AbC",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": ""},
                            }
                        ],
                    },
                    "finish_reason": None,
                }
            ],
            "obfuscation": "x7Y",
        },
        {
            **chunk,
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"ci'}}]},
                    "finish_reason": None,
                }
            ],
            "obfuscation": "Qm2kLa",
        },
        {
            **chunk,
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'ty":"Oslo"}'}}]},
                    "finish_reason": None,
                }
            ],
            "obfuscation": "z",
        },
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "obfuscation": "Pq0"},
    ]
    forced = {"type": "function", "function": {"name": "get_weather"}}
    assert check(streamed(openai, chat_call("call_AbC", "get_weather", {"city": "Oslo"}), forced)) == []
    [f] = check(streamed(openai, chat_call("call_AbC", "get_weather", {"city": "Oslo "}), forced))
    assert (f.code, f.turn, f.part) == ("TD306", 1, 0)


# ------------------------------------------------------------------------------ TD307


def test_td307_gemini_thought_signature_dropped_and_request_rejected():
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": SIGNATURE}
    bare = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    rejected = {
        "error": {
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": "Function call is missing a "
            "thought_signature in functionCall parts. Additional data, function call "
            "`default_api:get_weather` , position 2.",
        }
    }
    [f] = check(gemini_loop(call, [bare], status=400, answer=rejected))
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part) == (
        "TD307",
        "error",
        1,
        "c1",
        1,
        0,
    )
    assert f.pointer == "line 2/request/body#/contents/1/parts/0"
    assert "thoughtSignature of the call 'get_weather'" in f.message


def test_td307_signature_re_encoded_url_safe_is_the_same_signature():
    assert "+" in SIGNATURE and "/" in SIGNATURE
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": SIGNATURE}
    urlsafe = {**call, "thoughtSignature": SIGNATURE.replace("+", "-").replace("/", "_").rstrip("=")}
    assert check(gemini_loop(call, [urlsafe])) == []
    altered = {**call, "thoughtSignature": base64.b64encode(b"another signature bytes").decode()}
    [f] = check(gemini_loop(call, [altered]))
    assert f.code == "TD307" and "different signature" in f.message


def test_td307_anthropic_thinking_dropped_from_the_tool_turn():
    thinking = {
        "type": "thinking",
        "thinking": "Two cities: two calls.",
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
    }
    turn = [thinking, *A_CALLS]
    results = {"role": "user", "content": [A_OK, A_FAIL]}

    def loop(replayed):
        return log(
            exchange(
                ANTHROPIC,
                anthropic_request([A_ASK], thinking={"type": "enabled", "budget_tokens": 2048}),
                anthropic_message(turn),
            ),
            exchange(
                ANTHROPIC,
                anthropic_request(
                    [A_ASK, {"role": "assistant", "content": replayed}, results],
                    thinking={"type": "enabled", "budget_tokens": 2048},
                ),
                anthropic_message([{"type": "text", "text": "Oslo is 4."}], "end_turn"),
            ),
        )

    assert check(loop(turn)) == []
    [f] = check(loop(A_CALLS))
    assert (f.code, f.turn, f.part) == ("TD307", 1, 1) and "thinking block" in f.message


def test_td307_reasoning_items_match_by_id_and_text_turns_may_drop_reasoning():
    reasoning = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [],
        "encrypted_content": "gAAAAABpoiHeB1Iq9iSq",
    }
    call = {
        "id": "fc_1",
        "type": "function_call",
        "status": "completed",
        "call_id": "call_X",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
    }
    ask = {"role": "user", "content": "Weather in Paris?"}

    def loop(output, replayed):
        return log(
            exchange(
                RESPONSES,
                {"model": "gpt-5.5", "input": [ask], "store": False},
                {"id": "resp_1", "object": "response", "status": "completed", "output": output},
            ),
            exchange(
                RESPONSES,
                {
                    "model": "gpt-5.5",
                    "input": [
                        ask,
                        *replayed,
                        {"type": "function_call_output", "call_id": "call_X", "output": "22"},
                    ],
                },
                {"id": "resp_2", "object": "response", "status": "completed", "output": []},
            ),
        )

    # OpenAI sends the same item with another encrypted_content in each event that repeats it.
    assert check(loop([reasoning, call], [{**reasoning, "encrypted_content": "gAAAAABpoiHfX9"}, call])) == []
    [f] = check(loop([reasoning, call], [call]))
    assert f.code == "TD307" and "reasoning item" in f.message
    # Thinking before a plain answer is not needed back.
    text_turn = [
        {"type": "thinking", "thinking": "Easy.", "signature": "EqQBCgIY"},
        {"type": "text", "text": "Hi!"},
    ]
    data = log(
        exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(text_turn, "end_turn")),
        exchange(
            ANTHROPIC,
            anthropic_request(
                [A_ASK, {"role": "assistant", "content": "Hi!"}, {"role": "user", "content": "Thanks"}]
            ),
            anthropic_message([{"type": "text", "text": "Bye"}], "end_turn"),
        ),
    )
    assert check(data) == []


# ------------------------------------------------------------------------------ precision


def test_retry_after_a_rejected_request_is_not_a_replay():
    """A request the provider refused, then sent again mended, is compared with nothing."""
    replayed = {"role": "assistant", "content": "I'll check both cities.", "tool_calls": CALLS}
    rejected = {"error": {"message": "Rate limit", "type": "rate_limit_error", "param": None, "code": None}}
    data = log(
        exchange(OPENAI, {"model": "gpt-4.1", "messages": [SYSTEM, ASK, replayed, *RESULTS]}, rejected, 429),
        exchange(
            OPENAI,
            {
                "model": "gpt-4.1",
                "messages": [
                    SYSTEM,
                    ASK,
                    {**replayed, "content": None},
                    *RESULTS,
                    {"role": "user", "content": "?"},
                ],
            },
            chat_answer(),
        ),
    )
    assert check(data) == []


REAL_CLIENTS = sorted(paths.REAL_CLIENTS.glob("*.*[lr]"))
LOOPS = [p for p in paths.corpus_files([".json"]) if "drives-a-tool-loop" in p.name or "round-trips" in p.name]


@pytest.mark.parametrize("path", paths.corpus_params(REAL_CLIENTS + LOOPS), ids=lambda p: p.name)
def test_real_replays_are_clean(path):
    loaded = load_file(path)
    assert any(len(r.request.turns) > 1 for r in loaded.reads if r.request), (
        "expected a multi-exchange recording"
    )
    assert run_checks(loaded, select_rules(["TD3"])) == []


def test_defect_samples_point_at_the_replay():
    expected = {
        "TD301": (1, 1, None),
        "TD302": (1, 2, 0),
        "TD303": (2, 2, 1),
        "TD304": (1, 2, 0),
        "TD305": (2, 2, 0),
        "TD306": (1, 1, 1),
        "TD307-gemini-3": (1, 1, 0),
    }
    for sample, where in expected.items():
        code = sample[:5]
        samples = sorted((paths.SAMPLES / "defects").glob(f"{sample}-*"))
        assert samples, sample
        for path in samples:
            [f] = run_checks(load_file(path), select_rules([code]))
            assert (f.exchange, f.turn, f.part) == where, (path.name, f)


# ------------------------------------------------- TD303 across a translation to a flagless format


def _translated(failed_content, tool_texts):
    """Exchange 0: an Anthropic request whose second result failed (`is_error: true`, content
    `failed_content`), answered; exchange 1: the conversation carried on through OpenAI chat (a
    gateway that switched provider), whose tool messages have no flag and carry `tool_texts`."""
    failed = {**A_FAIL, "content": failed_content}
    history = [A_ASK, {"role": "assistant", "content": A_CALLS}, {"role": "user", "content": [A_OK, failed]}]
    calls = [{"id": b["id"], "type": "function",
              "function": {"name": b["name"], "arguments": json.dumps(b["input"])}} for b in A_CALLS[1:]]
    messages = [{"role": "user", "content": A_ASK["content"]},
                {"role": "assistant", "content": "Checking both.", "tool_calls": calls},
                *({"role": "tool", "tool_call_id": c["id"], "content": text}
                  for c, text in zip(calls, tool_texts, strict=True)),
                {"role": "assistant", "content": "Oslo 4 °C; Bergen failed."},
                {"role": "user", "content": "Try Bergen again."}]
    return log(
        exchange(ANTHROPIC, anthropic_request(history),
                 anthropic_message([{"type": "text", "text": "Oslo 4 °C; Bergen failed."}], "end_turn")),
        exchange(OPENAI, {"model": "gpt-4.1", "messages": messages, "tools": TOOLS}, chat_answer()),
    )


def test_td303_not_reported_when_a_flagged_failure_is_translated_to_openai_text_that_says_it():
    """Chat Completions has no failure flag: a failure carried over in the tool message's text is
    all the format can do — the writer's loss to report, not a replay defect."""
    data = _translated("Error: weather service timed out", ['{"temp_c": 4}', "Error: weather service timed out"])
    loaded = load_bytes("run.jsonl", data)
    assert loaded.errors == [] and loaded.formats == ["anthropic", "openai-chat"]
    assert run_checks(loaded, select_rules(["TD3"])) == []


def test_td303_reported_when_the_translated_text_no_longer_says_it_failed():
    data = _translated("no reading for Bergen", ['{"temp_c": 4}', "no reading for Bergen"])
    [f] = check(data)
    assert (f.code, f.severity, f.exchange, f.conversation, f.turn, f.part, f.pointer) == (
        "TD303", "error", 1, "c2", 2, 1, "line 2/request/body#/messages/3")  # two formats: not stitched
    assert "'toolu_01B'" in f.message


def test_td303_not_reported_for_tooldbgs_own_translation_of_a_failed_result():
    """Exchange 1 is what `tooldbg convert --to openai-chat` writes for exchange 0's conversation."""
    from tooldbg.convert import export

    failed = {**A_FAIL, "content": "WeatherServiceError: upstream timed out"}
    history = [A_ASK, {"role": "assistant", "content": A_CALLS}, {"role": "user", "content": [A_OK, failed]}]
    first = exchange(ANTHROPIC, anthropic_request(history),
                     anthropic_message([{"type": "text", "text": "Bergen failed."}], "end_turn"))
    [conv] = load_bytes("a.jsonl", log(first)).conversations
    written = export([conv], "openai-chat")
    assert any("is_error" in loss.message for loss in written.losses)  # the writer says what it folded
    body = {**written.body, "messages": [*written.body["messages"], {"role": "user", "content": "Again?"}]}
    data = log(first, exchange(OPENAI, body, chat_answer()))
    assert check(data) == []
