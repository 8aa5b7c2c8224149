"""TD5xx streams: each rule reports the problem the format's assembler recorded, at the chunk that
broke the assembly (and at the turn and call it broke, when that is certain); mended streams give
nothing; and the real-traffic shapes that look broken but are not — Groq's whole-call fragments,
OpenRouter's repeated finish chunks and comment lines, Mistral's index-less whole calls, Qwen's empty
continuation ids, OpenAI's obfuscation padding, a trimmed Responses capture — give no error.

The last part checks, format by format, that each situation the issue names (an `index` missing,
reused or skipped, fragments interleaved, an id repeated on every fragment, arguments that do not
assemble into JSON, no terminal event) is recorded with the right kind at the right chunk, once.
"""

import json

import pytest

from tests import paths
from tests.checks.helpers import run_rules
from tooldbg.checks import RULES, run_checks, select_rules
from tooldbg.checks.base import Finding
from tooldbg.checks.streams import Stream, glued, missing_from
from tooldbg.load import load_bytes, load_file

OPENAI = "https://api.openai.com/v1/chat/completions"
ANTHROPIC = "https://api.anthropic.com/v1/messages"


# ------------------------------------------------------------------------------------ builders


def sse(events, named=False, sep="\n\n"):
    out = []
    for e in events:
        if isinstance(e, str):
            out.append(e if e.startswith(":") else f"data: {e}{sep}")
        elif named:
            out.append(f"event: {e['type']}\ndata: {json.dumps(e)}{sep}")
        else:
            out.append(f"data: {json.dumps(e)}{sep}")
    return "".join(out)


def jsonl_lines(events):
    return "\n".join(json.dumps(e) for e in events) + "\n"


def chunk(delta=None, finish=None, **extra):
    return {"id": "chatcmpl-CAx9", "object": "chat.completion.chunk", "created": 1767607630,
            "model": "gpt-4.1-2025-04-14",
            "choices": [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}],
            **extra}


def frag(index=None, cid=None, name=None, args=None, **extra):
    out = {} if index is None else {"index": index}
    if cid is not None:
        out["id"] = cid
        out["type"] = "function"
    fn = {}
    if name is not None:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    if fn:
        out["function"] = fn
    return {**out, **extra}


def calls(*fragments):
    return chunk({"tool_calls": list(fragments)})


DONE = "[DONE]"
END = [chunk(finish="tool_calls"), DONE]


def chat_stream(*events):
    """A Chat Completions SSE capture on its own (the response side only)."""
    return sse(events).encode()


def recorded(url, request, stream_text):
    """One recorded exchange: the request and its streamed response (JSON document)."""
    return json.dumps({"request": {"method": "POST", "url": url, "body": request},
                       "response": {"status": 200, "headers": {"content-type": "text/event-stream"},
                                    "body": stream_text}}).encode()


def check(data, codes, name="capture.sse", target=None):
    loaded = load_bytes(name, data)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return run_rules(loaded, select_rules(codes), target)


def only(findings, code):
    found = [f for f in findings if f.code == code]
    assert len(found) == 1, [f"{f.code} {f.message}" for f in findings]
    return found[0]


def errors(findings):
    return [f"{f.code} {f.message}" for f in findings if f.severity == "error"]


# Anthropic events
def ev(kind, **fields):
    return {"type": kind, **fields}


MESSAGE_START = ev("message_start", message={
    "id": "msg_01Xq5bN8vKz2HcT7mRwY4pLs", "type": "message", "role": "assistant",
    "model": "claude-haiku-4-5-20251001", "content": [], "stop_reason": None, "stop_sequence": None,
    "usage": {"input_tokens": 612, "output_tokens": 1}})


def tool_start(index, tid="toolu_01NmR4kV7zQ2xP9sW3tB6yHc", name="get_weather"):
    return ev("content_block_start", index=index,
              content_block={"type": "tool_use", "id": tid, "name": name, "input": {}})


def input_delta(index, text):
    return ev("content_block_delta", index=index, delta={"type": "input_json_delta", "partial_json": text})


ANTHROPIC_END = [ev("message_delta", delta={"stop_reason": "tool_use", "stop_sequence": None},
                    usage={"output_tokens": 40}), ev("message_stop")]


# Bedrock events (boto3-style wrapped dicts, one per line)
def bedrock(*events):
    return jsonl_lines([{"messageStart": {"role": "assistant"}}, *events,
                        {"messageStop": {"stopReason": "tool_use"}},
                        {"metadata": {"usage": {"inputTokens": 425, "outputTokens": 45, "totalTokens": 470},
                                      "metrics": {"latencyMs": 499}}}]).encode()


def use_start(index, tid="tooluse_Qm3xV8rTzK1pWbN4aLcY2e"):
    return {"contentBlockStart": {"contentBlockIndex": index,
                                  "start": {"toolUse": {"toolUseId": tid, "name": "get_weather"}}}}


