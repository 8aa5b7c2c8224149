"""A tool call was replayed with another name or other arguments than the model returned.

The history is supposed to be what happened. A replay that rewrites a call — arguments re-typed
by a schema "fixer", defaults filled in, a value truncated, a name remapped by a relay's tool
aliasing — tells the model it asked for something it did not ask for, next to a result computed
for what it did ask for. Nothing rejects it. Arguments are compared parsed, not as strings:
whitespace, key order and `1` against `1.0` are not mutations; a string for a number is. Calls are
paired with their replay by wire id, then by order; arguments the model sent as invalid JSON are
left to TD202, and arguments replayed double-encoded to TD201.
"""

from collections.abc import Iterator
from typing import Any

from ...jsonio import dumps_str, try_loads
from ...shorten import clip, quote
from ..base import Context, Finding
from ..replay import MISSING, call_label, first_difference, origin, replays, resolve_pointer

CODE = "TD306"
NAME = "replay-mutated"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a replayed call whose name or arguments differ from what the model returned"
BAD = """
response of exchange 0:
{"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo", "days": 3}}
replayed in exchange 1's request:
{"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo", "days": "3"}}
"""
GOOD = """
replayed in exchange 1's request (key order and spacing do not matter):
{"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"days": 3, "city": "Oslo"}}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for replay in replays(ctx):
        for pair in replay.pairs:
            for call, hit in pair.calls():
                if hit is None or call.raw_arguments is not None:
                    continue
                replayed = hit[2]
                if replayed.name != call.name:
                    yield pair.finding(ctx, f"call {call_label(call)} from {origin(pair)} is replayed as "
                                            f"{quote(replayed.name)}", hit[0], hit[1])
                    continue
                was, now = _args(call.arguments), _args(replayed.arguments)
                where: str | None
                if replayed.raw_arguments is not None:
                    where, now = "", replayed.raw_arguments
                else:
                    where = first_difference(was, now)
                if where is None or _double_encoded(was, now):
                    continue
                at = f" at {where}" if where else ""
                yield pair.finding(ctx, f"call {call_label(call)} from {origin(pair)} is replayed with other "
                                        f"arguments{at}: {_show(was, where)} became {_show(now, where)}",
                                   hit[0], hit[1])


def _double_encoded(was: Any, now: Any) -> bool:
    """The same arguments encoded once more (a JSON string of them): TD201 says so."""
    if not isinstance(now, str) or isinstance(was, str):
        return False
    ok, value = try_loads(now)
    return ok and first_difference(was, value) is None


def _args(value: Any) -> Any:
    return {} if value is None else value


def _show(value: Any, pointer: str) -> str:
    found = resolve_pointer(value, pointer) if isinstance(value, dict | list) else value
    if found is MISSING:
        return "(absent)"
    text = found if isinstance(found, str) and pointer == "" else dumps_str(found)
    return clip(text, 40)
