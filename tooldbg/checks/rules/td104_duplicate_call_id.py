"""Two tool calls in one conversation share a wire id.

A result names its call by id, so with two calls under one id it answers whichever one the reader
happens to pick: the latest for most SDKs, the first for others. Anthropic rejects the history
outright ("messages.43.content.2: `tool_use` ids must be unique"); OpenAI-compatible backends that
number calls `call_0`, `call_1` afresh in every response produce exactly this collision a few turns
into an agent loop, and so do converters that derive ids from the tool name (`call-get_weather`).
Within one turn the damage is worse: two parallel calls can no longer be told apart at all.

Ids that are not ids (empty, blank, placeholders) are reported once, as TD108, not here.
"""

from collections.abc import Iterator

from ...lacking import IDS
from ...shorten import plain
from ..base import Context, Finding
from ..pairing import Located, invalid_id, paired, short

CODE = "TD104"
NAME = "duplicate-call-id"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model cannot tell which result answers which of the calls"
MESSAGE = "two calls share one id"
NEEDS = (IDS,)
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo, then in Bergen."},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "call_0", "name": "get_weather", "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": "4°C"}]},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "call_0", "name": "get_weather", "input": {"city": "Bergen"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": "7°C"}]}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo, then in Bergen."},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "call_0", "name": "get_weather", "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": "4°C"}]},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Bergen"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "7°C"}]}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        first: dict[str, Located] = {}
        for call in paired(ctx, conv).calls:
            wire_id = call.node.wire_id
            if wire_id is None or invalid_id(wire_id) is not None:
                continue
            seen = first.setdefault(wire_id, call)
            if seen is call:
                continue
            where = "in the same turn" if seen.turn == call.turn else f"in turn {seen.turn}"
            yield ctx.at(f"call {call.node.id} {plain(call.node.name)} reuses id {short(wire_id)} of call "
                         f"{seen.node.id} {plain(seen.node.name)} {where}",
                         conversation=conv, turn=call.turn, part=call.part)
