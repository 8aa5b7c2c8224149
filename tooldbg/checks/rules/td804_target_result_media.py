"""Media in a tool result that the target's tool results cannot carry.

Agents return screenshots, rendered charts and PDFs from tools, and Anthropic, Bedrock and the
Responses API take them inside the result. Chat Completions does not: a `tool` message is a string
or text parts only, so a converter either sends an `image_url` part there — strict OpenAI-compatible
servers answer 400 ("Invalid 'messages' in payload"), lenient ones let the model answer without ever
seeing the image — or drops it. Gemini accepts media in `functionResponse.parts` from Gemini 3 on;
older models refuse it ("Unable to submit request because `function_response.parts` is not
supported for this model."). Either way the tool's real output does not reach the model; moving the
image into a user message after the results is the usual repair. Allowed kinds per target are in
`tooldbg/targets.py`.
"""

from collections.abc import Iterator

from ...model import Media, Result
from ...shorten import plain
from ...shorten import quote as shown
from ..base import Context, Finding
from ..targeting import model_matches, models, quote, target_table

CODE = "TD804"
NAME = "target-result-media"
SEVERITY = "error"
HARM = "target"
TARGET = True
MESSAGE = "media in a tool result the target cannot carry"
BAD = """
--target openai-chat, replaying an Anthropic history:
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": [
  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo…"}}]}]}
"""
GOOD = """
{"role": "tool", "tool_call_id": "toolu_01A", "content": "Screenshot attached below."},
{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo…"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    limits = target_table(ctx)
    rule = limits.result_media if limits is not None else None
    if rule is None:
        return
    for conv in ctx.conversations:
        if rule.models is not None and not model_matches(rule.models, models(ctx, conv)):
            continue  # the limit is model-specific and this model is not known to have it
        for t, _, p, part in ctx.parts(conv):
            if not isinstance(part, Result):
                continue
            for media in (m for m in part.content if isinstance(m, Media) and m.kind not in rule.allowed):
                what = media.media_type or media.kind
                yield ctx.at(f"the result of {shown(part.name or 'a call')} carries {plain(media.kind)} ({what}), which "
                             f"{ctx.target} tool results cannot: " + quote(rule.error),
                             conversation=conv, turn=t, part=p)
