"""Anthropic Messages streams: telling its SSE events apart, and assembling them into the
`message` body they stand for, with what went wrong on the way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...jsonio import dumps_str, try_loads
from ...shorten import clip, quote
from ...source import NO_SOURCE, Source
from ..base import Assembled, StreamEvent, StreamProblem
from ..reading import as_index, event_type, event_types, split_at
from .common import _type

_TOOL_INPUT_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})  # input streams
_STREAM_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta",
                            "content_block_stop", "message_delta", "message_stop"})


def sniff_stream(events: Sequence[StreamEvent]) -> bool:
    """The first event that is not a `ping` is an Anthropic message or error event."""
    for event in events[:8]:
        kind = event_type(event)
        if kind == "ping":
            continue
        return kind in _STREAM_EVENTS or (
            kind == "error" and isinstance(event.data, dict) and isinstance(event.data.get("error"), dict))
    return False


# ------------------------------------------------------------------------------------- streams


def split_streams(events: Sequence[StreamEvent]) -> list[list[StreamEvent]]:
    """A capture holding several responses back to back → one list per `message_start`. A capture
    of one response (one `message_start`, or none) is one list, told by counting its starts among
    the event types read at once (`event_types`), not by asking each event."""
    if event_types(events).count("message_start") <= 1:
        return [list(events)] if events else []
    return split_at(events, lambda event: event_type(event) == "message_start")


def assemble_stream(events: Sequence[StreamEvent], source: Source = NO_SOURCE) -> Assembled:
    """One response's events → the `message` body the SDK's stream accumulator ends with (a new
    body: `source` locates nothing in it; event indices go to `chunks` and problems)."""
    assembly = _Assembler()
    assembly.feed_all(events)
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


class _Assembler:
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
        self.buffers: dict[int, tuple[list[str], int]] = {}  # position → (partial JSON, first delta event)
        #: (block id, key) → (the block, the pieces of its streamed text so far): joined once, when
        #: the stream is assembled — a string added to at each delta is copied whole each time (a
        #: 400 kB thinking block in 4-character deltas took 0.8 s to check, a 1.6 MB one 28 s)
        self.texts: dict[tuple[int, str], tuple[dict[str, Any], list[str]]] = {}
        self.wire: dict[int, int] = {}  # the `index` a block opened under → its position
        self.interleaved: set[int] = set()  # positions already reported as interleaved
        self.stopped = False
        self.last: int | None = None

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def feed_all(self, events: Sequence[StreamEvent]) -> None:
        """Each event fed in turn, as `feed` feeds it. The usual event — an object payload whose
        `type` names a step (that is then its `event_type`), between `message_start` and
        `message_stop`: `feed` would find nothing wrong with it — goes straight to its step."""
        handlers = _HANDLERS
        for event in events:
            data = event.data
            kind = data.get("type") if type(data) is dict else None
            handler = handlers.get(kind) if type(kind) is str else None
            if handler is not None and self.message is not None and not self.stopped:
                handler(self, data, event.index)
            else:
                self.feed(event)
        if events:
            self.last = events[-1].index

    def feed(self, event: StreamEvent) -> None:
        self.last = event.index
        kind = event_type(event)
        if kind == "ping":
            return
        data = event.data
        if not isinstance(data, dict):
            self.problem("other", f"event payload is not a JSON object: {quote(data)}", event.index)
            return
        if kind == "error":
            self.error = self.error or data
            error = data.get("error")
            text = error.get("message") if isinstance(error, dict) else None
            self.problem("error", text if isinstance(text, str) else clip(dumps_str(data), 200), event.index)
            return
        handler = _HANDLERS.get(kind or "")
        if handler is None:
            return  # the SDK ignores event types it does not know
        if self.message is None and kind != "message_start":
            self.problem("order", f"{kind} before message_start", event.index)
            return
        if self.stopped:
            self.problem("order", f"{kind} after message_stop", event.index)
        handler(self, data, event.index)

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
        index = as_index(data.get("index"))
        if index != position:  # the SDK appends whatever the index says
            self.problem("order", f"content_block_start index {quote(data.get('index'))}, "
                         f"expected {position}", at)
        content.append(dict(block))
        if index is not None:
            self.wire[index] = position
        self.chunks[f"/content/{position}"] = at
        self.open[position] = at
        if _type(block) in _TOOL_INPUT_BLOCKS and not (block.get("id") and block.get("name")):
            self.problem("identity", f"{block.get('type')} block without an id or a name", at)

    def block_delta(self, data: dict[str, Any], at: int) -> None:
        index = data.get("index")
        position = self.wire.get(index) if type(index) is int else None  # (`as_index` when it is one)
        if position is None:
            position = self.position(index, data, at)
        delta = data.get("delta")
        if position is None:
            return
        if not isinstance(delta, dict):
            self.problem("other", "content_block_delta without a delta object", at)
            return
        content = self.message["content"]  # type: ignore[index]
        if position not in self.open:
            self.problem("order", f"delta for content block {position} after its content_block_stop", at)
        elif position < len(content) - 1 and position not in self.interleaved:  # reported once per block
            self.interleaved.add(position)
            self.problem("order", f"delta for content block {position} after block {len(content) - 1} "
                                  "started (interleaved blocks)", at)
        kind = delta.get("type")
        spec = _DELTAS.get(kind) if isinstance(kind, str) else None
        block = content[position]
        if spec is None:
            self.problem("other", f"unknown delta type {quote(kind)} ignored", at)
            return
        key, target, how, types = spec
        block_kind = block.get("type")
        if not isinstance(block_kind, str) or block_kind not in types:
            self.problem("other", f"{kind} for a {block_kind} block ignored", at)
            return
        value = delta.get(key)
        if how == "append" or how == "json":
            if not isinstance(value, str):
                self.problem("other", f"{kind} without a string `{key}`", at)
            elif how == "append":
                if (text := self.texts.get((id(block), target))) is None:
                    current = block.get(target)
                    first = current if isinstance(current, str) else ""
                    self.texts[id(block), target] = (block, [first, value])
                else:
                    text[1].append(value)
            elif (buffer := self.buffers.get(position)) is None:
                self.buffers[position] = ([value], at)
            else:  # (the pieces joined once, at the block's stop: not copied at each delta)
                buffer[0].append(value)
        elif how == "cite":
            current = block.get(target)
            block[target] = [*(current if isinstance(current, list) else ()), value]
        else:
            block[target] = value

    def block_stop(self, data: dict[str, Any], at: int) -> None:
        index = data.get("index")
        position = self.wire.get(index) if type(index) is int else None  # (`as_index` when it is one)
        if position is None:
            position = self.position(index, data, at)
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

    def position(self, index: Any, data: dict[str, Any], at: int) -> int | None:
        """The block a delta/stop event names by `index` (its `data["index"]`), asked when `wire` has
        no block opened under it as an `int` (the steps look that usual case up themselves: a call
        less per event): the latest block opened under it, else the block at that position (one
        `message_start` carried)."""
        index = as_index(index)
        if index in self.wire:
            return self.wire[index]
        content = self.message["content"]  # type: ignore[index]
        if index is None or not 0 <= index < len(content) or not isinstance(content[index], dict):
            self.problem("order", f"{quote(data.get('type'))} for unknown content block "
                         f"{quote(data.get('index'))}", at)
            return None
        return index

    def close(self, position: int) -> None:
        """Parse the streamed tool input; invalid JSON stays a string, for the reader to report."""
        pieces, first = self.buffers.pop(position, ((), None))
        text = "".join(pieces)
        if not text:
            return
        ok, value = try_loads(text)
        self.message["content"][position]["input"] = value if ok else text  # type: ignore[index]
        if not ok:
            self.problem("arguments", f"streamed tool input is not valid JSON: {quote(text, 80)}", first)

    def finish(self) -> Assembled:
        for (_, key), (block, pieces) in self.texts.items():
            block[key] = "".join(pieces)
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


#: Event type → the `_Assembler` step for it (built once, not per event).
_HANDLERS: dict[str, Callable[[_Assembler, dict[str, Any], int], None]] = {
    "message_start": _Assembler.start, "content_block_start": _Assembler.block_start,
    "content_block_delta": _Assembler.block_delta, "content_block_stop": _Assembler.block_stop,
    "message_delta": _Assembler.message_delta, "message_stop": _Assembler.message_stop,
}
