"""Reading Responses bodies: a request → system (instructions and leading system messages),
linked turns, tools and tool choice; a response object → one assistant turn; an error → `ApiError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from typing import Any

from ...errors import FormatError
from ...jsonio import dumps_str
from ...model import Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text, Tool, Turn, is_role
from ...shorten import quote
from ...source import Source
from ..base import ApiError, Request, Response
from ..meta import meta_for, starting_message, unmodeled, with_meta
from ..reading import (
    expect_dict,
    expect_list,
    link_read,
    linked_after,
    listed_from,
    media_kind,
    optional_field,
    parse_arguments,
    split_data_url,
    type_name,
)
from ..settings import read_settings, without
from .common import FACTS, NAME, _media_type, _read_choice, _text_type

#: Request keys read into the canonical form; every other key is kept in `Request.meta`.
_MODELED = ("model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls")


# ----------------------------------------------------------------------------------- sniffing


def sniff(body: Any, side: str) -> bool:
    """A request has `input` (or chains a stored response); a response is `object: "response"`."""
    if not isinstance(body, dict) or "messages" in body or "contents" in body:
        return False
    if side == "request":
        return "input" in body or "previous_response_id" in body
    return body.get("object") == "response" or (isinstance(body.get("output"), list) and "status" in body)


# ------------------------------------------------------------------------------------ reading


def read_request(body: Any, source: Source, *, start: int = 0, prior: tuple[Turn, ...] = ()) -> Request:
    """A request body → system (instructions + leading system messages), linked turns, tools
    (`start`, `prior`: see `base.Format.read_request`)."""
    body = expect_dict(body, source, "a Responses request")
    system: list[Part] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        system.append(Text(text=instructions, source=source.child("instructions")))
    elif instructions is not None:
        raise FormatError("instructions must be a string", source.child("instructions").pointer)
    raw = body.get("input")
    at = source.child("input")
    if isinstance(raw, str):
        turns = [Turn(role="user", parts=(Text(text=raw, source=at),), source=at)]
    else:
        items = [] if raw is None else expect_list(raw, at, "input")
        turns = group_items(((item, at.child(i)) for i, item in listed_from(items, start)), system, prior)
    choice, verbatim = _read_choice(body.get("tool_choice"), _bool(body.get("parallel_tool_calls")))
    # The stored state a request continues: an id, or a conversation (an id or `{"id": …}`).
    optional_field(body, "previous_response_id", str, source)
    conversation = body.get("conversation")
    if conversation is not None and not isinstance(conversation, str | dict):
        raise FormatError(f"conversation must be a string or an object, not {type_name(conversation)}",
                          source.child("conversation").pointer)
    settings, taken = read_settings(body, FACTS.settings)
    rest = without(unmodeled(body, _MODELED, defaults={"stream": False}), taken)  # (`stream: true` kept)
    if verbatim is not None:
        rest["tool_choice"] = verbatim
    tools = expect_list(body.get("tools") or [], source.child("tools"), "tools")
    return Request(turns=linked_after(prior, turns), system=tuple(system),
                   tools=tuple(_read_tool(t, source.child("tools", i)) for i, t in enumerate(tools)),
                   tool_choice=choice, model=optional_field(body, "model", str, source),
                   stream=body.get("stream") is True, meta=meta_for(NAME, rest), settings=settings)


def read_response(body: Any, source: Source) -> Response:
    """A response object → one assistant turn (every output item, hosted ones Opaque), or an error body."""
    body = expect_dict(body, source, "a Responses response")
    error = _api_error(body.get("error"))
    if "output" not in body and body.get("object") != "response":
        if error is None:
            raise FormatError("neither a response object nor an error body", source.pointer)
        return Response(error=error)
    output = body.get("output")
    parts: list[Part] = []
    for i, item in enumerate(expect_list([] if output is None else output, source.child("output"), "output")):
        here = source.child("output", i)
        side, item_parts, fields = read_item(item, here)
        if side != "assistant":
            item_parts, fields = [Opaque(origin=NAME, value=item, source=here)], {}
        parts.extend(with_meta(NAME, p, {"message": fields} if fields else {}) for p in item_parts)
    turn = None
    if parts or error is None:
        turn = link_read([Turn(role="assistant", parts=tuple(parts), source=source.child("output"))])[0]
    status, details = body.get("status"), body.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    finish = f"{status}:{reason}" if isinstance(status, str) and isinstance(reason, str) else status
    rid = body.get("id")
    return Response(turn=turn, finish_reason=finish if isinstance(finish, str) else None,
                    model=optional_field(body, "model", str, source),
                    usage=optional_field(body, "usage", dict, source), error=error,
                    meta=meta_for(NAME, {"id": rid} if isinstance(rid, str) else {}))


def group_items(items: Iterable[tuple[Any, Source]], system: list[Part],
                prior: tuple[Turn, ...] = ()) -> list[Turn]:
    """Input items, each with where it is, → turns: model-side and tool-side runs merge, every user
    message opens a turn (after `prior`); leading system and developer messages go to `system`. A
    request's `input` is such a run, and so are the items a Codex rollout logs one a line."""
    return group_read(((item, here, read_item(item, here)) for item, here in items), system, prior)


