"""Untrusted values made short and safe before they are quoted or displayed.

A log can hold a tool name of a megabyte, a URL of 200,000 lines, a value nested a thousand levels
deep, escape sequences. Two helpers, used everywhere such a value meets a person:

* `quote(value)` — a value as a message quotes it (errors, findings, stream problems, losses):
  written as `repr()` writes it, but on one line, control and bidi characters escaped, at most
  about `width` characters, and computed in time proportional to `width` (a plain `repr()` or
  `dumps` costs the value's whole size and recurses its whole depth);
* `one_line(text)` / `shorten_lines(text)` — text prepared for display before it is rendered (a URL
  or header line in `show` and the TUI, the wire JSON): a line longer than the limit is cut in the
  middle, saying how much was cut, and a text of many lines keeps its first ones. Rendering then
  costs what is shown, not what was logged.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import islice
from typing import Any

from .secrets import credential_spans

#: Characters of a value quoted in a message.
QUOTE = 100
#: Characters of one displayed line (a URL, a header, a line of wire JSON).
LINE = 2000
#: Characters of a message (an error, a finding, a stream problem, a loss): the sink's bound.
MESSAGE = 1000

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


#: Characters looked at on each side of a cut for a credential it would split (a JSON Web Token is
#: rarely longer; the masking pass still sees the start of a longer one the head keeps).
_REACH = 4096


def _whole(text: str, at: int, *, head: bool) -> int:
    """Where to cut `text` near `at` so that no credential is split (`secrets.credential_spans`):
    a cut that keeps the head moves to the end of a credential it falls in, one that keeps the tail
    to its start. Masking runs on what is printed, after the cut: a key cut in half has lost its
    shape (a JWT's three parts, a name before its value), and its kept half would print as is."""
    if not 0 < at < len(text):
        return at
    low = max(0, at - _REACH)
    spans = [(low + start, low + end) for start, end in credential_spans(text[low:at + _REACH])]
    moved = True
    while moved:  # (a name's match holds a key's shape: moving out of one may land in the other)
        moved = False
        for start, end in spans:
            if start < at < end:
                at, moved = (end if head else start), True
    return at


def clip(text: str, width: int) -> str:
    """`text` in about `width` characters: its head and `…` (a credential it reaches kept whole)."""
    if len(text) <= width:
        return text
    end = _whole(text, max(width - 1, 0), head=True)
    return text if end >= len(text) else text[:end] + "…"


def cut(text: str, width: int) -> str:
    """`text` in about `width` characters: head, `…`, tail (a long JSON pointer or id keeps both
    ends, which say the most); a credential either end reaches is kept whole."""
    if len(text) <= width:
        return text
    if width < 8:
        return clip(text, width)
    head = (width - 1) * 2 // 3
    end, start = _whole(text, head, head=True), _whole(text, len(text) - (width - 1 - head), head=False)
    return text if start <= end else text[:end] + "…" + text[start:]


def quote(value: Any, width: int = QUOTE) -> str:
    """`value` as a message quotes it, written as `repr()` writes it (`'get_weather'`,
    `{'a': [1, 2]}`, `None`) — but on one line, at most about `width` characters (cut in the
    middle, `…`), control and bidi characters escaped, in time proportional to `width` whatever
    the value's size, and without recursion whatever its depth."""
    if isinstance(value, str):
        return _quote_str(value, width)
    out: list[str] = []
    size = 0
    # An explicit stack (never recursion): (False, value) is a value to write, (True, text) text.
    stack: list[tuple[bool, Any]] = [(False, value)]
    while stack and size <= width:
        literal, item = stack.pop()
        if literal:
            piece = item
        elif isinstance(item, dict):
            entries = list(islice(item.items(), width // 2 + 1))
            piece = "{"
            stack.append((True, ", …}" if len(item) > len(entries) else "}"))
            for i, (key, child) in reversed(list(enumerate(entries))):
                stack.append((False, child))
                stack.append((True, ("" if i == 0 else ", ") + quote(key, width) + ": "))
        elif isinstance(item, list | tuple):
            entries = list(item[: width // 2 + 1])
            opening, closing = ("[", "]") if isinstance(item, list) else ("(", ")")
            piece = opening
            stack.append((True, (", …" if len(item) > len(entries) else "") + closing))
            for i, child in reversed(list(enumerate(entries))):
                stack.append((False, child))
                if i:
                    stack.append((True, ", "))
        elif isinstance(item, str):
            piece = _quote_str(item, width)
        elif isinstance(item, int) and item.bit_length() > 14_000:  # repr() refuses 4,300+ digits
            piece = f"<an integer of {item.bit_length()} bits>"
        elif item is None or isinstance(item, bool | int | float):
            piece = cut(repr(item), 24)
        else:
            piece = f"<{type(item).__name__}>"
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    if len(text) <= width and not stack:
        return text
    return text[:_whole(text, max(width - 1, 1), head=True)] + "…"


def _quote_str(text: str, width: int) -> str:
    # repr() escapes line breaks and controls (`\x1b`) and the non-printable bidi controls
    # (`\u202e`); it runs on a string cut to size first, so its cost is bounded too.
    shown = repr(cut(text, width))
    if len(shown) <= width + 2:
        return shown
    return shown[0] + cut(shown[1:-1], width) + shown[-1]


def one_line(text: str, width: int = LINE) -> str:
    """Text for a one-line display (a URL, a header value): line breaks and controls escaped, a
    long line cut in the middle with the number of characters left out."""
    if len(text) > width:
        text = _cut_line(text, width)
    text = _CONTROL.sub(_escape_char, text)
    return text if len(text) <= width + 40 else _cut_line(text, width)  # escapes made it longer


def plain(text: str | None, width: int = QUOTE) -> str:
    """A name or an id as a message shows it unquoted (`call i1 get_weather`): on one line, at most
    `width` characters."""
    return one_line("" if text is None else str(text), width)


def message(text: str) -> str:
    """A message as tooldbg keeps it: one line, at most MESSAGE characters. The errors, findings,
    stream problems and losses apply it when they are made, so whatever a message quoted from a
    log, it prints as one bounded line."""
    return one_line(text, MESSAGE)


def shorten_lines(text: str, width: int = LINE, lines: int | None = None) -> str:
    """Text for a display of several lines (wire JSON): each line longer than `width` cut in the
    middle, and with `lines`, only the first `lines` kept and the rest counted. Linear in the size
    of the text (the search for long lines runs in the regex engine, so a text without one is
    returned as it is, at once), and what is returned is at most about `lines × width` characters."""
    more = ""
    if lines is not None:
        end = -1
        for _ in range(lines):
            end = text.find("\n", end + 1)
            if end < 0:
                break
        if end >= 0:
            text, more = text[:end], f"\n… {text.count(chr(10), end + 1) + 1:,} more lines"
    return _long_line(width).sub(lambda m: _cut_line(m.group(), width), text) + more


@cache
def _long_line(width: int) -> re.Pattern[str]:
    return re.compile(rf"[^\n]{{{width + 1},}}")


def _cut_line(line: str, width: int) -> str:
    """A line longer than `width`: its head and tail (neither part of a credential), and how many
    characters were left out."""
    head = max(width - 1, 0) * 2 // 3
    tail = len(line) - max(width - 1 - head, 0)
    end, start = _whole(line, head, head=True), _whole(line, tail, head=False)
    if start <= end:
        return line
    left_out = len(line) - width - (end - head) - (tail - start)
    return f"{line[:end]}… ({left_out:,} characters) …{line[start:]}"


def describe_exception(err: BaseException) -> str:
    """An exception named for a user: its type and a short message, on one line."""
    text = str(err)
    return type(err).__name__ + (f": {one_line(text, 200)}" if text else "")
