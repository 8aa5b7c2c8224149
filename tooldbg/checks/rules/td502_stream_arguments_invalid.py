"""Streamed tool-call arguments that are not valid JSON once every fragment is joined.

The pieces of a call's arguments (`function.arguments` deltas, Anthropic `input_json_delta`,
Bedrock `toolUse.input` strings, Responses `function_call_arguments.delta`, Gemini `partialArgs`)
only mean something joined. When the join is not JSON — a fragment lost or duplicated by a relay,
two parallel calls' fragments merged under one index (`{"city":"Oslo"}{"city":"Bergen"}`), a
trailing summary chunk re-sending the arguments — the client's `json.loads` raises, or a lenient
SDK substitutes `{}` (Strands does) and the tool runs with no arguments. Either way the call the
model made is not the call that runs. The finding points at the chunk the broken arguments ended
on (Anthropic: began on).

A stream cut off mid-call (TD504) or ended by an error event leaves its last arguments unfinished:
the truncation explains them, so they are not reported again here. An argument-less call that
streamed `""` is TD205's business, not a broken assembly.
"""

from collections.abc import Iterator

from ...model import Invocation
from ..base import Context, Finding
from ..streams import glued, streams

CODE = "TD502"
NAME = "stream-arguments-invalid"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "streamed arguments that do not assemble into valid JSON"
BAD = """
data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Oslo\\"}\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
"""
GOOD = """
data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Oslo\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
"""


def check(ctx: Context) -> Iterator[Finding]:
    for stream in streams(ctx):
        if any(p.kind in ("truncated", "error") for p in stream.assembled.problems):
            continue  # the truncation (TD504) or the error event explains the unfinished arguments
        for problem in stream.problems("arguments"):
            finding = stream.finding(ctx, problem.message, problem.chunk, kind="arguments")
            why = _explained(ctx, finding)
            yield stream.finding(ctx, problem.message + why, problem.chunk, kind="arguments") if why else finding


def _explained(ctx: Context, finding: Finding) -> str:
    """What to add when the broken arguments are whole JSON values glued together: two calls merged
    under one index (`{"city":"Oslo"}{"city":"Bergen"}`), or a summary chunk re-sending them."""
    conversation = ctx.loaded.conversation(finding.conversation) if finding.conversation else None
    if conversation is None or finding.turn is None or finding.part is None:
        return ""
    part = conversation.turns[finding.turn].parts[finding.part]
    raw = part.raw_arguments if isinstance(part, Invocation) else None
    if raw is None and isinstance(part, Invocation) and isinstance(part.arguments, str):
        raw = part.arguments
    count = glued(raw)
    if count < 2:
        return ""
    return (f": {count} JSON values back to back (another call's fragments, or the arguments sent again, "
            "were appended)")
