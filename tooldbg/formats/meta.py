"""A format's own details on canonical nodes: each node's `meta` keeps, under a format's name, what
that format's reader found and did not model, so the format's writer can put it back; other writers
report it as not carried."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from ..model import NO_META, Conversation, Part, Reasoning, Tool, Turn

_Node = TypeVar("_Node", bound=Part | Turn | Tool | Conversation)

#: The key a reader of the two OpenAI formats sets (True) on the first part of each leading system
#: or developer message after the first: the canonical system prompt is one list of parts, and
#: without it their writer would send two messages back as one. Both formats list it as `restated`
#: (the other writers keep the parts in order, and the boundary says nothing more).
STARTS_MESSAGE = "starts_message"


def unmodeled(obj: Mapping[str, Any], modeled: Collection[str], *, empty: bool = False,
              defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The keys of a wire object its reader did not model, kept in meta for a faithful rewrite.
    Values that say nothing are left out: nulls, with `empty` also [] and {}, and a key at its
    `defaults` value (formats differ in which defaults their writers restore on their own)."""
    defaults = defaults or {}
    return {k: v for k, v in obj.items() if k not in modeled and v is not None
            and not (empty and (v == [] or v == {}))
            and not (k in defaults and type(v) is type(defaults[k]) and v == defaults[k])}


def meta_for(name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A node's `meta` holding format `name`'s details: `{name: values}`, or {} when there are none."""
    return {name: dict(values)} if values else NO_META


def meta_of(name: str, obj: Mapping[str, Any], modeled: frozenset[str]) -> dict[str, Any]:
    """`meta_for(name, unmodeled(obj, modeled))`, the `meta` of a node read from `obj`: at once when
    `obj` has no key but the modeled ones, as most wire objects have not."""
    if obj.keys() <= modeled:
        return NO_META
    return meta_for(name, unmodeled(obj, modeled))


def own_meta(name: str, meta: Any) -> dict[str, Any]:
    """A copy of format `name`'s entry of a node's `meta` ({} when it has none)."""
    if not meta:  # most nodes: no ABC check (writers ask this of every node they write)
        return {}
    own = meta.get(name) if isinstance(meta, Mapping) else None
    return dict(own) if isinstance(own, Mapping) else {}


def with_meta(name: str, node: _Node, values: Mapping[str, Any]) -> _Node:
    """The node with `values` merged into its entry of format `name` (unchanged when empty)."""
    if not values:
        return node
    return replace(node, meta={**node.meta, name: {**own_meta(name, node.meta), **values}})


def starting_message(name: str, parts: list[Part]) -> list[Part]:
    """The parts of a leading system message after the first, its first part marked `STARTS_MESSAGE`
    in format `name`'s entry (the two OpenAI readers)."""
    return [with_meta(name, parts[0], {STARTS_MESSAGE: True}), *parts[1:]] if parts else parts


def signature_carrier(part: Any, origin: str) -> bool:
    """A reasoning part of `origin` that holds only a signature, which its writer puts on the part
    after it (Gemini's `thoughtSignature` rides on the part it signs): the writer and the target
    rule that asks for one (TD805, `position="carrier"`) tell it so, the one way."""
    return isinstance(part, Reasoning) and part.origin == origin and bool(part.signature) and not (
        part.text or part.summary or part.redacted or own_meta(origin, part.meta).get("thought"))
