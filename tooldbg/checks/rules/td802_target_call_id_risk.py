"""A call id beyond a limit the target has enforced, but not reliably: a risk, not a certainty.

OpenAI Chat Completions rejected tool-call ids over 40 characters in 2025 ("Invalid
'messages[10].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got
a string with length 53 instead.", `code: string_above_max_length`), triggered by Responses-style
`fc_…` ids of about 50 characters carried into a Chat history; a July 2026 attempt could not
reproduce it. A history that relies on long ids may therefore fail the day the check comes back —
worth knowing before exporting, not worth failing a build on. Limits a provider is known to enforce
are TD801.
"""

from collections.abc import Iterator

from ...shorten import quote as shown
from ..base import Context, Finding
from ..targeting import failure, quote, target_table, wire_ids

CODE = "TD802"
NAME = "target-call-id-risk"
SEVERITY = "warning"
HARM = "target"
TARGET = True
MESSAGE = "a call id over a limit the target has enforced before (not reliably)"
BAD = """
--target openai-chat, replaying a Responses history:
{"role": "assistant", "content": null, "tool_calls": [{"id": "fc_68a1f3b2c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7",
  "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""
GOOD = """
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_Vd8Kp2Xn6Tq1Rb4Yw9Mz3LcH",
  "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    limits = target_table(ctx)
    if limits is None or not limits.call_id:
        return
    for conv in ctx.conversations:
        for t, p, what, wire_id in wire_ids(conv):
            limit = failure(wire_id, limits.call_id)
            if limit is not None and not limit.certain:
                yield ctx.at(f"{what} id {shown(wire_id)} is {len(wire_id)} characters; {ctx.target} has "
                             f"rejected ids over {limit.value} before (not reliably since): "
                             + quote(limit.error, id=wire_id, length=len(wire_id)),
                             conversation=conv, turn=t, part=p)
