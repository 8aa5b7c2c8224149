"""What the network code (`probe`, `record`) says when a server does not answer: one line naming
the cause, as the user would put it, never a traceback."""

from __future__ import annotations

import http.client
import socket
import ssl


def unanswered(err: BaseException, where: str, timeout: float) -> str:
    """Why `where` (a URL, or host:port) did not answer: `err` as raised by the standard library's
    HTTP client (an `OSError` or `http.client.HTTPException`, or `URLError.reason`)."""
    if isinstance(err, ssl.SSLCertVerificationError):
        return f"TLS certificate of {where} not verified: {err.verify_message or err.reason}"
    if isinstance(err, ssl.SSLError):
        return f"TLS with {where} failed: {err.reason or err}"
    if isinstance(err, TimeoutError):  # (socket.timeout is TimeoutError)
        return f"{where} did not answer within {timeout:g} s"
    if isinstance(err, ConnectionRefusedError):
        return f"connection to {where} refused (nothing listens there)"
    if isinstance(err, socket.gaierror):
        return f"the host name of {where} could not be resolved ({err.strerror})"
    if isinstance(err, http.client.RemoteDisconnected):
        return f"{where} closed the connection without answering"
    if isinstance(err, http.client.HTTPException):
        return f"{where} answered with something that is not HTTP ({type(err).__name__})"
    if isinstance(err, OSError):
        return f"{where}: {' '.join(str(err.strerror or err).split())}"
    return f"{where}: {type(err).__name__}: {' '.join(str(err).split())}"
