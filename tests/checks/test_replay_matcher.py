"""The replay matcher's less travelled branches (found by branch coverage over tooldbg/checks/replay.py),
each pinned by what a user sees: a finding, or its absence. Logs are built with test_replay's wire
helpers."""

import base64
import json
from dataclasses import replace
from functools import partial

import pytest

from tests.checks.helpers import DAMAGED
from tests.checks.test_replay import (
    A_ASK,
    A_CALLS,
    A_FAIL,
    A_OK,
    ANTHROPIC,
    ASK,
    G_ASK,
    G_TOOLS,
    GEMINI,
    OPENAI,
    RESPONSES,
    SYSTEM,
    TOOLS,
    anthropic_message,
    anthropic_request,
    bedrock_two,
    chat_answer,
    chat_call,
    chat_loop,
    check,
    exchange,
    gemini_response,
    log,
)
from tooldbg.checks import run_checks, select_rules
from tooldbg.checks.replay import anchored, same_arguments
from tooldbg.load import load_bytes
from tooldbg.model import Invocation, Media, Reasoning, Result, Text, Turn


def responses_answer(text):
    return {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4.1", "output": [
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


def whole(findings):
    return [(f.code, f.severity, f.exchange, f.conversation, f.turn, f.part, f.pointer) for f in findings]


# --------------------------------------------- calls paired by order, or not (Pair._match)


def _renumbered(replayed_call):
    """A request turn (the call, with its result) replayed in the next request as `replayed_call`."""
    call = chat_call("call_A", "get_weather", {"city": "Oslo"})
    first = [SYSTEM, ASK, {"role": "assistant", "content": None, "tool_calls": [call]},
             {"role": "tool", "tool_call_id": "call_A", "content": "4"}]
    second = [SYSTEM, ASK, {"role": "assistant", "content": None, "tool_calls": [replayed_call]},
              {"role": "tool", "tool_call_id": replayed_call["id"], "content": "4"},
              {"role": "assistant", "content": "4 °C."}, {"role": "user", "content": "And Bergen?"}]
    return log(exchange(OPENAI, {"model": "gpt-4.1", "messages": first, "tools": TOOLS}, chat_answer("4 °C.")),
               exchange(OPENAI, {"model": "gpt-4.1", "messages": second, "tools": TOOLS}, chat_answer()))


def test_a_call_under_another_id_is_another_call_not_a_mutated_replay():
    """Same place, same tool, both calls with ids and no id in common, history before not replayed
    exactly: two different calls, not one call whose arguments changed."""
    assert check(_renumbered(chat_call("call_B", "get_weather", {"city": "Bergen"}))) == []
    [f] = check(_renumbered(chat_call("call_A", "get_weather", {"city": "Bergen"})))
    assert (f.code, f.exchange, f.pointer) == ("TD306", 1, "line 2/request/body#/messages/2/tool_calls/0")


def _gemini_two_calls(replayed_parts):
    """Exchange 0 answers with text and two id-less calls of one tool; exchange 1 replays the turn
    as `replayed_parts` (history before replayed exactly)."""
    calls = [{"text": "Checking both."},
             {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
             {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}]
    ask = {"role": "user", "parts": [{"text": "Weather in Oslo and Bergen?"}]}
    result = {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 7}}}}
    return log(
        exchange(GEMINI, {"contents": [ask], "tools": G_TOOLS}, gemini_response(calls)),
        exchange(GEMINI, {"contents": [ask, {"role": "model", "parts": replayed_parts},
                                       {"role": "user", "parts": [result]}], "tools": G_TOOLS},
                 gemini_response([{"text": "7 °C in Bergen."}])))


