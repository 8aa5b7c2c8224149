"""Local HTTP servers for the tests, and the HAR capture the relay writes.

A server binds 127.0.0.1 on an ephemeral port and accepts connections in a thread with a bounded
loop: at most `limit` requests, each answered in a thread of its own (as a provider answers
concurrent requests), and it stops when the test leaves the `with` block (the loop polls every
`POLL` seconds; closing the server waits for the requests still being answered). Nothing listens on
another interface; nothing outlives the test."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path
from typing import Any

POLL = 0.05


class _Server(ThreadingHTTPServer):
    """A thread per connection; `server_close` joins them (none is a daemon)."""

    daemon_threads = False
    request_queue_size = 64  # a burst of concurrent connections waits to be accepted, not refused


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler], limit: int = 50, tls: ssl.SSLContext | None = None,
            **attributes: Any) -> Iterator[HTTPServer]:
    """A server on 127.0.0.1:<ephemeral> running `handler`, `attributes` set on the server object;
    it answers at most `limit` requests and stops when the block is left. With `tls`, it speaks
    HTTPS with that context (a handshake the client refuses is not a request)."""
    server = _Server(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    server.timeout = POLL
    for name, value in attributes.items():
        setattr(server, name, value)
    stop = threading.Event()
    served = [0]

    def count(request: Any, client_address: Any) -> None:
        served[0] += 1
        _Server.process_request(server, request, client_address)

    server.process_request = count  # type: ignore[method-assign]

    def loop() -> None:
        try:
            while not stop.is_set() and served[0] < limit:
                server.handle_request()
        finally:
            server.server_close()

    thread = threading.Thread(target=loop, name=f"{handler.__name__}@127.0.0.1", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join(timeout=5)
        assert not thread.is_alive(), "a test server did not stop"


class Quiet(BaseHTTPRequestHandler):
    """A handler that logs nothing (a test's output is its assertions) and writes each piece of an
    answer as it is made (no Nagle delay waiting on the peer's delayed ACK)."""

    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


def url(server: HTTPServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


class Har:
    """One side's capture, HAR 1.2 as browser devtools and mitmproxy write it."""

    def __init__(self, creator: str) -> None:
        self.creator = creator
        self.entries: list[dict[str, Any]] = []

    def add(self, method: str, target: str, request_headers: dict[str, str], request_body: bytes,
            status: int, response_headers: dict[str, str], response_body: bytes, started: float,
            elapsed: float) -> None:
        def headers(values: dict[str, str]) -> list[dict[str, str]]:
            return [{"name": k, "value": v} for k, v in values.items()]

        response_type = response_headers.get("content-type", "application/json")
        self.entries.append({
            "startedDateTime": datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds"),
            "time": round(elapsed * 1000, 3),
            "request": {"method": method, "url": target, "httpVersion": "HTTP/1.1",
                        "headers": headers(request_headers), "queryString": [], "cookies": [],
                        "headersSize": -1, "bodySize": len(request_body),
                        "postData": {"mimeType": request_headers.get("content-type", "application/json"),
                                     "text": request_body.decode()}},
            "response": {"status": status, "statusText": "OK" if status < 400 else "Error",
                         "httpVersion": "HTTP/1.1", "headers": headers(response_headers), "cookies": [],
                         "content": {"size": len(response_body), "mimeType": response_type,
                                     "text": response_body.decode()},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(response_body)},
            "cache": {}, "timings": {"send": 0, "wait": round(elapsed * 1000, 3), "receive": 0}})

    def document(self) -> dict[str, Any]:
        return {"log": {"version": "1.2", "creator": {"name": self.creator, "version": "0.1"},
                        "entries": self.entries}}

    def save(self, path: Path) -> Path:
        path.write_text(json.dumps(self.document(), indent=1, ensure_ascii=False))
        return path
