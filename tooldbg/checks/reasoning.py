"""Reasoning a response gave with its tool calls, compared with its replay in the next request.

What must come back, and how it is recognised there, depends on who issued it:

* signed reasoning (Anthropic and Bedrock thinking with its `signature`, redacted thinking, Gemini
  `thoughtSignature`, Responses `encrypted_content`, OpenRouter `reasoning_details` blocks) is the
  same reasoning when its decoded signature (or redacted data) is; where the signature covers the
  text (Anthropic, Bedrock, and the Anthropic blocks OpenRouter relays), the text must be the same too;
* Responses reasoning items are also the same item by their `rs_…` id (OpenAI sends another
  `encrypted_content` in each event that repeats an item), including an `item_reference` to it — but
  by id alone only while the item is stored: under `store: false` only `encrypted_content` carries it;
* plain Chat Completions reasoning (`reasoning_content`, `reasoning`) has no signature: it is kept
  when the replayed turn carries reasoning text at all (DeepSeek and Kimi check that the field is
  there, not what it says).

Gemini thought summaries and other unsigned reasoning no provider asks back are not compared.
The rule (TD307) reports the first loss of a turn; `fix` restores what the log recorded.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from .. import formats
from ..formats.meta import own_meta
from ..model import Invocation, Opaque, Reasoning
from .replay import Pair, Placed, signature_key

RESPONSES = "openai-responses"

Kind = Literal["dropped", "altered", "edited", "unstored"]


@dataclass(frozen=True, slots=True)
class Lost:
    """Reasoning part `index` of the original turn, and what happened to it on replay: `dropped`,
    `altered` (the replay carries another signature instead), `edited` (its text changed, its
    signature kept: `twin` is the replayed part) or `unstored` (a Responses item replayed by id
    only, without encrypted_content, while nothing is stored: `twin` is the replay, if an item)."""

    kind: Kind
    index: int
    part: Reasoning
    call: Placed
    twin: Placed | None = None


def losses(pair: Pair) -> Iterator[Lost]:
    """Every reasoning part of a replayed tool-call response turn that did not come back intact."""
    if not pair.from_response or not pair.anchored:
        return
    parts = pair.original.parts
    if not any(isinstance(p, Reasoning) for p in parts) or not any(pair.original.invocations()):
        return  # (most turns: no reasoning to lose, nothing to look for in the replay)
    calls = {id(c): hit for c, hit in pair.calls() if hit is not None}
    if not calls:
        return  # the calls are gone too: not a replayed tool-call turn
    near = [placed for placed in pair.parts_near(calls.values()) if isinstance(placed[2], Reasoning)]
    by_key = {signature_key(p): (ti, pi, p) for ti, pi, p in near if signature_key(p) is not None}
    by_id = {p.wire_id: (ti, pi, p) for ti, pi, p in near if p.wire_id and p.origin == RESPONSES}
    originals = {signature_key(p) for p in parts if isinstance(p, Reasoning)}
    items = {p.wire_id for p in parts if isinstance(p, Reasoning) and p.wire_id and p.origin == RESPONSES}
    # Another signature in the replay, not the same Responses item re-sent with a fresh encrypted_content.
    altered = any(key not in originals and not (p.origin == RESPONSES and p.wire_id in items)
                  for key, (_, _, p) in by_key.items())
    spoken = any(_said(p) for _, _, p in near)
    first = next(iter(calls.values()))
    for k, part in enumerate(parts):
        if not isinstance(part, Reasoning):
            continue
        call = next((calls[id(q)] for q in parts[k + 1:] if isinstance(q, Invocation) and id(q) in calls),
                    first)
        key = signature_key(part)
        twin = by_key.get(key) if key is not None else None
        if twin is not None:
            if _replay(part) in ("signed-text", "text") and twin[2].text != part.text:
                yield Lost("edited", k, part, call, twin)
            continue
        if part.origin == RESPONSES and part.wire_id:
            twin = by_id.get(part.wire_id)
            if twin is not None or part.wire_id in _references(pair):
                if (twin is None or not twin[2].signature) and _unstored(pair):
                    yield Lost("unstored", k, part, call, twin)
                continue
        elif key is None and (_replay(part) != "text" or spoken or not _said(part)):
            continue
        yield Lost("altered" if altered and key is not None else "dropped", k, part, call)


def _references(pair: Pair) -> set[str]:
    """The ids the replaying request names in `item_reference` items (Responses)."""
    return {item["id"] for turn in pair.replay.request.turns for part in turn.parts
            if isinstance(part, Opaque) and part.origin == RESPONSES
            and isinstance(item := part.value, dict) and item.get("type") == "item_reference"
            and isinstance(item.get("id"), str)}


def _unstored(pair: Pair) -> bool:
    """Was the item never stored (the request that produced it said `store: false`), or does the
    replaying request say `store: false`? Then an id alone names nothing the API can find."""
    return any(own_meta(RESPONSES, request.meta).get("store") is False
               for request in (pair.replay.replayed, pair.replay.request))


def _replay(part: Reasoning) -> str | None:
    """What of it must come back (`Facts.reasoning_replay` of the format that issued it)."""
    return formats.facts(part.origin).reasoning_replay if part.origin in formats.FORMATS else None


def _said(part: Reasoning) -> bool:
    return bool(part.text.strip() or part.summary)
