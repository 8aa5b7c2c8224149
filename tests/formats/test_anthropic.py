"""The Anthropic Messages format: reading bodies and streams, writing requests, and the real traffic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import paths
from tests.strategies import assert_losses_explain, conversations
from tooldbg.errors import FormatError
from tooldbg.formats import anthropic
from tooldbg.formats.base import ApiError, Request, StreamEvent, StreamProblem
from tooldbg.formats.reading import link
from tooldbg.jsonio import loads
from tooldbg.load import load_file
from tooldbg.model import (
    Conversation,
    Invocation,
    Json,
    Loss,
    Media,
    Opaque,
    Reasoning,
    Result,
    Settings,
    Text,
    Tool,
    ToolChoice,
    Turn,
    conversation_to_dict,
    turn_to_dict,
)
from tooldbg.records import sse
from tooldbg.secrets import redact_text
from tooldbg.source import Source

CORPUS = paths.CORPUS
SAMPLES = Path(__file__).resolve().parents[2] / "sample_transcripts" / "anthropic"
A = "anthropic"
#: Anthropic requires max_tokens: conversations written here set it, so a default is no loss of theirs.
MAX_TOKENS = Settings(max_tokens=1024)
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
PNG = "iVBORw0KGgo="


def as_conversation(request: Request) -> Conversation:
    return Conversation(model=request.model, system=request.system, tools=request.tools,
                        tool_choice=request.tool_choice, turns=request.turns, meta=request.meta,
                        settings=request.settings)


def canonical(request: Request) -> dict[str, Any]:
    return conversation_to_dict(as_conversation(request), sources=False)


def turns(request: Request) -> list[dict[str, Any]]:
    return [turn_to_dict(t, sources=False) for t in request.turns]


def lines(text: str) -> list[StreamEvent]:
    """One JSON event per line, as vercel/ai fixtures store streams."""
    rows = [row for row in text.splitlines() if row.strip()]
    return [StreamEvent(index=i, data=loads(row)) for i, row in enumerate(rows)]


def sse_text(*events: dict[str, Any], pad: int = 0) -> str:
    """A raw SSE capture; `pad` spaces before each payload's closing brace, as Anthropic sends."""
    def frame(event: dict[str, Any]) -> str:
        payload = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        return f"event: {event['type']}\ndata: {payload[:-1]}{' ' * pad}}}\n\n"
    return "".join(map(frame, events))


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def call(i: int, name: str, arguments: Any, wire_id: str | None) -> dict[str, Any]:
    out = {"type": "invocation", "id": f"i{i}", "name": name, "arguments": arguments}
    if wire_id is not None:
        out["wire_id"] = wire_id
    return out


def result(i: int | None, wire_id: str | None, content: list[Any], is_error: bool = False,
           name: str | None = None) -> dict[str, Any]:
    """A result as read: a bound one carries its call's `name` (see `link`)."""
    out: dict[str, Any] = {"type": "result", "invocation_id": None if i is None else f"i{i}",
                           "is_error": is_error}
    if name is not None:
        out["name"] = name
    if content:
        out["content"] = content
    if wire_id is not None:
        out["wire_id"] = wire_id
    return out


# ------------------------------------------------------------------------------ reading requests

ROUND_TRIP = {  # text beside two parallel calls (one failing), text after the results, an image, thinking
    "model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Be terse.",
    "tools": [{"name": "get_weather", "description": "Current weather", "input_schema": SCHEMA}],
    "tool_choice": {"type": "auto"},
    "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "Weather in Paris and Rome?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Two cities, two calls.", "signature": "EqQBCkYI"},
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Rome"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "{\"temp_c\":22}"},
            {"type": "tool_result", "tool_use_id": "toolu_01B",
             "content": [{"type": "text", "text": "upstream timeout"}], "is_error": True},
            {"type": "text", "text": "Answer in Celsius."}]}]}


def test_request_with_text_beside_parallel_calls_a_failure_an_image_and_thinking():
    request = anthropic.read_request(ROUND_TRIP)
    assert canonical(request) == {
        "id": "c1", "model": "claude-sonnet-4-5",
        "system": [text_part("Be terse.")],
        "tools": [{"name": "get_weather", "description": "Current weather", "parameters": SCHEMA}],
        "tool_choice": {"mode": "auto"},
        "turns": [
            {"role": "user", "parts": [text_part("Weather in Paris and Rome?"),
                                       {"type": "media", "kind": "image", "media_type": "image/png",
                                        "data": PNG}]},
            {"role": "assistant", "parts": [
                {"type": "reasoning", "text": "Two cities, two calls.", "signature": "EqQBCkYI",
                 "origin": A},
                text_part("Checking both."),
                call(1, "get_weather", {"city": "Paris"}, "toolu_01A"),
                call(2, "get_weather", {"city": "Rome"}, "toolu_01B")]},
            {"role": "tool", "parts": [
                result(1, "toolu_01A", [text_part('{"temp_c":22}')], name="get_weather"),
                result(2, "toolu_01B", [text_part("upstream timeout")], is_error=True,
                       name="get_weather")]},
            {"role": "user", "parts": [text_part("Answer in Celsius.")]}],
        "settings": {"max_tokens": 1024}}
    assert request.stream is False


def test_sources_point_at_the_exact_json_location():
    body = Source(file="run.har", exchange=1, side="request",
                  location="/log/entries/1/request/postData/text")
    request = anthropic.read_request(ROUND_TRIP, body)
    assert request.system[0].source.pointer == "/system"
    assert request.tools[0].source.pointer == "/tools/0"
    tool_turn, user_turn = request.turns[2], request.turns[3]
    assert (tool_turn.source.pointer, user_turn.source.pointer) == ("/messages/2", "/messages/2")
    failed = tool_turn.parts[1]
    assert failed.source.pointer == "/messages/2/content/1"
    assert failed.content[0].source.pointer == "/messages/2/content/1/content/0"
    assert tool_turn.parts[0].content[0].source.pointer == "/messages/2/content/0/content"
    assert user_turn.parts[0].source.pointer == "/messages/2/content/2"
    assert failed.source.address == "/log/entries/1/request/postData/text#/messages/2/content/1"
    assert failed.source.file == "run.har" and failed.source.exchange == 1


def test_content_variants_unknown_keys_and_meta():
    request = anthropic.read_request({
        "model": "claude-haiku-4-5", "max_tokens": 64, "temperature": 0, "top_p": None,
        "x_gateway": {"trace": "abc"},
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "plain string", "x_unknown": 1},
            {"role": "assistant", "content": None},
            {"role": "assistant", "content": []},
            {"role": "user", "content": [
                {"type": "text", "text": "cited", "citations": None, "x_extra": True},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                {"type": "document", "title": "Spec", "source": {"type": "base64",
                                                                  "media_type": "application/pdf",
                                                                  "data": "JVBERi0="}},
                {"type": "image", "source": {"type": "file", "file_id": "file_011"}}]}]})
    assert canonical(request) == {
        "id": "c1", "model": "claude-haiku-4-5",
        "system": [{**text_part("Be brief."), "meta": {A: {"cache_control": {"type": "ephemeral"}}}}],
        "tools": [],
        "turns": [
            {"role": "user", "parts": [text_part("plain string")]},
            {"role": "assistant", "parts": []},
            {"role": "assistant", "parts": []},
            {"role": "user", "parts": [
                {**text_part("cited"), "meta": {A: {"x_extra": True}}},
                {"type": "media", "kind": "image", "url": "https://example.com/a.png"},
                {"type": "media", "kind": "document", "media_type": "application/pdf",
                 "data": "JVBERi0=", "meta": {A: {"title": "Spec"}}},
                {"type": "media", "kind": "image", "file_id": "file_011"}]}],
        "settings": {"max_tokens": 64, "temperature": 0}, "meta": {A: {"x_gateway": {"trace": "abc"}}}}


