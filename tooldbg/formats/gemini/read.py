"""Reading Gemini `generateContent` request and response bodies into the canonical model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...errors import FormatError
from ...model import Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text, Tool, ToolChoice, Turn
from ...shorten import quote
from ...source import Source
from ..base import Request, Response
from ..meta import meta_for
from ..reading import (
    expect_dict,
    expect_list,
    link_read,
    linked_after,
    listed_from,
    media_kind,
    optional_field,
    optional_list,
    split_results,
    type_name,
)
from ..settings import read_settings
from .common import _SIGNATURE, FACTS, NAME, _camel, _extra, _find, _get, _read_error, _snake, _Spec

_ROLES = {None: "user", "user": "user", "model": "assistant", "function": "user", "system": "system"}
_MODES_IN = {"AUTO": "auto", "ANY": "required", "NONE": "none"}


def _text_field(obj: Mapping[str, Any], name: str, source: Source) -> str | None:
    """The string field `name`, under whichever spelling the object uses."""
    return optional_field(obj, _find(obj, name)[0], str, source)


def _kept(obj: Mapping[str, Any], used: _Spec, **flags: Any) -> dict[str, Any]:
    """A node's meta: `{"gemini": {flags…, "extra": {unconsumed wire keys}}}`, or {}."""
    extra = _extra(obj, used)
    return meta_for(NAME, {**flags, **({"extra": extra} if extra else {})})


def sniff(body: Any, side: str) -> bool:
    if not isinstance(body, dict):
        return False
    # A body with none of the fields' spellings is not looked up by `_get`, which works out each
    # snake_case spelling by a regex (two thirds of telling another format's body from Gemini's).
    if side == "request":
        return not _REQUEST_SPELLINGS.isdisjoint(body) and isinstance(_get(body, "contents"), list)
    error = body.get("error")
    return ((not _RESPONSE_SPELLINGS.isdisjoint(body)
             and (_get(body, "candidates") is not None or _get(body, "promptFeedback") is not None))
            or isinstance(error, dict) and isinstance(error.get("status"), str))


#: Every spelling of the fields `sniff` looks up (`_find`: lowerCamelCase or snake_case).
_REQUEST_SPELLINGS = frozenset({"contents", _snake("contents")})
_RESPONSE_SPELLINGS = frozenset({"candidates", _snake("candidates"), "promptFeedback",
                                 _snake("promptFeedback")})


def read_request(body: Any, source: Source, *, start: int = 0, prior: tuple[Turn, ...] = ()) -> Request:
    """A `generateContent` request body: contents, systemInstruction, tools, toolConfig (`start`,
    `prior`: see `base.Format.read_request`)."""
    body = expect_dict(body, source, "a Gemini request body")
    system, system_used = _read_system(body, source)
    key, contents = _find(body, "contents")
    turns: list[Turn] = []
    for i, raw in listed_from(optional_list(contents, source.child(key), "contents"), start):
        at = source.child(key, i)
        content = expect_dict(raw, at, "a content")
        role = _get(content, "role")
        if not (role is None or isinstance(role, str)) or role not in _ROLES:
            raise FormatError(f"unknown role {quote(role)} (Gemini has user and model)",
                              at.child("role").pointer)
        parts_key, parts = _find(content, "parts")
        read = _read_parts(parts, at.child(parts_key))
        if _ROLES[role] == "system" and not (turns or prior):
            system.extend(read)
            continue
        split = split_results(_ROLES[role], read, at)
        split[0] = replace(split[0], meta=_kept(content, {"role": None, "parts": None}))
        turns.extend(split)
    choice, choice_used = _read_choice(body, source)
    settings, taken = read_settings(body, FACTS.settings, _get)
    used: dict[str, Any] = {"contents": None, "systemInstruction": system_used, "tools": None,
                            "toolConfig": choice_used}
    if taken:  # the settings read leave the rest of generationConfig in meta
        used["generationConfig"] = {path[1]: None for path in taken}
    return Request(turns=linked_after(prior, turns), system=tuple(system), tools=_read_tools(body, source),
                   tool_choice=choice, model=optional_field(body, "model", str, source),
                   meta=meta_for(NAME, _extra(body, used)), settings=settings)