def use_delta(index, text):
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": {"toolUse": {"input": text}}}}


def use_stop(index):
    return {"contentBlockStop": {"contentBlockIndex": index}}


# Responses events (numbered as they are sent)
class Responses:
    def __init__(self):
        self.number = -1

    def __call__(self, kind, **fields):
        self.number += 1
        return {"type": kind, "sequence_number": self.number, **fields}


def fc_item(status="completed", args='{"city":"Oslo"}', call_id="call_Xk2", name="get_weather",
            item_id="fc_68e2b7c0a1f4"):
    return {"id": item_id, "type": "function_call", "status": status, "arguments": args,
            "call_id": call_id, "name": name}


def responses_stream(args_deltas=('{"city":', '"Oslo"}'), final='{"city":"Oslo"}', added=None,
                     done=None):
    r = Responses()
    base = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
    events = [r("response.created", response=base),
              r("response.output_item.added", output_index=0,
                item=added or fc_item("in_progress", "")),
              *[r("response.function_call_arguments.delta", item_id="fc_68e2b7c0a1f4", output_index=0,
                  delta=d) for d in args_deltas],
              r("response.function_call_arguments.done", item_id="fc_68e2b7c0a1f4", output_index=0,
                arguments=final),
              r("response.output_item.done", output_index=0, item=done or fc_item(args=final)),
              r("response.completed", response={**base, "status": "completed",
                                                "output": [done or fc_item(args=final)]})]
    return events


# Gemini chunks
def gemini_chunk(parts, finish=None):
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "r1"}


def gemini(*chunks):
    return sse(chunks, sep="\r\n\r\n").encode()


GOOD_CHAT = chat_stream(
    chunk({"role": "assistant", "content": None, "refusal": None}),
    calls(frag(0, "call_Vd8Kp2Xn6Tq1Rb4Yw9Mz3LcH", "get_weather", "")),
    calls(frag(0, args='{"city":')), calls(frag(0, args='"Oslo"}')),
    calls(frag(1, "call_Fs5Gj0Wa7Ne2Qk8Ux3Pv6ItB", "get_weather", "")),
    calls(frag(1, args='{"city":"Bergen"}')), *END)


# ----------------------------------------------------------------------------------- the rules


def test_rules_are_registered_with_their_severity():
    assert {c: RULES[c].severity for c in ("TD501", "TD502", "TD503", "TD504")} == dict.fromkeys(
        ("TD501", "TD502", "TD503", "TD504"), "error")


def test_a_clean_stream_gives_nothing():
    assert check(GOOD_CHAT, ["TD5"]) == []


