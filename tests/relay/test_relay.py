"""A real relay between two captures: `diff` of what the client exchanged with the relay (HAR) and
what the relay exchanged with the upstream (HAR) names each fault of the relay with its code, side,
message and places (pinned in `MATRIX`) — and nothing but notes when the relay works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.differing import lines
from tests.relay.capture import capture
from tests.relay.relay import FAULTS
from tests.test_cli import run
from tooldbg.diff import diff
from tooldbg.load import load_file


def through_relay(tmp_path: Path, faults: set[str], **how) -> tuple[Path, Path, list[int]]:
    return capture(tmp_path, faults, **how)


#: fault → (how the agent talks to the relay, the statuses the client saw, what `diff` finds: each
#: finding — the differences (TD7xx), then each side's own — with its side, code, message and place on
#: either side, each note, the pairing; as tests/differing.lines writes them). Each was read against
#: the relay's fault when pinned; a change to what `diff` says is an edit here.
MATRIX: dict[str | None, tuple[dict[str, object], list[int], tuple[str, ...]]] = {
    None: ({}, [200, 200], (
        "note: call ids rewritten consistently between a's c1 and b's c1 (2): call_01010OSL → "
        "toolu_01010OSL, call_01011BER → toolu_01011BER; every result still answers its call",
        "note: the result of 'get_weather' (toolu_01011BER) 'Error: weather service tim…ut after 10 s': "
        "its failure flag is said in the text on the openai-chat side, which has no flag",
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2 3↔3",
    )),
    "stream": ({"stream": True}, [200, 200], (
        "note: call ids rewritten consistently between a's c1 and b's c1 (2): call_01010OSL → "
        "toolu_01010OSL, call_01011BER → toolu_01011BER; every result still answers its call",
        "note: the result of 'get_weather' (toolu_01011BER) 'Error: weather service tim…ut after 10 s': "
        "its failure flag is said in the text on the openai-chat side, which has no flag",
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2 3↔3",
    )),
    "anthropic": ({"protocol": "anthropic"}, [200, 200], (
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2 3↔3",
    )),
    "drop-tools": ({}, [200], (
        "b TD701: tool 'get_weather' is declared in a's request but not in b's: the model cannot call it "
        "— error: lost or changed on the way",
        "    a: client.har c1 exchange 0 /log/entries/0/request/postData/text#/tools/0/function",
        "    b: upstream.har c1 exchange 0 /log/entries/0/request/postData/text#",
        "paired c1↔c1: exchanges 0↔0; turns 0↔0 1↔1",
    )),
    "strip-schema": ({}, [200, 200], (
        "b TD702: tool 'get_weather' has a simpler schema on b than on a: every parameter removed "
        "('city', 'unit') — error: lost or changed on the way",
        "    a: client.har c1 exchange 0 /log/entries/0/request/postData/text#/tools/0/function",
        "    b: upstream.har c1 exchange 0 /log/entries/0/request/postData/text#/tools/0",
        "a TD206: arguments of 'get_weather' do not fit its schema: $.city: required property is missing "
        "— error: the data received is damaged, whatever the provider answered",
        "    a: client.har c1 exchange 0 turn 1 part 1 "
        "/log/entries/0/response/content/text#/choices/0/message/tool_calls/0/function/arguments",
        "    b: upstream.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#",
        "a TD206: arguments of 'get_weather' do not fit its schema: $.city: required property is missing "
        "— error: the data received is damaged, whatever the provider answered",
        "    a: client.har c1 exchange 0 turn 1 part 2 "
        "/log/entries/0/response/content/text#/choices/0/message/tool_calls/1/function/arguments",
        "    b: upstream.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#",
        "note: call ids rewritten consistently between a's c1 and b's c1 (2): call_01010OSL → "
        "toolu_01010OSL, call_01011BER → toolu_01011BER; every result still answers its call",
        'note: the result of \'get_weather\' (toolu_01010OSL) "Error: missing required '
        'ar…[\'location\'])": its failure flag is said in the text on the openai-chat side, which has no '
        "flag",
        'note: the result of \'get_weather\' (toolu_01011BER) "Error: missing required '
        'ar…[\'location\'])": its failure flag is said in the text on the openai-chat side, which has no '
        "flag",
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2 3↔3",
    )),
    # the 400 Anthropic answered is in both logs (the relay passed it back): TD901 on each side
    "drop-parallel-result": ({}, [200, 400], (
        "b TD703: the result of 'get_weather' (call_01011BER) 'Error: weather service tim…ut after 10 s' "
        "is in a's request but not in b's: its call is left unanswered there — error: lost or changed on "
        "the way",
        "    a: client.har c1 exchange 1 turn 2 part 1 /log/entries/1/request/postData/text#/messages/4",
        "    b: upstream.har c1 exchange 1 turn 2 /log/entries/1/request/postData/text#/messages/2",
        "a TD901: the provider rejected the request (HTTP 400 invalid_request_error): “messages.2: "
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_01011BER. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message.” — no rule "
        "explains it on this request: its words point to TD102, TD405, TD803, none of which found it here "
        "(TD803 runs with --target anthropic)",
        "    a: client.har c1 exchange 1 /log/entries/1/response/content/text#/error",
        "    b: upstream.har c1",
        "b TD901: the provider rejected the request (HTTP 400 invalid_request_error): “messages.2: "
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_01011BER. Each "
        "`tool_use` block must have a corresponding `tool_result` block in the next message.” — see TD102",
        "    a: client.har c1",
        "    b: upstream.har c1 exchange 1 /log/entries/1/response/content/text#/error",
        "b TD102: call i2 get_weather ('toolu_01011BER') has no result, but the conversation continues "
        "after turn 1 — error: the provider rejected exchange 1, which sent it",
        "    a: client.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#/choices/0/message",
        "    b: upstream.har c1 exchange 0 turn 1 part 2 /log/entries/0/response/content/text#/content/2",
        "note: call ids rewritten consistently between a's c1 and b's c1 (2): call_01010OSL → "
        "toolu_01010OSL, call_01011BER → toolu_01011BER; every result still answers its call",
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2",
    )),
    "fold-is-error": ({"protocol": "anthropic"}, [200, 200], (
        "b TD703: the result of 'get_weather' (toolu_01011BER) 'weather service timed out after 10 s' is "
        "marked as a failure (is_error) on a but not on b, only said in its text: the model reads the "
        "failure as the tool's answer — error: lost or changed on the way",
        "    a: client.har c1 exchange 1 turn 2 part 1 "
        "/log/entries/1/request/postData/text#/messages/2/content/1",
        "    b: upstream.har c1 exchange 1 turn 2 part 1 "
        "/log/entries/1/request/postData/text#/messages/2/content/1",
        "b TD304: result 'toolu_01011BER' reports a failure ('Error: weather service timed out after 10 "
        "s') but is sent without is_error: true — warning: a sign the log shows, not a rejection",
        "    a: client.har c1 exchange 1 turn 2 /log/entries/1/request/postData/text#/messages/2",
        "    b: upstream.har c1 exchange 1 turn 2 part 1 "
        "/log/entries/1/request/postData/text#/messages/2/content/1",
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2 3↔3",
    )),
    "drop-text-beside-call": ({}, [200, 200], (
        'a TD703: the assistant\'s text "I\'ll check the weather in Oslo and Bergen." is in b\'s response '
        "but not in a's — error: lost or changed on the way",
        "    a: client.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#/choices/0/message",
        "    b: upstream.har c1 exchange 0 turn 1 part 0 /log/entries/0/response/content/text#/content/0",
        'b TD301: text "I\'ll check the weather in Oslo and Bergen." beside the call \'get_weather\' '
        "(toolu_01010OSL) in exchange 0's response is missing from its replay — error: the data received "
        "is damaged, whatever the provider answered",
        "    a: client.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#/choices/0/message",
        "    b: upstream.har c1 exchange 1 turn 1 /log/entries/1/request/postData/text#/messages/1",
        "note: call ids rewritten consistently between a's c1 and b's c1 (2): call_01010OSL → "
        "toolu_01010OSL, call_01011BER → toolu_01011BER; every result still answers its call",
        "note: the result of 'get_weather' (toolu_01011BER) 'Error: weather service tim…ut after 10 s': "
        "its failure flag is said in the text on the openai-chat side, which has no flag",
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2 3↔3",
    )),
    "arguments-as-object": ({}, [200, 200], (
        'a TD203: arguments of \'get_weather\' are an object ({"city":"Oslo","unit":"celsius"}); '
        "openai-chat requires a JSON string — warning: accepted by the provider (exchange 1); the "
        "arguments are not in the shape the format defines, and how the provider read them is unknown",
        "    a: client.har c1 exchange 0 turn 1 part 1 "
        "/log/entries/0/response/content/text#/choices/0/message/tool_calls/0/function/arguments",
        "    b: upstream.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#",
        'a TD203: arguments of \'get_weather\' are an object ({"city":"Bergen","unit":"celsius"}); '
        "openai-chat requires a JSON string — warning: accepted by the provider (exchange 1); the "
        "arguments are not in the shape the format defines, and how the provider read them is unknown",
        "    a: client.har c1 exchange 0 turn 1 part 2 "
        "/log/entries/0/response/content/text#/choices/0/message/tool_calls/1/function/arguments",
        "    b: upstream.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#",
        "note: call ids rewritten consistently between a's c1 and b's c1 (2): call_01010OSL → "
        "toolu_01010OSL, call_01011BER → toolu_01011BER; every result still answers its call",
        "note: the result of 'get_weather' (toolu_01011BER) 'Error: weather service tim…ut after 10 s': "
        "its failure flag is said in the text on the openai-chat side, which has no flag",
        "paired c1↔c1: exchanges 0↔0 1↔1; turns 0↔0 1↔1 2↔2 3↔3",
    )),
    "reindex-stream": ({"stream": True}, [200], (
        'a TD703: the call to \'get_weather\' (toolu_01011BER) \'{"city":"Bergen","unit":"celsius"}\' is '
        "in b's response but not in a's: the call is never made there — error: lost or changed on the way",
        "    a: client.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#/choices/0/message",
        "    b: upstream.har c1 exchange 0 turn 1 part 2 chunk 15 "
        "/log/entries/0/response/content/text#/content/2",
        "a TD704: the arguments of the call to 'get_weather' (call_01010OSL) / toolu_01010OSL differ: a "
        '\'{"city": "Oslo", "unit": "celsiu…unit": "celsius"}\', b \'{"city":"Oslo","unit":"celsius"}\' — '
        "error: lost or changed on the way",
        "    a: client.har c1 exchange 0 turn 1 part 1 chunk 9 "
        "/log/entries/0/response/content/text#/choices/0/message/tool_calls/0",
        "    b: upstream.har c1 exchange 0 turn 1 part 1 chunk 11 "
        "/log/entries/0/response/content/text#/content/1",
        "a TD501: tool call index 0 is reused by another call ('call_01011BER' after 'call_01010OSL'): "
        "its fragments merge into the first call, running the arguments together (parallel calls all sent "
        "at one index) — error: the data received is damaged, whatever the provider answered",
        "    a: client.har c1 exchange 0 turn 1 chunk 12 /log/entries/0/response/content/text#",
        "    b: upstream.har c1 exchange 0 turn 1 /log/entries/0/response/content/text#",
        "note: call ids rewritten consistently between a's c1 and b's c1 (1): call_01010OSL → "
        "toolu_01010OSL; every result still answers its call",
        "paired c1↔c1: exchanges 0↔0; turns 0↔0 1↔1",
    )),
}


def test_every_fault_is_in_the_matrix():
    assert set(FAULTS) <= set(MATRIX)


@pytest.mark.parametrize("fault", list(MATRIX), ids=lambda f: f or "no-fault")
def test_diff_names_the_relays_fault(tmp_path, fault):
    how, statuses, expected = MATRIX[fault]
    faults = {fault} if fault in FAULTS else set()
    client, upstream, seen = through_relay(tmp_path, faults, **how)
    assert seen == statuses
    a, b = load_file(client), load_file(upstream)
    assert a.errors == [] and b.errors == []
    assert lines(diff(a, b)) == list(expected)


def test_the_cli_on_a_relay_capture(tmp_path, capsys):
    client, upstream, _ = through_relay(tmp_path, {"drop-parallel-result"})
    code, out, err = run(capsys, "diff", str(client), str(upstream), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and err == ""
    [difference] = [f for f in doc["findings"] if f["code"].startswith("TD7")]
    assert difference["side"] == "b"
    assert difference["a"]["pointer"] == "/log/entries/1/request/postData/text#/messages/4"
    assert difference["b"]["pointer"] == "/log/entries/1/request/postData/text#/messages/2"
    assert "the result of 'get_weather' (call_01011BER) 'Error: weather service tim…ut after 10 s'" in \
        difference["message"]
    code, out, _ = run(capsys, "diff", str(client), str(client), "--format", "json")
    doc = json.loads(out)
    assert doc["differences"] == 0 and code == 1  # no difference; the client's own TD901 still fails it
    assert {f["code"] for f in doc["findings"]} == {"TD901"}
    assert [r["exchange"] for i in doc["inputs"] for r in i["rejections"]] == [1, 1]