def read_response(body: Any, source: Source) -> Response:
    """A `generateContent` response body (first candidate), or an error body."""
    body = expect_dict(body, source, "a Gemini response body")
    if "error" in body:
        return _read_error(body["error"])
    key, candidates = _find(body, "candidates")
    candidates = optional_list(candidates, source.child(key), "candidates")
    meta = _extra(body, {"candidates": None, "usageMetadata": None, "modelVersion": None})
    usage_key, usage = _find(body, "usageMetadata")
    if usage is not None:
        usage = expect_dict(usage, source.child(usage_key), "usageMetadata")
    model = _text_field(body, "modelVersion", source)
    if not candidates:
        feedback = _get(body, "promptFeedback")
        reason = _get(feedback, "blockReason") if isinstance(feedback, dict) else None
        return Response(finish_reason=reason if isinstance(reason, str) else None, model=model,
                        usage=usage, meta=meta_for(NAME, meta))
    at = source.child(key, 0)
    candidate = expect_dict(candidates[0], at, "a candidate")
    meta.update(_extra(candidate, {"content": {"role": None, "parts": None}, "finishReason": None,
                                   "index": None}))
    if len(candidates) > 1:
        meta["moreCandidates"] = candidates[1:]
    content_key, content = _find(candidate, "content")
    parts: list[Part] = []
    if content is not None:
        content = expect_dict(content, at.child(content_key), "content")
        parts_key, raw_parts = _find(content, "parts")
        parts = _read_parts(raw_parts, at.child(content_key, parts_key))
    turn = Turn(role="assistant", parts=tuple(parts),
                source=at.child(content_key) if content is not None else at)
    return Response(turn=link_read([turn])[0], finish_reason=_text_field(candidate, "finishReason", at),
                    model=model, usage=usage, meta=meta_for(NAME, meta))


def _read_system(body: dict[str, Any], source: Source) -> tuple[list[Part], _Spec | None]:
    key, system = _find(body, "systemInstruction")
    if system is None:
        return [], None
    if isinstance(system, str):
        return [Text(text=system, source=source.child(key))], None
    system = expect_dict(system, source.child(key), "systemInstruction")
    parts_key, parts = _find(system, "parts")
    return _read_parts(parts, source.child(key, parts_key)), {"parts": None}


def _read_parts(raw: Any, source: Source) -> list[Part]:
    out: list[Part] = []
    for j, item in enumerate(optional_list(raw, source, "parts")):
        out.extend(_read_part(item, source.child(j)))
    return out


def _read_part(raw: Any, source: Source) -> list[Part]:
    """One wire part → its canonical part, preceded by a Reasoning holding its thoughtSignature."""
    part = expect_dict(raw, source, "a part")
    key, response = _find(part, "functionResponse")
    if response is not None:  # a signature here stays in the result's meta: it lives in a tool turn
        return [_read_result(part, key, response, source)]
    sig_key, signature = _find(part, _SIGNATURE)
    if signature is None:
        return [_read_data(part, source)]
    if not isinstance(signature, str):
        raise FormatError("thoughtSignature must be a string", source.child(sig_key).pointer)
    rest = {k: v for k, v in part.items() if k != sig_key}
    if not rest:
        return [Opaque(origin=NAME, value=part, source=source)]
    main = _read_data(rest, source)
    if isinstance(main, Reasoning):
        return [replace(main, signature=signature)]
    return [Reasoning(signature=signature, origin=NAME, source=source.child(sig_key)), main]


def _read_data(part: dict[str, Any], source: Source) -> Part:
    key, call = _find(part, "functionCall")
    if call is not None:
        return _read_call(part, key, call, source)
    media = _read_media(part, source)
    if media is not None:
        return media
    text_key, text = _find(part, "text")
    if text is None:
        return Opaque(origin=NAME, value=part, source=source)
    if not isinstance(text, str):
        raise FormatError(f"text must be a string, not {type_name(text)}", source.child(text_key).pointer)
    thought = _get(part, "thought")
    used: dict[str, Any] = {"text": None, **({"thought": None} if isinstance(thought, bool) else {})}
    if thought is True:
        return Reasoning(text=text, origin=NAME, source=source,
                         meta=_kept(part, used, **({"thought": True} if not text else {})))
    return Text(text=text, meta=_kept(part, used), source=source)


def _read_call(part: dict[str, Any], key: str, call: Any, source: Source) -> Invocation:
    at = source.child(key)
    call = expect_dict(call, at, "functionCall")
    args = _get(call, "args")
    return Invocation(name=_text_field(call, "name", at) or "", arguments={} if args is None else args,
                      wire_id=_text_field(call, "id", at), source=source,
                      meta=_kept(part, {"functionCall": {"name": None, "args": None, "id": None}}))


def _read_media(part: dict[str, Any], source: Source) -> Media | None:
    """An `inlineData` / `fileData` part, or None when the part is neither."""
    for name, ref in (("inlineData", "data"), ("fileData", "fileUri")):
        key, blob = _find(part, name)
        if blob is None:
            continue
        at = source.child(key)
        blob = expect_dict(blob, at, name)
        media_type, value = _text_field(blob, "mimeType", at), _text_field(blob, ref, at)
        return Media(kind=media_kind(media_type), media_type=media_type, source=source,
                     data=value if ref == "data" else None, url=value if ref == "fileUri" else None,
                     meta=_kept(part, {name: {"mimeType": None, ref: None}}))
    return None


