"""Repairs of tool-call arguments (TD201, TD203, TD204, TD205).

The canonical form holds arguments parsed; each writer encodes them as its wire needs (a JSON string
for OpenAI, an object for Anthropic, Gemini and Bedrock). So a double-encoded string is decoded
once more, `""` becomes `{}`, and a call whose wire had the wrong shape (an object where a string
belongs, a string where an object belongs) is listed, the shape marker the reader kept cleared, so
every writer writes the shape its wire needs without calling it a loss.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..checks.arguments import decode_levels
from ..formats import facts
from ..formats.freeform import is_freeform
from ..formats.profiles import wire_format
from ..model import Conversation, Invocation
from ..shorten import quote
from ..wording import show
from .base import Log, Outcome, Record, with_parts


def decode_arguments(conv: Conversation, log: Log) -> Outcome:
    """TD201 (and TD204 where a string holds the object): arguments that are a JSON string holding
    an object or an array are decoded until they are that object."""
    records: list[Record] = []
    for t, turn in enumerate(conv.turns):
        parts = list(turn.parts)
        changed = False
        for p, part in enumerate(parts):
            if not isinstance(part, Invocation) or is_freeform(part) or not isinstance(part.arguments, str):
                continue
            levels, value = decode_levels(part.arguments)
            if levels < 1 or not isinstance(value, dict | list):
                continue
            parts[p] = replace(part, arguments=value)
            changed = True
            code = log.code_at(part, ("TD201", "TD204"))
            records.append(log.repair(code, t, p, f"arguments of {quote(part.name)} {show(part.arguments)} "
                                      f"(a JSON string)", show(value)))
        if changed:
            conv = with_parts(conv, t, parts)
    return Outcome(conv, tuple(records))


def empty_arguments(conv: Conversation, log: Log) -> Outcome:
    """TD205: arguments that are `""` (or only whitespace) are the empty object a call without
    arguments sends."""
    records: list[Record] = []
    for t, turn in enumerate(conv.turns):
        parts = list(turn.parts)
        changed = False
        for p, part in enumerate(parts):
            if not isinstance(part, Invocation) or is_freeform(part):
                continue
            raw = part.raw_arguments
            if raw is None or raw.strip():
                continue
            parts[p] = replace(part, arguments={}, raw_arguments=None)
            changed = True
            records.append(log.repair("TD205", t, p, f"arguments of {quote(part.name)} {show(raw)}", "{}"))
        if changed:
            conv = with_parts(conv, t, parts)
    return Outcome(conv, tuple(records))


def argument_shape(conv: Conversation, log: Log) -> Outcome:
    """TD203 / TD204: arguments sent as an object where the wire needs a JSON string, or as a string
    where it needs an object. The canonical form already holds them parsed: the repair clears the
    marker the Anthropic reader keeps (`string_input`) and lists each call, with the shape it is now
    written in."""
    target = log.target
    needs = facts(wire_format(target)).arguments if target is not None else None
    records: list[Record] = []
    for f in log.found("TD203"):
        named = log.found_at(f)
        call = named[1] if named is not None else None
        if not isinstance(call, Invocation):
            continue
        after = "a JSON string" if needs in (None, "string") else f"an object ({target} needs one)"
        records.append(log.repair("TD203", f.turn, f.part, f"arguments of {quote(call.name)} sent as an "
                                  f"object {show(call.arguments)}", f"{after}: {show(call.arguments)}"))
    for t, turn in enumerate(conv.turns):
        parts = list(turn.parts)
        changed = False
        for p, part in enumerate(parts):
            if not isinstance(part, Invocation):
                continue
            own = part.meta.get("anthropic")
            if not isinstance(own, Mapping) or not own.get("string_input"):
                continue
            kept = {k: v for k, v in own.items() if k != "string_input"}
            meta = {k: v for k, v in part.meta.items() if k != "anthropic"}
            if kept:
                meta["anthropic"] = kept
            parts[p] = replace(part, meta=meta)
            changed = True
            after = "an object" if needs in (None, "object") else f"a JSON string ({target} needs one)"
            records.append(log.repair("TD204", t, p, f"input of {quote(part.name)} sent as a JSON string",
                                      f"{after}: {show(part.arguments)}"))
        if changed:
            conv = with_parts(conv, t, parts)
    return Outcome(conv, tuple(records))
