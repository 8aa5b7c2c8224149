"""bedrock: AWS Bedrock Converse (`POST /model/{modelId}/converse`, `/converse-stream`).

Converse differs from the other formats in ways a reader and writer must get right: content blocks
are one-key unions with no `type` (`{"toolUse": {...}}`), results ride in user messages and flag a
failure only with `status: "error"`, `json` result content must be an object, and ConverseStream is
a binary AWS event stream (see `records.eventstream`) whose `toolUse.input` arrives as string
fragments although the body form is an object.

Decisions (dossier §5):

* `cachePoint` marks a cache breakpoint after the block before it, so it is read into that part's
  (or tool's) `meta["bedrock"]["cachePoint"]` and written back right after it; a `cachePoint` with
  no block before it stays an `Opaque` part.
* `guardContent`, `citationsContent`, `searchResult`, server-tool blocks (`toolUse` of type
  `server_tool_use`, a `toolResult` inside an assistant message), documents given as text and any
  unknown block are `Opaque`.
* A `toolResult` names only its `toolUseId`: a result is read without a name of its own, so `link`
  gives a bound result its call's name (an orphan keeps `name` None). The writer reports a lost
  name only when it differs from the name of the call it answers; a result that answers no call is
  dropped, and that loss is reported instead.
* The model id belongs to the URL path; the writer still puts `modelId` in the body, as the AWS CLI
  `--cli-input-json` form and the opencode client do.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import FormatError
from ..jsonio import dumps_str
from ..model import (
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
    expect_dict,
    expect_list,
    link,
    meta_for,
    optional_field,
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
    unmodeled,
    with_meta,
)

NAME = "bedrock"
URL_HINTS: tuple[str, ...] = ("/converse",)

from .base import Facts  # noqa: E402 - one block with FACTS, to move as one

#: What the code outside this module needs to know about Bedrock Converse (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=5,
    messages_key="messages",
    finish_pointer="/stopReason",
    arguments="object",
    arguments_path=("toolUse", "input"),
    failure="flag",
    failure_wording='status: "error"',
    reasoning="reasoningContent block",
    strict_pairing=True,
    merges_roles=False,
    calls_last=True,
    rejects_blank_text=True,
)

# Media blocks: wire `format` → media type (botocore ImageFormat, DocumentFormat, VideoFormat,
# AudioFormat enums).
_FORMATS: dict[str, dict[str, str]] = {
    "image": {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"},
    "document": {
        "pdf": "application/pdf", "csv": "text/csv", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "html": "text/html", "txt": "text/plain", "md": "text/markdown",
    },
    "video": {
        "mkv": "video/x-matroska", "mov": "video/quicktime", "mp4": "video/mp4", "webm": "video/webm",
        "flv": "video/x-flv", "mpeg": "video/mpeg", "mpg": "video/mpg", "wmv": "video/x-ms-wmv",
        "three_gp": "video/3gpp",
    },
    "audio": {
        "mp3": "audio/mpeg", "opus": "audio/opus", "wav": "audio/wav", "aac": "audio/aac",
        "flac": "audio/flac", "mp4": "audio/mp4", "ogg": "audio/ogg", "mkv": "audio/x-matroska",
        "mka": "audio/x-matroska", "x-aac": "audio/x-aac", "m4a": "audio/x-m4a",
        "mpga": "audio/mpga", "pcm": "audio/pcm", "webm": "audio/webm",
    },
}
_WIRE_FORMATS: dict[str, dict[str, str]] = {
    kind: {media_type: fmt for fmt, media_type in reversed(table.items())}
    for kind, table in _FORMATS.items()
}
_WIRE_FORMATS["image"]["image/jpg"] = "jpeg"
_WIRE_FORMATS["audio"]["audio/mp3"] = "mp3"

_MESSAGE_BLOCKS = ("text", "image", "document", "video", "audio", "toolUse", "toolResult",
                   "reasoningContent", "cachePoint")
_RESULT_BLOCKS = ("json", "text", "image", "document", "video", "cachePoint")
_SYSTEM_BLOCKS = ("text", "cachePoint")
_KNOWN_BLOCKS = frozenset(_MESSAGE_BLOCKS + _RESULT_BLOCKS + (
    "guardContent", "citationsContent", "searchResult", "toolAddition", "toolRemoval"))
_RESULT_MEDIA = ("image", "document", "video")

_OWN_KEYS = frozenset({"modelId", "messages", "system", "toolConfig"})
_REQUEST_KEYS = frozenset({"inferenceConfig", "toolConfig", "additionalModelRequestFields",
                           "guardrailConfig", "modelId", "additionalModelResponseFieldPaths"})
_RESPONSE_META = ("metrics", "additionalModelResponseFields", "trace", "performanceConfig",
                  "serviceTier")
_EVENTS = frozenset({"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
                     "messageStop", "metadata"})

_ID = re.compile(r"[a-zA-Z0-9_.:-]{1,64}")
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


# ------------------------------------------------------------------------------------ sniffing


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
    blocks = [b for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
              for b in m["content"]]
    return bool(blocks) and all(isinstance(b, dict) and "type" not in b
                                and not b.keys().isdisjoint(_KNOWN_BLOCKS) for b in blocks)


def sniff_stream(events: Sequence[StreamEvent]) -> bool:
    """Converse events are named (frame header or a one-key wrapper) or carry `contentBlockIndex`."""
    for event in events[:5]:
        data = event.data
        if event.name in _EVENTS or (isinstance(data, dict) and (
                _wrapped(data) is not None or "contentBlockIndex" in data)):
            return True
    return False


# ------------------------------------------------------------------------------------- reading


def read_request(body: Any, source: Source) -> Request:
    """A Converse request: `system[]`, `messages[]`, `toolConfig`; other fields go to meta."""
    body = expect_dict(body, source, "a Converse request")
    model = optional_field(body, "modelId", str, source)
    system = list(_blocks(body.get("system"), source.child("system"), _SYSTEM_BLOCKS, "system"))
    turns: list[Turn] = []
    messages = expect_list(body.get("messages"), source.child("messages"), "messages")
    for i, message in enumerate(messages):
        at = source.child("messages", i)
        message = expect_dict(message, at, "a message")
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            raise FormatError(f"a message role must be user, assistant or system, not {role!r}",
                              at.child("role").pointer)
        parts = _blocks(message.get("content"), at.child("content"), _MESSAGE_BLOCKS, role)
        if role == "system" and not turns:
            system.extend(parts)
        elif role == "user":
            turns.extend(split_results("user", parts, at))
        else:
            turns.append(Turn(role=role, parts=parts, source=at))
    tools, choice, config_meta = _tool_config(body.get("toolConfig"), source.child("toolConfig"))
    meta = unmodeled(body, _OWN_KEYS)
    if config_meta:
        meta["toolConfig"] = config_meta
    return Request(turns=link(turns), system=tuple(system), tools=tools, tool_choice=choice,
                   model=model, meta=meta_for(NAME, meta))


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
    return Response(turn=link((Turn(role="assistant", parts=parts, source=at),))[0],
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
    if part is None:
        return Opaque(origin=NAME, value=block, source=at)
    return replace(part, source=at)


def _union_key(block: dict[str, Any], allowed: tuple[str, ...]) -> str | None:
    """The member a union block holds (the first allowed key: unknown neighbours are tolerated)."""
    return next((k for k in block if k in allowed), None)


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
    schema = spec.get("inputSchema")
    meta = unmodeled(spec, ("name", "description", "inputSchema"))
    inner = at.child("toolSpec")
    return Tool(name=required_field(spec, "name", str, inner),
                description=optional_field(spec, "description", str, inner),
                parameters=schema.get("json") if isinstance(schema, dict) else None,
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


# ------------------------------------------------------------------------------------- streams


def split_streams(events: list[StreamEvent]) -> list[list[StreamEvent]]:
    """One list per response: a new `messageStart` after one was seen opens the next."""
    return split_at(events, lambda event: _unwrap(event)[0] == "messageStart")


def assemble_stream(events: Sequence[StreamEvent], source: Source) -> Assembled:
    """Rebuild the Converse response body the way the official Strands Agents SDK accumulates a
    ConverseStream (strands-agents/sdk-python `src/strands/event_loop/streaming.py`,
    `process_stream` and `handle_content_block_*`): text deltas join, `toolUse.input` fragments join
    and are parsed at the end, reasoning text and signature join, citations wrap their text in a
    `citationsContent` block, an all-empty text block adds nothing. Unlike the SDK, blocks are kept
    by `contentBlockIndex`, invalid JSON input stays a string (the SDK substitutes `{}`), and a
    signature-only reasoning block is kept."""
    assembler = _Assembler()
    for event in events:
        assembler.feed(event)
    return assembler.result(events)


def _wrapped(data: dict[str, Any]) -> str | None:
    """The event name of a boto3-style `{"contentBlockDelta": {...}}` wrapper, if it is one."""
    names = [k for k in data if k in _EVENTS or k.endswith("Exception")]
    return names[0] if len(names) == 1 else None


def _unwrap(event: StreamEvent) -> tuple[str | None, Any]:
    """(event name, payload) for a named frame, a wrapped dict, or a bare logged payload."""
    data = event.data
    if event.name:
        return event.name, data
    if not isinstance(data, dict):
        return None, data
    name = _wrapped(data)
    if name is not None:
        return name, data[name]
    if "contentBlockIndex" in data:
        name = ("contentBlockDelta" if "delta" in data else
                "contentBlockStart" if "start" in data else "contentBlockStop")
    elif "stopReason" in data:
        name = "messageStop"
    elif "role" in data:
        name = "messageStart"
    elif "usage" in data or "metrics" in data:
        name = "metadata"
    return name, data


_DELTAS = ("text", "toolUse", "reasoningContent", "citation")


@dataclass
class _Block:
    """One content block being accumulated."""

    index: int
    opened: int  # the event that opened it
    last: int  # the last event that added to it
    kind: str | None = None  # text | toolUse | reasoning | another `start` member
    text: list[str] = field(default_factory=list)
    citations: list[Any] = field(default_factory=list)
    tool: dict[str, Any] = field(default_factory=dict)
    input: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    raw: Any = None
    stopped: bool = False


class _Assembler:
    def __init__(self) -> None:
        self.role = "assistant"  # the SDK's default before messageStart
        self.blocks: dict[int, _Block] = {}
        self.replaced: list[_Block] = []  # blocks whose index a later contentBlockStart reused
        self.current: _Block | None = None
        self.tail: dict[str, Any] = {}  # stopReason, usage, metrics…
        self.chunks: dict[str, int] = {}
        self.problems: list[StreamProblem] = []
        self.started = self.stopped = False
        self.handlers = {"messageStart": self.message_start, "contentBlockStart": self.block_start,
                         "contentBlockDelta": self.block_delta, "contentBlockStop": self.block_stop,
                         "messageStop": self.message_stop, "metadata": self.metadata}

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def feed(self, event: StreamEvent) -> None:
        name, data = _unwrap(event)
        i = event.index
        handler = self.handlers.get(name or "")
        if handler is None:
            message = data.get("message") if isinstance(data, dict) else None
            if name and (name.endswith("Exception") or isinstance(message, str)):
                self.problem("error", f"{name}: {message}" if message else name, i)
            return  # anything else (comments, unknown events) carries nothing to assemble
        if not isinstance(data, dict):
            self.problem("other", f"{name} payload is {type_name(data)}, not an object", i)
            return
        if not self.started and name != "messageStart":
            self.problem("order", f"{name} before messageStart", i)
            self.started = True
        handler(data, i)

    def message_start(self, data: dict[str, Any], i: int) -> None:
        if "/output/message" in self.chunks:
            self.problem("order", "a second messageStart in one response", i)
            return
        self.started = True
        self.chunks["/output/message"] = i
        if isinstance(data.get("role"), str):
            self.role = data["role"]

    def block_start(self, data: dict[str, Any], i: int) -> None:
        block = self.block(data, i, opening=True)
        start = data.get("start")
        if not isinstance(start, dict) or not start:
            self.problem("other", "contentBlockStart without a start member", i)
            return
        tool = start.get("toolUse")
        if tool is None:
            block.kind, block.raw = next(iter(start.items()))
            return
        if not isinstance(tool, dict) or not self.kind(block, "toolUse", i):
            return
        for key, value in tool.items():
            if value == "" or value is None:
                continue  # empty continuation values never overwrite the first ones
            if key in ("toolUseId", "name") and not isinstance(value, str):
                self.problem("identity", f"block {block.index} {key} is {type_name(value)}", i)
            elif key in block.tool and block.tool[key] != value:
                self.problem("identity", f"block {block.index} {key} changed from "
                             f"{block.tool[key]!r} to {value!r}", i)
            else:
                block.tool[key] = value

    def block_delta(self, data: dict[str, Any], i: int) -> None:
        block = self.block(data, i)
        delta = data.get("delta")
        key = _union_key(delta, _DELTAS) if isinstance(delta, dict) else None
        value = delta.get(key) if key else None
        if key == "text" and isinstance(value, str):
            if self.kind(block, "text", i):
                block.text.append(value)
        elif key == "citation":
            if self.kind(block, "text", i):
                block.citations.append(value)
        elif key == "toolUse" and isinstance(value, dict) and isinstance(value.get("input"), str):
            if self.kind(block, "toolUse", i):
                block.input.append(value["input"])
        elif key == "reasoningContent" and isinstance(value, dict):
            if self.kind(block, "reasoning", i):
                for name, target in (("text", block.reasoning), ("signature", block.signature),
                                     ("redactedContent", block.redacted)):
                    if isinstance(value.get(name), str):
                        target.append(value[name])
        else:
            self.problem("other", f"contentBlockDelta not understood: {dumps_str(delta)[:80]}", i)
            return
        block.last = i

    def block_stop(self, data: dict[str, Any], i: int) -> None:
        index = data.get("contentBlockIndex")
        block = self.blocks.get(index) if as_index(index) is not None else None
        if block is None:
            self.problem("order", f"contentBlockStop for block {index!r}, which never started", i)
        else:
            block.stopped = True

    def message_stop(self, data: dict[str, Any], i: int) -> None:
        if self.stopped:
            if data.get("stopReason") != self.tail.get("stopReason"):
                self.problem("other", f"a second messageStop says {data.get('stopReason')!r}", i)
            return
        self.stopped = True
        for key in ("stopReason", "additionalModelResponseFields"):
            if data.get(key) is not None:
                self.tail[key] = data[key]
                self.chunks["/" + key] = i

    def metadata(self, data: dict[str, Any], i: int) -> None:
        for key, value in data.items():
            if key == "p" or value is None:
                continue  # `p` is the wire's random-length padding
            if isinstance(value, dict) and isinstance(self.tail.get(key), dict):
                value = {**self.tail[key], **value}
            self.tail[key] = value
            self.chunks.setdefault("/" + key, i)

    def block(self, data: dict[str, Any], i: int, opening: bool = False) -> _Block:
        """The block an event addresses, checking the order blocks open, continue and stop in. A
        contentBlockStart on a stopped block's index opens another block (a reused index, reported
        there once): its events then reach it rather than the stopped one."""
        index = data.get("contentBlockIndex")
        if as_index(index) is None:
            index = self.current.index if self.current else 0
            self.problem("order", "event without a contentBlockIndex", i)
        block = self.blocks.get(index)
        if block is None:
            expected = max(self.blocks, default=-1) + 1  # the last index + 1: one gap is one problem
            if index != expected:
                self.problem("order", f"block {index} opened, expected block {expected}", i)
            if self.current and not self.current.stopped:
                self.problem("order", f"block {index} opened while block {self.current.index} is "
                             "open", i)
            block = self.blocks[index] = _Block(index=index, opened=i, last=i)
        elif block.stopped and opening:
            self.problem("order", f"block {index} opened again after its contentBlockStop (index "
                                  "reused by another block)", i)
            self.replaced.append(block)
            block = self.blocks[index] = _Block(index=index, opened=i, last=i)
        elif block.stopped:
            self.problem("order", f"event for block {index} after its contentBlockStop", i)
        elif block is not self.current:
            self.problem("order", f"block {index} continues after block "
                         f"{self.current.index if self.current else '?'} began", i)
        self.current = block
        return block

    def kind(self, block: _Block, kind: str, i: int) -> bool:
        """Fix the block's kind on its first event; a later event of another kind is a problem."""
        if block.kind is None:
            block.kind = kind
        if block.kind != kind:
            self.problem("other", f"{kind} data in a {block.kind} block {block.index}", i)
            return False
        return True

    def result(self, events: Sequence[StreamEvent]) -> Assembled:
        content = []
        for block in sorted([*self.replaced, *self.blocks.values()], key=lambda b: (b.index, b.opened)):
            index = block.index
            if self.stopped and not block.stopped:
                self.problem("order", f"block {index} never got its contentBlockStop", block.opened)
            wire = self.wire(block)
            if wire is not None:
                self.chunks[f"/output/message/content/{len(content)}"] = block.opened
                content.append(wire)
        if not self.stopped:
            self.problem("truncated", "the stream ended before messageStop",
                         events[-1].index if events else None)
        body = {"output": {"message": {"role": self.role, "content": content}}, **self.tail}
        return Assembled(body=body, chunks=self.chunks, problems=tuple(self.problems),
                         complete=self.stopped)

    def wire(self, block: _Block) -> dict[str, Any] | None:
        """The finished block as the non-streamed body holds it (None: nothing to add)."""
        if block.kind == "toolUse":
            return {"toolUse": {**block.tool, "input": self.tool_input(block)}}
        if block.kind == "reasoning":
            if block.reasoning or block.signature:
                text: dict[str, Any] = {"text": "".join(block.reasoning)}
                if block.signature:
                    text["signature"] = "".join(block.signature)
                return {"reasoningContent": {"reasoningText": text}}
            return {"reasoningContent": {"redactedContent": _join_base64(block.redacted)}} \
                if block.redacted else None
        if block.kind == "text":
            text = "".join(block.text)
            if block.citations:
                return {"citationsContent": {"citations": block.citations,
                                             "content": [{"text": text}]}}
            return {"text": text} if text else None
        return None if block.kind is None else {block.kind: block.raw}

    def tool_input(self, block: _Block) -> Any:
        for key in ("toolUseId", "name"):
            if key not in block.tool:
                self.problem("identity", f"toolUse block {block.index} has no {key}", block.opened)
        raw = "".join(block.input)
        if not raw:
            return {}  # a call without arguments streams no input
        value, invalid = parse_arguments(raw)
        if invalid is None:
            return value
        if block.stopped or self.stopped:  # else the truncation explains it
            self.problem("arguments", f"toolUse input is not valid JSON: {raw[:80]!r}", block.last)
        return raw


