"""The only place tooldbg parses or prints JSON.

orjson is strict (no NaN, no lone surrogates, depth ≤ 1024) and reads integers wider than 64 bits
as floats; logs break all of these, so every parse failure becomes a `FormatError` with a human
location, and printing degrades to the standard library instead of raising.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from .errors import FormatError


def loads(data: bytes | str) -> Any:
    """Parse JSON text; raise FormatError naming line and column on failure."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise FormatError(_describe(err)) from None


def _describe(err: orjson.JSONDecodeError) -> str:
    msg = err.msg if hasattr(err, "msg") else str(err)
    return f"invalid JSON at line {err.lineno} column {err.colno}: {msg}"


def dumps(value: Any, *, indent: bool = False, sort_keys: bool = False) -> bytes:
    """Serialize to UTF-8 JSON bytes; non-JSON values and oversize ints degrade, never raise."""
    option = orjson.OPT_NON_STR_KEYS
    if indent:
        option |= orjson.OPT_INDENT_2
    if sort_keys:
        option |= orjson.OPT_SORT_KEYS
    try:
        return orjson.dumps(value, option=option)
    except (TypeError, orjson.JSONEncodeError):
        text = json.dumps(value, indent=2 if indent else None, sort_keys=sort_keys,
                          ensure_ascii=False, default=repr,
                          separators=None if indent else (",", ":"))
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").encode()


def dumps_str(value: Any, **kwargs: bool) -> str:
    """`dumps` as text."""
    return dumps(value, **kwargs).decode()


def try_loads(text: str) -> tuple[bool, Any]:
    """Parse `text` if it is JSON: (True, value) or (False, None). Used for tool arguments."""
    try:
        return True, loads(text)
    except FormatError:
        return False, None


def count_values(text: str) -> int:
    """How many JSON values `text` holds back to back (`{"a":1}{"b":2}` → 2); 0 when it is not a
    run of JSON values at all. orjson parses one document only, so this walks with the standard
    library's `raw_decode`."""
    decoder, pos, count = json.JSONDecoder(), 0, 0
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos == len(text):
            break
        try:
            _, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return 0
        count += 1
    return count


def resolve(value: Any, pointer: str) -> Any:
    """The value at a JSON pointer (RFC 6901); None when the path does not exist."""
    if not pointer:
        return value
    for token in pointer.lstrip("/").split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            value = value.get(token)
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return None
    return value
