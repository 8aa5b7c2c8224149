"""TD1xx pairing and ids: each rule finds its defect at the right place, stays quiet on the mended
log, and stays quiet on the real-traffic shapes that look like defects but are not (forced calls
ending with `stop`, Gemini's `STOP` and missing ids, whole calls in one fragment, obfuscation
padding, client-invented ids, logs that end on the model's calls)."""

import json
from urllib.parse import urlsplit

import pytest

from tests.checks.helpers import DAMAGED, SYMPTOM, accepted, provider, rejected, run_rules
from tooldbg.checks import RULES, run_checks, select_rules
from tooldbg.checks.pairing import invalid_id, near_miss
from tooldbg.load import load_bytes

OPENAI = "https://api.openai.com/v1/chat/completions"
ANTHROPIC = "https://api.anthropic.com/v1/messages"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
RESPONSES = "https://api.openai.com/v1/responses"


# ------------------------------------------------------------------------------------ builders


def log(*exchanges):
    """JSON Lines of exchanges: each (url, request body, response body or SSE text or None, status).
    One exchange is one JSON document, addressed `/request/body`; several are `line N/request/body`."""
    lines = []
    for url, request, response, *status in exchanges:
        record = {"request": {"method": "POST", "url": url, "body": request}}
        if response is not None:
            kind = "text/event-stream" if isinstance(response, str) else "application/json"
            record["response"] = {"status": status[0] if status else 200,
                                  "headers": {"content-type": kind}, "body": response}
        lines.append(json.dumps(record))
    return ("\n".join(lines) + "\n").encode()


def check(data, codes, name="log.jsonl"):
    loaded = load_bytes(name, data)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return run_rules(loaded, select_rules(codes))


def codes(findings):
    return [f.code for f in findings]


def call(cid, name, args):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def chat(*messages, **extra):
    return {"model": "gpt-4.1", "messages": list(messages), **extra}


def completion(content=None, tool_calls=None, finish="tool_calls"):
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1767607512, "model": "gpt-4.1",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def user(text):
    return {"role": "user", "content": text}


def assistant(*tool_calls, content=None):
    return {"role": "assistant", "content": content, "tool_calls": list(tool_calls)}


def tool(cid, content):
    return {"role": "tool", "tool_call_id": cid, "content": content}


def claude(*messages):
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": list(messages)}


def tool_use(tid, name, args):
    return {"type": "tool_use", "id": tid, "name": name, "input": args}


def tool_result(tid, content, **extra):
    return {"type": "tool_result", "tool_use_id": tid, "content": content, **extra}


def message(*content, stop="tool_use"):
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": list(content), "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 10}}


def gemini(*contents):
    return {"contents": list(contents)}


def fcall(name, args, **extra):
    return {"functionCall": {"name": name, "args": args, **extra}}


def fresponse(name, response, **extra):
    return {"functionResponse": {"name": name, "response": response, **extra}}


def candidate(*parts):
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP",
                            "index": 0}], "modelVersion": "gemini-2.5-flash"}