def _read_result(part: dict[str, Any], key: str, response: Any, source: Source) -> Result:
    at = source.child(key)
    response = expect_dict(response, at, "functionResponse")
    value_key, value = _find(response, "response")
    content, is_error, bare = _response_content(value, at.child(value_key))
    parts_key, items = _find(response, "parts")
    items = optional_list(items, at.child(parts_key), "functionResponse.parts")
    media = tuple(_read_response_part(item, at.child(parts_key, i)) for i, item in enumerate(items))
    used = {"functionResponse": {"name": None, "response": None, "id": None, "parts": None}}
    return Result(name=_text_field(response, "name", at), wire_id=_text_field(response, "id", at),
                  content=content + media, is_error=is_error, source=source,
                  meta=_kept(part, used, **({"bare_response": True} if bare else {})))


def _read_response_part(raw: Any, source: Source) -> Part:
    """A `functionResponse.parts` item: inline or file media (Gemini 3+), anything else opaque."""
    item = expect_dict(raw, source, "a functionResponse part")
    return _read_media(item, source) or Opaque(origin=NAME, value=item, source=source)


def _response_content(value: Any, source: Source) -> tuple[tuple[Part, ...], bool, bool]:
    """`functionResponse.response` → (content, is_error, bare): `{"output": v}` and `{"error": v}`
    unwrap to v; any other object is the output itself (an error if it has an `error` key)."""
    if isinstance(value, dict):
        if set(value) == {"output"}:
            return _value_content(value["output"], source.child("output")), False, False
        if set(value) == {"error"}:
            return _value_content(value["error"], source.child("error")), True, False
        return (Json(value=value, source=source),), "error" in value, True
    return _value_content(value, source), False, False


def _value_content(value: Any, source: Source) -> tuple[Part, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (Text(text=value, source=source),)
    return (Json(value=value, source=source),)


def _read_tools(body: dict[str, Any], source: Source) -> tuple[Tool, ...]:
    key, tools = _find(body, "tools")
    out: list[Tool] = []
    for t, raw in enumerate(optional_list(tools, source.child(key), "tools")):
        at = source.child(key, t)
        for name, value in expect_dict(raw, at, "a tool").items():
            kind = _camel(name)
            if value is None:
                continue
            if kind == "functionDeclarations":
                out.extend(_read_declaration(d, at.child(name, i))
                           for i, d in enumerate(expect_list(value, at.child(name), name)))
            else:
                out.append(Tool(name=kind, kind=kind, raw={name: value}, origin=NAME, source=at.child(name)))
    return tuple(out)


def _read_declaration(raw: Any, source: Source) -> Tool:
    decl = expect_dict(raw, source, "a function declaration")
    name = _text_field(decl, "name", source)
    if name is None:
        raise FormatError("a function declaration needs a name", source.pointer)
    schema_key = next((k for k in ("parametersJsonSchema", "parameters") if _get(decl, k) is not None), None)
    flags = {"schema": "parameters"} if schema_key == "parameters" else {}
    used = {"name": None, "description": None, **({schema_key: None} if schema_key else {})}
    schema = optional_field(decl, _find(decl, schema_key)[0], dict, source) if schema_key else None
    return Tool(name=name, description=_text_field(decl, "description", source), parameters=schema,
                meta=_kept(decl, used, **flags), source=source)


def _read_choice(body: dict[str, Any], source: Source) -> tuple[ToolChoice | None, _Spec | None]:
    """toolConfig.functionCallingConfig → ToolChoice, and the keys it consumed. Modes without a
    canonical twin (VALIDATED, MODE_UNSPECIFIED) read as auto and stay in meta verbatim."""
    key, config = _find(body, "toolConfig")
    if config is None:
        return None, None
    config = expect_dict(config, source.child(key), "toolConfig")
    calling_key, calling = _find(config, "functionCallingConfig")
    if calling is None:
        return None, {}
    calling = expect_dict(calling, source.child(key, calling_key), "functionCallingConfig")
    mode, allowed = _get(calling, "mode"), _get(calling, "allowedFunctionNames")
    mode = mode.upper() if isinstance(mode, str) else None
    if mode == "ANY" and isinstance(allowed, list) and len(allowed) == 1 and isinstance(allowed[0], str):
        return (ToolChoice(mode="tool", name=allowed[0]),
                {"functionCallingConfig": {"mode": None, "allowedFunctionNames": None}})
    if mode is None:
        return None, {}
    used = {"functionCallingConfig": {"mode": None}} if mode in _MODES_IN else {}
    return ToolChoice(mode=_MODES_IN.get(mode, "auto")), used
