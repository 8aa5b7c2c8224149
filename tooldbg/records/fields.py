"""The fields of a recorded HTTP message — its URL, method, status and headers — each checked at
its JSON pointer under the message: a field of the wrong type is an error of the record, naming the
field and the type it had."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..jsonio import dumps_str
from ..shorten import quote


def kind(value: Any) -> str:
    """A JSON value's type as an error names it (`an object`, `a string`)."""
    from ..formats.reading import type_name  # (imported when an error is made: seldom)

    return type_name(value)


def string_field(path: str, part: dict[str, Any], key: str, location: str) -> str:
    """A string field of the HTTP record (`url`, `method`): absent or null is empty; another type
    is an error for the record (it names the field and the type it had)."""
    value = part.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(path, f"{location}/{key}", f"{key} must be a string, not {kind(value)}")
    return value


def status_code(path: str, value: Any, location: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 3:
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 999:
        raise InputError(path, location, f"status must be an HTTP status code, not {quote(value)}")
    return value


def header_map(path: str, value: Any, location: str) -> dict[str, str]:
    """Headers as a dict with lower-case names, from a dict or HAR's `[{name, value}]`. A header
    value that is a number or a boolean is written as JSON writes it; any other shape is an error
    for the record."""
    if value is None:
        return {}
    if isinstance(value, dict):
        pairs = [(k, v, f"{location}/{k}") for k, v in value.items()]
    elif isinstance(value, list):
        pairs = []
        for i, h in enumerate(value):
            if not isinstance(h, dict):
                raise InputError(path, f"{location}/{i}", f"a header must be an object, not {kind(h)}")
            pairs.append((h.get("name", ""), h.get("value", ""), f"{location}/{i}"))
    else:
        raise InputError(path, location, f"headers must be an object or a list, not {kind(value)}")
    out = {}
    for name, val, where in pairs:
        if not isinstance(name, str):
            raise InputError(path, where, f"a header name must be a string, not {kind(name)}")
        if isinstance(val, bool | int | float) or val is None:
            val = dumps_str(val)
        elif not isinstance(val, str):
            raise InputError(path, where, f"header {quote(name)} must be a string, not {kind(val)}")
        out[name.lower()] = val
    return out