def test_when_a_call_is_missing_from_the_replay_only_identical_calls_are_paired():
    """Two id-less calls replayed as one: the one left is Bergen's, paired with Bergen's (not with
    Oslo's by position, which would read as 'Oslo became Bergen'), so the dropped text is seen."""
    findings = check(_gemini_two_calls([{"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}]))
    assert [(f.code, f.exchange, f.turn, f.part) for f in findings] == [("TD301", 1, 1, None)]
    assert "'Checking both.'" in findings[0].message and "'get_weather'" in findings[0].message
    # nothing identical is left: nothing is paired, and no text is judged dropped beside it
    assert check(_gemini_two_calls([{"functionCall": {"name": "get_weather", "args": {"city": "Tromsø"}}}])) == []


# ------------------------------------------------------------- where a finding is placed


def test_a_finding_on_a_replay_the_conversation_no_longer_holds_names_no_turn():
    """Exchange 2 drops the failure flag exchange 1 sent (TD303 there); exchange 3 rewrites that turn
    once more, so the conversation's turn 2 is exchange 3's: exchange 2's finding keeps its pointer
    and names no turn rather than a turn that does not hold it."""
    lost = {k: v for k, v in A_FAIL.items() if k != "is_error"}
    again = {**lost, "content": "weather service unavailable"}
    history = [A_ASK, {"role": "assistant", "content": A_CALLS}]
    nxt = [{"type": "text", "text": "Bergen failed."}]
    tail = [{"role": "assistant", "content": nxt}, {"role": "user", "content": "Try again?"}]
    data = log(
        exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(A_CALLS)),
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": [A_OK, A_FAIL]}]),
                 anthropic_message(nxt, "end_turn")),
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": [A_OK, lost]}, *tail]),
                 anthropic_message([{"type": "text", "text": "Trying."}], "end_turn")),
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": [A_OK, again]}, *tail,
                                               {"role": "assistant", "content": "Trying."},
                                               {"role": "user", "content": "Thanks"}]),
                 anthropic_message([{"type": "text", "text": "Bye."}], "end_turn")),
    )
    loaded = load_bytes("run.jsonl", data)
    assert [r.conversation for r in loaded.reads] == ["c1"] * 4
    assert loaded.conversations[0].turns[2].source.exchange == 3
    assert whole(run_checks(loaded, select_rules(["TD3"]))) == [
        ("TD303", "error", 2, "c1", None, None, "line 3/request/body#/messages/2/content/1")]


def test_two_media_lost_in_one_replay_are_two_findings():
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    jpg = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8Q"

    def shot(tid, data, kind):
        return {"type": "tool_result", "tool_use_id": tid, "content": [
            {"type": "image", "source": {"type": "base64", "media_type": kind, "data": data}}]}

    calls = [{"type": "tool_use", "id": "toolu_1", "name": "screenshot", "input": {}},
             {"type": "tool_use", "id": "toolu_2", "name": "screenshot", "input": {}}]
    history = [A_ASK, {"role": "assistant", "content": calls}]
    shots = [shot("toolu_1", png, "image/png"), shot("toolu_2", jpg, "image/jpeg")]
    stripped = [{"type": "tool_result", "tool_use_id": t, "content": "[image]"} for t in ("toolu_1", "toolu_2")]
    data = log(
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": shots}]),
                 anthropic_message([{"type": "text", "text": "Two pages."}], "end_turn")),
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": stripped},
                                               {"role": "assistant", "content": "Two pages."},
                                               {"role": "user", "content": "Which is newer?"}]),
                 anthropic_message([{"type": "text", "text": "The second."}], "end_turn")),
    )
    findings = check(data)
    assert [(f.code, f.exchange, f.turn, f.part) for f in findings] == [("TD305", 1, 2, 0), ("TD305", 1, 2, 1)]
    assert "image (image/png)" in findings[0].message and "image (image/jpeg)" in findings[1].message


# ------------------------------------------------------- exchanges with no single answer


