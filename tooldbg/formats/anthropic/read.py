"""Reading Anthropic Messages bodies: a request → system, tools, tool choice and linked turns;
a `message` body → one assistant turn; an `error` body → `ApiError`.
"""

from __future__ import annotations

from itertools import chain, repeat
from typing import Any

from ...constructors import new_invocation, new_result, new_text, new_tool, new_turn
from ...errors import FormatError
from ...jsonio import dumps_str
from ...model import (
    Media,
    Opaque,
    Part,
    Reasoning,
    Result,
    Tool,
    ToolChoice,
    Turn,
)
from ...shorten import quote
from ...source import NO_SOURCE, Source
from ..base import ApiError, Request, Response
from ..foreign import foreign_media
from ..meta import meta_for, meta_of, unmodeled
from ..reading import (
    ReadLinker,
    expect_dict,
    expect_list,
    link_read,
    listed_from,
    optional_field,
    optional_list,
    parse_arguments,
    required_field,
    split_results,
    type_name,
)
from ..settings import read_settings, without
from .common import _CHOICE_MODES, FACTS, NAME, _type

_DIRECT_CALLER = {"type": "direct"}  # the default `caller`, not worth keeping in meta

# Block types each position models; any other block is kept as Opaque (`read_content`: the agent
# logs that keep Anthropic messages, a Claude Code session, read them with it too).
MESSAGE_BLOCKS = frozenset({"text", "image", "document", "tool_use", "tool_result", "thinking",
                             "redacted_thinking"})
RESPONSE_BLOCKS = MESSAGE_BLOCKS - {"tool_result"}
_RESULT_BLOCKS = frozenset({"text", "image", "document"})
_SYSTEM_BLOCKS = frozenset({"text"})

# Top-level request keys with a canonical home; every other key is kept in Request.meta.
_REQUEST_KEYS = frozenset({"model", "messages", "system", "tools", "tool_choice"})

# What only Anthropic (not OpenAI Chat) puts in a request body, for sniffing.
_ANTHROPIC_KEYS = frozenset({"system", "anthropic_version", "stop_sequences", "top_k", "thinking"})
_OPENAI_KEYS = frozenset({"max_completion_tokens", "response_format", "parallel_tool_calls", "n",
                          "stream_options", "functions", "function_call", "logit_bias", "logprobs",
                          "presence_penalty", "frequency_penalty", "seed", "reasoning_effort"})
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
_OPENAI_MESSAGE_KEYS = frozenset({"tool_calls", "function_call", "tool_call_id"})
_NO_TYPE = object()  # (a block without `type`: Bedrock Converse's)


# ------------------------------------------------------------------------------------ sniffing


def sniff(body: Any, side: str) -> bool:
    """An Anthropic body: a `message`/`error` response, or a request with Anthropic-only markers."""
    if not isinstance(body, dict):
        return False
    if side == "response":
        return ((body.get("type") == "message" and isinstance(body.get("content"), list))
                or (body.get("type") == "error" and isinstance(body.get("error"), dict)))
    messages = body.get("messages")
    if not isinstance(messages, list) or _OPENAI_KEYS & body.keys():
        return False
    try:
        marked = _markers(messages)
    except TypeError:  # (a message or a block not an object, a role or a type not hashable)
        marked = _markers_walked(messages)
    if marked is None:
        return False
    tools = [t for t in body["tools"] if isinstance(t, dict)] if isinstance(body.get("tools"), list) else []
    if any("function" in t or t.get("type") == "function" for t in tools):
        return False
    if (marked or _ANTHROPIC_KEYS & body.keys() or any("input_schema" in t for t in tools)
            or _type(body.get("tool_choice")) in _CHOICE_MODES):
        return True
    # Plain text turns with `max_tokens` (required here, legacy in OpenAI Chat): read the same
    # either way, unless OpenAI-style system messages say otherwise.
    return "max_tokens" in body and not any(isinstance(m, dict) and m.get("role") == "system"
                                            for m in messages)


