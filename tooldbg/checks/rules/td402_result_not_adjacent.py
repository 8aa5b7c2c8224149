"""A tool result that is not in the message right after the call it answers.

Every provider that pairs calls with results expects the answers immediately after the calling turn,
and rejects a history where something else comes first. OpenAI: "An assistant message with
'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"; Anthropic:
"`tool_use` ids were found without `tool_result` blocks immediately after: toolu_…. Each `tool_use`
block must have a corresponding `tool_result` block in the next message."; Gemini: "Please ensure that
function response turn comes immediately after a function call turn."; Bedrock: "Expected toolResult
blocks at messages.N.content for the following Ids: …". Results drift away from their calls when an
agent appends a user message, a system reminder or a second assistant message before the results
come back, or splits parallel results over several messages. The Responses API pairs by `call_id`
across the whole input (`Facts.strict_pairing` is false), so there (and in a canonical document) the
finding is a warning.

Anthropic combines consecutive messages of one role, so results in a second user message straight
after the first are still adjacent there.
"""

from collections.abc import Iterator

from ... import formats
from ...model import Invocation, Result
from ..base import Context, Finding
from ..structure import label, views

CODE = "TD402"
NAME = "result-not-adjacent"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model sees the result apart from its call"
MESSAGE = "a result that is not in the turn right after its call"
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_9", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]},
  {"role": "user", "content": "Use Celsius."},
  {"role": "tool", "tool_call_id": "call_9", "content": "4°C"}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_9", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_9", "content": "4°C"},
  {"role": "user", "content": "Use Celsius."}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for view in views(ctx):
        conv = view.conversation
        strict = view.format is not None and formats.facts(view.format).strict_pairing
        called: dict[str, tuple[int, Invocation]] = {}
        starts: dict[int, int] = {}  # unit → its first turn
        for t, unit in enumerate(view.units):
            starts.setdefault(unit, t)
        for t, turn in enumerate(conv.turns):
            for p, part in enumerate(turn.parts):
                if isinstance(part, Invocation):
                    called[part.id] = (t, part)
                    continue
                if not isinstance(part, Result) or part.invocation_id not in called:
                    continue
                c, call = called[part.invocation_id]
                between = view.units[t] - view.units[c] - 1
                if between <= 0:
                    continue
                first = starts[view.units[c] + 1]
                gap = (f"a {view.roles[view.units[c] + 1]} message (turn {first}) comes" if between == 1
                       else f"{between} messages (from turn {first}) come")
                yield ctx.at(f"{gap} between the call {label(call)} (turn {c}) and its result",
                             conversation=conv, turn=t, part=p, source=view.source(t, p),
                             severity=SEVERITY if strict else "warning")
