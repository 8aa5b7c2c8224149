"""`tooldbg.diff`: two logs of one conversation aligned by content, each difference a TD7xx finding
on the side it is on. The relay in tests/relay/ drives the same engine with real HTTP traffic; here
the two sides are written by hand, or by tooldbg's own writers."""

import json
from dataclasses import replace

import pytest

from tests.differing import lines
from tests.paths import SAMPLES
from tooldbg import formats
from tooldbg.diff import diff
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Conversation, document

WEATHER = {"type": "object", "properties": {"city": {"type": "string"},
                                            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
           "required": ["city"]}
QUESTION = "Weather in Oslo and Bergen?"
#: How a TD701–TD704 difference ends: what set its severity.
LOST = " — error: lost or changed on the way"


def jsonl(name, exchanges, url):
    lines = [json.dumps({"request": {"method": "POST", "url": url, "body": q},
                         **({"response": {"status": 200, "body": r}} if r is not None else {})})
             for q, r in exchanges]
    return load_bytes(name, "\n".join(lines).encode())


# -- the client's side: OpenAI Chat Completions -----------------------------------------------------

def oa_call(ident, city):
    return {"id": ident, "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}


def oa_request(messages, tools=True):
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": QUESTION}, *messages]}
    if tools:
        body["tools"] = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}]
    return body


def oa_response(message, finish="stop"):
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}]}


CALLS = {"content": "I'll check both.", "tool_calls": [oa_call("call_1", "Oslo"), oa_call("call_2", "Bergen")]}
RESULTS = [{"role": "tool", "tool_call_id": "call_1", "content": "Oslo: 4 C"},
           {"role": "tool", "tool_call_id": "call_2", "content": "Bergen: 9 C"}]


def client(*exchanges):
    return jsonl("client.jsonl", exchanges, "http://127.0.0.1/v1/chat/completions")


def agent_run(results=RESULTS, answer="Oslo 4 C, Bergen 9 C."):
    """Two rounds: the model calls twice in parallel, then answers."""
    return client((oa_request([]), oa_response(CALLS, "tool_calls")),
                  (oa_request([{"role": "assistant", **CALLS}, *results]), oa_response({"content": answer})))


# -- the upstream side: Anthropic Messages -----------------------------------------------------------

def an_request(messages, tools=True, schema=WEATHER):
    body = {"model": "claude-sonnet-4-5", "max_tokens": 1024,
            "messages": [{"role": "user", "content": QUESTION}, *messages]}
    if tools:
        body["tools"] = [{"name": "get_weather", "input_schema": schema}]
    return body


def an_response(content, stop="end_turn"):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": content, "stop_reason": stop, "usage": {"input_tokens": 1, "output_tokens": 1}}


def use(ident, city):
    return {"type": "tool_use", "id": ident, "name": "get_weather", "input": {"city": city}}


TURN = [{"type": "text", "text": "I'll check both."}, use("toolu_1", "Oslo"), use("toolu_2", "Bergen")]


def result(ident, text, **extra):
    return {"type": "tool_result", "tool_use_id": ident, "content": text, **extra}


def upstream(*exchanges):
    return jsonl("upstream.jsonl", exchanges, "https://api.anthropic.com/v1/messages")


def upstream_run(results=None, answer="Oslo 4 C, Bergen 9 C.", turn=TURN, **request):
    results = results if results is not None else [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "Bergen: 9 C")]
    return upstream((an_request([], **request), an_response(turn, "tool_use")),
                    (an_request([{"role": "assistant", "content": turn}, {"role": "user", "content": results}],
                                **request), an_response([{"type": "text", "text": answer}])))


def codes(result):
    return sorted((f.code, f.side) for f in result.findings)


# -- agreement --------------------------------------------------------------------------------------

SAMPLE_LOGS = sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.name != "README.md")


