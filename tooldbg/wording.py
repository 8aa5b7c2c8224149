"""How a part and a place read in one line: the repair lines of `fix` and the messages of the
export guard (`guard.py`) name a call, a result or a turn the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .jsonio import dumps_str
from .model import Invocation, Json, Media, Part, Reasoning, Result, Text
from .shorten import clip, one_line, quote


def show(value: Any, width: int = 70) -> str:
    """A JSON value as compact JSON text, cut to `width`."""
    return clip(dumps_str(value), width)


def ident(part: Invocation | Result) -> str:
    """How a call or result is named in a repair line: its wire id, else its name (a result without
    either: the call it answers)."""
    if part.wire_id:
        return repr(clip(part.wire_id, 40))
    if isinstance(part, Invocation):
        return f"{quote(part.name)} ({part.id})"
    return f"of {quote(part.name)}" if part.name is not None else f"for call {part.invocation_id}"


def describe(part: Part, width: int = 60) -> str:
    """A part in a few words: `text 'Let me check…'`, `call 'get_weather' {…}`, `result 'call_1' …`."""
    if isinstance(part, Text):
        return f"text {show(part.text, width)}"
    if isinstance(part, Invocation):
        args = part.raw_arguments if part.raw_arguments is not None else dumps_str(part.arguments)
        # (raw text may hold line breaks: shown escaped, so the line stays one)
        return f"call {quote(part.name)} {clip(one_line(args, len(args)), width)}"
    if isinstance(part, Result):
        flag = " (error)" if part.is_error else ""
        return f"result {ident(part)}{flag} {show(content_text(part.content), width)}"
    if isinstance(part, Reasoning):
        what = "signed reasoning" if part.signature or part.redacted else "reasoning"
        return f"{part.origin or ''} {what}".strip() + (f" {show(part.text, 30)}" if part.text else "")
    if isinstance(part, Media):
        return f"{part.kind}" + (f" ({part.media_type})" if part.media_type else "")
    return part.type


def content_text(parts: Sequence[Part]) -> str:
    out = []
    for p in parts:
        if isinstance(p, Text):
            out.append(p.text)
        elif isinstance(p, Json):
            out.append(dumps_str(p.value))
        elif isinstance(p, Media):
            out.append(f"[{p.kind}]")
    return "\n".join(out)


def at(turn: int | None, part: int | None) -> str:
    """`turn 3 part 1`, as repair lines and messages write a place."""
    if turn is None:
        return "conversation"
    return f"turn {turn}" + (f" part {part}" if part is not None else "")
