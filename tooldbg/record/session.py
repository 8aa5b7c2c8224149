"""A recording session: the proxy serving in a thread, the journal it appends to, and — when no
debugger shows the session — a reporter that reads back each exchange once it is written and says
in one line what it was and what it brought (its method, path, status, duration and new findings).

The reporter reads the file through `follow.Follower`, as `tooldbg open --follow` does, in a process
of its own: reading and checking a long session takes the interpreter for a while, and the proxy's
threads would wait for it between two events of a stream.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..checks.base import Finding
from ..follow import Follower, Update
from ..secrets import redact_text
from ..shorten import plain
from ..timeline import ExchangeRead
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
        self._reporter: Any = None
        self.journal = Journal(options.output, append=options.append, keep_secrets=options.keep_secrets)
        self._connections = Connections(options.timeout)
        try:
            self.server = RecordingServer(options.listen, Router(options.upstream), self.journal,
                                          self._connections)
        except BaseException:
            self.journal.close()
            raise

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def environment(self) -> dict[str, str]:
        """The variables that point the common clients at this proxy (`routes.client_environment`)."""
        return client_environment(self.base_url)

    def start(self) -> None:
        if self._report is not None:
            context = multiprocessing.get_context("spawn")
            self._stop_report = context.Event()
            ready = context.Event()
            self._reporter = context.Process(target=report_exchanges, name="record-report", daemon=True,
                                             args=(str(self.options.output), self._report, self._stop_report,
                                                   ready))
            self._reporter.start()
            ready.wait(REPORTER_START)  # what an appended-to file held already is read, not reported
        self._serving = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1},
                                         name="record-proxy", daemon=True)
        self._serving.start()

    def stop(self) -> int:
        """Stop serving, write the exchanges in flight marked incomplete (how many), close the file,
        and let the reporter report what is left."""
        self.server.shutdown()
        self.server.server_close()
        incomplete = self.journal.close()
        self._connections.close()
        if self._reporter is not None:
            self._stop_report.set()
            self._reporter.join(REPORTER_START)
        return incomplete


#: Seconds the reporter's process has to start (or to finish when stopped); seconds between its looks
#: at the file.
REPORTER_START = 60.0
REPORT_POLL = 0.1


def report_exchanges(path: str, report: Callable[[str], None], stop: Any, ready: Any) -> None:
    """The reporter's process: a line per exchange appended to `path`, until `stop` is set (then what
    is left is reported), or until the recorder is gone (killed: it could not set `stop`). `ready` is
    set once what the file held at the start was read."""
    recorder = os.getppid()
    follower = Follower(path)
    follower.poll()
    ready.set()
    while True:
        stopping = stop.wait(REPORT_POLL) or os.getppid() != recorder
        update = follower.poll()
        while update is not None:
            for line in exchange_lines(update):
                report(line)
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
