"""Reading Anthropic Messages bodies: a request → system, tools, tool choice and linked turns;
a `message` body → one assistant turn; an `error` body → `ApiError`.
"""

from __future__ import annotations

from typing import Any

from ...errors import FormatError
from ...jsonio import dumps_str
from ...model import (
    NO_SOURCE,
    Invocation,
    Media,
    Opaque,
    Part,
    Reasoning,
    Result,
    Source,
    Text,
    Tool,
    ToolChoice,
    Turn,
)
from ...shorten import quote
from ..base import ApiError, Request, Response
from ..foreign import foreign_media
from ..meta import meta_for, unmodeled
from ..reading import (
    expect_dict,
    expect_list,
    link,
    linked_after,
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
_REQUEST_KEYS = frozenset({"model", "messages", "system", "tools", "tool_choice", "stream"})

# What only Anthropic (not OpenAI Chat) puts in a request body, for sniffing.
_ANTHROPIC_KEYS = frozenset({"system", "anthropic_version", "stop_sequences", "top_k", "thinking"})
_OPENAI_KEYS = frozenset({"max_completion_tokens", "response_format", "parallel_tool_calls", "n",
                          "stream_options", "functions", "function_call", "logit_bias", "logprobs",
                          "presence_penalty", "frequency_penalty", "seed", "reasoning_effort"})
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
_OPENAI_MESSAGE_KEYS = frozenset({"tool_calls", "function_call", "tool_call_id"})


# ------------------------------------------------------------------------------------ sniffing


def sniff(body: Any, side: str) -> bool:
    """An Anthropic body: a `message`/`error` response, or a request with Anthropic-only markers."""
    if not isinstance(body, dict):
        return False
    if side == "response":
        return ((body.get("type") == "message" and isinstance(body.get("content"), list))
                or (body.get("type") == "error" and isinstance(body.get("error"), dict)))
    messages = body.get("messages")
    if not isinstance(messages, list):
        return False
    messages = [m for m in messages if isinstance(m, dict)]
    blocks = [b for m in messages if isinstance(m.get("content"), list)
              for b in m["content"] if isinstance(b, dict)]
    tools = [t for t in body["tools"] if isinstance(t, dict)] if isinstance(body.get("tools"), list) else []
    if any("type" not in b for b in blocks):  # Bedrock Converse blocks carry no `type`
        return False
    if (_OPENAI_KEYS & body.keys()
            or any(m.get("role") in ("tool", "developer", "function") or _OPENAI_MESSAGE_KEYS & m.keys()
                   for m in messages)
            or any(_type(b) in _OPENAI_PARTS for b in blocks)
            or any("function" in t or t.get("type") == "function" for t in tools)):
        return False
    if (_ANTHROPIC_KEYS & body.keys()
            or any("input_schema" in t for t in tools)
            or _type(body.get("tool_choice")) in _CHOICE_MODES
            or any(_type(b) not in (None, "text", "image") or "source" in b for b in blocks)):
        return True
    # Plain text turns with `max_tokens` (required here, legacy in OpenAI Chat): read the same
    # either way, unless OpenAI-style system messages say otherwise.
    return "max_tokens" in body and not any(m.get("role") == "system" for m in messages)


# ------------------------------------------------------------------------------------- reading


def read_request(body: Any, source: Source = NO_SOURCE, *, start: int = 0,
                 prior: tuple[Turn, ...] = ()) -> Request:
    """A request body: top-level `system`, `tools`, `tool_choice` and the `messages` as turns
    (`start`, `prior`: see `base.Format.read_request`)."""
    body = expect_dict(body, source, "an Anthropic request body")
    messages = expect_list(body.get("messages"), source.child("messages"), "messages")
    system = list(read_content(body.get("system"), source.child("system"), _SYSTEM_BLOCKS))
    turns: list[Turn] = []
    for i, message in listed_from(messages, start):
        src = source.child("messages", i)
        message = expect_dict(message, src, "a message")
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            raise FormatError(f"unknown message role {quote(role)}", src.child("role").pointer)
        parts = read_content(message.get("content"), src.child("content"),
                         _SYSTEM_BLOCKS if role == "system" else MESSAGE_BLOCKS)
        if role == "system" and not (turns or prior):
            system.extend(parts)
        else:
            turns.extend(split_results(role, parts, src))
    tools = tuple(_tool(t, source.child("tools", i))
                  for i, t in enumerate(optional_list(body.get("tools"), source.child("tools"), "tools")))
    choice, unknown_choice = _tool_choice(body.get("tool_choice"), source.child("tool_choice"))
    settings, taken = read_settings(body, FACTS.settings)
    params = without(unmodeled(body, _REQUEST_KEYS), taken)
    if unknown_choice is not None:
        params["tool_choice"] = unknown_choice
    return Request(turns=linked_after(prior, turns), system=tuple(system), tools=tools, tool_choice=choice,
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
    return Response(turn=link((Turn(role="assistant", parts=parts, source=source),))[0],
                    finish_reason=optional_field(body, "stop_reason", str, source),
                    model=optional_field(body, "model", str, source),
                    usage=usage if isinstance(usage, dict) else None,
                    meta=meta_for(NAME, unmodeled(body, ("type", "role", "content", "model", "stop_reason",
                                                      "usage"))))


def read_content(content: Any, source: Source, allowed: frozenset[str]) -> tuple[Part, ...]:
    """`content` (or `system`): absent, a string, or a list of blocks (`allowed`: the block types
    read at this position, `MESSAGE_BLOCKS` in a request's message, `RESPONSE_BLOCKS` in a response)."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (Text(text=content, source=source),)
    if not isinstance(content, list):
        raise FormatError(f"content must be a string or a list of blocks, not {type_name(content)}",
                          source.pointer)
    return tuple(_part(block, source.child(i), allowed) for i, block in enumerate(content))


def _part(block: Any, source: Source, allowed: frozenset[str]) -> Part:
    block = expect_dict(block, source, "a content block")
    kind = block.get("type")
    if not isinstance(kind, str):
        raise FormatError("a content block needs a string `type`", source.pointer)
    if kind not in allowed:
        # another format's media block forwarded unconverted (a Chat `image_url` part): read for
        # what it means (see `foreign`); TD404 reports it
        foreign = foreign_media(block, source) if kind not in MESSAGE_BLOCKS else None
        return foreign or Opaque(origin=NAME, value=block, source=source)
    return _READERS[kind](block, source)


def _text(block: dict[str, Any], source: Source) -> Part:
    return Text(text=required_field(block, "text", str, source),
                meta=meta_for(NAME, unmodeled(block, ("type", "text"))), source=source)


def _media(block: dict[str, Any], source: Source) -> Part:
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


def _tool_use(block: dict[str, Any], source: Source) -> Part:
    value = block.get("input")
    extra = unmodeled(block, ("type", "id", "name", "input"))
    if extra.get("caller") == _DIRECT_CALLER:
        del extra["caller"]
    # A string is invalid on the wire (the API wants an object: "Input should be a valid dictionary",
    # ComposioHQ/composio#3429), but it is kept, to be reported.
    if isinstance(value, str):
        arguments, raw = parse_arguments(value)
        if raw is None:
            extra["string_input"] = True
    else:
        arguments, raw = value, None
    return Invocation(name=required_field(block, "name", str, source), arguments=arguments,
                      raw_arguments=raw, wire_id=optional_field(block, "id", str, source),
                      meta=meta_for(NAME, extra), source=source)


def _tool_result(block: dict[str, Any], source: Source) -> Part:
    return Result(wire_id=optional_field(block, "tool_use_id", str, source),
                  content=read_content(block.get("content"), source.child("content"), _RESULT_BLOCKS),
                  is_error=optional_field(block, "is_error", bool, source) or False,
                  meta=meta_for(NAME, unmodeled(block, ("type", "tool_use_id", "content", "is_error"))),
                  source=source)


def _thinking(block: dict[str, Any], source: Source) -> Part:
    return Reasoning(text=required_field(block, "thinking", str, source),
                     signature=optional_field(block, "signature", str, source), origin=NAME,
                     meta=meta_for(NAME, unmodeled(block, ("type", "thinking", "signature"))), source=source)


def _redacted_thinking(block: dict[str, Any], source: Source) -> Part:
    return Reasoning(redacted=required_field(block, "data", str, source), origin=NAME,
                     meta=meta_for(NAME, unmodeled(block, ("type", "data"))), source=source)


_READERS = {"text": _text, "image": _media, "document": _media, "tool_use": _tool_use,
            "tool_result": _tool_result, "thinking": _thinking,
            "redacted_thinking": _redacted_thinking}


def _tool(tool: Any, source: Source) -> Tool:
    """A client tool (`input_schema`), or a server/versioned tool kept whole in `raw`."""
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
