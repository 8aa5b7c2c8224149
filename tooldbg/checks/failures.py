"""Failures a tool result reports: in its words (an "Error: …" line, a Python traceback, a
`{"error": …}` object: `failure_report`, asked by TD304 of a result sent without the failure flag its
format has, and by `diff`) and by a failure flag a replay dropped (`lost_flags`: TD303, and `fix`'s
repair of it). Apart from `replay`, which pairs the turns these read."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from .. import formats
from ..jsonio import dumps_str, try_loads
from ..model import Json, Part, Result, Text
from ..shorten import clip
from .base import Context
from .replay import Pair, Placed, replays, snippet

_FAILURE_START = re.compile(  # "Error: …", "ERROR [E42]: …", "Error 503 …", "Failed to …"
    r"^\W{0,3}(?:(?:error|exception|fatal(?: error)?|failure|failed)\s*(?:\[[^\]]*\]\s*)?[:!]"
    r"|error\s+(?:code\s+)?\d{3}\b|failed\s+to\b)", re.I)
_EXCEPTION = re.compile(r"^\W{0,3}[A-Za-z_][\w.]*(?:Error|Exception)\s*:")  # "KeyError: 'city'"
_FAILURE_LINE = re.compile(  # "… timed out …", "Command failed with exit code 2", not "3 failed, 9 passed"
    r"\btimed out\b|(?<![\d,] )(?<!\d)\b(?:failed|failure)(?:\s+(?:to|with|because|due)\b|\s*[:.(!]|\s*$)",
    re.I)
_TRACEBACK = "Traceback (most recent call last)"


def failure_report(parts: Sequence[Part]) -> str | None:
    """The words in which result content reports a failure ("Error: …", a Python traceback,
    `{"error": …}`, "timed out", "failed" on its first line), or None."""
    for part in parts:
        if isinstance(part, Json):
            found = _failure_value(part.value)
        elif isinstance(part, Text):
            found = _failure_text(part.text)
        else:
            found = None
        if found:
            return found
    return None


#: Keys under which a JSON result says what went wrong (`error_message`: Google ADK's tool results,
#: `{"status": "error", "error_message": …}`, https://google.github.io/adk-docs/tools-custom/function-tools).
_ERROR_KEYS = ("error", "error_message", "errorMessage")
#: A `status` that says the call failed.
_FAILED_STATUS = frozenset({"error", "failed", "failure"})
#: Keys whose text is the output itself (`{"output": "Error: …"}`, `{"content": …}`, `{"result": …}`).
_OUTPUT_KEYS = ("output", "content", "result")


def _failure_value(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    for key in _ERROR_KEYS:
        error = value.get(key)
        if error not in (None, False, "", {}, []):
            text = dumps_str(error)
            return f'"{key}": {clip(text, 50)}'
    for key in ("success", "ok"):
        if value.get(key) is False:
            return f'"{key}": false'
    status = value.get("status")
    if isinstance(status, str) and status.strip().lower() in _FAILED_STATUS:
        return f'"status": {dumps_str(status[:20])}'
    for key in _OUTPUT_KEYS:
        output = value.get(key)
        if isinstance(output, str) and (found := _failure_text(output)):
            return found
    return None


def _failure_text(text: str) -> str | None:
    stripped = text.strip()
    if stripped.startswith("{"):
        ok, value = try_loads(stripped)
        if ok:
            return _failure_value(value)
    if _TRACEBACK in text:
        return "a Python traceback"
    # the status line, if the output has one: the first line of the output clipped to 300 characters
    # (a line ending before the clip, which cuts at 299 or later, is that line: no clip needed)
    newline = stripped.find("\n", 0, 299)
    first = stripped[:newline] if newline >= 0 else clip(stripped, 300).split("\n", 1)[0]
    if _FAILURE_START.match(first) or _EXCEPTION.match(first) or (
            _names_failure(first) and _FAILURE_LINE.search(first)):
        return snippet(first, 60)
    return None


def _names_failure(line: str) -> bool:
    """Does `line` hold `fail` or `timed out`, in any case, as `_FAILURE_LINE` needs? Asked in C
    before that search, which cost two microseconds a line (a sixth of checking a result): most
    lines hold neither. The search's case-blind `i` matches `İ` and `ı` too, which `lower` does not
    make an `i` (every other letter of the two words only matches itself in either case)."""
    low = line.replace("İ", "i").replace("ı", "i").lower()
    return "fail" in low or "timed out" in low


def lost_flags(ctx: Context) -> Iterator[tuple[Pair, Result, Placed]]:
    """Results flagged as failures in one request and replayed unflagged in the next (TD303); a
    format without a flag is excused when the replay says the failure in its text."""
    for replay in replays(ctx):
        textual = replay.format is not None and formats.facts(replay.format).failure == "text"
        for pair in replay.pairs:
            for result, hit in pair.results():
                if not result.is_error or hit is None or hit[2].is_error:
                    continue
                if textual and failure_report(hit[2].content):
                    continue
                yield pair, result, hit
