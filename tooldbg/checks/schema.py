"""A small validator for the JSON Schema that tool declarations use (TD206).

Tool schemas are a modest subset of JSON Schema, written three ways: standard JSON Schema (OpenAI
`parameters`, Anthropic `input_schema`, Bedrock `inputSchema.json`, Gemini `parametersJsonSchema`),
and Gemini's OpenAPI-3 `parameters`, whose types are upper case (`OBJECT`, `STRING`), whose nullability
is `nullable: true`, and whose int64 bounds (`minItems`, `maxLength`…) arrive as decimal strings. This
validator reads all three and checks the keywords tool schemas use: `type` (a name or a list),
`nullable`, `enum`, `const`, `properties`, `required`, `additionalProperties`, `patternProperties`,
`items` (a schema or, draft-4 style, a list), `prefixItems`, `anyOf` / `oneOf` / `allOf`, `minimum` /
`maximum` and their exclusive forms, `minLength` / `maxLength`, `minItems` / `maxItems`, `pattern`,
and local `$ref`s (`#/$defs/…`, `#/definitions/…`). `format` and everything else is ignored.
Schemas and values are parsed JSON: an object is a `dict` (tested as one, not as any `Mapping`).

Decisions a careful user expects:

* A property the schema does not declare is an error only under `additionalProperties: false`; JSON
  Schema allows it otherwise, and so does every provider.
* `oneOf` is read as `anyOf`: a value that fits two alternatives is a schema-authoring matter, not a
  model's mistake. A value that fits none is reported once, at the value.
* An integer-valued float (`3.0`) is an integer, and `true` is not a number.
* A keyword whose operand is malformed (an uncompilable `pattern`, a non-numeric bound) is skipped:
  the validator judges the arguments, never the schema.

`validate(value, schema)` returns located messages such as `$.city: expected string, got number`,
each at a JSONPath-like location (`$`, `$.city`, `$.stops[2]`, `$['odd key']`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from ..jsonio import dumps_str
from ..shorten import clip, quote

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_DEPTH = 64  # $ref chains and nesting deeper than this are not followed
# Schema nodes visited per validation at most: bounds pathological schemas (`anyOf` of `$ref: "#"`),
# which would otherwise cost time exponential in `_MAX_DEPTH`; real tool schemas use a few hundred.
_BUDGET = 20_000


def validate(value: Any, schema: Any, *, limit: int = 20) -> list[str]:
    """Every way `value` breaks `schema` (at most `limit`), each `location: what is wrong`."""
    if _plain_object(value, schema):  # (most arguments: a flat object of declared leaves)
        return []
    out: list[str] = []
    for error in _Validator(schema).check(value, schema, (), 0):
        out.append(error)
        if len(out) >= limit:
            break
    return out


def type_of(value: Any) -> str:
    """The JSON type name of a parsed value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


#: Where a value is, as the validator goes down: () for the root, else (the parent's path, the key
#: or index). Written out (`_at`) only for an error: most values fit, and their paths are never read.
Path = tuple[Any, ...]


def _at(path: Path) -> str:
    """The path as messages show it: `$`, `$.city`, `$.stops[2]`, odd keys quoted (`$['odd key']`)."""
    keys: list[str | int] = []
    while path:
        path, key = path
        keys.append(key)
    out = "$"
    for key in reversed(keys):
        if isinstance(key, int):
            out += f"[{key}]"
        elif _IDENT.fullmatch(key):
            out += f".{key}"
        else:
            out += f"[{quote(key)}]"
    return out


