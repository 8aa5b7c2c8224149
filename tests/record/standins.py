"""Stand-in providers for the `record` tests, until the shared ones of tests/standins/ (issue 19)
replace them: OpenAI Chat Completions and Anthropic Messages, each answering with a planted defect
tooldbg must find in the recording, as one JSON body or as a stream of SSE events.

A stream is sent event by event on a connection the server closes at the end (no length given), so
the proxy cannot know where it ends before it does. With a `gate` set, the server withholds every
event after the first until the gate opens (the client opens it when it has received event 1): a
proxy that held the stream back would keep the gate shut until `GATE_WAIT` runs out, and the server
says so in `gate_timed_out`. Every request body received and every response body sent is kept,
byte for byte, to compare with the recording.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The longest a gated stream waits for its client (seconds): a bound, never an expectation.
GATE_WAIT = 20.0


class StandIn(ThreadingHTTPServer):
    """Serves on 127.0.0.1:<ephemeral> until `shutdown()`; `gate` and the logs are shared with the
    test. `stall` set: a stream stops after its first event until `stall` is set again (never, in
    the kill and Ctrl-C tests: the proxy is stopped mid-stream)."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Provider)
        self.lock = threading.Lock()
        self.received: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        self.sent: list[bytes] = []
        self.gate: threading.Event | None = None
        self.gate_timed_out = False
        self.stall: threading.Event | None = None
        self.first_sent = threading.Event()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class Provider(BaseHTTPRequestHandler):
    server: StandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        with self.server.lock:
            self.server.received.append(raw)
            self.server.headers.append(dict(self.headers.items()))
        body = json.loads(raw)
        api = "anthropic" if self.path.endswith("/messages") else "openai-chat"
        if body.get("stream"):
            self.stream(STREAMS[api](body))
        else:
            self.answer(json.dumps(ANSWERS[api](body)).encode())

    def answer(self, data: bytes) -> None:
        with self.server.lock:
            self.server.sent.append(data)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream(self, events: list[bytes]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        sent = []
        for i, event in enumerate(events):
            try:
                self.wfile.write(event)
                self.wfile.flush()
            except OSError:  # the proxy went away (the kill and Ctrl-C tests stop it mid-stream)
                return
            sent.append(event)
            if i == 0:
                self.server.first_sent.set()
                if self.server.stall is not None:
                    self.server.stall.wait(GATE_WAIT)
                if self.server.gate is not None and not self.server.gate.wait(GATE_WAIT):
                    self.server.gate_timed_out = True
        with self.server.lock:
            self.server.sent.append(b"".join(sent))


def _sse(events: list[tuple[str | None, Any]]) -> list[bytes]:
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "").encode() + f"data: {text}\n\n".encode())
    return out


def _tag(body: dict[str, Any]) -> str:
    """What the request asked, echoed in the answer: concurrent requests are told apart by it."""
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content")
    return content if isinstance(content, str) else json.dumps(content)


# -- OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat) ----------------

def openai_answer(body: dict[str, Any]) -> dict[str, Any]:
    """Planted: the call's `arguments` encoded twice (TD201 double-encoded-arguments)."""
    return {"id": "chatcmpl-standin", "object": "chat.completion", "created": 1767225600,
            "model": body.get("model", "gpt-4o"),
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": "call_standin1", "type": "function", "function": {
                    "name": "get_weather", "arguments": json.dumps(json.dumps({"city": _tag(body)}))}}]}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}}


def openai_stream(body: dict[str, Any]) -> list[bytes]:
    """Planted: `finish_reason: tool_calls` on a message that made no call (TD602)."""
    base = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 1767225600,
            "model": body.get("model", "gpt-4o")}
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {"content": f"About {_tag(body)}: "},
                                    "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {"content": "it is sunny."}, "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    return _sse([(None, c) for c in chunks] + [(None, "[DONE]")])


# -- Anthropic Messages (https://docs.anthropic.com/en/api/messages-streaming) ----------------------

def anthropic_answer(body: dict[str, Any]) -> dict[str, Any]:
    """Planted: `stop_reason: tool_use` on a message with no `tool_use` block (TD602)."""
    return {"id": "msg_standin", "type": "message", "role": "assistant",
            "model": body.get("model", "claude-sonnet-4-5"),
            "content": [{"type": "text", "text": f"I will look up {_tag(body)}."}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 20, "output_tokens": 10}}


def anthropic_stream(body: dict[str, Any]) -> list[bytes]:
    """The same planted defect, streamed (TD602)."""
    message = {**anthropic_answer(body), "content": [], "stop_reason": None}
    text = f"I will look up {_tag(body)}."
    return _sse([
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text[:10]}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text[10:]}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                           "usage": {"output_tokens": 10}}),
        ("message_stop", {"type": "message_stop"}),
    ])


ANSWERS = {"openai-chat": openai_answer, "anthropic": anthropic_answer}
STREAMS = {"openai-chat": openai_stream, "anthropic": anthropic_stream}
