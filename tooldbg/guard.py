"""Exports never blank recorded data: where a wire target would get an empty value (`{}` for
arguments, a dropped call or result) in place of what the log recorded.

`blanks(conversation, target, origins)` looks at what a writer wrote (`Written.origins` says which
canonical part every wire node carries, so a call or result no node carries was dropped) and at the
arguments an object format cannot carry as they are (not JSON, a string, an array). Each `Blank`
names the finding code whose repair prevents it and what that repair does, or None when there is no
safe repair. Losses of wire detail (an id rewritten, metadata) are not blanks: they stay losses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks.arguments import decode_levels
from .checks.arguments import describe as kind_of
from .checks.pairing import Paired
from .formats import facts
from .formats.freeform import is_freeform
from .formats.origins import carried as carried_parts
from .formats.profiles import wire_format
from .model import Conversation, Invocation, Result
from .shorten import clip, quote
from .wording import at, describe


@dataclass(frozen=True, slots=True)
class Blank:
    """`what` at `turn`/`part` would be written empty or left out; `code`'s repair (`repair` says
    what it does) prevents it; `code` None: no safe repair (`repair` then says why)."""

    turn: int
    part: int
    what: str
    code: str | None
    repair: str

    def __str__(self) -> str:
        head = f"{at(self.turn, self.part)}: {self.what}"
        if self.code is None:
            return f"{head}; no safe repair: {self.repair}"
        return f"{head}; repair {self.code}: {self.repair}"


def blanks(conv: Conversation, target: str, origins: Mapping[str, Any]) -> list[Blank]:
    """Every place where writing `conv` for `target` (whose writer produced `origins`) puts an empty
    value in place of recorded content (`target` a wire format or profile: a canonical document
    carries everything)."""
    carried = carried_parts(origins)
    objects = facts(wire_format(target)).arguments == "object"
    out: list[Blank] = []
    pairing: Paired | None = None  # made for the first part dropped: most exports drop none
    for t, turn in enumerate(conv.turns):
        for p, part in enumerate(turn.parts):
            if type(part) is not Invocation and type(part) is not Result:
                continue
            if (t, p) not in carried:
                pairing = pairing or Paired(conv)
                out.append(_dropped(t, p, part, target, pairing))
            elif objects and type(part) is Invocation and not (
                    part.raw_arguments is None and (part.arguments is None or type(part.arguments) is dict)):
                found = _arguments(t, p, part, target)  # (arguments an object format cannot take as they are)
                if found is not None:
                    out.append(found)
    return out


def kept(conv: Conversation, target: str) -> list[str]:
    """Argument defects `target` carries as recorded (it takes a JSON string: a string holding an
    object, `""`), each as a line naming the repair `--fix` would make. Only what is cheap to see on
    the conversation itself: `convert` prints these without running `check`."""
    if target == "canonical" or facts(wire_format(target)).arguments != "string":
        return []
    out = []
    for t, turn in enumerate(conv.turns):
        for p, call in enumerate(turn.parts):
            if not isinstance(call, Invocation) or is_freeform(call):
                continue
            if isinstance(call.arguments, str):
                levels, value = decode_levels(call.arguments)
                if levels >= 1 and isinstance(value, dict | list):
                    out.append(f"{at(t, p)}: arguments of {quote(call.name)} are JSON-encoded twice, "
                               "written as recorded; --fix decodes them (TD201)")
            elif call.raw_arguments is not None and not call.raw_arguments.strip():
                out.append(f'{at(t, p)}: arguments of {quote(call.name)} are "", written as recorded; --fix '
                           "writes {} (TD205)")
    return out


def _dropped(t: int, p: int, part: Invocation | Result, target: str, pairing: Paired) -> Blank:
    """Why a call or result is dropped, told by how it pairs (each analysis made on first use)."""
    what = f"{describe(part)} would be left out of the {target} request"
    if isinstance(part, Invocation):
        if any(m.call.node.id == part.id for m in pairing.mismatches):
            return Blank(t, p, what, "TD103", "bind to it the result whose id is a damaged copy of its id")
        if part.id not in pairing.results_by_call:
            return Blank(t, p, what, "TD102", "close it with an error result saying no result was recorded")
        return Blank(t, p, what, "TD402", "move its result into the turn right after it")
    if part.invocation_id is None:
        if (t, p) in pairing.near_misses:
            return Blank(t, p, what, "TD103", "bind it to the call whose id its id is a damaged copy of")
        if (t, p) in pairing.extras:
            return Blank(t, p, what, "TD105", "keep the call's first result, list this one and take it out")
        return Blank(t, p, what, "TD101", "take the orphan result out, listed (or keep it as text with "
                                          "--keep-orphans)")
    answers = pairing.results_by_call.get(part.invocation_id, [])
    if answers and (answers[0].turn, answers[0].part) != (t, p):
        return Blank(t, p, what, "TD105", "keep the call's first result, list this one and take it out")
    return Blank(t, p, what, "TD402", "move it into the turn right after its call")


def _arguments(t: int, p: int, call: Invocation, target: str) -> Blank | None:
    needs = f"{target} needs an object and would get {{}}"
    if call.raw_arguments is not None:
        if not call.raw_arguments.strip():
            return Blank(t, p, f"arguments of {quote(call.name)} are \"\"; {needs}", "TD205",
                         'write "" as {}')
        shown = clip(call.raw_arguments, 61)
        return Blank(t, p, f"arguments of {quote(call.name)} are not valid JSON ({quote(shown)}); {needs}",
                     None, "completing or correcting them would be a guess (TD202)")
    arguments = call.arguments
    if arguments is None or isinstance(arguments, dict):
        return None
    if is_freeform(call):  # written as the function argument `input` (`formats.freeform`)
        return None
    if isinstance(arguments, str):
        levels, value = decode_levels(arguments)
        if levels >= 1 and isinstance(value, dict):
            what = f"arguments of {quote(call.name)} are a JSON string holding an object; {needs}"
            return Blank(t, p, what, "TD201", "decode them into the object")
    return Blank(t, p, f"arguments of {quote(call.name)} are {kind_of(arguments)}, not an object; {needs}",
                 None, "what object was meant is a guess")