@pytest.mark.parametrize("path", SAMPLE_LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_log_against_itself_has_no_difference(path):
    loaded = load_file(path)
    result = diff(loaded, load_file(path))
    assert result.findings == [] and result.notes == []
    assert [p.exchanges for p in result.pairings] == \
        [[(r.exchange.index, r.exchange.index) for r in loaded.reads if r.conversation == c.id]
         for c in loaded.conversations]


def test_a_faithful_relay_differs_only_in_its_ids():
    result = diff(agent_run(), upstream_run())
    assert result.findings == [] and result.own == []
    assert [n.message for n in result.notes] == [
        "call ids rewritten consistently between a's c1 and b's c1 (2): call_1 → toolu_1, call_2 → toolu_2; "
        "every result still answers its call",
        "model 'gpt-4o' on a is 'claude-sonnet-4-5' on b"]
    [pairing] = result.pairings
    assert pairing.exchanges == [(0, 0), (1, 1)] and pairing.turns == [(0, 0), (1, 1), (2, 2), (3, 3)]


def requests_written(loaded, fmt):
    """Each request of `loaded` as tooldbg's `fmt` writer replays it, and every loss it reported."""
    lines, losses = [], set()
    for read in loaded.reads:
        q = read.request
        written = formats.get(fmt).write(Conversation(model=q.model or "m", system=q.system, tools=q.tools,
                                                      tool_choice=q.tool_choice, turns=q.turns))
        losses |= {(loss.turn, loss.part) for loss in written.losses if "reasoning" in loss.message}
        lines.append(json.dumps({"request": {"method": "POST", "url": "http://x/", "body": written.body}}))
    return load_bytes(f"{fmt}.jsonl", "\n".join(lines).encode(), fmt), losses


def requests_only(loaded):
    lines = [json.dumps({"request": {"method": "POST", "url": "http://x/", "body": r.exchange.request.body}})
             for r in loaded.reads]
    return load_bytes(loaded.path, "\n".join(lines).encode())


@pytest.mark.parametrize("source", formats.WIRE_FORMATS)
@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
def test_a_translation_differs_where_the_writer_says_it_loses(source, target):
    """Every request of a sample, translated by tooldbg's own writer: the only differences are the
    reasoning the writer reports it dropped (a failure flag folded into text is a note)."""
    original = requests_only(load_file(SAMPLES / source / "parallel-calls.jsonl"))
    translated, dropped = requests_written(original, target)
    result = diff(original, translated, own=False)
    assert {(f.code, f.side) for f in result.findings} <= {("TD703", "b")}
    assert {(f.a.turn, f.a.part) for f in result.findings} == dropped
    assert all("reasoning" in f.message for f in result.findings)


@pytest.mark.parametrize("name", ["ends-on-a-call.jsonl", "parallel-calls.jsonl"])
def test_a_log_against_its_lossless_conversion_pairs_the_exchange_replayed_whole(name):
    """`convert LOG --to openai-chat` is one request replaying every exchange. Before: it was paired
    with exchange 0, the first similar enough (greedy), and exchange 1's turns were reported lost
    (two TD703); and an answer's calls, numbered from i1 by the reader, stood for the history's
    first call, so a result seemed to answer another call."""
    log = load_file(SAMPLES / "openai-chat" / name)
    written = formats.get("openai-chat").write(log.conversations[0])
    assert [loss.message for loss in written.losses if "history" not in loss.message] == []
    result = diff(log, load_bytes("converted.json", json.dumps(written.body).encode()), own=False)
    assert result.findings == []
    last = len(log.reads) - 1
    assert result.pairings[0].exchanges == [*((i, None) for i in range(last)), (last, 0)]


@pytest.mark.parametrize("target", ["anthropic", "bedrock"])
def test_a_result_moved_before_the_text_of_its_message_is_moved_not_lost(target):
    """The user spoke between the call and its result: Anthropic and Bedrock put the result first in
    the one user message (a listed loss). The two turns swap places, so the result sits in
    another region of the alignment on each side. Before: it was reported lost on both sides."""
    body = {"model": "gpt-4.1", "tools": [{"type": "function", "function": {"name": "get_weather",
                                                                            "parameters": {"type": "object"}}}],
            "messages": [{"role": "user", "content": "Weather?"},
                         {"role": "assistant", "content": None, "tool_calls": [oa_call("call_1", "Oslo")]},
                         {"role": "user", "content": "Hurry, please."},
                         {"role": "tool", "tool_call_id": "call_1", "content": "4C"},
                         {"role": "assistant", "content": "Cold."}]}
    log = load_bytes("log.json", json.dumps(body).encode())
    written = formats.get(target).write(log.conversations[0])
    assert {loss.turn for loss in written.losses if "tool results" in loss.message} == {2, 3}
    assert diff(log, load_bytes("converted.json", json.dumps(written.body).encode()), own=False).findings == []


def test_a_result_of_a_call_whose_arguments_changed_answers_the_same_call():
    """Gemini cannot carry double-encoded arguments: the writer lists the loss and writes {}. The
    call's arguments differ (TD704, at the call); its result still answers that call. Before: a
    second TD703 said the result answered another call (found by the diff property)."""
    log = load_file(SAMPLES / "defects" / "TD201-litellm-proxy-double-encodes-arguments.jsonl")
    written = formats.get("gemini").write(log.conversations[0])
    result = diff(log, load_bytes("converted.json", json.dumps(written.body).encode()), own=False)
    assert [(f.code, f.a.turn) for f in result.findings] == [("TD704", 1)]
    assert 1 in {loss.turn for loss in written.losses}


def test_a_log_pairs_with_its_conversion_by_content_wherever_the_content_sits():
    """A log's last answer is in a response; its conversion replays it in a request. Exchanges pair by
    content wherever it sits: before, the answer counted for nothing, the conversion paired with the
    first exchange, and the answer was reported added by b (TD705) besides the call the writer listed
    as dropped (found by the diff property)."""
    log = load_file(SAMPLES / "defects" / "TD102-request-ends-on-unanswered-call.jsonl")
    written = formats.get("openai-chat").write(log.conversations[0])
    assert {loss.turn for loss in written.losses} == {1}
    result = diff(log, load_bytes("converted.json", json.dumps(written.body).encode()), own=False)
    assert result.pairings[0].exchanges == [(0, None), (1, 0)]
    assert [(f.code, f.side, f.a.turn) for f in result.findings] == [("TD703", "b", 1)]


def test_a_conversion_that_folds_failures_into_text_pairs_with_the_exchange_it_replays_whole():
    """Chat Completions has no failure flag: the writer puts `Error: ` before a failed result's text.
    Counted as other content, those results made the log's last exchange no closer to the conversion
    than its first, which took it; the last exchange's answer and results were then reported added
    (TD705) (found by the diff property)."""
    import random

    from tests.fuzz.sessions import exchange
    from tooldbg.formats.reading import link
    from tooldbg.model import Invocation, Result, Text, Tool, Turn

    tools = tuple(Tool(name=n, parameters={"type": "object"}) for n in ("f", "g"))
    conv = Conversation(model="gemini-2.5-flash", tools=tools, turns=link([
        Turn(role="user", parts=(Text(text="What changed?"),)),
        Turn(role="assistant", parts=tuple(Invocation(name=n, arguments={"q": 1}) for n in ("f", "g"))),
        Turn(role="tool", parts=tuple(Result(name=n, is_error=True, content=(Text(text=f"{n} failed"),))
                                      for n in ("f", "g"))),
        Turn(role="assistant", parts=(Text(text="Both failed."),))]))
    records = [exchange("gemini", replace(conv, turns=conv.turns[:k]), conv.turns[k], random.Random(k))
               for k in (1, 3)]
    log = load_bytes("log.json", json.dumps(records).encode())
    written = formats.get("openai-chat").write(log.conversations[0])
    result = diff(log, load_bytes("converted.json", json.dumps(written.body).encode()), own=False)
    assert result.pairings[0].exchanges == [(0, None), (1, 0)] and result.findings == []


def test_a_failure_said_in_the_text_of_a_format_without_a_flag_is_a_note():
    folded = [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "timed out", is_error=True)]
    a = upstream_run(results=folded)
    b = agent_run(results=[RESULTS[0], {"role": "tool", "tool_call_id": "call_2", "content": "Error: timed out"}])
    result_ = diff(a, b)
    assert result_.findings == []
    assert any("its failure flag is said in the text on the openai-chat side" in n.message for n in result_.notes)


# -- each difference --------------------------------------------------------------------------------

def test_a_dropped_parallel_result_is_lost_on_b_once():
    third = (oa_request([{"role": "assistant", **CALLS}, *RESULTS, {"role": "assistant", "content": "Oslo 4 C."},
                         {"role": "user", "content": "And tomorrow?"}]), oa_response({"content": "Same."}))
    a = client(*[(q, r) for q, r in [(oa_request([]), oa_response(CALLS, "tool_calls")),
                                      (oa_request([{"role": "assistant", **CALLS}, *RESULTS]),
                                       oa_response({"content": "Oslo 4 C."}))]], third)
    history = [{"role": "assistant", "content": TURN}, {"role": "user", "content": [result("toolu_1", "Oslo: 4 C")]}]
    b = upstream((an_request([]), an_response(TURN, "tool_use")),
                 (an_request(history), an_response([{"type": "text", "text": "Oslo 4 C."}])),
                 (an_request([*history, {"role": "assistant", "content": [{"type": "text", "text": "Oslo 4 C."}]},
                              {"role": "user", "content": "And tomorrow?"}]),
                  an_response([{"type": "text", "text": "Same."}])))
    result_ = diff(a, b)
    [f] = result_.findings
    assert (f.code, f.side, f.exchange, f.turn, f.part) == ("TD703", "b", 1, 2, None)
    assert f.message == ("the result of 'get_weather' (call_2) 'Bergen: 9 C' is in a's request but not in b's: "
                         "its call is left unanswered there" + LOST)
    assert (f.a.exchange, f.a.turn, f.a.part, f.a.pointer) == (1, 2, 1, "line 2/request/body#/messages/3")
    assert f.b.pointer == "line 2/request/body#/messages/2"
    assert [(g.side, g.code) for g in result_.own] == [("b", "TD102")]


