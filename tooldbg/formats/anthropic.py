"""anthropic: the Anthropic Messages API (`POST /v1/messages`), bodies and SSE streams.

Anthropic puts a call (`tool_use`, `input` an object) inside an assistant message and its answer
(`tool_result`, with `is_error`) inside the next user message, bound by id, and signs `thinking`
blocks. It rejects histories that break its ordering rules — results open the user message, calls
close the assistant message, ids match `^[a-zA-Z0-9_-]+$` and are unique — so the writer enforces
each rule and reports what that changed. Facts: reference/formats.md §3.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from itertools import groupby
from typing import Any

from ..errors import FormatError
from ..jsonio import dumps_str, try_loads
from ..model import (
    NO_SOURCE,
    Conversation,
    Invocation,
    Json,
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
from .base import (
    ApiError,
    Assembled,
    Request,
    Response,
    StreamEvent,
    StreamProblem,
    Writer,
    Written,
    as_index,
    event_type,
    expect_dict,
    expect_list,
    link,
    meta_for,
    optional_field,
    optional_list,
    own_meta,
    own_opaque,
    parse_arguments,
    report_foreign,
    required_field,
    safe_tool_name,
    split_at,
    split_data_url,
    split_results,
    type_name,
    unique_id,
    unmodeled,
)

NAME = "anthropic"
URL_HINTS: tuple[str, ...] = ("/v1/messages",)

from .base import Facts  # noqa: E402 - one block with FACTS, to move as one

#: What the code outside this module needs to know about Anthropic Messages (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=3,
    messages_key="messages",
    finish_pointer="/stop_reason",
    arguments="object",
    arguments_path=("input",),
    failure="flag",
    failure_wording="is_error: true",
    reasoning="thinking block",
    strict_pairing=True,
    merges_roles=True,
    calls_last=True,
    rejects_blank_text=True,
)

_DEFAULT_MAX_TOKENS = 4096  # required by the API, which has no default of its own
_ID = re.compile(r"[a-zA-Z0-9_-]+")
_NOT_ID_CHAR = re.compile(r"[^a-zA-Z0-9_-]")
_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_SCHEMA_COMBINATORS = frozenset({"oneOf", "anyOf", "allOf"})
_DIRECT_CALLER = {"type": "direct"}  # the default `caller`, not worth keeping in meta

# Block types each position models; any other block is kept as Opaque.
_MESSAGE_BLOCKS = frozenset({"text", "image", "document", "tool_use", "tool_result", "thinking",
                             "redacted_thinking"})
_RESPONSE_BLOCKS = _MESSAGE_BLOCKS - {"tool_result"}
_RESULT_BLOCKS = frozenset({"text", "image", "document"})
_SYSTEM_BLOCKS = frozenset({"text"})
_THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_TOOL_INPUT_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})  # input streams

# Top-level request keys with a canonical home; every other key is kept in Request.meta.
_REQUEST_KEYS = frozenset({"model", "messages", "system", "tools", "tool_choice", "stream"})
_CHOICE_MODES = {"auto": "auto", "any": "required", "tool": "tool", "none": "none"}
_CHOICE_TYPES = {mode: wire for wire, mode in _CHOICE_MODES.items()}

# What only Anthropic (not OpenAI Chat) puts in a request body, for sniffing.
_ANTHROPIC_KEYS = frozenset({"system", "anthropic_version", "stop_sequences", "top_k", "thinking"})
_OPENAI_KEYS = frozenset({"max_completion_tokens", "response_format", "parallel_tool_calls", "n",
                          "stream_options", "functions", "function_call", "logit_bias", "logprobs",
                          "presence_penalty", "frequency_penalty", "seed", "reasoning_effort"})
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
_OPENAI_MESSAGE_KEYS = frozenset({"tool_calls", "function_call", "tool_call_id"})
_STREAM_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta",
                            "content_block_stop", "message_delta", "message_stop"})


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


def sniff_stream(events: Sequence[StreamEvent]) -> bool:
    """The first event that is not a `ping` is an Anthropic message or error event."""
    for event in events[:8]:
        kind = event_type(event)
        if kind == "ping":
            continue
        return kind in _STREAM_EVENTS or (
            kind == "error" and isinstance(event.data, dict) and isinstance(event.data.get("error"), dict))
    return False


# ------------------------------------------------------------------------------------- reading


def read_request(body: Any, source: Source = NO_SOURCE) -> Request:
    """A request body: top-level `system`, `tools`, `tool_choice` and the `messages` as turns."""
    body = expect_dict(body, source, "an Anthropic request body")
    messages = expect_list(body.get("messages"), source.child("messages"), "messages")
    system = list(_content(body.get("system"), source.child("system"), _SYSTEM_BLOCKS))
    turns: list[Turn] = []
    for i, message in enumerate(messages):
        src = source.child("messages", i)
        message = expect_dict(message, src, "a message")
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            raise FormatError(f"unknown message role {role!r}", src.child("role").pointer)
        parts = _content(message.get("content"), src.child("content"),
                         _SYSTEM_BLOCKS if role == "system" else _MESSAGE_BLOCKS)
        if role == "system" and not turns:
            system.extend(parts)
        else:
            turns.extend(split_results(role, parts, src))
    tools = tuple(_tool(t, source.child("tools", i))
                  for i, t in enumerate(optional_list(body.get("tools"), source.child("tools"), "tools")))
    choice, unknown_choice = _tool_choice(body.get("tool_choice"), source.child("tool_choice"))
    params = unmodeled(body, _REQUEST_KEYS)
    if unknown_choice is not None:
        params["tool_choice"] = unknown_choice
    return Request(turns=link(turns), system=tuple(system), tools=tools, tool_choice=choice,
                   model=optional_field(body, "model", str, source), stream=body.get("stream") is True,
                   meta=meta_for(NAME, params))


def read_response(body: Any, source: Source = NO_SOURCE) -> Response:
    """A `message` body as one assistant turn, or an `error` body as an ApiError."""
    body = expect_dict(body, source, "an Anthropic response body")
    if body.get("type") == "error" or ("error" in body and "content" not in body):
        error = expect_dict(body.get("error"), source.child("error"), "error")
        message = error.get("message")
        return Response(error=ApiError(message=message if isinstance(message, str) else dumps_str(error),
                                       type=optional_field(error, "type", str, source.child("error"))),
                        meta=meta_for(NAME, unmodeled(body, ("type", "error"))))
    parts = _content(body.get("content"), source.child("content"), _RESPONSE_BLOCKS)
    usage = body.get("usage")
    return Response(turn=link((Turn(role="assistant", parts=parts, source=source),))[0],
                    finish_reason=optional_field(body, "stop_reason", str, source),
                    model=optional_field(body, "model", str, source),
                    usage=usage if isinstance(usage, dict) else None,
                    meta=meta_for(NAME, unmodeled(body, ("type", "role", "content", "model", "stop_reason",
                                                      "usage"))))


def _content(content: Any, source: Source, allowed: frozenset[str]) -> tuple[Part, ...]:
    """`content` (or `system`): absent, a string, or a list of blocks."""
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
        return Opaque(origin=NAME, value=block, source=source)
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
    if isinstance(value, str):  # invalid on the wire (dossier §3.5 rule 7), kept to be reported
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
                  content=_content(block.get("content"), source.child("content"), _RESULT_BLOCKS),
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
                    parameters=tool.get("input_schema"),
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


def _type(obj: Any) -> str | None:
    """`obj["type"]` when `obj` is an object whose type is a string (safe for set lookups)."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) else None


