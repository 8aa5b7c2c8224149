"""What a test holds of a running stand-in (`Provider`), and what the stand-in fills in as it
answers: the requests it accepted, each request it received with the answer it sent (`Served`), and
its gate."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

#: Where each API's SDK adds its paths, under the stand-in's root.
BASE_PATHS = {"openai-chat": "/v1", "openai-responses": "/v1", "anthropic": "", "gemini": "/v1beta", "bedrock": ""}
#: The longest a stream held at its gate waits for it to open (seconds): a bound, never an expectation.
GATE_WAIT = 20.0


@dataclass
class Served:
    """One request as the stand-in received it (its path with the query, headers with lower-cased
    names, body) and the answer it sent: status and body bytes, as written so far."""

    path: str
    headers: dict[str, str]
    received: bytes
    status: int | None = None
    pieces: list[bytes] = field(default_factory=list)

    @property
    def sent(self) -> bytes:
        return b"".join(self.pieces)


@dataclass
class Provider:
    """A running stand-in: `url` is its root (`http://127.0.0.1:PORT`), `base_url` what the SDK is
    given, `key` the key it accepts, `requests` the bodies it accepted, `log` every request it
    received with its answer, in the order they arrived. `gate`, when a test sets it, holds each
    stream after its first event until it is set (at most `GATE_WAIT` seconds; `gate_timed_out`
    then says so)."""

    api: str
    url: str
    key: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    log: list[Served] = field(default_factory=list)
    plant: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    gate: threading.Event | None = None
    gate_timed_out: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def base_url(self) -> str:
        return self.url + BASE_PATHS[self.api]

    def received(self, path: str, headers: dict[str, str], body: bytes) -> Served:
        served = Served(path, headers, body)
        with self._lock:
            self.log.append(served)
        return served

    def accepted(self, body: dict[str, Any]) -> int:
        """Keep a request that passed validation: its number (1, 2, …), which its answer's ids derive from."""
        with self._lock:
            self.requests.append(body)
            return len(self.requests)

    def wait_at_gate(self) -> None:
        gate = self.gate
        if gate is not None and not gate.wait(GATE_WAIT):
            self.gate_timed_out = True