class TestFragmentOrder:
    def test_index_missing_on_a_continuation_fragment(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", "")), calls(frag(args='{"city":"Oslo"}')),
                           *END)
        finding = only(check(data, ["TD501"]), "TD501")
        assert finding.chunk == 1 and finding.severity == "error"
        assert finding.conversation == "c1" and finding.turn == 0
        assert "neither an integer index nor an id" in finding.message

    def test_skipped_index_points_at_the_call_it_opened(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", '{"city":"Oslo"}')),
                           calls(frag(2, "call_B2", "get_weather", '{"city":"Bergen"}')), *END)
        finding = only(check(data, ["TD501"]), "TD501")
        assert (finding.turn, finding.part, finding.chunk) == (0, 1, 1)
        assert "index 2 follows index 0" in finding.message

    def test_interleaved_fragments(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", '{"city":')),
                           calls(frag(1, "call_B2", "get_weather", '{"city":"Bergen"}')),
                           calls(frag(0, args='"Oslo"}')), *END)
        finding = only(check(data, ["TD501"]), "TD501")
        assert finding.chunk == 2 and "interleaved" in finding.message

    def test_an_id_repeated_on_every_fragment_is_glued_by_the_sdk(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", "")),
                           calls(frag(0, "call_A1", "get_weather", '{"city":')),
                           calls(frag(0, "call_A1", "get_weather", '"Oslo"}')), *END)
        finding = only(check(data, ["TD5"]), "TD501")
        assert finding.chunk == 1 and finding.turn == 0
        assert "'call_A1call_A1'" in finding.message and "its name 'get_weather'" in finding.message

    def test_each_call_repeating_its_id_is_one_finding_at_its_first_repeat(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", "")),
                           calls(frag(0, "call_A1", args='{"city":')), calls(frag(0, "call_A1", args='"Oslo"}')),
                           calls(frag(1, "call_B2", "get_weather", "")),
                           calls(frag(1, args='{"city":')), calls(frag(1, name="get_weather", args='"Bergen"}')),
                           *END)
        findings = check(data, ["TD5"])
        assert [(f.code, f.chunk) for f in findings] == [("TD501", 1), ("TD501", 5)]
        assert "'call_A1call_A1'" in findings[0].message and "its name" not in findings[0].message
        assert "'get_weatherget_weather'" in findings[1].message and "its id" not in findings[1].message

    def test_parallel_calls_all_at_index_0_are_one_order_finding(self):
        # The arguments run together ({"a":1}{"b":2}) and the second id and name clash with the
        # first: consequences of the reused index, not findings of their own.
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", '{"city":"Oslo"}')),
                           calls(frag(0, "call_B2", "get_time", '{"tz":"CET"}')), *END)
        finding = only(check(data, ["TD"]), "TD501")
        assert finding.chunk == 1 and "index 0 is reused by another call" in finding.message

    def test_an_id_changing_mid_call_is_still_identity_not_reuse(self):
        # Poolside: another id continuing unfinished arguments, no name: the call changed its id.
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", '{"city":')),
                           calls(frag(0, "call_B2", args='"Oslo"}')), *END)
        assert only(check(data, ["TD5"]), "TD503").chunk == 1

    def test_anthropic_block_index_skipped_is_not_also_truncated(self):
        data = _anthropic(tool_start(0), input_delta(0, "{}"), ev("content_block_stop", index=0),
                          tool_start(2, "toolu_01B"), input_delta(2, "{}"), ev("content_block_stop", index=2))
        finding = only(check(data, ["TD5"]), "TD501")
        assert (finding.part, finding.chunk) == (1, 4) and "index 2, expected 1" in finding.message

    def test_anthropic_interleaved_blocks(self):
        data = _anthropic(tool_start(0), input_delta(0, '{"a"'), tool_start(1, "toolu_01B"),
                          input_delta(0, ":1}"), input_delta(1, "{}"), input_delta(0, ""),
                          ev("content_block_stop", index=0), ev("content_block_stop", index=1))
        finding = only(check(data, ["TD5"]), "TD501")
        assert finding.chunk == 4 and "interleaved" in finding.message

    def test_responses_output_index_skipped(self):
        finding = only(check(_responses_two_outputs(0, 2), ["TD5"]), "TD501")
        assert (finding.part, finding.chunk) == (1, 3) and "output_index 2 after output 0" in finding.message

    def test_responses_interleaved_outputs(self):
        finding = only(check(_responses_interleaved(), ["TD5"]), "TD501")
        assert finding.chunk == 4 and "interleaved" in finding.message

    def test_bedrock_one_skipped_index_is_one_finding(self):
        data = bedrock(use_start(0), use_delta(0, "{}"), use_stop(0),
                       use_start(2, "tooluse_B"), use_delta(2, "{}"), use_stop(2),
                       use_start(3, "tooluse_C"), use_delta(3, "{}"), use_stop(3))
        finding = only(check(data, ["TD5"], "stream.jsonl"), "TD501")
        assert (finding.part, finding.chunk) == (1, 4)

    def test_bedrock_index_reused_is_one_finding(self):
        data = bedrock(use_start(0), use_delta(0, "{}"), use_stop(0),
                       use_start(0, "tooluse_B"), use_delta(0, "{}"), use_stop(0))
        finding = only(check(data, ["TD5"], "stream.jsonl"), "TD501")
        assert (finding.part, finding.chunk) == (1, 4) and "reused" in finding.message

    def test_a_recorded_exchange_points_into_its_body(self):
        request = {"model": "gpt-4.1", "stream": True, "messages": [{"role": "user", "content": "Oslo?"}]}
        text = sse([calls(frag(0, "call_A1", "get_weather", '{"city":"Oslo"}')),
                    calls(frag(2, "call_B2", "get_weather", "{}")), *END])
        finding = only(check(recorded(OPENAI, request, text), ["TD501"], "run.json"), "TD501")
        assert finding.pointer == "/response/body#" and finding.exchange == 0
        assert (finding.turn, finding.part, finding.chunk) == (1, 1, 1)

    def test_anthropic_delta_without_an_index(self):
        data = sse([MESSAGE_START, tool_start(0),
                    ev("content_block_delta", delta={"type": "input_json_delta", "partial_json": "{}"}),
                    ev("content_block_stop", index=0), *ANTHROPIC_END], named=True).encode()
        finding = only(check(data, ["TD501"]), "TD501")
        assert finding.chunk == 2

    def test_bedrock_block_index_skipped(self):
        data = bedrock(use_start(0), use_delta(0, "{}"), use_stop(0),
                       use_start(2, "tooluse_Hf7sD2jUqE9nR5vXoP0tGi"), use_delta(2, "{}"), use_stop(2))
        finding = only(check(data, ["TD5"], "stream.jsonl"), "TD501")
        assert (finding.part, finding.chunk) == (1, 4) and "block 2 opened, expected block 1" in finding.message

    def test_responses_events_reordered(self):
        events = responses_stream(args_deltas=('{"city":', '"Oslo"}'))
        events[2], events[3] = events[3], events[2]  # a relay swapped two deltas
        findings = check(sse(events, named=True).encode(), ["TD5"])
        assert findings and all(f.severity == "error" and f.code == "TD501" for f in findings)
        # the swap once, where the order goes back (no "events missing" at the jump before it),
        # and the arguments it scrambled, where .done says what they should have been
        assert [(f.chunk, "repeated or reordered" in f.message) for f in findings] == [(3, True), (4, False)]
        assert "add up to" in findings[1].message

    def test_responses_deltas_renumbered_in_the_wrong_order(self):
        events = responses_stream(args_deltas=('"Oslo"}', '{"city":'))
        finding = only(check(sse(events, named=True).encode(), ["TD501"]), "TD501")
        assert finding.chunk == 4 and "add up to" in finding.message