# ------------------------------------------------------------------------------------- streams


def split_streams(events: Sequence[StreamEvent]) -> list[list[StreamEvent]]:
    """A capture holding several responses back to back → one list per `message_start`."""
    return split_at(events, lambda event: event_type(event) == "message_start")


def assemble_stream(events: Sequence[StreamEvent], source: Source = NO_SOURCE) -> Assembled:
    """One response's events → the `message` body the SDK's stream accumulator ends with (a new
    body: `source` locates nothing in it; event indices go to `chunks` and problems)."""
    assembly = _Assembly()
    for event in events:
        assembly.feed(event)
    return assembly.finish()


# Delta type → (delta field, block field, how it applies, block types it applies to).
_DELTAS: dict[str, tuple[str, str, str, frozenset[str]]] = {
    "text_delta": ("text", "text", "append", frozenset({"text"})),
    "thinking_delta": ("thinking", "thinking", "append", frozenset({"thinking"})),
    "signature_delta": ("signature", "signature", "set", frozenset({"thinking"})),
    "citations_delta": ("citation", "citations", "cite", frozenset({"text"})),
    "compaction_delta": ("content", "content", "set", frozenset({"compaction"})),
    "input_json_delta": ("partial_json", "input", "json", _TOOL_INPUT_BLOCKS),
}
_USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
               "server_tool_use", "output_tokens_details", "iterations")


