"""Reading Converse request and response bodies into the canonical model."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...errors import FormatError
from ...model import Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text, Tool, ToolChoice, Turn
from ...shorten import quote
from ...source import Source
from ..base import ApiError, Request, Response
from ..foreign import foreign_part
from ..meta import meta_for, own_meta, unmodeled, with_meta
from ..reading import (
    expect_dict,
    expect_list,
    link_read,
    linked_after,
    listed_from,
    optional_field,
    required_field,
    split_results,
)
from ..settings import read_settings, without
from .common import _FORMATS, _OWN_KEYS, FACTS, NAME, _union_key

_MESSAGE_BLOCKS = ("text", "image", "document", "video", "audio", "toolUse", "toolResult",
                   "reasoningContent", "cachePoint")
_RESULT_BLOCKS = ("json", "text", "image", "document", "video", "cachePoint")
_SYSTEM_BLOCKS = ("text", "cachePoint")
_KNOWN_BLOCKS = frozenset(FACTS.content_members or ())

_REQUEST_KEYS = frozenset({"inferenceConfig", "toolConfig", "additionalModelRequestFields",
                           "guardrailConfig", "modelId", "additionalModelResponseFieldPaths"})
_RESPONSE_META = ("metrics", "additionalModelResponseFields", "trace", "performanceConfig",
                  "serviceTier")


def sniff(body: Any, side: str) -> bool:
    """A Converse body: `output.message` (or a bare `{"message"}` error) / union content blocks."""
    if not isinstance(body, dict):
        return False
    if side == "response":
        output = body.get("output")
        if isinstance(output, dict) and isinstance(output.get("message"), dict):
            return True
        return bool(body) and body.keys() <= {"message", "Message", "__type"} and any(
            isinstance(v, str) for v in body.values())
    messages = body.get("messages")
    if not isinstance(messages, list):
        return False
    if body.keys() & _REQUEST_KEYS:
        return True
    blocks = False  # every content block is a Converse one (and there is one): stops at the first not
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            for b in content:
                if not isinstance(b, dict) or "type" in b or b.keys().isdisjoint(_KNOWN_BLOCKS):
                    return False
                blocks = True
    return blocks


def read_request(body: Any, source: Source, *, start: int = 0, prior: tuple[Turn, ...] = ()) -> Request:
    """A Converse request: `system[]`, `messages[]`, `toolConfig`; other fields go to meta (`start`,
    `prior`: see `base.Format.read_request`)."""
    body = expect_dict(body, source, "a Converse request")
    model = optional_field(body, "modelId", str, source)
    system = list(_blocks(body.get("system"), source.child("system"), _SYSTEM_BLOCKS, "system"))
    turns: list[Turn] = []
    messages = expect_list(body.get("messages"), source.child("messages"), "messages")
    for i, message in listed_from(messages, start):
        at = source.child("messages", i)
        message = expect_dict(message, at, "a message")
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            raise FormatError(f"a message role must be user, assistant or system, not {quote(role)}",
                              at.child("role").pointer)
        parts = _blocks(message.get("content"), at.child("content"), _MESSAGE_BLOCKS, role)
        if role == "system" and not (turns or prior):
            system.extend(parts)
        elif role == "user":
            turns.extend(split_results("user", parts, at))
        else:
            turns.append(Turn(role=role, parts=parts, source=at))
    tools, choice, config_meta = _tool_config(body.get("toolConfig"), source.child("toolConfig"))
    settings, taken = read_settings(body, FACTS.settings)
    meta = without(unmodeled(body, _OWN_KEYS), taken)
    if config_meta:
        meta["toolConfig"] = config_meta
    return Request(turns=linked_after(prior, turns), system=tuple(system), tools=tools, tool_choice=choice,
                   model=model, meta=meta_for(NAME, meta), settings=settings)


def read_response(body: Any, source: Source) -> Response:
    """`{output: {message}, stopReason, usage, metrics}`, or an error body `{"message": …}`."""
    body = expect_dict(body, source, "a Converse response")
    if "output" not in body:
        message = body.get("message", body.get("Message"))
        if isinstance(message, str):
            kind = body.get("__type")
            return Response(error=ApiError(message=message,
                                           type=kind if isinstance(kind, str) else None))
        raise FormatError("a Converse response needs `output` (or an error `message`)",
                          source.pointer)
    output = expect_dict(body["output"], source.child("output"), "output")
    at = source.child("output", "message")
    message = expect_dict(output.get("message"), at, "output.message")
    parts = _blocks(message.get("content"), at.child("content"), _MESSAGE_BLOCKS, "assistant")
    usage = body.get("usage")
    meta = {k: body[k] for k in _RESPONSE_META if body.get(k) is not None}
    return Response(turn=link_read((Turn(role="assistant", parts=parts, source=at),))[0],
                     finish_reason=optional_field(body, "stopReason", str, source),
                     usage=usage if isinstance(usage, dict) else None,
                     meta=meta_for(NAME, meta))


def _blocks(content: Any, at: Source, allowed: tuple[str, ...], role: str) -> tuple[Part, ...]:
    """A content list (tolerating null and a bare string); `cachePoint` joins the part before it."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (Text(text=content, source=at),)
    parts: list[Part] = []
    for j, block in enumerate(expect_list(content, at, "content")):
        block = expect_dict(block, at.child(j), "a content block")
        if (_union_key(block, allowed) == "cachePoint" and parts
                and "cachePoint" not in own_meta(NAME, parts[-1].meta)):
            parts[-1] = with_meta(NAME, parts[-1], {"cachePoint": block["cachePoint"]})
        else:
            parts.append(_part(block, at.child(j), allowed, role))
    return tuple(parts)


