"""A part of the conversation did not survive the hop between the two sides: a tool result, the text
beside a call, an image, reasoning, or a result's `is_error` flag.

A relay translating OpenAI Chat into Anthropic (or back) rebuilds every turn. Parallel tool messages
must become one user turn of `tool_result` blocks; the assistant's text beside its calls must stay in
the same turn; an Anthropic `is_error` has no OpenAI field; a result's image has nowhere to go in a
Chat tool message. A translation that gets one of these wrong loses the part without an error: the
upstream answers a history with a result missing ("tool_use ids were found without tool_result
blocks"), the client never sees the text the model wrote before calling, a failure reads as an
answer. Each side alone may look consistent — only the two captures compared show where the part
went. Direction: in a request the client's side (a) is upstream of the relay's (b); in a response the
provider's side (b) is upstream of the client's (a). A part only the upstream side has was lost on
the way: this rule, on the side that lacks it. A part only the downstream side has was added on the
way: TD705, not a loss. A changed value is on the side that received it (b for what the client sent,
a for what the model answered); a failure flag carried as "Error: …" text into a format without a
flag is noted, not reported. Produced by `tooldbg diff CLIENT UPSTREAM`.
"""

from collections.abc import Iterator

from ..base import Context, Finding

CODE = "TD703"
NAME = "part-lost-in-translation"
SEVERITY = "error"
HARM = "damage"
DIFF = True
MESSAGE = "a result, text, image, reasoning or is_error present on one side is lost or changed on the other"
BAD = """
a (client → relay, openai-chat): two parallel results
{"role": "tool", "tool_call_id": "call_1", "content": "Oslo: 4 °C"},
{"role": "tool", "tool_call_id": "call_2", "content": "Bergen: 9 °C"}
b (relay → upstream, anthropic): the second one dropped
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "Oslo: 4 °C"}]}
"""
GOOD = """
b (relay → upstream, anthropic):
{"role": "user", "content": [
  {"type": "tool_result", "tool_use_id": "call_1", "content": "Oslo: 4 °C"},
  {"type": "tool_result", "tool_use_id": "call_2", "content": "Bergen: 9 °C"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    return iter(())  # two logs compared: tooldbg/diff/
