"""The stand-in provider and an in-process recording in front of it, and reading what was recorded."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.record.standins import StandIn
from tooldbg.record.session import Options, Recording

KEY = "sk-test-Kq8vN3xYz7Lm2Pw5Rt9"  # shaped like a key, so masking it is a real test


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
    """A recorded body as the bytes that crossed the wire."""
    if side.get("bodyEncoding") == "base64":
        return base64.b64decode(side["body"])
    return side["body"].encode()
