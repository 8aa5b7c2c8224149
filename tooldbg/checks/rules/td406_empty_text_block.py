"""An empty (or whitespace-only) text block in a message sent to Anthropic or Bedrock.

Anthropic rejects the whole request: "messages: text content blocks must be non-empty", or for blank
text "messages: text content blocks must contain non-whitespace text" (anthropics/claude-code#59812,
#23352; a `"content": ""` string counts as an empty text block too); Bedrock's own validation says
"The text field in the ContentBlock object at messages.15.content.0 is blank. Add text to the text
field, and try again." The block is almost always a by-product of a tool turn: a model that called a
tool without saying anything, replayed by a client that writes `{"type": "text", "text": ""}` beside
the `tool_use` instead of leaving the text out — Anthropic's own SDK returns such blocks and the API
refuses them back (anthropic-sdk-python#461) — so the agent loop breaks on the round trip after a
perfectly good call. Other formats accept empty text (Gemini emits empty text parts that carry a
thought signature), and a response is the provider's own output, so only requests to these two are
judged.
"""

from collections.abc import Iterator

from ... import formats
from ...model import Invocation, Result, Text
from ...shorten import quote
from ..base import Context, Finding
from ..structure import blank, views, whole_content

CODE = "TD406"
NAME = "empty-text-block"
SEVERITY = "error"
HARM = "rejection"
LOST = "only an empty block, nothing the model needed"
MESSAGE = "an empty text block (beside a call) in a request to Anthropic or Bedrock"
BAD = """
{"role": "assistant", "content": [
  {"type": "text", "text": ""},
  {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}}]}
"""
GOOD = """
{"role": "assistant", "content": [
  {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for view in views(ctx):
        if view.format is None or not formats.facts(view.format).rejects_blank_text:
            continue
        conv = view.conversation
        for _, turns in view.groups:
            if turns[0] >= view.sent:
                continue
            # (most wire messages hold no blank text: their parts are not listed, nor the call or
            # result beside one looked for: two fifths of the rule on a clean log)
            if not any(blank(part) for t in turns for part in conv.turns[t].parts):
                continue
            parts = [(t, p, part) for t in turns for p, part in enumerate(conv.turns[t].parts)]
            beside = next((part for _, _, part in parts if isinstance(part, Invocation | Result)), None)
            for t, p, part in parts:
                if not blank(part):
                    continue
                if whole_content(view.wire[t], view.wire[t].parts[p]) and t == view.sent - 1 \
                        and conv.turns[t].role == "assistant":
                    continue  # an empty final assistant message (a prefill) is TD404's to judge
                assert isinstance(part, Text)
                what = "an empty" if part.text == "" else "a whitespace-only"
                if isinstance(beside, Invocation):
                    near = f" beside the call {quote(beside.name)}"
                elif isinstance(beside, Result):
                    near = " beside a tool result"
                else:
                    near = ""
                if view.format == "bedrock":
                    rejects = "Bedrock: the text field in the ContentBlock object is blank"
                elif view.format != "anthropic":
                    rejects = f"{view.format} rejects blank text blocks"
                elif part.text:
                    rejects = "Anthropic: text content blocks must contain non-whitespace text"
                else:
                    rejects = "Anthropic: text content blocks must be non-empty"
                yield ctx.at(f"{what} text block{near}; {rejects}", conversation=conv, turn=t, part=p,
                             source=view.source(t, p))
