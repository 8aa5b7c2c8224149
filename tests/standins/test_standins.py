"""The stand-ins answer as the providers do: a call the request forces, read by tooldbg's own readers
(built from real traffic) the same whether it came as a body or as a stream in the API's framing;
the API's refusal of a wrong key; the API's 400 for a call left unanswered. And they serve the tests
that need more than an answer: requests answered concurrently, each logged byte for byte, a stream
held after its first event until its gate opens, and a defect planted only where the API has it."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.standins import APIS, standin
from tests.standins.asks import QUESTION, REQUESTS, auth, post, streamed
from tooldbg import formats
from tooldbg.model import Invocation, Source
from tooldbg.records import eventstream, sse


def calls(api: str, data: bytes, content_type: str) -> list[tuple[str, Any]]:
    module = formats.get(api)
    if content_type.endswith(("event-stream", "eventstream")):
        events = sse.parse(data.decode()) if "text/" in content_type else eventstream.parse(data)
        assembled = module.assemble_stream(events, Source())
        assert assembled.problems == () and assembled.complete
        body = assembled.body
    else:
        body = json.loads(data)
    turn = module.read_response(body, Source()).turn
    assert turn is not None
    return [(p.name, p.arguments) for p in turn.parts if isinstance(p, Invocation)]


@pytest.mark.parametrize("api", APIS)
def test_a_forced_call_arrives_alike_as_a_body_and_as_a_stream(api):
    path, stream_path, _, body = REQUESTS[api]
    with standin(api, limit=3) as provider:
        headers = auth(api, provider.key)
        status, data, kind = post(provider.base_url + path, body, headers)
        assert status == 200, data
        status, streamed_data, streamed_kind = post(provider.base_url + stream_path, streamed(api, body), headers)
        assert status == 200 and streamed_kind.endswith(("event-stream", "eventstream"))
        status, _, _ = post(provider.base_url + path, body, {k: "Bearer wrong" for k in headers})
    assert calls(api, data, kind) == calls(api, streamed_data, streamed_kind) == \
        [("get_forecast", {"city_code": "OSL", "days": 3})]
    assert status == {"anthropic": 401, "openai-chat": 401, "openai-responses": 401, "gemini": 400,
                      "bedrock": 403}[api]
    assert len(provider.requests) == 2


#: api → (a history whose call is left unanswered, the start of the API's 400 text)
UNANSWERED = {
    "openai-chat": ({"messages": [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_forecast", "arguments": "{}"}}]},
        {"role": "user", "content": "and?"}]},
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        "'tool_call_id'. The following tool_call_ids did not have response messages: call_1"),
    "openai-responses": ({"input": [
        {"role": "user", "content": QUESTION},
        {"type": "function_call", "call_id": "call_1", "name": "get_forecast", "arguments": "{}"},
        {"role": "user", "content": "and?"}]}, "No tool output found for function call call_1."),
    "anthropic": ({"max_tokens": 10, "messages": [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_forecast", "input": {}}]},
        {"role": "user", "content": "and?"}]},
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1."),
    "gemini": ({"contents": [
        {"role": "user", "parts": [{"text": QUESTION}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_forecast", "args": {}}},
                                    {"functionCall": {"name": "get_forecast", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_forecast", "response": {"output": "x"}}}]}]},
        "Please ensure that the number of function response parts is equal to the number of function call parts"),
    "bedrock": ({"toolConfig": REQUESTS["bedrock"][3]["toolConfig"], "messages": [
        {"role": "user", "content": [{"text": QUESTION}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "get_forecast", "input": {}}}]},
        {"role": "user", "content": [{"text": "and?"}]}]},
        "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_1"),
}


@pytest.mark.parametrize("api", APIS)
def test_an_unanswered_call_is_refused_in_the_apis_words(api):
    path, _, _, body = REQUESTS[api]
    history, said = UNANSWERED[api]
    with standin(api, limit=1) as provider:
        status, data, _ = post(provider.base_url + path, {**body, **history}, auth(api, provider.key))
    assert status == 400
    assert said in data.decode()
    assert provider.requests == []


def test_a_stream_held_at_its_gate_while_another_request_is_answered_both_logged_byte_for_byte():
    path, stream_path, _, body = REQUESTS["anthropic"]
    with standin("anthropic", limit=2) as provider:
        gate = provider.gate = threading.Event()
        headers = auth("anthropic", provider.key)
        asked = json.dumps(streamed("anthropic", body)).encode()
        where = urlsplit(provider.url)
        connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=30)
        connection.request("POST", stream_path, asked, {"content-type": "application/json", **headers})
        response = connection.getresponse()
        first = response.read1(65536)
        # the stream waits at the gate, in its own thread: another request is answered meanwhile
        status, data, _ = post(provider.base_url + path, body, headers)
        gate.set()
        rest = response.read()
        connection.close()
    assert first.startswith(b"event: message_start") and first.count(b"\n\n") == 1  # event 1 alone
    assert status == 200 and rest.endswith(b"event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n")
    assert not provider.gate_timed_out
    held, answered = provider.log
    assert (held.path, held.received, held.status, held.sent) == (stream_path, asked, 200, first + rest)
    assert (answered.received, answered.status, answered.sent) == (json.dumps(body).encode(), 200, data)
    assert held.headers["x-api-key"] == provider.key


def test_a_defect_is_planted_only_where_the_api_has_it():
    with pytest.raises(ValueError, match="gemini stand-in: no planted defect 'finish-reason-mismatch'; "
                                         "it plants double-encoded-arguments"), \
            standin("gemini", plant="finish-reason-mismatch"):
        pass
