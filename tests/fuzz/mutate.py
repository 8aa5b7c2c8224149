"""Mutations that know the containers tooldbg reads, and mutations that know nothing.

`mutate(data, rng)` returns new bytes. It recognises the input's container and mutates its
structure (so most mutants still parse and reach the readers, the stitcher, the checks and the
writers), or flips bytes (so the framing code meets what it never expects):

* JSON: a node of the tree is replaced (another type, an edge value, a subtree of another seed,
  a deep nesting of itself or of plain arrays/objects, a long or hostile string), deleted,
  duplicated, renamed, reordered; strings that hold a document of their own (HAR `postData.text`,
  recorder bodies: JSON, SSE, base64 AWS event streams) are mutated as that document;
* JSON Lines: one line mutated as JSON, lines dropped, repeated, swapped, cut, joined, replaced by
  lines of other seeds, deep or garbage lines inserted;
* SSE: an event's payload mutated as JSON, events dropped, repeated, reordered, renamed, split,
  line endings changed, the stream cut mid-event;
* AWS event stream: frames re-encoded with valid CRCs after their payload or headers are mutated
  (so the mutant gets past the checksums), or frames cut, dropped, duplicated, corrupted;
* bytes: bit flips, interesting bytes, deletions, insertions, repeats, truncation.

Everything is driven by the `random.Random` passed in, so an input is reproduced from its seed.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import re
import struct
import zlib
from collections.abc import Callable
from functools import cache
from typing import Any

from .seeds import seeds

# ----------------------------------------------------------------------------- edge values

#: Depths around the limits that matter: tooldbg's own, orjson's serializer (254/255), Python's
#: recursion limit (1000) and orjson's parser (1024).
DEPTHS = (20, 60, 127, 128, 129, 199, 200, 201, 250, 254, 255, 256, 300, 500, 900, 1000, 1020, 1023)

HOSTILE = ["", " ", "\t\n", "\x00", "\x1b[2J\x1b]0;t\x07", "[bold red]x[/]", "[/]", "\u202eevil",
           "\ud800", "\udfff", "é" * 3, "🙂", "null", "true", "{}", "[]", '{"a":1}', '"x"', "[DONE]",
           "12", "-1", "1e999", "NaN", "data: x", "event: y", "\r\n\r\n", "a" * 300, "toolu_01",
           "call_0", "tool_use", "function", "assistant", "user", "tool", "model", "system",
           "image/png", "base64", "data:image/png;base64,AAAA", "https://x/?key=secret",
           "{\"a\":" * 40, "\\u0000", "%00", "../../etc/passwd", "9" * 5000, '{"n": ' + "1" * 5000 + "}"]

SCALARS: list[Any] = [None, True, False, 0, 1, -1, 2, 255, 2 ** 31, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63,
                      2 ** 64, 2 ** 70, -(2 ** 63) - 1, 0.5, -0.0, 1e308, 3.14]


def deep(depth: int, rng: random.Random, leaf: Any = None) -> Any:
    """A value nested `depth` levels (objects, arrays, or both), built without recursion."""
    style = rng.choice(("object", "array", "mixed", "keys"))
    keys = _pool().keys
    value = leaf if leaf is not None else rng.choice([1, "x", None, {}, []])
    for _ in range(depth):
        if style == "array" or (style == "mixed" and rng.random() < 0.5):
            value = [value]
        else:
            value = {(rng.choice(keys) if style == "keys" else "a"): value}
    return value


def self_nested(node: Any, depth: int, rng: random.Random) -> Any:
    """`node` nested inside a copy of itself `depth` times, at one of its own container slots: a
    result whose content holds a result whose content… — deep in the shape the readers walk."""
    slots = [k for k, v in (node.items() if isinstance(node, dict) else enumerate(node))
             if isinstance(v, dict | list)] if isinstance(node, dict | list) else []
    if not slots:
        return deep(depth, rng, node)
    slot = rng.choice(slots)
    # Every level repeats the node's other content: keep it only while the whole stays near 1 MB.
    siblings = len(dumps(node)) * depth < 1_000_000
    value = node
    for _ in range(depth):
        if siblings:
            shell = dict(node) if isinstance(node, dict) else list(node)
        else:
            shell = {slot: None, **({"type": node["type"]} if "type" in node else {})} \
                if isinstance(node, dict) else [None] * (slot + 1)
        child = node[slot]
        if isinstance(child, list):
            shell[slot] = [value, *child[1:]] if siblings and child and rng.random() < 0.5 else [value]
        else:
            shell[slot] = value
        value = shell
    return value


def long_string(rng: random.Random) -> str:
    kind = rng.randrange(5)
    n = rng.choice((1000, 5000, 20000, 100000))
    if kind == 0:
        return "x" * n
    if kind == 1:
        return "\n" * n  # a value of many lines (a URL or a header with 200,000 lines is measured)
    if kind == 2:
        return "é🙂" * (n // 2)
    if kind == 3:
        return "line\n" * (n // 5)
    return "".join(rng.choice("ab \n\x1b[]{}\"\\") for _ in range(min(n, 5000)))


def scalar(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.45:
        return rng.choice(SCALARS)
    if r < 0.8:
        return rng.choice(HOSTILE)
    if r < 0.9:
        return rng.choice(_pool().strings)
    return rng.choice(_pool().keys)


def random_value(rng: random.Random, node: Any = None) -> Any:
    r = rng.random()
    if r < 0.35:
        return scalar(rng)
    if r < 0.55:
        return _copy(rng.choice(_pool().subtrees))
    if r < 0.65:
        return rng.choice([{}, [], [None], {"": None}, {"type": None}, [[]], [{}], {"type": "text"}])
    if r < 0.75:
        return long_string(rng)
    if r < 0.9 or node is None:
        return deep(rng.choice(DEPTHS), rng)
    return self_nested(node, rng.choice(DEPTHS), rng)


# ------------------------------------------------------------------------ the seed pool


class _Pool:
    def __init__(self) -> None:
        self.keys: list[str] = []
        self.strings: list[str] = []
        self.subtrees: list[Any] = []
        self.lines: list[str] = []
        self.events: list[str] = []
        keys: set[str] = set()
        strings: set[str] = set()
        for seed in seeds():
            text = seed.data.decode("utf-8", "replace")
            for line in text.splitlines():
                if line.startswith("{") and len(line) < 20000:
                    self.lines.append(line)
                if line.startswith("event:"):
                    self.events.append(line[6:].strip())
            for value in _documents(text):
                for node in _nodes(value):
                    if isinstance(node, dict):
                        keys.update(node)
                    elif isinstance(node, str) and len(node) < 80:
                        strings.add(node)
                    if isinstance(node, dict | list) and len(self.subtrees) < 20000:
                        size = len(json.dumps(node))
                        if size < 3000:
                            self.subtrees.append(node)
        self.keys = sorted(keys)
        self.strings = sorted(strings)
        self.events = sorted(set(self.events)) or ["message"]


def _documents(text: str) -> list[Any]:
    """The JSON values in a seed: the document, its lines, its SSE payloads, and the documents in
    its strings (one level)."""
    out = []
    try:
        out.append(json.loads(text))
    except ValueError:
        for line in text.splitlines():
            line = line.removeprefix("data:").strip()
            if line.startswith(("{", "[")):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    inner = []
    for value in out:
        for node in _nodes(value):
            if isinstance(node, str) and node[:1] in "{[":
                try:
                    inner.append(json.loads(node))
                except (ValueError, RecursionError):
                    pass
    return out + inner


@cache
def _pool() -> _Pool:
    return _Pool()


def _nodes(value: Any) -> list[Any]:
    """Every node of a JSON tree, without recursion."""
    out, stack = [], [value]
    while stack:
        node = stack.pop()
        out.append(node)
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def _slots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) pair of a tree, without recursion: where a node can be replaced."""
    out, stack = [], [value]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            out.append((node, key))
            if isinstance(child, dict | list):
                stack.append(child)
    return out


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


