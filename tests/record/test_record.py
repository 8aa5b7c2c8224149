"""`tooldbg record` in front of stand-in providers, driven by the official `openai` and `anthropic`
clients: what the recording holds is what crossed the wire, streams pass through event by event,
and `check` finds what the stand-in planted. Every server binds 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from tests.certs import untrusted_server_context
from tests.record.conftest import KEY, body_bytes, records
from tests.record.standins import StandIn
from tooldbg.checks import run_checks
from tooldbg.load import load_file
from tooldbg.record.routes import Router
from tooldbg.record.session import Options, Recording


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


def written(recording: Recording, count: int) -> None:
    """Wait (bounded) until the recording has written `count` exchanges."""
    for _ in range(400):
        if recording.journal.written >= count:
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"{recording.journal.written} exchanges written, not {count}")


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

    # (the openai client ends a stream at `data: [DONE]`, before the HTTP response ends: the
    # exchange is written when the provider has ended it)
    written(recording, 1)
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


def test_twenty_concurrent_streams_are_each_recorded_whole(standin: StandIn, recording: Recording) -> None:
    questions = [f"city number {i}" for i in range(20)]

    def ask(question: str) -> str:
        return anthropic_call(recording.base_url, Tee(), True, lambda: None, question)

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(ask, questions, timeout=60))
    assert answers == [f"I will look up {q}." for q in questions]
    written(recording, 20)
    recorded = records(recording.options.output)
    assert len(recorded) == 20
    assert sorted(body_bytes(r["response"]) for r in recorded) == sorted(standin.sent)  # each whole
    loaded = load_file(recording.options.output)
    assert not loaded.errors
    # each stream recorded with its own request: the answer assembled from it names the question
    said = {read.request.turns[0].parts[0].text: read.responses[0].turn.parts[0].text for read in loaded.reads}
    assert said == {q: f"I will look up {q}." for q in questions}


def post(base: str, path: str, body: bytes = b'{"model": "m", "messages": []}') -> tuple[int, dict[str, Any]]:
    """A request to the proxy with the standard library's client: its status and JSON body."""
    parts = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(parts[0], int(parts[1]), timeout=30)
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json", "x-api-key": KEY})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def silent_listener() -> Iterator[str]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextmanager
def self_signed() -> Iterator[str]:
    """A stand-in over TLS with a certificate no trust store holds (tests/certs)."""
    server = StandIn()
    server.socket = untrusted_server_context().wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.url.replace("http://", "https://")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("upstream, cause", [
    ("refused", "connection to 127.0.0.1:{port} refused (nothing listens there)"),
    ("tls", "TLS with 127.0.0.1:{port} failed"),
    ("certificate", "TLS certificate of 127.0.0.1:{port} not verified: self-signed certificate"),
    ("silent", "127.0.0.1:{port} did not answer within 0.5 s"),
])
def test_an_upstream_that_fails_gives_a_502_naming_the_cause(upstream: str, cause: str, standin: StandIn,
                                                               tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = {"refused": lambda: f"http://127.0.0.1:{free_port()}",
               "tls": lambda: standin.url.replace("http://", "https://"),
               "certificate": lambda: stack.enter_context(self_signed()),
               "silent": lambda: stack.enter_context(silent_listener())}[upstream]()
        rec = Recording(Options(tmp_path / "run.jsonl", upstream=url, timeout=0.5))
        rec.start()
        try:
            status, body = post(rec.base_url, "/v1/chat/completions")
        finally:
            rec.stop()
    expected = cause.format(port=url.rsplit(":", 1)[1])
    assert status == 502
    assert body["error"]["message"].startswith(f"tooldbg record: {expected}")
    [record] = records(tmp_path / "run.jsonl")
    assert record["error"].startswith(expected)
    assert record["response"]["status"] == 502
    assert json.loads(record["response"]["body"]) == body
    loaded = load_file(tmp_path / "run.jsonl")
    assert not loaded.errors
    [finding] = run_checks(loaded)
    assert finding.code == "TD901" and expected in finding.message  # the failure is shown, not a clean log


def test_a_path_no_provider_serves_is_refused_naming_upstream(tmp_path: Path) -> None:
    rec = Recording(Options(tmp_path / "run.jsonl"))
    rec.start()
    try:
        status, body = post(rec.base_url, "/v2/unknown?key=AIzaSyDsecretsecretsecretsecret")
    finally:
        rec.stop()
    assert status == 404
    assert "--upstream" in body["error"]["message"]
    assert "secretsecret" not in body["error"]["message"]
    assert (tmp_path / "run.jsonl").read_bytes() == b""  # nothing was forwarded: nothing recorded


def test_routes_by_path_without_upstream() -> None:
    router = Router()
    assert router.route("/v1/messages").url == "https://api.anthropic.com/v1/messages"
    assert router.route("/v1/chat/completions").url == "https://api.openai.com/v1/chat/completions"
    assert router.route("/v1/responses/resp_1").url == "https://api.openai.com/v1/responses/resp_1"
    assert router.route("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse").url == \
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert router.route("/v1/messagesX") is None
    assert router.route("/v1/embeddings") is None
    fixed = Router("https://openrouter.ai/api")
    assert fixed.route("/v1/chat/completions").url == "https://openrouter.ai/api/v1/chat/completions"


def test_a_client_that_leaves_mid_stream_leaves_an_incomplete_record(standin: StandIn, recording: Recording) -> None:
    standin.stall = threading.Event()
    parts = recording.base_url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(parts[0], int(parts[1]), timeout=30)
    connection.request("POST", "/v1/messages", json.dumps({"model": "m", "stream": True, "messages": [
        {"role": "user", "content": "Oslo"}]}), {"Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.read1(65536).startswith(b"event: message_start")  # the first event, then leave
    connection.sock.shutdown(socket.SHUT_RDWR)
    connection.close()
    standin.stall.set()  # the stand-in goes on; the proxy finds its client gone
    written(recording, 1)  # the proxy notices when the stand-in sends the rest
    [record] = records(recording.options.output)
    assert record["incomplete"] is True
    assert record["error"] == "the client closed the connection before the response ended"
    assert body_bytes(record["response"]).startswith(b"event: message_start")