def _join_base64(pieces: list[str]) -> str:
    """Redacted reasoning arrives as base64 pieces of one blob: join the bytes, not the text."""
    if len(pieces) == 1:
        return pieces[0]
    try:
        return base64.b64encode(b"".join(base64.b64decode(p, validate=True) for p in pieces)).decode()
    except (binascii.Error, ValueError):
        return "".join(pieces)


# ------------------------------------------------------------------------------------- writing


@dataclass
class _Entry:
    """A written block (plus its cachePoint) and the canonical turn/part it came from."""

    role: str  # user | assistant
    blocks: list[dict[str, Any]]
    turn: int
    part: int
    kind: str = "other"  # use | result | other
    id: str | None = None


def write(conversation: Conversation) -> Written:
    """The Converse request replaying `conversation`; what Bedrock cannot carry is reported."""
    return _Writer(conversation).run()


class _Writer(Writer):
    def __init__(self, conv: Conversation) -> None:
        super().__init__(conv)
        self.calls = conv.invocations()
        self.ids = {c.id: _valid_id(c.wire_id, c.id, n) for n, c in enumerate(self.calls.values(), 1)}

    def run(self) -> Written:
        conv = self.conv
        body: dict[str, Any] = {}
        if conv.model:
            body["modelId"] = conv.model
        entries = [e for t, turn in enumerate(conv.turns) for e in self.turn(t, turn)]
        messages = self.messages(entries)
        body["messages"] = [{"role": m[0].role, "content": [b for e in m for b in e.blocks]}
                            for m in messages]
        system = [b for p, part in enumerate(conv.system) for b in self.blocks(part, None, p, "system")]
        if system:
            body["system"] = system
        own = own_meta(NAME, conv.meta)
        body.update({k: v for k, v in own.items() if k not in _OWN_KEYS})
        report_foreign(NAME, conv.meta, self.losses, what="details of the request")
        config = self.tool_config([e for m in messages for e in m], own.get("toolConfig"))
        if config:
            body["toolConfig"] = config
        return Written(body=body, losses=tuple(self.losses))

    # ----- turns and messages

    def turn(self, t: int, turn: Turn) -> list[_Entry]:
        role = "assistant" if turn.role == "assistant" else "user"
        if turn.role == "system":
            self.lose("a system turn after the conversation began is sent as user text "
                      "(Converse has only the top-level system)", t)
        report_foreign(NAME, turn.meta, self.losses, t, what="details of the turn")
        entries = []
        for p, part in enumerate(turn.parts):
            blocks = self.blocks(part, t, p, "message")
            if not blocks:
                continue
            entry = _Entry(role, blocks, t, p)
            if "toolUse" in blocks[0]:
                entry.kind, entry.id = "use", blocks[0]["toolUse"]["toolUseId"]
            elif "toolResult" in blocks[0]:
                entry.kind, entry.id = "result", blocks[0]["toolResult"]["toolUseId"]
            entries.append(entry)
        if not entries:
            self.lose("nothing in this turn can be sent; turn left out", t)
        if role == "assistant" and _stable_sort(entries, lambda e: e.kind == "use"):
            self.lose("content after a toolUse moved before it (Bedrock rejects it there)", t)
        return entries

    def messages(self, entries: list[_Entry]) -> list[list[_Entry]]:
        """Group into alternating messages, dropping calls left unanswered by the next message and
        results that answer nothing, until every toolUse is answered in the next message."""
        while True:
            messages = _group(entries)
            dropped = self.unpaired(messages)
            if not dropped:
                break
            entries = [e for e in entries if id(e) not in dropped]
        for message in messages:
            turns = list(dict.fromkeys(e.turn for e in message))
            if message[0].role == "user" and _stable_sort(message, lambda e: e.kind != "result"):
                for t in turns:
                    self.lose("tool results moved before the other content of their message", t)
            runs = _runs(message)
            for run in runs:
                for t in run if len(run) > 1 else ():
                    others = ", ".join(str(o) for o in run if o != t)
                    self.lose(f"sent in one Bedrock message with turn {others} (roles must "
                              "alternate)", t)
            for t in turns:
                if sum(t in run for run in runs) > 1:
                    self.lose("its tool results and other content read back as separate turns", t)
        return messages

    def unpaired(self, messages: list[list[_Entry]]) -> set[int]:
        dropped: set[int] = set()
        for m, message in enumerate(messages):
            if message[0].role == "user":
                calls = {e.id for e in messages[m - 1] if e.kind == "use"} if m else set()
                for e in message:
                    if e.kind == "result" and e.id not in calls:
                        self.lose(f"result for {e.id!r} answers no toolUse of the previous "
                                  "assistant message; dropped", e.turn, e.part)
                        dropped.add(id(e))
            elif m + 1 < len(messages):
                answered = {e.id for e in messages[m + 1] if e.kind == "result"}
                for e in message:
                    if e.kind == "use" and e.id not in answered:
                        self.lose(f"toolUse {e.id!r} has no toolResult in the next message; "
                                  "dropped (Bedrock requires every toolUse answered there)",
                                  e.turn, e.part)
                        dropped.add(id(e))
        return dropped

    # ----- parts

    def blocks(self, part: Part, t: int | None, p: int, context: str) -> list[dict[str, Any]]:
        """The wire block(s) of one part: the block, then its cachePoint. `context` is message,
        result (inside a toolResult) or system."""
        report_foreign(NAME, part.meta, self.losses, t, p, f"details of the {part.type}")
        block = self.block(part, t, p, context)
        if block is None:
            return []
        cache = own_meta(NAME, part.meta).get("cachePoint")
        return [block] if cache is None else [block, {"cachePoint": cache}]

    def block(self, part: Part, t: int | None, p: int, context: str) -> dict[str, Any] | None:
        where = {"result": " in a tool result", "system": " in the system prompt"}.get(context, "")
        if isinstance(part, Text):
            if not part.text.strip():
                self.lose(f"blank text block{where} dropped (Bedrock rejects blank text)", t, p)
                return None
            return {"text": part.text}
        if isinstance(part, Opaque):
            if own_opaque(NAME, part):
                return part.value
            self.lose(f"a {part.origin} block{where} dropped (only {part.origin} can read it)", t, p)
            return None
        if isinstance(part, Json) and context == "result":
            if isinstance(part.value, dict):
                return {"json": part.value}
            self.lose("a non-object JSON result is wrapped as {\"value\": …} (Bedrock needs an "
                      "object)", t, p)
            return {"json": {"value": part.value}}
        if isinstance(part, Json) and context == "message":
            self.lose("structured content outside a tool result sent as JSON text", t, p)
            return {"text": dumps_str(part.value)}
        if isinstance(part, Media) and context != "system":
            return self.media(part, t, p, context)
        if context != "message":
            self.lose(f"a {part.type} part{where} dropped", t, p)
            return None
        if isinstance(part, Reasoning):
            return self.reasoning(part, t, p)
        if isinstance(part, Invocation):
            return self.invocation(part, t, p)
        if isinstance(part, Result):
            return self.result(part, t, p)
        self.lose(f"a {part.type} part cannot be carried", t, p)
        return None

    def reasoning(self, part: Reasoning, t: int | None, p: int) -> dict[str, Any] | None:
        if part.origin != NAME:
            self.lose(f"reasoning from {part.origin or 'an unknown origin'} dropped (Bedrock only "
                      "replays its own signed reasoning)", t, p)
            return None
        if part.summary or part.wire_id:
            self.lose("reasoning summary and id are not carried", t, p)
        if part.redacted is not None and not part.text and part.signature is None:
            return {"reasoningContent": {"redactedContent": part.redacted}}
        if part.redacted is not None:
            self.lose("redacted reasoning beside reasoning text dropped", t, p)
        text: dict[str, Any] = {"text": part.text}
        if part.signature is not None:
            text["signature"] = part.signature
        return {"reasoningContent": {"reasoningText": text}}

    def invocation(self, part: Invocation, t: int | None, p: int) -> dict[str, Any]:
        wire_id = self.ids.get(part.id) or _valid_id(part.wire_id, part.id, p)
        if wire_id != part.wire_id:
            self.lose(f"call had no id; wrote toolUseId {wire_id!r}" if part.wire_id is None else
                      f"toolUseId {part.wire_id!r} is not valid on Bedrock; wrote {wire_id!r}", t, p)
        arguments = part.arguments
        if arguments is None:
            self.lose("arguments were not valid JSON; written as {}" if part.raw_arguments is not None
                      else "call had no arguments; written as {}", t, p)
            arguments = {}
        use = {"toolUseId": wire_id, "name": self.tool_name(part.name, t, p), "input": arguments}
        kind = own_meta(NAME, part.meta).get("type")
        if kind is not None:
            use["type"] = kind
        return {"toolUse": use}

    def result(self, part: Result, t: int | None, p: int) -> dict[str, Any]:
        call = self.calls.get(part.invocation_id) if part.invocation_id else None
        wire_id = self.ids[call.id] if call else part.wire_id if _is_valid_id(part.wire_id) else None
        if call and wire_id != part.wire_id:
            self.lose(f"result had no id; wrote toolUseId {wire_id!r}" if part.wire_id is None else
                      f"toolUseId {part.wire_id!r} rewritten to {wire_id!r}", t, p)
        if call is not None and part.name is not None and part.name != call.name:
            self.lose(f"tool name {part.name!r} on the result is not carried (Bedrock binds by "
                      "toolUseId only)", t, p)
        content = [b for c in part.content for b in self.blocks(c, t, p, "result")]
        if part.is_error and not content:
            self.lose("failed result had no content; wrote text 'error' (Bedrock needs content "
                      "with status error)", t, p)
            content = [{"text": "error"}]
        out: dict[str, Any] = {"toolUseId": wire_id, "content": content}
        own = own_meta(NAME, part.meta)
        status = "error" if part.is_error else own.get("status")
        if status is not None:
            out["status"] = status
        if own.get("type") is not None:
            out["type"] = own["type"]
        return {"toolResult": out}

    def media(self, part: Media, t: int | None, p: int, context: str) -> dict[str, Any] | None:
        if part.kind not in (_RESULT_MEDIA if context == "result" else _FORMATS):
            self.lose(f"{part.kind} media dropped (Bedrock cannot carry it"
                      f"{' in a tool result' if context == 'result' else ''})", t, p)
            return None
        media_type, data = part.media_type, part.data
        if data is None and part.url and part.url.startswith("data:"):
            url_type, data = split_data_url(part.url)
            media_type = media_type or url_type
            self.lose("data URL sent as bytes", t, p)
        fmt = _WIRE_FORMATS[part.kind].get(media_type or "")
        if fmt is None:
            self.lose(f"{part.kind} of type {media_type or 'unknown'} dropped (not a Bedrock "
                      f"{part.kind} format)", t, p)
            return None
        own = own_meta(NAME, part.meta)
        if data is not None:
            source: dict[str, Any] = {"bytes": data}
        elif part.url and part.url.startswith("s3://"):
            location = {"uri": part.url}
            if own.get("bucketOwner") is not None:
                location["bucketOwner"] = own["bucketOwner"]
            source = {"s3Location": location}
        else:
            self.lose(f"{part.kind} by URL or file id dropped (Bedrock needs bytes or an S3 "
                      "location)", t, p)
            return None
        block: dict[str, Any] = {"format": fmt}
        if part.kind == "document":
            name = own.get("name")
            if not isinstance(name, str):
                name = f"document-{t}-{p}"
                self.lose(f"document had no name; wrote {name!r}", t, p)
            block["name"] = name
        block["source"] = source
        block.update({k: own[k] for k in ("context", "citations") if own.get(k) is not None})
        return {part.kind: block}

    # ----- tools

    def tool_name(self, name: str, t: int | None, p: int | None) -> str:
        safe = safe_tool_name(name)
        if safe != name:
            self.lose(f"tool name {name!r} is not valid on Bedrock; wrote {safe!r}", t, p)
        return safe

    def tool_config(self, entries: list[_Entry], extra: Any) -> dict[str, Any]:
        tools: list[dict[str, Any]] = []
        for tool in self.conv.tools:
            report_foreign(NAME, tool.meta, self.losses, what=f"details of the tool {tool.name!r}")
            own = own_meta(NAME, tool.meta)
            if tool.kind == "function":
                tools.append({"toolSpec": self.tool_spec(tool, own)})
            elif tool.origin == NAME and isinstance(tool.raw, dict):
                tools.append(tool.raw)
            else:
                self.lose(f"{tool.kind} tool {tool.name!r} dropped (not a Bedrock tool)")
                continue
            if own.get("cachePoint") is not None:
                tools.append({"cachePoint": own["cachePoint"]})
        if any(e.kind in ("use", "result") for e in entries) and not any("toolSpec" in t for t in tools):
            names = list(dict.fromkeys(e.blocks[0]["toolUse"]["name"] for e in entries
                                       if e.kind == "use")) or ["tool"]
            self.lose(f"no tools declared; wrote an empty-schema toolSpec for {', '.join(names)} "
                      "(Bedrock needs toolConfig beside toolUse/toolResult blocks)")
            tools.extend({"toolSpec": {"name": n, "inputSchema": {"json": dict(_EMPTY_SCHEMA)}}}
                         for n in names)
        config: dict[str, Any] = {"tools": tools} if tools else {}
        choice = self.tool_choice()
        if choice is not None and tools:
            config["toolChoice"] = choice
        elif choice is not None:
            self.lose("tool choice dropped: no tools to choose from")
        if config and isinstance(extra, dict):
            config.update({k: v for k, v in extra.items() if k not in config})
        return config

    def tool_spec(self, tool: Tool, own: dict[str, Any]) -> dict[str, Any]:
        spec: dict[str, Any] = {"name": self.tool_name(tool.name, None, None)}
        if tool.description:
            spec["description"] = tool.description
        elif tool.description is not None:
            self.lose(f"empty description of tool {tool.name!r} left out")
        parameters = tool.parameters
        if parameters is None:
            self.lose(f"tool {tool.name!r} had no schema; wrote an empty object schema")
            parameters = dict(_EMPTY_SCHEMA)
        spec["inputSchema"] = {"json": parameters}
        spec.update({k: v for k, v in own.items() if k != "cachePoint"})
        return spec

    def tool_choice(self) -> dict[str, Any] | None:
        choice = self.conv.tool_choice
        if choice is None:
            return None
        if choice.parallel is not None:
            self.lose("parallel tool-call control dropped (Converse has none)")
        if choice.mode == "auto":
            return {"auto": {}}
        if choice.mode == "required":
            return {"any": {}}
        if choice.mode == "tool" and choice.name:
            return {"tool": {"name": self.tool_name(choice.name, None, None)}}
        self.lose(f"tool choice {choice.mode!r} dropped (Converse has auto, any and tool)")
        return None