def sse(*events):
    return "".join((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
                   for name, data in events)


OSLO = call("call_A1xQ9", "get_weather", {"city": "Oslo"})
OSLO_ASKED = {"role": "user", "parts": [{"text": "Weather in Oslo?"}]}
OSLO_CALLED = {"role": "model",
               "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]}
TD101_ERROR = {"error": {"message": "Invalid parameter: messages with role 'tool' must be a response to a "
                                    "preceeding message with 'tool_calls'.",
                         "type": "invalid_request_error", "param": "messages.[1].role", "code": None}}
TD102_ERROR = {"error": {"message": "An assistant message with 'tool_calls' must be followed by tool "
                                    "messages responding to each 'tool_call_id'. The following "
                                    "tool_call_ids did not have response messages: call_A1xQ9",
                         "type": "invalid_request_error", "param": "messages.[1].role", "code": None}}
BERGEN_MISSING = ("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
                  "toolu_01Bergen. Each `tool_use` block must have a corresponding `tool_result` block in "
                  "the next message.")
BERGEN = call("call_B2yR8", "get_weather", {"city": "Bergen"})


# ----------------------------------------------------------------------------------- registry


@pytest.mark.parametrize("code", [f"TD10{n}" for n in range(1, 9)])
def test_every_rule_of_the_group_is_registered_and_documented(code):
    rule = RULES[code]
    assert rule.code == code and rule.severity in ("error", "warning")
    assert len(rule.doc.split()) >= 40


@pytest.mark.parametrize("code", [f"TD10{n}" for n in range(1, 9)])
def test_each_rule_bad_example_gives_its_code_and_the_good_one_none(code):
    rule = RULES[code]
    if code == "TD106":  # a two-exchange story, told as text: tested below with a real log
        return
    bad = run_checks(load_bytes("bad.json", rule.bad.encode()), [rule])
    good = run_checks(load_bytes("good.json", rule.good.encode()), [rule])
    assert codes(bad) and set(codes(bad)) == {code}
    assert good == []


# --------------------------------------------------------------------------------------- TD101


def test_td101_history_trimmed_through_a_call_leaves_an_orphan():
    data = log((OPENAI, chat({"role": "system", "content": "Be terse."}, tool("call_A1xQ9", "4°C"),
                             user("And Bergen?")), TD101_ERROR, 400))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.severity, finding.conversation, finding.turn, finding.part) == \
        ("TD101", "error", "c1", 0, 0)
    assert finding.pointer == "/request/body#/messages/1"
    assert "'call_A1xQ9' answers no earlier call" in finding.message


def test_td101_a_result_bound_by_position_is_not_an_orphan():
    data = log((GEMINI, gemini(OSLO_ASKED, OSLO_CALLED,
                               {"role": "user", "parts": [fresponse("get_weather", {"output": 4})]}), None))
    assert check(data, ["TD1"]) == []


def test_td101_a_different_id_is_an_orphan_not_a_mismatch():
    data = log((OPENAI, chat(user("Weather?"), assistant(OSLO), tool("call_Zt7Kw", "4°C"), user("Thanks")),
                None))
    assert sorted(codes(check(data, ["TD1"]))) == ["TD101", "TD102"]


# --------------------------------------------------------------------------------------- TD102


def test_td102_a_dropped_parallel_result_is_found_at_the_call():
    data = log((OPENAI, chat(user("Weather in Oslo and Bergen?"), assistant(OSLO, BERGEN),
                             tool("call_A1xQ9", "4°C"), user("And tomorrow?")),
                completion("Tomorrow…", finish="stop")))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.turn, finding.part, finding.exchange) == ("TD102", 1, 1, 0)
    assert finding.pointer == "/request/body#/messages/1/tool_calls/1"
    assert "call i2 get_weather ('call_B2yR8') has no result" in finding.message


def test_td102_a_streamed_call_points_at_the_chunk_that_opened_it():
    stream = sse(
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 9, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_01Oslo", "name": "get_weather", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": "{\"city\": \"Oslo\"}"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {
            "type": "tool_use", "id": "toolu_01Bergen", "name": "get_weather", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {
            "type": "input_json_delta", "partial_json": "{\"city\": \"Bergen\"}"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                           "usage": {"output_tokens": 30}}),
        ("message_stop", {"type": "message_stop"}))
    question = {"role": "user", "content": "Weather in Oslo and Bergen?"}
    calls = {"role": "assistant", "content": [tool_use("toolu_01Oslo", "get_weather", {"city": "Oslo"}),
                                              tool_use("toolu_01Bergen", "get_weather", {"city": "Bergen"})]}
    data = log((ANTHROPIC, {**claude(question), "stream": True}, stream),
               (ANTHROPIC, claude(question, calls,
                                  {"role": "user", "content": [tool_result("toolu_01Oslo", "4°C")]}),
                {"type": "error", "error": {"type": "invalid_request_error", "message": BERGEN_MISSING}},
                400))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.turn, finding.part, finding.exchange) == ("TD102", 1, 1, 0)
    assert finding.chunk == 4  # the content_block_start of toolu_01Bergen


def test_td102_a_log_that_ends_on_calls_is_not_a_finding():
    """The response asks for the tools; the request that sends their results is not in the log yet.
    (A request that itself ends on calls is a finding: tests/checks/test_unanswered.py.)"""
    response_only = log((OPENAI, chat(user("Weather in Oslo and Bergen?")),
                         completion(tool_calls=[OSLO, BERGEN])))
    assert check(response_only, ["TD1"]) == []


def test_td102_a_request_ending_on_calls_that_was_rejected_is_a_finding():
    data = log((OPENAI, chat(user("Weather?"), assistant(OSLO)), TD102_ERROR, 400))
    [finding] = check(data, ["TD102"])
    assert finding.turn == 1 and finding.message.endswith("the request ends on it: the provider rejected it"
                                                          + rejected(0))


def test_td102_responses_streamed_back_to_back_without_requests_are_not_findings():
    first = completion(tool_calls=[OSLO])
    second = completion(tool_calls=[BERGEN])
    data = (json.dumps(first) + "\n" + json.dumps(second) + "\n").encode()
    loaded = load_bytes("two.jsonl", data)
    assert run_checks(loaded, select_rules(["TD102"])) == []