def group_read(items: Iterable[tuple[Any, Source, tuple[str, list[Part], dict[str, Any]]]],
               system: list[Part], prior: tuple[Turn, ...] = ()) -> list[Turn]:
    """`group_items` of items read already (`read_item` of each, beside the item and its place)."""
    turns: list[Turn] = []
    parts_of: list[list[Part]] = []  # the parts of each turn, filled in place
    leading = False  # a leading system message has given parts (`instructions` is no message)
    for item, here, (side, parts, fields) in items:
        if side in ("system", "developer") and not (turns or prior):
            if leading:  # (a message after the first: where it starts, for the writer)
                parts = starting_message(NAME, parts)
            system.extend(with_meta(NAME, p, {"role": side, **({"message": fields} if fields else {})})
                          for p in parts)
            leading = leading or bool(parts)
            continue
        if side in ("system", "developer"):
            meta, side = {**({"role": "developer"} if side == "developer" else {}), **fields}, "system"
        elif side == "assistant":
            meta, parts = {}, [with_meta(NAME, p, {"message": fields} if fields else {}) for p in parts]
        else:
            meta = fields
        if not is_role(side):
            raise FormatError(f"an item of role {quote(side)}, which has no turn", here.pointer)
        joins = side in ("assistant", "tool") or (side == "user" and not _is_message(item))
        if turns and turns[-1].role == side and joins:
            parts_of[-1].extend(parts)
        else:
            turns.append(Turn(role=side, meta=meta_for(NAME, meta), source=here))
            parts_of.append(list(parts))
    return [replace(t, parts=tuple(p)) for t, p in zip(turns, parts_of, strict=True)]


def _is_message(item: dict[str, Any]) -> bool:
    return item.get("type") == "message" or (item.get("type") is None and "role" in item)


def read_item(item: Any, at: Source) -> tuple[str, list[Part], dict[str, Any]]:
    """One item → (side: user/assistant/tool/system/developer, parts, message-level fields). The
    side says who made it (`item_side`)."""
    if not isinstance(item, dict):
        raise FormatError("an item must be an object", at.pointer)
    side, kind = item_side(item), item.get("type")
    if _is_message(item) and item.get("role") in _ROLES:
        return side, _content(item.get("content"), at.child("content"), side), \
            _extras(item, ("type", "role", "content"))
    if kind in ("function_call", "custom_tool_call"):
        return side, [_call(item, at)], {}
    if kind in ("function_call_output", "custom_tool_call_output"):
        return side, [_result(item, at)], {}
    if kind == "reasoning":
        return side, [_reasoning(item, at)], {}
    return side, [Opaque(origin=NAME, value=item, source=at)], {}


#: The roles a message item may have.
_ROLES = ("user", "assistant", "system", "developer")


def item_side(item: Any) -> str:
    """Who made an item, without reading it: `assistant` for what the model output (its messages,
    calls, reasoning), `tool` for a tool's output, else the message's role (`user` by default)."""
    if not isinstance(item, dict):
        return "user"
    kind, role = item.get("type"), item.get("role")
    if _is_message(item) and role in _ROLES:
        return str(role)
    if kind in ("function_call", "custom_tool_call", "reasoning"):
        return "assistant"
    if kind in ("function_call_output", "custom_tool_call_output"):
        return "tool"
    return _side(item)


