"""A tool call that never got its result, although the conversation went on past it.

Every provider that binds results by id rejects such a history. OpenAI: "An assistant message with
'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following
tool_call_ids did not have response messages: call_…"; Anthropic: "`tool_use` ids were found without
`tool_result` blocks immediately after: toolu_…"; Responses: "No tool output found for function call
call_…"; Bedrock: "Expected toolResult blocks at messages.N.content for the following Ids: …". A
lenient relay instead lets the model believe the tool ran and said nothing. The usual causes are an
agent that dropped a failed or cancelled call's result, parallel results collected only in part, or
history trimmed between a call and its answer.

A log that simply ends on the model's calls is not a finding (the results were not sent yet), nor are
the calls of response-only captures: only a call the client replayed in a request, with turns after
it (or that request rejected), has provably moved on without its result. A call whose result came
back under a damaged id is reported once, as TD103.
"""

from collections.abc import Iterator

from ...shorten import plain
from ..base import Context, Finding
from ..pairing import calls, mismatches, results_by_call, short

CODE = "TD102"
NAME = "unanswered-call"
SEVERITY = "error"
MESSAGE = "a call with no result before the conversation moves on"
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo and Bergen?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_A1", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}},
    {"id": "call_B2", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Bergen\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_A1", "content": "4°C, overcast"},
  {"role": "user", "content": "And tomorrow?"}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo and Bergen?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_A1", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}},
    {"id": "call_B2", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Bergen\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_A1", "content": "4°C, overcast"},
  {"role": "tool", "tool_call_id": "call_B2", "content": "Error: weather service timed out"},
  {"role": "user", "content": "And tomorrow?"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        exchanges = ctx.exchanges(conv)
        last = exchanges[-1] if exchanges else None
        if last is None:  # a canonical document: every turn was part of the history
            sent = len(conv.turns)
        else:
            sent = len(last.request.turns) if last.request is not None else 0
        rejected = last is not None and any(r.error is not None for r in last.responses)
        answered = results_by_call(conv)
        damaged = {m.call.node.id for m in mismatches(conv)}
        final = len(conv.turns) - 1
        for call in calls(conv):
            node = call.node
            if node.id in answered or node.id in damaged:
                continue
            # Moved on: the call was sent back in a request and something followed it, or that
            # request ended on it and was rejected.
            if call.turn >= sent or (call.turn == final and not rejected):
                continue
            after = (f"the conversation continues after turn {call.turn}" if call.turn < final
                     else "the request that ended on it was rejected")
            yield ctx.at(f"call {node.id} {plain(node.name)} ({short(node.wire_id)}) has no result, but {after}",
                         conversation=conv, turn=call.turn, part=call.part)
