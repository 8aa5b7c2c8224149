"""Stitching: the exchanges of one agent session become one timeline whose turns point to the
exchange they first appeared in."""

import json
from dataclasses import replace

from tooldbg.checks import run_checks
from tooldbg.formats.base import ApiError, Request, Response, link
from tooldbg.load import load_bytes
from tooldbg.model import Invocation, Result, Source, Text, Turn
from tooldbg.stitch import Stitcher


def src(exchange, side, pointer):
    return Source(file="log.jsonl", exchange=exchange, side=side, pointer=pointer)


def user(text, ex, i):
    return Turn(role="user", parts=(Text(text=text),), source=src(ex, "request", f"/messages/{i}"))


def call(ex, side, pointer, wire_id="call_1", text=None):
    parts = ((Text(text=text),) if text else ()) + (
        Invocation(name="get_weather", arguments={"city": "Oslo"}, wire_id=wire_id),)
    return Turn(role="assistant", parts=parts, source=src(ex, side, pointer))


def result(ex, i, wire_id="call_1"):
    return Turn(role="tool", parts=(Result(wire_id=wire_id, content=(Text(text="12C"),)),),
                source=src(ex, "request", f"/messages/{i}"))


def answer(ex, text):
    return Turn(role="assistant", parts=(Text(text=text),), source=src(ex, "response", "/choices/0/message"))


def request(*turns):
    return Request(turns=link(turns), model="m")


def test_two_exchanges_of_a_tool_loop_become_one_conversation():
    stitcher = Stitcher()
    first = stitcher.add(0, request(user("Weather?", 0, 0)),
                         (Response(turn=call(0, "response", "/choices/0/message")),))
    second = stitcher.add(1, request(user("Weather?", 1, 0), call(1, "request", "/messages/1"),
                                     result(1, 2)),
                          (Response(turn=answer(1, "It is 12C.")),))
    assert first is second and len(stitcher.threads) == 1
    conv = second.conversation
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool", "assistant"]
    # Each turn points at where it first appeared: the call at the response of exchange 0.
    assert [(t.source.exchange, t.source.side) for t in conv.turns] == [
        (0, "request"), (0, "response"), (1, "request"), (1, "response")]
    assert conv.turns[2].parts[0].invocation_id == "i1"
    assert second.exchanges == [0, 1]


def test_a_replay_that_changed_enters_the_timeline_as_sent():
    stitcher = Stitcher()
    stitcher.add(0, request(user("Weather?", 0, 0)),
                 (Response(turn=call(0, "response", "/choices/0/message", text="Checking.")),))
    thread = stitcher.add(1, request(user("Weather?", 1, 0), call(1, "request", "/messages/1"),
                                     result(1, 2)), ())
    replayed = thread.conversation.turns[1]
    assert replayed.source.side == "request" and replayed.source.exchange == 1
    assert [p.type for p in replayed.parts] == ["invocation"]
    assert len(stitcher.threads) == 1


def test_unrelated_requests_are_separate_conversations():
    stitcher = Stitcher()
    stitcher.add(0, request(user("Weather?", 0, 0)), (Response(turn=answer(0, "Sunny.")),))
    stitcher.add(1, request(user("Stock price?", 1, 0)), (Response(turn=answer(1, "Up.")),))
    assert [t.conversation.id for t in stitcher.threads] == ["c1", "c2"]


def test_a_request_sharing_only_part_of_a_history_starts_a_new_conversation():
    stitcher = Stitcher()
    stitcher.add(0, request(user("a", 0, 0), answer(0, "b"), user("c", 0, 2)), ())
    stitcher.add(1, request(user("a", 1, 0), answer(1, "b"), user("different", 1, 2)), ())
    assert len(stitcher.threads) == 2


def test_response_only_exchanges_each_make_a_conversation():
    stitcher = Stitcher()
    stitcher.add(0, None, (Response(turn=answer(0, "x")), Response(turn=answer(0, "y"))))
    [thread] = stitcher.threads
    assert [t.parts[0].text for t in thread.conversation.turns] == ["x", "y"]


def test_long_session_is_stitched_in_one_pass():
    stitcher = Stitcher()
    history = [user("start", 0, 0)]
    for n in range(200):
        reply = answer(n, f"step {n}")
        stitcher.add(n, request(*history), (Response(turn=reply),))
        history = [*history, reply, user(f"next {n}", n + 1, len(history) + 1)]
    [thread] = stitcher.threads
    assert len(thread.conversation.turns) == 2 * 200
    assert len(thread.exchanges) == 200
    # The first user turn still points at exchange 0, the last answer at exchange 199.
    assert thread.conversation.turns[0].source.exchange == 0
    assert thread.conversation.turns[-1].source.exchange == 199