def test_td102_forced_tool_choice_answered_with_stop_is_clean():
    forced = {"type": "function", "function": {"name": "get_weather"}}
    data = log((OPENAI, chat(user("Weather in Oslo?"), tool_choice=forced),
                completion(tool_calls=[OSLO], finish="stop")),
               (OPENAI, chat(user("Weather in Oslo?"), assistant(OSLO), tool("call_A1xQ9", "4°C")),
                completion("4 °C in Oslo.", finish="stop")))
    assert check(data, ["TD1"]) == []


# --------------------------------------------------------------------------------------- TD103


@pytest.mark.parametrize(("result_id", "how"), [
    ("toolu_01hqz5fwm3tkxb8ycn2plr7v", "re-cased"),
    ("toolu_01HqZ5fWm3TkXb8Yc", "truncated to 23 of 30 characters"),
    ("call_01HqZ5fWm3TkXb8YcN2pLr7V", "prefix 'toolu_' rewritten to 'call_'"),
    ("toolu_01HqZ5fWm3TkXb8YcN2pLr7Vtoolu_01HqZ5fWm3TkXb8YcN2pLr7V",
     "repeated: the result's id is the other's, 2 times over"),
    (" toolu_01HqZ5fWm3TkXb8YcN2pLr7V", "whitespace"),
])
def test_td103_a_damaged_result_id_is_one_mismatch_not_an_orphan(result_id, how):
    data = log((ANTHROPIC, claude(user("Order A-20417?"),
                                  {"role": "assistant", "content": [
                                      {"type": "text", "text": "Looking it up."},
                                      tool_use("toolu_01HqZ5fWm3TkXb8YcN2pLr7V", "lookup_order",
                                               {"order_id": "A-20417"})]},
                                  {"role": "user", "content": [tool_result(result_id, "shipped")]},
                                  {"role": "user", "content": "Thanks!"}), None))
    findings = check(data, ["TD1"])
    assert [(f.code, f.turn, f.part) for f in findings if f.code != "TD108"] == [("TD103", 2, 0)]
    [finding] = [f for f in findings if f.code == "TD103"]
    assert finding.pointer == "/request/body#/messages/2/content/0"
    assert how in finding.message
    assert "call i1 lookup_order 'toolu_01HqZ5fWm3TkXb8YcN2pLr7V'" in finding.message


def test_td103_near_miss_needs_structural_damage():
    assert near_miss("call_A1", "call_B2") is None
    assert near_miss("call", "call_B2xQ9") is None  # too little kept to call it a truncation
    assert near_miss("call_B2x", "call_B2xQ9Lm") == "truncated to 8 of 12 characters"
    assert near_miss("fc_68a1b2", "call_68a1b2") == "prefix 'call_' rewritten to 'fc_'"
    # repeated: the longer id is the one that holds the other several times
    assert near_miss("call_Q3zbcall_Q3zb", "call_Q3zb") == "repeated: the result's id is the other's, 2 times over"
    assert near_miss("call_Q3zb", "call_Q3zb" * 3) == "repeated: the call's id is the other's, 3 times over"
    assert near_miss("68a1b2c3", "call_68a1b2c3") == "prefix 'call_' dropped"


def test_td103_only_unanswered_calls_are_candidates():
    # call_A1xQ9 is answered; a second result with a truncated id is an orphan, not a mismatch
    data = log((OPENAI, chat(user("Weather?"), assistant(OSLO), tool("call_A1xQ9", "4°C"),
                             tool("call_A1", "4°C")), None))
    assert codes(check(data, ["TD1"])) == ["TD101"]


def test_td103_a_damaged_id_after_an_answered_call_of_the_same_turn():
    """The first of two parallel calls is answered; the second's result has a truncated id: it is
    the second call's mismatch (the answered first call is passed over, not the end of the search)."""
    oslo = call("call_Qm7TzA1xQ9", "get_weather", {"city": "Oslo"})
    bergen = call("call_Bx4KpL2wR8", "get_weather", {"city": "Bergen"})
    data = log((OPENAI, chat(user("Weather in Oslo and Bergen?"), assistant(oslo, bergen),
                             tool("call_Qm7TzA1xQ9", "4°C"), tool("call_Bx4KpL2", "7°C")), None))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.turn, finding.part, finding.pointer) == (
        "TD103", 2, 1, "/request/body#/messages/3")
    assert finding.message == ("result id 'call_Bx4KpL2' does not match call i2 get_weather "
                               "'call_Bx4KpL2wR8' in turn 1: truncated to 12 of 15 characters" + DAMAGED)


# --------------------------------------------------------------------------------------- TD104