class TestTrimmedCapture:
    """Sequence numbers that only skip forward: events are missing from the capture, not reordered."""

    def test_a_gap_is_one_info_note_not_an_error(self):
        events = responses_stream(args_deltas=('{"city":', '"Os', 'lo"}'))
        del events[3]  # the recorder kept the first and last delta only
        finding = only(check(sse(events, named=True).encode(), ["TD5"]), "TD501")
        assert finding.severity == "info" and finding.chunk == 3
        assert "lacks 1 events" in finding.message

    def test_missing_from_needs_only_forward_skips(self):
        loaded = load_bytes("c.sse", sse(responses_stream(), named=True).encode())
        read = loaded.reads[0]
        events = read.exchange.response.events

        def missing(kept):
            return missing_from(Stream(read, read.streams[0], kept))

        assert missing(events) is None
        assert missing(events[:2] + events[3:]) == (3, 1)
        assert missing([events[0], events[2], events[1]]) is None  # reordered: the stream's fault

    @pytest.mark.needs_corpus
    def test_the_trimmed_vercel_fixture(self):
        path = paths.CORPUS / "vercel-ai-fixtures" / "openai" / "openai-phase.1.chunks.txt"
        findings = run_checks(load_file(path), select_rules(["TD5"]))
        assert errors(findings) == []
        assert [(f.code, f.severity, f.chunk) for f in findings] == [("TD501", "info", 6)]


class TestArguments:
    def test_invalid_json_at_the_last_fragment(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", '{"city":')),
                           calls(frag(0, args='"Oslo"')), *END)
        finding = only(check(data, ["TD5"]), "TD502")
        assert (finding.turn, finding.part, finding.chunk) == (0, 0, 1)
        assert "not valid JSON" in finding.message

    def test_two_calls_glued_under_one_index(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", '{"city":"Oslo"}')),
                           calls(frag(0, args='{"city":"Bergen"}')), *END)
        finding = only(check(data, ["TD5"]), "TD502")
        assert "2 JSON values back to back" in finding.message

    def test_anthropic_points_at_the_first_input_delta(self):
        data = sse([MESSAGE_START, tool_start(0), input_delta(0, ""), input_delta(0, '{"city": "Os'),
                    input_delta(0, '{"city": "Os'), input_delta(0, 'lo"}'), ev("content_block_stop", index=0),
                    *ANTHROPIC_END], named=True).encode()
        finding = only(check(data, ["TD5"]), "TD502")
        assert (finding.part, finding.chunk) == (0, 2)

    def test_bedrock_string_fragments(self):
        data = bedrock(use_start(0), use_delta(0, '{"city": '), use_delta(0, '"Oslo"'), use_stop(0))
        finding = only(check(data, ["TD5"], "stream.jsonl"), "TD502")
        assert (finding.part, finding.chunk) == (0, 3)

    def test_gemini_unreadable_partial_args(self):
        data = gemini(gemini_chunk([{"functionCall": {"name": "get_weather", "willContinue": True}}]),
                      gemini_chunk([{"functionCall": {"partialArgs": [{"jsonPath": "city",
                                                                        "stringValue": "Oslo"}],
                                                      "willContinue": True}}]),
                      gemini_chunk([{"functionCall": {}}]), gemini_chunk([{"text": ""}], "STOP"))
        finding = only(check(data, ["TD5"]), "TD502")
        assert finding.chunk == 1

    def test_a_truncated_stream_is_td504_only(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", '{"city":')))
        assert [f.code for f in check(data, ["TD5"])] == ["TD504"]

    def test_an_argument_less_call_is_not_a_broken_assembly(self):
        data = chat_stream(calls(frag(0, "call_A1", "list_cities", "")), *END)
        assert check(data, ["TD5"]) == []

    def test_glued(self):
        assert glued('{"a":1}{"b":2}') == 2
        assert glued('{"a":1} "x"') == 2
        assert glued('{"a":1}') == 1
        assert glued('{"a":') == 0 and glued("") == 0


class TestIdentity:
    def test_no_id(self):
        data = chat_stream(calls(frag(0, name="get_weather", args='{"city":"Oslo"}', type="function")), *END)
        finding = only(check(data, ["TD5"]), "TD503")
        assert (finding.turn, finding.part, finding.chunk) == (0, 0, 0) and "has no id" in finding.message

    def test_no_name(self):
        data = chat_stream(calls(frag(0, "call_A1", args='{"city":"Oslo"}')), *END)
        assert "has no function name" in only(check(data, ["TD5"]), "TD503").message

    def test_id_changes_mid_call(self):
        data = chat_stream(calls(frag(0, "call_A1", "get_weather", "")),
                           calls(frag(0, "call_B2", args='{"city":"Oslo"}')), *END)
        finding = only(check(data, ["TD5"]), "TD503")
        assert finding.chunk == 1 and "changes id from 'call_A1' to 'call_B2'" in finding.message

    def test_gemini_fragments_with_no_call_open(self):
        data = gemini(gemini_chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.city",
                                                                         "stringValue": "Oslo"}],
                                                      "willContinue": True}}]),
                      gemini_chunk([{"functionCall": {}}]), gemini_chunk([{"text": ""}], "STOP"))
        finding = only(check(data, ["TD5"]), "TD503")
        assert (finding.part, finding.chunk) == (0, 0)

    def test_responses_call_without_call_id(self):
        events = responses_stream(added=fc_item("in_progress", "", call_id=""), done=fc_item(call_id=""))
        finding = only(check(sse(events, named=True).encode(), ["TD503"]), "TD503")
        assert (finding.part, finding.chunk) == (0, 1) and "no call_id" in finding.message

    def test_responses_item_finalized_at_done_is_not_a_finding(self):
        # a provisional call_id at .added, the final one at .done and in response.completed
        events = responses_stream(added=fc_item("in_progress", "", call_id="call_provisional"))
        assert check(sse(events, named=True).encode(), ["TD5"]) == []

    @pytest.mark.needs_corpus
    def test_the_tool_search_call_openai_renews_at_done(self):
        path = paths.CORPUS / "vercel-ai-fixtures" / "openai" / "openai-client-tool-search.1.chunks.txt"
        assert run_checks(load_file(path), select_rules(["TD5"])) == []