# --------------------------------------------------------------------------- JSON in/out


def dumps(value: Any, rng: random.Random | None = None, *, one_line: bool = False) -> str:
    """JSON text the way various clients write it; values too deep for the standard library's
    encoder are written by `_dumps_deep`."""
    # Indented output is rarer, and only for shallow values: the standard library writes it in
    # Python, with a generator per level that every piece of output passes through (quadratic).
    indent = None if one_line or rng is None or rng.random() < 0.9 or _depth(value) > 40 \
        else rng.choice((1, 2, "\t"))
    ascii_only = rng is not None and rng.random() < 0.3
    separators = (",", ":") if rng is not None and rng.random() < 0.5 else None
    try:
        return json.dumps(value, indent=indent, ensure_ascii=ascii_only, separators=separators)
    except (RecursionError, ValueError):
        return _dumps_deep(value)


def _dumps_deep(value: Any) -> str:
    out: list[str] = []
    stack: list[Any] = [("value", value)]
    while stack:
        kind, item = stack.pop()
        if kind == "raw":
            out.append(item)
        elif isinstance(item, dict):
            stack.append(("raw", "}"))
            entries = list(item.items())
            for i, (k, v) in enumerate(reversed(entries)):
                stack.append(("value", v))
                stack.append(("raw", json.dumps(str(k)) + ":"))
                if i < len(entries) - 1:
                    stack.append(("raw", ","))
            stack.append(("raw", "{"))
        elif isinstance(item, list):
            stack.append(("raw", "]"))
            for i, v in enumerate(reversed(item)):
                stack.append(("value", v))
                if i < len(item) - 1:
                    stack.append(("raw", ","))
            stack.append(("raw", "["))
        else:
            out.append(json.dumps(item))
    return "".join(out)