def _part(block: dict[str, Any], at: Source, allowed: tuple[str, ...], role: str) -> Part:
    key = _union_key(block, allowed)
    value = block.get(key) if key else None
    part: Part | None = None
    if key == "text":
        part = Text(text=required_field(block, "text", str, at))
    elif key == "json":
        part = Json(value=value)
    elif key in _FORMATS:
        part = _media(key, value, at.child(key))
    elif key == "reasoningContent":
        part = _reasoning(value, at.child(key))
    elif key == "toolUse":
        part = _invocation(value, at.child(key))
    elif key == "toolResult" and role != "assistant":
        part = _result(value, at.child(key))
    if part is None and key is None:  # another format's block, forwarded unconverted (TD404)
        part = foreign_part(block, at, role)
    if part is None:
        return Opaque(origin=NAME, value=block, source=at)
    return replace(part, source=at)


def _media(kind: str, value: Any, at: Source) -> Media | None:
    value = expect_dict(value, at, kind)
    fmt = optional_field(value, "format", str, at)
    src = expect_dict(value.get("source"), at.child("source"), f"{kind}.source")
    meta = {k: value[k] for k in ("name", "context", "citations") if value.get(k) is not None}
    media_type = None if fmt is None else _FORMATS[kind].get(fmt, f"{_top(kind)}/{fmt}")
    if "bytes" in src:
        data = required_field(src, "bytes", str, at.child("source"))
        return Media(kind=kind, media_type=media_type, data=data, meta=meta_for(NAME, meta))
    if "s3Location" in src:
        loc = expect_dict(src["s3Location"], at.child("source", "s3Location"), "s3Location")
        uri = required_field(loc, "uri", str, at.child("source", "s3Location"))
        if loc.get("bucketOwner") is not None:
            meta["bucketOwner"] = loc["bucketOwner"]
        return Media(kind=kind, media_type=media_type, url=uri, meta=meta_for(NAME, meta))
    return None  # a document given as text or content blocks: kept verbatim


def _top(kind: str) -> str:
    return "application" if kind == "document" else kind