_OPENAI_ROLES = frozenset({"tool", "developer", "function"})
_PLAIN_BLOCKS = frozenset({"text", "image"})  # (blocks OpenAI Chat has too, unless they hold a `source`)


def _markers(messages: list[Any]) -> bool | None:
    """Whether a block is Anthropic's, or None when a message or a block is OpenAI Chat's, found by
    C loops (`map`) over the messages and their blocks, not by looking at each in turn (that walk
    was a tenth of reading a request). Raises TypeError when a message or a block is not an
    object, or a role or a type is not hashable (`_markers_walked` reads those)."""
    if (not _OPENAI_ROLES.isdisjoint(map(dict.get, messages, _ROLE_KEY))
            or not all(map(_OPENAI_MESSAGE_KEYS.isdisjoint, messages))):
        return None
    blocks = list(chain.from_iterable(
        [content for content in map(dict.get, messages, _CONTENT_KEY) if isinstance(content, list)]))
    kinds = set(map(dict.get, blocks, _TYPE_KEY, _NO_TYPES))
    # A block without `type` is Bedrock Converse's; an OpenAI part means no; any other typed block
    # but a plain text or image is Anthropic's, and so is a block with a `source`.
    if _NO_TYPE in kinds or not kinds.isdisjoint(_OPENAI_PARTS):
        return None
    return (any(isinstance(kind, str) for kind in kinds - _PLAIN_BLOCKS)
            or any(map(dict.__contains__, blocks, _SOURCE_KEY)))


# (the arguments `map` passes `dict.get` for each message or block: endless, and so shared)
_ROLE_KEY, _CONTENT_KEY, _TYPE_KEY = repeat("role"), repeat("content"), repeat("type")
_NO_TYPES, _SOURCE_KEY = repeat(_NO_TYPE), repeat("source")


def _markers_walked(messages: list[Any]) -> bool | None:
    """`_markers`, for any messages: each message and block looked at in turn (what is not an
    object skipped)."""
    marked = False
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") in _OPENAI_ROLES_LISTED or not _OPENAI_MESSAGE_KEYS.isdisjoint(m):
            return None
        content = m.get("content")
        if isinstance(content, list):
            for b in content:
                if not isinstance(b, dict):
                    continue
                kind = b.get("type", _NO_TYPE)
                if isinstance(kind, str):
                    if kind in _OPENAI_PARTS:
                        return None
                    marked = marked or kind not in _PLAIN_BLOCKS or "source" in b
                elif kind is _NO_TYPE:
                    return None
                else:
                    marked = marked or "source" in b
    return marked


_OPENAI_ROLES_LISTED = tuple(_OPENAI_ROLES)  # (compared, not hashed: a role may be a list)


# ------------------------------------------------------------------------------------- reading


