"""The stand-ins answer as the providers do: a call the request forces, read by tooldbg's own readers
(built from real traffic) the same whether it came as a body or as a stream in the API's framing;
the API's refusal of a wrong key; the API's 400 for a call left unanswered."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.standins import APIS, standin
from tooldbg import formats
from tooldbg.model import Invocation, Source
from tooldbg.records import eventstream, sse

SCHEMA = {"type": "object", "properties": {"city_code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                                           "days": {"type": "integer"}},
          "required": ["city_code", "days"]}
QUESTION = "Get the 3-day forecast for Oslo, city code OSL."

#: api → (path under base_url (a stream's path when it differs), auth headers, a request forcing get_forecast)
REQUESTS: dict[str, tuple[str, str, dict[str, str], dict[str, Any]]] = {
    "openai-chat": ("/chat/completions", "/chat/completions", {"authorization": "Bearer {key}"}, {
        "model": "m", "messages": [{"role": "user", "content": QUESTION}],
        "tools": [{"type": "function", "function": {"name": "get_forecast", "parameters": SCHEMA}}],
        "tool_choice": {"type": "function", "function": {"name": "get_forecast"}}}),
    "openai-responses": ("/responses", "/responses", {"authorization": "Bearer {key}"}, {
        "model": "m", "input": [{"role": "user", "content": QUESTION}],
        "tools": [{"type": "function", "name": "get_forecast", "parameters": SCHEMA, "strict": None}],
        "tool_choice": {"type": "function", "name": "get_forecast"}}),
    "anthropic": ("/v1/messages", "/v1/messages", {"x-api-key": "{key}", "anthropic-version": "2023-06-01"}, {
        "model": "m", "max_tokens": 512, "messages": [{"role": "user", "content": QUESTION}],
        "tools": [{"name": "get_forecast", "input_schema": SCHEMA}],
        "tool_choice": {"type": "tool", "name": "get_forecast"}}),
    "gemini": ("/models/m:generateContent", "/models/m:streamGenerateContent?alt=sse", {"x-goog-api-key": "{key}"}, {
        "contents": [{"role": "user", "parts": [{"text": QUESTION}]}],
        "tools": [{"functionDeclarations": [{"name": "get_forecast", "parametersJsonSchema": SCHEMA}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_forecast"]}}}),
    "bedrock": ("/model/m/converse", "/model/m/converse-stream", {"authorization": "Bearer {key}"}, {
        "messages": [{"role": "user", "content": [{"text": QUESTION}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "get_forecast", "inputSchema": {"json": SCHEMA}}}],
                       "toolChoice": {"tool": {"name": "get_forecast"}}}}),
}


def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes, str]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - 127.0.0.1 only
            return response.status, response.read(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers.get("content-type", "")


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
    path, stream_path, headers, body = REQUESTS[api]
    with standin(api, limit=3) as provider:
        auth = {k: v.format(key=provider.key) for k, v in headers.items()}
        status, data, kind = post(provider.base_url + path, body, auth)
        assert status == 200, data
        streamed = dict(body, stream=True) if api in ("openai-chat", "openai-responses", "anthropic") else body
        status, streamed_data, streamed_kind = post(provider.base_url + stream_path, streamed, auth)
        assert status == 200 and streamed_kind.endswith(("event-stream", "eventstream"))
        status, _, _ = post(provider.base_url + path, body, {k: "Bearer wrong" for k in auth})
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
    path, _, headers, body = REQUESTS[api]
    history, said = UNANSWERED[api]
    with standin(api, limit=1) as provider:
        auth = {k: v.format(key=provider.key) for k, v in headers.items()}
        status, data, _ = post(provider.base_url + path, {**body, **history}, auth)
    assert status == 400
    assert said in data.decode()
    assert provider.requests == []