def test_td104_a_counter_reused_across_turns():
    first = call("call_0", "get_weather", {"city": "Oslo"})
    second = call("call_0", "get_weather", {"city": "Bergen"})
    data = log((OPENAI, chat(user("Oslo then Bergen"), assistant(first), tool("call_0", "4°C"),
                             assistant(second), tool("call_0", "7°C")), completion("Done.", finish="stop")))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.turn, finding.part) == ("TD104", 3, 0)
    assert finding.pointer == "/request/body#/messages/3/tool_calls/0"
    # the provider answered the request: a warning that says what the model lost
    assert finding.message == "call i2 get_weather reuses id 'call_0' of call i1 get_weather in turn 1" \
        + accepted(0, "the model cannot tell which result answers which of the calls")


def test_td104_parallel_calls_sharing_an_id_in_one_turn():
    twin = call("call_A1xQ9", "get_weather", {"city": "Bergen"})
    data = log((OPENAI, chat(user("Oslo and Bergen")), completion(tool_calls=[OSLO, twin])))
    [finding] = check(data, ["TD104"])
    assert (finding.turn, finding.part) == (1, 1) and "in the same turn" in finding.message


def test_td104_unique_ids_and_replayed_history_are_clean():
    data = log((OPENAI, chat(user("Oslo and Bergen")), completion(tool_calls=[OSLO, BERGEN])),
               (OPENAI, chat(user("Oslo and Bergen"), assistant(OSLO, BERGEN), tool("call_A1xQ9", "4°C"),
                             tool("call_B2yR8", "7°C")), completion("Done.", finish="stop")))
    assert check(data, ["TD1"]) == []


def test_td104_leaves_a_shared_placeholder_to_td108():
    first = call("tool-use-id", "get_weather", {"city": "Oslo"})
    second = call("tool-use-id", "get_weather", {"city": "Bergen"})
    data = log((OPENAI, chat(user("Oslo then Bergen"), assistant(first), tool("tool-use-id", "4°C"),
                             assistant(second), tool("tool-use-id", "7°C")), None))
    assert codes(check(data, ["TD1"])) == ["TD108", "TD108"]


# --------------------------------------------------------------------------------------- TD105


def test_td105_a_retried_tool_answered_twice():
    book = call("call_F3", "book_ticket", {"departure": "18:05"})
    data = log((OPENAI, chat(user("Book the 18:05 ferry."), assistant(book),
                             tool("call_F3", "Error: booking service timed out"),
                             tool("call_F3", "{\"booking\":\"NF-2291\"}")),
                completion("Booked.", finish="stop")))
    [finding] = check(data, ["TD1"])
    # OpenAI answered it: a warning (Anthropic, Bedrock and Gemini refuse two results for one call)
    assert (finding.code, finding.severity, finding.turn, finding.part) == ("TD105", "warning", 2, 1)
    assert finding.pointer == "/request/body#/messages/3"
    assert finding.message == \
        "result #2 for call i1 book_ticket ('call_F3'), already answered at turn 2 part 0" \
        + accepted(0, "the model sees two results for one call")


def test_td105_an_extra_gemini_response_for_an_id_less_call():
    data = log((GEMINI, gemini(OSLO_ASKED, OSLO_CALLED,
                               {"role": "user", "parts": [fresponse("get_weather", {"error": "timeout"}),
                                                          fresponse("get_weather", {"output": 4})]}), None))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.turn, finding.part) == ("TD105", 2, 1)
    assert "one get_weather result too many" in finding.message


def test_td105_gemini_will_continue_announces_the_next_response():
    data = log((GEMINI, gemini({"role": "user", "parts": [{"text": "Watch the build."}]},
                               {"role": "model", "parts": [fcall("watch_build", {"job": "web"})]},
                               {"role": "user", "parts": [
                                   fresponse("watch_build", {"output": "running"}, willContinue=True),
                                   fresponse("watch_build", {"output": "passed"})]}), None))
    assert check(data, ["TD1"]) == []


# --------------------------------------------------------------------------------------- TD106


def test_td106_a_call_replayed_under_a_new_id():
    renamed = call("call_1", "get_weather", {"city": "Oslo"})
    data = log((OPENAI, chat(user("Weather in Oslo?")), completion(tool_calls=[OSLO])),
               (OPENAI, chat(user("Weather in Oslo?"), assistant(renamed), tool("call_1", "4°C")),
                completion("4 °C.", finish="stop")))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.severity, finding.exchange, finding.turn, finding.part) == \
        ("TD106", "warning", 1, 1, 0)
    assert finding.pointer == "line 2/request/body#/messages/1/tool_calls/0"
    assert finding.message == ("call i1 get_weather was returned as 'call_A1xQ9' in exchange 0 and "
                               "replayed as 'call_1' in exchange 1" + SYMPTOM)