def read_request(body: Any, source: Source = NO_SOURCE, *, start: int = 0,
                 prior: tuple[Turn, ...] = ()) -> Request:
    """A request body: top-level `system`, `tools`, `tool_choice` and the `messages` as turns
    (`start`, `prior`: see `base.Format.read_request`)."""
    body = expect_dict(body, source, "an Anthropic request body")
    listed = source.child("messages")
    messages = expect_list(body.get("messages"), listed, "messages")
    system = list(read_content(body.get("system"), source.child("system"), _SYSTEM_BLOCKS))
    turns: list[Turn] = []
    linker = ReadLinker(prior)  # (each message's calls and results linked as they are read)
    child = Source.child
    for i, message in listed_from(messages, start):
        src = child(listed, i)
        if type(message) is not dict:
            expect_dict(message, src, "a message")
        role = message.get("role")
        if role not in ("assistant", "user", "system"):
            raise FormatError(f"unknown message role {quote(role)}", src.child("role").pointer)
        parts = read_content(message.get("content"), child(src, "content"),
                             _SYSTEM_BLOCKS if role == "system" else MESSAGE_BLOCKS, linker)
        linker.end_turn()
        if role == "assistant" and Result not in map(type, parts):  # (no results to split off: one turn)
            turns.append(new_turn("assistant", parts, src))
            continue
        if role == "system" and not (turns or prior):
            system.extend(parts)
        else:
            turns.extend(split_results(role, parts, src))
    tools_at = source.child("tools")
    declared = optional_list(body.get("tools"), tools_at, "tools")
    tools = tuple(_tool(t, tools_at.child(i)) for i, t in enumerate(declared))
    choice, unknown_choice = _tool_choice(body.get("tool_choice"), source.child("tool_choice"))
    settings, taken = read_settings(body, FACTS.settings)
    params = without(unmodeled(body, _REQUEST_KEYS, defaults={"stream": False}), taken)  # (`stream` kept)
    if unknown_choice is not None:
        params["tool_choice"] = unknown_choice
    return Request(turns=linker.linked(prior, turns), system=tuple(system), tools=tools, tool_choice=choice,
                   model=optional_field(body, "model", str, source), stream=body.get("stream") is True,
                   meta=meta_for(NAME, params), settings=settings)


def read_response(body: Any, source: Source = NO_SOURCE) -> Response:
    """A `message` body as one assistant turn, or an `error` body as an ApiError."""
    body = expect_dict(body, source, "an Anthropic response body")
    if body.get("type") == "error" or ("error" in body and "content" not in body):
        error = expect_dict(body.get("error"), source.child("error"), "error")
        message = error.get("message")
        return Response(error=ApiError(message=message if isinstance(message, str) else dumps_str(error),
                                       type=optional_field(error, "type", str, source.child("error"))),
                        meta=meta_for(NAME, unmodeled(body, ("type", "error"))))
    parts = read_content(body.get("content"), source.child("content"), RESPONSE_BLOCKS)
    usage = body.get("usage")
    return Response(turn=link_read((Turn(role="assistant", parts=parts, source=source),))[0],
                    finish_reason=optional_field(body, "stop_reason", str, source),
                    model=optional_field(body, "model", str, source),
                    usage=usage if isinstance(usage, dict) else None,
                    meta=meta_for(NAME, unmodeled(body, ("type", "role", "content", "model", "stop_reason",
                                                      "usage"))))


def read_content(content: Any, source: Source, allowed: frozenset[str],
                 linker: ReadLinker | None = None) -> tuple[Part, ...]:
    """`content` (or `system`): absent, a string, or a list of blocks (`allowed`: the block types
    read at this position, `MESSAGE_BLOCKS` in a request's message, `RESPONSE_BLOCKS` in a response;
    `linker`: the calls and results linked as they are read, else left to `link_read`)."""
    if content is None:
        return ()
    if type(content) is str:
        return (new_text(content, source),)
    if type(content) is not list:
        raise FormatError(f"content must be a string or a list of blocks, not {type_name(content)}",
                          source.pointer)
    parts: list[Part] = []
    append = parts.append
    child = Source.child
    calls, results = "tool_use" in allowed, "tool_result" in allowed
    for i, block in enumerate(content):
        at = child(source, i)
        # The usual blocks are read here, a call each being a tenth of reading a request: a text, a
        # call with an object input, a result with a string content, each with its fields of their
        # usual types and no other key (counted: the fields read are there). Any other block is
        # read by `_part`, into the same node (tests/formats/test_anthropic_read_fast.py).
        kind = block.get("type") if type(block) is dict else None
        if kind == "text":
            text = block.get("text")
            if type(text) is str and len(block) == 2:
                append(new_text(text, at))
                continue
        elif kind == "tool_use" and calls:
            name, wire_id, arguments = block.get("name"), block.get("id"), block.get("input")
            if type(arguments) is dict and type(name) is str and type(wire_id) is str and len(block) == 4:
                # (the constructors' arguments in their order, not by keyword: see `constructors.in_order`)
                call = new_invocation(name, "" if linker is None else linker.next_id(), arguments,
                                      wire_id, at)
                if linker is not None:
                    linker.calls.append(call)
                append(call)
                continue
        elif kind == "tool_result" and results:
            wire_id, is_error, text = block.get("tool_use_id"), block.get("is_error"), block.get("content")
            if type(text) is str and type(wire_id) is str and (
                    len(block) == 3 if is_error is None else type(is_error) is bool and len(block) == 4):
                bound, name = (None, None) if linker is None else linker.bind(wire_id)
                said = (new_text(text, child(at, "content")),)
                append(new_result(wire_id, bound, name, is_error or False, said, at))
                continue
        append(_part(block, at, allowed, linker))
    return tuple(parts)