def test_system_prompt_changes_do_not_split_a_conversation():
    stitcher = Stitcher()
    stitcher.add(0, replace(request(user("a", 0, 0)), system=(Text(text="v1"),)),
                 (Response(turn=answer(0, "b")),))
    thread = stitcher.add(1, replace(request(user("a", 1, 0), answer(1, "b"), user("c", 1, 2)),
                                     system=(Text(text="v2"),)), ())
    assert len(stitcher.threads) == 1
    assert thread.conversation.system == (Text(text="v2"),)


def _chat_exchange(history, answer_message):
    """One OpenAI chat exchange of a log: the request replays `history`, the response answers."""
    return {"request": {"url": "https://api.openai.com/v1/chat/completions",
                        "body": {"model": "gpt-4.1", "messages": history, "tools": [WEATHER_TOOL]}},
            "response": {"status": 200, "body": {
                "object": "chat.completion", "model": "gpt-4.1",
                "choices": [{"index": 0, "message": answer_message,
                             "finish_reason": "tool_calls" if "tool_calls" in answer_message else "stop"}]}}}


WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
SYSTEM = {"role": "system", "content": "You are a weather assistant."}


def _session(city, call_id):
    """The three exchanges of one agent session: ask, call, result → answer, thanks → goodbye."""
    ask = {"role": "user", "content": f"Weather in {city}?"}
    call = {"role": "assistant", "content": None, "tool_calls": [{
        "id": call_id, "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]}
    result = {"role": "tool", "tool_call_id": call_id, "content": f"{city}: 4C"}
    answer = {"role": "assistant", "content": f"{city} is at 4C."}
    thanks = {"role": "user", "content": "Thanks!"}
    return [
        _chat_exchange([SYSTEM, ask], call),
        _chat_exchange([SYSTEM, ask, call, result], answer),
        _chat_exchange([SYSTEM, ask, call, result, answer, thanks], {"role": "assistant", "content": "Bye."}),
    ]


def test_two_interleaved_sessions_in_one_log_are_stitched_into_their_own_conversations():
    """A proxy log of two agents running at once: A0 B0 A1 B1 A2 B2. Both sessions share the system
    prompt, the tool, and their last user turn and answer ("Thanks!" / "Bye."): only their history
    says which is which."""
    a, b = _session("Oslo", "call_A"), _session("Bergen", "call_B")
    lines = [a[0], b[0], a[1], b[1], a[2], b[2]]
    loaded = load_bytes("two.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode())
    assert loaded.errors == []
    assert [r.conversation for r in loaded.reads] == ["c1", "c2", "c1", "c2", "c1", "c2"]
    first, second = loaded.conversations
    for conv, city, exchanges in ((first, "Oslo", [0, 2, 4]), (second, "Bergen", [1, 3, 5])):
        turns = conv.turns
        assert [t.role for t in turns] == ["user", "assistant", "tool", "assistant", "user", "assistant"]
        assert turns[0].parts[0].text == f"Weather in {city}?"
        assert turns[1].parts[0].arguments == {"city": city}
        assert turns[2].parts[0].content[0].text == f"{city}: 4C"
        assert turns[2].parts[0].invocation_id == turns[1].parts[0].id
        # each turn points at the exchange of its own session that first carried it
        assert [(t.source.exchange, t.source.side) for t in turns] == [
            (exchanges[0], "request"), (exchanges[0], "response"), (exchanges[1], "request"),
            (exchanges[1], "response"), (exchanges[2], "request"), (exchanges[2], "response")]
    # the checks see each session whole: nothing unanswered, nothing orphaned, nothing replayed wrong
    assert run_checks(loaded) == []


def test_a_session_interleaved_with_a_restart_of_the_same_question_stays_apart():
    """B asks the same first question as A but gets another call id: from B's second exchange on
    its history is no longer A's, so it becomes its own conversation and A goes on undisturbed."""
    a, b = _session("Oslo", "call_A"), _session("Oslo", "call_B")
    loaded = load_bytes("restart.jsonl", "".join(json.dumps(x) + "\n" for x in [a[0], a[1], b[1], a[2], b[2]])
                        .encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c2", "c1", "c2"]
    first, second = loaded.conversations
    assert [p.wire_id for t in first.turns for p in t.parts if p.type == "invocation"] == ["call_A"]
    assert [p.wire_id for t in second.turns for p in t.parts if p.type == "invocation"] == ["call_B"]
    assert len(first.turns) == len(second.turns) == 6


def test_the_same_task_run_twice_in_one_log_gives_two_whole_conversations():
    """An eval log: the same task run twice, one run after the other. The second run's first request
    is the first run's, word for word; it starts a conversation of its own instead of rewinding the
    first run's, whose six turns stay as they were."""
    a, b = _session("Oslo", "call_A"), _session("Oslo", "call_B")
    loaded = load_bytes("reruns.jsonl", "".join(json.dumps(x) + "\n" for x in a + b).encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c1", "c2", "c2", "c2"]
    for conv, call_id, exchanges in zip(loaded.conversations, ("call_A", "call_B"), ([0, 1, 2], [3, 4, 5]),
                                        strict=True):
        assert [p.wire_id for t in conv.turns for p in t.parts if p.type == "invocation"] == [call_id]
        assert len(conv.turns) == 6 and {t.source.exchange for t in conv.turns} == set(exchanges)
    assert run_checks(loaded) == []


def test_a_retry_of_the_last_request_and_a_changed_replay_stay_in_the_conversation():
    a = _session("Oslo", "call_A")
    retry = json.loads(json.dumps(a[1]))
    changed = json.loads(json.dumps(a[2]))
    changed["request"]["body"]["messages"][3]["content"] = "Oslo: 4C (cached)"  # same call id
    loaded = load_bytes("retry.jsonl", "".join(json.dumps(x) + "\n" for x in [a[0], a[1], retry, changed])
                        .encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c1", "c1"]
    [conv] = loaded.conversations
    assert conv.turns[2].parts[0].content[0].text == "Oslo: 4C (cached)"
    assert conv.turns[2].source.exchange == 3


def test_a_replay_that_only_reorders_argument_keys_is_the_same_turn():
    """Key order is not content: the replayed call keeps the turn of its first appearance."""
    a = _session("Oslo", "call_A")
    reordered = json.loads(json.dumps(a[1]))
    reordered["request"]["body"]["messages"][2]["tool_calls"][0]["function"]["arguments"] = \
        '{"unit": "C", "city": "Oslo"}'
    a[0]["response"]["body"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = \
        '{"city": "Oslo", "unit": "C"}'
    loaded = load_bytes("keys.jsonl", "".join(json.dumps(x) + "\n" for x in [a[0], reordered]).encode())
    [conv] = loaded.conversations
    assert (conv.turns[1].source.exchange, conv.turns[1].source.side) == (0, "response")


def test_a_replay_that_gives_id_less_calls_ids_stays_in_the_conversation():
    """Gemini calls come without ids; a client that adds its own on replay (TD106 allows it) still
    continues the conversation rather than starting another."""
    url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    ask = {"role": "user", "parts": [{"text": "Weather in Oslo?"}]}
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    result = {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 4}}}}
    answer = {"role": "model", "parts": [{"text": "4 °C."}]}

    def record(contents, parts):
        return {"request": {"url": url, "body": {"contents": contents}},
                "response": {"status": 200, "body": {"candidates": [
                    {"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}}}

    with_ids = [{"functionCall": {**call["functionCall"], "id": "c1"}}]
    lines = [record([ask], [call]),
             record([ask, {"role": "model", "parts": [call]}, {"role": "user", "parts": [result]}], answer["parts"]),
             record([ask, {"role": "model", "parts": with_ids},
                     {"role": "user", "parts": [{"functionResponse": {**result["functionResponse"], "id": "c1"}}]},
                     answer, {"role": "user", "parts": [{"text": "Thanks"}]}], [{"text": "Bye."}])]
    loaded = load_bytes("gemini.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c1"]


def test_a_response_only_exchange_keeps_its_exchange():
    """An error response alone (its request not logged) is still a conversation of its own: the
    rejection (TD901, read from the exchange's responses) has a conversation to be on."""
    stitcher = Stitcher()
    thread = stitcher.add(3, None, (Response(error=ApiError(message="overloaded", type="overloaded_error")),))
    assert thread.exchanges == [3] and thread.conversation.turns == ()
