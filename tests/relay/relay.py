"""A small relay ("API transit station"): clients speak OpenAI Chat Completions
(`POST /v1/chat/completions`), the upstream is Anthropic Messages. Requests are translated to
Anthropic, answers (bodies and SSE streams) back to OpenAI Chat; the relay issues its own call ids
(`toolu_…` upstream ↔ `call_…` for the client), consistently, and flags a tool message that says
"Error…" with `is_error` (Chat has no flag; Anthropic has one, TD304). Anthropic Messages clients
(`POST /v1/messages`) are passed through unchanged — the route the `is_error` fault needs, since a
Chat client has no failure flag to lose.

Every exchange is captured on both sides as HAR: `client` (what the client sent and received) and
`upstream` (what the upstream received and answered). `faults` switches on what real relays get
wrong, one name each (`FAULTS`)."""

from __future__ import annotations

import http.client
import json
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

FAULTS = {
    "drop-tools": "the upstream request carries no tools (nor tool_choice)",
    "strip-schema": "every input_schema sent upstream is a bare {\"type\": \"object\"}",
    "drop-parallel-result": "of several tool messages in a row, only the first becomes a tool_result",
    "fold-is-error": "/v1/messages: a failed tool_result's is_error is folded into an \"Error: \" prefix",
    "drop-text-beside-call": "the text of an answer that calls tools is not passed to the client",
    "arguments-as-object": "a call's arguments reach the client as a JSON object, not a string",
    "reindex-stream": "every streamed tool-call fragment reaches the client at index 0",
}