def _part(block: Any, source: Source, allowed: frozenset[str], linker: ReadLinker | None) -> Part:
    block = expect_dict(block, source, "a content block")
    kind = block.get("type")
    if type(kind) is not str:
        raise FormatError("a content block needs a string `type`", source.pointer)
    if kind in allowed:
        return _READERS[kind](block, source, linker)
    # another format's media block forwarded unconverted (a Chat `image_url` part): read for
    # what it means (see `foreign`); TD404 reports it
    foreign = foreign_media(block, source) if kind not in MESSAGE_BLOCKS else None
    return foreign or Opaque(origin=NAME, value=block, source=source)


_TEXT = frozenset({"type", "text"})


def _text(block: dict[str, Any], source: Source, linker: ReadLinker | None) -> Part:
    text = block.get("text")
    return new_text(text=text if type(text) is str else required_field(block, "text", str, source),
                meta=meta_of(NAME, block, _TEXT), source=source)


def _media(block: dict[str, Any], source: Source, linker: ReadLinker | None) -> Part:
    wire = expect_dict(block.get("source"), source.child("source"), f"a {block['type']} source")
    at = source.child("source")
    fields: dict[str, Any]
    if wire.get("type") == "base64":
        fields = {"media_type": optional_field(wire, "media_type", str, at),
                  "data": required_field(wire, "data", str, at)}
    elif wire.get("type") == "url":
        fields = {"url": required_field(wire, "url", str, at)}
    elif wire.get("type") == "file":
        fields = {"file_id": required_field(wire, "file_id", str, at)}
    else:  # plain-text and content-block documents have no Media form
        return Opaque(origin=NAME, value=block, source=source)
    return Media(kind="image" if block["type"] == "image" else "document", **fields,
                 meta=meta_for(NAME, unmodeled(block, ("type", "source"))), source=source)


_TOOL_USE = frozenset({"type", "id", "name", "input"})


def _tool_use(block: dict[str, Any], source: Source, linker: ReadLinker | None) -> Part:
    name, wire_id, arguments = block.get("name"), block.get("id"), block.get("input")
    if type(name) is not str or not (wire_id is None or type(wire_id) is str):
        name, wire_id = required_field(block, "name", str, source), optional_field(block, "id", str, source)
    extra = {} if block.keys() <= _TOOL_USE else unmodeled(block, _TOOL_USE)
    if extra.get("caller") == _DIRECT_CALLER:
        del extra["caller"]
    raw = None
    # A string is invalid on the wire (the API wants an object: "Input should be a valid dictionary",
    # ComposioHQ/composio#3429), but it is kept, to be reported.
    if type(arguments) is str:
        arguments, raw = parse_arguments(arguments)
        if raw is None:
            extra["string_input"] = True
    call = new_invocation(id="" if linker is None else linker.next_id(), name=name, arguments=arguments,
                       raw_arguments=raw, wire_id=wire_id, meta=meta_for(NAME, extra), source=source)
    if linker is not None:
        linker.calls.append(call)
    return call


_TOOL_RESULT = frozenset({"type", "tool_use_id", "content", "is_error"})


