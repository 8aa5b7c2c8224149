"""A call id the target provider rejects: empty, outside its character set, or too long.

Ids are opaque to most providers but not to all: Anthropic requires `^[a-zA-Z0-9_-]+$`
("messages.92.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"), Bedrock
`[a-zA-Z0-9_.:-]` and 1–64 characters, the Responses API a `call_id` of at most 64 ("Invalid
'input[95].call_id': string too long. Expected a string with maximum length 64, but got a string with
length 116 instead."), Mistral exactly nine letters or digits ("Tool call id was call_0fypS1hVX but
must be a-z, A-Z, 0-9, with a length of 9."). A history recorded with one provider carries that
provider's ids — Kimi's `functions.Bash:0`, a Responses `fc_…` item id, OpenAI's `call_` + 24 — and
replaying it to another fails the whole request, on every later turn too, since the id stays in the
history. The writers can rewrite such ids consistently on both sides of a pair (and say so); this
rule says which ones need it. Limits are per target in `tooldbg/targets.py`; OpenAI Chat's 40-character
limit, reported once and not reproduced since, is TD802.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...shorten import quote as shown
from ..base import Context, Finding
from ..targeting import failure, quote, target_table, wire_ids

if TYPE_CHECKING:  # the tables load when a target is checked, not with every rule
    from ...fit import Limit

CODE = "TD801"
NAME = "target-call-id"
SEVERITY = "error"
HARM = "target"
TARGET = True
MESSAGE = "a call id the target rejects (empty, charset or length)"
BAD = """
--target anthropic, replaying a history recorded with Kimi:
{"role": "assistant", "content": [
  {"type": "tool_use", "id": "functions.get_weather:0", "name": "get_weather", "input": {"city": "Oslo"}}]}
"""
GOOD = """
{"role": "assistant", "content": [
  {"type": "tool_use", "id": "functions_get_weather_0", "name": "get_weather", "input": {"city": "Oslo"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    limits = target_table(ctx)
    if limits is None or not limits.call_id:
        return
    for conv in ctx.conversations:
        for t, p, what, wire_id in wire_ids(conv):
            limit = failure(wire_id, limits.call_id)
            if limit is not None and limit.certain:
                yield ctx.at(f"{ctx.target} rejects {what} id {shown(wire_id)} ({_rule(limit)}): "
                             + quote(limit.error, id=wire_id, length=len(wire_id)),
                             conversation=conv, turn=t, part=p)


def _rule(limit: Limit) -> str:
    if limit.test == "empty":
        return "empty"
    if limit.test == "pattern":
        return f"must match {limit.value}"
    return f"longer than {limit.value} characters"
