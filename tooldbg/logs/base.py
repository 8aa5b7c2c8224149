"""What every agent-log reader gives back, and what detection looks at.

A log module (`claude_code`, `codex`, `otlp`, `inspect_ai`, `litellm`, `capture_tools`) has

    NAME                       the log format's name (`--input-format NAME`, `inputs[].container`)
    TITLE                      how it is named to the user
    LACKS                      what the format never carries (`tooldbg.lacking`)
    sniff(peek) -> bool        is this file such a log? (`Peek`: its first bytes, its first record)
    read(path, data, document) -> Built | Capture
                               the file read: conversations built from its records (`Built`, for
                               logs that record each turn once), or exchanges for `load` to read
                               and stitch (`Capture`, for logs that keep each model call whole);
                               `document` is the file parsed, when it is one JSON document

Readers never raise on a bad record: it becomes an error of the file, and the rest is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import InputError
from ..jsonio import try_loads
from ..model import Conversation
from ..records.containers import Capture
from ..timeline import ExchangeRead


@dataclass(frozen=True, slots=True)
class Peek:
    """What detection looks at: the file's first bytes, and its first JSON records parsed — the first
    lines of JSON Lines (a log may open with a few lines of bookkeeping), or the document when the
    file is one (empty when it is neither)."""

    head: bytes
    records: tuple[Any, ...] = ()
    #: The whole file, for a text log whose telling line may come after other lines.
    data: bytes = b""
    #: The record is the whole file (one JSON document), not the first of several lines.
    document: bool = False

    @property
    def first(self) -> Any:
        return self.records[0] if self.records else None


@dataclass(slots=True)
class Built:
    """A log read straight into conversations: `reads` has one entry per record that gave a turn
    (so a turn's source names its record: `exchange` is its index here, `location` its line),
    the model calls among them carrying their request and response (see `logs.session`)."""

    container: str
    reads: list[ExchangeRead] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    lacks: tuple[str, ...] = ()


class LogFormat(Protocol):
    """A log module's public names (see the module docstring)."""

    @property
    def NAME(self) -> str: ...

    @property
    def TITLE(self) -> str: ...

    @property
    def LACKS(self) -> tuple[str, ...]: ...

    def sniff(self, peek: Peek, /) -> bool: ...

    def read(self, path: str, data: bytes, document: Any, /) -> Built | Capture: ...


def listed(obj: Any, key: str) -> list[Any]:
    """`obj[key]` when `obj` is an object and that is a list, else empty: logs are read leniently,
    a missing or odd field being no field."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []


def mapping(obj: Any, key: str) -> dict[str, Any]:
    """`obj[key]` when it is an object, else empty (see `listed`)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def decoded(raw: Any) -> Any:
    """A field that holds JSON, as a value or as a JSON string (logs write both); None for a string
    that is not JSON."""
    if isinstance(raw, str):
        ok, parsed = try_loads(raw)
        return parsed if ok else None
    return raw


def schema(value: Any) -> dict[str, Any] | None:
    """A tool's parameters as a log gives them: a JSON Schema object, else none (the canonical form
    holds an object or nothing)."""
    return value if isinstance(value, dict) else None


def text(value: Any) -> str | None:
    """A field that should hold text: the text, else none."""
    return value if isinstance(value, str) else None