class _Assembly:
    """Follows anthropic-sdk-python `src/anthropic/lib/streaming/_messages.py` `accumulate_event`
    (and `_beta_messages.py` for `mcp_tool_use` input, `container`, `context_management`):
    `message_start` gives the snapshot; `content_block_start` appends its block; deltas apply to
    `content[index]`; `input_json_delta` pieces are concatenated and parsed (an empty buffer keeps
    the start `input`); `message_delta` sets `stop_reason`/`stop_sequence` and the usage counts it
    carries; `ping` is skipped (`_streaming.py`). Unlike the SDK, the JSON is parsed once at
    `content_block_stop` and nothing raises: every deviation becomes a StreamProblem, once, at the
    event that caused it. A block that opens under another `index` than its position (skipped or
    reused) is reported there, and later events naming that index go to that block — as the sender
    meant — so its deltas and stop are not reported again, nor the block as never stopped."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.chunks: dict[str, int] = {}
        self.problems: list[StreamProblem] = []
        self.open: dict[int, int] = {}  # block position → its content_block_start event
        self.buffers: dict[int, tuple[str, int]] = {}  # position → (partial JSON, first delta event)
        self.wire: dict[int, int] = {}  # the `index` a block opened under → its position
        self.interleaved: set[int] = set()  # positions already reported as interleaved
        self.stopped = False
        self.last: int | None = None

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def feed(self, event: StreamEvent) -> None:
        self.last = event.index
        kind = event_type(event)
        if kind == "ping":
            return
        data = event.data
        if not isinstance(data, dict):
            self.problem("other", f"event payload is not a JSON object: {str(data)[:60]!r}", event.index)
            return
        if kind == "error":
            self.error = self.error or data
            error = data.get("error")
            text = error.get("message") if isinstance(error, dict) else None
            self.problem("error", text if isinstance(text, str) else dumps_str(data)[:200], event.index)
            return
        handler = {"message_start": self.start, "content_block_start": self.block_start,
                   "content_block_delta": self.block_delta, "content_block_stop": self.block_stop,
                   "message_delta": self.message_delta, "message_stop": self.message_stop}.get(kind or "")
        if handler is None:
            return  # the SDK ignores event types it does not know
        if self.message is None and kind != "message_start":
            self.problem("order", f"{kind} before message_start", event.index)
            return
        if self.stopped:
            self.problem("order", f"{kind} after message_stop", event.index)
        handler(data, event.index)

    def start(self, data: dict[str, Any], at: int) -> None:
        message = data.get("message")
        if self.message is not None:
            self.problem("order", "a second message_start in one stream", at)
        elif not isinstance(message, dict):
            self.problem("other", "message_start without a message object", at)
        else:
            content = message.get("content")
            self.message = {**message, "content": list(content) if isinstance(content, list) else []}
            self.chunks[""] = at

    def block_start(self, data: dict[str, Any], at: int) -> None:
        assert self.message is not None
        block = data.get("content_block")
        if not isinstance(block, dict):
            self.problem("other", "content_block_start without a content_block object", at)
            return
        content = self.message["content"]
        position = len(content)
        if as_index(data.get("index")) != position:  # the SDK appends whatever the index says
            self.problem("order", f"content_block_start index {data.get('index')!r}, expected {position}", at)
        content.append(dict(block))
        if as_index(data.get("index")) is not None:
            self.wire[data["index"]] = position
        self.chunks[f"/content/{position}"] = at
        self.open[position] = at
        if _type(block) in _TOOL_INPUT_BLOCKS and not (block.get("id") and block.get("name")):
            self.problem("identity", f"{block.get('type')} block without an id or a name", at)

    def block_delta(self, data: dict[str, Any], at: int) -> None:
        position = self.position(data, at)
        delta = data.get("delta")
        if position is None:
            return
        if not isinstance(delta, dict):
            self.problem("other", "content_block_delta without a delta object", at)
            return
        latest = len(self.message["content"]) - 1  # type: ignore[index]
        if position not in self.open:
            self.problem("order", f"delta for content block {position} after its content_block_stop", at)
        elif position < latest and position not in self.interleaved:  # reported once per block
            self.interleaved.add(position)
            self.problem("order", f"delta for content block {position} after block {latest} started "
                                  "(interleaved blocks)", at)
        spec = _DELTAS.get(_type(delta))  # type: ignore[arg-type]
        block = self.message["content"][position]  # type: ignore[index]
        if spec is None:
            self.problem("other", f"unknown delta type {delta.get('type')!r} ignored", at)
            return
        key, target, how, types = spec
        if _type(block) not in types:
            self.problem("other", f"{delta['type']} for a {block.get('type')} block ignored", at)
            return
        value = delta.get(key)
        if how in ("append", "json") and not isinstance(value, str):
            self.problem("other", f"{delta['type']} without a string `{key}`", at)
        elif how == "append":
            current = block.get(target)
            block[target] = (current if isinstance(current, str) else "") + value
        elif how == "json":
            text, first = self.buffers.get(position, ("", at))
            self.buffers[position] = (text + value, first)
        elif how == "cite":
            current = block.get(target)
            block[target] = [*(current if isinstance(current, list) else ()), value]
        else:
            block[target] = value

    def block_stop(self, data: dict[str, Any], at: int) -> None:
        position = self.position(data, at)
        if position is None:
            return
        if self.open.pop(position, None) is None:
            self.problem("order", f"content block {position} stopped twice", at)
        else:
            self.close(position)

    def message_delta(self, data: dict[str, Any], at: int) -> None:
        assert self.message is not None
        delta = data.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        self.message["stop_reason"] = delta.get("stop_reason")
        self.message["stop_sequence"] = delta.get("stop_sequence")
        # `container`, `stop_details` (set by newer SDKs when not null)
        self.message.update((k, v) for k, v in delta.items()
                            if v is not None and k not in ("content", "usage"))
        if "context_management" in data:
            self.message["context_management"] = data["context_management"]
        usage = data.get("usage")
        if isinstance(usage, dict):
            merged = dict(self.message["usage"]) if isinstance(self.message.get("usage"), dict) else {}
            if "output_tokens" in usage:
                merged["output_tokens"] = usage["output_tokens"]
            merged.update((k, usage[k]) for k in _USAGE_KEYS if usage.get(k) is not None)
            self.message["usage"] = merged
        self.chunks["/stop_reason"] = at

    def message_stop(self, data: dict[str, Any], at: int) -> None:
        self.stopped = True

    def position(self, data: dict[str, Any], at: int) -> int | None:
        """The block a delta/stop event names: the latest block opened under its `index`, else the
        block at that position (one `message_start` carried)."""
        index = as_index(data.get("index"))
        if index in self.wire:
            return self.wire[index]
        content = self.message["content"]  # type: ignore[index]
        if index is None or not 0 <= index < len(content) or not isinstance(content[index], dict):
            self.problem("order", f"{data.get('type')} for unknown content block {data.get('index')!r}", at)
            return None
        return index

    def close(self, position: int) -> None:
        """Parse the streamed tool input; invalid JSON stays a string, for the reader to report."""
        text, first = self.buffers.pop(position, ("", None))
        if not text:
            return
        ok, value = try_loads(text)
        self.message["content"][position]["input"] = value if ok else text  # type: ignore[index]
        if not ok:
            self.problem("arguments", f"streamed tool input is not valid JSON: {text[:80]!r}", first)

    def finish(self) -> Assembled:
        for position, at in sorted(self.open.items()):
            self.problem("truncated", f"content block {position} was never stopped", at)
            self.close(position)
        if self.message is None and self.error is None:
            self.problem("truncated", "no message_start in the stream", self.last)
        elif not self.stopped and self.error is None:
            self.problem("truncated", "the stream ended without message_stop", self.last)
        return Assembled(body=self.message if self.message is not None else self.error,
                         chunks=self.chunks, problems=tuple(self.problems),
                         complete=self.stopped and self.message is not None)


# ------------------------------------------------------------------------------------- writing


def write(conversation: Conversation) -> Written:
    """The request body that replays `conversation`, and what Anthropic cannot carry."""
    return _Writer(conversation).write()


_Item = tuple[dict[str, Any], int, int]  # a wire block, with the canonical turn and part it came from


class _Writer(Writer):
    def __init__(self, conversation: Conversation) -> None:
        super().__init__(conversation)
        self.ids: dict[str, str] = {}  # canonical invocation id → the tool_use id written
        self.names: dict[str, tuple[str, str]] = {}  # canonical invocation id → (its name, as written)
        self.used: set[str] = set()

    def write(self) -> Written:
        conv = self.conv
        body: dict[str, Any] = {}
        if conv.model:
            body["model"] = conv.model
        else:
            self.lose("the conversation names no model; Anthropic requires one")
        body["max_tokens"] = _DEFAULT_MAX_TOKENS
        body.update((k, v) for k, v in own_meta(NAME, conv.meta).items()
                    if k not in ("model", "messages", "system", "tools", "stream"))
        report_foreign(NAME, conv.meta, self.losses, what="request parameters")
        system = [b for k, p in enumerate(conv.system) if (b := self.block(p, "system", None, k)) is not None]
        tools = self.tools()
        choice = self.tool_choice(bool(tools))
        messages = self.messages()
        system += self.leading_system(messages)
        self.thinking_rules(body, messages)
        body.update((k, v) for k, v in (("system", system), ("tools", tools), ("tool_choice", choice)) if v)
        body["messages"] = [{"role": role, "content": [block for block, _, _ in items]}
                            for role, items in messages]
        if not body["messages"]:
            self.lose("no message to send; Anthropic requires at least one")
        return Written(body=body, losses=tuple(self.losses))

    # -- conversation level

    def leading_system(self, messages: list[tuple[str, list[_Item]]]) -> list[dict[str, Any]]:
        """System messages that would open `messages`, taken out of it for the top-level `system`
        (where a reader puts them back)."""
        blocks = []
        while messages and messages[0][0] == "system":
            _, items = messages.pop(0)
            for ti in sorted({ti for _, ti, _ in items}):
                self.lose("a system turn before any other message is written as top-level system", ti)
            blocks += [block for block, _, _ in items]
        return blocks

    def tools(self) -> list[dict[str, Any]]:
        out = []
        for tool in self.conv.tools:
            report_foreign(NAME, tool.meta, self.losses, what=f"details of tool {tool.name!r}")
            if tool.kind == "function":
                wire = {"name": self.tool_name(tool.name, None, None)}
                if tool.description is not None:
                    wire["description"] = tool.description
                wire["input_schema"] = self.schema(tool)
                out.append(_restore(wire, tool.meta))
            elif tool.origin == NAME and isinstance(tool.raw, dict):
                out.append(tool.raw)
            else:
                self.lose(f"{tool.kind} tool {tool.name!r} of {tool.origin or 'another format'} has no "
                          f"Anthropic form; dropped")
        return out

    def schema(self, tool: Tool) -> dict[str, Any]:
        """`input_schema` must be an object schema without a top-level oneOf/anyOf/allOf."""
        schema = tool.parameters
        if _lower_types(schema) != schema:  # Gemini's OpenAPI dialect: "OBJECT", "STRING"
            self.lose(f"tool {tool.name!r}: schema type names lower-cased, as JSON Schema spells them")
            schema = _lower_types(schema)
        if isinstance(schema, dict) and not _SCHEMA_COMBINATORS & schema.keys():
            if schema.get("type") == "object":
                return schema
            if "type" not in schema:
                self.lose(f"tool {tool.name!r}: `\"type\": \"object\"` added to its schema")
                return {"type": "object", **schema}
        if schema is None:
            self.lose(f"tool {tool.name!r} has no parameter schema; an empty object schema is written")
        else:
            self.lose(f"tool {tool.name!r}: schema {dumps_str(schema)[:80]} is not an object schema "
                      f"Anthropic accepts; an empty object schema is written")
        return {"type": "object", "properties": {}}

    def tool_choice(self, has_tools: bool) -> dict[str, Any] | None:
        choice = self.conv.tool_choice
        if choice is None:
            return None
        if not has_tools:
            self.lose(f"tool choice {choice.mode!r} dropped: no tool is declared")
            return None
        if choice.mode not in _CHOICE_TYPES or (choice.mode == "tool" and not choice.name):
            self.lose(f"tool choice {choice.mode!r} has no Anthropic form; dropped")
            return None
        wire: dict[str, Any] = {"type": _CHOICE_TYPES[choice.mode]}
        if choice.mode == "tool":
            wire["name"] = self.tool_name(choice.name, None, None)  # type: ignore[arg-type]
        if choice.parallel is not None:
            if choice.mode == "none":
                self.lose("the parallel-calls setting is not carried with tool choice 'none'")
            else:
                wire["disable_parallel_tool_use"] = not choice.parallel
        return wire

    def tool_name(self, name: str, turn: int | None, part: int | None) -> str:
        safe = safe_tool_name(name)
        if safe != name:
            self.lose(f"tool name {name!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$; written as {safe!r}",
                      turn, part)
        return safe

    # -- turns

    def messages(self) -> list[tuple[str, list[_Item]]]:
        """Turns → messages. Consecutive user and tool turns form one group answering the assistant
        group before it; every call must be answered in that group and every result must answer a
        call of it (dossier §3.5 rules 1, 2)."""
        turns = self.conv.turns
        groups = [(side, [i for i, _ in run]) for side, run in groupby(
            enumerate(turns), key=lambda it: {"tool": "user"}.get(it[1].role, it[1].role))]
        out: list[tuple[str, list[_Item]]] = []
        calls: set[str] = set()  # the calls of the assistant group just written
        for g, (side, indices) in enumerate(groups):
            if side == "assistant":
                following = groups[g + 1] if g + 1 < len(groups) else None
                answered = ({p.invocation_id for i in following[1] for p in turns[i].results()}
                            if following and following[0] == "user" else set())
                messages, calls = self.assistant(indices, answered, last=following is None)
                out += messages
                continue
            if side == "user":
                out += self.user(indices, calls)
            else:
                out += _per_turn("system", [(b, ti, pi) for ti, pi, p in self.each_part(indices)
                                            if (b := self.block(p, "system", ti, pi)) is not None])
            calls = set()
        return out

    def each_part(self, indices: list[int]) -> Iterable[tuple[int, int, Part]]:
        """(turn, part index, part) over the turns; an empty turn is reported as dropped, but for
        a final assistant turn, the one message Anthropic accepts empty (rule 8)."""
        for ti in indices:
            report_foreign(NAME, self.conv.turns[ti].meta, self.losses, ti)
            if not self.conv.turns[ti].parts and not self.final_assistant(ti):
                self.lose("empty turn dropped: Anthropic rejects a message without content", ti)
            for pi, part in enumerate(self.conv.turns[ti].parts):
                yield ti, pi, part

    def assistant(self, indices: list[int], answered: set[str | None],
                  last: bool) -> tuple[list[tuple[str, list[_Item]]], set[str]]:
        """Assistant turns (and the calls written), one message each, unless a block follows a call:
        `tool_use` blocks must close the merged assistant message (rule 3), so then the turns become
        one message with the calls moved last."""
        items: list[_Item] = []
        calls: set[str] = set()
        for ti, pi, part in self.each_part(indices):
            if not isinstance(part, Invocation):
                block = self.block(part, "assistant", ti, pi)
            elif last or part.id in answered:
                block = self.tool_use(part, ti, pi)
                calls.add(part.id)
            else:
                self.lose(f"call {part.name!r} has no result in the next message; dropped "
                          f"(Anthropic rejects an unanswered tool_use)", ti, pi)
                continue
            if block is not None:
                items.append((block, ti, pi))
        first_call = next((k for k, item in enumerate(items) if _type(item[0]) == "tool_use"), len(items))
        moved = [item for item in items[first_call:] if _type(item[0]) != "tool_use"]
        if not moved:
            messages = _per_turn("assistant", items)
            if self.final_assistant(indices[-1]) and not (items and items[-1][1] == indices[-1]):
                messages.append(("assistant", []))  # the final turn, empty or emptied
            return messages, calls
        for _, ti, pi in moved:
            self.lose("moved before the tool calls: Anthropic requires tool_use blocks last", ti, pi)
        for ti in sorted({ti for _, ti, _ in items} - {items[0][1]}):
            self.lose("merged into one assistant message with the turn before it", ti)
        tool_uses = [item for item in items[first_call:] if _type(item[0]) == "tool_use"]
        return [("assistant", items[:first_call] + moved + tool_uses)], calls

    def final_assistant(self, ti: int) -> bool:
        return ti == len(self.conv.turns) - 1 and self.conv.turns[ti].role == "assistant"

    def user(self, indices: list[int], calls: set[str]) -> list[tuple[str, list[_Item]]]:
        """User and tool turns. With results they form one message, results first (rule 4);
        without, one message per turn."""
        results: list[_Item] = []
        others: list[_Item] = []
        answered: set[str | None] = set()
        for ti, pi, part in self.each_part(indices):
            if not isinstance(part, Result):
                block = self.block(part, "user", ti, pi)
                if block is not None:
                    others.append((block, ti, pi))
            elif part.invocation_id not in calls:
                self.lose("result answers no tool_use of the previous assistant message; dropped "
                          "(Anthropic rejects it)", ti, pi)
            elif part.invocation_id in answered:
                self.lose("a second result for the same call; dropped", ti, pi)
            else:
                answered.add(part.invocation_id)
                results.append((self.tool_result(part, ti, pi), ti, pi))
        if not results:
            return _per_turn("user", others)
        turns = self.conv.turns
        clean = ([turns[ti].role for ti in indices] in (["tool"], ["tool", "user"])
                 and all(isinstance(p, Result) for p in turns[indices[0]].parts)
                 and not any(isinstance(p, Result) for ti in indices[1:] for p in turns[ti].parts))
        if not clean:  # reading the message back gives other turns than these
            for ti in indices:
                self.lose("merged into one user message, tool results first (Anthropic requires them "
                          "first)", ti)
        return [("user", results + others)]

    # -- blocks

    def block(self, part: Part, where: str, ti: int | None, pi: int) -> dict[str, Any] | None:
        """One non-call part in `where` (system, user, assistant or result content), or None."""
        report_foreign(NAME, part.meta, self.losses, ti, pi)
        if isinstance(part, Text):
            if part.text.strip():
                return _restore({"type": "text", "text": part.text}, part.meta)
            self.lose("empty text block dropped: Anthropic rejects it", ti, pi)
        elif isinstance(part, Media) and where in ("user", "result"):
            return self.media(part, ti, pi)
        elif isinstance(part, Json) and where in ("user", "result"):
            self.lose("structured content written as JSON text", ti, pi)
            return {"type": "text", "text": dumps_str(part.value)}
        elif isinstance(part, Reasoning) and where == "assistant":
            return self.thinking(part, ti, pi)
        elif own_opaque(NAME, part):
            return part.value
        elif isinstance(part, Opaque):
            self.lose(f"opaque {part.origin} block dropped: Anthropic cannot read it", ti, pi)
        else:
            self.lose(f"{part.type} part cannot be carried in {where} content; dropped", ti, pi)
        return None

    def media(self, part: Media, ti: int | None, pi: int) -> dict[str, Any] | None:
        if part.data is None and part.url is not None:
            media_type, data = split_data_url(part.url)
            if data is not None:
                self.lose("data URL written as a base64 source", ti, pi)
                part = replace(part, url=None, media_type=media_type, data=data)
        mime = part.media_type or ""
        kind = ("image" if part.kind == "image" or mime.startswith("image/") else
                "document" if part.kind == "document" or mime == "application/pdf" else None)
        allowed = _IMAGE_TYPES if kind == "image" else {"application/pdf"}
        source: dict[str, Any]
        if kind is None or (part.data is not None and mime not in allowed):
            self.lose(f"{part.kind} ({part.media_type or 'no media type'}) cannot be sent to Anthropic; "
                      f"dropped", ti, pi)
            return None
        if part.data is not None:
            source = {"type": "base64", "media_type": mime, "data": part.data}
        elif part.url is not None or part.file_id is not None:
            source = ({"type": "url", "url": part.url} if part.url is not None
                      else {"type": "file", "file_id": part.file_id})
            if part.media_type:
                self.lose(f"media type {part.media_type} not carried by a {source['type']} source", ti, pi)
        else:
            self.lose("media without data, URL or file id dropped", ti, pi)
            return None
        if part.kind != kind:
            self.lose(f"{part.kind} written as an Anthropic {kind} block", ti, pi)
        return _restore({"type": kind, "source": source}, part.meta)

    def thinking(self, part: Reasoning, ti: int | None, pi: int) -> dict[str, Any] | None:
        """Only Anthropic's own signed thinking can be replayed (dossier §3.2)."""
        if part.origin != NAME:
            self.lose(f"reasoning from {part.origin or 'an unknown origin'} dropped: Anthropic only "
                      f"accepts its own signed thinking", ti, pi)
            return None
        if part.summary:
            self.lose("reasoning summary not carried", ti, pi)
        if part.redacted is not None:
            if part.text:
                self.lose("text of redacted thinking not carried", ti, pi)
            return _restore({"type": "redacted_thinking", "data": part.redacted}, part.meta)
        if not part.signature:
            self.lose("thinking without a signature dropped: Anthropic rejects it", ti, pi)
            return None
        return _restore({"type": "thinking", "thinking": part.text, "signature": part.signature},
                        part.meta)

    def tool_use(self, part: Invocation, ti: int, pi: int) -> dict[str, Any]:
        report_foreign(NAME, part.meta, self.losses, ti, pi)
        own = own_meta(NAME, part.meta)
        if own.pop("string_input", None):
            self.lose("input was a JSON string on the wire; written as an object", ti, pi)
        arguments = part.arguments
        if part.raw_arguments is not None:
            self.lose(f"arguments are not valid JSON ({part.raw_arguments[:60]!r}); input written as {{}}",
                      ti, pi)
            arguments = {}
        elif not isinstance(arguments, dict):
            self.lose("call had no arguments; input written as {}" if arguments is None else
                      f"arguments are {type_name(arguments)}, not an object; input written as {{}}",
                      ti, pi)
            arguments = {}
        block = {"type": "tool_use", "id": self.call_id(part, ti, pi),
                 "name": self.tool_name(part.name, ti, pi), "input": arguments}
        self.names[part.id] = (part.name, block["name"])  # type: ignore[index]
        return _restore(block, {NAME: own})

    def call_id(self, part: Invocation, ti: int, pi: int) -> str:
        """The call's wire id when Anthropic accepts it (rules 5, 6), else one derived from it or
        from the canonical id, deterministically."""
        wanted = part.wire_id
        if wanted is not None and _ID.fullmatch(wanted) and wanted not in self.used:
            chosen = wanted
            self.used.add(chosen)
        else:
            base = (wanted and _NOT_ID_CHAR.sub("_", wanted)) or "toolu_" + _NOT_ID_CHAR.sub(
                "_", part.id or f"{ti}_{pi}")
            chosen = unique_id(base, self.used)
            reason = ("the call has no id" if wanted is None else
                      f"id {wanted!r} is already used" if _ID.fullmatch(wanted) else
                      f"id {wanted!r} does not match ^[a-zA-Z0-9_-]+$")
            self.lose(f"{reason}; tool_use id {chosen!r} written", ti, pi)
        self.ids[part.id] = chosen
        return chosen

    def tool_result(self, part: Result, ti: int, pi: int) -> dict[str, Any]:
        report_foreign(NAME, part.meta, self.losses, ti, pi)
        wire_id = self.ids[part.invocation_id]  # type: ignore[index]
        if wire_id != part.wire_id:
            self.lose(f"tool_use_id {part.wire_id!r} written as {wire_id!r}, the id of its call", ti, pi)
        # A tool_result names only its call's id, so it reads back under its call's written name:
        # a loss only when that is not the name the result had.
        call_name, written_name = self.names[part.invocation_id]  # type: ignore[index]
        if part.name is not None and part.name != written_name:
            self.lose(f"result name {part.name!r} not carried: a tool_result names only its call's id"
                      + (f" (its call is {call_name!r})" if part.name != call_name else
                         f"; it reads back as {written_name!r}, its call's written name"), ti, pi)
        content = [b for p in part.content if (b := self.block(p, "result", ti, pi)) is not None]
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": wire_id}
        if len(content) == 1 and content[0].keys() == {"type", "text"} and content[0]["type"] == "text":
            block["content"] = content[0]["text"]
        elif content:
            block["content"] = content
        if part.is_error:
            block["is_error"] = True
        return _restore(block, part.meta)

    def thinking_rules(self, body: dict[str, Any], messages: list[tuple[str, list[_Item]]]) -> None:
        """Rule 9 both ways, and no trailing whitespace at the end of a final assistant message."""
        config = body.get("thinking")
        enabled = isinstance(config, dict) and config.get("type") in ("enabled", "adaptive")
        with_calls = [k for k, (role, items) in enumerate(messages)
                      if role == "assistant" and any(b.get("type") == "tool_use" for b, _, _ in items)]
        if enabled and with_calls and with_calls[-1] >= len(messages) - 2 \
                and _type(messages[with_calls[-1]][1][0][0]) not in _THINKING_BLOCKS:
            del body["thinking"]
            enabled = False
            self.lose("thinking turned off: the assistant message with the latest tool calls has no "
                      "thinking block to replay, which Anthropic rejects while thinking is on")
        if not messages or messages[-1][0] != "assistant":
            return
        items = messages[-1][1]
        if not enabled:
            for item in [it for it in items if _type(it[0]) in _THINKING_BLOCKS]:
                self.lose("thinking dropped from the final assistant message: Anthropic rejects it "
                          "while thinking is off", item[1], item[2])
                items.remove(item)
        block, ti, pi = items[-1] if items else ({}, 0, 0)
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str) and text != text.rstrip():
            items[-1] = ({**block, "text": text.rstrip()}, ti, pi)
            self.lose("trailing whitespace removed: Anthropic rejects it at the end of a final "
                      "assistant message", ti, pi)


def _lower_types(schema: Any) -> Any:
    """The schema with every `type` name in lower case (values under enum/const/default untouched)."""
    if isinstance(schema, list):
        return [_lower_types(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type":
            value = ([v.lower() if isinstance(v, str) else v for v in value] if isinstance(value, list)
                     else value.lower() if isinstance(value, str) else value)
        elif key not in ("enum", "const", "default", "examples", "example"):
            value = _lower_types(value)
        out[key] = value
    return out


def _per_turn(role: str, items: list[_Item]) -> list[tuple[str, list[_Item]]]:
    """One message per canonical turn."""
    return [(role, list(run)) for _, run in groupby(items, key=lambda item: item[1])]


def _restore(block: dict[str, Any], meta: Any) -> dict[str, Any]:
    """A wire block plus the details this format kept in meta (`cache_control`, `citations`…)."""
    return {**block, **{k: v for k, v in own_meta(NAME, meta).items() if k not in block}}
