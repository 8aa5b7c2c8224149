"""A request whose last turn is the assistant's: a prefill, which the target refuses.

Anthropic reads a final `assistant` message as the start of the answer it is asked to continue (a
prefill). With tools declared it refuses that: "Your API request included an `assistant` message in
the final position, which would pre-fill the `assistant` response. When using tools, pre-filling the
`assistant` response is not supported." (issues Doriandarko/claude-engineer#40, inngest/agent-kit#41);
and Claude 4.6 and later refuse it whatever the tools: "This model does not support assistant
message prefill. The conversation must end with a user message." (issue jobrunr/JavaClaw#36;
https://platform.claude.com/docs/en/about-claude/models/migration-guide: "Prefilling assistant
messages returns a 400 error on Claude 4.6 models"). Bedrock passes the rule on for Claude models
("The model returned the following errors: …", langchain-ai/langchain-aws#124). Histories end there
when an agent restarts from a saved session that stopped on the model's calls, when a memory layer
appends an assistant note, or when a client prefills on purpose. An error with tools declared or on
a model that refuses prefill; otherwise a warning (older models accept a prefill without tools).

A written export is a history, not yet a request: `convert` and `fix` say so in their loss report
(`the conversation ends on this call with no result: a history, …`), so this rule judges requests
(`EXPORTS = False`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...model import Invocation
from ...shorten import quote as shown
from ..base import Context, Finding
from ..targeting import models, quote, target_table

CODE = "TD807"
NAME = "target-final-assistant-turn"
SEVERITY = "error"
HARM = "target"
TARGET = True
EXPORTS = False
MESSAGE = "a request that ends on the assistant's turn (a prefill) where the target refuses one"
BAD = """
--target anthropic, tools declared, model claude-sonnet-4-6:
{"messages": [
  {"role": "user", "content": "Deploy the hotfix to staging."},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01A", "name": "deploy", "input": {"env": "staging"}}]}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Deploy the hotfix to staging."},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01A", "name": "deploy", "input": {"env": "staging"}}]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "deployed build 8812 to staging"}]}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    limits = target_table(ctx)
    rule = limits.final_turn if limits is not None else None
    if rule is None:
        return
    for conv in ctx.conversations:
        names = models(ctx, conv)
        if rule.models is not None and not any(re.search(rule.models, n) for n in names):
            continue
        reported: set[int] = set()
        for read in ctx.exchanges(conv):
            history = read.history(conv)
            if read.request is None or not history or history[-1].role != "assistant":
                continue
            t = len(history) - 1
            if t in reported:
                continue
            reported.add(t)
            last = history[-1]
            calls = [part for part in last.parts if isinstance(part, Invocation)]
            what = f"the call {shown(calls[0].name)}" if calls else "the assistant's own words"
            tools = bool(read.request.tools)
            refusing = sorted(n for n in names if re.search(rule.refusing, n))
            if tools or refusing:
                why = "with tools declared" if tools else f"on {refusing[0]}"
                message = (f"the request ends on the assistant's turn ({what}): {ctx.target} refuses a final "
                           f"assistant turn {why}, " + quote(rule.with_tools if tools else rule.refused))
                severity = "error"
            else:
                message = (f"the request ends on the assistant's turn ({what}), read as a prefill: older models "
                           f"accept it without tools, newer ones answer " + quote(rule.refused))
                severity = "warning"
            source = last.source if t < read.stored else read.request.turns[t - read.stored].source
            yield ctx.at(message, conversation=conv, turn=t if conv.turns[t:t + 1] == (last,) else None,
                         source=source, severity=severity)