def test_an_exchange_logged_without_its_response_still_has_its_request_turns_compared():
    """Exchange 0's response was not captured: its request turns are still compared with their
    replay (the flag lost there is found), and there is no answer to compare."""
    lost = {k: v for k, v in A_FAIL.items() if k != "is_error"}
    history = [A_ASK, {"role": "assistant", "content": A_CALLS}]
    first = exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": [A_OK, A_FAIL]}]), None)
    del first["response"]
    data = log(first, exchange(ANTHROPIC, anthropic_request(
        [*history, {"role": "user", "content": [A_OK, lost]}, {"role": "assistant", "content": "Hm."},
         {"role": "user", "content": "Again?"}]), anthropic_message([{"type": "text", "text": "Ok."}], "end_turn")))
    assert [(f.code, f.exchange, f.turn, f.part) for f in check(data)] == [("TD303", 1, 2, 1)]


def test_a_capture_with_two_answers_is_not_compared_with_either():
    """Two responses back to back in one capture: which one the next request replays is a guess, so
    neither is judged (the text missing from the replay is not reported)."""
    def stream(n, content):
        events = [{"type": "message_start", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
                                                        "model": "claude-sonnet-4-5", "content": [],
                                                        "usage": {"input_tokens": 1}}}]
        for i, block in enumerate(content):
            events += [{"type": "content_block_start", "index": i, "content_block": block},
                       {"type": "content_block_stop", "index": i}]
        return events + [{"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
                         {"type": "message_stop"}]

    one = [{"type": "text", "text": "Checking Oslo."}, {**A_CALLS[1]}]
    two = [{"type": "text", "text": "Checking Bergen."}, {**A_CALLS[2]}]
    sse = "".join(f"data: {json.dumps(e)}\n\n" for e in stream(1, one) + stream(2, two))
    first = exchange(ANTHROPIC, anthropic_request([A_ASK]), None)
    first["response"]["body"] = sse
    first["response"]["headers"] = {"content-type": "text/event-stream"}
    replayed = {"role": "assistant", "content": [A_CALLS[1]]}  # the text is gone
    data = log(first, exchange(ANTHROPIC, anthropic_request(
        [A_ASK, replayed, {"role": "user", "content": [A_OK]}]), anthropic_message([], "end_turn")))
    loaded = load_bytes("run.jsonl", data)
    assert loaded.errors == [] and len(loaded.reads[0].responses) == 2
    assert run_checks(loaded, select_rules(["TD3"])) == []
    # with the first answer alone, the same replay is TD301
    sse = "".join(f"data: {json.dumps(e)}\n\n" for e in stream(1, one))
    first["response"]["body"] = sse
    data = log(first, exchange(ANTHROPIC, anthropic_request(
        [A_ASK, replayed, {"role": "user", "content": [A_OK]}]), anthropic_message([], "end_turn")))
    assert [f.code for f in check(data)] == ["TD301"]


# ------------------------------------------------- sameness: what makes a turn "the same turn"


def test_a_turn_is_its_replay_when_it_shares_a_signature_a_call_a_medium_or_its_tool_names():
    """`anchored` decides whether a changed turn is compared with the original at all (calls paired
    by order, text beside calls, media, reasoning): each kind of evidence alone suffices; a turn
    of another role, or sharing none of them, is another turn."""
    sig = base64.b64encode(bytes(range(64))).decode()
    urlsafe = sig.replace("+", "-").replace("/", "_").rstrip("=")
    call = Invocation(name="get_weather", arguments={"city": "Oslo"})
    other = Invocation(name="get_time", arguments={"city": "Oslo"})
    assistant = partial(Turn, role="assistant")
    # a signature, in either base64 alphabet; redacted thinking by its data
    assert anchored(assistant(parts=(Reasoning(signature=sig), call)),
                    assistant(parts=(Reasoning(signature=urlsafe), other)))
    assert not anchored(assistant(parts=(Reasoning(signature=sig), call)),
                        assistant(parts=(Reasoning(signature=urlsafe[:-4] + "AAAA"), other)))
    assert anchored(assistant(parts=(Reasoning(redacted=sig), call)), assistant(parts=(Reasoning(redacted=sig), other)))
    assert not anchored(assistant(parts=(Reasoning(text="unsigned"), call)),
                        assistant(parts=(Reasoning(text="unsigned"), other)))
    # the same call (name and arguments) among others
    assert anchored(assistant(parts=(call,)), assistant(parts=(other, call)))
    assert not anchored(assistant(parts=(call,)), assistant(parts=(other, replace(call, arguments={"city": "Bergen"}))))
    # the same medium, inline or as a data URL
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
    user = partial(Turn, role="user")
    assert anchored(user(parts=(Media(media_type="image/png", data=png),)),
                    user(parts=(Media(url=f"data:image/png;base64,{png}"),)))
    assert not anchored(user(parts=(Media(data=png),)), user(parts=(Media(url="https://x.test/a.png"),)))
    assert anchored(user(parts=(Media(url="https://x.test/a.png"),)), user(parts=(Media(url="https://x.test/a.png"),)))
    assert anchored(user(parts=(Media(file_id="file-1"),)), user(parts=(Media(file_id="file-1"),)))
    assert not anchored(user(parts=(Media(file_id="file-1"),)), user(parts=(Media(file_id="file-2"),)))
    # the same tool names in the same order, calls or results
    assert anchored(assistant(parts=(call,)), assistant(parts=(replace(call, arguments={"city": "Bergen"}),)))
    tool = partial(Turn, role="tool")
    assert anchored(tool(parts=(Result(name="get_weather", content=(Text(text="4"),)),)),
                    tool(parts=(Result(name="get_weather", content=(Text(text="5"),)),)))
    assert not anchored(tool(parts=(Result(name="get_weather"),)), tool(parts=(Result(name="get_time"),)))
    # another role is another turn
    assert not anchored(assistant(parts=(call,)), user(parts=(call,)))


def test_calls_are_the_same_only_with_the_same_raw_text_when_their_arguments_did_not_parse():
    broken = Invocation(name="f", arguments=None, raw_arguments='{"a": 1')
    assert same_arguments(broken, broken)
    assert not same_arguments(broken, replace(broken, raw_arguments='{"a": 2'))
    assert not same_arguments(broken, Invocation(name="f", arguments={"a": 1}))


# ------------------------------------------------- what the TD3xx rules read out of a pair


def test_an_array_argument_that_lost_an_element_on_replay_is_named_by_its_index():
    first = {"content": None, "tool_calls": [chat_call("call_Q3zb", "get_weather", {"cities": ["Oslo", "Bergen"]})]}
    replayed = {"role": "assistant", "content": None,
                "tool_calls": [chat_call("call_Q3zb", "get_weather", {"cities": ["Oslo"]})]}
    follow = [{"role": "tool", "tool_call_id": "call_Q3zb", "content": "4, 7"}]
    [f] = check(chat_loop(replayed, follow, first))
    assert (f.code, f.exchange, f.turn, f.part) == ("TD306", 1, 1, 0)
    assert f.message.endswith('at /cities/1: "Bergen" became (absent)' + DAMAGED)
    replayed["tool_calls"] = [chat_call("call_Q3zb", "get_weather", {"cities": ["Oslo", "Tromsø"]})]
    [f] = check(chat_loop(replayed, follow, first))
    assert f.message.endswith('at /cities/1: "Bergen" became "Tromsø"' + DAMAGED)


def _gemini_result_as_text(output, text):
    """Exchange 0 sends a Gemini function response (`output`); exchange 1 replays the history with the
    result as user text `text` instead."""
    call = {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]}
    result = {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": output}}}]}
    answer = {"role": "model", "parts": [{"text": "It is 4 °C."}]}
    return log(
        exchange(GEMINI, {"contents": [G_ASK, call, result], "tools": G_TOOLS}, gemini_response(answer["parts"])),
        exchange(GEMINI, {"contents": [G_ASK, call, {"role": "user", "parts": [{"text": text}]}, answer,
                                       {"role": "user", "parts": [{"text": "And tomorrow?"}]}], "tools": G_TOOLS},
                 gemini_response([{"text": "Sunny."}])))


def test_a_structured_result_replayed_inside_user_text_is_td302_even_across_conversations():
    """The request that flattened the result no longer shares a prefix the stitcher can follow (its
    own conversation): it is still compared with the exchange before it, and the result's JSON found
    in the user text (spacing aside)."""
    data = _gemini_result_as_text({"temp_c": 4, "sky": "overcast"}, 'get_weather said: {"temp_c": 4, "sky": "overcast"}')
    loaded = load_bytes("run.jsonl", data)
    assert [r.conversation for r in loaded.reads] == ["c1", "c2"]
    assert whole(run_checks(loaded, select_rules(["TD3"]))) == [
        ("TD302", "error", 1, "c2", 2, 0, "line 2/request/body#/contents/2/parts/0")]


def test_a_result_with_an_image_and_text_replayed_as_user_text_is_td302():
    """Only the result's text is looked for in the user text; its image has no text to find."""
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
    shot = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}
    result = {"type": "tool_result", "tool_use_id": "toolu_01A",
              "content": [shot, {"type": "text", "text": "Oslo: 4 °C, overcast"}]}
    history = [A_ASK, {"role": "assistant", "content": [A_CALLS[1]]}]
    answer = {"role": "assistant", "content": "4 °C."}
    data = log(
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": [result]}]),
                 anthropic_message([{"type": "text", "text": "4 °C."}], "end_turn")),
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": "The tool said: Oslo: 4 °C, overcast"},
                                               answer, {"role": "user", "content": "Tomorrow?"}]),
                 anthropic_message([{"type": "text", "text": "Sun."}], "end_turn")))
    assert [(f.code, f.exchange, f.turn, f.part) for f in check(data, ("TD302",))] == [("TD302", 1, 2, 0)]


