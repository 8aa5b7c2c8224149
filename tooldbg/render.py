"""Untrusted text → rich `Text`, the only way log content reaches a terminal.

Text from a log (model output, tool results, ids) is never parsed as markup: it goes into a `Text`
object, and control characters are made visible first (`\\x1b` prints as the four characters
`\\x1b`), so no ANSI or OSC sequence in a log can act on the terminal. The CLI and the TUI both
describe parts through `part_line`.
"""

from __future__ import annotations

import re

from rich.text import Text

from .jsonio import dumps_str
from .model import Invocation, Json, Media, Opaque, Part, Reasoning, Result
from .model import Text as TextPart
from .shorten import one_line

#: Characters of a name, id or type shown in a part's line (the rest is cut: see shorten.one_line).
LABEL = 200

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """Replace control and bidi-override characters with their escapes (newline and tab stay)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode(), text)


def safe(text: str, style: str = "") -> Text:
    return Text(visible(text), style=style)


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


ROLE_STYLES = {"system": "magenta", "user": "green", "assistant": "cyan", "tool": "yellow"}


def part_line(part: Part, *, width: int = 400) -> Text:
    """One part as a labelled line: `call i1 get_weather {"city":"Oslo"}`, `result → i1 ERROR …`."""
    line = Text()
    if isinstance(part, TextPart):
        line.append("text ", "dim")
        line.append_text(safe(clip(part.text, width)))
    elif isinstance(part, Invocation):
        line.append("call ", "bold cyan")
        line.append(f"{part.id} ", "cyan")
        line.append_text(safe(one_line(part.name, LABEL), "bold"))
        args = part.raw_arguments if part.raw_arguments is not None else dumps_str(part.arguments)
        line.append(" ")
        line.append_text(safe(clip(args, width)))
        if part.raw_arguments is not None:
            line.append("  (not valid JSON)", "bold red")
        if part.wire_id is not None:
            line.append("  id ", "dim")
            line.append_text(safe(one_line(part.wire_id, LABEL), "dim"))
    elif isinstance(part, Result):
        line.append("result ", "bold yellow")
        line.append(f"→ {part.invocation_id or '?'} ", "yellow" if part.invocation_id else "bold red")
        if part.is_error:
            line.append("ERROR ", "bold red")
        body = " ".join(part_line(p, width=width).plain for p in part.content)
        line.append_text(safe(clip(body, width)))
        if part.wire_id is not None:
            line.append("  id ", "dim")
            line.append_text(safe(one_line(part.wire_id, LABEL), "dim"))
    elif isinstance(part, Reasoning):
        line.append("reasoning ", "italic magenta")
        text = part.text or " ".join(part.summary)
        line.append_text(safe(clip(text, width), "italic"))
        if part.signature:
            line.append(f"  [signed by {part.origin or '?'}]", "dim")
        if part.redacted:
            line.append("  [redacted]", "dim")
    elif isinstance(part, Media):
        line.append(f"{part.kind} ", "bold blue")
        line.append_text(safe(one_line(part.media_type or "", LABEL), "blue"))
        if part.url:
            line.append(" ")
            line.append_text(safe(clip(part.url, 80)))
        elif part.data:
            line.append(f" ({len(part.data)} base64 chars)", "dim")
    elif isinstance(part, Json):
        line.append("json ", "dim")
        line.append_text(safe(clip(dumps_str(part.value), width)))
    elif isinstance(part, Opaque):
        line.append(f"opaque {part.origin} ", "dim")
        kind = part.value.get("type") if isinstance(part.value, dict) else None
        line.append_text(safe(one_line(kind if isinstance(kind, str) and kind else type(part.value).__name__,
                                       LABEL)))
    return line
