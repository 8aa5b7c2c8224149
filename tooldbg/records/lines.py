"""JSON Lines read in place: the lines of a file's bytes found as offsets (no copy of the file), and
each parsed where it is. The exchange container (`containers`) and the agents' own logs
(`tooldbg.logs`) read their lines so."""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from itertools import chain
from typing import Any

from ..errors import FormatError, InputError
from ..jsonio import MAX_DEPTH, TooDeep, ensure_depth, loads

#: The UTF-8 byte-order mark some writers put first.
BOM = b"\xef\xbb\xbf"
#: A run of blank space (a blank line, or a file of nothing else).
BLANK = re.compile(rb"\s*")


def lines(data: bytes, start: int = 0) -> Iterator[tuple[int, int, int]]:
    """(line number, start, end) of every line of `data` from `start` on that is not blank, split
    as `bytes.splitlines` splits (CRLF, CR, LF): offsets, so no copy of the file is made."""
    end, number = len(data), 0
    while start < end:
        stop = data.find(b"\n", start)
        stop = end if stop < 0 else stop
        line_end = stop - 1 if stop > start and data[stop - 1] == 13 else stop
        if data.find(b"\r", start, line_end) < 0:
            number += 1
            if not BLANK.fullmatch(data, start, line_end):
                yield number, start, line_end
        else:  # lone carriage returns end lines too (rare: split this one line)
            at = start
            for piece in data[start:line_end].split(b"\r"):
                number += 1
                if piece.strip():
                    yield number, at, at + len(piece)
                at += len(piece) + 1
        start = stop + 1


def line_table(data: bytes, start: int = 0) -> array[int]:
    """`lines(data, start)` found at once, as a flat table of (line number, start, end): for a reader
    that counts a file's lines before it reads them, rather than finding them twice (that second
    pass over the file was 0.2 M instructions of checking a 1 MB JSON Lines capture). 24 bytes a
    line, not a tuple of three numbers (a hundred)."""
    return array("q", chain.from_iterable(lines(data, start)))


def table_lines(table: array[int]) -> Iterator[tuple[int, int, int]]:
    """The (line number, start, end) of each line of a `line_table`."""
    found = iter(table)
    return zip(found, found, found, strict=True)


def parses(view: memoryview) -> bool:
    """Is this one JSON value (nested too deep to read counts: it is a record, reported as such)?"""
    try:
        loads(view, check_depth=False)
    except TooDeep:
        return True
    except FormatError:
        return False
    return True


def record_shaped(data: bytes, skip: int) -> bool:
    """Does a line after the first have a JSON Lines record's shape — an object or an array on its
    own, from the start of the line to its end (whether or not it parses: a record may be broken)?
    A document pretty-printed over many lines has none (what it nests is indented, and its own
    brackets stand alone on their lines), so its syntax error is reported where it is, not as each
    of its lines' errors."""
    found = lines(data, skip)
    next(found, None)
    return any(data[start] in b"{[" and data[end - 1 - _trailing(data, start, end)] in b"}]"
               for _, start, end in found)


def _trailing(data: bytes, start: int, end: int) -> int:
    """How many blank characters end the line `data[start:end]`."""
    count = 0
    while end - count > start + 1 and data[end - 1 - count] in b" \t":
        count += 1
    return count


def json_lines(path: str, data: bytes, errors: list[InputError]) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of JSON Lines (`json_records`)."""
    for number, _, _, value in json_records(path, data, errors):
        yield number, value


def json_records(path: str, data: bytes, errors: list[InputError]) -> Iterator[tuple[int, int, int, Any]]:
    """(line number, start, end, value) of each non-blank line of JSON Lines, parsed from a view into
    the bytes (a byte-order mark skipped), `data[start:end]` its text; a line that does not parse, or
    nests too deep, is an error in `errors` and the next line is read. The agents' own logs
    (`tooldbg.logs`) are read so."""
    view = memoryview(data)
    for number, start, end in lines(data, len(BOM) if data.startswith(BOM) else 0):
        try:
            value = loads(view[start:end], check_depth=False)
            # (a line with fewer brackets than the limit cannot nest past it: counted at the speed
            # of memory, where the walk costs a Python loop a level)
            if data.count(b"{", start, end) + data.count(b"[", start, end) > MAX_DEPTH:
                ensure_depth(value)
        except FormatError as err:
            errors.append(InputError(path, f"line {number}{err.pointer}", err.message))
            continue
        yield number, start, end, value
