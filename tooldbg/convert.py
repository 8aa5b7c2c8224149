"""Canonical conversations → bytes in any format, with the loss report, written safely.

`export` is what `tooldbg convert` and the TUI's export dialog call: the body (a canonical document
or the request body that replays the conversation in a wire format), every loss the writer
reported, secrets masked, and `write_atomically` never replaces the input or an existing file
unless told to.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import formats
from .errors import InputError
from .jsonio import dumps
from .model import Conversation, Loss, document
from .secrets import redact_text

TARGETS: tuple[str, ...] = (*formats.WIRE_FORMATS, "canonical")


@dataclass(frozen=True, slots=True)
class Export:
    target: str
    body: dict[str, Any]
    losses: tuple[Loss, ...]

    def text(self, *, redact: bool = True) -> str:
        out = dumps(self.body, indent=True).decode() + "\n"
        return redact_text(out) if redact else out


def export(conversations: list[Conversation], target: str) -> Export:
    """One conversation to a wire format, or any number to the canonical document."""
    if target == "canonical":
        return Export(target, document(conversations), ())
    if len(conversations) != 1:
        raise ValueError("a wire format holds exactly one conversation")
    written = formats.get(target).write(conversations[0])
    return Export(target, written.body, written.losses)


def check_writable(path: Path, *, inputs: list[Path], force: bool = False) -> Path:
    """Refuse before any work is done: never an input, never an existing file without force."""
    target = path.resolve()
    if any(target == p.resolve() for p in inputs):
        raise InputError(str(path), "", "refusing to overwrite an input file")
    if target.exists() and not force:
        raise InputError(str(path), "", "file exists (use --force to overwrite)")
    if not target.parent.is_dir():
        raise InputError(str(path), "", "no such folder")
    return target


def write_atomically(path: Path, text: str, *, inputs: list[Path], force: bool = False) -> None:
    """Write through a temporary file and a rename, so a crash never leaves half a file."""
    target = check_writable(path, inputs=inputs, force=force)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