class TestTruncated:
    def test_anthropic_cut_mid_input(self):
        data = sse([MESSAGE_START, tool_start(0), input_delta(0, '{"city": "Os')], named=True).encode()
        findings = check(data, ["TD5"])
        assert {f.code for f in findings} == {"TD504"}
        assert [f.chunk for f in findings] == [1, 2]


# ------------------------------------------------------------------ real traffic must not light up


@pytest.mark.parametrize("stream", [
    # Groq: the whole call in one fragment, `index` after `function`, then a usage-only chunk
    pytest.param(chat_stream(
        chunk({"role": "assistant", "content": None}),
        calls({"id": "mcf2d8nn1", "type": "function",
               "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}, "index": 0}),
        chunk(finish="tool_calls", x_groq={"id": "req_01k"}),
        {**chunk(), "choices": [], "usage": {"prompt_tokens": 240, "completion_tokens": 18}}, DONE),
        id="groq-whole-call"),
    # OpenRouter: comment lines, `role` on every delta, two empty fragments, the finish chunk twice
    pytest.param((": OPENROUTER PROCESSING\n\n" + sse([
        chunk({"role": "assistant", "content": "",
               "tool_calls": [frag(0, "call_HLcM", "get_weather", "")]}),
        chunk({"role": "assistant", "content": "", "tool_calls": [frag(0, args="")]}),
        chunk({"role": "assistant", "content": "", "tool_calls": [frag(0, args='{"city":')]}),
    ]) + ": OPENROUTER PROCESSING\n\n" + sse([
        chunk({"role": "assistant", "content": "", "tool_calls": [frag(0, args='"Paris"}')]}),
        chunk({"role": "assistant", "content": ""}, "tool_calls", native_finish_reason="tool_calls"),
        chunk({"role": "assistant", "content": ""}, "tool_calls", native_finish_reason="tool_calls",
              usage={"prompt_tokens": 61, "completion_tokens": 15, "cost": 0.0000181}),
        DONE])).encode(), id="openrouter-duplicate-finish-and-comments"),
    # Mistral: whole calls without `index`, placed by their ids; finish and usage in the same chunk
    pytest.param(chat_stream(
        chunk({"role": "assistant", "content": ""}),
        chunk({"tool_calls": [{"id": "gSIMJiOkT", "function": {"name": "weather",
                                                              "arguments": '{"location": "Oslo"}'}},
                              {"id": "Kq3bX8wLm", "function": {"name": "weather",
                                                              "arguments": '{"location": "Bergen"}'}}]},
              "tool_calls", usage={"prompt_tokens": 88, "completion_tokens": 40}), DONE),
        id="mistral-no-index"),
    # Mistral-format stream: the arguments chunk carries "name": ""
    pytest.param(chat_stream(
        calls(frag(0, "chatcmpl-tool-9f14", "webSearchTool", "")),
        calls(frag(0, name="", args='{"query":"tooldbg"}')), *END), id="empty-name-continuation"),
    # Qwen: continuation fragments repeat the call with "id": "" and "type": "function"
    pytest.param(chat_stream(
        calls(frag(0, "call_eee11723464a4b9eb8cee71d", "weather", "")),
        calls({"index": 0, "id": "", "type": "function", "function": {"arguments": '{"location":'}}),
        calls({"index": 0, "id": "", "type": "function", "function": {"arguments": ""}}),
        calls({"index": 0, "id": "", "type": "function", "function": {"arguments": ' "Oslo"}'}}), *END),
        id="qwen-empty-continuation-ids"),
    # OpenAI: obfuscation padding on every chunk, a forced call finishing with "stop"
    pytest.param(chat_stream(
        chunk({"role": "assistant", "content": None, "tool_calls": [frag(0, "call_FmHT", "get_weather", "")]},
              obfuscation="Xb2"),
        chunk({"tool_calls": [frag(0, args='{"city":"Paris"}')]}, obfuscation="k9QmT"),
        chunk(finish="stop", obfuscation="p1"), DONE), id="openai-obfuscation-forced-stop"),
])
def test_real_stream_shapes_give_no_error(stream):
    assert errors(check(stream, ["TD5"])) == []


CORPUS_STREAMS = paths.corpus_files()


#: The corpus streams that are broken: the relay behind vercel/ai's fixture passes on Anthropic's
#: content-block index, so its first call arrives at index 1 (openai-python splits it in two).
BROKEN_STREAMS = {"vercel-ai-fixtures/openai-compatible/anthropic-fallback-tool-call.sse": ["TD501@3"]}


@pytest.mark.parametrize("path", paths.corpus_params(CORPUS_STREAMS), ids=paths.corpus_name)
def test_corpus_has_no_stream_error(path):
    found = [f"{f.code}@{f.chunk}" for f in run_checks(load_file(path), select_rules(["TD5"]))
             if f.severity == "error"]
    assert found == BROKEN_STREAMS.get(paths.corpus_name(path), [])


# ------------------------------------------------- what each format's assembler records, and where

ORDER, ARGS, IDENTITY, TRUNCATED = "TD501", "TD502", "TD503", "TD504"
_base = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}


def _responses(*events):
    return sse(events, named=True).encode()


def _responses_two_outputs(first, second):
    r = Responses()
    return _responses(
        r("response.created", response=_base),
        r("response.output_item.added", output_index=first, item=fc_item("in_progress", "")),
        r("response.output_item.done", output_index=first, item=fc_item()),
        r("response.output_item.added", output_index=second,
          item=fc_item("in_progress", "", call_id="call_Y", item_id="fc_2")),
        r("response.output_item.done", output_index=second, item=fc_item(call_id="call_Y", item_id="fc_2")),
        r("response.completed", response={**_base, "status": "completed",
                                          "output": [fc_item(), fc_item(call_id="call_Y", item_id="fc_2")]}))


def _responses_without_output_index():
    r = Responses()
    return _responses(
        r("response.created", response=_base),
        r("response.output_item.added", output_index=0, item=fc_item("in_progress", "")),
        r("response.function_call_arguments.delta", item_id="fc_68e2b7c0a1f4", delta="{}"),
        r("response.output_item.done", output_index=0, item=fc_item(args="{}")),
        r("response.completed", response={**_base, "status": "completed", "output": [fc_item(args="{}")]}))


def _responses_interleaved():
    r = Responses()
    return _responses(
        r("response.created", response=_base),
        r("response.output_item.added", output_index=0, item=fc_item("in_progress", "")),
        r("response.function_call_arguments.delta", item_id="fc_68e2b7c0a1f4", output_index=0, delta='{"city":'),
        r("response.output_item.added", output_index=1,
          item=fc_item("in_progress", "", call_id="call_Y", item_id="fc_2")),
        r("response.function_call_arguments.delta", item_id="fc_68e2b7c0a1f4", output_index=0, delta='"Oslo"}'),
        r("response.output_item.done", output_index=0, item=fc_item()),
        r("response.output_item.done", output_index=1, item=fc_item(args="{}", call_id="call_Y", item_id="fc_2")),
        r("response.completed", response={**_base, "status": "completed",
                                          "output": [fc_item(), fc_item(args="{}", call_id="call_Y", item_id="fc_2")]}))


def _anthropic(*events, end=True):
    return sse([MESSAGE_START, *events, *(ANTHROPIC_END if end else ())], named=True).encode()


def _responses_call_at(index, after_text=False):
    """A Responses stream whose function call is output `index`, after an assistant message at 0 or
    with nothing before it."""
    r = Responses()
    text = {"id": "msg_68e2b7c0a1f3", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]}
    created = r("response.created", response=_base)
    opening = [r("response.output_item.added", output_index=0, item={**text, "status": "in_progress",
                                                                     "content": []}),
               r("response.output_item.done", output_index=0, item=text)] if after_text else []
    return _responses(
        created, *opening,
        r("response.output_item.added", output_index=index, item=fc_item("in_progress", "")),
        r("response.output_item.done", output_index=index, item=fc_item()),
        r("response.completed", response={**_base, "status": "completed",
                                          "output": [*([text] if after_text else []), fc_item()]}))


