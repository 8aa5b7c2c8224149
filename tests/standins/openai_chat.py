"""OpenAI Chat Completions, `POST /v1/chat/completions`.

Validation (400, `invalid_request_error`), in the API's own words as quoted in public issues (see
/work/shared/reference/formats.md §1.3, §1.7):

* `function.arguments` replayed as an object — "Invalid type for 'messages[2].tool_calls[0].function
  .arguments': expected a string, but got an object instead." (goose-mobile#20);
* a `tool` message that answers no `tool_calls` before it — "Invalid parameter: messages with role
  'tool' must be a response to a preceeding message with 'tool_calls'." (miurla/morphic#136);
* `tool_calls` not answered by the tool messages after them — "An assistant message with
  'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following
  tool_call_ids did not have response messages: call_…" (router-for-me/CLIProxyAPI#2798).

A call forced by naming a function ends with `finish_reason: "stop"`, as OpenAI answers it
(recorded: opencode `openai-chat/streams-tool-call`); `"tool_calls"` otherwise. A stream is data-only
SSE chunks as §1.6 describes: a call's first fragment carries `index`, `id`, `type`, `name` and
`arguments: ""`, later ones `index` and pieces of `arguments`; then the finish chunk, the usage
chunk when `stream_options.include_usage` asks for it, and `data: [DONE]`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .model import Ask, Call, Reply, Result, Turn
from .wire import Auth, Failure, Route, bearer, halves, pieces, sse, token

NAME = "openai-chat"
PATH = "/v1/chat/completions"


def route(path: str, query: dict[str, str]) -> Route | None:
    return Route(stream=False) if path == PATH else None


def error(status: int, message: str, *, kind: str = "invalid_request_error", param: str | None = None,
          code: str | None = None) -> Failure:
    return Failure(status, {"error": {"message": message, "type": kind, "param": param, "code": code}})


def unauthorized(key: str | None) -> Failure:
    """openai-python users see this body for a wrong key (chatanywhere/GPT_API_free#62): the key
    masked but for its first and last characters."""
    shown = f"{key[:5]}{'*' * max(len(key) - 9, 3)}{key[-4:]}" if key and len(key) > 12 else "***"
    return error(401, f"Incorrect API key provided: {shown}. You can find your API key at "
                      "https://platform.openai.com/account/api-keys.", code="invalid_api_key")


AUTH = Auth(credential=bearer, refuse=unauthorized)


def invalid(body: dict[str, Any]) -> Failure | None:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return error(400, "Missing required parameter: 'messages'.", param="messages",
                     code="missing_required_parameter")
    pending: list[str] = []  # ids of the last assistant message's calls not answered yet
    asked: int | None = None  # that message's index, while tool messages may follow it
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            if asked is None:
                return error(400, "Invalid parameter: messages with role 'tool' must be a response to a "
                                  "preceeding message with 'tool_calls'.", param=f"messages.[{i}].role")
            if message.get("tool_call_id") in pending:
                pending.remove(message.get("tool_call_id"))
            continue
        if pending and asked is not None:
            return unanswered(asked, pending)
        asked = None
        for j, call in enumerate(message.get("tool_calls") or []):
            if not isinstance((call.get("function") or {}).get("arguments"), str):
                return error(400, f"Invalid type for 'messages[{i}].tool_calls[{j}].function.arguments': "
                                  "expected a string, but got an object instead.",
                             param=f"messages[{i}].tool_calls[{j}].function.arguments", code="invalid_type")
            pending.append(call.get("id"))
            asked = i
    if pending and asked is not None:
        return unanswered(asked, pending)
    return None


def unanswered(at: int, ids: list[str]) -> Failure:
    return error(400, "An assistant message with 'tool_calls' must be followed by tool messages responding "
                      "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                      + ", ".join(ids), param=f"messages.[{at}].role")


def ask(body: dict[str, Any]) -> Ask:
    turns: list[Turn] = []
    for message in body["messages"]:
        role = message.get("role")
        if role == "tool":
            result = Result(text=_text(message.get("content")), id=message.get("tool_call_id"))
            if turns and turns[-1].results:
                turns[-1] = Turn("user", results=(*turns[-1].results, result))
            else:
                turns.append(Turn("user", results=(result,)))
        elif role == "assistant":
            calls = tuple(Call(c["function"]["name"], json.loads(c["function"]["arguments"]), c.get("id"))
                          for c in message.get("tool_calls") or [])
            turns.append(Turn("assistant", _text(message.get("content")), calls))
        elif role == "user":
            turns.append(Turn("user", _text(message.get("content"))))
    tools = {t["function"]["name"]: t["function"].get("parameters") or {} for t in body.get("tools") or []
             if t.get("type") == "function"}
    choice = body.get("tool_choice", "auto" if tools else "none")
    if isinstance(choice, dict):
        return Ask(tuple(turns), tools, "tool", (choice.get("function") or {}).get("name"),
                   body.get("parallel_tool_calls", True))
    return Ask(tuple(turns), tools, choice, None, body.get("parallel_tool_calls", True))


def respond(body: dict[str, Any], reply: Reply, n: int, model: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.calls:
        message["tool_calls"] = [{"id": f"call_{token(n, k, 24)}", "type": "function",
                                  "function": {"name": name, "arguments": json.dumps(arguments)}}
                                 for k, (name, arguments) in enumerate(reply.calls)]
    named = isinstance(body.get("tool_choice"), dict)
    finish = "tool_calls" if reply.calls and not named else "stop"
    return {"id": f"chatcmpl-{token(n, 0, 29)}", "object": "chat.completion", "created": 1760000000 + n,
            "model": body.get("model"), "choices": [{"index": 0, "message": message, "logprobs": None,
                                                     "finish_reason": finish}],
            "usage": {"prompt_tokens": 60 * n, "completion_tokens": 20, "total_tokens": 60 * n + 20}}


def _double_encoded(response: dict[str, Any]) -> None:
    """Each call's `arguments` JSON-encoded once more: a string that decodes to a string (TD201)."""
    for call in response["choices"][0]["message"].get("tool_calls") or []:
        call["function"]["arguments"] = json.dumps(call["function"]["arguments"])


def _tool_calls_finish(response: dict[str, Any]) -> None:
    """`finish_reason: "tool_calls"` whatever the message holds: on a text answer, a reason with no
    call (TD602)."""
    response["choices"][0]["finish_reason"] = "tool_calls"


#: The defects a test can plant in every answer (`standin(plant=…)`).
PLANTS = {"double-encoded-arguments": _double_encoded, "finish-reason-mismatch": _tool_calls_finish}


def stream(body: dict[str, Any], response: dict[str, Any]) -> Iterator[bytes]:
    head = {k: response[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    choice = response["choices"][0]
    message = choice["message"]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse({**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
                    "usage": None})

    yield chunk({"role": "assistant", "content": "" if message["content"] else None, "refusal": None})
    for piece in pieces(message["content"] or ""):
        yield chunk({"content": piece})
    for index, call in enumerate(message.get("tool_calls") or []):
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": call["function"]["name"], "arguments": ""}}]})
        for piece in halves(call["function"]["arguments"]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, choice["finish_reason"])
    if (body.get("stream_options") or {}).get("include_usage"):
        yield sse({**head, "choices": [], "usage": response["usage"]})
    yield sse("[DONE]")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
