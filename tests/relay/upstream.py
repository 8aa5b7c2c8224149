"""A stand-in for the Anthropic Messages API (`POST /v1/messages`): it validates a request the way
the real API does where a relay can get it wrong (every `tool_use` answered by a `tool_result` in the
next message, every `tool_result` answering a `tool_use` of the previous one, roles alternating —
quoting the API's own 400 texts), and answers as a scripted model would: a question about the
weather in some cities → text and one `get_weather` call per city, in parallel (arguments built
from the declared schema: a model that is shown no parameters guesses their names); tool results →
an answer that uses them; no tools → an apology. `stream: true` is answered with Anthropic's SSE
events, each call's input in two `input_json_delta` fragments."""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"
CITIES = ("Oslo", "Bergen")


class Upstream(BaseHTTPRequestHandler):
    server_version = "stand-in-anthropic/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        problem = invalid(body)
        if problem is not None:
            self.send(400, {"type": "error", "error": {"type": "invalid_request_error", "message": problem}})
            return
        self.server.calls = getattr(self.server, "calls", 0) + 1  # type: ignore[attr-defined]
        message = answer(body, self.server.calls)  # type: ignore[attr-defined]
        if body.get("stream"):
            self.send_stream(message)
        else:
            self.send(200, message)

    def send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("request-id", "req_011CStandIn")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, message: dict[str, Any]) -> None:
        data = "".join(f"event: {name}\ndata: {json.dumps(event)}\n\n" for name, event in events(message)).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def invalid(body: dict[str, Any]) -> str | None:
    """The 400 the real API answers this request with, or None."""
    messages = body.get("messages") or []
    for i, message in enumerate(messages):
        if i and message.get("role") == messages[i - 1].get("role"):
            return f"messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"{message['role']}\" roles in a row"
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        following = messages[i + 1]["content"] if i + 1 < len(messages) else None
        following = following if isinstance(following, list) else []
        answered = {b.get("tool_use_id") for b in following if b.get("type") == "tool_result"}
        missing = [u for u in uses if u not in answered]
        if missing and i + 1 < len(messages):
            return (f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in "
                    "the next message.")
        previous = messages[i - 1]["content"] if i else None
        called = {b.get("id") for b in previous if b.get("type") == "tool_use"} if isinstance(previous, list) else set()
        for j, block in enumerate(blocks):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in called:
                return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message.")
    return None


def answer(body: dict[str, Any], n: int) -> dict[str, Any]:
    """What the scripted model says to this request (the n-th the upstream answers)."""
    last = body["messages"][-1]
    content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
    results = [b for b in content if b.get("type") == "tool_result"]
    tools = {t["name"]: t for t in body.get("tools") or []}
    if results:
        said = []
        for result in results:
            text = result.get("content")
            text = text if isinstance(text, str) else " ".join(b.get("text", "") for b in text or [])
            failed = result.get("is_error") or text.lower().startswith("error")
            said.append(f"I could not get one reading ({text})" if failed else text)
        blocks = [{"type": "text", "text": "Here is what I found: " + "; ".join(said) + "."}]
        return message(blocks, "end_turn", n)
    question = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
    cities = [c for c in CITIES if c in question]
    if "get_weather" not in tools or not cities:
        return message([{"type": "text", "text": "I can't look up live weather right now; please check a forecast "
                                                 "service."}], "end_turn", n)
    blocks = [{"type": "text", "text": f"I'll check the weather in {' and '.join(cities)}."}]
    for k, city in enumerate(cities):
        blocks.append({"type": "tool_use", "id": f"toolu_01{n:02d}{k}{city[:3].upper()}", "name": "get_weather",
                       "input": arguments(tools["get_weather"].get("input_schema") or {}, city)})
    return message(blocks, "tool_use", n)


def arguments(schema: dict[str, Any], city: str) -> dict[str, Any]:
    """A call's arguments as a model fills them from the schema it was shown."""
    properties = schema.get("properties") or {}
    if "city" not in properties:
        return {"location": city}  # shown no parameters, the model guesses a name
    args: dict[str, Any] = {"city": city}
    unit = properties.get("unit")
    if isinstance(unit, dict):
        args["unit"] = (unit.get("enum") or ["celsius"])[0]
    return args


def message(content: list[dict[str, Any]], stop: str, n: int) -> dict[str, Any]:
    return {"id": f"msg_01StandIn{n:04d}", "type": "message", "role": "assistant", "model": MODEL, "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 100 * n, "output_tokens": 20}}


def events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The message as Anthropic streams it."""
    start = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": message["usage"]["input_tokens"],
                                                                      "output_tokens": 1}}
    out: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            out.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {"type": "text", "text": ""}}))
            for piece in re.findall(r"\S+\s*", block["text"]):
                out.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                    "delta": {"type": "text_delta", "text": piece}}))
        else:
            out.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                "content_block": {**block, "input": {}}}))
            text = json.dumps(block["input"])
            for piece in (text[: len(text) // 2], text[len(text) // 2:]):
                out.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                    "delta": {"type": "input_json_delta", "partial_json": piece}}))
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": message["stop_reason"],
                                                                     "stop_sequence": None},
                                  "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
    out.append(("message_stop", {"type": "message_stop"}))
    return out