def test_tools_dropped_and_a_forced_choice_dropped():
    a = client((dict(oa_request([]), tool_choice="required"), oa_response(CALLS, "tool_calls")))
    b = upstream((an_request([], tools=False), an_response(TURN, "tool_use")))
    result_ = diff(a, b, own=False)
    assert codes(result_) == [("TD701", "b"), ("TD701", "b")]
    assert [f.message for f in result_.findings] == [
        "a's request forces a tool call (tool_choice), b's does not: the model may answer with text" + LOST,
        "tool 'get_weather' is declared in a's request but not in b's: the model cannot call it" + LOST]
    assert result_.findings[1].a.pointer == "/request/body#/tools/0/function"  # one line: a JSON body


def test_schema_simplified():
    bare = {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}
    result_ = diff(client((oa_request([]), None)), upstream((an_request([], schema=bare), None)), own=False)
    [f] = result_.findings
    assert (f.code, f.side) == ("TD702", "b")
    assert f.message == ("tool 'get_weather' has a simpler schema on b than on a: the enum of 'unit' removed "
                         "(\"celsius\", \"fahrenheit\"); required 'city' removed" + LOST)
    result_ = diff(client((oa_request([]), None)), upstream((an_request([], schema={"type": "object"}), None)))
    assert [f.message for f in result_.findings] == [
        "tool 'get_weather' has a simpler schema on b than on a: every parameter removed ('city', 'unit')" + LOST]


def test_the_text_beside_a_call_lost_on_the_way_back_to_the_client():
    a = client((oa_request([]), oa_response({"content": None, "tool_calls": CALLS["tool_calls"]}, "tool_calls")))
    b = upstream((an_request([]), an_response(TURN, "tool_use")))
    [f] = diff(a, b).findings
    assert (f.code, f.side, f.turn, f.b.part) == ("TD703", "a", 1, 0)
    assert f.message == "the assistant's text \"I'll check both.\" is in b's response but not in a's" + LOST


def test_is_error_lost_between_two_formats_that_have_the_flag():
    failed = [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "timed out", is_error=True)]
    folded = [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "Error: timed out")]
    [f] = diff(upstream_run(results=failed), upstream_run(results=folded), own=False).findings
    assert (f.code, f.side, f.turn, f.part, f.a.part) == ("TD703", "b", 2, 1, 1)
    assert f.message == ("the result of 'get_weather' (toolu_2) 'timed out' is marked as a failure (is_error) on "
                         "a but not on b, only said in its text: the model reads the failure as the tool's answer"
                         + LOST)


def test_arguments_changed_and_a_call_lost():
    changed = [use("toolu_1", "Oslo"), {**use("toolu_2", "Bergen"), "input": {"city": "Bergen", "unit": "celsius"}}]
    result_ = diff(client((oa_request([]), oa_response(CALLS, "tool_calls"))),
                   upstream((an_request([]), an_response([TURN[0], *changed], "tool_use"))), own=False)
    [f] = result_.findings
    assert (f.code, f.side) == ("TD704", "a")
    assert f.message == ("the arguments of the call to 'get_weather' (call_2) / toolu_2 differ at /unit: "
                         "a (missing), b \"celsius\"" + LOST)
    one = {"content": "I'll check both.", "tool_calls": [oa_call("call_1", "Oslo")]}
    [f] = diff(client((oa_request([]), oa_response(one, "tool_calls"))),
               upstream((an_request([]), an_response(TURN, "tool_use"))), own=False).findings
    assert (f.code, f.side) == ("TD703", "a") and f.message.startswith("the call to 'get_weather' (toolu_2)")


def image(data):
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


PNG, OTHER_PNG = "iVBORw0KGgoAAAA", "iVBORw0KGgoBBBB"


def asked(content):
    """An Anthropic request whose one user message is `content`."""
    return upstream((dict(an_request([]), messages=[{"role": "user", "content": content}]), None))


def test_a_text_changed_on_the_way_is_one_difference_quoting_both():
    a = client((oa_request([]), oa_response(CALLS, "tool_calls")))
    b = upstream((dict(an_request([]), messages=[{"role": "user", "content": "Weather in Oslo and Bergen, please?"}]),
                  an_response(TURN, "tool_use")))
    assert lines(diff(a, b, own=False))[:3] == [
        "b TD703: the user's text 'Weather in Oslo and Bergen?' differs: a 'Weather in Oslo and Bergen?', b "
        "'Weather in Oslo and Bergen, please?'" + LOST,
        "    a: client.jsonl c1 exchange 0 turn 0 part 0 /request/body#/messages/0/content",
        "    b: upstream.jsonl c1 exchange 0 turn 0 part 0 /request/body#/messages/0/content"]


def test_the_text_blocks_of_a_turn_compare_as_one_text():
    def blocks(last):
        request = dict(an_request([]), messages=[{"role": "user", "content": [
            {"type": "text", "text": "Weather in Oslo"}, {"type": "text", "text": last}]}])
        return upstream((request, an_response(TURN, "tool_use")))

    [f] = diff(blocks("and Tromsø?"), blocks("and Bergen?"), own=False).findings
    assert f.message == "the user's text 'Weather in Oslo and Tromsø?' differs: a 'Weather in Oslo and Tromsø?', " \
                        "b 'Weather in Oslo and Bergen?'" + LOST


