"""A tool result that was marked as a failure lost the mark when the history was replayed.

Anthropic's `is_error: true`, Bedrock's `status: "error"` and Gemini's `{"error": …}` response tell
the model that the tool failed, not that it returned this text. A replay that folds the flag away
(a converter that copies `content` but not `is_error`, a relay that rebuilds `toolResult` without
`status`, a Gemini client that writes every response under `output`) turns "the weather service
timed out" into an answer the model may quote as a fact. Nothing rejects it: the defect is silent.
Translating into a format without a flag (OpenAI) is only safe when the failure is said in the text;
a result whose failure was neither flagged nor said is reported.
"""

from collections.abc import Iterator

from ... import formats
from ...shorten import quote
from ..base import Context, Finding
from ..failures import lost_flags
from ..replay import origin

CODE = "TD303"
NAME = "lost-is-error"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a result's failure flag present in one place, absent in its replay or translation"
BAD = """
exchange 1's request:
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01B",
  "content": "weather service timed out", "is_error": true}]}
exchange 2's request replays it as:
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01B",
  "content": "weather service timed out"}]}
"""
GOOD = """
exchange 2's request replays it as:
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01B",
  "content": "weather service timed out", "is_error": true}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for pair, result, hit in lost_flags(ctx):
        ident = quote(result.wire_id) if result.wire_id else f"of {quote(result.name)}"
        fmt = pair.replay.before.format
        flag = (formats.facts(fmt).failure_wording if fmt is not None else None) or "a failure flag"
        yield pair.finding(ctx, f"result {ident} had {flag} in {origin(pair)}; its replay in exchange "
                                f"{pair.replay.after.exchange.index} is no longer marked as a failure",
                           hit[0], hit[1])
