"""The recording: one JSON Lines record per exchange, appended, flushed and fsynced when the
exchange completes, in the shape `records.containers` reads:

    {"request": {"method", "url", "headers", "body"},
     "response": {"status", "headers", "body"},
     "started": ISO 8601, "duration_ms": …, ["incomplete": true], ["error": "…"]}

Bodies are kept as they crossed the wire: the text itself when it is UTF-8 (a JSON body, or a
stream's whole SSE text), else base64 with `"bodyEncoding": "base64"` (a Bedrock event stream's
binary frames). Credentials are masked in what is written — headers that carry one, and the URL's
(`?key=`) — never in what is forwarded.

A record is written whole or not at all as far as a reader is concerned: one `write` of one line
under a lock, flushed to the operating system before the proxy sends the client the end of its
response — so a proxy killed at any point has lost no exchange a client saw complete, and leaves at
most a cut last line, which the reader reports and passes over. The journal's sync thread then
fsyncs the file (the records written meanwhile in one go): a machine that loses power loses at most
the last moment's records, and the disk's flush time is not added to every response. Exchanges
still in flight when the recording stops (Ctrl-C) are written with what had arrived, marked
incomplete (`close`), and the file is fsynced before it is closed.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from ..jsonio import dumps
from ..records.eventstream import looks_like_eventstream
from ..secrets import SECRET_HEADERS, mask, redact_text

#: Header-name fragments that say the value is a credential, beyond the names `secrets` lists
#: (`x-portkey-api-key`, `x-goog-user-project-token`, a relay's own `x-relay-auth`).
_SECRET_NAME_PARTS = ("key", "token", "secret", "auth", "cookie", "signature", "credential")


def masked_headers(headers: Sequence[tuple[str, str]], keep_secrets: bool = False) -> dict[str, str]:
    """Headers as the record keeps them: one value per name (repeated ones joined with `, `, as
    HTTP allows), credentials masked unless `keep_secrets`."""
    out: dict[str, str] = {}
    for name, value in headers:
        if not keep_secrets and (name.lower() in SECRET_HEADERS
                                 or any(part in name.lower() for part in _SECRET_NAME_PARTS)):
            value = mask(value)
        out[name] = f"{out[name]}, {value}" if name in out else value
    return out


def body_fields(data: bytes) -> dict[str, Any]:
    """`{"body": text}` for a UTF-8 body, `{"body": base64, "bodyEncoding": "base64"}` otherwise
    (binary frames), `{}` for none."""
    if not data:
        return {}
    if not looks_like_eventstream(data):
        try:
            return {"body": data.decode("utf-8")}
        except UnicodeDecodeError:
            pass
    return {"body": base64.b64encode(data).decode("ascii"), "bodyEncoding": "base64"}


@dataclass(slots=True)
class Pending:
    """An exchange in flight: the request as received, the response as it arrives."""

    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: bytes
    started: float = field(default_factory=time.time)
    clock: float = field(default_factory=time.perf_counter)
    status: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    pieces: list[bytes] = field(default_factory=list)
    written: bool = False

    @property
    def duration(self) -> float:
        return time.perf_counter() - self.clock


class Journal:
    """The JSON Lines file being recorded; thread-safe."""

    def __init__(self, path: Path, *, append: bool = False, keep_secrets: bool = False) -> None:
        self.path = path
        self.keep_secrets = keep_secrets
        self._file: BinaryIO = open(path, "ab" if append else "wb")  # noqa: SIM115 - closed in close()
        self._lock = threading.Lock()
        self._in_flight: dict[int, Pending] = {}
        self.written = 0
        self._unsynced = threading.Condition(self._lock)
        self._dirty = False
        self._syncer = threading.Thread(target=self._sync, name="record-fsync", daemon=True)
        self._syncer.start()

    def begin(self, pending: Pending) -> Pending:
        with self._lock:
            self._in_flight[id(pending)] = pending
        return pending

    def finish(self, pending: Pending, *, error: str | None = None, incomplete: bool = False) -> None:
        """Write the exchange (once: a second call, or one after `close`, writes nothing)."""
        with self._lock:
            if not pending.written and not self._file.closed:
                pending.written = True
                self._in_flight.pop(id(pending), None)
                self._append(self._line(pending, error, incomplete))

    def close(self, reason: str = "interrupted: the recording stopped before the exchange completed") -> int:
        """Write every exchange still in flight, marked incomplete, and close the file; how many
        were written so."""
        with self._lock:
            pending = [p for p in self._in_flight.values() if not p.written]
            for item in pending:
                item.written = True
                self._append(self._line(item, reason, True))
            self._in_flight.clear()
            if not self._file.closed:
                os.fsync(self._file.fileno())
                self._file.close()
            self._unsynced.notify()
        self._syncer.join(timeout=30)
        return len(pending)

    def _append(self, line: bytes) -> None:
        """One record written in one call and flushed (under the lock); the sync thread fsyncs it."""
        self._file.write(line)
        self._file.flush()
        self.written += 1
        self._dirty = True
        self._unsynced.notify()

    def _sync(self) -> None:
        """Fsync the file whenever records were written since the last fsync, until it is closed."""
        while True:
            with self._lock:
                while not self._dirty and not self._file.closed:
                    self._unsynced.wait()
                if self._file.closed:
                    return
                self._dirty = False
                descriptor = os.dup(self._file.fileno())  # (the file may be closed while it syncs)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)

    def _line(self, pending: Pending, error: str | None, incomplete: bool) -> bytes:
        return dumps(self.record(pending, error=error, incomplete=incomplete)) + b"\n"

    def record(self, pending: Pending, *, error: str | None = None,
               incomplete: bool = False) -> dict[str, Any]:
        """The JSON Lines record of an exchange (see the module's docstring)."""
        keep = self.keep_secrets
        request: dict[str, Any] = {
            "method": pending.method, "url": pending.url if keep else redact_text(pending.url),
            "headers": masked_headers(pending.request_headers, keep), **body_fields(pending.request_body)}
        record: dict[str, Any] = {"request": request}
        if pending.status is not None:
            record["response"] = {"status": pending.status,
                                  "headers": masked_headers(pending.response_headers, keep),
                                  **body_fields(b"".join(pending.pieces))}
        record["started"] = datetime.fromtimestamp(pending.started, UTC).isoformat(timespec="milliseconds")
        record["duration_ms"] = round(pending.duration * 1000, 3)
        if incomplete:
            record["incomplete"] = True
        if error is not None:
            record["error"] = error
        return record