def test_reasoning_changed_on_the_way():
    thinking = {"type": "thinking", "thinking": "Two cities: two calls.", "signature": "EqQBCkYIBxgCKkA"}

    def replayed(thought):
        turn = [{**thinking, "thinking": thought}, *TURN]
        return upstream((an_request([{"role": "assistant", "content": turn}, {"role": "user", "content": [
            result("toolu_1", "Oslo: 4 C"), result("toolu_2", "Bergen: 9 C")]}]), None))

    [f] = diff(replayed("Two cities: two calls."), replayed("Two cities, so two calls."), own=False).findings
    assert (f.code, f.side, f.a.part, f.b.part) == ("TD703", "b", 0, 0)
    assert f.message == "reasoning differs: a 'Two cities: two calls.', b 'Two cities, so two calls.'" + LOST

    def summarised(summary):  # a Responses reasoning item: a summary, no text
        body = {"model": "gpt-5", "input": [
            {"role": "user", "content": QUESTION},
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": summary}] if summary else [],
             "encrypted_content": "gAAAAB"},
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Oslo"}'},
            {"type": "function_call_output", "call_id": "call_1", "output": "Oslo: 4 C"}]}
        return jsonl("responses.jsonl", [(body, None)], "https://api.openai.com/v1/responses")

    [f] = diff(summarised("Call the tool for Oslo."), summarised("Call get_weather for Oslo."), own=False).findings
    assert f.message == "reasoning differs: a 'Call the tool for Oslo.', b 'Call get_weather for Oslo.'" + LOST
    # an item sent back without its summary (which need not come back) is the same reasoning
    assert diff(summarised("Call the tool for Oslo."), summarised(None), own=False).findings == []


def test_an_image_replaced_or_lost_on_the_way():
    question = {"type": "text", "text": "Where is this?"}
    [f] = diff(asked([question, image(PNG)]), asked([question, image(OTHER_PNG)]), own=False).findings
    assert (f.code, f.side, f.a.part, f.b.part) == ("TD703", "b", 1, 1)
    assert f.message == "the image (image/png) in the user turn is another image on b" + LOST

    def shot(*content):
        return upstream((an_request([{"role": "assistant", "content": [use("toolu_1", "Oslo")]},
                                     {"role": "user", "content": [result("toolu_1", list(content))]}]), None))

    reading = {"type": "text", "text": "Oslo: 4 C"}
    [f] = diff(shot(reading, image(PNG)), shot(reading), own=False).findings
    assert (f.code, f.side, f.turn) == ("TD703", "b", 2)
    assert f.message == "the image in the result of 'get_weather' (toolu_1) 'Oslo: 4 C' is on a but not on b" + LOST
    [f] = diff(shot(reading), shot(reading, image(PNG)), own=False).findings  # b is downstream in a request
    assert (f.code, f.side) == ("TD705", "b")
    assert f.message == ("the image in the result of 'get_weather' (toolu_1) 'Oslo: 4 C' is on b but not on a: added "
                         "by the relay (b is downstream of a in a request) — warning: an image or file the client "
                         "never sent")


def test_a_result_rebound_to_another_call():
    a = upstream((an_request([{"role": "assistant", "content": [use("toolu_1", "Oslo")]},
                              {"role": "user", "content": [result("toolu_1", "4 C")]}]), None))
    b = upstream((an_request([{"role": "assistant", "content": [use("toolu_1", "Oslo"), use("toolu_2", "Bergen")]},
                              {"role": "user", "content": [result("toolu_2", "4 C")]}]), None))
    assert lines(diff(a, b, own=False))[:6] == [
        "b TD705: the call to 'get_weather' (toolu_2) '{\"city\":\"Bergen\"}' is in b's request but not in a's: "
        "added by the relay (b is downstream of a in a request) — error: a call the model never made, which the "
        "client may run",
        "    a: upstream.jsonl c1 exchange 0 turn 1 /request/body#/messages/1",
        "    b: upstream.jsonl c1 exchange 0 turn 1 part 1 /request/body#/messages/1/content/1",
        "b TD703: the result of 'get_weather' (toolu_1) '4 C' answers the call to 'get_weather' (toolu_1) on a but "
        "the call to 'get_weather' (toolu_2) on b" + LOST,
        "    a: upstream.jsonl c1 exchange 0 turn 2 part 0 /request/body#/messages/2/content/0",
        "    b: upstream.jsonl c1 exchange 0 turn 2 part 0 /request/body#/messages/2/content/0"]


def time_and_weather():
    """a: the time and the weather in Oslo, both answered."""
    clock = {"type": "tool_use", "id": "toolu_9", "name": "get_time", "input": {"city": "Oslo"}}
    return upstream((an_request([{"role": "assistant", "content": [clock, use("toolu_1", "Oslo")]}, {
        "role": "user", "content": [result("toolu_1", "4 C"), result("toolu_9", "12:00")]}]), None))


def weather_only(*results):
    """b: the weather call alone, and `results`."""
    return upstream((an_request([{"role": "assistant", "content": [use("toolu_1", "Oslo")]},
                                 {"role": "user", "content": list(results)}]), None))


def test_a_result_left_without_its_call_pairs_with_the_result_of_the_call_lost():
    """b lost the get_time call (its result stays, answering nothing) and the get_weather result: two
    losses, not a get_weather result that says '12:00'."""
    a, b = time_and_weather(), weather_only(result("toolu_9", "12:00"))
    assert [(f.side, f.message) for f in diff(a, b, own=False).findings] == [
        ("b", "the call to 'get_time' (toolu_9) '{\"city\":\"Oslo\"}' is in a's request but not in b's: the call is "
              "never made there" + LOST),
        ("b", "the result of 'get_weather' (toolu_1) '4 C' is in a's request but not in b's: its call is left "
              "unanswered there" + LOST)]


def test_results_pair_by_the_call_they_answer_before_by_kind():
    """b lost the get_time call and its result, and its get_weather result changed: the weather results
    are compared, the time result is lost."""
    a, b = time_and_weather(), weather_only(result("toolu_1", "5 C"))
    assert [f.message for f in diff(a, b, own=False).findings][1:] == [
        "the content of the result of 'get_weather' (toolu_1) '4 C' differs: a '4 C', b '5 C'" + LOST,
        "the result of 'get_time' (toolu_9) '12:00' is in a's request but not in b's: its call is left unanswered "
        "there" + LOST]


def test_a_result_is_named_by_the_tool_its_call_names():
    def answered(name, words):
        doc = {"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "turns": [
            {"role": "user", "parts": [{"type": "text", "text": "Weather in Oslo?"}]},
            {"role": "assistant", "parts": [{"type": "invocation", "id": "a", "name": "get_weather",
                                             "arguments": {"city": "Oslo"}, "wire_id": "call_a"}]},
            {"role": "tool", "parts": [{"type": "result", "invocation_id": "a", "wire_id": "call_a", "name": "weather",
                                        "content": [{"type": "text", "text": words}]}]}]}]}
        return load_bytes(name, json.dumps(doc).encode())

    [f] = diff(answered("a.json", "4 C"), answered("b.json", "5 C"), own=False).findings
    assert f.message == "the content of the result of 'get_weather' (call_a) '4 C' differs: a '4 C', b '5 C'" + LOST