def _side(item: dict[str, Any]) -> str:
    """Who produced an item tooldbg does not model: the model (`*_call`, `mcp_*`, server-run items),
    the client running a tool (`*_output`, approvals), else the user (`item_reference`, unknown)."""
    kind = item.get("type")
    if not isinstance(kind, str):
        return "user"
    if (kind.endswith("_output") and item.get("execution") != "server") or kind == "mcp_approval_response":
        return "tool"
    if kind.endswith(("_call", "_output")) or kind.startswith("mcp_") or kind in ("program", "compaction"):
        return "assistant"
    return "user"


def _content(content: Any, at: Source, role: str) -> list[Part]:
    if content is None:
        return []
    if isinstance(content, str):
        return [Text(text=content, source=at)]
    if isinstance(content, list):
        return [_block(b, at.child(i), role) for i, b in enumerate(content)]
    raise FormatError("content must be a string, a list or null", at.pointer)


def _block(block: Any, at: Source, role: str) -> Part:
    """One content part (of a message or of a tool output)."""
    if not isinstance(block, dict):
        raise FormatError("a content part must be an object", at.pointer)
    kind = block.get("type")
    if kind in ("input_text", "output_text", "text") and isinstance(block.get("text"), str):
        fields = _extras(block, ("type", "text"))
        if kind != _text_type(role):
            fields["type"] = kind
        return Text(text=block["text"], meta=meta_for(NAME, fields), source=at)
    if kind == "refusal" and isinstance(block.get("refusal"), str):
        return Text(text=block["refusal"], source=at,
                    meta=meta_for(NAME, {**_extras(block, ("type", "refusal")), "type": kind}))
    if kind in ("input_image", "input_file"):
        media = _media(block, at)
        if media is not None:
            return media
    return Opaque(origin=NAME, value=block, meta=meta_for(NAME, {"content": True}), source=at)


def _media(block: dict[str, Any], at: Source) -> Media | None:
    """`input_image {image_url | file_id}` / `input_file {file_data | file_url | file_id}`; inline data
    travels as a data URL (`input_file.file_data` may also be bare base64)."""
    kind = block["type"]
    url_key = "image_url" if kind == "input_image" else "file_url"
    url, file_id, inline = block.get(url_key), block.get("file_id"), block.get("file_data")
    if not all(v is None or isinstance(v, str) for v in (url, file_id, inline)):
        return None
    if kind == "input_image" and url is not None and url.startswith("data:"):
        url, inline = None, url
    media_type, data = split_data_url(inline) if inline is not None else (None, None)
    if inline is not None and data is None:
        data = inline
    if url is None and file_id is None and data is None:
        return None
    mkind = media_kind(media_type) if media_type else ("image" if kind == "input_image" else "file")
    fields = _extras(block, ("type", url_key, "file_id", "file_data"))
    if _media_type(mkind) != kind:
        fields["type"] = kind
    return Media(kind=mkind, media_type=media_type, data=data, url=url, file_id=file_id,
                 meta=meta_for(NAME, fields), source=at)


def _call(item: dict[str, Any], at: Source) -> Invocation:
    custom = item["type"] == "custom_tool_call"
    name, call_id = item.get("name"), item.get("call_id")
    name = "" if name is None else name  # a missing name is a finding (TD503), not an unreadable body
    if not isinstance(name, str) or not (call_id is None or isinstance(call_id, str)):
        raise FormatError("a tool call needs a string name and call_id", at.pointer)
    fields = _extras(item, ("type", "name", "call_id", "input" if custom else "arguments"))
    if custom:
        text = item.get("input", "")
        if not isinstance(text, str):
            raise FormatError("custom_tool_call input must be a string", at.child("input").pointer)
        return Invocation(name=name, arguments=text, wire_id=call_id,
                          meta=meta_for(NAME, {**fields, "custom": True}), source=at)
    arguments, raw = parse_arguments(item.get("arguments"))
    return Invocation(name=name, arguments=arguments, raw_arguments=raw, wire_id=call_id,
                      meta=meta_for(NAME, fields), source=at)


