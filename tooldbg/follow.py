"""A JSON Lines recording another process is appending to (`tooldbg record`), read as it grows.

`Follower.poll` reads the bytes appended since the last poll — from the offset it reached, never the
file again — takes the complete lines among them (a line being written stays for the next poll),
and feeds each exchange record to one `load.Reading`, which stitches it after the ones before. The
checks then run over the file as read so far, so a poll answers with the conversations, the
findings, and which of them are new.

The checks run over the whole file, not only the conversations the new exchanges joined: a finding
of one conversation can depend on others (a refused request's branch shares its prefix's turns,
and which requests sent a turn sets a finding's severity; a conversation's first request is paired
as the replay of the exchange before it in the file; an exchange can move an earlier one to a
branch), so findings checked per touched conversation would not always be `check`'s. A poll reads
every complete line appended since the last one and checks once, so the cost is one run of the
checks per poll, however many exchanges it brought.

A file that shrank was written anew (`record --force`): it is read again from its start.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .checks import run_checks
from .checks.base import Finding
from .errors import InputError
from .load import Loaded, Reading
from .records.containers import Capture, Exchange, exchange_record, is_exchange, jsonl_value
from .timeline import ExchangeRead

#: Bytes read at most per poll: a long recording opened mid-way is read over several polls, so a
#: view shows its start while the rest comes.
CHUNK = 8 << 20
_BLANK = re.compile(rb"\s*")


@dataclass(slots=True)
class Update:
    """What one poll read: the file so far (a copy another thread may keep while reading goes on),
    its findings, the exchanges and findings new since the last poll, and whether the file was
    begun anew."""

    loaded: Loaded
    findings: list[Finding]
    exchanges: list[ExchangeRead] = field(default_factory=list)
    new_findings: list[Finding] = field(default_factory=list)
    restarted: bool = False


class Follower:
    """Reads a growing JSON Lines file of exchanges; one thread polls it (`poll`)."""

    def __init__(self, path: str | Path, input_format: str | None = None) -> None:
        self.path = str(path)
        self._input_format = input_format
        self._start()

    def _start(self) -> None:
        self._offset = 0
        self._tail = b""
        self._line = 0
        self._reading = Reading(self.path, "jsonl", self._input_format)
        self._capture = Capture(self.path, "jsonl")  # only its `errors`: the bad lines
        self._findings: set[Finding] = set()

    @property
    def offset(self) -> int:
        """How many bytes of the file have been read (up to the end of the last complete line)."""
        return self._offset

    def poll(self) -> Update | None:
        """Read what was appended since the last poll: None when no complete line was. A line not
        yet ended is kept and completed by what the next poll reads (no byte is read twice)."""
        restarted = False
        try:
            with open(self.path, "rb") as file:
                size = file.seek(0, 2)
                if size < self._offset + len(self._tail):
                    self._start()
                    restarted = True
                file.seek(self._offset + len(self._tail))
                data = self._tail + file.read(CHUNK)
        except FileNotFoundError:
            return None  # not created yet (`record` makes it when it starts)
        except OSError as err:
            raise InputError(self.path, "", err.strerror or str(err)) from None
        end = data.rfind(b"\n") + 1
        self._tail = data[end:]
        if not end and not restarted:
            return None
        self._offset += end
        errors_before = len(self._reading.loaded.errors)
        reads = [self._reading.add(exchange) for exchange in self._exchanges(data, end)]
        if not reads and len(self._reading.loaded.errors) == errors_before and not restarted:
            return None
        return self._update(reads, restarted)

    def _exchanges(self, data: bytes, end: int) -> Iterator[Exchange]:
        """The exchanges of the lines in `data[:end]` (each ends in a line feed), each made when the
        one before has been read; a line that is not an exchange record is an error of the file."""
        errors = self._reading.loaded.errors
        view, start = memoryview(data), 0
        while start < end:
            stop = data.find(b"\n", start, end)
            line, blank = view[start:stop], _BLANK.fullmatch(data, start, stop)
            start = stop + 1
            self._line += 1
            if blank:
                continue
            try:
                value, lists = jsonl_value(self.path, line, self._line)
            except InputError as err:
                errors.append(err)
                continue
            if not is_exchange(value):
                errors.append(InputError(self.path, f"line {self._line}",
                                         'not an exchange record ({"request": …, "response": …})'))
                continue
            exchange = exchange_record(self._capture, value, self._line, len(self._reading.loaded.reads),
                                       lists)
            errors.extend(self._capture.errors)
            self._capture.errors.clear()
            yield exchange

    def _update(self, reads: list[ExchangeRead], restarted: bool) -> Update:
        reading = self._reading
        loaded = Loaded(self.path, "jsonl", reads=list(reading.loaded.reads),
                        conversations=reading.conversations(), errors=list(reading.loaded.errors),
                        skipped=reading.loaded.skipped)
        findings = run_checks(loaded)
        new = [f for f in findings if f not in self._findings]
        self._findings = set(findings)
        return Update(loaded, findings, reads, new, restarted)
