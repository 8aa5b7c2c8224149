"""A call or result id that is not really an id: empty, whitespace only, padded with whitespace, or a
placeholder a program wrote where it had no id (`"tool-use-id"`, `"undefined"`, `"None"`,
`"{tool_call_id}"`).

Anthropic and Bedrock reject an empty or padded id ("messages.92.content.0.tool_use.id: String should
match pattern '^[a-zA-Z0-9_-]+$'"; Bedrock allows 1 to 64 characters); OpenAI-compatible backends
accept it, and the history then breaks the moment it is sent anywhere else. A padded id is also
silently re-bound by any layer that trims it; a placeholder is shared by every call that went through
the same code path, so the next parallel call collides with it. A counter reused in every response
(`call_0`) is a real id reused, reported as TD104; an invented but unique id the provider accepts
(`tool_0` on a Gemini replay) is fine. Provider-specific charset and length limits are the target
checks (TD8xx).

Each call's id is checked; a result's only when it differs from the id of the call it answers, so one
bad id yields one finding.
"""

from collections.abc import Iterator

from ...model import Invocation
from ...shorten import plain
from ..base import Context, Finding
from ..pairing import calls, invalid_id, results, short

CODE = "TD108"
NAME = "invalid-id"
SEVERITY = "error"
MESSAGE = "an empty, placeholder or whitespace-padded id"
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "", "name": "get_weather", "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "", "content": "4°C"}]}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01Lk8rVx2WqD4mZt6NpB9sHc", "name": "get_weather",
     "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_01Lk8rVx2WqD4mZt6NpB9sHc", "content": "4°C"}]}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        owners: dict[str, Invocation] = {}
        for call in calls(conv):
            owners[call.node.id] = call.node
            why = invalid_id(call.node.wire_id)
            if why is not None:
                yield ctx.at(f"call {call.node.id} {plain(call.node.name)} has an id that is {why}: "
                             f"{short(call.node.wire_id)}",
                             conversation=conv, turn=call.turn, part=call.part)
        for result in results(conv):
            node = result.node
            why = invalid_id(node.wire_id)
            owner = owners.get(node.invocation_id or "")
            if why is None or (owner is not None and owner.wire_id == node.wire_id):
                continue
            whose = f" for {owner.id} {plain(owner.name)}" if owner is not None else ""
            yield ctx.at(f"result{whose} has an id that is {why}: {short(node.wire_id)}",
                         conversation=conv, turn=result.turn, part=result.part)
