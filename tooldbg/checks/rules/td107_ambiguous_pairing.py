"""Parallel calls of the same tool without ids, whose results nothing ties to the right call.

Gemini usually returns `functionCall` parts without an `id`; it then pairs each `functionResponse`
with a call by name and position ("responses must be returned in call order, all in one Content").
Two `get_weather` calls are told apart only by their order, so an agent that appends the results in
the order the tools finished hands the model Bergen's weather as Oslo's, and nothing fails: the
request is valid, the answer is confidently wrong. tooldbg links such results by position too, the
same guess.

The finding is raised when a result's content names an argument of another call of the group and
none of its own (completion order leaked in: the pairing looks swapped), or when two or more results
of the group carry nothing that confirms the order. Results that echo their own call's distinct
arguments (the city, the file name) confirm the pairing and are not findings. Give the calls ids, or
make each tool result repeat the argument that identifies it.
"""

from collections.abc import Iterator

from ...jsonio import dumps_str
from ...lacking import IDS
from ...model import Conversation, Invocation
from ...shorten import quote
from ..base import Context, Finding
from ..pairing import Located, describe, located, paired, result_text, string_leaves

CODE = "TD107"
NAME = "ambiguous-pairing"
SEVERITY = "warning"
HARM = "symptom"
MESSAGE = "same-name parallel calls with no ids: pairing by name is a guess"
NEEDS = (IDS,)
BAD = """
{"contents": [
  {"role": "user", "parts": [{"text": "Weather in Oslo and Bergen?"}]},
  {"role": "model", "parts": [
    {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
    {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}]},
  {"role": "user", "parts": [
    {"functionResponse": {"name": "get_weather", "response": {"output": {"city": "Bergen", "temp_c": 7}}}},
    {"functionResponse": {"name": "get_weather", "response": {"output": {"city": "Oslo", "temp_c": 4}}}}]}]}
"""
GOOD = """
{"contents": [
  {"role": "user", "parts": [{"text": "Weather in Oslo and Bergen?"}]},
  {"role": "model", "parts": [
    {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
    {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}]},
  {"role": "user", "parts": [
    {"functionResponse": {"name": "get_weather", "response": {"output": {"city": "Oslo", "temp_c": 4}}}},
    {"functionResponse": {"name": "get_weather", "response": {"output": {"city": "Bergen", "temp_c": 7}}}}]}]}
"""

#: Argument values shorter than this are too common to identify a call ("a", "C").
_MIN_TOKEN = 3


def _groups(conv: Conversation, calls: list[Located] | None = None) -> Iterator[list[Invocation]]:
    """Per turn, the id-less calls sharing a name, when there are several that differ. `calls`: the
    conversation's (`pairing.located`), when the pairing found them already: its turns are not
    walked again."""
    by_turn: dict[int, dict[str, list[Invocation]]] = {}
    for found in calls if calls is not None else located(conv)[0]:
        call = found.node
        if call.wire_id is None:
            by_turn.setdefault(found.turn, {}).setdefault(call.name, []).append(call)
    for by_name in by_turn.values():
        for group in by_name.values():
            if len(group) > 1 and len({dumps_str([c.arguments, c.raw_arguments], sort_keys=True) for c in group}) > 1:
                yield group


def _tokens(group: list[Invocation]) -> dict[str, dict[str, str]]:
    """Each call's string arguments that no other call of the group has: lower-cased → as written."""
    values = {c.id: {v.strip().lower(): v.strip() for v in string_leaves(c.arguments)
                     if len(v.strip()) >= _MIN_TOKEN} for c in group}
    out = {}
    for c in group:
        others = set().union(*(values[o.id] for o in group if o is not c))
        out[c.id] = {k: v for k, v in values[c.id].items() if k not in others}
    return out


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        pairing = paired(ctx, conv)
        bound = pairing.results_by_call
        for group in _groups(conv, pairing.calls):
            tokens = _tokens(group)
            unconfirmed: list[tuple[Located, Invocation]] = []
            for call in group:
                for result in bound.get(call.id, []):
                    text = result_text(result.node.content).lower()
                    if any(tok in text for tok in tokens[call.id]):
                        continue
                    other = next((o for o in group if o is not call
                                  and any(tok in text for tok in tokens[o.id])), None)
                    if other is not None:
                        word = next(v for k, v in tokens[other.id].items() if k in text)
                        yield ctx.at(f"result paired by position with {describe(call)} mentions {quote(word)}, "
                                     f"an argument of {describe(other)}: results appended in completion "
                                     f"order are mis-paired when calls have no ids",
                                     conversation=conv, turn=result.turn, part=result.part)
                    else:
                        unconfirmed.append((result, call))
            if len(unconfirmed) > 1:
                result, _ = unconfirmed[0]
                ids = ", ".join(c.id for _, c in unconfirmed)
                yield ctx.at(f"{len(unconfirmed)} results for same-name {group[0].name} calls without ids "
                             f"({ids}) are paired by position only: nothing in them confirms the order",
                             conversation=conv, turn=result.turn, part=result.part)
