"""claude-tap (liaohch3/claude-tap, PyPI `claude-tap`): `.traces/YYYY-MM-DD/trace_HHMMSS.jsonl`, a
line per API call (`claude_tap/proxy.py`, `_build_record`): `{timestamp, request_id, turn,
duration_ms, request: {method, path, headers, body}, response: {status, headers, body,
sse_events?}, upstream_base_url}`. A streamed `body` is claude-tap's own reassembly; the events as
they came are kept in `sse_events` (`[{event, data}]`, `claude_tap/sse.py`) only with
`--tap-store-stream-events`, and are read when there. Raw bodies: nothing is lacking.
"""

from __future__ import annotations

from typing import Any

from ..records.containers import Capture
from .base import Peek
from .capture_tools import opened, records

NAME = "claude-tap"
TITLE = "claude-tap trace"
LACKS: tuple[str, ...] = ()


def sniff(peek: Peek) -> bool:
    """The request's `path` (no `url`), beside claude-tap's `turn` / `request_id` / `duration_ms`."""
    return any("path" in r["request"] and "url" not in r["request"]
               and ("turn" in r or "duration_ms" in r or "request_id" in r) for r in records(peek))


def read(path: str, data: bytes, document: Any) -> Capture:
    return opened(path, data, NAME)
