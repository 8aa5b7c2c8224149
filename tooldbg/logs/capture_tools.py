"""The JSON Lines of tools that record an agent's API traffic as it goes: each line a request and its
response, read by the exchange container (`records.containers`) like any recording — these modules
only tell the tool by its record's shape, so the file is named for what it is (`inputs[].container`).
What the tools name otherwise (claude-trace's `status_code` and `body_raw`, claude-tap's `path` and
`sse_events`) the container reads where it reads the common names."""

from __future__ import annotations

from typing import Any

from ..records.containers import Capture, open_capture
from .base import Peek


def opened(path: str, data: bytes, name: str) -> Capture:
    """The file read as a recording of exchanges, named `name`."""
    capture = open_capture(path, data)
    capture.container = name
    return capture


def records(peek: Peek) -> list[dict[str, Any]]:
    """The first records that are `{request, response}` pairs."""
    return [r for r in peek.records if isinstance(r, dict) and isinstance(r.get("request"), dict)]
