"""The probe's HTTP client: the standard library's `urllib` (`http.client` underneath), so TLS is
verified against the system's certificate authorities (`ssl.create_default_context`), `HTTPS_PROXY`
/ `HTTP_PROXY` / `NO_PROXY` are honoured as every Python HTTP client honours them
(`urllib.request.ProxyHandler`, a `CONNECT` tunnel for HTTPS), and a response body is read
incrementally, as it arrives (`read1`), under one deadline per request.

What this module returns is what happened on the wire (`Sent`), not an interpretation: an HTTP error
status is a response like any other. Only a request that got no HTTP response at all — no route to
the host, a refused connection, a TLS handshake that failed verification, nothing within the timeout
— raises `Unreachable`, whose message is one line."""

from __future__ import annotations

import http.client
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from ..network import unanswered

#: Bytes asked for at a time while a body streams in.
_READ = 1 << 16


class Unreachable(Exception):
    """No HTTP response: the message says why, in one line."""


@dataclass(slots=True)
class Sent:
    """One request and what came back: the status, headers and body bytes as received. `cut` says
    why the body may be incomplete (the deadline passed, the connection dropped mid-body)."""

    method: str
    url: str
    request_headers: dict[str, str]
    request_body: bytes
    status: int = 0
    reason: str = ""
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    response_body: bytes = b""
    started: float = 0.0
    elapsed: float = 0.0
    cut: str | None = None

    def header(self, name: str) -> str:
        return next((v for k, v in self.response_headers if k.lower() == name), "")


def opener() -> urllib.request.OpenerDirector:
    """A urllib opener with the environment's proxies and a verifying TLS context."""
    return urllib.request.build_opener(urllib.request.ProxyHandler(),
                                       urllib.request.HTTPSHandler(context=ssl.create_default_context()))


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float,
         client: urllib.request.OpenerDirector | None = None) -> Sent:
    """POST `body` to `url` and read the answer whole, within `timeout` seconds in all (a streamed
    answer is read piece by piece as it arrives; what arrived by the deadline is kept)."""
    sent = Sent("POST", url, dict(headers), body, started=time.time())
    begun = time.monotonic()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        response = (client or opener()).open(request, timeout=timeout)
    except urllib.error.HTTPError as err:  # an error status is an answer: its body is read below
        response = err
    except urllib.error.URLError as err:
        reason = err.reason if isinstance(err.reason, BaseException) else err
        raise Unreachable(unanswered(reason, url, timeout)) from None
    except (OSError, http.client.HTTPException) as err:
        raise Unreachable(unanswered(err, url, timeout)) from None
    with response:
        sent.status, sent.reason = response.status or 0, str(response.reason or "")
        sent.response_headers = list(response.headers.items())
        sent.response_body, sent.cut = _read(response, begun + timeout)
    sent.elapsed = time.monotonic() - begun
    return sent


def _read(response: http.client.HTTPResponse | urllib.error.HTTPError,
          deadline: float) -> tuple[bytes, str | None]:
    """The body as it arrives, until the end, the deadline, or the connection drops."""
    pieces: list[bytes] = []
    read1 = getattr(response, "read1", None) or response.read
    while True:
        if time.monotonic() > deadline:
            return b"".join(pieces), "the answer was still arriving when the timeout passed"
        try:
            piece = read1(_READ)
        except http.client.IncompleteRead as err:
            pieces.append(err.partial)
            return b"".join(pieces), "the connection closed before the body was complete"
        except TimeoutError:
            return b"".join(pieces), "nothing more arrived within the timeout"
        except (OSError, http.client.HTTPException) as err:
            return b"".join(pieces), f"the connection failed mid-body: {err}"
        if not piece:
            return b"".join(pieces), None
        pieces.append(piece)
