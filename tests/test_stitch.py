"""Stitching: the exchanges of one agent session become one timeline whose turns point to the
exchange they first appeared in."""

import io
import json
from dataclasses import fields, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from tests.strategies import conversations
from tooldbg.checks import run_checks
from tooldbg.diff import diff
from tooldbg.formats.base import ApiError, Request, Response
from tooldbg.formats.reading import link
from tooldbg.load import load_bytes
from tooldbg.model import Invocation, Json, Reasoning, Result, Text, Turn, turn_to_dict
from tooldbg.show import render_loaded
from tooldbg.source import Source
from tooldbg.stitch import Stitcher, turn_hash


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


def test_match_answers_for_the_first_request_as_add_does():
    """The first request is indexed only when another exchange comes: `match`, asked first,
    still finds the conversation the next request continues (and a stranger's none)."""
    stitcher = Stitcher()
    first = stitcher.add(0, request(user("Weather?", 0, 0)),
                         (Response(turn=call(0, "response", "/choices/0/message")),))
    follow_up = request(user("Weather?", 1, 0), call(1, "request", "/messages/1"), result(1, 2))
    assert stitcher.match(request(user("Something else", 1, 0)), ()) is None
    assert stitcher.match(follow_up, ()) is first
    assert stitcher.add(1, follow_up, ()) is first and len(stitcher.threads) == 1


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


def _refused(exchange, message):
    """The exchange answered with OpenAI's 400 instead."""
    refused = json.loads(json.dumps(exchange))
    refused["response"] = {"status": 400, "body": {"error": {"message": message, "type": "invalid_request_error"}}}
    return refused


ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."


def test_a_refused_request_retried_changed_is_a_branch_of_its_own():
    """The client sent a stale result beside the right one, was refused, and retried without it: the
    retry goes on with the conversation, the refused request is checked as it was sent — a branch
    sharing the turns before it, its exchange moved to it, its defect found and named by TD901."""
    a = _session("Oslo", "call_A")
    stale = {"role": "tool", "tool_call_id": "call_OLD", "content": "Oslo: 9C"}
    sent = _refused(a[1], ORPHAN)
    sent["request"]["body"]["messages"].append(stale)
    loaded = load_bytes("retried.jsonl", "".join(json.dumps(x) + "\n" for x in [a[0], sent, a[1], a[2]]).encode())
    assert loaded.errors == []
    assert [r.conversation for r in loaded.reads] == ["c1", "c2", "c1", "c1"]
    main, branch = loaded.conversations
    assert [t.role for t in main.turns] == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert [r.wire_id for t in branch.turns for r in t.results()] == ["call_A", "call_OLD"]
    assert branch.turns[:2] == main.turns[:2] and branch.turns[1] is main.turns[1]  # the shared prefix
    findings = run_checks(loaded)
    assert [(f.code, f.conversation, f.exchange, f.turn, f.evidence) for f in findings] == [
        ("TD901", "c2", 1, None, "rejected"), ("TD101", "c2", 1, 2, "rejected")]
    assert findings[0].message.endswith("— see TD101")


