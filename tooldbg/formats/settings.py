"""The model and the sampling settings of a request, in every format: read out of the fields the
format's `Facts.settings` names into `model.Settings`, written back at the target's fields, and the
one wording every request-level loss uses (`request_loss`).

A value is never invented: a setting the target has no field for is reported, and the one value a
writer chooses (Anthropic's required `max_tokens`, when the source set none) is reported as a default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..model import Conversation, Loss, Settings
from ..shorten import quote

#: `Facts.settings`: each setting → the spellings of its field (key paths), the first one written.
Paths = Mapping[str, tuple[tuple[str, ...], ...]]
Lookup = Callable[[Mapping[str, Any], str], Any]


def request_loss(name: str, value: Any, verdict: str, why: str) -> str:
    """The one wording of a request-level loss, `NAME: VALUE — VERDICT: WHY`:
    `max_tokens: 4096 — a default: Anthropic requires max_tokens and the source had none`,
    `stop: ['END'] — not carried: OpenAI Responses has no field for it`."""
    shown = "none" if value is None else quote(list(value) if isinstance(value, tuple) else value)
    return f"{name}: {shown} — {verdict}: {why}"


# ------------------------------------------------------------------------------------ reading


def _valid(name: str, value: Any) -> Any:
    """The setting's canonical value, or None when `value` is not one (left to the format's meta)."""
    if isinstance(value, bool):
        return None
    if name == "max_tokens":
        return value if isinstance(value, int) else None
    if name == "stop":
        if isinstance(value, str):
            return (value,)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        return None
    return value if isinstance(value, int | float) else None


def _plain(obj: Mapping[str, Any], key: str) -> Any:
    return obj.get(key)


def read_settings(body: Mapping[str, Any], paths: Paths,
                  lookup: Lookup = _plain) -> tuple[Settings, list[tuple[str, ...]]]:
    """The settings `body` sets at `paths` (`lookup` finds a key: Gemini also takes snake_case), and
    the fields read that way, for the reader to keep out of meta. A value of the wrong type is no
    setting (it stays in meta, for the format's own writer). A value read from an older spelling
    stays in meta too: the format's writer writes it back under the name it was recorded with."""
    values: dict[str, Any] = {}
    taken: list[tuple[str, ...]] = []
    for name, spellings in paths.items():
        for n, path in enumerate(spellings):
            node: Any = body
            for key in path:  # (a dict told apart first: a Mapping's ABC check was half the read)
                node = lookup(node, key) if type(node) is dict or isinstance(node, Mapping) else None
            if node is None:
                continue
            value = _valid(name, node)
            if value is not None:
                values[name] = value
                if n == 0:
                    taken.append(path)
            break
    return Settings(**values), taken


def without(params: Mapping[str, Any], paths: list[tuple[str, ...]]) -> dict[str, Any]:
    """`params` without the fields at `paths`; an object left empty goes too (nothing is mutated)."""
    out = dict(params)
    for path in paths:
        if len(path) == 1:
            out.pop(path[0], None)
            continue
        inner = out.get(path[0])
        if isinstance(inner, Mapping):
            rest = without(inner, [path[1:]])
            if rest:
                out[path[0]] = rest
            else:
                del out[path[0]]
    return out


# ------------------------------------------------------------------------------------ writing


def _put(body: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set `path` in `body`, copying every object on the way (they may be a conversation's meta)."""
    node = body
    for key in path[:-1]:
        inner = node.get(key)
        node[key] = dict(inner) if isinstance(inner, Mapping) else {}
        node = node[key]
    node[path[-1]] = value


_MISSING = object()


def _at(body: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    """The value at `path` in `body`, or `_MISSING`."""
    node: Any = body
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


def _has(body: Mapping[str, Any], path: tuple[str, ...]) -> bool:
    return _at(body, path) is not _MISSING


def _holds(body: Mapping[str, Any], path: tuple[str, ...], name: str, value: Any) -> bool:
    """`body` holds setting `name` at `path` with `value` (put back from the format's own meta)."""
    found = _at(body, path)
    return found is not _MISSING and _valid(name, found) == value


def lifted(conv: Conversation, own: str,
           paths_of: Callable[[str], Paths | None]) -> tuple[Settings, dict[str, Any]]:
    """The conversation's settings, completed from those a format's meta holds (canonical documents
    written before `settings` existed kept them there: `{"anthropic": {"max_tokens": 1024}}`), the
    writer's `own` format first; and the meta without them. A value that disagrees with the one
    taken stays in the meta, to be reported. `paths_of(origin)`: the origin's `Facts.settings`."""
    if not conv.meta:  # (most conversations: nothing to complete them from)
        return conv.settings, {}
    values = dict(conv.settings.items())
    rest: dict[str, Any] = {}
    for origin in sorted(conv.meta, key=lambda name: name != own):
        meta = conv.meta[origin]
        paths = paths_of(origin) if isinstance(meta, Mapping) else None
        if not paths:
            rest[origin] = meta
            continue
        found, taken = read_settings(meta, paths)
        agreed = []
        for name, value in found.items():
            values.setdefault(name, value)
            if values[name] == value:
                agreed += [path for path in taken if path in paths[name]]
        rest[origin] = without(meta, agreed)
    return Settings(**values), rest


def _outside(name: str, value: Any, ranges: Mapping[str, tuple[int | float, int | float]],
             title: str) -> str | None:
    """Why `value` is outside what `title` documents for setting `name`, or None when it is not."""
    if name not in ranges:
        return None
    low, high = ranges[name]
    if name == "stop":
        return None if low <= len(value) <= high else f"{title} takes {low} to {high} stop sequences"
    return None if low <= value <= high else f"{title} accepts {low} to {high}"


def write_settings(body: dict[str, Any], settings: Settings, title: str, paths: Paths,
                   losses: list[Loss], *, ranges: Mapping[str, tuple[int | float, int | float]],
                   max_tokens_default: int | None = None, max_tokens_key: str | None = None) -> None:
    """Write each setting at its first spelling in `paths` (unless the body already holds it under
    another spelling, put back from the format's own meta: a request that set both spellings apart,
    as OpenAI refuses, keeps both); report those `title` has no field for or
    does not accept (`ranges`), and a required `max_tokens` the source did not set, written as a
    default. `max_tokens_key` overrides the key of `max_tokens` (a profile that documents another)."""
    for name, value in settings.items():
        spellings = paths.get(name)
        outside = _outside(name, value, ranges, title) if spellings else None
        if not spellings:
            losses.append(Loss(request_loss(name, value, "not carried", f"{title} has no field for it")))
        elif outside is not None:
            losses.append(Loss(request_loss(name, value, "not carried", outside)))
        elif not any(_holds(body, path, name, value) for path in spellings[1:]):
            path = (max_tokens_key,) if name == "max_tokens" and max_tokens_key else spellings[0]
            _put(body, path, list(value) if isinstance(value, tuple) else value)
    required = paths["max_tokens"][0] if max_tokens_default is not None else None
    if required is not None and settings.max_tokens is None and not _has(body, required):
        _put(body, required, max_tokens_default)
        losses.append(Loss(request_loss("max_tokens", max_tokens_default, "a default",
                                        f"{title} requires max_tokens and the source had none")))


def write_model(body: dict[str, Any], conv: Conversation, title: str, key: str | None,
                losses: list[Loss]) -> None:
    """The model, where the format's body names it; a body that needs one and gets none is reported
    (`convert` exits 1 on it). Gemini and Bedrock take the model in the URL: nothing to write."""
    if key is None:
        return
    if conv.model:
        body[key] = conv.model
    else:
        losses.append(Loss(request_loss("model", None, "missing", f"{title} requires {key} in the request "
                                        "body and the conversation names none (give one with --model)")))


def report_parameters(name: str, title: str, settings: Settings, meta: Mapping[str, Any],
                      losses: list[Loss], paths_of: Callable[[str], Paths | None]) -> None:
    """Report, one line each, the request parameters other formats kept in the conversation's meta
    (`lifted`: the settings out of it): only their writers can put them back. A parameter that is a
    setting's other spelling, carried by `settings` with the same value, is not lost."""
    for origin in sorted(set(meta) - {name}):
        values = meta[origin]
        if not isinstance(values, Mapping):
            continue
        carried = {path[0]: setting for setting, spellings in (paths_of(origin) or {}).items()
                   for path in spellings if len(path) == 1}
        for key in sorted(map(str, values)):
            setting = carried.get(key)
            why = f"{title} has no field for this {origin} parameter"
            if setting is not None and getattr(settings, setting) is not None:
                if getattr(settings, setting) == _valid(setting, values[key]):
                    continue
                why = f"the request carries another {setting}"
            losses.append(Loss(request_loss(key, values[key], "not carried", why)))
