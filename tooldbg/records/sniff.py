"""What is a log, told by content: which files of a folder are read, and which bodies in a capture are
API bodies at all.

A folder holds more than logs (a README, a LICENSE, a screenshot, the script that recorded them), and
a browser's HAR holds more than API calls (the page, its scripts, analytics). tooldbg reads a file of
a folder only when its bytes could be a capture — JSON, JSON Lines, server-sent events or an AWS
event stream — and skips (and counts) the rest, whatever the file is named. A file named on the
command line is always read: if it is not a log, that is an error, never a silent skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from . import eventstream, sse
from .compressed import ZIP_MAGIC, ZSTD_MAGIC, is_zlib

#: An empty file named like a capture is a capture that went wrong (reported, not skipped).
CAPTURE_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson", ".har", ".sse"})
#: How much of a file is looked at to tell whether it could be a log.
HEAD = 4096
#: What begins a request in LiteLLM's debug output (`logs.litellm`): a text log tooldbg reads.
LITELLM_MARKER = b"Request Sent from LiteLLM"


def looks_like_log(name: str, data: bytes) -> bool:
    """True when `data` could be a capture tooldbg reads: a JSON document or JSON Lines (the first
    character after a byte-order mark and blank space is `{` or `[`), server-sent events, an AWS
    event stream, a compressed file or a zip, LiteLLM's debug output; or nothing at all in a file
    named like a capture (`.json`, `.jsonl`, `.har`, …)."""
    if eventstream.looks_like_eventstream(data) or data.startswith((ZSTD_MAGIC, ZIP_MAGIC)) or is_zlib(data):
        return True  # compressed (a `.jsonl.zst` rollout, a `.zhar`) or a zip (an Inspect `.eval`)
    head = data[:HEAD].removeprefix(b"\xef\xbb\xbf").lstrip()
    if not head:
        return name.lower().endswith(tuple(CAPTURE_SUFFIXES))
    if head[:1] in (b"{", b"["):
        return True
    return sse.looks_like_sse(head.decode("utf-8", errors="replace")) or LITELLM_MARKER in data


def is_api_text(text: str, content_type: str) -> bool:
    """True when a captured body could be an API body (JSON, or declared as JSON): an HTML page, a
    script, a stylesheet or an image in a HAR is not, and is kept as text rather than reported as
    invalid JSON. A body that starts like JSON but does not parse is still reported."""
    return "json" in content_type.lower() or text.lstrip()[:1] in ("{", "[", '"')


def iter_files(path: Path) -> Iterator[Path]:
    """A file, or every file below a folder in name order, hidden ones left out. Which of a folder's
    files are logs is told by their content when they are read (`looks_like_log`)."""
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file() and not any(p.startswith(".") for p in child.relative_to(path).parts):
                yield child
    else:
        yield path