def _tool_result(block: dict[str, Any], source: Source, linker: ReadLinker | None) -> Part:
    wire_id, is_error, content = block.get("tool_use_id"), block.get("is_error"), block.get("content")
    if not (wire_id is None or type(wire_id) is str) or not (is_error is None or type(is_error) is bool):
        wire_id = optional_field(block, "tool_use_id", str, source)
        is_error = optional_field(block, "is_error", bool, source)
    bound, name = (None, None) if linker is None else linker.bind(wire_id)
    return new_result(wire_id=wire_id, invocation_id=bound, name=name, is_error=is_error or False,
                   meta=meta_of(NAME, block, _TOOL_RESULT),
                   content=(new_text(text=content, source=source.child("content")),) if type(content) is str
                   else read_content(content, source.child("content"), _RESULT_BLOCKS), source=source)


def _thinking(block: dict[str, Any], source: Source, linker: ReadLinker | None) -> Part:
    return Reasoning(text=required_field(block, "thinking", str, source),
                     signature=optional_field(block, "signature", str, source), origin=NAME,
                     meta=meta_for(NAME, unmodeled(block, ("type", "thinking", "signature"))), source=source)


def _redacted_thinking(block: dict[str, Any], source: Source, linker: ReadLinker | None) -> Part:
    return Reasoning(redacted=required_field(block, "data", str, source), origin=NAME,
                     meta=meta_for(NAME, unmodeled(block, ("type", "data"))), source=source)


_READERS = {"text": _text, "image": _media, "document": _media, "tool_use": _tool_use,
            "tool_result": _tool_result, "thinking": _thinking,
            "redacted_thinking": _redacted_thinking}


_CLIENT_TOOL = frozenset({"name", "description", "input_schema"})


def _tool(tool: Any, source: Source) -> Tool:
    """A client tool (`input_schema`), or a server/versioned tool kept whole in `raw`."""
    # The usual tool (a name, a description and a schema of their types, no other key) is made at
    # once, the node `_any_tool` makes (tests/formats/test_anthropic_read_fast.py): a tool was read
    # in 21 K instructions, its fields checked one call each, 9 K so (of 1.69 M reading a request).
    if type(tool) is dict and tool.keys() <= _CLIENT_TOOL:
        name, description, schema = tool.get("name"), tool.get("description"), tool.get("input_schema")
        if type(name) is str and (description is None or type(description) is str) and (
                schema is None or type(schema) is dict):
            return new_tool(name=name, description=description, parameters=schema, source=source)
    return _any_tool(tool, source)


def _any_tool(tool: Any, source: Source) -> Tool:
    tool = expect_dict(tool, source, "a tool")
    kind = tool.get("type")
    if kind in (None, "custom"):
        return Tool(name=required_field(tool, "name", str, source),
                    description=optional_field(tool, "description", str, source),
                    parameters=optional_field(tool, "input_schema", dict, source),
                    meta=meta_for(NAME, unmodeled(tool, ("type", "name", "description", "input_schema"))),
                    source=source)
    if not isinstance(kind, str):
        raise FormatError("a tool `type` must be a string", source.child("type").pointer)
    name = tool.get("name")
    return Tool(name=name if isinstance(name, str) else kind, kind=kind, origin=NAME, raw=tool,
                source=source)


def _tool_choice(choice: Any, source: Source) -> tuple[ToolChoice | None, Any]:
    """(the canonical choice, or None and the wire value when its type is unknown)."""
    if choice is None:
        return None, None
    choice = expect_dict(choice, source, "tool_choice")
    mode = _CHOICE_MODES.get(_type(choice))  # type: ignore[arg-type]
    if mode is None:
        return None, choice
    disable = optional_field(choice, "disable_parallel_tool_use", bool, source)
    return ToolChoice(mode=mode, name=optional_field(choice, "name", str, source) if mode == "tool" else None,
                      parallel=None if disable is None else not disable), None
