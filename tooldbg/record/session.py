"""A recording session: the proxy serving in a thread, the journal it appends to, and — when no
debugger shows the session — a reporter that reads back each exchange once it is written and says
in one line what it was and what it brought (its method, path, status, duration and new findings).

The reporter reads the file through `follow.Follower`, as `tooldbg open --follow` does: a line
describes the exchange as tooldbg reads it from disk, and reading never holds up the proxy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..checks import Finding
from ..follow import Follower, Update
from ..load import ExchangeRead
from ..secrets import redact_text
from ..shorten import plain
from .journal import Journal
from .proxy import Connections, RecordingServer
from .routes import Router, client_environment


@dataclass(frozen=True, slots=True)
class Options:
    output: Path
    listen: tuple[str, int] = ("127.0.0.1", 0)
    upstream: str | None = None
    append: bool = False
    keep_secrets: bool = False
    timeout: float = 600.0


class Recording:
    """Start with `start()`; `stop()` writes what is still in flight, marked incomplete."""

    def __init__(self, options: Options, report: Callable[[str], None] | None = None) -> None:
        self.options = options
        self._report = report
        self._written = threading.Event()
        self._stopping = threading.Event()
        self.journal = Journal(options.output, append=options.append, keep_secrets=options.keep_secrets,
                               on_written=self._written.set)
        self._connections = Connections(options.timeout)
        try:
            self.server = RecordingServer(options.listen, Router(options.upstream), self.journal,
                                          self._connections)
        except BaseException:
            self.journal.close()
            raise
        self._threads: list[threading.Thread] = []

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def environment(self) -> dict[str, str]:
        """The variables that point the common clients at this proxy (`routes.client_environment`)."""
        return client_environment(self.base_url)

    def start(self) -> None:
        follower = None
        if self._report is not None:
            follower = Follower(self.options.output)
            follower.poll()  # what an appended-to file held already is read, not reported
        serving = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                   name="record-proxy", daemon=True)
        self._threads.append(serving)
        if follower is not None:
            self._threads.append(threading.Thread(target=self._reporting, args=(follower,),
                                                  name="record-report", daemon=True))
        for thread in self._threads:
            thread.start()

    def stop(self) -> int:
        """Stop serving, write the exchanges in flight marked incomplete (how many), close the file,
        and report what is left to report."""
        self.server.shutdown()
        self.server.server_close()
        incomplete = self.journal.close()
        self._connections.close()
        self._stopping.set()
        self._written.set()
        for thread in self._threads[1:]:
            thread.join(timeout=10)
        return incomplete

    def _reporting(self, follower: Follower) -> None:
        assert self._report is not None
        while True:
            self._written.wait()
            self._written.clear()
            stopping = self._stopping.is_set()
            update = follower.poll()
            while update is not None:
                for line in exchange_lines(update):
                    self._report(line)
                update = follower.poll()
            if stopping:
                return


def exchange_lines(update: Update) -> list[str]:
    """One line per exchange the update read: method, path, status, duration, the conversation it
    joined and the findings new with it (a finding on no exchange of this update — a conversation
    as a whole — goes with the last one)."""
    indexes = [read.exchange.index for read in update.exchanges]
    by_exchange: dict[int, list[Finding]] = {}
    for finding in update.new_findings:
        at = finding.exchange if finding.exchange in indexes else indexes[-1]
        by_exchange.setdefault(at, []).append(finding)
    return [exchange_line(read, by_exchange.get(read.exchange.index, [])) for read in update.exchanges]


def exchange_line(read: ExchangeRead, findings: list[Finding]) -> str:
    exchange = read.exchange
    request, response = exchange.request, exchange.response
    words = []
    if request is not None:
        parts = urlsplit(request.url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        words += [request.method, plain(redact_text(path), 100)]
    status = response.status if response is not None else None
    words.append(str(status) if status is not None else "no response")
    duration = exchange.meta.get("duration_ms")
    if isinstance(duration, int | float):
        words.append(f"{duration:.0f} ms" if duration < 1000 else f"{duration / 1000:.1f} s")
    if read.conversation:
        words.append(read.conversation)
    if exchange.meta.get("incomplete"):
        words.append("incomplete")
    error = exchange.meta.get("error")
    if isinstance(error, str):
        words.append(f"({plain(redact_text(error), 160)})")
    if findings:
        names = ", ".join(sorted({f"{f.code} {f.name}" for f in findings}))
        words.append(f"· {len(findings)} new finding{'s' if len(findings) != 1 else ''}: {names}")
    return "  ".join(words)
