"""Canonical conversations → bytes in any format, with the loss report, written safely.

`export` is what `tooldbg convert` and the TUI's export dialog call: the body (a canonical document
or the request body that replays the conversation in a wire format), every loss the writer
reported, secrets masked. Writing a file is `writing.py` (`check_writable`, `write_atomically`,
re-exported here): never over the input, over an existing file only when told to, atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import formats
from .jsonio import dumps
from .model import Conversation, Loss, document
from .secrets import redact_text
from .writing import check_writable, write_atomically

__all__ = ["TARGETS", "Export", "check_writable", "export", "write_atomically"]

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