def test_blocks_tooldbg_does_not_model_stay_opaque():
    server_call = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
                   "input": {"query": "news"}}
    server_result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
                     "content": {"type": "web_search_tool_result_error", "error_code": "unavailable"}}
    search = {"type": "search_result", "source": "https://kb", "title": "KB",
              "content": [{"type": "text", "text": "hit"}]}
    text_doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "hi"}}
    upload = {"type": "container_upload", "file_id": "file_9"}
    mid = {"type": "mid_conv_system", "text": "be careful"}
    request = anthropic.read_request({"max_tokens": 10, "messages": [
        {"role": "user", "content": [text_doc, upload]},
        {"role": "assistant", "content": [server_call, server_result,
                                          {"type": "tool_use", "id": "toolu_1", "name": "kb", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": [search, {"type": "text", "text": "1 hit"}]}, mid]}]})
    assert turns(request) == [
        {"role": "user", "parts": [{"type": "opaque", "origin": A, "value": text_doc},
                                   {"type": "opaque", "origin": A, "value": upload}]},
        {"role": "assistant", "parts": [{"type": "opaque", "origin": A, "value": server_call},
                                        {"type": "opaque", "origin": A, "value": server_result},
                                        call(1, "kb", {}, "toolu_1")]},
        {"role": "tool", "parts": [result(1, "toolu_1", [{"type": "opaque", "origin": A, "value": search},
                                                         text_part("1 hit")], name="kb")]},
        {"role": "user", "parts": [{"type": "opaque", "origin": A, "value": mid}]}]

    # and written back as they came
    server_turns = {"max_tokens": 10, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Upload it."}, upload]},
        {"role": "assistant", "content": [server_call, server_result, {"type": "text", "text": "Done."}]}]}
    read = anthropic.read_request(server_turns)
    assert anthropic.write(as_conversation(read)).body["messages"] == server_turns["messages"]


def test_tool_use_input_variants_and_caller():
    request = anthropic.read_request({"max_tokens": 10, "messages": [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "a", "input": "{\"city\":\"Oslo\"}",
         "caller": {"type": "direct"}},
        {"type": "tool_use", "id": "toolu_2", "name": "b", "input": "{\"city\": \"Os",
         "cache_control": {"type": "ephemeral"}},
        {"type": "tool_use", "id": "toolu_3", "name": "c", "input": {},
         "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}}]}]})
    assert turns(request)[0]["parts"] == [
        {**call(1, "a", {"city": "Oslo"}, "toolu_1"), "meta": {A: {"string_input": True}}},
        {**call(2, "b", None, "toolu_2"), "raw_arguments": "{\"city\": \"Os",
         "meta": {A: {"cache_control": {"type": "ephemeral"}}}},
        {**call(3, "c", {}, "toolu_3"),
         "meta": {A: {"caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}}}}]


def test_reasoning_signature_and_redacted_thinking():
    request = anthropic.read_request({"max_tokens": 10, "messages": [{"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hmm", "signature": "EuYBCkQYAiJA"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
        {"type": "text", "text": "Done."}]}]})
    assert request.turns[0].parts[:2] == (
        Reasoning(text="hmm", signature="EuYBCkQYAiJA", origin=A),
        Reasoning(redacted="EmwKAhgBEgy3va3pzix", origin=A))

    # a key the API adds later is kept beside the reasoning, as on every other block
    later = anthropic.read_request({"max_tokens": 10, "messages": [{"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hmm", "signature": "EuYB", "summary_level": "brief"}]}]})
    assert later.turns[0].parts[0] == Reasoning(text="hmm", signature="EuYB", origin=A,
                                                meta={A: {"summary_level": "brief"}})


def test_tools_tool_choice_and_request_parameters():
    web = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    memory = {"type": "memory_20250818", "name": "memory"}
    request = anthropic.read_request({
        "model": "claude-opus-4-5", "max_tokens": 2048, "stream": True,
        "thinking": {"type": "enabled", "budget_tokens": 1024}, "metadata": {"user_id": "u1"},
        "tools": [{"name": "get_weather", "input_schema": SCHEMA, "cache_control": {"type": "ephemeral"},
                   "type": "custom"}, web, memory],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "messages": [{"role": "user", "content": "hi"}]})
    assert request.tools == (
        Tool(name="get_weather", parameters=SCHEMA, meta={A: {"cache_control": {"type": "ephemeral"}}}),
        Tool(name="web_search", kind="web_search_20250305", origin=A, raw=web),
        Tool(name="memory", kind="memory_20250818", origin=A, raw=memory))
    assert request.tool_choice == ToolChoice(mode="required", parallel=False)
    assert request.stream is True and request.model == "claude-opus-4-5"
    # (`stream` kept too: the request is written back streaming, as it was sent)
    assert request.meta == {A: {"thinking": {"type": "enabled", "budget_tokens": 1024},
                                "metadata": {"user_id": "u1"}, "stream": True}}
    assert request.settings == Settings(max_tokens=2048)
    for wire, choice in [({"type": "tool", "name": "get_weather"},
                          ToolChoice(mode="tool", name="get_weather")),
                         ({"type": "none"}, ToolChoice(mode="none")),
                         ({"type": "auto", "disable_parallel_tool_use": False},
                          ToolChoice(mode="auto", parallel=True))]:
        assert anthropic.read_request({"messages": [], "tool_choice": wire}).tool_choice == choice
    unknown = anthropic.read_request({"messages": [], "tool_choice": {"type": "future"}})
    assert unknown.tool_choice is None and unknown.meta == {A: {"tool_choice": {"type": "future"}}}


def test_system_messages_leading_and_mid_conversation():
    request = anthropic.read_request({"system": "top", "messages": [
        {"role": "system", "content": "leading"},
        {"role": "user", "content": "hi"},
        {"role": "system", "content": [{"type": "text", "text": "mid"}]}]})
    assert [p.text for p in request.system] == ["top", "leading"]
    assert request.system[1].source.pointer == "/messages/0/content"
    assert turns(request) == [{"role": "user", "parts": [text_part("hi")]},
                              {"role": "system", "parts": [text_part("mid")]}]


def test_results_and_text_in_one_message_split_in_wire_order():
    request = anthropic.read_request({"max_tokens": 10, "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}},
                                          {"type": "tool_use", "id": "t2", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "before"},
                                     {"type": "tool_result", "tool_use_id": "t1"},
                                     {"type": "text", "text": "between"},
                                     {"type": "tool_result", "tool_use_id": "t2", "content": ""},
                                     {"type": "tool_result", "tool_use_id": "t9", "is_error": None}]}]})
    assert [(t["role"], len(t["parts"])) for t in turns(request)] == [
        ("assistant", 2), ("user", 1), ("tool", 1), ("user", 1), ("tool", 2)]
    assert turns(request)[4]["parts"] == [result(2, "t2", [text_part("")], name="f"),
                                          result(None, "t9", [])]  # unbound: no call name to take


def test_response_body_and_error_body():
    response = anthropic.read_response({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Checking.", "citations": None},
                    {"type": "tool_use", "id": "toolu_01A", "name": "get_weather",
                     "input": {"city": "Paris"}, "caller": {"type": "direct"}},
                    {"type": "tool_result", "tool_use_id": "x"}],
        "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 4, "output_tokens": 8}},
        Source(pointer=""))
    assert turn_to_dict(response.turn, sources=False) == {"role": "assistant", "parts": [
        text_part("Checking."), call(1, "get_weather", {"city": "Paris"}, "toolu_01A"),
        {"type": "opaque", "origin": A, "value": {"type": "tool_result", "tool_use_id": "x"}}]}
    assert response.turn.parts[1].source.pointer == "/content/1"
    assert (response.finish_reason, response.model) == ("tool_use", "claude-sonnet-4-5")
    assert response.usage == {"input_tokens": 4, "output_tokens": 8}
    assert response.meta == {A: {"id": "msg_01"}}
    error = anthropic.read_response({"type": "error", "request_id": "req_011",
                                     "error": {"type": "invalid_request_error", "message": "bad"}})
    assert error.turn is None
    assert error.error == ApiError(message="bad", type="invalid_request_error")
    assert error.meta == {A: {"request_id": "req_011"}}


@pytest.mark.parametrize(("body", "pointer"), [
    ([], ""),
    ({"messages": {}}, "/messages"),
    ({"messages": [{"role": "tool", "content": "x"}]}, "/messages/0/role"),
    ({"messages": [{"role": "user", "content": 3}]}, "/messages/0/content"),
    ({"messages": [{"role": "user", "content": [{"text": "untyped"}]}]}, "/messages/0/content/0"),
    ({"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]}]},
     "/messages/0/content/0/name"),
    ({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": 7}]}]},
     "/messages/0/content/0/tool_use_id"),
    ({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                                 "is_error": "yes"}]}]},
     "/messages/0/content/0/is_error"),
    ({"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "base64"}}]}]},
     "/messages/0/content/0/source/data"),
    ({"messages": [], "tools": [{"description": "no name"}]}, "/tools/0/name"),
    ({"messages": [], "tool_choice": "auto"}, "/tool_choice"),
])
def test_malformed_requests_raise_format_error_with_a_pointer(body, pointer):
    with pytest.raises(FormatError) as caught:
        anthropic.read_request(body)
    assert caught.value.pointer == pointer


# ------------------------------------------------------------------------------------ sniffing


def test_sniffing_claims_anthropic_bodies_only():
    assert anthropic.sniff(ROUND_TRIP, "request")
    assert anthropic.sniff({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
                           "request")
    assert anthropic.sniff({"type": "message", "content": []}, "response")
    assert anthropic.sniff({"type": "error", "error": {"message": "x"}}, "response")
    openai_chat = {"model": "gpt-4o", "messages": [
        {"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function"}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"}],
        "tools": [{"type": "function", "function": {"name": "f"}}]}
    bedrock = {"messages": [{"role": "user", "content": [{"text": "hi"}]}], "system": [{"text": "x"}],
               "inferenceConfig": {"maxTokens": 5}}
    responses = {"model": "gpt-5", "input": "hi", "max_output_tokens": 5}
    chat_with_system = {"model": "m", "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]}
    for body in (openai_chat, bedrock, responses, chat_with_system, [], "x"):
        assert not anthropic.sniff(body, "request")
    assert not anthropic.sniff({"object": "chat.completion", "choices": []}, "response")
    assert not anthropic.sniff({"error": {"message": "x"}}, "response")  # OpenAI's envelope


# ------------------------------------------------------------------------------------- streams

def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, **fields}}


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_start(message_id: str, model: str, input_tokens: int) -> dict[str, Any]:
    return {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1}}}


def message_delta(stop_reason: str, output_tokens: int) -> dict[str, Any]:
    return {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens}}


PING = {"type": "ping"}
STOP = {"type": "message_stop"}
#: A hand-written Messages stream (event types: anthropic-sdk-python src/anthropic/types/
#: raw_message_stream_event.py): a text block, a ping, then a tool_use whose input arrives in
#: input_json_delta pieces, the first of them empty.
TOOL_STREAM = sse_text(
    message_start("msg_01", "claude-sonnet-4-5", 400),
    block_start(0, {"type": "text", "text": ""}), PING,
    delta(0, "text_delta", text="Checking."), block_stop(0),
    block_start(1, {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {}}),
    delta(1, "input_json_delta", partial_json=""),
    delta(1, "input_json_delta", partial_json='{"city": "Par'),
    delta(1, "input_json_delta", partial_json='is"}'), block_stop(1),
    message_delta("tool_use", 33), STOP)

TOOL_STREAM_BODY = {
    "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}}],
    "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 400, "output_tokens": 33}}


def test_stream_sniffing():
    assert anthropic.sniff_stream(sse.parse(TOOL_STREAM))
    assert anthropic.sniff_stream([StreamEvent(0, {"type": "ping"}),
                                   StreamEvent(1, {"type": "message_start", "message": {}})])
    assert not anthropic.sniff_stream([StreamEvent(0, {"type": "response.created"}, "response.created")])
    assert not anthropic.sniff_stream([StreamEvent(0, {"choices": []}), StreamEvent(1, "[DONE]")])
    assert not anthropic.sniff_stream([StreamEvent(0, {"messageStart": {"role": "assistant"}})])
    assert not anthropic.sniff_stream([])
    # a stream the API answered with its error event alone (`overloaded_error` before any message)
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert anthropic.sniff_stream([StreamEvent(0, overloaded, "error")])
    assert not anthropic.sniff_stream([StreamEvent(0, {"type": "error", "error": "Overloaded"}, "error")])


def test_stream_assembles_into_the_non_streamed_body():
    assembled = anthropic.assemble_stream(sse.parse(TOOL_STREAM))
    assert assembled.body == TOOL_STREAM_BODY
    assert assembled.chunks == {"": 0, "/content/0": 1, "/content/1": 5, "/stop_reason": 10}
    assert assembled.problems == () and assembled.complete
    response = anthropic.read_response(assembled.body)
    assert response.turn.parts[1] == Invocation(id="i1", name="get_weather", arguments={"city": "Paris"},
                                                wire_id="toolu_01A")


def test_stream_of_thinking_citations_and_a_whole_call_in_its_start():
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0}
    second_citation = {"type": "char_location", "cited_text": "y", "document_index": 1}
    events = lines("\n".join(json.dumps(e) for e in [
        {"type": "message_start", "message": {"id": "msg_2", "type": "message", "role": "assistant",
                                              "content": [], "usage": {"input_tokens": 5,
                                                                       "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "a"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "b"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "Sig"}},
        {"type": "content_block_stop", "index": 0},
        block_start(1, {"type": "text", "text": ""}),
        delta(1, "text_delta", text="Yes"),
        delta(1, "citations_delta", citation=citation),
        delta(1, "citations_delta", citation=second_citation),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {
            "type": "tool_use", "id": "toolu_9", "name": "f", "input": {"whole": True}}},
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None,
                                            "container": {"id": "c1"}},
         "usage": {"output_tokens": 9, "input_tokens": None, "cache_read_input_tokens": 3}},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 10}},
        {"type": "message_stop"}]))
    assembled = anthropic.assemble_stream(events)
    assert assembled.problems == ()
    assert assembled.body["content"] == [
        {"type": "thinking", "thinking": "ab", "signature": "Sig"},
        {"type": "text", "text": "Yes", "citations": [citation, second_citation]},
        {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {"whole": True}}]
    assert assembled.body["usage"] == {"input_tokens": 5, "output_tokens": 10, "cache_read_input_tokens": 3}
    assert assembled.body["container"] == {"id": "c1"}
    parts = anthropic.read_response(assembled.body).turn.parts
    assert parts[0] == Reasoning(text="ab", signature="Sig", origin=A)
    assert parts[1].meta == {A: {"citations": [citation, second_citation]}}


TRUNCATED_IN_INPUT = sse_text(  # after the SDK's incomplete_partial_json_response.txt, padded alike
    message_start("msg_01Ud", "claude-3-7-sonnet-20250219", 450),
    block_start(0, {"type": "text", "text": ""}), PING,
    delta(0, "text_delta", text="I'll write it."), block_stop(0),
    block_start(1, {"type": "tool_use", "id": "toolu_01EK", "name": "make_file", "input": {}}),
    delta(1, "input_json_delta", partial_json=""),
    delta(1, "input_json_delta", partial_json='{"filename": "taxes.txt'),
    message_delta("max_tokens", 124), STOP, pad=7)


def test_max_tokens_inside_a_tool_input_leaves_the_block_open():
    """anthropic-sdk-python tests/lib/streaming/fixtures/incomplete_partial_json_response.txt."""
    assembled = anthropic.assemble_stream(sse.parse(TRUNCATED_IN_INPUT))
    assert assembled.problems == (
        StreamProblem("truncated", "content block 1 was never stopped", 5),
        StreamProblem("arguments", "streamed tool input is not valid JSON: '{\"filename\": \"taxes.txt'", 6))
    assert assembled.complete  # message_stop arrived
    response = anthropic.read_response(assembled.body)
    assert response.finish_reason == "max_tokens"
    assert response.turn.parts[1] == Invocation(id="i1", name="make_file", arguments=None,
                                                raw_arguments='{"filename": "taxes.txt',
                                                wire_id="toolu_01EK")


def test_a_cut_stream_and_an_error_event():
    cut = sse.parse(TOOL_STREAM)[:8]
    assembled = anthropic.assemble_stream(cut)
    assert assembled.problems == (
        StreamProblem("truncated", "content block 1 was never stopped", 5),
        StreamProblem("arguments", "streamed tool input is not valid JSON: '{\"city\": \"Par'", 6),
        StreamProblem("truncated", "the stream ended without message_stop", 7))
    assert not assembled.complete and assembled.body["stop_reason"] is None

    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    broken = [*sse.parse(TOOL_STREAM)[:4], StreamEvent(4, overloaded, "error")]
    assembled = anthropic.assemble_stream(broken)
    assert assembled.problems == (StreamProblem("error", "Overloaded", 4),
                                  StreamProblem("truncated", "content block 0 was never stopped", 1))
    assert not assembled.complete
    assert assembled.body["content"] == [{"type": "text", "text": "Checking."}]

    only_error = anthropic.assemble_stream([StreamEvent(0, overloaded, "error")])
    assert only_error.body == overloaded and not only_error.complete
    assert anthropic.read_response(only_error.body).error == ApiError("Overloaded", "overloaded_error")
    empty = anthropic.assemble_stream([])
    assert (empty.body, empty.complete) == (None, False)
    assert empty.problems == (StreamProblem("truncated", "no message_start in the stream", None),)


def test_out_of_order_and_mismatched_events_are_problems_not_crashes():
    start = {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                                  "content": [], "usage": {"output_tokens": 0}}}
    events = [StreamEvent(i, e) for i, e in enumerate([
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "early"}},
        start,
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 5, "delta": {"type": "text_delta", "text": "lost"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta",
                                                              "partial_json": "{}"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "",
                                                                      "name": "f", "input": {}}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_stop"},
        {"type": "message_start", "message": {}},
        {"type": "future_event"},
        "not json"])]
    assembled = anthropic.assemble_stream(events)
    assert [(p.kind, p.chunk) for p in assembled.problems] == [
        ("order", 0), ("order", 2), ("order", 3), ("other", 4), ("order", 6), ("identity", 7),
        ("order", 10), ("order", 10), ("other", 12)]
    assert assembled.body["content"] == [{"type": "text", "text": ""},
                                         {"type": "tool_use", "id": "", "name": "f", "input": {}}]


