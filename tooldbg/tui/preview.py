"""The start of a large log, read before the rest so the TUI shows a conversation at once.

Reading, stitching and checking a 100 MB log takes seconds; its first record takes milliseconds.
While the load worker reads the whole session, `first_record` reads only the first exchange of the
first file — the first line of JSON Lines, or the first entry of a HAR — with the same loader
(`load_bytes`), and the screen shows that conversation as far as it goes
(no findings yet: the checks run on the whole log). Anything else, or a first record that does not
read cleanly, gives no preview: the session then appears when loaded, as for a small file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..load import Loaded, load_bytes
from ..records.entries import STRING_OR_BRACKET
from ..records.sniff import iter_files

#: Smaller files load in a fraction of a second: no preview for them.
PREVIEW_FROM = 1_000_000
#: The most of a file read for the preview; a first record larger than this gives none.
HEAD = 8_000_000

_ENTRIES = re.compile(rb'"entries"\s*:\s*\[')


def first_record(paths: Sequence[str | Path], input_format: str | None = None,
                 threshold: int = PREVIEW_FROM) -> Loaded | None:
    """The first exchange of the first file under `paths`, read on its own; None when the file is
    small, not one of the containers above, or its first record does not read without errors."""
    try:
        path = next(iter_files(Path(paths[0])), None) if paths else None
        if path is None or path.stat().st_size < threshold:
            return None
        with path.open("rb") as f:
            head = f.read(HEAD)
        record = _first_line(head) or _first_entry(head)
        if record is None:
            return None
        loaded = load_bytes(str(path), record, input_format)
    except Exception:  # noqa: BLE001 - a preview is a nicety: the full load reports every problem
        return None
    clean = loaded.conversations and not loaded.errors and loaded.reads[0].request is not None
    return loaded if clean else None  # (a stream's first event alone is no conversation yet)


def _first_line(head: bytes) -> bytes | None:
    """JSON Lines: the first non-blank line, when it looks like an object (`load_bytes` tells
    whether it is one; a pretty-printed document's first line is only `{`)."""
    start = len(head) - len(head.lstrip())
    end = head.find(b"\n", start)
    body = head[start:end].strip() if end >= 0 else b""
    return body if body.startswith(b"{") and body.endswith(b"}") else None


def _first_entry(head: bytes) -> bytes | None:
    """A HAR's first entry, as a HAR of one entry (so it reads as the whole file would)."""
    found = _ENTRIES.search(head)
    if found is None or head.lstrip()[:1] != b"{":
        return None
    end = _element_end(head, found.end())
    if end is None:
        return None
    return b'{"log": {"version": "1.2", "entries": [' + head[found.end():end] + b"]}}"


def _element_end(data: bytes, start: int) -> int | None:
    """Where the first element of the array opened just before `start` ends (None: not in `data`)."""
    depth = 0
    for token in STRING_OR_BRACKET.finditer(data, start):
        kind = token.group()
        if kind in (b"[", b"{"):
            depth += 1
        elif kind in (b"]", b"}"):
            if depth == 0:
                return None  # the array closed: it was empty
            depth -= 1
            if depth == 0:
                return token.end()
    return None

