"""`tooldbg record` in front of each of the five APIs' stand-ins, in each API's own framing — OpenAI's
and Anthropic's SSE, Gemini's `streamGenerateContent?alt=sse` (events ended by CRLF CRLF), Bedrock
ConverseStream's binary AWS event-stream frames (recorded base64) — with the standard library's
client: each event reaches the client before the stand-in sends the next, the recording holds the
bytes that crossed the wire, and `tooldbg check` on it finds the defect the stand-in planted."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.command import run
from tests.record.conftest import body_bytes, connect, recorded, records, written
from tests.standins import MODULES, standin
from tests.standins.asks import REQUESTS, auth, streamed

#: (api, planted defect) → the rule `check` names for it: arguments encoded once more are a string
#: of a string where the wire carries a string (OpenAI), a string where it carries an object (the rest).
FOUND = {(api, plant): {"finish-reason-mismatch": "TD602"}.get(plant, "TD201" if api.startswith("openai") else "TD204")
         for api, module in MODULES.items() for plant in module.PLANTS}


def first_event_whole(data: bytes, content_type: str) -> bool:
    """Has `data` a whole first event: an SSE event's blank line, or an event-stream frame's length
    (its prelude's first four bytes, big-endian)?"""
    if content_type.startswith("application/vnd.amazon.eventstream"):
        return len(data) >= 4 and len(data) >= int.from_bytes(data[:4], "big")
    return b"\n\n" in data or b"\r\n\r\n" in data


def through(url: str, body: dict[str, Any], headers: dict[str, str],
            gate: threading.Event | None) -> tuple[int, str, bytes, bytes]:
    """POST to the recorder: the status, the content type, what had arrived when the first event
    was whole (the gate is opened then), and the whole body."""
    target = urlsplit(url)
    connection = connect(url)
    try:
        connection.request("POST", f"{target.path}?{target.query}" if target.query else target.path,
                           json.dumps(body), {"content-type": "application/json", **headers})
        response = connection.getresponse()
        kind = response.headers.get("content-type", "")
        first = b""
        while gate is not None and not first_event_whole(first, kind):
            piece = response.read1(65536)
            if not piece:
                break
            first += piece
        if gate is not None:
            gate.set()
        return response.status, kind, first, first + response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("api, plant", sorted(FOUND))
def test_each_apis_framing_is_recorded_as_sent_and_checked(api: str, plant: str, stream: bool, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path, stream_path, _, body = REQUESTS[api]
    if plant == "finish-reason-mismatch":  # asked with no tools, the model answers in text
        body = {k: v for k, v in body.items() if k not in ("tools", "tool_choice", "toolConfig")}
    output = tmp_path / "run.jsonl"
    with standin(api, plant=plant) as provider, recorded(provider.url, output) as recording:
        gate = provider.gate = threading.Event() if stream else None
        under = provider.base_url.removeprefix(provider.url)  # the SDK's base path (`/v1`, `/v1beta`)
        status, kind, first, data = through(recording.base_url + under + (stream_path if stream else path),
                                            streamed(api, body) if stream else body, auth(api, provider.key), gate)
        written(recording, 1)
    assert status == 200, data
    [served] = provider.log
    if stream:
        # event 1 reached the client, whole and alone, while the stand-in withheld event 2
        assert not provider.gate_timed_out and first == served.pieces[0]
        assert len(served.pieces) >= 2  # (an event 2 to withhold)
    [record] = records(output)
    assert body_bytes(record["request"]) == served.received
    assert body_bytes(record["response"]) == data == served.sent
    assert record["request"]["url"] == provider.url + served.path
    binary = kind == "application/vnd.amazon.eventstream"
    assert binary == (api == "bedrock" and stream)
    assert record["response"].get("bodyEncoding") == ("base64" if binary else None)
    if api == "gemini" and stream:
        assert record["response"]["body"].endswith("}\r\n\r\n")  # the framing kept as Gemini sends it

    code, out, _ = run(capsys, "check", "--format", "json", str(output))
    report = json.loads(out)
    assert code == 1
    assert report["inputs"][0]["formats"] == [api] and report["inputs"][0]["errors"] == []
    assert [(f["code"], f["exchange"]) for f in report["findings"]] == [(FOUND[api, plant], 0)]
