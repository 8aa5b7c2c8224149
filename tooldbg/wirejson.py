"""Pretty-printed JSON that knows where every node is: the line span of every JSON pointer.

The wire view shows a request or response body one screen at a time and highlights the node a turn
or a finding points at; for that it needs, for any RFC 6901 pointer, the lines the node occupies.
`pretty(value)` lays JSON out exactly as `orjson.OPT_INDENT_2` does (two spaces, `"key": value`,
`[]` / `{}` for empty containers, one node opening per line) and records `(first, last)` line
numbers for every node on the way. The walk is iterative, so a hostile body nested a thousand
levels deep lays out like any other.

Strings stay JSON-escaped (`\\n`, `\\u001b`), so a line of output is always one line of text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .jsonio import dumps, dumps_str
from .source import escape_pointer

INDENT = 2


@dataclass(slots=True)
class Pretty:
    """A laid-out JSON value: its `lines`, and the inclusive line span of every pointer."""

    lines: list[str] = field(default_factory=list)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def span(self, pointer: str) -> tuple[int, int] | None:
        """The lines of the node at `pointer`, or of its nearest ancestor that exists (a pointer to
        a key the body lacks still shows where that key would be); None for an empty document."""
        pointer = pointer if not pointer or pointer.startswith("/") else "/" + pointer
        while True:
            found = self.spans.get(pointer)
            if found is not None or not pointer:
                return found
            pointer = pointer.rsplit("/", 1)[0]

    def pointer_at(self, line: int) -> str | None:
        """The innermost pointer whose span holds `line` (a linear scan: for clicks, not renders)."""
        best: tuple[int, str] | None = None
        for pointer, (first, last) in self.spans.items():
            if first <= line <= last and (best is None or last - first < best[0]):
                best = (last - first, pointer)
        return best[1] if best else None


def scalar(value: Any) -> str:
    """One scalar (or empty container) as JSON text; values JSON cannot hold degrade, never raise."""
    return dumps(value).decode()


def pretty(value: Any, base: str = "") -> Pretty:
    """Lay `value` out; pointers in `spans` are prefixed with `base` (`""`: the value is the root)."""
    lines: list[str] = []
    spans: dict[str, tuple[int, int]] = {}
    # ("v", value, pointer, indent, head, comma) lays a node out; ("c", …) closes a container.
    stack: list[tuple[Any, ...]] = [("v", value, base, 0, "", "")]
    append, push = lines.append, stack.append
    while stack:
        item = stack.pop()
        if item[0] == "c":
            _, pointer, start, pad, closer, comma = item
            spans[pointer] = (start, len(lines))
            append(pad + closer + comma)
            continue
        _, node, pointer, indent, head, comma = item
        pad = " " * indent
        if isinstance(node, dict) and node:
            start = len(lines)
            append(pad + head + "{")
            push(("c", pointer, start, pad, "}", comma))
            last = len(node) - 1
            children = [("v", child, f"{pointer}/{escape_pointer(key)}", indent + INDENT,
                         _key(key) + ": ", "," if i < last else "")
                        for i, (key, child) in enumerate(node.items())]
            stack.extend(reversed(children))
        elif isinstance(node, (list, tuple)) and node:
            start = len(lines)
            append(pad + head + "[")
            push(("c", pointer, start, pad, "]", comma))
            last = len(node) - 1
            stack.extend(("v", node[i], f"{pointer}/{i}", indent + INDENT, "", "," if i < last else "")
                         for i in range(last, -1, -1))
        else:
            spans[pointer] = (len(lines), len(lines))
            append(pad + head + scalar(node) + comma)
    return Pretty(lines, spans)


def _key(key: Any) -> str:
    return scalar(key if isinstance(key, str) else str(key))


def compact(value: Any) -> str:
    """One line of JSON (`{"a":1}`), for stream events listed one per line."""
    return dumps_str(value)


def walk_pointers(value: Any, base: str = "") -> Iterator[str]:
    """Every pointer in `value`, in document order (the keys of `pretty(value).spans`)."""
    stack: list[tuple[Any, str]] = [(value, base)]
    while stack:
        node, pointer = stack.pop()
        yield pointer
        if isinstance(node, dict):
            stack.extend((child, f"{pointer}/{escape_pointer(key)}")
                         for key, child in reversed(list(node.items())))
        elif isinstance(node, (list, tuple)):
            stack.extend((node[i], f"{pointer}/{i}") for i in range(len(node) - 1, -1, -1))
