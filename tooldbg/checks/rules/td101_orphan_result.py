"""A tool result whose id matches no earlier call.

The provider either rejects the request (OpenAI: "messages with role 'tool' must be a response to a
preceeding message with 'tool_calls'"; Anthropic: "unexpected `tool_use_id` found in `tool_result`
blocks") or, through a lenient relay, the model sees an answer to a question it never asked. The
usual cause is history trimmed between a call and its result, or an id rewritten on the way.

A result whose id is a damaged copy of an unanswered call's id is reported as TD103, and one result
too many for an id-less call as TD105, not here. A Responses request that continues a stored response
(`previous_response_id`, `conversation`) is stitched after it, so its results bind to the stored
calls; a conversation that continues one the log does not hold (the capture began mid-session)
answers calls the log never showed, and its unbound results are not reported.
"""

from collections.abc import Iterator

from ...shorten import quote
from ..base import Context, Finding
from ..pairing import continues_unseen, paired

CODE = "TD101"
NAME = "orphan-result"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model sees a result for a call it was never shown"
MESSAGE = "a result whose id matches no earlier call"
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "tool", "tool_call_id": "call_9", "content": "4°C"}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_9", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_9", "content": "4°C"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        pairing = paired(ctx, conv)
        explained = pairing.explained_orphans  # a near-miss id (TD103) or an extra result (TD105)
        if continues_unseen(ctx, conv):  # its calls were made before the log began
            continue
        for found in pairing.results:
            part = found.node
            if part.invocation_id is None and (found.turn, found.part) not in explained:
                ident = quote(part.wire_id) if part.wire_id is not None else f"for {quote(part.name)}"
                yield ctx.at(f"result {ident} answers no earlier call", conversation=conv, turn=found.turn,
                             part=found.part)
