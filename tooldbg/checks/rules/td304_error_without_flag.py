"""A tool result that reports a failure in its text, sent without the failure marking its format has.

Anthropic (`is_error: true`) and Bedrock Converse (`status: "error"`) let the client say that a tool
failed; Gemini has a key for it: "Use 'output' key to specify function output and 'error' key to
specify error details (if any). If 'output' and 'error' keys are not specified, then whole
'response' is treated as function output" (ai.google.dev/api/caching#FunctionResponse; python-genai
`types.FunctionResponse.response`). Content such as "Error: …", a Python traceback, `{"error": …}`,
`{"status": "error", …}`, "timed out" or "… failed" sent without that marking — under Gemini's
`output`, or as a `response` object without an `error` key — reads to the model as a successful
call that returned those words: models then quote error text as data, or retry less carefully than
after a flagged failure. Usually the client caught the exception and returned its message as the
output. A heuristic on the text, hence a warning; formats without any marking (OpenAI) can only say
it in the text and are not checked, and a result that was marked in an earlier request is TD303's.
"""

from collections.abc import Iterator

from ... import formats
from ...shorten import quote
from ..base import Context, Finding
from ..failures import failure_report, lost_flags
from ..pairing import paired

CODE = "TD304"
NAME = "error-without-flag"
SEVERITY = "warning"
HARM = "symptom"
MESSAGE = "a result reporting a failure, sent without the failure flag its format has"
BAD = """
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01B",
  "content": "Error: weather service timed out for Bergen"}]}
"""
GOOD = """
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01B",
  "content": "Error: weather service timed out for Bergen", "is_error": true}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    reads = ctx.reads
    if not any(r.format is not None and formats.facts(r.format).failure != "text" for r in reads):
        return  # (no exchange in a format with a failure flag: an OpenAI log's results are not walked)
    lost = {hit[2].source for _, _, hit in lost_flags(ctx)}  # TD303 says it better
    for conv in ctx.conversations:
        for found in paired(ctx, conv).results:
            t, p, part = found.turn, found.part, found.node
            if part.is_error or (lost and part.source in lost):
                continue
            exchange = part.source.exchange
            fmt = reads[exchange].format if exchange is not None and 0 <= exchange < len(reads) else None
            facts = formats.facts(fmt) if fmt is not None else None
            if facts is None or facts.failure == "text" or part.source.side != "request":
                continue
            words = failure_report(part.content)
            if words:
                ident = quote(part.wire_id) if part.wire_id else f"of {quote(part.name)}"
                yield ctx.at(f"result {ident} reports a failure ({words}) but is sent without "
                             f"{facts.failure_wording}", conversation=conv, turn=t, part=p)
