"""The HTTP side of a stand-in: one handler for the five APIs, each request routed to the API module
the server was started for (`server.api`), in the order a provider checks a request: the route
(404), the key (401/403, or Gemini's 400), the JSON (400), the API's own validation (400), then the
scripted model's answer, as a JSON body or streamed a frame at a time (each written and flushed as it
is made, the response delimited by closing the connection as HTTP/1.0 allows)."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.relay.servers import Quiet

from .model import answer
from .wire import Failure


class StandIn(Quiet):
    """`server.api` is the API's module, `server.key` the key it accepts, `server.options` keyword
    arguments for the module's `respond`, `server.requests` every accepted request body, in order."""

    server_version = "stand-in/1"

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        api: ModuleType = self.server.api  # type: ignore[attr-defined]
        target = urlsplit(self.path)
        query = dict(parse_qsl(target.query))
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        route = api.route(target.path, query)
        if route is None:
            self.fail(api.error(404, f"Not found: POST {target.path}"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        key = api.AUTH.credential(headers, query)
        if key != self.server.key:  # type: ignore[attr-defined]
            self.fail(api.AUTH.refuse(key))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self.fail(api.error(400, "We could not parse the JSON body of your request."))
            return
        problem = api.invalid(body)
        if problem is not None:
            self.fail(problem)
            return
        self.server.requests.append(body)  # type: ignore[attr-defined]
        n = len(self.server.requests)  # type: ignore[attr-defined]
        response = api.respond(body, answer(api.ask(body)), n, route.model or body.get("model"),
                               **self.server.options)  # type: ignore[attr-defined]
        if route.stream or body.get("stream"):
            self.send_stream(api, body, response)
        else:
            self.send_json(200, response)

    def fail(self, failure: Failure) -> None:
        self.send_json(failure.status, failure.body, failure.headers)

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, api: ModuleType, body: dict[str, Any], response: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", getattr(api, "CONTENT_TYPE", "text/event-stream"))
        self.send_header("connection", "close")
        self.end_headers()
        for frame in api.stream(body, response):
            self.wfile.write(frame)
            self.wfile.flush()