class _Validator:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.budget = _BUDGET

    def check(self, value: Any, schema: Any, path: Path, depth: int) -> Iterator[str]:
        self.budget -= 1
        if depth > _MAX_DEPTH or self.budget < 0:
            return
        if schema is False:
            yield f"{_at(path)}: no value is allowed here"
            return
        if not isinstance(schema, dict):
            return  # `true`, `{}` or a malformed schema: anything goes
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = self.resolve(ref)
            if target is not None:
                yield from self.check(value, target, path, depth + 1)
        if value is None and schema.get("nullable") is True:
            return
        types = _types(schema.get("type"))
        if types is not None and not _is_any_type(value, types):
            yield f"{_at(path)}: expected {' or '.join(sorted(types))}, got {type_of(value)}"
            return  # one clear message rather than a cascade about the wrong-typed value
        if not _COMBINATORS.isdisjoint(schema):  # (each keyword group looked at only when present)
            yield from self.combinators(value, schema, path, depth)
        if "const" in schema and not _equal(value, schema["const"]):
            yield f"{_at(path)}: expected {_show(schema['const'])}, got {_show(value)}"
        enum = schema.get("enum")
        if isinstance(enum, list) and enum and not any(_equal(value, e) for e in enum):
            choices = ", ".join(_show(e) for e in enum[:8]) + (", …" if len(enum) > 8 else "")
            yield f"{_at(path)}: {_show(value)} is not one of {choices}"
        if isinstance(value, dict):
            yield from self.object(value, schema, path, depth)
        elif isinstance(value, list):
            yield from self.array(value, schema, path, depth)
        elif isinstance(value, str):
            if not _STRING_KEYWORDS.isdisjoint(schema):
                yield from _string(value, schema, path)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if not _NUMBER_KEYWORDS.isdisjoint(schema):
                yield from _number(value, schema, path)

    def combinators(self, value: Any, schema: Mapping[str, Any], path: Path, depth: int) -> Iterator[str]:
        for key in ("allOf",):
            branches = schema.get(key)
            if isinstance(branches, list):
                for branch in branches:
                    yield from self.check(value, branch, path, depth + 1)
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches and not any(
                    next(iter(self.check(value, b, path, depth + 1)), None) is None for b in branches):
                yield f"{_at(path)}: {_show(value, 40)} matches none of the {key} alternatives"

    def object(self, value: dict[str, Any], schema: Mapping[str, Any], path: Path,
               depth: int) -> Iterator[str]:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        if isinstance(required, list):
            for name in required:
                if isinstance(name, str) and name not in value:
                    yield f"{_at((path, name))}: required property is missing"
        patterns = schema.get("patternProperties")
        patterns = patterns if isinstance(patterns, dict) else {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                sub = properties[key]
                if _plainly_fits(item, sub):  # (most properties: a leaf of the right type)
                    self.budget -= 1  # (as `check` counts it)
                    continue
                yield from self.check(item, sub, (path, key), depth + 1)
                continue
            matched = False
            for pattern, sub in patterns.items():
                compiled = _compile(pattern)
                if compiled is not None and compiled.search(key):
                    matched = True
                    yield from self.check(item, sub, (path, key), depth + 1)
            if matched:
                continue
            if extra is False:
                yield f"{_at((path, key))}: property is not declared (additionalProperties is false)"
            elif isinstance(extra, dict):
                yield from self.check(item, extra, (path, key), depth + 1)

    def array(self, value: list[Any], schema: Mapping[str, Any], path: Path, depth: int) -> Iterator[str]:
        low, high = _count(schema.get("minItems")), _count(schema.get("maxItems"))
        if low is not None and len(value) < low:
            yield f"{_at(path)}: {len(value)} items, fewer than minItems {low}"
        if high is not None and len(value) > high:
            yield f"{_at(path)}: {len(value)} items, more than maxItems {high}"
        items, prefix = schema.get("items"), schema.get("prefixItems")
        if isinstance(items, list):  # draft-4 tuple form
            prefix, items = items, schema.get("additionalItems")
        start = 0
        if isinstance(prefix, list):
            for i, (item, sub) in enumerate(zip(value, prefix, strict=False)):
                yield from self.check(item, sub, (path, i), depth + 1)
            start = len(prefix)
        if items is False and len(value) > start:
            yield f"{_at(path)}: {len(value)} items, at most {start} allowed"
        elif isinstance(items, dict):
            for i in range(start, len(value)):
                yield from self.check(value[i], items, (path, i), depth + 1)

    def resolve(self, ref: str) -> Any:
        """A local reference (`#`, `#/$defs/x`, `#/definitions/x`); anything else is not followed."""
        if not ref.startswith("#"):
            return None
        node = self.root
        for token in ref[1:].lstrip("/").split("/") if ref != "#" else ():
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            else:
                return None
        return node


def _types(value: Any) -> frozenset[str] | None:
    """`type` as a set of lower-case names (Gemini writes `STRING`); None when absent or unknown."""
    if isinstance(value, str):  # (most schema nodes: one name, its set made once)
        return _ONE_TYPE.get(value.lower())
    names = value if isinstance(value, list) else None
    if not names:
        return None
    out = {n.lower() for n in names if isinstance(n, str)}
    out.discard("type_unspecified")
    return frozenset(out) if out and out <= _KNOWN else None


_KNOWN = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
_ONE_TYPE = {name: frozenset({name}) for name in _KNOWN}
#: The keywords `combinators`, `_string` and `_number` read: a node with none of them skips the step.
_COMBINATORS = frozenset({"allOf", "anyOf", "oneOf"})
_STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern"})
_NUMBER_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})