def loads(text: str | bytes) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


# ------------------------------------------------------------------------- classification

_SSE = re.compile(r"^\s*(?::[^\n]*\n\s*)*(data|event|id|retry):", re.ASCII)


def is_eventstream(data: bytes) -> bool:
    if len(data) < 16:
        return False
    total, headers = struct.unpack_from(">II", data)
    return total >= 16 and headers <= total - 16 and zlib.crc32(data[:8]) == struct.unpack_from(">I", data, 8)[0]


def classify(data: bytes) -> str:
    if is_eventstream(data):
        return "eventstream"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "bytes"
    if _SSE.match(text[:4096]):
        return "sse"
    ok, _ = loads(text)
    if ok:
        return "json"
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and lines[0].lstrip().startswith(("{", "[")):
        return "jsonl"
    return "bytes"


# -------------------------------------------------------------------------------- mutators


def mutate(data: bytes, rng: random.Random, *, rounds: int | None = None) -> bytes:
    """One mutant of `data`: one to three stacked mutations (structured 4 times in 5)."""
    for _ in range(rounds if rounds is not None else rng.choice((1, 1, 1, 2, 3))):
        if rng.random() < 0.8:
            data = mutate_structured(data, rng)
        else:
            data = mutate_bytes(data, rng)
    return data


def mutate_structured(data: bytes, rng: random.Random) -> bytes:
    kind = classify(data)
    if kind == "eventstream":
        return mutate_eventstream(data, rng)
    if kind == "bytes":
        return mutate_bytes(data, rng)
    text = data.decode("utf-8")
    if kind == "sse":
        return mutate_sse(text, rng).encode("utf-8", "surrogatepass")
    if kind == "jsonl":
        return mutate_jsonl(text, rng).encode("utf-8", "surrogatepass")
    _, value = loads(text)
    return dumps(mutate_tree(value, rng), rng).encode("utf-8", "surrogatepass")


def mutate_tree(value: Any, rng: random.Random) -> Any:
    """Mutate a parsed JSON value (in place where possible); returns the new root."""
    slots = _slots(value)
    if not slots:
        return random_value(rng, value)
    documents = [(c, k) for c, k in slots if isinstance(c[k], str) and _is_document(c[k])]
    if documents and rng.random() < 0.5:
        container, key = rng.choice(documents)
        container[key] = mutate_document(container[key], rng)
        return value
    container, key = rng.choice(slots)
    node = container[key]
    op = rng.random()
    if op < 0.45:
        container[key] = random_value(rng, node)
    elif op < 0.55:
        del container[key]
    elif op < 0.62 and isinstance(node, list) and node:
        node.extend(_copy(rng.choice(node)) for _ in range(rng.choice((1, 2, 50))))
        if rng.random() < 0.5:
            rng.shuffle(node)
    elif op < 0.68 and isinstance(container, dict):
        new_key = rng.choice(_pool().keys + HOSTILE[:12])
        container[new_key] = container.pop(key)
    elif op < 0.74 and isinstance(container, dict):
        container[rng.choice(_pool().keys)] = _copy(node) if isinstance(node, dict | list) else node
    elif op < 0.8:
        container[key] = [node] if rng.random() < 0.5 else {"value": node}
    elif op < 0.86 and isinstance(node, str):
        container[key] = _mutate_string(node, rng)
    elif op < 0.92 and isinstance(node, int | float) and not isinstance(node, bool):
        container[key] = rng.choice((node + 1, node - 1, -node, node * 2 ** 40, float(node), str(node)))
    else:
        container[key] = self_nested(node, rng.choice(DEPTHS), rng)
    return value


def _mutate_string(text: str, rng: random.Random) -> str:
    op = rng.randrange(6)
    if op == 0 and text:
        i = rng.randrange(len(text))
        return text[:i] + text[i + 1:]
    if op == 1:
        return text + rng.choice(HOSTILE)
    if op == 2:
        return text.upper() if text != text.upper() else text.lower()
    if op == 3:
        return f" {text} "
    if op == 4 and text:
        return text[: rng.randrange(len(text))]
    return text * rng.choice((2, 100))


