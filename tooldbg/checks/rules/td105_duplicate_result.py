"""Two results for one tool call: usually a retried side effect written to the history twice.

An agent that retries a timed-out tool and appends both outcomes, an error handler and a result
handler that each push a result, or a merge of two history sources all leave the model with two
answers to one question, often contradictory ("timeout" and then the order it did place). Anthropic
rejects it with HTTP 400 "each tool_use must have a single result"; other providers accept it and
let the model pick one. For calls without ids (Gemini) the extra `functionResponse` of the same name
is the same defect; Gemini rejects it with "Please ensure that the number of function response parts
is equal to the number of function call parts of the function call turn."

Gemini's streaming function responses are not duplicates: a response marked `willContinue: true`
announces the next one for the same call.
"""

from collections.abc import Iterator

from ...shorten import plain
from ..base import Context, Finding
from ..pairing import paired, short, will_continue

CODE = "TD105"
NAME = "duplicate-result"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model sees two results for one call"
MESSAGE = "two results for one call (a retried side effect)"
BAD = """
{"messages": [
  {"role": "user", "content": "Book the 18:05 ferry to Nesodden."},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_F3", "type": "function",
    "function": {"name": "book_ticket", "arguments": "{\\"departure\\":\\"18:05\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_F3", "content": "Error: booking service timed out"},
  {"role": "tool", "tool_call_id": "call_F3", "content": "{\\"booking\\":\\"NF-2291\\"}"}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Book the 18:05 ferry to Nesodden."},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_F3", "type": "function",
    "function": {"name": "book_ticket", "arguments": "{\\"departure\\":\\"18:05\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_F3", "content": "{\\"booking\\":\\"NF-2291\\"}"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        pairing = paired(ctx, conv)
        owners = {c.node.id: c.node for c in pairing.calls}
        for own_id, found in pairing.results_by_call.items():
            call = owners.get(own_id)
            if call is None:  # a canonical document may bind to a call it does not hold
                continue
            for n, (previous, result) in enumerate(zip(found, found[1:], strict=False), 2):
                if will_continue(previous.node):
                    continue
                yield ctx.at(f"result #{n} for call {call.id} {plain(call.name)} ({short(call.wire_id)}), already "
                             f"answered at turn {found[0].turn} part {found[0].part}",
                             conversation=conv, turn=result.turn, part=result.part)
        for result, same in pairing.extra_results[0]:
            names = ", ".join(c.node.id for c in same)
            yield ctx.at(f"one {plain(result.node.name)} result too many: the {len(same)} {plain(result.node.name)} "
                         f"call(s) of turn {same[0].turn} ({names}) are already answered",
                         conversation=conv, turn=result.turn, part=result.part)
