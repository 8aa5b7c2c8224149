"""Anthropic: text (or another block) after a `tool_use` in the same assistant message.

`tool_use` blocks must be the last blocks of their assistant message. A request recorded live by
anomalyco/opencode for its tests (`packages/llm/test/fixtures/recordings/` +
`anthropic-messages/rejects-malformed-assistant-tool-order-without-patch.json`) sends assistant
content `[tool_use, text]` followed by a correct `tool_result` and gets 400; the same history with
the text sent as its own assistant message before the call
(`accepts-malformed-assistant-tool-order-with-default-patch.json`) gets 200. The 400 is the message
for a *missing* result — "messages.1: `tool_use` ids were found without `tool_result` blocks
immediately after: call_1. Each `tool_use` block must have a corresponding `tool_result` block in the
next message." — and sends the developer looking for a lost result that is right there. The same
happens when a `server_tool_use` pair sits after a client `tool_use` (vercel/ai#13013), and since
Anthropic combines consecutive assistant messages into one turn (anthropic-sdk-python
`src/anthropic/types/message_create_params.py`), a text-only assistant message right after the call
message breaks it too. Models that emit a call *then* text, and converters that write parts in the
wrong order, cause it. Bedrock passes the rule on for Claude models (reported as rejected,
undocumented: evalstate/fast-agent#668): a warning there. Calls made by code execution (`caller` not
direct) sit mid-message legitimately and are skipped, and an answer is judged only once a request
replays it.
"""

from collections.abc import Iterator

from ... import formats
from ...model import Invocation, Json, Media, Opaque, Part, Reasoning
from ..base import Context, Finding
from ..structure import blank, label, views

CODE = "TD405"
NAME = "text-after-call"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model sees text after its call, before the result"
MESSAGE = "Anthropic: text after a tool_use in the same assistant message"
BAD = """
{"role": "assistant", "content": [
  {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}},
  {"type": "text", "text": "I will check the weather."}]}
"""
GOOD = """
{"role": "assistant", "content": [
  {"type": "text", "text": "I will check the weather."},
  {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}}]}
"""


def _direct(part: Invocation, fmt: str) -> bool:
    meta = part.meta.get(fmt)
    return not (isinstance(meta, dict) and meta.get("caller"))


def check(ctx: Context) -> Iterator[Finding]:
    for view in views(ctx):
        fmt = view.format
        if fmt is None or not formats.facts(fmt).calls_last:
            continue
        conv = view.conversation
        for unit, turns in view.groups:
            if view.roles[unit] != "assistant" or turns[0] >= view.sent:
                continue
            call = None
            found = None
            for t in turns:
                for p, part in enumerate(conv.turns[t].parts):
                    if isinstance(part, Invocation):
                        if call is None and _direct(part, fmt):
                            call = part
                    elif call is not None and not isinstance(part, Reasoning) and not blank(part):
                        found = (t, p, part)
                        break
                if found:
                    break
            if found is None or call is None:
                continue
            t, p, part = found
            message, severity = _rejection(fmt, _block(part), call)
            yield ctx.at(message, conversation=conv, turn=t, part=p, source=view.source(t, p),
                         severity=severity)


def _block(part: Part) -> str:
    """The block as the wire names it, with its article: `a text block`, `an image block`, `a
    search_result block` (a block kept as it came names its own `type`)."""
    value = part.value if isinstance(part, (Json, Opaque)) else None
    kind = part.kind if isinstance(part, Media) else \
        value.get("type", part.type) if isinstance(value, dict) else part.type
    kind = kind if isinstance(kind, str) else part.type
    return f"{'an' if kind[:1] in ('a', 'e', 'i', 'o', 'u') else 'a'} {kind} block"


def _rejection(fmt: str, block: str, call: Invocation) -> tuple[str, str]:
    """The message, in the provider's terms, and its severity: Bedrock enforces the rule for Claude
    models only (reported, undocumented), hence a warning there."""
    if fmt == "anthropic":
        return (f"{block} after tool_use {label(call)} in the same assistant message: "
                f"Anthropic rejects it as if the call had no tool_result"), SEVERITY
    if fmt == "bedrock":
        return (f"{block} after toolUse {label(call)} in the same assistant message: "
                f"Bedrock rejects this for Claude models; put text before the calls"), "warning"
    return (f"{block} after the call {label(call)} in the same assistant message: "
            f"{fmt} rejects anything after a call"), SEVERITY