def _result(item: dict[str, Any], at: Source) -> Result:
    call_id, output, name = item.get("call_id"), item.get("output"), item.get("name")
    if not (call_id is None or isinstance(call_id, str)):
        raise FormatError("call_id must be a string", at.child("call_id").pointer)
    here = at.child("output")
    if isinstance(output, list):
        content = tuple(_block(b, here.child(i), "user") for i, b in enumerate(output))
    elif isinstance(output, str):
        content = (Text(text=output, source=here),)
    else:  # an object is a 400 on the wire, but logs hold it (old Codex `{content, success}`)
        content = () if output is None else (Json(value=output, source=here),)
    named = isinstance(name, str)
    fields = _extras(item, ("type", "call_id", "output", *(("name",) if named else ())))
    if item["type"] == "custom_tool_call_output":
        fields["custom"] = True
    return Result(wire_id=call_id, name=name if named else None, content=content, meta=meta_for(NAME, fields),
                  source=at)


def _reasoning(item: dict[str, Any], at: Source) -> Reasoning:
    """`summary[]`/`content[]` are read when they have their usual shape, else kept verbatim in meta."""
    rid, signature = item.get("id"), item.get("encrypted_content")
    if not all(v is None or isinstance(v, str) for v in (rid, signature)):
        raise FormatError("reasoning id and encrypted_content must be strings", at.pointer)
    consumed = ["type", "id", "encrypted_content"]
    summary, content = item.get("summary"), item.get("content")
    if summary is None or _plain(summary, "summary_text"):
        consumed.append("summary")
    if content is None or (_plain(content, "reasoning_text") and len(content) <= 1):
        consumed.append("content")
    return Reasoning(text="\n".join(_texts(content)), summary=tuple(_texts(summary)), signature=signature,
                     origin=NAME, wire_id=rid, meta=meta_for(NAME, _extras(item, consumed)), source=at)


def _plain(parts: Any, kind: str) -> bool:
    return isinstance(parts, list) and all(
        isinstance(p, dict) and p.get("type") == kind and isinstance(p.get("text"), str) and len(p) == 2
        for p in parts)


def _texts(parts: Any) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


def _read_tool(tool: Any, at: Source) -> Tool:
    """Flat function tools; custom and hosted tools keep their wire form in `raw`."""
    if not isinstance(tool, dict) or not isinstance(tool.get("type"), str):
        raise FormatError("a tool must be an object with a type", at.pointer)
    kind = tool["type"]
    if kind != "function":
        name = next((tool[k] for k in ("name", "server_label") if isinstance(tool.get(k), str)), kind)
        description = tool.get("description")
        return Tool(name=name, description=description if isinstance(description, str) else None, kind=kind,
                    origin=NAME, raw=tool, source=at)
    # A Chat-shaped `{"type": "function", "function": {...}}` (a 400 here) is read for what it means.
    nested = "name" not in tool and isinstance(tool.get("function"), dict)
    spec = tool["function"] if nested else tool
    name, description = spec.get("name"), spec.get("description")
    if not isinstance(name, str):
        raise FormatError("a function tool needs a name", at.child("name").pointer)
    described = isinstance(description, str)
    consumed = ("type", "function", "name", "parameters", *(("description",) if described else ()))
    parameters = optional_field(spec, "parameters", dict, at.child("function") if nested else at)
    return Tool(name=name, description=description if described else None, parameters=parameters,
                meta=meta_for(NAME, _extras(tool if not nested else {**tool, **spec}, consumed)), source=at)


def _api_error(value: Any) -> ApiError | None:
    if isinstance(value, str):
        return ApiError(message=value)
    if not isinstance(value, dict):
        return None
    message = value.get("message")
    code = value.get("code")
    return ApiError(message=message if isinstance(message, str) else dumps_str(value),
                    type=_str(value.get("type")),
                    code=str(code) if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
                    param=_str(value.get("param")))


#: The keys a reader did not model, for a faithful rewrite: nulls, empty lists/objects and the
#: default `status: "completed"` are left out.
_extras = partial(unmodeled, empty=True, defaults={"status": "completed"})


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None