def test_events_without_their_objects_are_problems_that_say_what_was_missing():
    events = [StreamEvent(i, e) for i, e in enumerate([
        message_start("msg_01", "claude-haiku-4-5", 10),
        {"type": "content_block_start", "index": 0},
        block_start(0, {"type": "text", "text": "Oh. "}),  # (text in the start: the deltas follow it)
        delta(0, "text_delta", text=5),
        delta(0, "text_delta", text="Hi"),
        block_stop(0),
        {"type": "error", "error": {"type": "api_error", "message": None}}])]
    assembled = anthropic.assemble_stream(events)
    assert assembled.problems == (
        StreamProblem("other", "content_block_start without a content_block object", 1),
        StreamProblem("other", "text_delta without a string `text`", 3),
        StreamProblem("error", '{"type":"error","error":{"type":"api_error","message":null}}', 6))
    assert assembled.body["content"] == [{"type": "text", "text": "Oh. Hi"}]


def tool_block(tid: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": "get_weather", "input": {}}


@pytest.mark.parametrize("second", [2, 0], ids=["skipped", "reused"])
def test_a_block_opened_under_another_index_is_one_problem_at_its_start(second):
    """The block's later events name the index it opened under: they reach it, so neither they nor
    the block (as never stopped: the stream did end) are reported again."""
    events = [StreamEvent(i, e) for i, e in enumerate([
        message_start("msg_01", "claude-haiku-4-5", 10),
        block_start(0, tool_block("toolu_A")), delta(0, "input_json_delta", partial_json='{"city": "Oslo"}'),
        block_stop(0),
        block_start(second, tool_block("toolu_B")),
        delta(second, "input_json_delta", partial_json='{"city": "Bergen"}'), block_stop(second),
        message_delta("tool_use", 20), STOP])]
    assembled = anthropic.assemble_stream(events)
    assert assembled.problems == (
        StreamProblem("order", f"content_block_start index {second}, expected 1", 4),)
    assert assembled.complete
    assert [(b["id"], b["input"]) for b in assembled.body["content"]] == [
        ("toolu_A", {"city": "Oslo"}), ("toolu_B", {"city": "Bergen"})]


def test_interleaved_blocks_are_one_problem_at_the_first_late_delta():
    events = [StreamEvent(i, e) for i, e in enumerate([
        message_start("msg_01", "claude-haiku-4-5", 10),
        block_start(0, tool_block("toolu_A")), delta(0, "input_json_delta", partial_json='{"city": '),
        block_start(1, tool_block("toolu_B")), delta(0, "input_json_delta", partial_json='"Oslo"}'),
        delta(1, "input_json_delta", partial_json='{"city": '), delta(0, "input_json_delta", partial_json=""),
        delta(1, "input_json_delta", partial_json='"Bergen"}'), block_stop(0), block_stop(1),
        message_delta("tool_use", 20), STOP])]
    assembled = anthropic.assemble_stream(events)
    assert assembled.problems == (
        StreamProblem("order", "delta for content block 0 after block 1 started (interleaved blocks)", 4),)
    assert [b["input"] for b in assembled.body["content"]] == [{"city": "Oslo"}, {"city": "Bergen"}]


@pytest.mark.needs_corpus
def test_split_streams_on_message_start():
    events = lines((CORPUS / "vercel-ai-fixtures/anthropic/anthropic-tool-search-regex.1.chunks.txt")
                   .read_text())
    first, second = anthropic.split_streams(events)
    assert (first[0].index, len(first), second[0].index, len(second)) == (0, 32, 32, 19)
    assert anthropic.split_streams([]) == []
    ping = StreamEvent(0, {"type": "ping"})
    assert anthropic.split_streams([ping, *events[:2]]) == [[ping, *events[:2]]]
    one, two = (anthropic.assemble_stream(g) for g in (first, second))
    assert one.chunks[""] == 0 and two.chunks[""] == 32 and not one.problems and not two.problems
    call_ = anthropic.read_response(one.body).turn.parts[3]
    assert (call_.name, call_.arguments) == ("get_temp_data", {"location": "San Francisco, CA"})
    assert anthropic.read_response(two.body).finish_reason == "end_turn"


# ------------------------------------------------------------------------------------- writing


def test_write_a_clean_conversation():
    conv = Conversation(
        model="claude-sonnet-4-5", system=(Text(text="Be terse."),),
        tools=(Tool(name="get_weather", description="Current weather", parameters=SCHEMA,
                    meta={A: {"cache_control": {"type": "ephemeral"}}}),
               Tool(name="web_search", kind="web_search_20250305", origin=A,
                    raw={"type": "web_search_20250305", "name": "web_search"})),
        tool_choice=ToolChoice(mode="required", parallel=False),
        turns=link([
            Turn(role="user", parts=(Text(text="Weather in Paris and Rome?"),
                                     Media(kind="image", media_type="image/png", data=PNG))),
            Turn(role="assistant", parts=(
                Reasoning(text="Two calls.", signature="EqQB", origin=A),
                Text(text="Checking both."),
                Invocation(name="get_weather", arguments={"city": "Paris"}, wire_id="toolu_01A"),
                Invocation(name="get_weather", arguments={"city": "Rome"}, wire_id="toolu_01B",
                           meta={A: {"cache_control": {"type": "ephemeral"}}}))),
            Turn(role="tool", parts=(
                Result(wire_id="toolu_01A", content=(Text(text='{"temp_c":22}'),)),
                Result(wire_id="toolu_01B", is_error=True,
                       content=(Text(text="upstream timeout"),
                                Media(kind="image", media_type="image/jpeg", data="/9j/4AAQ"))))),
            Turn(role="user", parts=(Text(text="Answer in Celsius."),))]),
        settings=Settings(max_tokens=1024, temperature=0))
    written = anthropic.write(conv)
    assert written.losses == ()
    assert written.body == {
        "model": "claude-sonnet-4-5", "max_tokens": 1024, "temperature": 0,
        "system": [{"type": "text", "text": "Be terse."}],
        "tools": [{"name": "get_weather", "description": "Current weather", "input_schema": SCHEMA,
                   "cache_control": {"type": "ephemeral"}},
                  {"type": "web_search_20250305", "name": "web_search"}],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "Weather in Paris and Rome?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two calls.", "signature": "EqQB"},
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Rome"},
                 "cache_control": {"type": "ephemeral"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A", "content": '{"temp_c":22}'},
                {"type": "tool_result", "tool_use_id": "toolu_01B", "is_error": True, "content": [
                    {"type": "text", "text": "upstream timeout"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg",
                                                 "data": "/9j/4AAQ"}}]},
                {"type": "text", "text": "Answer in Celsius."}]}]}
    back = as_conversation(anthropic.read_request(written.body))
    assert conversation_to_dict(back, sources=False) == conversation_to_dict(conv, sources=False)


