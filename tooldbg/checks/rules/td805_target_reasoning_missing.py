"""A tool turn replayed without the reasoning the target requires back with it.

Reasoning models tie their tool calls to the thinking that produced them, and several providers
refuse a history that drops it. Anthropic with thinking on: "messages.1.content.0.type: Expected
`thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final
`assistant` message must start with a thinking block…". Gemini 3: "Function call is missing a
thought_signature in functionCall parts…" — the signature rides on the first call of each step.
The Responses API, for a call replayed with its `fc_…` item id: "Item 'fc_…' of type
'function_call' was provided without its required 'reasoning' item: 'rs_…'."; with `store: false`
an item sent by id alone is not found ("Items are not persisted when `store` is set to false"):
it must carry its `encrypted_content`. DeepSeek and Kimi in thinking mode: "Missing
`reasoning_content` field in the assistant message at message index 2." / "thinking is enabled but
reasoning_content is missing in assistant tool call message at index N".
Agent frameworks drop reasoning when they store history as plain messages, and converters cannot
carry one provider's signed reasoning to another, so the tool loop dies on its second request.
When each target requires it (which parameter, model or observed reasoning turns thinking on, which
turns, where in them) is data in `tooldbg/targets.py`. A replay that dropped reasoning the log shows
is also TD307; this rule judges the history against the target, recorded or not.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...formats.meta import signature_carrier
from ...model import Invocation, Part
from ...shorten import quote as shown
from ..base import Context, Finding
from ..targeting import (
    covered,
    item_id,
    model_matches,
    models,
    param,
    quote,
    signed,
    target_table,
    thinking,
)

if TYPE_CHECKING:  # the tables load when a target is checked, not with every rule
    from ...targets import ReasoningReplay

CODE = "TD805"
NAME = "target-reasoning-missing"
SEVERITY = "error"
HARM = "target"
TARGET = True
MESSAGE = "a tool turn without the reasoning the target requires replayed with it"
BAD = """
--target deepseek, model deepseek-reasoner:
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_00_Xy7", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""
GOOD = """
{"role": "assistant", "content": null, "reasoning_content": "The user wants Oslo's weather…",
 "tool_calls": [{"id": "call_00_Xy7", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    limits = target_table(ctx)
    rule = limits.reasoning if limits is not None else None
    if rule is None or ctx.target is None:
        return
    needed, answered = _recorded(ctx, rule) if rule.recorded else (None, set())
    for conv in ctx.conversations:
        if not rule.recorded and not thinking(ctx, conv, rule, ctx.target):
            continue
        # A call no recorded response shows: a reasoning model (by name) reasoned before it.
        guessed = rule.recorded and model_matches(rule.models, models(ctx, conv))
        unstored = bool(rule.stored) and param(conv, ctx.target, rule.stored) is False
        signature = rule.signature or unstored
        for t in covered(conv.turns, rule):
            turn = conv.turns[t]
            wanted = needed
            if wanted is not None and guessed:
                wanted = wanted | {i for part in turn.parts if (i := item_id(part, rule)) and i not in answered}
            if wanted is not None and unstored:  # reasoning the history replays (by id) needs it signed too
                wanted = wanted | _reasoned(turn.parts, rule)
            missing = _missing(turn.parts, rule, wanted, signature)
            if missing is None:
                continue
            p, call = missing
            found = turn.parts[0].type if turn.parts else "nothing"
            item = item_id(call, rule) or "fc_…"
            what = rule.stored_what if unstored else rule.what
            error = rule.stored_error if unstored and _unsigned_before(turn.parts, p, rule) else rule.error
            # (reasoning the turn holds, but where the target does not take it, is misplaced, not missing)
            held = any(signed(part, rule.origin, signature) for part in turn.parts)
            yield ctx.at(f"the turn calling {shown(call.name)} carries {'its' if held else 'no'} {what}"
                         f"{' in the wrong place' if held else ''} ({_where(rule)}): {ctx.target} rejects it, "
                         + quote(error, found="tool_use" if found == "invocation" else found,
                                 name=call.name, item=item),
                         conversation=conv, turn=t, part=p)


def _recorded(ctx: Context, rule: ReasoningReplay) -> tuple[set[str], set[str]]:
    """The item ids of the calls whose recorded response had reasoning of `origin` before them, and
    of every call a recorded response holds."""
    turns = [response.turn for read in ctx.reads for response in read.responses if response.turn is not None]
    reasoned = {item for turn in turns for item in _reasoned(turn.parts, rule)}
    return reasoned, {item for turn in turns for part in turn.parts if (item := item_id(part, rule))}


def _reasoned(parts: tuple[Part, ...], rule: ReasoningReplay) -> set[str]:
    """The item ids of the calls that come after reasoning of `origin` in `parts`."""
    needed: set[str] = set()
    reasoned = False
    for part in parts:
        reasoned = reasoned or signed(part, rule.origin, rule.signature)
        item = item_id(part, rule) if reasoned else None
        if item:
            needed.add(item)
    return needed


def _unsigned_before(parts: tuple[Part, ...], p: int, rule: ReasoningReplay) -> bool:
    """Reasoning of `origin` comes before part `p`, but unsigned (sent by id alone)."""
    return any(signed(part, rule.origin, False) for part in parts[:p])


def _missing(parts: tuple[Part, ...], rule: ReasoningReplay, needed: set[str] | None,
             signature: bool) -> tuple[int, Invocation] | None:
    """(part, call) of the first call the turn's reasoning (signed, with `signature`) does not
    cover, or None."""
    calls = [(p, part) for p, part in enumerate(parts) if isinstance(part, Invocation)]
    if rule.item_ids:
        calls = [(p, c) for p, c in calls if item_id(c, rule)]
    if needed is not None:
        calls = [(p, c) for p, c in calls if item_id(c, rule) in needed]
    if not calls:
        return None
    if rule.position == "first":
        return None if parts and signed(parts[0], rule.origin, signature) else calls[0]
    if rule.position == "carrier":
        p = calls[0][0]
        return None if p > 0 and signature_carrier(parts[p - 1], rule.origin) else calls[0]
    if rule.position == "before_call":
        first = next((q for q, part in enumerate(parts) if signed(part, rule.origin, signature)),
                     len(parts))
        return next(((p, call) for p, call in calls if p < first), None)
    return None if any(signed(part, rule.origin, signature) for part in parts) else calls[0]


def _where(rule: ReasoningReplay) -> str:
    return {"first": "it must open the turn", "carrier": "it must ride on the turn's first call",
            "before_call": "it must come before the call", "any": "a tool turn needs it"}[rule.position]