def test_a_result_changed_or_emptied_on_the_way():
    def answered(content):
        return upstream((an_request([{"role": "assistant", "content": [use("toolu_1", "Oslo")]},
                                     {"role": "user", "content": [result("toolu_1", content)]}]), None))

    def said(a, b):
        return [(f.side, f.message) for f in diff(answered(a), answered(b), own=False).findings]

    what = "the content of the result of 'get_weather' (toolu_1) 'Oslo: 4 C'"
    assert said("Oslo: 4 C", "Oslo: 5 C") == [("b", f"{what} differs: a 'Oslo: 4 C', b 'Oslo: 5 C'{LOST}")]
    assert said([{"type": "text", "text": "Oslo:"}, {"type": "text", "text": "4 C"}],
                [{"type": "text", "text": "Oslo:"}, {"type": "text", "text": "5 C"}]) == [
        ("b", f"{what} differs: a 'Oslo: 4 C', b 'Oslo: 5 C'{LOST}")]
    assert said("Oslo: 4 C", "") == [("b", f"{what} is on a but not on b (an empty result){LOST}")]
    assert said("", "Oslo: 4 C") == [("a", f"{what} is on b but not on a (an empty result){LOST}")]


def test_arguments_in_another_key_order_are_the_same_arguments():
    def called(arguments):
        call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
        return client((oa_request([]), oa_response({"content": None, "tool_calls": [call]}, "tool_calls")))

    result_ = diff(called('{"city": "Oslo", "unit": "celsius"}'), called('{"unit": "celsius", "city": "Oslo"}'))
    assert result_.findings == []


def test_exchanges_whose_calls_all_changed_arguments_are_still_one_exchange():
    cities = ["Oslo", "Bergen", "Tromsø", "Bodø"]
    a = client((oa_request([]), oa_response({"content": None, "tool_calls": [
        oa_call(f"call_{k}", city) for k, city in enumerate(cities)]}, "tool_calls")))
    b = upstream((an_request([]), an_response([{**use(f"toolu_{k}", city), "input": {"city": city, "unit": "celsius"}}
                                               for k, city in enumerate(cities)], "tool_use")))
    result_ = diff(a, b, own=False)
    assert [p.exchanges for p in result_.pairings] == [[(0, 0)]]
    assert [(f.code, f.side) for f in result_.findings] == [("TD704", "a")] * 4
    assert result_.notes[0].message == (
        "call ids rewritten consistently between a's c1 and b's c1 (4): call_0 → toolu_0, call_1 → toolu_1, "
        "call_2 → toolu_2, … (1 more); every result still answers its call")


def test_a_difference_first_seen_in_a_later_replay_points_at_where_a_turn_first_appeared():
    """b keeps both results in its first replay and drops one in its second: a's place is the turn
    as it first appeared (exchange 1), b's the request that lost it (exchange 2)."""
    both = [{"role": "assistant", "content": TURN}, {"role": "user", "content": [
        result("toolu_1", "Oslo: 4 C"), result("toolu_2", "Bergen: 9 C")]}]
    one = [{"role": "assistant", "content": TURN}, {"role": "user", "content": [result("toolu_1", "Oslo: 4 C")]}]
    later = [{"role": "assistant", "content": [{"type": "text", "text": "Oslo 4 C."}]},
             {"role": "user", "content": "And tomorrow?"}]
    a = client((oa_request([]), oa_response(CALLS, "tool_calls")),
               (oa_request([{"role": "assistant", **CALLS}, *RESULTS]), oa_response({"content": "Oslo 4 C."})),
               (oa_request([{"role": "assistant", **CALLS}, *RESULTS, {"role": "assistant", "content": "Oslo 4 C."},
                            {"role": "user", "content": "And tomorrow?"}]), oa_response({"content": "Same."})))
    b = upstream((an_request([]), an_response(TURN, "tool_use")),
                 (an_request(both), an_response([{"type": "text", "text": "Oslo 4 C."}])),
                 (an_request([*one, *later]), an_response([{"type": "text", "text": "Same."}])))
    assert lines(diff(a, b, own=False))[:3] == [
        "b TD703: the result of 'get_weather' (call_2) 'Bergen: 9 C' is in a's request but not in b's: its call is "
        "left unanswered there" + LOST,
        "    a: client.jsonl c1 exchange 1 turn 2 part 1 line 2/request/body#/messages/3",
        "    b: upstream.jsonl c1 exchange 2 turn 2 line 3/request/body#/messages/2"]


def test_arguments_that_differ_only_as_json_text_differ_at_the_root():
    def called(days):
        return upstream((an_request([{"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo", "days": days}}]}]),
            None))

    [f] = diff(called(1), called(1.0), own=False).findings
    assert f.message == ("the arguments of the call to 'get_weather' (toolu_1) differ at /: a {\"city\":\"Oslo\","
                         "\"days\":1}, b {\"city\":\"Oslo\",\"days\":1.0}" + LOST)


def test_an_exchange_the_other_side_never_saw_is_a_note_naming_its_side():
    result_ = diff(agent_run(), upstream(*[(r.exchange.request.body, r.exchange.response.body)
                                           for r in upstream_run().reads[:1]]), own=False)
    assert result_.findings == [] and result_.pairings[0].exchanges == [(0, 0), (1, None)]
    assert lines(result_)[:2] == [
        "note: a's exchange 1 has no counterpart in b (a retry, or an exchange the other side never saw)",
        "    a: client.jsonl c1 exchange 1"]


def test_turns_only_b_has_in_their_order():
    """b's request (downstream) has two turns a never sent: added by the relay, in the order of b's turns."""
    more = "More, please: the forecast for the whole week in Oslo and in Bergen."
    b = upstream((an_request([{"role": "user", "content": more}, {"role": "assistant", "content": "Sure."}]), None))
    added = ": added by the relay (b is downstream of a in a request) — warning: words the model reads as the " \
            "client's, which they are not"
    assert [(f.b.turn, f.message) for f in diff(upstream((an_request([]), None)), b, own=False).findings] == [
        (1, "the user's text 'More, please: the forecast for t…lo and in Bergen.' is in b's request but not in "
            "a's" + added),
        (2, "the assistant's text 'Sure.' is in b's request but not in a's" + added)]


def test_reasoning_lost_on_the_way_is_quoted():
    thinking = {"type": "thinking", "thinking": "The user wants two cities, so I will call get_weather twice in "
                                                "parallel.", "signature": "EqQBCkYIBxgCKkA"}
    answers = {"role": "user", "content": [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "Bergen: 9 C")]}
    a = upstream((an_request([{"role": "assistant", "content": [thinking, *TURN]}, answers]), None))
    b = upstream((an_request([{"role": "assistant", "content": TURN}, answers]), None))
    [f] = diff(a, b, own=False).findings
    assert f.message == ("the reasoning 'The user wants two cities,… in parallel.' (signed) is in a's request but not "
                         "in b's" + LOST)


