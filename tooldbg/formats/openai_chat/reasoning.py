"""OpenRouter's `reasoning_details`: the reasoning blocks a Chat Completions dialect returns, and
must be sent back unmodified with the tool-call turn they belong to.

OpenRouter normalises every upstream's reasoning into an array on the assistant message
(https://openrouter.ai/docs/use-cases/reasoning-tokens, "Preserving Reasoning Blocks"):

    {"type": "reasoning.text", "text": "…", "signature": "…"}       Anthropic thinking, signed
    {"type": "reasoning.summary", "summary": "…"}                    OpenAI reasoning summaries
    {"type": "reasoning.encrypted", "data": "…"}                     redacted thinking, OpenAI
                                                                     encrypted_content, Gemini
                                                                     thought signatures

each with optional `id`, `format` (`anthropic-claude-v1`, `openai-responses-v1`,
`google-gemini-v1`, `unknown`) and `index`. The same message usually also carries the plain
`reasoning` string, the blocks' text joined. Each block becomes one canonical `Reasoning` part
(`text`/`summary`, `signature`, `redacted` for `data`, `wire_id` for `id`; the other keys in meta
under `field: reasoning_details`), so a replay that drops or alters it is visible (TD307) and a
writer to another format reports it lost; an entry of another shape stays verbatim as Opaque.
When the `reasoning` string is exactly the blocks' text joined, it is not read a second time: the
first block's meta says `mirror: true` and the writer writes it again from the blocks.
"""

from __future__ import annotations

from typing import Any

from ...model import Opaque, Part, Reasoning
from ...source import Source
from ..meta import meta_for, own_meta, with_meta
from .common import NAME

FIELD = "reasoning_details"
_TYPES = {"reasoning.text": "text", "reasoning.summary": "summary", "reasoning.encrypted": "data"}
_MODELED = ("type", "text", "summary", "data", "signature", "id")


def read_details(details: list[Any], at: Source) -> list[Part]:
    """The entries of a `reasoning_details` array, one part each."""
    return [_detail(entry, at.child(k)) for k, entry in enumerate(details)]


def _detail(entry: Any, at: Source) -> Part:
    kind = entry.get("type") if isinstance(entry, dict) else None
    key = _TYPES.get(kind) if isinstance(kind, str) else None
    if key is None or not isinstance(entry.get(key), str) or not all(
            entry.get(k) is None or isinstance(entry.get(k), str) for k in ("signature", "id")):
        return Opaque(origin=NAME, value=entry, meta=meta_for(NAME, {"field": FIELD}), source=at)
    extras = {k: v for k, v in entry.items()
              if k not in _MODELED or (k in ("signature", "id") and v is None)}  # nulls written back
    meta = meta_for(NAME, {"field": FIELD, "type": kind, **extras})
    body = entry[key]
    if key == "summary":
        return Reasoning(summary=(body,), signature=entry.get("signature"), wire_id=entry.get("id"),
                         origin=NAME, meta=meta, source=at)
    if key == "data":
        return Reasoning(redacted=body, signature=entry.get("signature"), wire_id=entry.get("id"),
                         origin=NAME, meta=meta, source=at)
    return Reasoning(text=body, signature=entry.get("signature"), wire_id=entry.get("id"), origin=NAME,
                     meta=meta, source=at)


def visible(parts: list[Part]) -> str:
    """The text of the blocks as the plain `reasoning` string repeats it."""
    return "".join(p.text or "".join(p.summary) for p in parts if isinstance(p, Reasoning))


def mirrored(parts: list[Part]) -> list[Part]:
    """The blocks, the first marked as standing for the `reasoning` string too."""
    if not parts:
        return parts
    return [with_meta(NAME, parts[0], {"mirror": True}), *parts[1:]]


def is_detail(part: Part) -> bool:
    """A part read from `reasoning_details` (a block, or an entry kept verbatim)."""
    return own_meta(NAME, part.meta).get("field") == FIELD and (
        isinstance(part, Reasoning) or (isinstance(part, Opaque) and part.origin == NAME))


def write_detail(part: Part) -> dict[str, Any]:
    """One block back as the entry it was read from."""
    if isinstance(part, Opaque):
        return part.value if isinstance(part.value, dict) else {"value": part.value}
    assert isinstance(part, Reasoning)
    own = own_meta(NAME, part.meta)
    for key in ("field", "mirror"):
        own.pop(key, None)
    kind = own.pop("type", None)
    if not isinstance(kind, str) or kind not in _TYPES:  # (a canonical file may hold any value there)
        kind = "reasoning.encrypted" if part.redacted else "reasoning.summary" if part.summary else \
            "reasoning.text"
    entry: dict[str, Any] = {"type": kind}
    key = _TYPES[kind]
    entry[key] = part.redacted if key == "data" else "".join(part.summary) if key == "summary" else part.text
    if part.signature is not None:
        entry["signature"] = part.signature
    if part.wire_id is not None:
        entry["id"] = part.wire_id
    return {**entry, **own}
