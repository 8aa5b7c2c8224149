"""An in-process recording in front of a stand-in provider (tests/standins), and reading what was
recorded."""

from __future__ import annotations

import base64
import http.client
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tooldbg.record.session import Options, Recording

KEY = "sk-test-Kq8vN3xYz7Lm2Pw5Rt9"  # shaped like a key, so masking it is a real test
#: What the clients ask when they want a call: the stand-in model calls the tool once per city code.
CALL = "What is the weather in OSL?"
#: What they ask when they want text: no city code, so the model answers in words.
TEXT = "What is the weather?"


@contextmanager
def recorded(upstream: str | None, path: Path, **options: Any) -> Iterator[Recording]:
    """A recording of what goes to `upstream`, written to `path`, for the block."""
    recording = Recording(Options(path, upstream=upstream, **options))
    recording.start()
    try:
        yield recording
    finally:
        recording.stop()


def connect(url: str, timeout: float = 30) -> http.client.HTTPConnection:
    """A connection to the host of `url` (the recorder's, or a stand-in's)."""
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)


def written(recording: Recording, count: int) -> None:
    """Wait (bounded) until the recording has written `count` exchanges."""
    for _ in range(400):
        if recording.journal.written >= count:
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"{recording.journal.written} exchanges written, not {count}")


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def body_bytes(side: dict[str, Any]) -> bytes:
    """A recorded body as the bytes that crossed the wire."""
    if side.get("bodyEncoding") == "base64":
        return base64.b64decode(side["body"])
    return side["body"].encode()