def test_a_failure_flag_lost_with_its_text_unchanged():
    failed = [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "timed out", is_error=True)]
    plain = [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "timed out")]
    [f] = diff(upstream_run(results=failed), upstream_run(results=plain), own=False).findings
    assert f.message == ("the result of 'get_weather' (toolu_2) 'timed out' is marked as a failure (is_error) on a but "
                         "not on b: the model reads the failure as the tool's answer" + LOST)


def test_an_argument_value_is_quoted_whole_up_to_sixty_characters():
    def called(note):
        return upstream((an_request([{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
            "name": "get_weather", "input": {"city": "Oslo", "note": note}}]}]), None))

    [f] = diff(called("x" * 58), called("y" * 58), own=False).findings  # 60 characters with the quotes
    assert f.message == (f"the arguments of the call to 'get_weather' (toolu_1) differ at /note: a \"{'x' * 58}\", "
                         f"b \"{'y' * 58}\"" + LOST)


def test_a_result_without_an_id_is_named_by_its_tool_alone():
    def answered(temperature):
        body = {"contents": [
            {"role": "user", "parts": [{"text": "Oslo?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
                                                             "response": {"output": temperature}}}]}]}
        return jsonl("gemini.jsonl", [(body, None)],
                     "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent")

    [f] = diff(answered("4 C"), answered("5 C"), own=False).findings
    assert f.message == "the content of the result of 'get_weather' '4 C' differs: a '4 C', b '5 C'" + LOST


def test_text_added_on_the_way_back_is_placed_on_both_sides():
    result_ = diff(client((oa_request([]), oa_response({"content": "Oslo 4 C."}))),
                   upstream((an_request([]), an_response([]))), own=False)
    assert lines(result_)[1:3] == [
        "    a: client.jsonl c1 exchange 0 turn 1 part 0 /response/body#/choices/0/message/content",
        "    b: upstream.jsonl c1 exchange 0 /request/body#"]


def test_conversations_pair_by_what_their_results_say():
    """b holds two conversations that differ only in a result: a pairs with the one whose result is a's."""
    def asked(name, *answers):
        return jsonl(name, [({"model": "m", "max_tokens": 9, "messages": [
            {"role": "user", "content": "Status?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_w", "name": "get_weather", "input": {}}]},
            {"role": "user", "content": [result("toolu_w", answer)]}]}, None) for answer in answers], ANTHROPIC_URL)

    result_ = diff(asked("a.jsonl", "4 C"), asked("b.jsonl", "9 C", "4 C"), own=False)
    assert [(p.a, p.b) for p in result_.pairings] == [("c1", "c2")]
    assert result_.pairing("a", "c1") is result_.pairings[0] and result_.pairing("b", "c1") is None


def test_a_tool_and_a_turn_only_b_has():
    a = upstream((an_request([], tools=False), None))
    b = upstream((an_request([{"role": "assistant", "content": "Which day?"}]), None))
    assert [(f.code, f.side, f.a.turn, f.b.turn) for f in diff(a, b, own=False).findings] == [
        ("TD701", "a", None, None), ("TD705", "b", None, 1)]


def test_json_a_user_sent_compares_as_its_text():
    def booked(name, value):
        doc = {"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "turns": [
            {"role": "user", "parts": [{"type": "text", "text": "Book it."}]},
            {"role": "assistant", "parts": [{"type": "text", "text": "Which seat?"}]},
            {"role": "user", "parts": [{"type": "json", "value": value}]}]}]}
        return load_bytes(name, json.dumps(doc).encode())

    [f] = diff(booked("a.json", {"seat": "12A"}), booked("b.json", {"seat": "12B"}), own=False).findings
    assert f.message == "the user's text '{\"seat\":\"12A\"}' differs: a '{\"seat\":\"12A\"}', b '{\"seat\":\"12B\"}'" + LOST


def test_differences_in_one_turn_are_in_part_order():
    one = {"content": "I'll check Oslo.", "tool_calls": [oa_call("call_1", "Oslo")]}
    result_ = diff(client((oa_request([]), oa_response(one, "tool_calls"))),
                   upstream((an_request([]), an_response(TURN, "tool_use"))), own=False)
    assert [(f.side, f.a.part, f.message) for f in result_.findings] == [
        ("a", None, "the call to 'get_weather' (toolu_2) '{\"city\":\"Bergen\"}' is in b's response but not in "
                    "a's: the call is never made there" + LOST),
        ("a", 0, "the assistant's text \"I'll check Oslo.\" differs: a \"I'll check Oslo.\", b \"I'll check both.\""
                 + LOST)]


