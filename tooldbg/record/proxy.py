"""The recording reverse proxy, on the standard library's HTTP stack: `http.server` parses what the
client sends, `http.client` speaks to the provider (TLS verified with the system's trust store, as
`ssl.create_default_context` sets it up). Nothing here parses HTTP by hand; the one thing written
by hand is the chunked framing of a response whose length the provider did not say (RFC 9112 §7.1:
`size in hex CRLF data CRLF`, ended by `0 CRLF CRLF`).

A response body is passed on as it arrives — each read of the provider's socket is written to the
client before the next read — so a stream's events reach the client one by one. The exchange is
appended to the journal before the client is sent the body's last bytes (or, for a body of
unknown length, the chunk that ends it): a client that saw its response end can rely on the
exchange being on disk.

The provider is asked for an uncompressed body (`Accept-Encoding: identity`): the recording keeps
the text that was sent, and a compressor would hold a stream's events back until its buffer fills.
"""

from __future__ import annotations

import http.client
import select
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..jsonio import dumps
from ..network import unanswered
from ..secrets import redact_text
from .journal import Journal, Pending
from .routes import Router, Upstream

#: Bytes asked of the provider's socket at a time (a read returns what has arrived, up to this).
CHUNK = 64 * 1024
#: Idle connections kept per provider for the next request.
IDLE = 8
#: Headers that belong to one connection, not to the message (RFC 9110 §7.6.1), plus those the
#: proxy sets itself when it forwards (`Host`, `Content-Length`, `Accept-Encoding`, `Expect`).
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "proxy-authenticate",
                         "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"})
_SET_ON_REQUEST = frozenset({"host", "content-length", "accept-encoding", "expect"})
_BODILESS_STATUS = frozenset({204, 304})


class UpstreamError(Exception):
    """The provider could not be reached, failed TLS, timed out, or broke off: the message names
    the cause (what the client's 502 and the record say)."""


class ClientGone(Exception):
    """The client closed its connection before the response was passed on whole."""


