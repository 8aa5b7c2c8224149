"""`tooldbg record` in front of stand-in providers, driven by the official `openai` and `anthropic`
clients: what the recording holds is what crossed the wire, streams pass through event by event,
and `check` finds what the stand-in planted. Every server binds 127.0.0.1; every wait is bounded."""

from __future__ import annotations

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
from tests.record.conftest import CALL, KEY, TEXT, body_bytes, connect, recorded, records, written
from tests.standins import standin
from tests.standins.model import APOLOGY
from tooldbg.checks import run_checks
from tooldbg.load import load_file
from tooldbg.model import Result
from tooldbg.record.routes import Router


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


def openai_call(base: str, tee: Tee, stream: bool, on_first: Callable[[], None], question: str) -> str:
    """Ask through the official client; what it made of the answer: the text and the calls' arguments."""
    with httpx2.Client(transport=tee, timeout=30) as http:
        client = openai.OpenAI(api_key=KEY, base_url=f"{base}/v1", max_retries=0, http_client=http)
        args: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": question}],
                                "tools": [{"type": "function", "function": {"name": "get_weather",
                                                                            "parameters": WEATHER}}]}
        if not stream:
            message = client.chat.completions.create(**args).choices[0].message
            return (message.content or "") + "".join(c.function.arguments for c in message.tool_calls or [])
        said = []
        for i, chunk in enumerate(client.chat.completions.create(**args, stream=True)):
            if i == 0:
                on_first()
            for choice in chunk.choices:
                said.append(choice.delta.content or "")
                said += [c.function.arguments or "" for c in choice.delta.tool_calls or [] if c.function]
        return "".join(said)


def anthropic_call(base: str, tee: Tee, stream: bool, on_first: Callable[[], None], question: Any) -> str:
    """Ask (`question`: a message's content) through the official client; what it made of the answer."""
    with httpx2.Client(transport=tee, timeout=30) as http:
        client = anthropic.Anthropic(api_key=KEY, base_url=base, max_retries=0, http_client=http)
        args: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 100,
                                "tools": [{"name": "get_weather", "input_schema": WEATHER}],
                                "messages": [*(ASKED_BEFORE if isinstance(question, list) else []),
                                             {"role": "user", "content": question}]}
        if not stream:
            return "".join(block.text if block.type == "text" else json.dumps(block.input)
                           for block in client.messages.create(**args).content)
        said = []
        for i, event in enumerate(client.messages.create(**args, stream=True)):
            if i == 0:
                on_first()
            if event.type == "content_block_delta":
                said.append(event.delta.text if event.delta.type == "text_delta" else event.delta.partial_json)
        return "".join(said)


WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}}
#: The call the model made before its results are given back (`ASKED_BEFORE` + a result for it).
ASKED_BEFORE = [{"role": "user", "content": CALL},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01Weather", "name": "get_weather",
                                                   "input": {"city": "Oslo"}}]}]
CALLS = {"openai-chat": openai_call, "anthropic": anthropic_call}
#: (api, streamed) → what the client asks, the defect the stand-in plants, what the client makes of
#: the answer, and what `check` finds.
PLANTED = {
    ("openai-chat", False): (CALL, "double-encoded-arguments", json.dumps(json.dumps({"city": "Oslo"})), "TD201"),
    ("openai-chat", True): (TEXT, "finish-reason-mismatch", APOLOGY, "TD602"),
    ("anthropic", False): (TEXT, "finish-reason-mismatch", APOLOGY, "TD602"),
    ("anthropic", True): (CALL, "double-encoded-arguments", json.dumps(json.dumps({"city": "Oslo"})), "TD204"),
}
PATHS = {"openai-chat": "/v1/chat/completions", "anthropic": "/v1/messages"}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("api", ["openai-chat", "anthropic"])
def test_official_client_through_record(api: str, stream: bool, tmp_path: Path) -> None:
    question, plant, answer, code = PLANTED[api, stream]
    tee = Tee()
    with standin(api, key=KEY, plant=plant) as provider, recorded(provider.url, tmp_path / "run.jsonl") as recording:
        gate = provider.gate = threading.Event() if stream else None
        assert CALLS[api](recording.base_url, tee, stream, lambda: gate and gate.set(), question) == answer
        # Stream pass-through: event 1 reached the client while the stand-in still withheld event 2.
        assert not provider.gate_timed_out, "the client got no event before the stand-in sent the last"
        # (the openai client ends a stream at `data: [DONE]`, before the HTTP response ends: the
        # exchange is written when the provider has ended it)
        written(recording, 1)
    [record] = records(recording.options.output)
    [served] = provider.log
    assert body_bytes(record["request"]) == tee.sent[0] == served.received
    assert body_bytes(record["response"]) == b"".join(tee.received[0]) == served.sent
    assert record["request"]["url"] == provider.url + PATHS[api]
    assert record["response"]["status"] == served.status == 200
    assert "incomplete" not in record and "error" not in record

    loaded = load_file(recording.options.output)
    assert not loaded.errors
    assert loaded.formats == [api]
    assert [f.code for f in run_checks(loaded)] == [code]