def test_write_repairs_a_foreign_history_and_reports_every_change():
    conv = Conversation(model="m", settings=MAX_TOKENS, turns=link([
        Turn(role="user", parts=(Text(text="Weather in Oslo and Bergen?"), Text(text="  "))),
        Turn(role="assistant", parts=(
            Reasoning(text="two calls", signature="gAAAA", origin="openai-responses"),
            Invocation(name="get_weather", arguments={"city": "Oslo"}, wire_id="functions.get_weather:0"),
            Text(text="Let me check."),
            Invocation(name="get_weather", raw_arguments='{"city": "Berg'))),
        Turn(role="tool", parts=(
            Result(wire_id="functions.get_weather:0", name="get_weather",
                   content=(Json(value={"temp_c": 4}),)),
            Result(name="get_weather", is_error=True,
                   content=(Text(text="timeout"), Media(kind="image", media_type="image/png", data=PNG))))),
        Turn(role="user", parts=(Text(text="Thanks"),
                                 Opaque(origin="openai-responses", value={"type": "item_reference"}))),
        Turn(role="assistant", parts=(Text(text="Oslo is 4 °C. "),))]))
    written = anthropic.write(conv)
    assert written.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo and Bergen?"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "functions_get_weather_0", "name": "get_weather",
             "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_i2", "name": "get_weather", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "functions_get_weather_0", "content": '{"temp_c":4}'},
            {"type": "tool_result", "tool_use_id": "toolu_i2", "is_error": True, "content": [
                {"type": "text", "text": "timeout"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]},
            {"type": "text", "text": "Thanks"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Oslo is 4 °C."}]}]
    assert written.losses == (
        Loss("empty text block dropped: Anthropic rejects it", 0, 1),
        Loss("reasoning from openai-responses dropped: Anthropic only accepts its own signed thinking", 1, 0),
        Loss("call id 'functions.get_weather:0' does not fit anthropic (letters, digits, - and _, not "
             "empty); wrote 'functions_get_weather_0'", 1, 1),
        Loss("arguments are not valid JSON ('{\"city\": \"Berg'); input written as {}", 1, 3),
        Loss("call had no id; wrote 'toolu_i2'", 1, 3),
        Loss("moved before the tool calls: Anthropic requires tool_use blocks last", 1, 2),
        Loss("result id 'functions.get_weather:0' written as 'functions_get_weather_0', its call's id",
             2, 0),
        Loss("structured content written as JSON text", 2, 0),
        Loss("result had no id; wrote 'toolu_i2', its call's id", 2, 1),
        Loss("opaque openai-responses block dropped: Anthropic cannot read it", 3, 1),
        Loss("trailing whitespace removed: Anthropic rejects it at the end of a final assistant message",
             4, 0))
    assert_losses_explain(conv, as_conversation(anthropic.read_request(written.body)), written.losses)


def test_write_pairs_results_with_the_previous_calls_only():
    conv = Conversation(model="m", settings=MAX_TOKENS, turns=link([
        Turn(role="user", parts=(Text(text="go"),)),
        Turn(role="assistant", parts=(Invocation(name="f", arguments={}, wire_id="call_0"),)),
        Turn(role="tool", parts=(Result(wire_id="call_0", content=(Text(text="one"),)),)),
        Turn(role="assistant", parts=(Invocation(name="f", arguments={"n": 2}, wire_id="call_0"),
                                      Invocation(name="g", arguments={}, wire_id="toolu_c"))),
        Turn(role="user", parts=(Text(text="only one result came back"),)),
        Turn(role="tool", parts=(Result(wire_id="call_0", content=(Text(text="two"),)),
                                 Result(wire_id="toolu_zzz", content=(Text(text="stray"),)))),
        Turn(role="assistant", parts=(Text(text="done"),))]))
    written = anthropic.write(conv)
    assert written.body["messages"][3:] == [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_0_2", "name": "f",
                                           "input": {"n": 2}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_0_2", "content": "two"},
                                     {"type": "text", "text": "only one result came back"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    assert written.losses == (
        Loss("call id 'call_0' is already used; wrote 'call_0_2'", 3, 0),
        Loss("call 'g' has no result in the next message; dropped (Anthropic rejects an unanswered tool_use)",
             3, 1),
        Loss("result id 'call_0' written as 'call_0_2', its call's id", 5, 0),
        Loss("result answers no tool_use of the previous assistant message; dropped (Anthropic rejects it)",
             5, 1),
        Loss("merged into one user message, tool results first (Anthropic requires them first)", 4),
        Loss("merged into one user message, tool results first (Anthropic requires them first)", 5))
    assert_losses_explain(conv, as_conversation(anthropic.read_request(written.body)), written.losses)


def test_write_reports_a_result_name_only_when_it_differs_from_its_call():
    conv = Conversation(model="m", settings=MAX_TOKENS, turns=link([
        Turn(role="user", parts=(Text(text="go"),)),
        Turn(role="assistant", parts=(Invocation(name="f", arguments={}, wire_id="toolu_1"),
                                      Invocation(name="g", arguments={}, wire_id="toolu_2"),
                                      Invocation(name="h", arguments={}, wire_id="toolu_3"))),
        Turn(role="tool", parts=(Result(wire_id="toolu_1", name="f", content=(Text(text="same"),)),
                                 Result(wire_id="toolu_2", name="other", content=(Text(text="odd"),)),
                                 Result(wire_id="toolu_3", content=(Text(text="unnamed"),)))),
        Turn(role="assistant", parts=(Text(text="done"),))]))
    assert [r.name for r in conv.turns[2].results()] == ["f", "other", "h"]
    written = anthropic.write(conv)
    assert written.body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "same"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "odd"},
        {"type": "tool_result", "tool_use_id": "toolu_3", "content": "unnamed"}]
    assert written.losses == (Loss("result name 'other' not carried: a tool_result names only its call's "
                                   "id (its call is 'g')", 2, 1),)
    back = as_conversation(anthropic.read_request(written.body))
    assert [r.name for r in back.turns[2].results()] == ["f", "g", "h"]
    assert_losses_explain(conv, back, written.losses)


def test_write_history_ending_on_calls_keeps_them():
    conv = Conversation(model="m", settings=MAX_TOKENS, turns=link([
        Turn(role="user", parts=(Text(text="go"),)),
        Turn(role="assistant", parts=(Invocation(name="f", arguments={}, wire_id="toolu_1"),))]))
    written = anthropic.write(conv)
    # kept as the history it is, and said to be one: no result invented, none left unsaid
    assert written.losses == (Loss("the conversation ends on this call with no result: a history, which Anthropic "
                                   "rejects as a request until a tool_result answers it", 1, 0),)
    assert written.body["messages"][-1] == {
        "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]}


def test_write_keeps_an_empty_final_assistant_message():
    """Rule 8: every message needs content, except the final assistant message."""
    conv = Conversation(model="m", settings=MAX_TOKENS, turns=(
        Turn(role="user", parts=(Text(text="go"),)), Turn(role="assistant"),
        Turn(role="user", parts=(Text(text="again"),)),
        Turn(role="assistant", parts=(Reasoning(text="x", origin="gemini"),))))
    written = anthropic.write(conv)
    assert written.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "go"}]},
                                        {"role": "user", "content": [{"type": "text", "text": "again"}]},
                                        {"role": "assistant", "content": []}]
    assert [(loss.turn, loss.part) for loss in written.losses] == [(1, None), (3, 0)]
    assert anthropic.write(Conversation(model="m", settings=MAX_TOKENS, turns=(Turn(role="assistant"),))).body["messages"] == [
        {"role": "assistant", "content": []}]


