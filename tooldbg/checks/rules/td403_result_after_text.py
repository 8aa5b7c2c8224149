"""Anthropic: a `tool_result` block after text (or an image) in the user message that answers a call.

Anthropic wants the answers to a `tool_use` to open the next user message: "tool_result blocks must
come FIRST in the content array … any text must come AFTER all tool results" (platform.claude.com,
handling tool calls), and rejects a message that starts with anything else: "messages.27: Did not find
1 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must
begin with a matching number of `tool_result` blocks." (quoted in apify/tester-mcp-client#12 and
anthropic-sdk-typescript#653). Consecutive user messages are combined into one turn before that rule
applies, so a text-only user message followed by a message of results breaks it too. The usual cause
is a client that puts a reminder or a follow-up question before the results, or a converter that
writes a message's text before its parts. Blank text blocks are left to TD406, which explains that
rejection.
"""

from collections.abc import Iterator
from typing import Any

from ...model import Result, Turn
from ...shorten import quote
from ..base import Context, Finding
from ..structure import blank, views

CODE = "TD403"
NAME = "result-after-text"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model sees text before the results its calls wait for"
MESSAGE = "Anthropic: a tool_result block after text in its user message"
BAD = """
{"role": "user", "content": [
  {"type": "text", "text": "Here is what the tool said."},
  {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "4°C, overcast"}]}
"""
GOOD = """
{"role": "user", "content": [
  {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "4°C, overcast"},
  {"type": "text", "text": "Here is what the tool said."}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for view in views(ctx):
        if view.format != "anthropic":
            continue
        conv = view.conversation
        for unit, turns in view.groups:
            if view.roles[unit] != "user" or turns[0] >= view.sent:
                continue
            found = _result_after_content(conv.turns, turns)
            if found is None:
                continue
            (bt, bp, kind), (t, p, result) = found
            where = view.source(bt, bp).pointer or f"turn {bt}"
            yield ctx.at(f"tool_result {quote(result.wire_id)} comes after a {kind} block ({where}); "
                         f"tool_result blocks must open the user message",
                         conversation=conv, turn=t, part=p, source=view.source(t, p))


def _result_after_content(all_turns: tuple[Turn, ...], turns: tuple[int, ...]) -> tuple[Any, Any] | None:
    """The first content block that is not a result, and the first result after it, in one user
    message (None when the results come first)."""
    before = None
    for t in turns:
        for p, part in enumerate(all_turns[t].parts):
            if not isinstance(part, Result):
                if before is None and not blank(part):
                    before = (t, p, part.type)
            elif before is not None:
                return before, (t, p, part)
    return None
