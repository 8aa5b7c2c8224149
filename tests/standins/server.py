"""The HTTP side of a stand-in: one handler for the five APIs, each request routed to the API module
the server was started for (`server.api`), in the order a provider checks a request: the route
(404), the key (401/403, or Gemini's 400), the JSON (400), the API's own validation (400), then the
scripted model's answer — with the defect the test planted, if any — as a JSON body or streamed a
frame at a time (each written and flushed as it is made, the response delimited by closing the
connection as HTTP/1.0 allows). Each request is answered in a thread of its own, and logged with
its answer byte for byte (`Provider.log`)."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.relay.servers import Quiet

from .model import answer
from .provider import Provider, Served
from .wire import Failure


class StandIn(Quiet):
    """`server.api` is the API's module, `server.provider` the `Provider` the test holds: the key
    it accepts, the answers' options and planted defect, its gate, and the logs it fills."""

    server_version = "stand-in/1"

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        api: ModuleType = self.server.api  # type: ignore[attr-defined]
        provider: Provider = self.server.provider  # type: ignore[attr-defined]
        target = urlsplit(self.path)
        query = dict(parse_qsl(target.query))
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        served = provider.received(self.path, headers, raw)
        route = api.route(target.path, query)
        if route is None:
            self.fail(served, api.error(404, f"Not found: POST {target.path}"))
            return
        key = api.AUTH.credential(headers, query)
        if key != provider.key:
            self.fail(served, api.AUTH.refuse(key))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self.fail(served, api.error(400, "We could not parse the JSON body of your request."))
            return
        problem = api.invalid(body)
        if problem is not None:
            self.fail(served, problem)
            return
        n = provider.accepted(body)
        response = api.respond(body, answer(api.ask(body)), n, route.model or body.get("model"), **provider.options)
        if provider.plant is not None:
            api.PLANTS[provider.plant](response)
        if route.stream or body.get("stream"):
            self.send_stream(served, api.stream(body, response))
        else:
            self.send_json(served, 200, response)

    def fail(self, served: Served, failure: Failure) -> None:
        self.send_json(served, failure.status, failure.body, failure.headers)

    def send_json(self, served: Served, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        served.status = status
        self.send_response(status)
        self.send_header("content-type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.write(served, data)

    def send_stream(self, served: Served, frames: Any) -> None:
        """Frame by frame; with the provider's gate shut, every frame after the first waits for it."""
        api: ModuleType = self.server.api  # type: ignore[attr-defined]
        provider: Provider = self.server.provider  # type: ignore[attr-defined]
        served.status = 200
        self.send_response(200)
        self.send_header("content-type", getattr(api, "CONTENT_TYPE", "text/event-stream"))
        self.send_header("connection", "close")
        self.end_headers()
        for i, frame in enumerate(frames):
            if i == 1:
                provider.wait_at_gate()
            if not self.write(served, frame):
                return  # the client went away (the kill and Ctrl-C tests stop the proxy mid-stream)

    def write(self, served: Served, data: bytes) -> bool:
        """Send `data` now; False when the client has gone. Logged before it is written: whoever
        has read it finds it in the log."""
        served.pieces.append(data)
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            served.pieces.pop()
            return False
        return True