def _group(entries: Iterable[_Entry]) -> list[list[_Entry]]:
    """Consecutive entries of one role form one message (Converse roles must alternate)."""
    messages: list[list[_Entry]] = []
    for entry in entries:
        if messages and messages[-1][0].role == entry.role:
            messages[-1].append(entry)
        else:
            messages.append([entry])
    return messages


def _stable_sort(entries: list[_Entry], key: Callable[[_Entry], bool]) -> bool:
    """Sort in place, stably, by `key` (False first); True when the order changed."""
    ordered = sorted(entries, key=key)
    changed = any(a is not b for a, b in zip(ordered, entries, strict=True))
    entries[:] = ordered
    return changed


def _runs(message: list[_Entry]) -> list[list[int]]:
    """The canonical turns each read-back turn of a message would hold: an assistant message reads
    back as one turn, a user message as one turn per run of results or other content."""
    runs: list[list[int]] = []
    last: bool | None = None
    for e in message:
        key = e.role == "assistant" or e.kind == "result"
        if key != last:
            runs.append([])
            last = key
        if e.turn not in runs[-1]:
            runs[-1].append(e.turn)
    return runs


def _is_valid_id(value: str | None) -> bool:
    return value is not None and _ID.fullmatch(value) is not None


def _valid_id(wire_id: str | None, own_id: str, n: int) -> str:
    """The wire id when Bedrock accepts it, else `tooluse_<own id>` (deterministic)."""
    if wire_id is not None and _ID.fullmatch(wire_id):
        return wire_id
    return "tooluse_" + (re.sub(r"[^a-zA-Z0-9_.:-]", "_", own_id)[:56] or str(n))
