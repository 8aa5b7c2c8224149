"""Lone surrogates in JSON text (`"\\ud83d"`): orjson refuses them, `jsonio` reads them with the
standard library and writes them, and this makes each one U+FFFD."""

from __future__ import annotations

from typing import Any

#: How orjson's messages end for a lone surrogate escape ("no low surrogate in string", "invalid
#: high surrogate in string", …).
LONE_SURROGATE = "surrogate in string"


def without_lone_surrogates(value: Any) -> Any:
    """A value the standard library parsed, each lone surrogate in its strings and keys made U+FFFD
    (in place, walked without recursion)."""
    if isinstance(value, str):
        return replaced(value)
    stack = [value] if isinstance(value, (dict, list)) else []
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            items = list(node.items())
            node.clear()
            for key, item in items:
                node[replaced(key)] = replaced(item) if isinstance(item, str) else item
                if isinstance(item, (dict, list)):
                    stack.append(item)
        else:
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = replaced(item)
                elif isinstance(item, (dict, list)):
                    stack.append(item)
    return value


def replaced(text: str) -> str:
    """`text` with each lone surrogate made U+FFFD (as `dumps` writes one)."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