#: Keywords that constrain nothing the validator checks but the `type` beside them.
_PLAIN_KEYWORDS = frozenset({"type", "description", "title", "format", "default", "examples"})


def _plainly_fits(value: Any, schema: Any) -> bool:
    """Does `value` fit `schema` for a reason seen at once: a schema node with no keyword but a
    single `type` (and words), which the value has? `check` finds nothing wrong then (a property
    test holds it to that), and is skipped: a generator per property was most of validating."""
    if type(schema) is not dict or not schema.keys() <= _PLAIN_KEYWORDS:
        return False
    name = schema.get("type")
    if name is None:
        return True
    if not isinstance(name, str):
        return False
    name = name.lower()
    return name in _KNOWN and _is_type(value, name)


#: The keywords of an object schema `_plain_object` reads past: the plain ones, and those that say
#: which properties it has (extra and pattern ones matter only for a property it does not declare).
_PLAIN_OBJECT_KEYWORDS = _PLAIN_KEYWORDS | {"properties", "required", "additionalProperties",
                                            "patternProperties"}


def _plain_object(value: Any, schema: Any) -> bool:
    """Does `value` fit `schema` for a reason seen at once: an object schema with no keyword but its
    properties (and words), and an object that has every required property and no other than declared
    ones, each plainly fitting (`_plainly_fits`)? `check` finds nothing wrong then (a property test
    holds it to that): most tool calls are such, and their validation, generators for the object
    and its keywords, was three quarters of TD206."""
    if type(value) is not dict or type(schema) is not dict or not schema.keys() <= _PLAIN_OBJECT_KEYWORDS:
        return False
    name = schema.get("type")
    if name is not None and not (isinstance(name, str) and name.lower() == "object"):
        return False
    required = schema.get("required")
    if isinstance(required, list):
        for key in required:
            if isinstance(key, str) and key not in value:
                return False
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return not value
    for key, item in value.items():
        if not _plainly_fits(item, properties.get(key)):
            return False
    return True


def _is_any_type(value: Any, names: frozenset[str]) -> bool:
    for name in names:
        if _is_type(value, name):
            return True
    return False


def _is_type(value: Any, name: str) -> bool:
    if name == "string":  # (most arguments: strings)
        return isinstance(value, str)
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "array":
        return isinstance(value, list)
    return isinstance(value, dict)


def _string(value: str, schema: Mapping[str, Any], path: Path) -> Iterator[str]:
    low, high = _count(schema.get("minLength")), _count(schema.get("maxLength"))
    if low is not None and len(value) < low:
        yield f"{_at(path)}: {len(value)} characters, fewer than minLength {low}"
    if high is not None and len(value) > high:
        yield f"{_at(path)}: {len(value)} characters, more than maxLength {high}"
    pattern = schema.get("pattern")
    compiled = _compile(pattern) if isinstance(pattern, str) else None
    if compiled is not None and not compiled.search(value):
        yield f"{_at(path)}: {_show(value, 40)} does not match pattern {quote(pattern)}"


def _number(value: int | float, schema: Mapping[str, Any], path: Path) -> Iterator[str]:
    low, high = _bound(schema.get("minimum")), _bound(schema.get("maximum"))
    ex_low, ex_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if low is not None:
        if ex_low is True and value <= low:  # draft-4 boolean form
            yield f"{_at(path)}: {_show(value)} is not greater than {_show(low)}"
        elif value < low:
            yield f"{_at(path)}: {_show(value)} is less than minimum {_show(low)}"
    if high is not None:
        if ex_high is True and value >= high:
            yield f"{_at(path)}: {_show(value)} is not less than {_show(high)}"
        elif value > high:
            yield f"{_at(path)}: {_show(value)} is greater than maximum {_show(high)}"
    ex_low, ex_high = _bound(ex_low), _bound(ex_high)
    if ex_low is not None and value <= ex_low:
        yield f"{_at(path)}: {_show(value)} is not greater than exclusiveMinimum {_show(ex_low)}"
    if ex_high is not None and value >= ex_high:
        yield f"{_at(path)}: {_show(value)} is not less than exclusiveMaximum {_show(ex_high)}"


def _bound(value: Any) -> int | float | None:
    """A numeric keyword operand (Gemini may send it as a decimal string); None when malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return float(value) if any(c in value for c in ".eE") else int(value)
        except ValueError:
            return None
    return None


def _count(value: Any) -> int | None:
    bound = _bound(value)
    return int(bound) if bound is not None and bound >= 0 else None


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except (re.error, TypeError, RecursionError):
        return None


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _show(value: Any, width: int = 60) -> str:
    """A short JSON-ish rendering of a value for a message."""
    return clip(dumps_str(value), width)