def test_a_result_too_short_to_recognise_in_user_text_is_not_claimed():
    assert check(_gemini_result_as_text("ok", "ok")) == []


def test_redacted_thinking_dropped_from_a_tool_turn_is_td307():
    redacted = {"type": "redacted_thinking", "data": base64.b64encode(bytes(range(48))).decode()}

    def loop(turn, replayed):
        return log(exchange(ANTHROPIC, anthropic_request([A_ASK]), anthropic_message(turn)),
                   exchange(ANTHROPIC, anthropic_request([A_ASK, {"role": "assistant", "content": replayed},
                                                          {"role": "user", "content": [A_OK]}]),
                            anthropic_message([{"type": "text", "text": "4."}], "end_turn")))

    calls = [A_CALLS[1]]
    assert check(loop([redacted, *calls], [redacted, *calls])) == []
    [f] = check(loop([redacted, *calls], calls))
    assert (f.code, f.exchange, f.turn, f.part) == ("TD307", 1, 1, 0)
    assert "the redacted thinking before the call 'get_weather'" in f.message


@pytest.mark.parametrize("image", [
    {"type": "image_url", "image_url": {"url": "https://images.example/view.png"}},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"}},
])
def test_a_users_image_dropped_on_replay_by_url_or_inline(image):
    photo = {"role": "user", "content": [{"type": "text", "text": "What's in this view?"}, image]}
    text_only = {"role": "user", "content": [{"type": "text", "text": "What's in this view?"}]}
    first = [SYSTEM, photo, {"role": "assistant", "content": "A fjord."}, {"role": "user", "content": "Which?"}]
    second = [SYSTEM, text_only, {"role": "assistant", "content": "A fjord."}, {"role": "user", "content": "Which?"},
              {"role": "assistant", "content": "Geiranger."}, {"role": "user", "content": "Thanks"}]
    data = log(exchange(OPENAI, {"model": "gpt-4.1", "messages": first}, chat_answer("Geiranger.")),
               exchange(OPENAI, {"model": "gpt-4.1", "messages": second}, chat_answer()))
    [f] = check(data)
    assert (f.code, f.exchange, f.part) == ("TD305", 1, None) and "in the user turn" in f.message
    assert f.pointer == "line 2/request/body#/messages/1"


