"""A forced tool choice answered with text and no call.

`tool_choice: "required"` or a named function (Anthropic `any`/`tool`, Gemini mode `ANY`, Bedrock
`any`/`tool`) makes the provider constrain the model to call a tool: a direct answer with text alone
should not be possible. When it happens the request that reached the model most likely did not carry
the tools or the choice — a gateway or relay ("API transit station") that strips `tools`, rewrites
`tool_choice`, or routes to a model without tool support — and the agent receives prose where its code
expects a call. It is a strong sign, not a proof (a relay may also have dropped the call from the
answer, see TD602), hence a warning.
"""

from collections.abc import Iterator

from ...lacking import TOOLS
from ...model import Part, Text
from ...shorten import quote
from ..base import Context, Finding
from ..structure import answers, blank, call_like, placed

CODE = "TD603"
NAME = "tools-ignored"
SEVERITY = "warning"
HARM = "symptom"
MESSAGE = "a forced tool choice answered with text and no call"
NEEDS = (TOOLS,)
BAD = """
request:  {"model": "gpt-4o-mini", "tool_choice": "required", "tools": [{"type": "function",
           "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
           "messages": [{"role": "user", "content": "Weather in Oslo?"}]}
response: {"choices": [{"index": 0, "finish_reason": "stop",
           "message": {"role": "assistant", "content": "It is usually cold in Oslo."}}]}
"""
GOOD = """
request:  (the same)
response: {"choices": [{"index": 0, "finish_reason": "tool_calls",
           "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_9",
             "type": "function", "function": {"name": "get_weather",
             "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}}]}
"""


#: Answers that end without a call for a reason of their own: a refusal or a safety stop.
_STOPPED = frozenset({"refusal", "content_filter", "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT",
                      "SPII", "IMAGE_SAFETY", "guardrail_intervened", "content_filtered"})


def _answer_text(part: Part) -> bool:
    """Text the model wrote as an answer (a refusal is not ignoring the tools)."""
    if not isinstance(part, Text) or blank(part):
        return False
    return not any(isinstance(m, dict) and "refusal" in (m.get("field"), m.get("type"))
                   for m in part.meta.values())


def check(ctx: Context) -> Iterator[Finding]:
    for answer in answers(ctx):
        request = answer.read.request
        choice = request.tool_choice if request is not None else None
        turn = answer.response.turn
        if choice is None or choice.mode not in ("required", "tool") or turn is None:
            continue
        if any(call_like(p) for p in turn.parts) or answer.response.finish_reason in _STOPPED:
            continue
        text = next((p for p, part in enumerate(turn.parts) if _answer_text(part)), None)
        if text is None:
            continue
        forced = f"the tool {quote(choice.name)}" if choice.mode == "tool" and choice.name else "a tool call"
        source = turn.parts[text].source
        conversation, at = placed(ctx, answer)
        yield ctx.at(f"the request forced {forced}, but the answer is text with no call: the tools were "
                     f"likely dropped on the way to the model", conversation=conversation,
                     turn=at, part=text if at is not None else None, source=source)