def test_a_parameter_removed_from_a_schema():
    partial = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    [f] = diff(client((oa_request([]), None)), upstream((an_request([], schema=partial), None)), own=False).findings
    assert f.message == "tool 'get_weather' has a simpler schema on b than on a: parameter 'unit' removed" + LOST
    nested = {"type": "object", "enum": [{"where": {}}], "properties": {"where": {
        "type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}}}}}
    bare = {"type": "object", "properties": {"where": {"type": "object"}}}
    [f] = diff(upstream((an_request([], schema=nested), None)), upstream((an_request([], schema=bare), None)),
               own=False).findings
    assert f.message == ("tool 'get_weather' has a simpler schema on b than on a: the parameters of 'where' removed "
                         "('city', 'country'); the enum of the arguments removed ({\"where\":{}})" + LOST)


def test_a_turn_lost_whole_points_at_the_request_that_lacks_it():
    a = client((oa_request([{"role": "assistant", "content": "Which day?"}, {"role": "user", "content": "Today."}]),
                None))
    b = upstream((an_request([{"role": "assistant", "content": "Which day?"}]), None))
    assert lines(diff(a, b, own=False))[:3] == [
        "b TD703: the user's text 'Today.' is in a's request but not in b's" + LOST,
        "    a: client.jsonl c1 exchange 0 turn 2 part 0 /request/body#/messages/2/content",
        "    b: upstream.jsonl c1 exchange 0 /request/body#"]


# -- direction: lost or added -----------------------------------------------------------------------

def test_a_result_only_the_upstream_request_has_was_added_by_the_relay():
    """In a request a is upstream of b: a result b has and a never sent was added on the way (TD705
    on b), an error: the model reads a result no tool produced."""
    padded = [result("toolu_1", "Oslo: 4 C"), result("toolu_2", "Bergen: 9 C"), result("toolu_3", "no result")]
    extra = [*TURN, use("toolu_3", "Tromsø")]
    a_calls = {"content": "I'll check both.", "tool_calls": [*CALLS["tool_calls"], oa_call("call_3", "Tromsø")]}
    a = client((oa_request([]), oa_response(a_calls, "tool_calls")),
               (oa_request([{"role": "assistant", **a_calls}, *RESULTS]), oa_response({"content": "Oslo 4 C."})))
    b = upstream((an_request([]), an_response(extra, "tool_use")),
                 (an_request([{"role": "assistant", "content": extra}, {"role": "user", "content": padded}]),
                  an_response([{"type": "text", "text": "Oslo 4 C."}])))
    [f] = diff(a, b, own=False).findings
    assert (f.code, f.severity, f.side, f.turn, f.part) == ("TD705", "error", "b", 2, 2)
    assert f.message == ("the result of 'get_weather' (toolu_3) 'no result' is in b's request but not in a's: added "
                         "by the relay (b is downstream of a in a request) — error: the model reads a result no "
                         "tool produced for the client")


def test_text_only_the_client_response_has_was_added_on_the_way_back():
    """In a response b is upstream of a: text only a has was added on the way back (TD705 on a), a
    warning; text only b has was lost on the way back (TD703 on a), as before."""
    notice = {"content": "Oslo 4 C.", "tool_calls": None}
    a = client((oa_request([]), oa_response({"content": "Oslo 4 C."})))
    b = upstream((an_request([]), an_response([])))
    [f] = diff(a, b, own=False).findings
    assert (f.code, f.severity, f.side) == ("TD705", "warning", "a")
    assert f.message == ("the assistant's text 'Oslo 4 C.' is in a's response but not in b's: added on the way back "
                         "(a is downstream of b in a response) — warning: words the client reads as the model's, "
                         "which they are not")
    [f] = diff(client((oa_request([]), oa_response({"content": None}))),
               upstream((an_request([]), an_response([{"type": "text", "text": notice["content"]}]))),
               own=False).findings
    assert (f.code, f.severity, f.side) == ("TD703", "error", "a")
    assert f.message.endswith(LOST)


@pytest.mark.parametrize("signature", ["skip_thought_signature_validator",
                                       "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I=",  # base64 of it
                                       "context_engineering_is_the_way_to_go"])
def test_a_documented_sentinel_the_relay_adds_is_a_note(signature):
    folder = SAMPLES / "relay" / "gemini-dummy-thought-signature"
    text = (folder / "upstream.jsonl").read_text().replace("skip_thought_signature_validator", signature)
    result_ = diff(load_file(folder / "client.jsonl"), load_bytes("upstream.jsonl", text.encode()))
    assert result_.findings == []
    [note] = [n for n in result_.notes if "dummy thought signature" in n.message]
    assert note.b is not None and (note.b.exchange, note.b.turn) == (0, 1)


def test_another_signature_the_relay_adds_is_an_addition():
    folder = SAMPLES / "relay" / "gemini-dummy-thought-signature"
    text = (folder / "upstream.jsonl").read_text().replace("skip_thought_signature_validator", "CiQBjz1rX2hY")
    [f] = diff(load_file(folder / "client.jsonl"), load_bytes("upstream.jsonl", text.encode())).findings
    assert (f.code, f.severity, f.side) == ("TD705", "warning", "b")
    assert "the reasoning (signed) is in b's request but not in a's: added by the relay" in f.message


# -- alignment --------------------------------------------------------------------------------------

def test_turns_merged_split_or_reordered_are_not_differences():
    """OpenAI: two user messages, text before the calls; Anthropic: one user turn of two text blocks
    merged by the relay, the text after the calls."""
    a = client(({"model": "m", "messages": [{"role": "user", "content": "Hi."}, {"role": "user", "content": QUESTION}]},
                oa_response(CALLS, "tool_calls")))
    b = upstream(({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "Hi."}, {"type": "text", "text": QUESTION}]}]},
        an_response([*TURN[1:], TURN[0]], "tool_use")))
    result_ = diff(a, b, own=False)
    assert result_.findings == []
    assert result_.pairings[0].turns == [(0, 0), (1, None), (2, 1)]


def test_a_retry_on_the_upstream_side_is_a_note():
    a = agent_run()
    retried = upstream_run()
    first = retried.reads[0].exchange.request.body
    b = upstream((first, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                 *[(r.exchange.request.body, r.exchange.response.body) for r in retried.reads])
    result_ = diff(a, b, own=False)
    assert result_.findings == []
    assert result_.pairings[0].exchanges == [(None, 0), (0, 1), (1, 2)]
    shown = lines(result_)
    note = shown.index("note: b's exchange 0 has no counterpart in a (a retry, or an exchange the other side never saw)")
    assert shown[note + 1] == "    b: upstream.jsonl c1 exchange 0"


def test_a_canonical_document_compares_with_the_log_it_came_from():
    log = load_file(SAMPLES / "anthropic" / "parallel-calls.jsonl")
    canonical = load_bytes("c.json", json.dumps(document(log.conversations)).encode())
    assert diff(log, canonical, own=False).findings == []
    shortened = replace(log.conversations[0], turns=log.conversations[0].turns[:2])
    result_ = diff(log, load_bytes("c.json", json.dumps(document([shortened])).encode()), own=False)
    assert [(f.side, f.a.turn, f.a.part, f.message) for f in result_.findings] == [
        ("b", 2, 0, "the result of 'get_weather' (toolu_01ErzNLEIrn8YdTo73JO08dN) '{\"city\":\"Oslo\",\"condition\"…"
                    "wind_kph\":12}' is in a's request but not in b's: its call is left unanswered there" + LOST),
        ("b", 2, 1, "the result of 'get_weather' (toolu_01uEUJunskumvDBnMyGChcbU) 'WeatherServiceError: upstr…r "
                    "city=Bergen' is in a's request but not in b's: its call is left unanswered there" + LOST),
        ("b", 3, 0, "the assistant's text 'Oslo is overcast at 4 °C with a … me to try again?' is in a's response "
                    "but not in b's" + LOST)]


def test_conversations_pair_by_content_not_order():
    a = load_file(SAMPLES / "anthropic" / "parallel-calls.jsonl")
    b = load_file(SAMPLES / "gemini" / "parallel-calls.jsonl")
    both = a.reads[0].exchange.request.body, b.reads[0].exchange.request.body
    two = jsonl("two.jsonl", [(both[0], None), (dict(both[0], messages=[{"role": "user", "content": "x"}]), None)],
                "https://api.anthropic.com/v1/messages")
    swapped = jsonl("swapped.jsonl", [(dict(both[0], messages=[{"role": "user", "content": "x"}]), None),
                                      (both[0], None)], "https://api.anthropic.com/v1/messages")
    result_ = diff(two, swapped, own=False)
    assert result_.findings == []
    assert [(p.a, p.b) for p in result_.pairings] == [("c1", "c2"), ("c2", "c1")]



ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
QUESTION_TURN = {"role": "user", "content": "Weather in Oslo today?"}
JOKE_TURN = {"role": "user", "content": "Tell me a joke."}


def conversations(side, *histories):
    """`side`'s log: one Anthropic request per history (a conversation per history that extends no other)."""
    return jsonl(f"{side}.jsonl", [({"model": "m", "max_tokens": 9, "messages": list(h)}, None) for h in histories],
                 ANTHROPIC_URL)


def test_a_conversation_without_counterpart_is_a_note_naming_its_side():
    result_ = diff(conversations("a", [QUESTION_TURN], [JOKE_TURN]), conversations("b", [QUESTION_TURN]), own=False)
    assert lines(result_) == ["note: a's conversation c2 has no counterpart in b", "    a: a.jsonl c2",
                              "paired c1↔c1: exchanges 0↔0; turns 0↔0"]
    result_ = diff(conversations("a", [QUESTION_TURN]), conversations("b", [JOKE_TURN], [QUESTION_TURN]), own=False)
    assert lines(result_) == ["note: b's conversation c1 has no counterpart in a", "    b: b.jsonl c1",
                              "paired c1↔c2: exchanges 0↔1; turns 0↔0"]


def test_a_conversation_is_paired_once():
    """a's c1 shares the question with both of b's conversations, a's c2 the joke with b's c2 only: the
    best pair first, then each conversation once."""
    b = conversations("b", [QUESTION_TURN], [JOKE_TURN, {"role": "assistant", "content": "No."}, QUESTION_TURN])
    result_ = diff(conversations("a", [QUESTION_TURN], [JOKE_TURN]), b, own=False)
    assert [(p.a, p.b) for p in result_.pairings] == [("c1", "c1"), ("c2", "c2")] and result_.notes == []


def test_exchanges_pair_by_what_they_carry_media_included():
    def asks(*images):
        return jsonl("images.jsonl", [({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": [
            {"type": "text", "text": "Where is this?"}, image(i)]}]}, None) for i in images], ANTHROPIC_URL)

    result_ = diff(asks(PNG), asks(OTHER_PNG, PNG), own=False)
    assert result_.findings == [] and [(p.a, p.b) for p in result_.pairings] == [("c1", "c2")]
    assert [n.message for n in result_.notes] == ["b's conversation c1 has no counterpart in a"]