def test_keys_are_forwarded_but_masked_in_the_recording(tmp_path: Path) -> None:
    with standin("openai-chat", key=KEY) as provider, recorded(provider.url, tmp_path / "run.jsonl") as recording:
        assert openai_call(recording.base_url, Tee(), False, lambda: None, CALL)  # the stand-in took the key
    text = recording.options.output.read_text()
    assert KEY not in text
    headers = {k.lower(): v for k, v in json.loads(text)["request"]["headers"].items()}
    assert headers["authorization"] == "Bearer sk-t•••"
    assert provider.log[0].headers["authorization"] == f"Bearer {KEY}"


def test_twenty_concurrent_streams_are_each_recorded_whole(tmp_path: Path) -> None:
    references = [f"REF-{i}" for i in range(20)]

    def ask(reference: str) -> str:
        result = [{"type": "tool_result", "tool_use_id": "toolu_01Weather", "content": f"Sunny. Reference: {reference}"}]
        return anthropic_call(recording.base_url, Tee(), True, lambda: None, result)

    with standin("anthropic", key=KEY) as provider, recorded(provider.url, tmp_path / "run.jsonl") as recording:
        with ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(pool.map(ask, references, timeout=60))
        written(recording, 20)
    assert answers == [f"OSL={reference}" for reference in references]  # the model quotes each result
    recorded_ = records(recording.options.output)
    assert len(recorded_) == len(provider.log) == 20
    assert sorted(body_bytes(r["response"]) for r in recorded_) == sorted(s.sent for s in provider.log)  # each whole
    loaded = load_file(recording.options.output)
    assert not loaded.errors
    # each stream recorded with its own request: the answer assembled from it quotes the request's result
    said = {}
    for read in loaded.reads:
        [result] = [p for p in read.request.turns[-1].parts if isinstance(p, Result)]
        said[result.content[0].text] = read.responses[0].turn.parts[0].text
    assert said == {f"Sunny. Reference: {reference}": f"OSL={reference}" for reference in references}


def post(base: str, path: str, body: bytes = b'{"model": "m", "messages": []}') -> tuple[int, dict[str, Any]]:
    """A request to the proxy with the standard library's client: its status and JSON body."""
    connection = connect(base)
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
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


@pytest.mark.parametrize("upstream, cause", [
    ("refused", "connection to 127.0.0.1:{port} refused (nothing listens there)"),
    ("tls", "TLS with 127.0.0.1:{port} failed"),
    ("certificate", "TLS certificate of 127.0.0.1:{port} not verified: self-signed certificate"),
    ("silent", "127.0.0.1:{port} did not answer within 0.5 s"),
])
def test_an_upstream_that_fails_gives_a_502_naming_the_cause(upstream: str, cause: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = {"refused": lambda: f"http://127.0.0.1:{free_port()}",
               # TLS spoken to a stand-in that speaks plain HTTP
               "tls": lambda: stack.enter_context(standin("openai-chat", key=KEY)).url.replace("http://", "https://"),
               # a stand-in whose certificate no trust store holds (tests/certs)
               "certificate": lambda: stack.enter_context(standin("openai-chat", key=KEY,
                                                                  tls=untrusted_server_context())).url,
               "silent": lambda: stack.enter_context(silent_listener())}[upstream]()
        with recorded(url, tmp_path / "run.jsonl", timeout=0.5) as recording:
            status, body = post(recording.base_url, "/v1/chat/completions")
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
    with recorded(None, tmp_path / "run.jsonl") as recording:
        status, body = post(recording.base_url, "/v2/unknown?key=AIzaSyDsecretsecretsecretsecret")
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


def test_a_client_that_leaves_mid_stream_leaves_an_incomplete_record(tmp_path: Path) -> None:
    with standin("anthropic", key=KEY) as provider, recorded(provider.url, tmp_path / "run.jsonl") as recording:
        gate = provider.gate = threading.Event()  # the stream stalls after its first event
        connection = connect(recording.base_url)
        connection.request("POST", "/v1/messages", json.dumps({
            "model": "m", "max_tokens": 100, "stream": True, "messages": [{"role": "user", "content": TEXT}]}),
            {"Content-Type": "application/json", "x-api-key": KEY})
        response = connection.getresponse()
        assert response.read1(65536).startswith(b"event: message_start")  # the first event, then leave
        connection.sock.shutdown(socket.SHUT_RDWR)
        connection.close()
        gate.set()  # the stand-in goes on; the proxy finds its client gone
        written(recording, 1)  # the proxy notices when the stand-in sends the rest
    [record] = records(recording.options.output)
    assert record["incomplete"] is True
    assert record["error"] == "the client closed the connection before the response ended"
    assert body_bytes(record["response"]).startswith(b"event: message_start")
