"""What the TD8xx target pre-flight rules share: the target's table (`tooldbg.targets`), the limits
a string breaks, what is known of the conversation's model and request parameters, and findings
that quote the provider's own words.

The conversation checked is the canonical one — what a writer would replay to the target — so the
rules read canonical parts and the wire ids they carry (`wire_id`); a call without an id gets one
from the writer and breaks no id limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..formats.meta import own_meta
from ..formats.profiles import wire_format
from ..model import Conversation, Invocation, Reasoning, Result, Turn
from .base import Context

if TYPE_CHECKING:  # the tables load when a target is checked, not with every rule
    from ..fit import Limit
    from ..targets import ReasoningReplay, Table

_URL_MODEL = r"/models/([^/:?]+)"  # compiled where used


def target_table(ctx: Context) -> Table | None:
    from ..targets import table  # only `check --target` and `convert` check a target

    return table(ctx.target)


def failure(value: str, limits: tuple[Limit, ...]) -> Limit | None:
    """The first limit `value` breaks, in table order (empty, pattern, length)."""
    for limit in limits:
        if limit.test == "empty":
            broken = value == ""
        elif not value:
            continue  # an empty string breaks only the `empty` test: one finding, not two
        elif limit.test == "pattern":
            broken = re.fullmatch(str(limit.value), value) is None
        else:
            broken = len(value) > int(limit.value or 0)
        if broken:
            return limit
    return None


def quote(error: str, **values: Any) -> str:
    """The provider's error text with the offending values filled in, quoted."""
    for key, value in values.items():
        error = error.replace("{" + key + "}", str(value))
    return f"“{error}”"


def wire_ids(conv: Conversation) -> Iterator[tuple[int, int, str, str]]:
    """(turn, part, "call" | "result", id) for every wire id a writer would replay: each call's, and
    each result's that does not simply repeat its call's (an orphan, or a result bound by name)."""
    calls = {c.id: c.wire_id for c in (p for t in conv.turns for p in t.parts if isinstance(p, Invocation))}
    for t, turn in enumerate(conv.turns):
        for p, part in enumerate(turn.parts):
            if isinstance(part, Invocation) and part.wire_id is not None:
                yield t, p, "call", part.wire_id
            elif isinstance(part, Result) and part.wire_id is not None and \
                    calls.get(part.invocation_id or "") != part.wire_id:
                yield t, p, "result", part.wire_id


def models(ctx: Context, conv: Conversation) -> set[str]:
    """Every model name the log gives this conversation: the requests', the responses' and the one
    in a Gemini endpoint URL (`…/models/gemini-3-pro-preview:streamGenerateContent`)."""
    names = {conv.model} if conv.model else set()
    for read in ctx.exchanges(conv):
        names.update(r.model for r in read.responses if r.model)
        for message in (read.exchange.request, read.exchange.response):
            url = message.url if message is not None else None
            found = re.compile(_URL_MODEL).search(url) if url else None
            if found:
                names.add(found.group(1))
    return names


def thinking(ctx: Context, conv: Conversation, rule: ReasoningReplay, target: str | None) -> bool:
    """Is thinking on for this conversation, as far as the log tells (a request parameter, the
    model, or reasoning of the rule's origin seen in the conversation)?"""
    value = param(conv, target or "", rule.param) if rule.param else None
    if value is not None and value in rule.off:
        return False
    if value is not None and value in rule.on:
        return True
    if model_matches(rule.models, models(ctx, conv)):
        return True
    return rule.seen and any(isinstance(p, Reasoning) and p.origin == rule.origin
                             for turn in conv.turns for p in turn.parts)


def covered(turns: Sequence[Turn], rule: ReasoningReplay) -> list[int]:
    """The assistant turns with calls whose reasoning the rule requires back, in a history of
    `turns` (see `ReasoningReplay.scope`)."""
    calling = [t for t, turn in enumerate(turns)
               if turn.role == "assistant" and any(isinstance(p, Invocation) for p in turn.parts)]
    users = [t for t, turn in enumerate(turns) if turn.role == "user"]
    last_user = users[-1] if users else -1
    if rule.scope == "all":
        return calling
    if rule.scope == "current":
        return [t for t in calling if t > last_user]
    return calling[-1:] if calling and calling[-1] > last_user else []


def item_id(part: object, rule: ReasoningReplay) -> str | None:
    """A call's own item id in the rule's format (Responses `fc_…`), if it has one."""
    if not isinstance(part, Invocation):
        return None
    item = own_meta(rule.origin, part.meta).get("id")
    return item if isinstance(item, str) and item else None


def model_matches(pattern: str | None, names: set[str]) -> bool:
    return pattern is not None and any(re.search(pattern, n) for n in names)


def param(conv: Conversation, target: str, path: tuple[str, ...]) -> Any:
    """A request parameter of the conversation as the target's format keeps it (`thinking.type` of
    an Anthropic request); None when absent — a conversation from another format carries none."""
    value: Any = conv.meta.get(wire_format(target))
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def call_turns(conv: Conversation) -> Iterator[tuple[int, Turn, list[tuple[int, Invocation]]]]:
    """Every assistant turn that makes calls, with its calls (part index, call)."""
    for t, turn in enumerate(conv.turns):
        calls = [(p, part) for p, part in enumerate(turn.parts) if isinstance(part, Invocation)]
        if calls and turn.role == "assistant":
            yield t, turn, calls


def signed(part: Any, origin: str, signature: bool) -> bool:
    """Reasoning of `origin` (with its signature or redacted, when one is needed)."""
    return isinstance(part, Reasoning) and part.origin == origin and (
        not signature or bool(part.signature) or bool(part.redacted))