def test_td106_names_the_request_that_replayed_it_when_more_follow():
    """Three exchanges: the call made in exchange 0 is renumbered by exchange 1, which exchange 2
    goes on from; the finding names exchange 1, found after exchange 0 and not before it."""
    renamed = call("call_1", "get_weather", {"city": "Oslo"})
    replayed = [user("Weather in Oslo?"), assistant(renamed), tool("call_1", "4°C")]
    data = log((OPENAI, chat(user("Weather in Oslo?")), completion(tool_calls=[OSLO])),
               (OPENAI, chat(*replayed), completion("4 °C.", finish="stop")),
               (OPENAI, chat(*replayed, {"role": "assistant", "content": "4 °C."}, user("And tomorrow?")),
                completion("5 °C.", finish="stop")))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.exchange, finding.turn, finding.part) == ("TD106", 1, 1, 0)
    assert finding.message == ("call i1 get_weather was returned as 'call_A1xQ9' in exchange 0 and "
                               "replayed as 'call_1' in exchange 1" + SYMPTOM)


def test_td106_with_results_kept_under_the_old_id_names_the_cause_beside_the_orphan():
    renamed = call("call_1", "get_weather", {"city": "Oslo"})
    data = log((OPENAI, chat(user("Weather in Oslo?")), completion(tool_calls=[OSLO])),
               (OPENAI, chat(user("Weather in Oslo?"), assistant(renamed), tool("call_A1xQ9", "4°C"),
                             user("Thanks")), None))
    assert sorted(codes(check(data, ["TD1"]))) == ["TD101", "TD102", "TD106"]


def test_td106_a_streamed_response_replayed_under_a_new_id():
    stream = sse(
        (None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": [
                    {"index": 0, "id": "call_A1xQ9", "type": "function",
                     "function": {"name": "get_weather", "arguments": ""}}]}, "finish_reason": None}],
                "obfuscation": "Zr7Vw0"}),
        (None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                "choices": [{"index": 0, "delta": {"tool_calls": [
                    {"index": 0, "function": {"arguments": "{\"city\": \"Oslo\"}"}}]},
                    "finish_reason": None}],
                "obfuscation": "aa"}),
        (None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
                "obfuscation": "H3n"})) + "data: [DONE]\n\n"
    renamed = call("call_7f3e", "get_weather", {"city": "Oslo"})
    data = log((OPENAI, chat(user("Weather in Oslo?"), stream=True), stream),
               (OPENAI, chat(user("Weather in Oslo?"), assistant(renamed), tool("call_7f3e", "4°C")),
                completion("4 °C.", finish="stop")))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.exchange, finding.turn, finding.chunk) == ("TD106", 1, 1, None)


def test_td106_client_invented_ids_for_id_less_gemini_calls_are_clean():
    question = OSLO_ASKED
    invented = fcall("get_weather", {"city": "Oslo"}, id="tool_0")
    data = log((GEMINI, gemini(question), candidate(fcall("get_weather", {"city": "Oslo"}))),
               (GEMINI, gemini(question, {"role": "model", "parts": [invented]},
                               {"role": "user", "parts": [fresponse("get_weather", {"output": {"temp_c": 4}},
                                                                    id="tool_0")]}),
                candidate({"text": "4 °C in Oslo."})))
    assert check(data, ["TD1"]) == []


def test_td106_an_unchanged_replay_is_clean():
    data = log((OPENAI, chat(user("Weather in Oslo?")), completion(tool_calls=[OSLO])),
               (OPENAI, chat(user("Weather in Oslo?"), assistant(OSLO), tool("call_A1xQ9", "4°C")),
                completion("4 °C.", finish="stop")))
    assert check(data, ["TD1"]) == []


def test_td106_responses_api_call_id_kept_and_item_id_dropped_is_clean():
    item = {"id": "fc_68a1", "type": "function_call", "status": "completed", "call_id": "call_X9",
            "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}
    question = {"role": "user", "content": [{"type": "input_text", "text": "Weather in Oslo?"}]}
    replay = {"type": "function_call", "call_id": "call_X9", "name": "get_weather",
              "arguments": "{\"city\":\"Oslo\"}"}
    data = log((RESPONSES, {"model": "gpt-5.5", "input": [question]},
                {"id": "resp_1", "object": "response", "status": "completed", "output": [item]}),
               (RESPONSES, {"model": "gpt-5.5", "input": [
                   question, replay,
                   {"type": "function_call_output", "call_id": "call_X9", "output": "4°C"}]},
                None))
    assert check(data, ["TD1"]) == []


# --------------------------------------------------------------------------------------- TD107


def _gemini_parallel(first, second):
    return log((GEMINI, gemini(
        {"role": "user", "parts": [{"text": "Weather in Oslo and Bergen?"}]},
        {"role": "model", "parts": [fcall("get_weather", {"city": "Oslo"}),
                                    fcall("get_weather", {"city": "Bergen"})]},
        {"role": "user", "parts": [fresponse("get_weather", first), fresponse("get_weather", second)]}),
        None))


def test_td107_results_in_completion_order_look_swapped():
    data = _gemini_parallel({"output": {"city": "Bergen", "temp_c": 7}},
                            {"output": {"city": "Oslo", "temp_c": 4}})
    findings = check(data, ["TD1"])
    assert [(f.code, f.severity, f.turn, f.part) for f in findings] == \
        [("TD107", "warning", 2, 0), ("TD107", "warning", 2, 1)]
    assert findings[0].pointer == "/request/body#/contents/2/parts/0"
    assert "paired by position with i1 get_weather({\"city\":\"Oslo\"}) mentions 'Bergen'" \
        in findings[0].message


def test_td107_results_that_confirm_nothing_are_a_guess():
    data = _gemini_parallel({"output": {"temp_c": 4}}, {"output": {"temp_c": 7}})
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.turn, finding.part) == ("TD107", 2, 0)
    assert "paired by position only" in finding.message and "(i1, i2)" in finding.message