def test_a_refused_request_resent_unchanged_is_not_a_branch():
    """A retry that sends what was refused, word for word (after a rate limit), overwrites nothing."""
    a = _session("Oslo", "call_A")
    busy = _refused(a[1], "Rate limit reached for gpt-4.1")
    loaded = load_bytes("resent.jsonl", "".join(json.dumps(x) + "\n" for x in [a[0], busy, a[1], a[2]]).encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c1", "c1"]
    assert len(loaded.conversations) == 1


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


GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"


def _gemini_session(tool, args, output, answer):
    """Two exchanges of one Gemini session (no call ids) that opens with "hi"."""
    hi = {"role": "user", "parts": [{"text": "hi"}]}
    call = {"role": "model", "parts": [{"functionCall": {"name": tool, "args": args}}]}
    result = {"role": "user", "parts": [{"functionResponse": {"name": tool, "response": output}}]}

    def record(contents, parts):
        return {"request": {"url": GEMINI, "body": {"contents": contents}},
                "response": {"status": 200, "body": {"candidates": [
                    {"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}}}

    return [record([hi], call["parts"]), record([hi, call, result], [{"text": answer}])]


def _chat_hi_session(call_id, city):
    """Two exchanges of one OpenAI session with call ids that opens with "hi"."""
    hi = {"role": "user", "content": "hi"}
    call = {"role": "assistant", "content": None, "tool_calls": [{
        "id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}]}
    result = {"role": "tool", "tool_call_id": call_id, "content": f"{city}: 4C"}
    return [_chat_exchange([hi], call), _chat_exchange([hi, call, result], {"role": "assistant", "content": city})]


def _alone(exchanges):
    """What a session's exchanges read as on their own: each conversation's turns, without sources."""
    loaded = load_bytes("one.jsonl", "".join(json.dumps(x) + "\n" for x in exchanges).encode())
    return [[turn_to_dict(t, sources=False) for t in c.turns] for c in loaded.conversations], run_checks(loaded)


ONE_EACH = ["c1", "c2", "c1", "c2"]


@pytest.mark.parametrize("sessions, assigned", [
    pytest.param((_gemini_session("f", {"x": 1}, {"r": "A"}, "done A"),
                  _gemini_session("g", {"y": 2}, {"r": "B"}, "done B")), ONE_EACH, id="gemini, no ids"),
    pytest.param((_gemini_session("f", {"x": 1}, {"r": "A"}, "done A"), _chat_hi_session("call_B", "Bergen")),
                 ONE_EACH, id="gemini and openai-chat"),
    pytest.param((_chat_hi_session("call_A", "Oslo"), _chat_hi_session("call_B", "Bergen")), ONE_EACH,
                 id="call ids"),
    # B0 asks what A0 asked and is answered the same: a retry as far as the log can tell, until B1
    # forks from A's history where the two were still alike
    pytest.param((_gemini_session("f", {"x": 1}, {"r": "A"}, "done A"),
                  _gemini_session("f", {"x": 1}, {"r": "B"}, "done B")), ["c1", "c1", "c1", "c2"],
                 id="gemini, the same first call"),
])
def test_sessions_that_open_with_the_same_message_interleaved_read_as_each_alone(sessions, assigned):
    """A0 B0 A1 B1, both opening with "hi". Before: B0 was taken for a retry of A0 and the two
    sessions became one conversation — with Gemini the other session's call, result and answer gone
    and a false TD306; with call ids, false TD306/TD106/TD101/TD102. A request that asks again what
    a conversation's last request asked, and is answered otherwise, is another conversation; so is
    one without ids that forks from a conversation's history no further than its last request."""
    (a0, a1), (b0, b1) = sessions
    loaded = load_bytes("both.jsonl", "".join(json.dumps(x) + "\n" for x in [a0, b0, a1, b1]).encode())
    assert [r.conversation for r in loaded.reads] == assigned
    turns = [[turn_to_dict(t, sources=False) for t in c.turns] for c in loaded.conversations]
    alone_a, alone_b = _alone([a0, a1]), _alone([b0, b1])
    assert turns == alone_a[0] + alone_b[0]
    assert run_checks(loaded) == [] == alone_a[1] == alone_b[1]


def test_a_fork_goes_with_the_history_it_shares_most_not_with_a_shorter_one():
    """B forks from A's history after their common first exchange; C opened with "hi" too and got
    another answer. B's second request shares two turns with A's conversation and one with C's: it
    is neither (a session of its own), not a replay of C's answer changed. Found by the interleaving
    property: B1 was stitched into C's conversation."""
    (a0, a1), (b0, b1) = (_gemini_session("f", {"x": 1}, {"r": "A"}, "done A"),
                          _gemini_session("f", {"x": 1}, {"r": "B"}, "done B"))
    c0 = _chat_exchange([{"role": "user", "content": "hi"}], {"role": "assistant", "content": "Hello!"})
    loaded = load_bytes("three.jsonl", "".join(json.dumps(x) + "\n" for x in [b0, c0, a0, a1, b1]).encode())
    turns = sorted(json.dumps([turn_to_dict(t, sources=False) for t in c.turns]) for c in loaded.conversations)
    alone = sorted(json.dumps(t) for x in ([a0, a1], [b0, b1], [c0]) for t in _alone(x)[0])
    assert turns == alone
    assert run_checks(loaded) == []


def test_a_fork_without_ids_that_asks_more_is_not_taken_for_a_changed_replay():
    """B forked from A after their common first exchange; A's second request is longer than B's (the
    user spoke after the result). Without ids, a request that departs from a conversation's history is
    a replay that changed it only when it goes on with that conversation's answer. Before: A's second
    request, departing at the result and longer than B's, was stitched into B's conversation (found
    by the interleaving property)."""
    (a0, a1), (b0, b1) = (_gemini_session("f", {"x": 1}, {"r": "A"}, "done A"),
                          _gemini_session("f", {"x": 1}, {"r": "B"}, "done B"))
    a1["request"]["body"]["contents"].append({"role": "user", "parts": [{"text": "and now?"}]})
    loaded = load_bytes("fork.jsonl", "".join(json.dumps(x) + "\n" for x in [b0, a0, b1, a1]).encode())
    turns = sorted(json.dumps([turn_to_dict(t, sources=False) for t in c.turns]) for c in loaded.conversations)
    assert turns == sorted(json.dumps(t) for x in ([a0, a1], [b0, b1]) for t in _alone(x)[0])


def test_a_fork_is_checked_against_the_answer_it_replays_not_the_exchange_logged_before_it():
    """A0, then B0 (the same request, answered the same: a retry as far as the log can tell), B1, then
    C0 (another session opening with "hi", answered otherwise), then A1: A1 forks from the first
    conversation after the answer A0 and B0 share, so it starts a conversation of its own — and it
    continues A0's answer, replayed unchanged, not C0's. Before: the replay checks paired A1 with C0,
    the exchange just before it, and found C0's answer replayed as A's call (a false TD306 and, beside
    a call, a false TD301: found by the interleaving property)."""
    (a0, a1), (b0, b1) = (_gemini_session("f", {"x": 1}, {"r": "A"}, "done A"),
                          _gemini_session("f", {"x": 1}, {"r": "B"}, "done B"))
    c0 = _chat_exchange([{"role": "user", "content": "hi"}], {"role": "assistant", "content": "Let me look.", "tool_calls": [
        {"id": "call_C", "type": "function", "function": {"name": "g", "arguments": "{}"}}]})
    loaded = load_bytes("fork.jsonl", "".join(json.dumps(x) + "\n" for x in [a0, b0, b1, c0, a1]).encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c1", "c2", "c3"]
    turns = sorted(json.dumps([turn_to_dict(t, sources=False) for t in c.turns]) for c in loaded.conversations)
    assert turns == sorted(json.dumps(t) for x in ([a0, a1], [b0, b1], [c0]) for t in _alone(x)[0])
    # (C0 calls a tool its request does not declare: TD207, alone as well)
    assert [f.code for f in run_checks(loaded)] == [f.code for f in _alone([c0])[1]] == ["TD207"]


def test_a_regenerated_answer_is_a_branch_and_a_retry_answered_the_same_is_not():
    a0, a1 = _chat_hi_session("call_A", "Oslo")
    regenerated = json.loads(json.dumps(a0))
    regenerated["response"]["body"]["choices"][0].update(message={"role": "assistant", "content": "Hello!"},
                                                          finish_reason="stop")
    loaded = load_bytes("r.jsonl", "".join(json.dumps(x) + "\n" for x in [a0, a0, regenerated, a1]).encode())
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c2", "c1"]
    assert [t.role for t in loaded.conversations[1].turns] == ["user", "assistant"]
    assert run_checks(loaded) == []


def test_a_response_only_exchange_keeps_its_exchange():
    """An error response alone (its request not logged) is still a conversation of its own: the
    rejection (TD901, read from the exchange's responses) has a conversation to be on."""
    stitcher = Stitcher()
    thread = stitcher.add(3, None, (Response(error=ApiError(message="overloaded", type="overloaded_error")),))
    assert thread.exchanges == [3] and thread.conversation.turns == ()


# ---------------------------------------------- Responses requests chained by previous_response_id

RESPONSES = "https://api.openai.com/v1/responses"


def _weather_call(call_id, city):
    return {"id": f"fc_{call_id[5:]}", "type": "function_call", "status": "completed", "call_id": call_id,
            "name": "get_weather", "arguments": json.dumps({"city": city})}


def _said(text, item_id):
    return {"id": item_id, "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def _output(call_id, output):
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _responses_exchange(request, response_id, output, status=200):
    """One Responses exchange: `request` is the body's stored-state key and input; a 400 answers with
    the API's error body instead of a response."""
    body = {"model": "gpt-5.5", "tools": [{"type": "function", "name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}], **request}
    if status != 200:
        answer = {"error": {"message": output, "type": "invalid_request_error", "param": "input", "code": None}}
    else:
        answer = {"id": response_id, "object": "response", "status": "completed", "model": "gpt-5.5",
                  "previous_response_id": request.get("previous_response_id"), "output": output}
    return {"request": {"method": "POST", "url": RESPONSES, "body": body},
            "response": {"status": status, "body": answer}}


ASK = {"input": "Weather in Oslo and Bergen?"}
CALLS = [_weather_call("call_Oslo1", "Oslo"), _weather_call("call_Bgn2", "Bergen")]
OUTPUTS = [_output("call_Oslo1", "4C"), _output("call_Bgn2", "7C")]


def _load(*exchanges):
    loaded = load_bytes("chain.jsonl", "".join(json.dumps(x) + "\n" for x in exchanges).encode())
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return loaded


def test_a_previous_response_id_chain_is_one_conversation():
    """Each request sends only its new input; the timeline is the whole conversation, each turn
    pointing at the exchange that sent or received it, the outputs bound to the stored calls."""
    loaded = _load(_responses_exchange(ASK, "resp_1", CALLS),
                   _responses_exchange({"previous_response_id": "resp_1", "input": OUTPUTS}, "resp_2",
                                       [_said("Oslo 4C, Bergen 7C.", "msg_2")]),
                   _responses_exchange({"previous_response_id": "resp_2", "input": "Thanks!"}, "resp_3",
                                       [_said("You're welcome.", "msg_3")]))
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c1"]
    [conv] = loaded.conversations
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool", "assistant", "user", "assistant"]
    assert [(t.source.exchange, t.source.side) for t in conv.turns] == [
        (0, "request"), (0, "response"), (1, "request"), (1, "response"), (2, "request"), (2, "response")]
    calls, results = conv.turns[1].parts, conv.turns[2].parts
    assert [r.invocation_id for r in results] == [c.id for c in calls] == ["i1", "i2"]
    assert conv.turns[2].parts[0].source.pointer == "/input/0"
    # each request keeps its own turns, placed after the `stored` turns the provider prepended
    assert [(r.stored, len(r.request.turns)) for r in loaded.reads] == [(0, 1), (2, 1), (4, 1)]
    assert loaded.reads[1].request.turns == conv.turns[2:3]
    # the conversation holds its whole history: it continues no stored state
    assert "previous_response_id" not in conv.meta.get("openai-responses", {})
    assert run_checks(loaded) == []


def test_two_requests_continuing_the_same_response_are_two_conversations_sharing_a_prefix():
    """A branch (an answer regenerated from the same point): the first continuation keeps the
    conversation, the second starts one that shares the stored turns, still pointing at exchange 0."""
    loaded = _load(_responses_exchange(ASK, "resp_1", CALLS),
                   _responses_exchange({"previous_response_id": "resp_1", "input": OUTPUTS}, "resp_2",
                                       [_said("Oslo 4C, Bergen 7C.", "msg_2")]),
                   _responses_exchange({"previous_response_id": "resp_1", "input": OUTPUTS}, "resp_3",
                                       [_said("Both are cold: 4C and 7C.", "msg_3")]),
                   _responses_exchange({"previous_response_id": "resp_3", "input": "Thanks!"}, "resp_4",
                                       [_said("Welcome.", "msg_4")]))
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c2", "c2"]
    first, second = loaded.conversations
    assert first.turns[:2] == second.turns[:2]
    assert [(t.source.exchange, t.source.side) for t in second.turns] == [
        (0, "request"), (0, "response"), (2, "request"), (2, "response"), (3, "request"), (3, "response")]
    assert [t.parts[0].text for t in (first.turns[3], second.turns[3])] == [
        "Oslo 4C, Bergen 7C.", "Both are cold: 4C and 7C."]
    assert run_checks(loaded) == []


def test_a_rejected_continuation_and_its_retry_are_two_conversations():
    """The first continuation forgot Bergen's output and was rejected; the retry names the same
    response. The rejected attempt stays a conversation of its own, with its defect and the
    provider's answer; the retry goes on as another."""
    loaded = _load(_responses_exchange(ASK, "resp_1", CALLS),
                   _responses_exchange({"previous_response_id": "resp_1", "input": OUTPUTS[:1]}, None,
                                       "No tool output found for function call call_Bgn2.", status=400),
                   _responses_exchange({"previous_response_id": "resp_1", "input": OUTPUTS}, "resp_2",
                                       [_said("Oslo 4C, Bergen 7C.", "msg_2")]))
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c2"]
    findings = run_checks(loaded)
    assert [(f.code, f.conversation, f.exchange, f.turn, f.part) for f in findings] == [
        ("TD901", "c1", 1, None, None), ("TD102", "c1", 0, 1, 1)]  # the conversation's own first
    assert "No tool output found for function call call_Bgn2." in findings[0].message
    assert "see TD102" in findings[0].message


def test_a_chain_whose_first_response_is_not_in_the_log_starts_mid_way():
    """The capture began after resp_0ld: the outputs answer calls the log never showed. That is a
    conversation of its own, starting mid-way — not orphan results (TD101) — and it says which
    stored response it continues."""
    loaded = _load(_responses_exchange({"previous_response_id": "resp_0ld", "input": OUTPUTS}, "resp_2",
                                       [_said("Oslo 4C, Bergen 7C.", "msg_2")]),
                   _responses_exchange({"previous_response_id": "resp_2", "input": "Thanks!"}, "resp_3",
                                       [_said("Welcome.", "msg_3")]))
    [conv] = loaded.conversations
    assert [t.role for t in conv.turns] == ["tool", "assistant", "user", "assistant"]
    assert [r.invocation_id for r in conv.turns[0].parts] == [None, None]
    assert loaded.reads[0].request.meta["openai-responses"]["previous_response_id"] == "resp_0ld"
    assert run_checks(loaded) == []
    console = Console(file=io.StringIO(), width=200)
    for renderable in render_loaded(loaded):
        console.print(renderable)
    assert ("continues previous_response_id resp_0ld, which is not in this log: turns the provider stored "
            "before it are not shown") in console.file.getvalue()
    # the conversation names the stored response it starts from; a writer replaying it says what is lost
    assert conv.meta["openai-responses"]["previous_response_id"] == "resp_0ld"


def test_a_mid_way_chain_still_reports_an_output_that_answers_no_call_after_it_began():
    """Only the calls before the capture are unknown: in a later request of the same chain, an
    output whose call the log does show unanswered is still a defect (TD102 for the dropped one)."""
    loaded = _load(_responses_exchange({"previous_response_id": "resp_0ld", "input": "Weather?"}, "resp_2",
                                       CALLS),
                   _responses_exchange({"previous_response_id": "resp_2", "input": OUTPUTS[:1]}, "resp_3",
                                       [_said("Oslo 4C.", "msg_3")]))
    assert [(f.code, f.exchange, f.turn, f.part) for f in run_checks(loaded)] == [("TD102", 0, 1, 1)]


def test_requests_naming_one_conversation_id_are_one_conversation():
    """The Conversations API: the server prepends the conversation's items and appends each
    completed response; `conversation` is an id or `{"id": …}`."""
    loaded = _load(_responses_exchange({"conversation": "conv_68a1", **ASK}, "resp_1", CALLS),
                   _responses_exchange({"conversation": {"id": "conv_68a1"}, "input": OUTPUTS}, "resp_2",
                                       [_said("Oslo 4C, Bergen 7C.", "msg_2")]),
                   _responses_exchange({"conversation": "conv_other", "input": "Hello"}, "resp_3",
                                       [_said("Hi.", "msg_3")]))
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c2"]
    first, _ = loaded.conversations
    assert [t.role for t in first.turns] == ["user", "assistant", "tool", "assistant"]
    assert [r.invocation_id for r in first.turns[2].parts] == ["i1", "i2"]
    assert run_checks(loaded) == []


def test_a_client_that_switches_from_a_chain_to_replaying_the_history_stays_in_the_conversation():
    """The third request drops `previous_response_id` and replays everything: the same conversation,
    each replayed turn still pointing at the exchange that first carried it."""
    replayed = [{"role": "user", "content": "Weather in Oslo and Bergen?"}, *CALLS, *OUTPUTS,
                _said("Oslo 4C, Bergen 7C.", "msg_2"), {"role": "user", "content": "Thanks!"}]
    loaded = _load(_responses_exchange(ASK, "resp_1", CALLS),
                   _responses_exchange({"previous_response_id": "resp_1", "input": OUTPUTS}, "resp_2",
                                       [_said("Oslo 4C, Bergen 7C.", "msg_2")]),
                   _responses_exchange({"input": replayed}, "resp_3", [_said("Welcome.", "msg_3")]))
    assert [r.conversation for r in loaded.reads] == ["c1", "c1", "c1"]
    [conv] = loaded.conversations
    assert [(t.source.exchange, t.source.side) for t in conv.turns] == [
        (0, "request"), (0, "response"), (1, "request"), (1, "response"), (2, "request"), (2, "response")]
    assert run_checks(loaded) == []


def test_diff_counts_a_chained_requests_stored_turns_as_sent():
    """A relay in front of a stateless backend expands `previous_response_id` into the full input.
    Diffing the client's chained log with what went upstream finds nothing lost — and still finds
    what the expansion did lose (here the user's question)."""
    client = _load(_responses_exchange(ASK, "resp_1", CALLS),
                   _responses_exchange({"previous_response_id": "resp_1", "input": OUTPUTS}, "resp_2",
                                       [_said("Oslo 4C, Bergen 7C.", "msg_2")]))

    def upstream(history):
        return _load(_responses_exchange(ASK, "resp_1", CALLS),
                     _responses_exchange({"input": [*history, *CALLS, *OUTPUTS]}, "resp_2",
                                         [_said("Oslo 4C, Bergen 7C.", "msg_2")]))

    assert diff(client, upstream([{"role": "user", "content": ASK["input"]}])).findings == []
    [lost] = diff(client, upstream([])).findings
    assert (lost.code, lost.side, lost.exchange) == ("TD703", "b", 1)


@settings(max_examples=150, deadline=None)
@given(conv=conversations(reasoning_origin="anthropic"), data=st.data())
def test_a_turn_hashes_as_its_equality_compares(conv, data):
    """Stitching knows a replayed turn by its hash: equal turns hash equal wherever they were read
    from, and a change to any field a turn's equality compares changes the hash."""
    turns = conv.turns
    for a in turns:
        for b in turns:
            assert (turn_hash(a) == turn_hash(b)) == (a == b)
    elsewhere = Source("other.jsonl", 3, "request", "line 4/request/body", "/messages/2")
    turn = data.draw(st.sampled_from(turns))
    assert turn_hash(replace(turn, source=elsewhere,
                             parts=tuple(replace(p, source=elsewhere) for p in turn.parts))) == turn_hash(turn)
    k = data.draw(st.integers(0, len(turn.parts) - 1))
    part = turn.parts[k]
    name = data.draw(st.sampled_from([f.name for f in fields(part) if f.name != "source"]))
    value = getattr(part, name)
    changed = {"meta": {"anthropic": {"cache_control": {"type": "ephemeral"}}} if not value else {},
               "content": () if value else (Text(text="x"),)}.get(name, f"{value!r} changed")
    other = replace(turn, parts=(*turn.parts[:k], replace(part, **{name: changed}), *turn.parts[k + 1:]))
    assert other != turn and turn_hash(other) != turn_hash(turn)


def test_a_part_of_another_type_with_the_same_value_hashes_apart():
    said = "Let me check."
    hashes = {turn_hash(Turn(role="tool", parts=(part,)))
              for part in (Text(text=said), Json(value=said), Reasoning(text=said))}
    assert len(hashes) == 3


@pytest.mark.parametrize("replayed_city", ["Oslo", "Bergen"])
def test_a_replayed_answer_hashes_as_turn_hash_would(replayed_city):
    """A request's turn equal to the answer the thread holds at its place takes that answer's hash
    (it is not hashed again); a replay that changed the answer is hashed as it was sent. Either way
    the thread's hashes are those `turn_hash` gives its timeline."""
    stitcher = Stitcher()
    stitcher.add(0, request(user("Weather?", 0, 0)),
                 (Response(turn=call(0, "response", "/choices/0/message")),))
    replayed = Turn(role="assistant", parts=(Invocation(name="get_weather", arguments={"city": replayed_city},
                                                        wire_id="call_1"),),
                    source=src(1, "request", "/messages/1"))
    thread = stitcher.add(1, request(user("Weather?", 1, 0), replayed, result(1, 2)),
                          (Response(turn=answer(1, "It is 12C.")),))
    assert thread.hashes == [turn_hash(t) for t in thread.conversation.turns]
    # (the answer kept where the replay is equal; the replay, pointing at its request, where it changed)
    assert thread.conversation.turns[1].source.exchange == (0 if replayed_city == "Oslo" else 1)
    later = stitcher.add(2, request(user("Weather?", 2, 0), replayed, result(2, 2),
                                    answer(2, "It is 12C."), user("Thanks", 2, 4)), ())
    assert later is thread and thread.hashes == [turn_hash(t) for t in thread.conversation.turns]
