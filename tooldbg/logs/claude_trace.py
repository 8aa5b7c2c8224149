"""claude-trace (badlogic/lemmy `apps/claude-trace`, npm `@mariozechner/claude-trace`):
`.claude-trace/log-YYYY-MM-DD-HH-MM-SS.jsonl` in the folder Claude Code ran in, a line per API call
(`apps/claude-trace/src/interceptor.ts`, `writePairToLog`):
`{"request": {timestamp, method, url, headers, body}, "response": {timestamp, status_code, headers,
body | body_raw}, "logged_at"}` — `body_raw` the stream's text as it came, or any text body. A request
still waiting at exit is written with `"response": null` and a `note` (`cleanup`): an unanswered
request. Raw bodies: nothing is lacking.
"""

from __future__ import annotations

from typing import Any

from ..records.containers import Capture
from .base import Peek, mapping
from .capture_tools import opened, records

NAME = "claude-trace"
TITLE = "claude-trace log"
LACKS: tuple[str, ...] = ()


def sniff(peek: Peek) -> bool:
    """`logged_at` beside the pair, and the request's own `timestamp` (a response's `status_code`)."""
    return any("logged_at" in r and "timestamp" in r["request"]
               and (r.get("response") is None or "status_code" in mapping(r, "response"))
               for r in records(peek))


def read(path: str, data: bytes, document: Any) -> Capture:
    return opened(path, data, NAME)
