"""A call the target would not see answered where it requires its result.

Chat Completions, Anthropic and Bedrock want every call's result in the message right after the
calls ("An assistant message with 'tool_calls' must be followed by tool messages responding to each
'tool_call_id'…"; "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_…";
"Expected toolResult blocks at messages.N.content for the following Ids: …"), Gemini one response per
call in that next turn, no more and no fewer ("Please ensure that the number of function response
parts is equal to the number of function call parts of the function call turn."), and the Responses
API an output somewhere after the call ("No tool output found for function call call_…"). Anthropic
also reads a call followed by text in its own message as unanswered: the `[tool_use, text]` order that
Responses models such as gpt-5.3-codex-spark produce (a `function_call` item, then a message) is
legal in Responses and rejected by Anthropic with the missing-result message. A source format's own
rules are TD102/TD402/TD405; this rule judges the history against the target's, so converting a
conversation that was fine where it was recorded still says what the target will refuse.

A conversation that ends on the model's calls is a history awaiting results, not a finding; nor
are calls followed straight by the next response of a capture that recorded responses only (the
request that carried the results is not in the log). A request the provider answered that itself
ends on calls, though, sent them without results: the target rejects it as it would with anything
else after them (a body with no response that ends there is a history at rest, e.g. an export).
"""

from collections.abc import Iterator

from ...model import Invocation, Reasoning, Result
from ...shorten import quote as shown
from ..base import Context, Finding
from ..structure import blank
from ..targeting import call_turns, quote, target_table

CODE = "TD803"
NAME = "target-call-unanswered"
SEVERITY = "error"
HARM = "target"
TARGET = True
MESSAGE = "a call the target does not see answered where it requires the result"
BAD = """
--target anthropic, replaying a Responses history (function_call, then a message):
{"role": "assistant", "content": [
  {"type": "tool_use", "id": "call_x1", "name": "get_weather", "input": {"city": "Oslo"}},
  {"type": "text", "text": "Checking the forecast now."}]},
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_x1", "content": "4°C"}]}
"""
GOOD = """
{"role": "assistant", "content": [
  {"type": "text", "text": "Checking the forecast now."},
  {"type": "tool_use", "id": "call_x1", "name": "get_weather", "input": {"city": "Oslo"}}]},
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_x1", "content": "4°C"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    limits = target_table(ctx)
    rule = limits.pairing if limits is not None else None
    if rule is None:
        return
    for conv in ctx.conversations:
        turns = conv.turns
        reads = ctx.exchanges(conv)
        # how many turns the last request sent and had answered (a canonical document, a body with
        # no response: none, it is a history at rest)
        last = reads[-1] if reads else None
        sent = last.sent if last is not None and last.responses else 0
        answered: dict[str, int] = {}  # call → the last turn holding a result for it
        for t, turn in enumerate(turns):
            answered.update((r.invocation_id, t) for r in turn.results() if r.invocation_id)
        for t, turn, calls in call_turns(conv):
            if t == len(turns) - 1 and t >= sent:
                continue  # the history ends on these calls: their results are not sent yet
            direct = [(p, c) for p, c in calls if not _programmatic(c)]
            if rule.calls_last and direct:
                after = next(((p, part) for p, part in enumerate(turn.parts) if p > direct[0][0]
                              and not isinstance(part, Invocation | Reasoning) and not blank(part)), None)
                if after is not None:
                    p, part = after
                    call = next(c for q, c in direct if q < p)
                    yield ctx.at(f"a {part.type} part follows call {shown(call.name)} in its turn: {ctx.target} "
                                 "reads the call as unanswered, "
                                 + quote(rule.error, id=call.wire_id or call.id),
                                 conversation=conv, turn=t, part=p)
            following = turns[t + 1] if t + 1 < len(turns) else None
            if t >= sent and following is not None and following.role == "assistant" \
                    and following.source.side == "response":
                continue  # responses back to back: the request carrying the results is not in the log
            if following is None or t == sent - 1:  # the request ends on these calls
                for p, call in calls:
                    yield ctx.at(f"call {shown(call.name)} has no result: the request ends on it, and "
                                 f"{ctx.target} rejects it, " + quote(rule.error, id=call.wire_id or call.id),
                                 conversation=conv, turn=t, part=p)
                continue
            here = {r.invocation_id for r in following.results() if r.invocation_id}
            if rule.exact_count:
                count = sum(1 for part in following.parts if isinstance(part, Result))
                if count != len(calls) or any(c.id not in here for _, c in calls):
                    yield ctx.at(f"{len(calls)} call(s) in this turn, {count} response(s) in the next, "
                                 f"{sum(1 for _, c in calls if c.id in here)} of them answering these "
                                 f"calls: {ctx.target} rejects it, " + quote(rule.error),
                                 conversation=conv, turn=t)
                continue
            for p, call in calls:
                missing = call.id not in here if rule.scope == "next" else answered.get(call.id, -1) <= t
                if missing:
                    where = "in the turn right after it" if rule.scope == "next" else "after it"
                    yield ctx.at(f"call {shown(call.name)} has no result {where}: {ctx.target} rejects it, "
                                 + quote(rule.error, id=call.wire_id or call.id),
                                 conversation=conv, turn=t, part=p)


def _programmatic(call: Invocation) -> bool:
    """A call made by code the model ran (Anthropic `caller`, Responses `caller.type: program`): it
    sits mid-message legitimately."""
    return any(isinstance(meta, dict) and meta.get("caller") for meta in call.meta.values())
