"""Anthropic Messages, `POST /v1/messages` (the SDK's base URL is the host; it adds `/v1/messages`).

Validation (400 `invalid_request_error`), in the API's words as quoted in public issues
(/work/shared/reference/formats.md §3.5). Consecutive messages of one role are combined first, as the
API documents ("Consecutive `user` or `assistant` turns in your request will be combined into a
single turn", anthropic-sdk-python `message_create_params.py`):

* `max_tokens` missing — "max_tokens: Field required";
* a `tool_use` not answered in the next message — "messages.N: `tool_use` ids were found without
  `tool_result` blocks immediately after: toolu_…. Each `tool_use` block must have a corresponding
  `tool_result` block in the next message." (anthropics/claude-code#8210);
* a `tool_result` answering no `tool_use` of the previous message — "messages.N.content.M: unexpected
  `tool_use_id` found in `tool_result` blocks: toolu_…. Each `tool_result` block must have a
  corresponding `tool_use` block in the previous message." (anthropics/claude-code#18947);
* a `tool_use` whose `input` is not an object — "messages.N.content.M.tool_use.input: Input should be
  a valid dictionary" (ComposioHQ/composio#3429).

A wrong key (in `x-api-key`, or in `Authorization: Bearer` as the SDK sends it since 2.x): 401
`authentication_error` "invalid x-api-key" (eyaltoledano/claude-task-master#222).
A stream is SSE with `event:` lines (§3.6): `message_start`, per block `content_block_start`, its
deltas (a call's input in `input_json_delta` pieces, the first one empty as the API sends it),
`content_block_stop`, then `message_delta` with the stop reason and `message_stop`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .model import Ask, Call, Reply, Result, Turn
from .wire import Auth, Failure, Route, bearer, halves, pieces, sse, token

NAME = "anthropic"
PATH = "/v1/messages"


def route(path: str, query: dict[str, str]) -> Route | None:
    return Route(stream=False) if path == PATH else None


def error(status: int, message: str, kind: str = "invalid_request_error") -> Failure:
    return Failure(status, {"type": "error", "error": {"type": kind, "message": message},
                            "request_id": "req_011CStandInProvider"})


def _credential(headers: dict[str, str], query: dict[str, str]) -> str | None:
    """`x-api-key`, as the API documents it, or `Authorization: Bearer`, how anthropic-sdk-python 2.x
    sends an API key (`Anthropic._api_key_auth` in its `_client.py`)."""
    return headers.get("x-api-key") or bearer(headers, query)


AUTH = Auth(credential=_credential, refuse=lambda key: error(401, "invalid x-api-key", "authentication_error"))


def combined(messages: list[dict[str, Any]]) -> list[tuple[int, str, list[dict[str, Any]]]]:
    """(index of the first message, role, blocks): consecutive messages of one role joined."""
    out: list[tuple[int, str, list[dict[str, Any]]]] = []
    for i, message in enumerate(messages):
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        if out and out[-1][1] == message.get("role"):
            out[-1][2].extend(blocks)
        else:
            out.append((i, message.get("role"), list(blocks)))
    return out


def invalid(body: dict[str, Any]) -> Failure | None:
    if "max_tokens" not in body:
        return error(400, "max_tokens: Field required")
    turns = combined(body.get("messages") or [])
    for n, (i, _role, blocks) in enumerate(turns):
        for j, block in enumerate(blocks):
            if block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
                return error(400, f"messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary")
        uses = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
        following = turns[n + 1][2] if n + 1 < len(turns) else None
        if uses and following is not None:
            answered = {b.get("tool_use_id") for b in following if b.get("type") == "tool_result"}
            missing = [u for u in uses if u not in answered]
            if missing:
                return error(400, f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
                                  f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
                                  "`tool_result` block in the next message.")
        called = {b.get("id") for b in turns[n - 1][2] if b.get("type") == "tool_use"} if n else set()
        for j, block in enumerate(blocks):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in called:
                return error(400, f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                                  f"blocks: {block.get('tool_use_id')}. Each `tool_result` block must have a "
                                  "corresponding `tool_use` block in the previous message.")
    return None


def ask(body: dict[str, Any]) -> Ask:
    turns = []
    for _i, role, blocks in combined(body["messages"]):
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        calls = tuple(Call(b["name"], b["input"], b.get("id")) for b in blocks if b.get("type") == "tool_use")
        results = tuple(Result(_text(b.get("content")), b.get("tool_use_id")) for b in blocks
                        if b.get("type") == "tool_result")
        turns.append(Turn(role, text, calls, results))
    tools = {t["name"]: t.get("input_schema") or {} for t in body.get("tools") or [] if "name" in t}
    choice = body.get("tool_choice") or {"type": "auto" if tools else "none"}
    mode = {"any": "required"}.get(choice.get("type"), choice.get("type"))
    return Ask(tuple(turns), tools, mode, choice.get("name"), not choice.get("disable_parallel_tool_use", False))


def respond(body: dict[str, Any], reply: Reply, n: int, model: str | None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    for k, (name, arguments) in enumerate(reply.calls):
        content.append({"type": "tool_use", "id": f"toolu_01{token(n, k, 22)}", "name": name, "input": arguments})
    return {"id": f"msg_01{token(n, 0, 22)}", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": content, "stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 60 * n, "output_tokens": 20}}


def _double_encoded(response: dict[str, Any]) -> None:
    """Each `tool_use`'s `input` JSON-encoded: a string where the API sends an object (TD204)."""
    for block in response["content"]:
        if block["type"] == "tool_use":
            block["input"] = json.dumps(block["input"])


def _tool_use_stop(response: dict[str, Any]) -> None:
    """`stop_reason: "tool_use"` whatever the message holds: on a text answer, a reason with no
    call (TD602)."""
    response["stop_reason"] = "tool_use"


#: The defects a test can plant in every answer (`standin(plant=…)`).
PLANTS = {"double-encoded-arguments": _double_encoded, "finish-reason-mismatch": _tool_use_stop}


def stream(body: dict[str, Any], message: dict[str, Any]) -> Iterator[bytes]:
    start = {**message, "content": [], "stop_reason": None,
             "usage": {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}}
    yield sse({"type": "message_start", "message": start}, "message_start")
    for index, block in enumerate(message["content"]):
        opened = {"type": "text", "text": ""} if block["type"] == "text" else {**block, "input": {}}
        yield sse({"type": "content_block_start", "index": index, "content_block": opened}, "content_block_start")
        if block["type"] == "text":
            deltas = [{"type": "text_delta", "text": piece} for piece in pieces(block["text"])]
        else:
            deltas = [{"type": "input_json_delta", "partial_json": piece}
                      for piece in ["", *halves(json.dumps(block["input"]))]]
        for delta in deltas:
            yield sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
        yield sse({"type": "content_block_stop", "index": index}, "content_block_stop")
    yield sse({"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
               "usage": {"output_tokens": message["usage"]["output_tokens"]}}, "message_delta")
    yield sse({"type": "message_stop"}, "message_stop")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))
