"""Canonical conversations → bytes in any format, with the loss report, written safely.

`export` is what `tooldbg convert` and the TUI's export dialog call: the body (a canonical document
or the request body that replays the conversation in a wire format) and every loss the writer
reported; `Export.text` is the bytes written or printed, secrets masked in one pass over the whole
text (`secrets.redact_text`) and no raw control or bidi character in it (`render.inert_json`).
Writing a file is `writing.py` (`check_writable`, `write_atomically`, re-exported here): never over
the input, over an existing file only when told to, atomically.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import formats
from .jsonio import dumps
from .model import Conversation, Loss, document
from .render import inert_json
from .secrets import redact_text
from .targets import wire_format
from .writing import check_writable, write_atomically

__all__ = ["TARGETS", "Export", "check_writable", "export", "write_atomically"]

TARGETS: tuple[str, ...] = (*formats.WIRE_FORMATS, "canonical")


@dataclass(frozen=True, slots=True)
class Export:
    target: str
    body: dict[str, Any]
    losses: tuple[Loss, ...]
    #: Where each wire node came from (`Written.origins`; empty for the canonical document).
    origins: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

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
    return Export(target, written.body, written.losses, written.origins)