def test_write_thinking_rules():
    thinking_on = {A: {"thinking": {"type": "enabled", "budget_tokens": 1024}}}
    signed = Reasoning(text="plan", signature="EqQB", origin=A)
    history = [Turn(role="user", parts=(Text(text="go"),)),
               Turn(role="assistant", parts=(Invocation(name="f", arguments={}, wire_id="toolu_1"),)),
               Turn(role="tool", parts=(Result(wire_id="toolu_1", content=(Text(text="ok"),)),))]
    unsigned = anthropic.write(Conversation(model="m", settings=MAX_TOKENS, turns=link(history), meta=thinking_on))
    assert "thinking" not in unsigned.body
    assert unsigned.losses == (Loss(
        "thinking turned off: the assistant message with the latest tool calls has no thinking block to "
        "replay, which Anthropic rejects while thinking is on"),)
    history[1] = Turn(role="assistant", parts=(signed, *history[1].parts))
    replayed = anthropic.write(Conversation(model="m", settings=MAX_TOKENS, turns=link(history), meta=thinking_on))
    assert replayed.losses == () and replayed.body["thinking"] == thinking_on[A]["thinking"]
    final = anthropic.write(Conversation(model="m", settings=MAX_TOKENS, turns=link([
        history[0], Turn(role="assistant", parts=(signed, Text(text="answer")))])))
    assert final.body["messages"][-1]["content"] == [{"type": "text", "text": "answer"}]
    assert final.losses == (Loss("thinking dropped from the final assistant message: Anthropic rejects it "
                                 "while thinking is off", 1, 0),)


