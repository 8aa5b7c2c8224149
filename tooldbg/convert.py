"""Canonical conversations → bytes in any format, with the loss report, written safely.

`export` is what `tooldbg convert` and the TUI's export dialog call: the body (a canonical document
or the request body that replays the conversation in a wire format) and every loss the writer
reported; `Export.text` is the bytes written or printed, secrets masked in one pass over the whole
text (`secrets.redact_text`) and no raw control or bidi character in it (`render.inert_json`);
`write_atomically` never replaces the input or an existing file unless told to.
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
from .render import inert_json
from .secrets import redact_text
from .targets import wire_format

TARGETS: tuple[str, ...] = (*formats.WIRE_FORMATS, "canonical")


@dataclass(frozen=True, slots=True)
class Export:
    target: str
    body: dict[str, Any]
    losses: tuple[Loss, ...]

    def text(self, *, redact: bool = True) -> str:
        """The body as written: JSON, credentials masked unless `redact` is false."""
        out = dumps(self.body, indent=True).decode() + "\n"
        return inert_json(redact_text(out) if redact else out)


def export(conversations: list[Conversation], target: str) -> Export:
    """One conversation to a wire format, or to a provider profile of one (`mistral` writes OpenAI
    Chat Completions with the ids and tool names Mistral accepts), or any number to the canonical
    document."""
    if target == "canonical":
        return Export(target, document(conversations), ())
    if len(conversations) != 1:
        raise ValueError("a wire format holds exactly one conversation")
    written = formats.get(wire_format(target)).write(conversations[0], target=target)
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
