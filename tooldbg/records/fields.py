"""The fields of a recorded HTTP message — its URL, method, status and headers — each checked at
its JSON pointer under the message: a field of the wrong type is an error of the record, naming the
field and the type it had."""

from __future__ import annotations

from collections.abc import Iterable
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
    for the record (at the header's pointer, made only then)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        pairs: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list):
        for i, h in enumerate(value):
            if not isinstance(h, dict):
                raise InputError(path, f"{location}/{i}", f"a header must be an object, not {kind(h)}")
        pairs = [(h.get("name", ""), h.get("value", "")) for h in value]
    else:
        raise InputError(path, location, f"headers must be an object or a list, not {kind(value)}")
    out = {}
    for i, (name, val) in enumerate(pairs):
        if not isinstance(name, str):
            raise InputError(path, _header_at(location, value, i, name),
                             f"a header name must be a string, not {kind(name)}")
        if not isinstance(val, str):
            if not isinstance(val, bool | int | float) and val is not None:
                raise InputError(path, _header_at(location, value, i, name),
                                 f"header {quote(name)} must be a string, not {kind(val)}")
            val = dumps_str(val)
        out[name.lower()] = val
    return out


def _header_at(location: str, headers: dict[Any, Any] | list[Any], index: int, name: Any) -> str:
    """The pointer of a header: by its name in an object, its index in a list."""
    return f"{location}/{name}" if isinstance(headers, dict) else f"{location}/{index}"