def test_a_schema_anthropic_cannot_take_is_quoted_as_the_log_has_it():
    """The loss quotes the schema as declared, not lower-cased: lower-cased, a key in it (`eyJ…` → `eyj…`)
    no longer had its shape, and printed unmasked (found by the secrets property)."""
    token = "eyJGdxylu7icJZTb5mwHw92.Uf0QKiu3XMjo1v9lIv5y8V82Vnzifc.mg7lVQi1h7bDILGiKFJLYjoni"
    conv = Conversation(tools=(Tool(name="f", parameters={"type": token}),),
                        turns=(Turn(role="user", parts=(Text(text="hi"),)),))
    [loss] = [str(x) for x in anthropic.write(conv).losses if "is not an object schema" in x.message]
    assert loss.endswith(f'schema {{"type":"{token}… is not an object schema Anthropic accepts; an empty '
                         "object schema is written")
    assert "dxylu7ic" not in redact_text(loss) and "eyJG•••" in redact_text(loss)
    # only Gemini's type names are lower-cased in the body: anything else in a `type` stays as it was
    conv = Conversation(tools=(Tool(name="f", parameters={"type": "OBJECT", "properties": {
        "q": {"type": "STRING"}, "k": {"type": f"see %3D{token}"}}}),),
        turns=(Turn(role="user", parts=(Text(text="hi"),)),))
    written = anthropic.write(conv).body["tools"][0]["input_schema"]
    assert written == {"type": "object", "properties": {"q": {"type": "string"}, "k": {"type": f"see %3D{token}"}}}


def test_write_tools_names_and_conversation_level_losses():
    conv = Conversation(
        tools=(Tool(name="mcp.search"), Tool(name="web_search_preview", kind="web_search_preview",
                                             origin="openai-responses", raw={"type": "web_search_preview"}),
               Tool(name="upper", parameters={"type": "OBJECT", "properties": {
                   "unit": {"type": "STRING", "enum": ["C", "F"]}}}),
               Tool(name="either", parameters={"anyOf": [{"type": "object"}]})),
        tool_choice=ToolChoice(mode="tool", name="mcp.search"),
        system=(Text(text="sys"), Media(kind="image", media_type="image/png", data=PNG)),
        turns=link([Turn(role="user", parts=(Text(text="find"),)),
                    Turn(role="assistant", parts=(Invocation(name="mcp.search", arguments=["x"],
                                                             wire_id="toolu_1"),)),
                    Turn(role="tool", parts=(Result(wire_id="toolu_1"),)),
                    Turn(role="user", parts=())]))
    written = anthropic.write(conv)
    assert {k: written.body[k] for k in ("tools", "tool_choice", "system")} == {
        "tools": [{"name": "mcp_search", "input_schema": {"type": "object", "properties": {}}},
                  {"name": "upper", "input_schema": {"type": "object", "properties": {
                      "unit": {"type": "string", "enum": ["C", "F"]}}}},
                  {"name": "either", "input_schema": {"type": "object", "properties": {}}}],
        "tool_choice": {"type": "tool", "name": "mcp_search"},
        "system": [{"type": "text", "text": "sys"}]}
    assert written.body["messages"][1:] == [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp_search",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}]
    assert [str(loss) for loss in written.losses] == [
        "conversation: model: none — missing: Anthropic requires model in the request body and the "
        "conversation names none (give one with --model)",
        "conversation: max_tokens: 4096 — a default: Anthropic requires max_tokens and the source had none",
        "conversation part 1: media part cannot be carried in system content; dropped",
        "conversation: tool name 'mcp.search' does not fit anthropic (letters, digits, - and _, "
        "1 to 128 characters); wrote 'mcp_search'",
        "conversation: tool 'mcp.search' has no parameter schema; an empty object schema is written",
        "conversation: web_search_preview tool 'web_search_preview' of openai-responses has no Anthropic "
        "form; dropped",
        "conversation: tool 'upper': schema type names lower-cased, as JSON Schema spells them",
        'conversation: tool \'either\': schema {"anyOf":[{"type":"object"}]} is not an object schema '
        "Anthropic accepts; an empty object schema is written",
        "conversation: tool name 'mcp.search' does not fit anthropic (letters, digits, - and _, "
        "1 to 128 characters); wrote 'mcp_search'",
        "turn 1 part 0: arguments are a list, not an object; input written as {}",
        "turn 1 part 0: tool name 'mcp.search' does not fit anthropic (letters, digits, - and _, "
        "1 to 128 characters); wrote 'mcp_search'",
        "turn 2 part 0: result name 'mcp.search' not carried: a tool_result names only its call's id; it "
        "reads back as 'mcp_search', its call's written name",
        "turn 3: empty turn dropped: Anthropic rejects a message without content"]
    assert_losses_explain(conv, as_conversation(anthropic.read_request(written.body)), written.losses)
    empty = anthropic.write(Conversation(model="m", settings=MAX_TOKENS, tool_choice=ToolChoice(mode="auto")))
    assert empty.body == {"model": "m", "max_tokens": 1024, "messages": []}
    assert [loss.message for loss in empty.losses] == [
        "tool_choice: 'auto' — not carried: no tool is declared",
        "no message to send; Anthropic requires at least one"]


def test_write_system_turns_and_unknown_request_parameters():
    request = anthropic.read_request({"model": "m", "max_tokens": 8, "tool_choice": {"type": "future"},
                                      "tools": [{"name": "f", "input_schema": {"type": "object"}}],
                                      "messages": [{"role": "user", "content": "hi"},
                                                   {"role": "system", "content": "mid"}]})
    written = anthropic.write(as_conversation(request))
    assert written.losses == ()
    assert written.body["tool_choice"] == {"type": "future"}
    assert written.body["messages"][1] == {"role": "system", "content": [{"type": "text", "text": "mid"}]}
    leading = anthropic.write(Conversation(model="m", settings=MAX_TOKENS, system=(Text(text="top"),), turns=(
        Turn(role="user"), Turn(role="system", parts=(Text(text="first"),)),
        Turn(role="user", parts=(Text(text="hi"),)))))
    assert leading.body["system"] == [{"type": "text", "text": "top"}, {"type": "text", "text": "first"}]
    assert leading.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert leading.losses == (
        Loss("empty turn dropped: Anthropic rejects a message without content", 0),
        Loss("a system turn before any other message is written as top-level system", 1))


def test_write_media_forms():
    parts = (Media(kind="image", url="data:image/webp;base64,UklGR"),
             Media(kind="image", url="https://x/a.png", media_type="image/png"),
             Media(kind="file", media_type="application/pdf", file_id="file_1"),
             Media(kind="audio", media_type="audio/wav", data="UklGR"),
             Media(kind="image", media_type="image/bmp", data="Qk0="),
             Media(kind="image"))
    written = anthropic.write(Conversation(model="m", settings=MAX_TOKENS, turns=(Turn(role="user", parts=parts),)))
    assert written.body["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/webp", "data": "UklGR"}},
        {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
        {"type": "document", "source": {"type": "file", "file_id": "file_1"}}]
    assert [(loss.part, loss.message) for loss in written.losses] == [
        (0, "data URL written as a base64 source"),
        (1, "media type image/png not carried by a url source"),
        (2, "media type application/pdf not carried by a file source"),
        (2, "file written as an Anthropic document block"),
        (3, "audio (audio/wav) cannot be sent to Anthropic; dropped"),
        (4, "image (image/bmp) cannot be sent to Anthropic; dropped"),
        (5, "media without data, URL or file id dropped")]