class Connections:
    """Keep-alive connections to the providers, reused request after request (a TLS handshake per
    request would cost more than everything else the proxy does)."""

    def __init__(self, timeout: float, context: ssl.SSLContext | None = None) -> None:
        self.timeout = timeout
        self._context = context or ssl.create_default_context()
        self._idle: dict[tuple[str, str, int], list[http.client.HTTPConnection]] = {}
        self._lock = threading.Lock()

    def get(self, upstream: Upstream) -> http.client.HTTPConnection:
        with self._lock:
            idle = self._idle.get(upstream.origin, [])
            while idle:
                connection = idle.pop()
                if _usable(connection):
                    return connection
                connection.close()
        if upstream.scheme == "https":
            return http.client.HTTPSConnection(upstream.host, upstream.port, timeout=self.timeout,
                                               context=self._context)
        return http.client.HTTPConnection(upstream.host, upstream.port, timeout=self.timeout)

    def put(self, upstream: Upstream, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(upstream.origin, [])
            if len(idle) < IDLE:
                idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            for idle in self._idle.values():
                for connection in idle:
                    connection.close()
            self._idle.clear()


def _usable(connection: http.client.HTTPConnection) -> bool:
    """An idle connection the provider has not closed meanwhile: its socket has nothing to read (a
    closed one reads as ready, at its end)."""
    sock = connection.sock
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


class RecordingServer(ThreadingHTTPServer):
    """A thread per client connection; what the handlers share is set here."""

    daemon_threads = True
    #: Connections waiting to be accepted (socketserver's default, 5, resets an agent's burst of
    #: parallel requests).
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], router: Router, journal: Journal,
                 connections: Connections) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, RecordingHandler)
        self.router = router
        self.journal = journal
        self.connections = connections

    @property
    def base_url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class RecordingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, and chunked responses
    disable_nagle_algorithm = True  # a small event goes out now, not after the next ACK
    server_version = "tooldbg-record"
    server: RecordingServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: `record` reports each exchange itself, once it is written."""

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's names
        self.forward()

    do_GET = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_POST  # noqa: N815

    def forward(self) -> None:
        upstream = self.server.router.route(self.path)
        if upstream is None:
            self.answer(404, "not_routed", f"tooldbg record: no provider serves {redact_text(self.path)}; "
                        "give --upstream URL to forward every request there")
            return
        body = self.request_body()
        if body is None:
            return
        journal = self.server.journal
        pending = journal.begin(Pending(self.command, upstream.url, list(self.headers.items()), body))
        try:
            connection, response = self.ask(upstream, body)
        except UpstreamError as err:
            message = f"tooldbg record: {err}"
            pending.status = 502
            pending.response_headers = [("Content-Type", "application/json")]
            pending.pieces = [error_body("upstream_unavailable", message)]
            journal.finish(pending, error=str(err))
            self.answer(502, "upstream_unavailable", message)
            return
        self.relay(upstream, connection, response, pending)

    def request_body(self) -> bytes | None:
        """The request's body (by its Content-Length); None when the request was answered here
        instead (a body sent in chunks: 411)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self.answer(411, "length_required", "tooldbg record: send the request body with a Content-Length")
            return None
        length = self.headers.get("Content-Length")
        try:
            size = int(length) if length else 0
        except ValueError:
            self.answer(400, "bad_request", "tooldbg record: Content-Length is not a number")
            return None
        return self.rfile.read(size) if size > 0 else b""

    def ask(self, upstream: Upstream,
            body: bytes) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send the request on to the provider; its response with the headers read."""
        connections = self.server.connections
        connection = connections.get(upstream)
        try:
            connection.putrequest(self.command, upstream.path, skip_accept_encoding=True)
            for name, value in self.headers.items():
                lower = name.lower()
                if lower not in _HOP_BY_HOP and lower not in _SET_ON_REQUEST:
                    connection.putheader(name, value)
            connection.putheader("Accept-Encoding", "identity")
            if body or self.command in ("POST", "PUT", "PATCH"):
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body or None)
            return connection, connection.getresponse()
        except (OSError, http.client.HTTPException) as err:
            connection.close()
            raise UpstreamError(unanswered(err, upstream.where, connections.timeout)) from None

    def relay(self, upstream: Upstream, connection: http.client.HTTPConnection,
              response: http.client.HTTPResponse, pending: Pending) -> None:
        """Pass the response on as it arrives; the exchange is journaled before its end is sent."""
        journal = self.server.journal
        pending.status = response.status
        pending.response_headers = list(response.headers.items())
        bodiless = self.command == "HEAD" or response.status in _BODILESS_STATUS or response.status < 200
        chunked = not bodiless and response.length is None
        self.send_response_only(response.status, response.reason)
        for name, value in pending.response_headers:
            lower = name.lower()
            if lower not in _HOP_BY_HOP and not (chunked and lower == "content-length"):
                self.send_header(name, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        try:
            if bodiless:
                journal.finish(pending)
                self.end_headers()
            else:
                self.end_headers()
                if chunked:
                    self.copy_chunked(upstream, response, pending)
                else:
                    self.copy_sized(upstream, response, pending, response.length or 0)
        except ClientGone:
            journal.finish(pending, error="the client closed the connection before the response ended",
                           incomplete=True)
            connection.close()
            self.close_connection = True
            return
        except UpstreamError as err:
            journal.finish(pending, error=str(err), incomplete=True)
            connection.close()
            self.close_connection = True  # the client sees the body cut off, as the provider cut it
            return
        if response.will_close:
            connection.close()
        else:
            self.server.connections.put(upstream, connection)

    def copy_sized(self, upstream: Upstream, response: http.client.HTTPResponse, pending: Pending,
                   length: int) -> None:
        remaining = length
        while remaining > 0:
            piece = self.read(upstream, response, min(remaining, CHUNK))
            if not piece:
                raise UpstreamError(f"{upstream.host} ended the body after {length - remaining} of "
                                    f"{length} bytes")
            remaining -= len(piece)
            pending.pieces.append(piece)
            if not remaining:
                response.read()  # (b"": `read1` leaves the response open at its end, `read` closes it)
                self.conclude(pending)
            self.send(piece)

    def copy_chunked(self, upstream: Upstream, response: http.client.HTTPResponse, pending: Pending) -> None:
        while True:
            piece = self.read(upstream, response, CHUNK)
            if not piece:
                break
            pending.pieces.append(piece)
            if self.client_left():  # (writes into a closed connection can succeed for a while)
                raise ClientGone
            self.send(b"%x\r\n%b\r\n" % (len(piece), piece))
        # Every byte the provider sent is with the client: a client that stops reading at the
        # stream's last event (the openai client, at `data: [DONE]`) missed nothing.
        self.server.journal.finish(pending)
        self.send(b"0\r\n\r\n")

    def conclude(self, pending: Pending) -> None:
        """Journal the exchange whose last bytes are about to go out — unless the client has left
        (writes into a closed connection can succeed for a while: its end is looked for first)."""
        if self.client_left():
            raise ClientGone
        self.server.journal.finish(pending)

    def client_left(self) -> bool:
        """Has the client closed its side? Its socket then reads as ready, with nothing to read (a
        request it already sent on the same connection would be something)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def read(self, upstream: Upstream, response: http.client.HTTPResponse, size: int) -> bytes:
        """What has arrived of the body, up to `size` bytes (waiting for at least one)."""
        try:
            return response.read1(size)
        except (OSError, http.client.HTTPException) as err:
            raise UpstreamError(unanswered(err, upstream.where, self.server.connections.timeout)) from None

    def send(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
        except OSError:
            raise ClientGone from None

    def answer(self, status: int, kind: str, message: str) -> None:
        """A response of the proxy's own: a JSON error, as the providers shape theirs."""
        data = error_body(kind, message)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            self.close_connection = True


def error_body(kind: str, message: str) -> bytes:
    """`{"error": {"type", "message"}}`: the shape OpenAI and Anthropic errors share enough of for
    their clients to show the message."""
    return dumps({"type": "error", "error": {"type": kind, "message": message}})