def test_a_responses_file_input_dropped_on_replay():
    def ask(*content):
        return {"role": "user", "content": [{"type": "input_text", "text": "Summarise this."}, *content]}

    pdf = {"type": "input_file", "file_id": "file-6F2ksmvXxt4VdoqmHRw6kL"}
    answer = {"role": "assistant", "content": [{"type": "output_text", "text": "It is a lease."}]}
    data = log(
        exchange(RESPONSES, {"model": "gpt-4.1", "input": [ask(pdf)]}, responses_answer("It is a lease.")),
        exchange(RESPONSES, {"model": "gpt-4.1", "input": [ask(), answer, {"role": "user", "content": "Term?"}]},
                 responses_answer("Two years.")))
    [f] = check(data)
    assert (f.code, f.exchange) == ("TD305", 1) and "file" in f.message


@pytest.mark.parametrize(("content", "code"), [
    ([{"json": [{"temp_c": 4}, {"temp_c": 7}]}], None),  # structured output that is not an object
    ([{"text": "{ not JSON: the request timed out"}], "TD304"),  # looks like JSON, is not: read as text
    ([{"text": '{"error": "upstream timeout"}'}], "TD304"),
])
def test_td304_reads_structured_and_brace_led_results(content, code):
    findings = check(bedrock_two({"toolUseId": "tooluse_a8nlf2bqGLcZvaSo", "content": content}))
    assert [f.code for f in findings] == ([code] if code else [])