class Relay(BaseHTTPRequestHandler):
    """`server.upstream` is the upstream's base URL, `server.faults` a set of `FAULTS` names,
    `server.client_har` and `server.upstream_har` the captures."""

    server_version = "tiny-relay/1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass

    @property
    def faults(self) -> set[str]:
        return self.server.faults  # type: ignore[attr-defined, no-any-return]

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        started = time.time()
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.loads(raw)
        if self.path == "/v1/messages":
            status, headers, data = self.upstream(self.messages_request(body))
        else:
            status, headers, data = self.chat(body)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        client_headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.client_har.add("POST", f"http://{self.headers['host']}{self.path}",  # type: ignore[attr-defined]
                                   client_headers, raw, status, headers, data, started, time.time() - started)

    # -- upstream

    def upstream(self, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        """Send `body` to the upstream's /v1/messages; capture both directions."""
        started = time.time()
        base = self.server.upstream  # type: ignore[attr-defined]
        host, port = base.removeprefix("http://").split(":")
        data = json.dumps(body).encode()
        headers = {"content-type": "application/json", "x-api-key": "sk-ant-api03-relay-upstream-key-000000000000",
                   "anthropic-version": "2023-06-01"}
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            connection.request("POST", "/v1/messages", data, headers)
            response = connection.getresponse()
            answer = response.read()
            answer_headers = {"content-type": response.getheader("content-type", "application/json")}
            status = response.status
        finally:
            connection.close()
        self.server.upstream_har.add("POST", f"{base}/v1/messages", headers, data,  # type: ignore[attr-defined]
                                     status, answer_headers, answer, started, time.time() - started)
        return status, answer_headers, answer

    def messages_request(self, body: dict[str, Any]) -> dict[str, Any]:
        if "fold-is-error" not in self.faults:
            return body
        out = json.loads(json.dumps(body))
        for message in out["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if block.get("type") == "tool_result" and block.pop("is_error", False):
                    block["content"] = "Error: " + _text(block.get("content"))
        return out

    # -- OpenAI Chat → Anthropic → OpenAI Chat

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        status, headers, answer = self.upstream(self.to_anthropic(body))
        if status >= 400:
            error = json.loads(answer).get("error", {})
            return status, {"content-type": "application/json"}, json.dumps(
                {"error": {"message": error.get("message"), "type": error.get("type"), "param": None,
                           "code": None}}).encode()
        if body.get("stream"):
            return 200, {"content-type": "text/event-stream"}, self.to_chat_stream(answer.decode())
        return 200, {"content-type": "application/json"}, json.dumps(self.to_chat(json.loads(answer))).encode()

    def to_anthropic(self, body: dict[str, Any]) -> dict[str, Any]:
        system = [m["content"] for m in body["messages"] if m["role"] in ("system", "developer")]
        messages: list[dict[str, Any]] = []
        run: list[dict[str, Any]] = []  # the tool messages in a row
        for message in body["messages"]:
            role = message["role"]
            if role == "tool":
                run.append(message)
                continue
            self.flush(run, messages)
            run = []
            if role == "user":
                _append(messages, "user", _blocks(message["content"]))
            elif role == "assistant":
                blocks = _blocks(message.get("content"))
                for call in message.get("tool_calls") or []:
                    arguments = call["function"]["arguments"]
                    blocks.append({"type": "tool_use", "id": _upstream_id(call["id"]), "name": call["function"]["name"],
                                   "input": json.loads(arguments) if isinstance(arguments, str) else arguments})
                _append(messages, "assistant", blocks)
        self.flush(run, messages)
        out: dict[str, Any] = {"model": body["model"], "max_tokens": body.get("max_tokens") or 4096,
                               "messages": messages}
        if system:
            out["system"] = "\n".join(system)
        if body.get("tools") and "drop-tools" not in self.faults:
            out["tools"] = [{"name": t["function"]["name"], "description": t["function"].get("description", ""),
                             "input_schema": {"type": "object"} if "strip-schema" in self.faults
                             else t["function"].get("parameters") or {"type": "object"}} for t in body["tools"]]
            choice = body.get("tool_choice")
            if choice is not None:
                out["tool_choice"] = ({"type": "any"} if choice == "required" else {"type": choice}
                                      if isinstance(choice, str) else {"type": "tool", "name": choice["function"]["name"]})
        if body.get("stream"):
            out["stream"] = True
        return out

    def flush(self, run: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
        if "drop-parallel-result" in self.faults:
            run = run[:1]
        if run:  # a Chat tool message has no failure flag: one that says "Error…" gets Anthropic's
            _append(messages, "user", [{"type": "tool_result", "tool_use_id": _upstream_id(m["tool_call_id"]),
                                        "content": _text(m["content"]),
                                        **({"is_error": True} if _text(m["content"]).startswith("Error") else {})}
                                       for m in run])

    def to_chat(self, message: dict[str, Any]) -> dict[str, Any]:
        calls = [b for b in message["content"] if b["type"] == "tool_use"]
        text = "".join(b["text"] for b in message["content"] if b["type"] == "text")
        if calls and "drop-text-beside-call" in self.faults:
            text = ""
        out: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            out["tool_calls"] = [{"id": _client_id(c["id"]), "type": "function", "function": {
                "name": c["name"],
                "arguments": c["input"] if "arguments-as-object" in self.faults else json.dumps(c["input"])}}
                for c in calls]
        return {"id": "chatcmpl-" + message["id"].removeprefix("msg_"), "object": "chat.completion",
                "created": 1760000000, "model": message["model"],
                "choices": [{"index": 0, "message": out, "finish_reason": _finish(message["stop_reason"])}],
                "usage": {"prompt_tokens": message["usage"]["input_tokens"],
                          "completion_tokens": message["usage"]["output_tokens"],
                          "total_tokens": message["usage"]["input_tokens"] + message["usage"]["output_tokens"]}}

    def to_chat_stream(self, sse: str) -> bytes:
        """Anthropic events → OpenAI chunks, one per event that carries something."""
        events = [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: ")]
        start = events[0]["message"]
        calls_in = {e["index"] for e in events if e["type"] == "content_block_start"
                    and e["content_block"]["type"] == "tool_use"}
        base = {"id": "chatcmpl-" + start["id"].removeprefix("msg_"), "object": "chat.completion.chunk",
                "created": 1760000000, "model": start["model"]}
        chunks: list[dict[str, Any]] = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                                              "finish_reason": None}]}]
        call_index: dict[int, int] = {}
        for event in events:
            delta: dict[str, Any] | None = None
            if event["type"] == "content_block_start" and event["content_block"]["type"] == "tool_use":
                block = event["content_block"]
                call_index[event["index"]] = 0 if "reindex-stream" in self.faults else len(call_index)
                delta = {"tool_calls": [{"index": call_index[event["index"]], "id": _client_id(block["id"]),
                                         "type": "function", "function": {"name": block["name"], "arguments": ""}}]}
            elif event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
                if calls_in and "drop-text-beside-call" in self.faults:
                    continue
                delta = {"content": event["delta"]["text"]}
            elif event["type"] == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
                delta = {"tool_calls": [{"index": call_index[event["index"]],
                                         "function": {"arguments": event["delta"]["partial_json"]}}]}
            elif event["type"] == "message_delta":
                chunks.append({**base, "choices": [{"index": 0, "delta": {},
                                                    "finish_reason": _finish(event["delta"]["stop_reason"])}]})
            if delta is not None:
                chunks.append({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def _blocks(content: Any) -> list[dict[str, Any]]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [{"type": "text", "text": p["text"]} for p in content if p.get("type") == "text"]


def _append(messages: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Anthropic alternates roles: a message of the role of the last one joins it."""
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"].extend(blocks)
    else:
        messages.append({"role": role, "content": blocks})


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [])


def _finish(stop: str | None) -> str:
    return {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}.get(stop or "", "stop")


def _client_id(upstream_id: str) -> str:
    return "call_" + upstream_id.removeprefix("toolu_")


def _upstream_id(client_id: str) -> str:
    return "toolu_" + client_id.removeprefix("call_")