@pytest.mark.needs_corpus
def test_write_restores_what_the_reader_kept():
    request = anthropic.read_request(loads(loads(
        (CORPUS / "opencode-recordings/anthropic-messages/accepts-malformed-assistant-tool-order-with-"
                  "default-patch.json").read_text())["interactions"][0]["request"]["body"]))
    written = anthropic.write(as_conversation(request))
    assert written.losses == ()
    assert written.body["messages"][2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "{\"temperature\":\"72F\"}"},
        {"type": "text", "text": "Use that result to answer briefly.",
         "cache_control": {"type": "ephemeral"}}]}
    assert written.body["max_tokens"] == 4096


def test_write_reports_the_details_other_formats_kept():
    """Responses item ids and message phases (and any other format's meta) have no Anthropic form:
    each is a loss at its node, while Anthropic's own meta is written back."""
    r = "openai-responses"
    conv = Conversation(model="m", settings=MAX_TOKENS, meta={r: {"store": False}},
                        tools=(Tool(name="f", parameters=SCHEMA, meta={r: {"strict": True}}),),
                        turns=link([
        Turn(role="user", parts=(Text(text="Weather in Paris?"),), meta={"openai-chat": {"name": "ann"}}),
        Turn(role="assistant", parts=(
            Text(text="Checking.", meta={r: {"message": {"id": "msg_1", "phase": "commentary"}}}),
            Invocation(name="f", arguments={"city": "Paris"}, wire_id="call_1",
                       meta={r: {"id": "fc_1"}, A: {"cache_control": {"type": "ephemeral"}}}))),
        Turn(role="tool", parts=(Result(wire_id="call_1", meta={"bedrock": {"status": "success"}}, content=(
            Text(text="sunny", meta={"gemini": {"extra": {"x": 1}}}),)),)),
        Turn(role="assistant", parts=(
            Text(text="Sunny.", meta={r: {"message": {"phase": "final_answer"}}}),))]))
    written = anthropic.write(conv)
    assert written.body["messages"][1:3] == [
        {"role": "assistant", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "call_1", "name": "f", "input": {"city": "Paris"},
             "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"}]}]
    assert written.losses == (
        Loss("store: False — not carried: Anthropic has no field for this openai-responses parameter"),
        Loss("openai-responses details of tool 'f' not carried: strict"),
        Loss("openai-chat details not carried: name", 0),
        Loss("openai-responses details not carried: message", 1, 0),
        Loss("openai-responses details not carried: id", 1, 1),
        Loss("gemini details not carried: extra", 2, 0),
        Loss("openai-responses details not carried: message", 3, 0))
    assert_losses_explain(conv, as_conversation(anthropic.read_request(written.body)), written.losses)


@pytest.mark.needs_corpus
def test_write_reports_a_responses_phase_read_from_real_traffic():
    """The corpus case that once changed silently: a commentary message, then a final answer."""
    (conv,) = load_file(CORPUS / "opencode-recordings/openai-responses-phase/"
                                 "round-trips-commentary-into-a-final-answer.json").conversations
    written = anthropic.write(conv)
    assert [(loss.turn, loss.part) for loss in written.losses if loss.turn is not None] == [(1, 0), (3, 0)]
    assert_losses_explain(conv, as_conversation(anthropic.read_request(written.body)), written.losses)


# --------------------------------------------------------------------------------------- corpus


def recordings() -> list[tuple[Path, int, dict[str, Any], str]]:
    """(file, index, request body, response body text) of every Anthropic exchange in the corpus."""
    out = []
    for path in sorted((CORPUS / "opencode-recordings/anthropic-messages").glob("*.json")):
        for i, it in enumerate(loads(path.read_text())["interactions"]):
            out.append((path, i, loads(it["request"]["body"]), it["response"]["body"]))
    for path in (paths.REAL_CLIENTS / "anthropic-messages.har", paths.REAL_CLIENTS / "anthropic-messages-stream.har"):
        for i, entry in enumerate(loads(path.read_text())["log"]["entries"]):
            out.append((path, i, loads(entry["request"]["postData"]["text"]), entry["response"]["content"]["text"]))
    jsonl = paths.REAL_CLIENTS / "anthropic-messages-stream.jsonl"
    for i, row in enumerate(jsonl.read_text().splitlines()):
        exchange = loads(row)
        out.append((jsonl, i, exchange["request"]["body"], exchange["response"]["body"]))
    return out


def exchange_name(recording: tuple[Path, int, dict[str, Any], str]) -> str:
    return f"{recording[0].name}#{recording[1]}"


def recorded() -> dict[str, tuple[dict[str, Any], str]]:
    """The exchanges of `recordings()` by name: (request body, response body text)."""
    return {exchange_name(r): (r[2], r[3]) for r in recordings()}


def response_of(text: str) -> Any:
    """A recorded response body: JSON, or an SSE stream assembled (and required to be clean)."""
    if not sse.looks_like_sse(text):
        return anthropic.read_response(loads(text))
    events = sse.parse(text)
    assert anthropic.sniff_stream(events)
    assembled = anthropic.assemble_stream(events)
    assert assembled.problems == () and assembled.complete
    return anthropic.read_response(assembled.body)


@pytest.mark.parametrize(("path", "index", "request_body", "response_text"),
                         paths.corpus_params(recordings(), arity=4, ids=exchange_name))
def test_every_recorded_exchange_reads_and_rewrites(path, index, request_body, response_text):
    assert anthropic.sniff(request_body, "request")
    request = anthropic.read_request(request_body)
    response = response_of(response_text)
    assert response.error is None and response.turn is not None
    written = anthropic.write(as_conversation(request))
    assert written.losses == ()
    assert anthropic.read_request(written.body).turns == request.turns


def test_real_clients_parallel_calls_and_failure():
    by_name = recorded()
    for capture in ("anthropic-messages.har", "anthropic-messages-stream.har",
                    "anthropic-messages-stream.jsonl"):
        first_request, first_response = by_name[f"{capture}#0"]
        second_request, _ = by_name[f"{capture}#1"]
        calls = list(response_of(first_response).turn.invocations())
        assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Oslo"}),
                                                          ("get_weather", {"city": "Bergen"})]
        replay = anthropic.read_request(second_request)
        assert [t.role for t in replay.turns] == ["user", "assistant", "tool"]
        assert [p.wire_id for p in replay.turns[1].invocations()] == [c.wire_id for c in calls]
        oslo, bergen = replay.turns[2].parts
        assert (oslo.invocation_id, oslo.is_error, bergen.invocation_id, bergen.is_error) == (
            "i1", False, "i2", True)
        assert bergen.content == (Text(text="Error: weather service timed out for Bergen"),)


@pytest.mark.needs_corpus
def test_opencode_recordings_facts():
    by_name = recorded()
    req, res = by_name["streams-tool-call.json#0"]
    request = anthropic.read_request(req)
    assert request.tool_choice == ToolChoice(mode="tool", name="get_weather")
    assert request.system == (Text(text="Call tools exactly as requested."),)
    assert request.meta == {A: {"stream": True}} and request.stream  # (written back streaming)
    assert request.settings == Settings(max_tokens=80, temperature=0)
    tool_use = next(response_of(res).turn.invocations())
    assert (tool_use.arguments, tool_use.wire_id, tool_use.meta) == (
        {"city": "Paris"}, "toolu_01NGuJD7Pku4wqQzegRiBDyH", {})  # the default `caller` is not kept
    req, res = by_name["accepts-malformed-assistant-tool-order-with-default-patch.json#0"]
    assert [t.role for t in anthropic.read_request(req).turns] == ["assistant", "assistant", "tool", "user"]
    assert response_of(res).turn.parts == (Text(text="The weather in Paris is currently 72°F."),)


VERCEL = CORPUS / "vercel-ai-fixtures/anthropic"


