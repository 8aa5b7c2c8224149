"""ConverseStream captures: split into responses and rebuilt into the body `Converse` returns. The
binary AWS event-stream framing is decoded before this, in `records.eventstream`."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...jsonio import dumps_str
from ...shorten import clip, quote
from ...source import Source
from ..base import Assembled, StreamEvent, StreamProblem
from ..reading import as_index, parse_arguments, split_at, type_name
from .common import _union_key

_EVENTS = frozenset({"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
                     "messageStop", "metadata"})


def sniff_stream(events: Sequence[StreamEvent]) -> bool:
    """Converse events are named (frame header or a one-key wrapper) or carry `contentBlockIndex`."""
    for event in events[:5]:
        data = event.data
        if event.name in _EVENTS or (isinstance(data, dict) and (
                _wrapped(data) is not None or "contentBlockIndex" in data)):
            return True
    return False


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
                             f"{quote(block.tool[key])} to {quote(value)}", i)
            else:
                block.tool[key] = value

    def block_delta(self, data: dict[str, Any], i: int) -> None:
        block = self.block(data, i)
        delta = data.get("delta")
        key = _union_key(delta, _DELTAS) if isinstance(delta, dict) else None
        value = delta.get(key) if key and isinstance(delta, dict) else None
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
            self.problem("other", f"contentBlockDelta not understood: {clip(dumps_str(delta), 80)}", i)
            return
        block.last = i

    def block_stop(self, data: dict[str, Any], i: int) -> None:
        raw = data.get("contentBlockIndex")
        index = as_index(raw)
        block = self.blocks.get(index) if index is not None else None
        if block is None:
            self.problem("order", f"contentBlockStop for block {quote(raw)}, which never started", i)
        else:
            block.stopped = True

    def message_stop(self, data: dict[str, Any], i: int) -> None:
        if self.stopped:
            if data.get("stopReason") != self.tail.get("stopReason"):
                self.problem("other", f"a second messageStop says {quote(data.get('stopReason'))}", i)
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
        index = as_index(data.get("contentBlockIndex"))
        if index is None:
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
        content: list[dict[str, Any]] = []
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
            said = "".join(block.text)
            if block.citations:
                return {"citationsContent": {"citations": block.citations,
                                             "content": [{"text": said}]}}
            return {"text": said} if said else None
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
            self.problem("arguments", f"toolUse input is not valid JSON: {quote(raw, 80)}", block.last)
        return raw


def _join_base64(pieces: list[str]) -> str:
    """Redacted reasoning arrives as base64 pieces of one blob: join the bytes, not the text."""
    if len(pieces) == 1:
        return pieces[0]
    try:
        return base64.b64encode(b"".join(base64.b64decode(p, validate=True) for p in pieces)).decode()
    except (binascii.Error, ValueError):
        return "".join(pieces)