# ------------------------------------------------------ which request replays which (_compute)


def _anthropic_session(tag, flag_kept):
    """Three exchanges of one session whose second result failed; the third replays the results
    with the flag (`flag_kept`) or without it. `tag` makes each session's ids and texts its own."""
    ask = {"role": "user", "content": f"Weather in Oslo and Bergen? ({tag})"}
    calls = [{"type": "text", "text": f"Checking both ({tag})."},
             {"type": "tool_use", "id": f"toolu_{tag}A", "name": "get_weather", "input": {"city": "Oslo"}},
             {"type": "tool_use", "id": f"toolu_{tag}B", "name": "get_weather", "input": {"city": "Bergen"}}]
    ok = {"type": "tool_result", "tool_use_id": f"toolu_{tag}A", "content": '{"temp_c": 4}'}
    fail = {"type": "tool_result", "tool_use_id": f"toolu_{tag}B", "content": "Error: timed out", "is_error": True}
    replayed = fail if flag_kept else {k: v for k, v in fail.items() if k != "is_error"}
    history = [ask, {"role": "assistant", "content": calls}]
    answer = [{"type": "text", "text": f"Bergen failed ({tag})."}]
    return [
        exchange(ANTHROPIC, anthropic_request([ask]), anthropic_message(calls)),
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": [ok, fail]}]),
                 anthropic_message(answer, "end_turn")),
        exchange(ANTHROPIC, anthropic_request([*history, {"role": "user", "content": [ok, replayed]},
                                               {"role": "assistant", "content": answer},
                                               {"role": "user", "content": "Retry?"}]),
                 anthropic_message([{"type": "text", "text": "Retrying."}], "end_turn")),
    ]


def test_each_request_is_compared_with_the_previous_one_of_its_own_session_when_sessions_interleave():
    a, b = _anthropic_session("a", flag_kept=True), _anthropic_session("b", flag_kept=False)
    data = log(a[0], b[0], a[1], b[1], a[2], b[2])
    loaded = load_bytes("run.jsonl", data)
    assert [r.conversation for r in loaded.reads] == ["c1", "c2", "c1", "c2", "c1", "c2"]
    assert [(f.code, f.exchange, f.conversation, f.turn, f.part) for f in run_checks(loaded, select_rules(["TD3"]))] \
        == [("TD303", 5, "c2", 2, 1)]


def test_a_response_only_exchange_between_requests_is_no_replay():
    a = _anthropic_session("a", flag_kept=False)
    lone = {"response": {"status": 200, "body": anthropic_message([{"type": "text", "text": "Hello."}], "end_turn")}}
    findings = check(log(a[0], a[1], lone, a[2]))
    assert [(f.code, f.exchange, f.conversation) for f in findings] == [("TD303", 3, "c1")]
