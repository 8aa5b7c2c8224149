"""A result whose id is a damaged copy of the id of the call it answers: re-cased, truncated,
extended, repeated, padded, or with its prefix rewritten.

The provider sees an answer to a call that does not exist and a call left without its answer, and
rejects the request: Anthropic "unexpected `tool_use_id` found in `tool_result` blocks: toolu_….
Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
OpenAI "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
Gemini "functionResponse.id does not match functionCall.id". Through a lenient relay the result is
silently dropped instead. The damage names its culprit: a case-insensitive store or header
(re-cased), a column or a target limit (truncated, e.g. OpenAI's 40 characters or Mistral's 9), a
translator that maps `toolu_` to `call_` on one side only (prefix rewritten), a stream assembler
that concatenated a repeated id (`call_xcall_x`).

Only unbound results and still-unanswered calls of the latest turn with calls before the result are
compared, so a finding here replaces the orphan (TD101) and unanswered-call (TD102) findings the
same damage would otherwise produce.
"""

from collections.abc import Iterator

from ...lacking import IDS
from ...shorten import plain
from ..base import Context, Finding
from ..pairing import paired, short

CODE = "TD103"
NAME = "id-mismatch"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a result id close to, but not equal to, a call id"
NEEDS = (IDS,)
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01HqZ5fWm3TkXb8YcN2pLr7V", "name": "get_weather",
     "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_01hqz5fwm3tkxb8ycn2plr7v", "content": "4°C"}]}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01HqZ5fWm3TkXb8YcN2pLr7V", "name": "get_weather",
     "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_01HqZ5fWm3TkXb8YcN2pLr7V", "content": "4°C"}]}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        for m in paired(ctx, conv).mismatches:
            call = m.call.node
            yield ctx.at(f"result id {short(m.result.node.wire_id)} does not match call {call.id} "
                         f"{plain(call.name)} {short(call.wire_id)} in turn {m.call.turn}: {m.how}",
                         conversation=conv, turn=m.result.turn, part=m.result.part)