@pytest.mark.parametrize(("first", "second"), [
    ({"output": {"city": "Oslo", "temp_c": 4}}, {"output": {"city": "Bergen", "temp_c": 7}}),
    # the first confirmed by elimination
    ({"output": {"temp_c": 4}}, {"error": "weather service timed out for Bergen"}),
])
def test_td107_results_that_echo_their_own_call_are_clean(first, second):
    assert check(_gemini_parallel(first, second), ["TD1"]) == []


def test_td107_gemini_calls_without_results_and_calls_with_ids_are_clean():
    response_only = log((GEMINI, gemini({"role": "user", "parts": [{"text": "Oslo and Bergen?"}]}),
                         candidate(fcall("get_weather", {"city": "Oslo"}),
                                   fcall("get_weather", {"city": "Bergen"}))))
    with_ids = log((GEMINI, gemini(
        {"role": "user", "parts": [{"text": "Oslo and Bergen?"}]},
        {"role": "model", "parts": [fcall("get_weather", {"city": "Oslo"}, id="call_1"),
                                    fcall("get_weather", {"city": "Bergen"}, id="call_2")]},
        {"role": "user", "parts": [fresponse("get_weather", {"output": {"temp_c": 7}}, id="call_2"),
                                   fresponse("get_weather", {"output": {"temp_c": 4}}, id="call_1")]}), None))
    assert check(response_only, ["TD1"]) == [] and check(with_ids, ["TD107"]) == []


# --------------------------------------------------------------------------------------- TD108


def test_td108_an_empty_id_is_reported_once_at_the_call():
    data = log((ANTHROPIC, claude(user("Weather?"),
                                  {"role": "assistant",
                                   "content": [tool_use("", "get_weather", {"city": "Oslo"})]},
                                  {"role": "user", "content": [tool_result("", "4°C")]}),
                {"type": "error", "error": {"type": "invalid_request_error", "message":
                                            "messages.1.content.0.tool_use.id: String should match pattern "
                                            "'^[a-zA-Z0-9_-]+$'"}}, 400))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.turn, finding.part) == ("TD108", 1, 0)
    assert finding.pointer == "/request/body#/messages/1/content/0"
    assert finding.message == "call i1 get_weather has an id that is empty: ''" + rejected(0)


@pytest.mark.parametrize(("wire_id", "why"), [
    ("", "empty"), ("   ", "blank (whitespace only)"), (" call_VSPy3", "padded with whitespace"),
    ("call_VSPy3\n", "padded with whitespace"), ("tool-use-id", "a placeholder"),
    ("undefined", "a placeholder"),
    ("None", "a placeholder"), ("{tool_call_id}", "a placeholder"), ("${id}", "a placeholder"),
    ("call_VSPy3", None), ("tool_0", None), ("call_0", None), ("mcf2d8nn1", None), ("functions.Bash:0", None),
])
def test_td108_what_counts_as_invalid(wire_id, why):
    assert invalid_id(wire_id) == why


def test_td108_a_result_with_its_own_bad_id_is_reported_at_the_result():
    data = log((OPENAI, chat(user("Weather?"), assistant(OSLO), tool("None", "4°C")), None))
    found = check(data, ["TD108"])
    assert [(f.turn, f.part, f.message) for f in found] == \
        [(2, 0, "result has an id that is a placeholder: 'None'" + provider("OpenAI", "the URL host api.openai.com"))]


BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1:0/converse"
#: One call and its result, each without the id the format requires: (url, request, the key named).
ID_LESS = {
    "openai-chat": (OPENAI, chat(user("Weather?"), assistant({"type": "function", "function": {
        "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}),
        {"role": "tool", "content": "4°C"}, {"role": "assistant", "content": "4°C in Oslo."},
        user("Thanks")), "'id'"),
    "anthropic": (ANTHROPIC, claude(user("Weather?"), {"role": "assistant", "content": [
        {"type": "tool_use", "name": "get_weather", "input": {"city": "Oslo"}}]},
        {"role": "user", "content": [{"type": "tool_result", "content": "4°C"}]}), "'id'"),
    "openai-responses": (RESPONSES, {"model": "gpt-5", "input": [
        {"role": "user", "content": "Weather?"},
        {"type": "function_call", "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"},
        {"type": "function_call_output", "output": "4°C"}]}, "'call_id'"),
    "bedrock": (BEDROCK, {"messages": [
        {"role": "user", "content": [{"text": "Weather?"}]},
        {"role": "assistant", "content": [{"toolUse": {"name": "get_weather", "input": {"city": "Oslo"}}}]},
        {"role": "user", "content": [{"toolResult": {"content": [{"text": "4°C"}]}}]}]}, "'toolUseId'"),
}


@pytest.mark.parametrize("fmt", list(ID_LESS))
def test_td108_a_missing_id_is_reported_once_at_the_call_not_as_orphan_or_unanswered(fmt):
    url, request, key = ID_LESS[fmt]
    loaded = load_bytes("log.jsonl", log((url, request, None)))
    assert [r.format for r in loaded.reads] == [fmt]
    [finding] = run_rules(loaded, select_rules(["TD1"]))
    assert (finding.code, finding.turn, finding.part) == ("TD108", 1, 0)
    who = {"openai-chat": "OpenAI", "openai-responses": "OpenAI", "anthropic": "Anthropic", "bedrock": "Amazon Bedrock"}
    assert finding.message == f"call i1 get_weather has no id ({fmt} requires {key}), so its result cannot name it" \
        + provider(who[fmt], f"the URL host {urlsplit(url).hostname}")


def test_td108_a_response_without_ids_is_reported_where_the_client_made_one_up():
    """The history replays the call under an id the client invented (valid, so no finding there):
    the server's response that sent none is the defect, reported once, at the response."""
    bare = {"type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}
    made_up = {**bare, "id": "get_weather"}  # openai-node's fallback: the tool name
    data = log((OPENAI, chat(user("Weather?")), completion(tool_calls=[bare])),
               (OPENAI, chat(user("Weather?"), assistant(made_up), tool("get_weather", "4°C")), None))
    [finding] = check(data, ["TD1"])
    assert (finding.code, finding.exchange, finding.turn) == ("TD108", 0, None)
    assert finding.pointer == "line 1/response/body#/choices/0/message/tool_calls/0"
    assert finding.message.startswith("call get_weather has no id (openai-chat requires 'id') in the response")


def test_td108_gemini_ids_are_optional():
    data = log((GEMINI, gemini(OSLO_ASKED, OSLO_CALLED, {"role": "user", "parts": [
        fresponse("get_weather", {"temp_c": 4})]}), None))
    assert check(data, ["TD1"]) == []


def test_td108_a_result_that_lost_its_calls_id_is_paired_by_position_and_reported_there():
    for lost in ({"role": "tool", "content": "7°C"}, tool("", "7°C")):
        data = log((OPENAI, chat(user("Weather?"), assistant(OSLO, BERGEN), tool("call_A1xQ9", "4°C"), lost,
                                 {"role": "assistant", "content": "4°C and 7°C."}, user("Thanks")), None))
        [finding] = check(data, ["TD1"])
        assert (finding.code, finding.turn, finding.part) == ("TD108", 2, 1)
        assert finding.message.startswith("result for i2 get_weather has ")


def test_td108_legacy_function_call_has_no_ids_by_design():
    data = log((OPENAI, chat(user("Weather?"), {"role": "assistant", "content": None, "function_call": {
        "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}},
        {"role": "function", "name": "get_weather", "content": "4°C"}), None))
    assert check(data, ["TD1"]) == []


def test_td108_leaves_a_streamed_call_without_id_to_td503():
    stream = sse(_chunk({"role": "assistant", "tool_calls": [{"index": 0, "type": "function", "function": {
        "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}), _chunk({}, "tool_calls"))
    found = check(log((OPENAI, chat(user("Weather?"), stream=True), stream + "data: [DONE]\n\n")),
                  ["TD1", "TD5"])
    assert codes(found) == ["TD503"]


# ------------------------------------------------------------------- stored conversations, streams


def _responses_chain(previous_id, call_id, *, with_first=True):
    item = {"id": "fc_68a1", "type": "function_call", "status": "completed", "call_id": "call_X9",
            "name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}
    first = (RESPONSES, {"model": "gpt-5.5", "input": "Weather in Oslo?"},
             {"id": "resp_1", "object": "response", "status": "completed", "output": [item]})
    second = (RESPONSES, {"model": "gpt-5.5", "previous_response_id": previous_id,
                          "input": [{"type": "function_call_output", "call_id": call_id, "output": "4°C"}]},
              None)
    return log(first, second) if with_first else log(second)


def test_td101_a_responses_request_continuing_a_stored_response_is_not_an_orphan():
    assert check(_responses_chain("resp_1", "call_X9"), ["TD1"]) == []
    assert check(_responses_chain("resp_0ld", "call_X9", with_first=False), ["TD1"]) == []


def test_td101_a_stored_response_in_the_log_without_the_call_leaves_an_orphan():
    """The chained request is stitched after resp_1 (turns 0-1): its output answers no call there,
    and resp_1's call_X9 goes unanswered (the API: "No tool output found for function call")."""
    findings = check(_responses_chain("resp_1", "call_Q7"), ["TD1"])
    assert [(f.code, f.exchange, f.turn, f.part) for f in findings] == [
        ("TD102", 0, 1, 0), ("TD101", 1, 2, 0)]


def _chunk(delta, finish=None, **extra):
    return (None, {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1, "model": "m",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})


@pytest.mark.parametrize("stream", [
    # Groq: the whole call (id, name, complete arguments) in one fragment, `index` after `function`
    sse(_chunk({"role": "assistant", "tool_calls": [
        {"id": "mcf2d8nn1", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}, "index": 0}]}),
        _chunk({}, "tool_calls"), (None, {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1,
                                          "model": "m", "choices": [], "usage": {"total_tokens": 9}})),
    # OpenAI: id and name first, arguments in pieces, every chunk padded with `obfuscation`
    sse(_chunk({"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": "mcf2d8nn1", "type": "function",
         "function": {"name": "get_weather", "arguments": ""}}]},
        obfuscation="Zr7Vw0"),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}, obfuscation="aa"),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]}, obfuscation="H3nLq"),
        _chunk({}, "stop", obfuscation="p1")),  # a forced tool_choice ends with `stop`
], ids=["groq-one-fragment", "openai-obfuscated-forced"])
def test_streamed_calls_replayed_faithfully_are_clean(stream):
    kept = call("mcf2d8nn1", "get_weather", {"city": "Oslo"})
    data = log((OPENAI, chat(user("Weather in Oslo?"), stream=True), stream + "data: [DONE]\n\n"),
               (OPENAI, chat(user("Weather in Oslo?"), assistant(kept), tool("mcf2d8nn1", "4°C")),
                completion("4 °C.", finish="stop")))
    assert check(data, ["TD1"]) == []


# ------------------------------------------------------ TD103: six characters kept, on both sides


@pytest.mark.parametrize(("result_id", "call_id", "how"), [
    # truncation: the result keeps the call id's first six characters — or only five
    ("a1b2c3", "a1b2c3d4e5", "truncated to 6 of 10 characters"),
    ("a1b2c", "a1b2c3d4e5", None),
    # extension: the call's whole id is the first six characters of the result's — or five
    ("a1b2c3XYZ", "a1b2c3", "extended: the call's id is the first 6 characters of the result's"),
    ("a1b2cXYZ", "a1b2c", None),
    # a prefix dropped or added, six characters left behind it — or five
    ("a1b2c3", "call_a1b2c3", "prefix 'call_' dropped"),
    ("a1b2c", "call_a1b2c", None),
    ("call_a1b2c3", "a1b2c3", "prefix 'call_' added"),
    ("call_a1b2c", "a1b2c", None),
    # a prefix rewritten is damage whatever the length of what follows
    ("fc_a1b", "call_a1b", "prefix 'call_' rewritten to 'fc_'"),
])
def test_td103_near_miss_length_threshold_on_both_sides(result_id, call_id, how):
    assert near_miss(result_id, call_id) == how


@pytest.mark.parametrize(("result_id", "expected"), [
    ("a1b2c3", ("TD103", "error", 2, 0)),  # six characters kept: the call's id, cut
    ("a1b2c", ("TD101", "error", 2, 0)),   # five: another id, answering nothing
])
def test_td103_threshold_decides_between_a_mismatch_and_an_orphan(result_id, expected):
    data = log((OPENAI, chat(user("Weather?"), assistant(call("a1b2c3d4e5", "get_weather", {"city": "Oslo"})),
                             tool(result_id, "4°C"), user("Thanks")), None))
    findings = check(data, ["TD101", "TD103"])
    assert [(f.code, f.severity, f.turn, f.part) for f in findings] == [expected]
    assert findings[0].pointer == "/request/body#/messages/2"
