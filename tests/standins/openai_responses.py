"""OpenAI Responses, `POST /v1/responses` (stateless: the history is replayed in `input`).

Validation (400, `invalid_request_error`, `param: "input"`), as quoted in public issues
(/work/shared/reference/formats.md §2.5):

* a `function_call` with no `function_call_output` for it — "No tool output found for function call
  call_…." (router-for-me/CLIProxyAPI#2368);
* a `function_call_output` whose `call_id` no `function_call` has — "No tool call found for function
  call output with call_id call_…." (microsoft/vscode#320060).

The response has no finish reason: a call is a `function_call` output item. A stream is SSE with
`event:` lines and a `sequence_number` on every event (§2.4): `response.created`,
`response.in_progress`, per item `response.output_item.added`, its text deltas or
`response.function_call_arguments.delta` pieces and `.done`, `response.output_item.done`, then
`response.completed`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from . import openai_chat
from .model import Ask, Call, Reply, Result, Turn
from .wire import Failure, Route, halves, pieces, sse, token

NAME = "openai-responses"
PATH = "/v1/responses"
#: The same keys, refused in the same words, as Chat Completions.
AUTH = openai_chat.AUTH
error = openai_chat.error


def route(path: str, query: dict[str, str]) -> Route | None:
    return Route(stream=False) if path == PATH else None


def invalid(body: dict[str, Any]) -> Failure | None:
    items = body.get("input")
    if items is None:
        return error(400, "Missing required parameter: 'input'.", param="input", code="missing_required_parameter")
    if isinstance(items, str):
        return None
    calls = [i.get("call_id") for i in items if i.get("type") == "function_call"]
    outputs = [i.get("call_id") for i in items if i.get("type") == "function_call_output"]
    for call_id in outputs:
        if call_id not in calls:
            return error(400, f"No tool call found for function call output with call_id {call_id}.", param="input")
    for call_id in calls:
        if call_id not in outputs:
            return error(400, f"No tool output found for function call {call_id}.", param="input")
    return None


def ask(body: dict[str, Any]) -> Ask:
    items = body["input"]
    turns: list[Turn] = []
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            call = Call(item["name"], json.loads(item["arguments"]), item.get("call_id"))
            if turns and turns[-1].role == "assistant":
                turns[-1] = Turn("assistant", turns[-1].text, (*turns[-1].calls, call))
            else:
                turns.append(Turn("assistant", calls=(call,)))
        elif kind == "function_call_output":
            result = Result(text=_text(item.get("output")), id=item.get("call_id"))
            if turns and turns[-1].results:
                turns[-1] = Turn("user", results=(*turns[-1].results, result))
            else:
                turns.append(Turn("user", results=(result,)))
        elif kind == "message" and item.get("role") in ("user", "assistant"):
            turns.append(Turn(item["role"], _text(item.get("content"))))
    tools = {t["name"]: t.get("parameters") or {} for t in body.get("tools") or [] if t.get("type") == "function"}
    choice = body.get("tool_choice", "auto" if tools else "none")
    parallel = body.get("parallel_tool_calls", True)
    if isinstance(choice, dict):
        return Ask(tuple(turns), tools, "tool", choice.get("name"), parallel)
    return Ask(tuple(turns), tools, choice, None, parallel)


def respond(body: dict[str, Any], reply: Reply, n: int, model: str | None) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if reply.text:
        output.append({"id": f"msg_{token(n, 0, 48)}", "type": "message", "status": "completed",
                       "role": "assistant", "content": [{"type": "output_text", "text": reply.text,
                                                         "annotations": []}]})
    for k, (name, arguments) in enumerate(reply.calls):
        output.append({"id": f"fc_{token(n, k, 48)}", "type": "function_call", "status": "completed",
                       "arguments": json.dumps(arguments), "call_id": f"call_{token(n, k + 50, 24)}", "name": name})
    return {"id": f"resp_{token(n, 0, 48)}", "object": "response", "created_at": 1760000000 + n,
            "status": "completed", "error": None, "incomplete_details": None, "model": body.get("model"),
            "output": output, "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools") or [],
            "usage": {"input_tokens": 60 * n, "output_tokens": 20, "total_tokens": 60 * n + 20}}


def _double_encoded(response: dict[str, Any]) -> None:
    """Each `function_call`'s `arguments` JSON-encoded once more: a string that decodes to a string."""
    for item in response["output"]:
        if item.get("type") == "function_call":
            item["arguments"] = json.dumps(item["arguments"])


#: The defects a test can plant in every answer (`standin(plant=…)`); a response has no finish reason
#: to contradict its calls.
PLANTS = {"double-encoded-arguments": _double_encoded}


def stream(body: dict[str, Any], response: dict[str, Any]) -> Iterator[bytes]:
    number = iter(range(10_000))

    def event(kind: str, **fields: Any) -> bytes:
        return sse({"type": kind, "sequence_number": next(number), **fields}, event=kind)

    snapshot = {**response, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=snapshot)
    yield event("response.in_progress", response=snapshot)
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield event("response.output_item.added", output_index=index,
                        item={**item, "status": "in_progress", "content": []})
            part = {"type": "output_text", "text": "", "annotations": []}
            yield event("response.content_part.added", item_id=item["id"], output_index=index, content_index=0,
                        part=part)
            for piece in pieces(text):
                yield event("response.output_text.delta", item_id=item["id"], output_index=index, content_index=0,
                            delta=piece, logprobs=[])
            yield event("response.output_text.done", item_id=item["id"], output_index=index, content_index=0,
                        text=text, logprobs=[])
            yield event("response.content_part.done", item_id=item["id"], output_index=index, content_index=0,
                        part={**part, "text": text})
        else:
            yield event("response.output_item.added", output_index=index,
                        item={**item, "status": "in_progress", "arguments": ""})
            for piece in halves(item["arguments"]):
                yield event("response.function_call_arguments.delta", item_id=item["id"], output_index=index,
                            delta=piece)
            yield event("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                        arguments=item["arguments"])
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=response)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