@pytest.mark.parametrize("path", paths.corpus_params(sorted(VERCEL.glob("*"))), ids=lambda p: p.name)
def test_every_vercel_fixture_reads(path):
    if path.name.endswith(".chunks.txt"):
        events = lines(path.read_text())
        assert anthropic.sniff_stream(events)
        for group in anthropic.split_streams(events):
            assembled = anthropic.assemble_stream(group)
            assert assembled.problems == () and assembled.complete
            assert anthropic.read_response(assembled.body).turn is not None
    else:
        body = loads(path.read_text())
        assert anthropic.sniff(body, "response")
        assert anthropic.read_response(body).turn is not None


def vercel(name: str) -> Any:
    path = VERCEL / name
    if name.endswith(".json"):
        return anthropic.read_response(loads(path.read_text()))
    return anthropic.read_response(anthropic.assemble_stream(lines(path.read_text())).body)


@pytest.mark.needs_corpus
def test_vercel_fixtures_facts():
    reasoning = vercel("anthropic-claude-opus-5-reasoning-high.1.json").turn.parts[0]
    assert reasoning.origin == A and reasoning.signature.startswith("CAISqwQKhwEIEBgCKkAc")
    thinking = vercel("anthropic-clear-thinking.1.chunks.txt").turn.parts[0]
    assert thinking.text.endswith("925 ÷ 5 = 185") and thinking.signature.startswith("EvQBCkYICxgC")
    weather = vercel("anthropic-json-other-tool.1.chunks.txt").turn.parts[0]
    assert (weather.name, weather.arguments, weather.wire_id) == (
        "weather", {"location": "San Francisco"}, "toolu_019Zvehfe1XQWweT1pm7okyt")
    assert vercel("anthropic-json-tool.1.chunks.txt").turn.parts[0].arguments == {
        "elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}
    no_args = vercel("anthropic-tool-no-args.chunks.txt")
    assert [p.type for p in no_args.turn.parts] == ["text", "invocation"]
    assert no_args.turn.parts[1].arguments == {} and no_args.finish_reason == "tool_use"
    mcp = vercel("anthropic-mcp.1.chunks.txt").turn.parts
    assert mcp[0].value["input"] == {"message": "hello world"}  # mcp_tool_use input is streamed too
    assert [p.value["type"] for p in mcp[:2]] == ["mcp_tool_use", "mcp_tool_result"]
    code = vercel("anthropic-code-execution-20260120-prompt-cache.1.chunks.txt").turn.parts[0]
    assert code.value["input"]["command"].startswith("for n in $(seq 1 12)")
    fetch = vercel("anthropic-web-fetch-tool.error.json").turn.parts[2]
    assert fetch.value["content"] == {"type": "web_fetch_tool_result_error", "error_code": "unavailable"}
    programmatic = vercel("anthropic-programmatic-tool-calling.1.json").turn
    rolls = list(programmatic.invocations())
    assert len(rolls) == 4 and rolls[0].meta == {A: {"caller": {
        "type": "code_execution_20250825", "tool_id": "srvtoolu_01CberhXc9TgYXrCZU8bQoks"}}}
    assert vercel("anthropic-message-delta-input-tokens.chunks.txt").usage["input_tokens"] == 61
    web = vercel("anthropic-web-search-tool.1.json").turn.parts
    assert any(p.meta.get(A, {}).get("citations") for p in web if isinstance(p, Text))


@pytest.mark.parametrize("name", ["request.json", "response.json", "parallel-calls.jsonl", "stream.sse"])
def test_samples_read_cleanly(name):
    text = (SAMPLES / name).read_text()
    if name == "request.json":
        written = anthropic.write(as_conversation(anthropic.read_request(loads(text))))
        assert written.losses == ()
    elif name == "response.json":
        assert anthropic.read_response(loads(text)).turn is not None
    elif name == "stream.sse":
        assert response_of(text).finish_reason == "tool_use"
    else:
        exchanges = [loads(row) for row in text.splitlines()]
        assert len(exchanges) >= 2
        for exchange in exchanges:
            assert anthropic.sniff(exchange["request"]["body"], "request")
            request = anthropic.read_request(exchange["request"]["body"])
            assert anthropic.write(as_conversation(request)).losses == ()
            assert anthropic.read_response(exchange["response"]["body"]).turn is not None
        final = anthropic.read_request(exchanges[-1]["request"]["body"])
        results = [p for t in final.turns for p in t.results()]
        assert any(r.is_error for r in results) and all(r.invocation_id for r in results)


# ------------------------------------------------------------------------------------ properties

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(st.one_of(conversations(), conversations(reasoning_origin=A)))
def test_write_then_read_loses_only_what_it_reports(conv):
    written = anthropic.write(conv)
    back = as_conversation(anthropic.read_request(written.body))
    assert_losses_explain(conv, back, written.losses)
    assert anthropic.write(back).body == written.body


@PROPERTY
@given(conversations(reasoning_origin="openai-responses"))
def test_reasoning_of_another_origin_is_reported_lost(conv):
    written = anthropic.write(conv)
    back = as_conversation(anthropic.read_request(written.body))
    assert_losses_explain(conv, back, written.losses)
    for ti, turn in enumerate(conv.turns):
        for pi, part in enumerate(turn.parts):
            if isinstance(part, Reasoning):
                assert any(loss.turn == ti and loss.part == pi and "openai-responses" in loss.message
                           for loss in written.losses)
    assert not any(isinstance(p, Reasoning) for t in back.turns for p in t.parts)
    assert anthropic.write(back).body == written.body


# Arbitrary JSON, biased towards the keys and values this reader looks at.
WORDS = ["messages", "role", "content", "type", "text", "id", "name", "input", "tool_use_id", "is_error",
         "source", "data", "media_type", "url", "file_id", "thinking", "signature", "tools", "system",
         "tool_choice", "user", "assistant", "system", "tool_use", "tool_result", "image", "document",
         "base64", "redacted_thinking", "error", "message", "index", "delta", "content_block",
         "message_start", "content_block_start", "content_block_delta", "content_block_stop",
         "message_delta", "message_stop", "text_delta", "input_json_delta", "partial_json",
         "citations_delta", "signature_delta", "thinking_delta", "usage", "stop_reason", "auto", "tool"]
junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(WORDS), st.text(max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.sampled_from(WORDS), st.text(max_size=3)),
                                            inner, max_size=5)),
    max_leaves=25)


@PROPERTY
@given(junk)
def test_readers_raise_only_format_error_on_arbitrary_json(value):
    assert anthropic.sniff(value, "request") in (True, False)
    assert anthropic.sniff(value, "response") in (True, False)
    try:
        request = anthropic.read_request(value)
    except FormatError:
        pass
    else:
        anthropic.write(as_conversation(request))
    try:
        anthropic.read_response(value)
    except FormatError:
        pass


def test_list_valued_types_are_tolerated():
    body = {"messages": [{"role": "user", "content": [{"type": []}]}], "tool_choice": {"type": []}}
    assert anthropic.sniff(body, "request") is False
    with pytest.raises(FormatError):
        anthropic.read_request(body)
    assert anthropic.read_request({"messages": [], "tool_choice": {"type": {}}}).meta == {
        A: {"tool_choice": {"type": {}}}}
    events = [StreamEvent(0, {"type": "message_start", "message": {"content": []}}),
              StreamEvent(1, {"type": "content_block_start", "index": 0, "content_block": {"type": [1]}}),
              StreamEvent(2, {"type": "content_block_delta", "index": 0, "delta": {"type": ["x"]}}),
              StreamEvent(3, {"type": ["message_stop"]}, "message_stop")]
    assembled = anthropic.assemble_stream(events)
    assert [(p.kind, p.chunk) for p in assembled.problems] == [("other", 2), ("truncated", 1)]
    assert assembled.complete


@PROPERTY
@given(st.lists(st.tuples(junk, st.sampled_from([None, "message_start", "ping", "error"])), max_size=8))
def test_stream_assembly_never_crashes(pairs):
    events = [StreamEvent(i, data, name) for i, (data, name) in enumerate(pairs)]
    anthropic.sniff_stream(events)
    for group in anthropic.split_streams(events):
        assembled = anthropic.assemble_stream(group)
        try:
            anthropic.read_response(assembled.body)
        except FormatError:
            pass