def _is_document(text: str) -> bool:
    head = text[:64].lstrip()
    return head.startswith(("{", "[", "data:", "event:", ":")) or (
        len(text) > 16 and text.startswith("AAAA") and _b64(text) is not None)


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def mutate_document(text: str, rng: random.Random) -> str:
    """A body kept as a string (HAR, recorder files): mutated as the document it holds."""
    raw = _b64(text) if text.startswith("AAAA") else None
    if raw is not None:
        return base64.b64encode(mutate(raw, rng, rounds=1)).decode()
    return mutate(text.encode("utf-8", "surrogatepass"), rng, rounds=1).decode("utf-8", "replace")


def mutate_jsonl(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    filled = [i for i, ln in enumerate(lines) if ln.strip()] or [0]
    i = rng.choice(filled)
    op = rng.randrange(10)
    if op <= 3:
        ok, value = loads(lines[i])
        lines[i] = dumps(mutate_tree(value, rng), one_line=True) if ok else lines[i][: len(lines[i]) // 2]
    elif op == 4:
        del lines[i]
    elif op == 5:
        lines.insert(i, lines[i])
    elif op == 6:
        j = rng.choice(filled)
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 7:
        lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    elif op == 8:
        pool = _pool().lines
        lines.insert(i, rng.choice(pool) if pool and rng.random() < 0.5 else
                     dumps({"request": {"body": deep(rng.choice(DEPTHS), rng)}}, one_line=True))
    else:
        lines.insert(i, rng.choice(("", "{", "[1,2", "garbage", "null", "[]", "{}", "\x00", '"x"',
                                    '{"request": null, "response": 3}')))
    return "\n".join(lines)


_EVENT_SPLIT = re.compile(r"(\r\n\r\n|\n\n|\r\r)")


def mutate_sse(text: str, rng: random.Random) -> str:
    pieces = _EVENT_SPLIT.split(text)
    events = pieces[0::2]
    seps = pieces[1::2] + [""]
    idx = [i for i, e in enumerate(events) if e.strip()] or [0]
    i = rng.choice(idx)
    op = rng.randrange(10)
    if op <= 3:
        events[i] = _mutate_sse_event(events[i], rng)
    elif op == 4:
        del events[i], seps[i]
    elif op == 5:
        events.insert(i, events[i])
        seps.insert(i, seps[i] or "\n\n")
    elif op == 6:
        j = rng.choice(idx)
        events[i], events[j] = events[j], events[i]
    elif op == 7:
        return text[: rng.randrange(len(text) + 1)]
    elif op == 8:
        return text.replace("\n", rng.choice(("\r\n", "\r", "\n\n", "")))
    else:
        events.insert(i, rng.choice((
            "data: [DONE]", ": keepalive", "event: error\ndata: {\"error\": {\"message\": \"x\"}}",
            "data: " + dumps(deep(rng.choice(DEPTHS), rng), one_line=True), "data: {", "retry: x",
            f"event: {rng.choice(_pool().events)}\ndata: {{}}", "data:", "id: 1")))
        seps.insert(i, "\n\n")
    return "".join(e + s for e, s in zip(events, seps, strict=False))


def _mutate_sse_event(event: str, rng: random.Random) -> str:
    lines = event.splitlines()
    data_lines = [i for i, ln in enumerate(lines) if ln.startswith("data:")]
    if data_lines and rng.random() < 0.7:
        i = rng.choice(data_lines)
        ok, value = loads(lines[i][5:])
        if ok:
            lines[i] = "data: " + dumps(mutate_tree(value, rng), one_line=True)
        elif rng.random() < 0.5:
            lines[i] = "data: " + lines[i][5:][::-1]
        else:  # split one payload over several data: lines
            payload = lines[i][5:]
            cut = rng.randrange(len(payload) + 1)
            lines[i: i + 1] = ["data:" + payload[:cut], "data:" + payload[cut:]]
    else:
        names = [i for i, ln in enumerate(lines) if ln.startswith("event:")]
        if names:
            lines[rng.choice(names)] = f"event: {rng.choice(_pool().events + HOSTILE[:6])}"
        else:
            lines.insert(0, f"event: {rng.choice(_pool().events)}")
    return "\n".join(lines)


# ------------------------------------------------------------------------ AWS event stream


def _frames(data: bytes) -> list[tuple[list[tuple[str, int, bytes]], bytes]] | None:
    """Decode frames as (headers as (name, type, raw value), payload); None if not well formed."""
    out, offset = [], 0
    try:
        while offset < len(data):
            total, hlen = struct.unpack_from(">II", data, offset)
            if total < 16 or offset + total > len(data):
                return None
            raw = data[offset + 12: offset + 12 + hlen]
            payload = data[offset + 12 + hlen: offset + total - 4]
            headers, pos = [], 0
            while pos < len(raw):
                n = raw[pos]
                name = raw[pos + 1: pos + 1 + n].decode("utf-8", "replace")
                pos += 1 + n
                kind = raw[pos]
                pos += 1
                if kind in (6, 7):
                    size = 2 + int.from_bytes(raw[pos: pos + 2], "big")
                else:
                    size = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}[kind]
                headers.append((name, kind, raw[pos: pos + size]))
                pos += size
            out.append((headers, payload))
            offset += total
    except (struct.error, IndexError, KeyError):
        return None
    return out


def encode_frame(headers: list[tuple[str, int, bytes]], payload: bytes) -> bytes:
    """One frame with correct lengths and CRCs (headers' raw values include their length prefix)."""
    raw = b"".join(bytes([len(n.encode())]) + n.encode() + bytes([k]) + v for n, k, v in headers)
    total = 16 + len(raw) + len(payload)
    prelude = struct.pack(">II", total, len(raw))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + raw + payload
    return body + struct.pack(">I", zlib.crc32(body))


def string_header(name: str, value: str) -> tuple[str, int, bytes]:
    encoded = value.encode("utf-8", "surrogatepass")
    return (name, 7, len(encoded).to_bytes(2, "big") + encoded)


def mutate_eventstream(data: bytes, rng: random.Random) -> bytes:
    frames = _frames(data)
    if not frames:
        return mutate_bytes(data, rng)
    i = rng.randrange(len(frames))
    headers, payload = frames[i]
    op = rng.randrange(9)
    if op <= 3:
        ok, value = loads(payload)
        payload = (dumps(mutate_tree(value, rng), one_line=True).encode("utf-8", "surrogatepass") if ok
                   else mutate_bytes(payload, rng))
        frames[i] = (headers, payload)
    elif op == 4:
        name = rng.choice((":event-type", ":message-type", ":exception-type", ":error-code",
                           ":error-message", ":content-type"))
        value = rng.choice(["event", "exception", "error", "messageStart", "contentBlockDelta",
                            "messageStop", "throttlingException", *HOSTILE[:8]])
        headers = [h for h in headers if h[0] != name] + [string_header(name, value)]
        frames[i] = (headers, payload)
    elif op == 5 and headers:
        # A header of a type the reader must skip or reject: an unknown type, a short value.
        j = rng.randrange(len(headers))
        name, kind, value = headers[j]
        headers[j] = (name, rng.choice((2, 3, 4, 5, 8, 9, 10, 200)), value[: rng.randrange(len(value) + 1)])
        frames[i] = (headers, payload)
    elif op == 6:
        del frames[i]
    elif op == 7:
        frames.insert(i, frames[i])
    else:
        out = b"".join(encode_frame(h, p) for h, p in frames)
        return out[: rng.randrange(len(out) + 1)]
    return b"".join(encode_frame(h, p) for h, p in frames) or data[:0]


# ------------------------------------------------------------------------------ bytes


_INTERESTING = [b"\x00", b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\xc3", b"\xed\xa0\x80", b"\x1b[2J",
                b"\r", b"\n", b"\r\n\r\n", b"{", b"}", b"[", b"]", b'"', b"\\", b"\\u0000", b"\\ud800",
                b"data: ", b"\n\n", b"NaN", b"1e999", b"-", b"0" * 30, b"9" * 5000]


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    ops: list[Callable[[], None]] = []

    def flip() -> None:
        if buf:
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)

    def interesting() -> None:
        i = rng.randrange(len(buf) + 1)
        buf[i:i] = rng.choice(_INTERESTING)

    def delete() -> None:
        if buf:
            i = rng.randrange(len(buf))
            del buf[i: i + rng.choice((1, 2, 8, 64, 512))]

    def repeat() -> None:
        if buf:
            i = rng.randrange(len(buf))
            chunk = bytes(buf[i: i + rng.choice((1, 4, 32, 256))])
            buf[i:i] = chunk * rng.choice((2, 10, 100))

    def truncate() -> None:
        del buf[rng.randrange(len(buf) + 1):]

    def overwrite() -> None:
        if buf:
            i = rng.randrange(len(buf))
            value = rng.choice(_INTERESTING)
            buf[i: i + len(value)] = value

    ops = [flip, flip, interesting, interesting, delete, repeat, truncate, overwrite]
    for _ in range(rng.choice((1, 1, 2, 4, 8))):
        rng.choice(ops)()
    return bytes(buf)
