"""Canonical conversations → bytes in any format, with the loss report, written safely.

`export` is what `tooldbg convert` and the TUI's export dialog call: the body (a canonical document
or the request body that replays the conversation in a wire format) and every loss the writer
reported; `Export.text` is the bytes written or printed, secrets masked in one pass over the whole
text (`secrets.redact_text`) and no raw control or bidi character in it (`render.inert_json`).

An export never holds an empty value in place of recorded content (`guard.blanks`): `export`
raises `NotWritten` instead, unless the caller shows the blanks and refuses on its own (the CLI and
the dialog, which name the repair). What the target requires and the body lacks (a model) is in
`Export.missing`, its loss line in `losses`: `convert` exits 1 on it.

Writing a file is `writing.py` (`check_writable`, `write_atomically`, re-exported here): never over
the input, over an existing file only when told to, atomically.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from . import formats
from .errors import ToolDbgError
from .formats.profiles import wire_format
from .jsonio import dumps
from .model import Conversation, Loss, document
from .render import inert_json
from .secrets import redact_text
from .writing import check_writable, write_atomically

if TYPE_CHECKING:
    from .guard import Blank

__all__ = ["TARGETS", "Export", "NotWritten", "check_writable", "export", "write_atomically"]

TARGETS = formats.TARGETS  # named here too, where callers have always imported it from


@dataclass(frozen=True, slots=True)
class Export:
    """What `export` wrote: the body, its losses and where its nodes came from."""

    target: str
    body: dict[str, Any]
    losses: tuple[Loss, ...]
    #: Where each wire node came from (`Written.origins`; empty for the canonical document).
    origins: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: The body keys the target requires that the conversation could not fill (`model`).
    missing: tuple[str, ...] = ()
    #: The conversation written, for the pre-flight `blanks` (None: a canonical document).
    written_from: Conversation | None = field(default=None, compare=False, repr=False)
    _blanks: tuple[Blank, ...] | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def blanks(self) -> tuple[Blank, ...]:
        """Where the body would hold an empty value in place of recorded content (see `export`):
        the pre-flight, run the first time it is asked for (a caller that converts without looking
        at it, a library's, does not pay for it)."""
        found = self._blanks
        if found is None:
            from .guard import blanks  # the guard imports the checks: loaded when asked

            conv = self.written_from
            found = () if conv is None else tuple(blanks(conv, self.target, self.origins))
            object.__setattr__(self, "_blanks", found)
        return found

    def text(self, *, redact: bool = True) -> str:
        """The body as written: JSON, credentials masked unless `redact` is false."""
        out = dumps(self.body, indent=True).decode() + "\n"
        return inert_json(redact_text(out) if redact else out)


class NotWritten(ToolDbgError):
    """The export would put an empty value in place of recorded content; `export` holds the body
    that would have been written (and its losses), `blanks` where and which repair prevents it."""

    def __init__(self, export: Export) -> None:
        self.export = export
        self.blanks = export.blanks
        count = len(export.blanks)
        super().__init__(f"not written: {export.target} cannot carry {count} recorded value"
                         f"{'s' if count != 1 else ''} as the log has {'them' if count != 1 else 'it'} "
                         f"(first: {export.blanks[0]}); tooldbg never writes an empty value in its place")


def export(conversations: list[Conversation], target: str, *, model: str | None = None,
           allow_blanks: bool = False, origins: bool | None = None) -> Export:
    """One conversation to a wire format, or to a provider profile of one (`mistral` writes OpenAI
    Chat Completions with the ids and tool names Mistral accepts), or any number to the canonical
    document. `model` replaces the conversations' model (`convert --model`).

    Raises `NotWritten` where the body would hold an empty value in place of recorded content,
    unless `allow_blanks` (a caller that shows `Export.blanks` and refuses on its own: the
    pre-flight is then run when `Export.blanks` is first read).

    `origins`: whether the writer records where each node came from as it writes (`Export.origins`,
    which the pre-flight reads too). Unasked, only when the pre-flight runs here; a caller that
    converts without looking at them does not pay for them, and one that reads them later (the
    CLI's and the debugger's pre-flight, their views) has the body written again then
    (`origins.Unrecorded`) — so a caller that will read them says `origins=True`."""
    if model is not None:
        conversations = [replace(conv, model=model) for conv in conversations]
    if target == "canonical":
        return Export(target, document(conversations), ())
    if len(conversations) != 1:
        raise ValueError("a wire format holds exactly one conversation")
    conv, wire = conversations[0], wire_format(target)
    written = formats.get(wire).write(conv, target=target,
                                      origins=origins if origins is not None else not allow_blanks)
    key = formats.facts(wire).model_key
    result = Export(target, written.body, written.losses, written.origins,
                    missing=("model",) if key is not None and not written.body.get(key) else (),
                    written_from=conv)
    if not allow_blanks and result.blanks:
        raise NotWritten(result)
    return result
