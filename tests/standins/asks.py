"""What a client sends each API to be answered with a call: the path under `base_url` (and a
stream's path), the headers that carry the key, and a body forcing one `get_forecast` call for Oslo."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

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


def auth(api: str, key: str) -> dict[str, str]:
    """The headers that carry `key` to `api` (and Anthropic's version header)."""
    return {name: value.format(key=key) for name, value in REQUESTS[api][2].items()}


def streamed(api: str, body: dict[str, Any]) -> dict[str, Any]:
    """`body` asking for a stream: in the body for OpenAI and Anthropic, by the path for Gemini and
    Bedrock (the second path of `REQUESTS`)."""
    return dict(body, stream=True) if api in ("openai-chat", "openai-responses", "anthropic") else body


def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes, str]:
    """POST `body` as JSON: the status, the body read whole and its content type."""
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - 127.0.0.1 only
            return response.status, response.read(), response.headers.get("content-type", "")
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers.get("content-type", "")
