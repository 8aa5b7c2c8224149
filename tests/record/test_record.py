"""`tooldbg record` in front of stand-in providers, driven by the official `openai` and `anthropic`
clients: what the recording holds is what crossed the wire, streams pass through event by event,
and `check` finds what the stand-in planted. Every server binds 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from tests.record.standins import StandIn
from tooldbg.checks import run_checks
from tooldbg.load import load_file
from tooldbg.record.session import Options, Recording

KEY = "sk-test-Kq8vN3xYz7Lm2Pw5Rt9"  # shaped like a key, so masking it is a real test


class Tee(httpx2.HTTPTransport):
    """The client's own transport, keeping each request body it sends and each response body as
    the client reads it (after HTTP's framing is taken off)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.received: list[list[bytes]] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(request.read())
        response = super().handle_request(request)
        pieces: list[bytes] = []
        self.received.append(pieces)
        response.stream = _Teed(response.stream, pieces)  # type: ignore[arg-type]
        return response


class _Teed(httpx2.SyncByteStream):
    def __init__(self, inner: Any, sink: list[bytes]) -> None:
        self.inner, self.sink = inner, sink

    def __iter__(self) -> Iterator[bytes]:
        for piece in self.inner:
            self.sink.append(piece)
            yield piece

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def standin() -> Iterator[StandIn]:
    server = StandIn()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    for event in (server.gate, server.stall):
        if event is not None:
            event.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def recording(standin: StandIn, tmp_path: Path) -> Iterator[Recording]:
    rec = Recording(Options(tmp_path / "run.jsonl", upstream=standin.url))
    rec.start()
    yield rec
    rec.stop()


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def body_bytes(side: dict[str, Any]) -> bytes:
    if side.get("bodyEncoding") == "base64":
        return base64.b64decode(side["body"])
    return side["body"].encode()


def openai_call(base: str, tee: Tee, stream: bool, on_first: Callable[[], None], question: str = "Oslo") -> str:
    with httpx2.Client(transport=tee, timeout=30) as http:
        client = openai.OpenAI(api_key=KEY, base_url=f"{base}/v1", max_retries=0, http_client=http)
        return _openai_call(client, stream, on_first, question)


def _openai_call(client: openai.OpenAI, stream: bool, on_first: Callable[[], None], question: str) -> str:
    args: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": question}],
                            "tools": [{"type": "function", "function": {
                                "name": "get_weather", "parameters": {
                                    "type": "object", "properties": {"city": {"type": "string"}}}}}]}
    if not stream:
        return client.chat.completions.create(**args).choices[0].message.tool_calls[0].function.arguments
    text = []
    for i, chunk in enumerate(client.chat.completions.create(**args, stream=True)):
        if i == 0:
            on_first()
        if chunk.choices and chunk.choices[0].delta.content:
            text.append(chunk.choices[0].delta.content)
    return "".join(text)


def anthropic_call(base: str, tee: Tee, stream: bool, on_first: Callable[[], None], question: str = "Oslo") -> str:
    with httpx2.Client(transport=tee, timeout=30) as http:
        client = anthropic.Anthropic(api_key=KEY, base_url=base, max_retries=0, http_client=http)
        return _anthropic_call(client, stream, on_first, question)


def _anthropic_call(client: anthropic.Anthropic, stream: bool, on_first: Callable[[], None], question: str) -> str:
    args: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 100,
                            "messages": [{"role": "user", "content": question}]}
    if not stream:
        return client.messages.create(**args).content[0].text
    text = []
    for i, event in enumerate(client.messages.create(**args, stream=True)):
        if i == 0:
            on_first()
        if event.type == "content_block_delta":
            text.append(event.delta.text)
    return "".join(text)


CALLS = {"openai-chat": openai_call, "anthropic": anthropic_call}
#: What each stand-in plants, streamed or not (tests/record/standins.py).
PLANTED = {("openai-chat", False): "TD201", ("openai-chat", True): "TD602",
           ("anthropic", False): "TD602", ("anthropic", True): "TD602"}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("api", ["openai-chat", "anthropic"])
def test_official_client_through_record(api: str, stream: bool, standin: StandIn, recording: Recording) -> None:
    tee = Tee()
    standin.gate = threading.Event() if stream else None
    answer = CALLS[api](recording.base_url, tee, stream, lambda: standin.gate and standin.gate.set())
    assert "Oslo" in answer  # the client got its answer through the proxy
    # Stream pass-through: event 1 reached the client while the stand-in still withheld event 2.
    assert not standin.gate_timed_out, "the client got no event before the stand-in sent the last"

    [record] = records(recording.options.output)
    sent = tee.sent[0]
    received = b"".join(tee.received[0])
    assert body_bytes(record["request"]) == sent == standin.received[0]
    assert body_bytes(record["response"]) == received == standin.sent[0]
    assert record["request"]["url"] == standin.url + ("/v1/chat/completions" if api == "openai-chat" else "/v1/messages")
    assert record["response"]["status"] == 200
    assert "incomplete" not in record and "error" not in record

    loaded = load_file(recording.options.output)
    assert not loaded.errors
    assert loaded.formats == [api]
    codes = [f.code for f in run_checks(loaded)]
    assert codes == [PLANTED[api, stream]]


def test_keys_are_forwarded_but_masked_in_the_recording(standin: StandIn, recording: Recording) -> None:
    tee = Tee()
    openai_call(recording.base_url, tee, False, lambda: None)
    text = recording.options.output.read_text()
    assert KEY not in text
    headers = {k.lower(): v for k, v in json.loads(text)["request"]["headers"].items()}
    assert headers["authorization"] == "Bearer sk-t•••"
    assert {k.lower(): v for k, v in standin.headers[0].items()}["authorization"] == f"Bearer {KEY}"