def _anthropic_text(text="Checking."):
    return [ev("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            ev("content_block_delta", index=0, delta={"type": "text_delta", "text": text}),
            ev("content_block_stop", index=0)]


def _bedrock_text(text="Checking."):
    return [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": text}}},
            {"contentBlockStop": {"contentBlockIndex": 0}}]


SITUATIONS = [
    # (format, situation, capture, expected code, expected chunk)
    ("openai-chat", "index missing", chat_stream(
        calls(frag(0, "call_A1", "f", "")), calls(frag(args="{}")), *END), ORDER, 1),
    ("openai-chat", "index reused by a second call", chat_stream(
        calls(frag(0, "call_A1", "f", '{"a":1}')), calls(frag(0, "call_B2", "g", '{"b":2}')), *END), ORDER, 1),
    ("openai-chat", "index not contiguous", chat_stream(
        calls(frag(0, "call_A1", "f", "{}")), calls(frag(3, "call_B2", "g", "{}")), *END), ORDER, 1),
    ("openai-chat", "fragments interleaved", chat_stream(
        calls(frag(0, "call_A1", "f", '{"a"')), calls(frag(1, "call_B2", "g", "{}")),
        calls(frag(0, args=":1}")), *END), ORDER, 2),
    ("openai-chat", "id repeated on every fragment", chat_stream(
        calls(frag(0, "call_A1", "f", "")), calls(frag(0, "call_A1", args="{}")), *END), ORDER, 1),
    ("openai-chat", "first call not at index 0 (a relay passing on Anthropic's block index)", chat_stream(
        chunk({"role": "assistant", "content": "Reading it."}),
        calls(frag(1, "toolu_01", "read_file", "")), calls(frag(1, args='{"path":"a.txt"}')), *END), ORDER, 1),
    ("openai-chat", "arguments not JSON", chat_stream(
        calls(frag(0, "call_A1", "f", '{"a":')), *END), ARGS, 0),
    ("openai-chat", "no terminal event", chat_stream(calls(frag(0, "call_A1", "f", "{}"))), TRUNCATED, 0),
    ("anthropic", "index missing", _anthropic(
        tool_start(0), ev("content_block_delta", delta={"type": "input_json_delta", "partial_json": "{}"}),
        ev("content_block_stop", index=0)), ORDER, 2),
    ("anthropic", "index reused", _anthropic(
        tool_start(0), input_delta(0, "{}"), ev("content_block_stop", index=0),
        tool_start(0, "toolu_01B"), input_delta(0, "{}"), ev("content_block_stop", index=0)), ORDER, 4),
    ("anthropic", "index not contiguous", _anthropic(
        tool_start(0), input_delta(0, "{}"), ev("content_block_stop", index=0),
        tool_start(2, "toolu_01B"), input_delta(2, "{}"), ev("content_block_stop", index=2)), ORDER, 4),
    ("anthropic", "fragments interleaved", _anthropic(
        tool_start(0), input_delta(0, '{"a"'), tool_start(1, "toolu_01B"), input_delta(0, ":1}"),
        input_delta(1, "{}"), ev("content_block_stop", index=0), ev("content_block_stop", index=1)), ORDER, 4),
    ("anthropic", "first block not at index 0", _anthropic(
        tool_start(1), input_delta(1, "{}"), ev("content_block_stop", index=1)), ORDER, 1),
    ("anthropic", "arguments not JSON", _anthropic(
        tool_start(0), input_delta(0, '{"a":'), ev("content_block_stop", index=0)), ARGS, 2),
    ("anthropic", "no terminal event", _anthropic(tool_start(0), input_delta(0, "{}"), end=False), TRUNCATED, 1),
    ("bedrock", "index missing", bedrock(
        use_start(0), {"contentBlockDelta": {"delta": {"toolUse": {"input": "{}"}}}}, use_stop(0)), ORDER, 2),
    ("bedrock", "index reused", bedrock(
        use_start(0), use_delta(0, "{}"), use_stop(0), use_start(0, "tooluse_B"), use_delta(0, "{}"),
        use_stop(0)), ORDER, 4),
    ("bedrock", "index not contiguous", bedrock(
        use_start(0), use_delta(0, "{}"), use_stop(0), use_start(2, "tooluse_B"), use_delta(2, "{}"),
        use_stop(2)), ORDER, 4),
    ("bedrock", "fragments interleaved", bedrock(
        use_start(0), use_delta(0, '{"a"'), use_start(1, "tooluse_B"), use_delta(0, ":1}"), use_delta(1, "{}"),
        use_stop(0), use_stop(1)), ORDER, 3),
    ("bedrock", "first block not at index 0", bedrock(use_start(1), use_delta(1, "{}"), use_stop(1)), ORDER, 1),
    ("bedrock", "arguments not JSON", bedrock(use_start(0), use_delta(0, '{"a":'), use_stop(0)), ARGS, 2),
    ("bedrock", "no terminal event", jsonl_lines([{"messageStart": {"role": "assistant"}}, use_start(0),
                                                  use_delta(0, "{}")]).encode(), TRUNCATED, 2),
    ("openai-responses", "index missing", _responses_without_output_index(), ORDER, 2),
    ("openai-responses", "index reused", _responses_two_outputs(0, 0), ORDER, 3),
    ("openai-responses", "index not contiguous", _responses_two_outputs(0, 2), ORDER, 3),
    ("openai-responses", "fragments interleaved", _responses_interleaved(), ORDER, 4),
    ("openai-responses", "first output not at index 0", _responses_call_at(1), ORDER, 1),
    ("openai-responses", "arguments not JSON", _responses(*responses_stream(
        args_deltas=('{"a":',), final='{"a":')), ARGS, 1),
    ("openai-responses", "no terminal event", _responses(*responses_stream()[:4]), TRUNCATED, 3),
    ("gemini", "call opened twice", gemini(
        gemini_chunk([{"functionCall": {"name": "f", "willContinue": True}}]),
        gemini_chunk([{"functionCall": {"name": "g", "willContinue": True}}]),
        gemini_chunk([{"functionCall": {}}], "STOP")), ORDER, 1),
    ("gemini", "arguments not JSON", gemini(
        gemini_chunk([{"functionCall": {"name": "f", "willContinue": True}}]),
        gemini_chunk([{"functionCall": {"partialArgs": [{"jsonPath": "nope", "stringValue": "x"}],
                                        "willContinue": True}}]),
        gemini_chunk([{"functionCall": {}}], "STOP")), ARGS, 1),
    ("gemini", "no terminal event", gemini(gemini_chunk([{"functionCall": {"name": "f", "args": {}}}])),
     TRUNCATED, 0),
]


@pytest.mark.parametrize(("fmt", "situation", "capture", "code", "chunk"), SITUATIONS,
                         ids=[f"{s[0]}-{s[1]}" for s in SITUATIONS])
def test_each_assembler_records_the_situation(fmt, situation, capture, code, chunk):
    name = "capture.jsonl" if fmt == "bedrock" else "capture.sse"
    loaded = load_bytes(name, capture)
    assert loaded.formats == [fmt]
    findings = run_checks(loaded, select_rules(["TD5"]))
    shown = [f"{f.code}@{f.chunk} {f.message}" for f in findings]
    assert (code, chunk) in {(f.code, f.chunk) for f in findings}, shown
    assert {f.code for f in findings} == {code}, shown  # no consequence reported under another code


@pytest.mark.parametrize(("fmt", "capture"), [
    ("openai-chat", chat_stream(chunk({"role": "assistant", "content": "Reading it."}),
                                calls(frag(0, "call_A1", "read_file", '{"path":"a.txt"}')), *END)),
    ("anthropic", _anthropic(*_anthropic_text(), tool_start(1), input_delta(1, "{}"),
                             ev("content_block_stop", index=1))),
    ("bedrock", bedrock(*_bedrock_text(), use_start(1), use_delta(1, "{}"), use_stop(1))),
    ("openai-responses", _responses_call_at(1, after_text=True)),
], ids=["openai-chat", "anthropic", "bedrock", "openai-responses"])
def test_a_call_after_a_text_block_takes_the_next_index(fmt, capture):
    """Anthropic, Bedrock and Responses number text and calls together, so a call after the text is
    1 there; Chat Completions numbers the calls alone, from 0."""
    loaded = load_bytes("capture.jsonl" if fmt == "bedrock" else "capture.sse", capture)
    assert loaded.formats == [fmt]
    assert run_rules(loaded, select_rules(["TD5"])) == []
    [turn] = loaded.conversations[0].turns
    assert [p.type for p in turn.parts] == ["text", "invocation"]


def test_findings_that_differ_only_in_their_chunk_come_in_chunk_order():
    """Two findings of one stream at one place, carried by different events (or one by none): one
    order, whatever order they were found in — the event-less one first."""
    def at(chunk):
        return Finding("TD501", "stream-fragment-order", "error", "fragments out of order", "s.sse",
                       exchange=0, conversation="c1", turn=1, part=0, pointer="#/content/0", chunk=chunk)

    found = [at(7), at(None), at(2)]
    assert [f.chunk for f in sorted(found, key=Finding.sort_key)] == [None, 2, 7]