# -- the TD7xx samples, pinned ----------------------------------------------------------------------

#: sample folder → what `diff client.jsonl upstream.jsonl` finds (tests/differing.lines), each read
#: against the sample's story when pinned.
PAIRS: dict[str, tuple[str, ...]] = {
    "TD701-relay-drops-tools-on-the-way-upstream": (
        "b TD701: tool 'road_status' is declared in a's request but not in b's: the model cannot call it "
        "— error: lost or changed on the way",
        "    a: client.jsonl c1 exchange 0 /request/body#/tools/0/function",
        "    b: upstream.jsonl c1 exchange 0 /request/body#",
        "b TD701: tool 'get_forecast' is declared in a's request but not in b's: the model cannot call it "
        "— error: lost or changed on the way",
        "    a: client.jsonl c1 exchange 0 /request/body#/tools/1/function",
        "    b: upstream.jsonl c1 exchange 0 /request/body#",
        "note: model 'claude-sonnet-4-5' on a is 'claude-sonnet-4-5-20250929' on b",
        "paired c1↔c1: exchanges 0↔0; turns 0↔0 1↔1",
    ),
    "TD702-relay-strips-schema-parameters": (
        "b TD702: tool 'road_status' has a simpler schema on b than on a: every parameter removed "
        "('road') — error: lost or changed on the way",
        "    a: client.jsonl c1 exchange 0 /request/body#/tools/0/function",
        "    b: upstream.jsonl c1 exchange 0 /request/body#/tools/0",
        "b TD702: tool 'get_forecast' has a simpler schema on b than on a: every parameter removed "
        "('city', 'date', 'unit') — error: lost or changed on the way",
        "    a: client.jsonl c1 exchange 0 /request/body#/tools/1/function",
        "    b: upstream.jsonl c1 exchange 0 /request/body#/tools/1",
        "note: model 'claude-sonnet-4-5' on a is 'claude-sonnet-4-5-20250929' on b",
        "paired c1↔c1: exchanges 0↔0; turns 0↔0 1↔1",
    ),
    "TD703-relay-drops-text-beside-tool-calls": (
        'a TD703: the assistant\'s text "I\'ll check the road status and t…ast for Saturday." is in b\'s '
        "response but not in a's — error: lost or changed on the way",
        "    a: client.jsonl c1 exchange 0 turn 1 /response/body#/choices/0/message",
        "    b: upstream.jsonl c1 exchange 0 turn 1 part 0 /response/body#/content/0",
        "note: model 'claude-sonnet-4-5' on a is 'claude-sonnet-4-5-20250929' on b",
        "paired c1↔c1: exchanges 0↔0; turns 0↔0 1↔1",
    ),
    "TD704-relay-drops-an-argument-it-does-not-know": (
        "a TD704: the arguments of the call to 'get_forecast' (toolu_01BergenFcst4kLp) differ at /unit: a "
        '(missing), b "celsius" — error: lost or changed on the way',
        "    a: client.jsonl c1 exchange 0 turn 1 part 2 /response/body#/choices/0/message/tool_calls/1",
        "    b: upstream.jsonl c1 exchange 0 turn 1 part 2 /response/body#/content/2",
        "note: model 'claude-sonnet-4-5' on a is 'claude-sonnet-4-5-20250929' on b",
        "paired c1↔c1: exchanges 0↔0; turns 0↔0 1↔1",
    ),
    "TD705-relay-adds-an-instruction-the-client-never-sent": (
        "b TD705: the user's text 'Keep the answer under 40 words.' is in b's request but not in a's: "
        "added by the relay (b is downstream of a in a request) — warning: words the model reads as the "
        "client's, which they are not",
        "    a: client.jsonl c1 exchange 0 /request/body#",
        "    b: upstream.jsonl c1 exchange 0 turn 1 part 0 /request/body#/contents/1/parts/0",
        "paired c1↔c1: exchanges 0↔0; turns 0↔0 -↔1 1↔2",
    ),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_a_relay_sample_diffs_as_pinned(name):
    folder = SAMPLES / "defects" / name
    assert lines(diff(load_file(folder / "client.jsonl"), load_file(folder / "upstream.jsonl"))) == list(PAIRS[name])


def test_every_relay_sample_is_pinned():
    assert sorted(PAIRS) == sorted(p.name for p in (SAMPLES / "defects").iterdir() if p.is_dir())
