"""The client side: a small agent loop over HTTP, as an application built on an SDK runs it. It asks
about the weather in two cities, runs the calls it gets back (Bergen's weather service times out),
replays the assistant message as it received it with the results, and stops at the answer — or when
a call's arguments cannot be parsed, or the relay answers with an error.

`protocol="openai-chat"` talks to the relay's /v1/chat/completions (optionally streamed, the chunks
accumulated as openai-python does: fragments merged by `index`, strings concatenated);
`protocol="anthropic"` to its /v1/messages, where a failed tool result carries `is_error: true`."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

QUESTION = "What's the weather in Oslo and Bergen right now?"
SYSTEM = "You are a weather assistant. Use the tools; never guess a reading."
SCHEMA = {"type": "object", "properties": {"city": {"type": "string", "description": "City name, e.g. Oslo"},
                                           "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
          "required": ["city"]}
MODEL = "claude-sonnet-4-5"


def weather(arguments: dict[str, Any]) -> tuple[str, bool]:
    """The tool: (output, failed)."""
    city = arguments.get("city")
    if city == "Oslo":
        return "Oslo: 4 °C, overcast, wind 5 m/s", False
    if city == "Bergen":
        return "weather service timed out after 10 s", True
    return f"missing required argument 'city' (got {sorted(arguments)})", True


def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - 127.0.0.1 only
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def run(base: str, *, protocol: str = "openai-chat", stream: bool = False, rounds: int = 3) -> list[int]:
    """The agent loop against the relay at `base`; the HTTP status of each exchange."""
    return (_chat if protocol == "openai-chat" else _messages)(base, stream, rounds)


def _chat(base: str, stream: bool, rounds: int) -> list[int]:
    headers = {"authorization": "Bearer sk-relay-client-key-00000000000000000000"}
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
                                               "parameters": SCHEMA}}]
    statuses = []
    for _ in range(rounds):
        body: dict[str, Any] = {"model": MODEL, "messages": messages, "tools": tools, "tool_choice": "auto"}
        if stream:
            body["stream"] = True
        status, data = post(f"{base}/v1/chat/completions", body, headers)
        statuses.append(status)
        if status != 200:
            return statuses
        message = _accumulate(data.decode()) if stream else json.loads(data)["choices"][0]["message"]
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            return statuses
        for call in calls:
            arguments = call["function"]["arguments"]
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    return statuses  # the agent cannot run a call it cannot read
            output, failed = weather(arguments)
            messages.append({"role": "tool", "tool_call_id": call["id"],
                             "content": f"Error: {output}" if failed else output})
    return statuses


def _accumulate(sse: str) -> dict[str, Any]:
    """Chunks → the assistant message, as openai-python's accumulator builds it."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    for line in sse.splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        delta = json.loads(line[6:])["choices"][0]["delta"]
        if delta.get("content"):
            message["content"] = (message["content"] or "") + delta["content"]
        for fragment in delta.get("tool_calls") or []:
            call = calls.setdefault(fragment["index"], {"id": "", "type": "function",
                                                        "function": {"name": "", "arguments": ""}})
            call["id"] += fragment.get("id") or ""
            for key in ("name", "arguments"):
                call["function"][key] += (fragment.get("function") or {}).get(key) or ""
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


def _messages(base: str, stream: bool, rounds: int) -> list[int]:
    headers = {"x-api-key": "sk-ant-api03-relay-client-key-0000000000000000", "anthropic-version": "2023-06-01"}
    tools = [{"name": "get_weather", "description": "Current weather in a city.", "input_schema": SCHEMA}]
    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
    statuses = []
    for _ in range(rounds):
        body = {"model": MODEL, "max_tokens": 1024, "system": SYSTEM, "tools": tools, "messages": messages}
        status, data = post(f"{base}/v1/messages", body, headers)
        statuses.append(status)
        if status != 200:
            return statuses
        answer = json.loads(data)
        messages.append({"role": "assistant", "content": answer["content"]})
        uses = [b for b in answer["content"] if b["type"] == "tool_use"]
        if not uses:
            return statuses
        results = []
        for use in uses:
            output, failed = weather(use["input"])
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": output,
                            **({"is_error": True} if failed else {})})
        messages.append({"role": "user", "content": results})
    return statuses
