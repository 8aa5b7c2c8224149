"""OpenTelemetry traces (GenAI semantic conventions in their three forms, OpenInference with its raw
bodies read by the wire readers) and Inspect AI logs (raw model calls, or the sample's messages)."""

import json

import pytest

from tests import paths
from tests.logs.helpers import codes, tally
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Result

OTEL = paths.SAMPLES / "otel"
INSPECT = paths.SAMPLES / "inspect-ai"


def test_genai_spans_out_of_order_stitch_into_one_conversation():
    loaded = load_file(OTEL / "genai-spans.jsonl")
    assert loaded.errors == [] and loaded.container == "otlp" and loaded.lacks == ()
    [conv] = loaded.conversations
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool", "assistant"]
    assert conv.system[0].text == "You help travellers pack." and [t.name for t in conv.tools] == ["get_weather"]
    # the earlier span is on the file's second line: the conversation follows the spans' start times
    assert conv.turns[0].source.location.startswith("line 2/")
    assert tally(loaded) == (1, 1, 0) and codes(loaded) == []


def test_a_failed_execute_tool_span_marks_its_result_failed():
    lines = (OTEL / "genai-spans.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    tool = first["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    tool["status"] = {"code": "STATUS_CODE_ERROR", "message": "weather API returned 503"}
    loaded = load_bytes("trace.jsonl", (json.dumps(first) + "\n" + lines[1] + "\n").encode())
    [result] = [p for t in loaded.conversations[0].turns for p in t.parts if isinstance(p, Result)]
    assert result.is_error and result.meta == {"otlp": {"is_error_from": "tool span status ERROR"}}


def test_older_events_as_log_records_are_read_into_their_spans():
    loaded = load_file(OTEL / "genai-events.jsonl")
    assert loaded.errors == [] and loaded.lacks == ("tools",)
    [conv] = loaded.conversations
    assert conv.system[0].text == "You book flights."
    assert tally(loaded) == (1, 1, 0) and codes(loaded) == []


def test_flattened_traceloop_keys_point_at_their_attributes():
    loaded = load_file(OTEL / "traceloop-flattened.json")
    assert loaded.errors == [] and loaded.lacks == ("tools",)
    [conv] = loaded.conversations
    call = conv.turns[1].parts[0]
    assert call.name == "count_issues" and call.arguments == {"label": "bug"}
    assert call.source.pointer.startswith("/attributes/")
    assert tally(loaded) == (1, 1, 0) and codes(loaded) == []


def test_calls_without_ids_are_said_and_the_id_rules_not_run():
    span = {"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi",
            "gen_ai.prompt.1.role": "assistant", "gen_ai.prompt.1.tool_calls.0.name": "ping",
            "gen_ai.prompt.1.tool_calls.0.arguments": "{}",
            "gen_ai.prompt.2.role": "tool", "gen_ai.prompt.2.content": "pong"}
    loaded = load_bytes("span.json", json.dumps(span).encode())
    assert loaded.lacks == ("tools", "ids")
    assert codes(loaded) == []  # TD108 (a call without an id) needs ids the format does not carry


def test_a_bare_attribute_map_reads_as_a_span():
    loaded = load_file(OTEL / "span-attributes.json")
    assert loaded.errors == [] and loaded.container == "otlp"
    assert tally(loaded) == (1, 1, 0)


def test_openinference_input_value_is_read_by_the_wire_reader_and_the_failed_tool_span_flags_it():
    loaded = load_file(OTEL / "openinference-spans.jsonl")
    assert loaded.errors == [] and loaded.formats == ["openai-chat"]
    first = loaded.reads[0].exchange
    assert first.request.location.endswith("/value/stringValue") and first.request.body["model"] == "gpt-4o-mini"
    [result] = [p for t in loaded.conversations[0].turns for p in t.parts if isinstance(p, Result)]
    assert result.is_error  # the TOOL span of its call failed
    assert tally(loaded) == (1, 1, 1) and codes(loaded) == []


def test_inspect_json_reads_the_raw_calls_with_pooled_messages_and_attachments_put_back():
    loaded = load_file(INSPECT / "revenue-math.json")
    assert loaded.errors == [] and loaded.container == "inspect-ai" and loaded.formats == ["openai-chat"]
    second = loaded.reads[1].exchange.request
    assert second.location == "/samples/0/events/3/call/request"
    assert second.body["messages"][3]["content"].startswith("year,revenue")  # attachment:// resolved
    assert tally(loaded) == (2, 2, 0) and codes(loaded) == []


def test_an_eval_zip_without_calls_reads_the_samples_messages_and_their_tool_errors():
    loaded = load_file(INSPECT / "file-missing.eval")
    assert loaded.errors == [] and loaded.container == "inspect-ai"
    [conv] = loaded.conversations
    [result] = conv.turns[2].parts
    assert result.is_error and result.content[0].text == "File data/revenue.csv not found"
    assert [t.name for t in conv.tools] == ["read_file"]
    assert tally(loaded) == (1, 1, 1) and codes(loaded) == []


def test_logfire_keeps_the_older_events_as_one_json_attribute():
    events = [{"event.name": "gen_ai.user.message", "content": "Weather in Oslo?", "role": "user"},
              {"event.name": "gen_ai.choice", "index": 0, "message": {"role": "assistant", "tool_calls": [
                  {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": {"city": "Oslo"}}}]}}]
    span = {"traceId": "t1", "spanId": "s1", "name": "chat gpt-4o", "startTimeUnixNano": "1",
            "attributes": [{"key": "gen_ai.system", "value": {"stringValue": "openai"}},
                           {"key": "events", "value": {"stringValue": json.dumps(events)}}]}
    loaded = load_bytes("logfire.json", json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode())
    [conv] = loaded.conversations
    call = conv.turns[1].parts[0]
    assert (call.name, call.arguments, call.wire_id) == ("weather", {"city": "Oslo"}, "call_1")
    assert call.source.pointer == "/attributes/1/value/stringValue"


_MALFORMED = {  # an AnyValue's array or key-value list not shaped as OTLP's
    "array as a list": lambda v: {"arrayValue": ["x"]},
    "array values a number": lambda v: {"arrayValue": {"values": 5}},
    "kvlist as a list": lambda v: {"kvlistValue": ["x"]},
    "kvlist values a number": lambda v: {"kvlistValue": {"values": 3}},
    "kvlist key a list": lambda v: {"kvlistValue": {"values": [{"key": ["k"], "value": {"stringValue": "v"}}]}},
}


def _with_arrays(value, change):
    if isinstance(value, dict):
        if "arrayValue" in value:
            return change(value)
        return {k: _with_arrays(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_arrays(v, change) for v in value]
    return value


@pytest.mark.parametrize("change", _MALFORMED.values(), ids=_MALFORMED.keys())
def test_an_attribute_array_of_the_wrong_shape_is_read_as_it_stands(change):
    """Found by a type-swapping sweep of the samples: an `arrayValue` or `kvlistValue` not shaped
    as `{"values": [...]}` made the whole trace "could not be read" (a TypeError or AttributeError
    in tooldbg). The value is now taken as it stands: the trace reads, and the damage shows as
    findings (here the assistant's tool calls are gone: TD602, TD404, TD101)."""
    lines = [json.loads(line) for line in (OTEL / "genai-events.jsonl").read_text().splitlines()]
    data = "".join(json.dumps(_with_arrays(line, change)) + "\n" for line in lines).encode()
    loaded = load_bytes("events.jsonl", data)
    assert loaded.errors == [] and len(loaded.conversations) == 1
    assert {"TD602", "TD404", "TD101"} <= set(codes(loaded))


def test_a_key_value_list_keeps_a_key_that_is_not_a_string_as_json():
    from tooldbg.logs.spans import value

    listed = {"kvlistValue": {"values": [{"key": ["k"], "value": {"stringValue": "v"}},
                                         {"key": "n", "value": {"intValue": "7"}}]}}
    assert value(listed) == {'["k"]': "v", "n": 7}
    assert value({"arrayValue": ["x"]}) == ["x"] and value({"arrayValue": {}}) == []