def _reasoning(value: Any, at: Source) -> Reasoning | None:
    value = expect_dict(value, at, "reasoningContent")
    text = value.get("reasoningText")
    if isinstance(text, dict):
        inner = at.child("reasoningText")
        return Reasoning(text=required_field(text, "text", str, inner) if "text" in text else "",
                         signature=optional_field(text, "signature", str, inner), origin=NAME)
    if "redactedContent" in value:
        return Reasoning(redacted=required_field(value, "redactedContent", str, at), origin=NAME)
    return None


def _invocation(value: Any, at: Source) -> Invocation | None:
    value = expect_dict(value, at, "toolUse")
    if value.get("type") == "server_tool_use":
        return None
    meta = {"type": value["type"]} if value.get("type") is not None else {}
    return Invocation(name=required_field(value, "name", str, at) if "name" in value else "",
                      arguments=value.get("input"),
                      wire_id=optional_field(value, "toolUseId", str, at), meta=meta_for(NAME, meta))


def _result(value: Any, at: Source) -> Result:
    value = expect_dict(value, at, "toolResult")
    status = optional_field(value, "status", str, at)
    meta = {k: value[k] for k in ("type",) if value.get(k) is not None}
    if status not in (None, "error"):
        meta["status"] = status
    return Result(wire_id=optional_field(value, "toolUseId", str, at),
                  content=_blocks(value.get("content"), at.child("content"), _RESULT_BLOCKS, "result"),
                  is_error=status == "error", meta=meta_for(NAME, meta))


def _tool_config(value: Any, at: Source) -> tuple[tuple[Tool, ...], ToolChoice | None, dict[str, Any]]:
    """`toolConfig` → tools, tool choice, and what is left to keep in meta."""
    if value is None:
        return (), None, {}
    value = expect_dict(value, at, "toolConfig")
    tools: list[Tool] = []
    for k, entry in enumerate(expect_list(value.get("tools", []), at.child("tools"), "tools")):
        entry = expect_dict(entry, at.child("tools", k), "a tool")
        spec = entry.get("toolSpec")
        if isinstance(spec, dict):
            tools.append(_tool_spec(spec, at.child("tools", k)))
        elif entry.keys() == {"cachePoint"} and tools and "cachePoint" not in own_meta(NAME, tools[-1].meta):
            tools[-1] = with_meta(NAME, tools[-1], {"cachePoint": entry["cachePoint"]})
        else:
            kind = next(iter(entry), "tool")
            inner = entry.get(kind)
            name = inner.get("name") if isinstance(inner, dict) else None
            tools.append(Tool(name=name if isinstance(name, str) else kind, kind=kind, origin=NAME,
                              raw=entry, source=at.child("tools", k)))
    rest = unmodeled(value, ("tools", "toolChoice"))
    choice = _tool_choice(value.get("toolChoice"))
    if choice is None and value.get("toolChoice") is not None:
        rest["toolChoice"] = value["toolChoice"]
    return tuple(tools), choice, rest


def _tool_spec(spec: dict[str, Any], at: Source) -> Tool:
    inner = at.child("toolSpec")
    schema = optional_field(spec, "inputSchema", dict, inner)
    meta = unmodeled(spec, ("name", "description", "inputSchema"))
    return Tool(name=required_field(spec, "name", str, inner),
                description=optional_field(spec, "description", str, inner),
                parameters=optional_field(schema or {}, "json", dict, inner.child("inputSchema")),
                meta=meta_for(NAME, meta), source=at)


def _tool_choice(value: Any) -> ToolChoice | None:
    """`{auto:{}}` → auto, `{any:{}}` → required, `{tool:{name}}` → tool; anything else None."""
    if not isinstance(value, dict):
        return None
    if "auto" in value:
        return ToolChoice(mode="auto")
    if "any" in value:
        return ToolChoice(mode="required")
    tool = value.get("tool")
    if isinstance(tool, dict) and isinstance(tool.get("name"), str):
        return ToolChoice(mode="tool", name=tool["name"])
    return None
