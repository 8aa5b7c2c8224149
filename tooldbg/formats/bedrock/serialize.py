"""Writing a canonical conversation as the Converse request that replays it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ...jsonio import dumps_str
from ...model import Conversation, Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text, Tool, Turn
from ..base import Written
from ..meta import own_meta
from ..reading import split_data_url
from ..writer import Fitting, Writer, is_own_opaque, report_foreign, writer_target
from .common import _FORMATS, _OWN_KEYS, FACTS, NAME

_WIRE_FORMATS: dict[str, dict[str, str]] = {
    kind: {media_type: fmt for fmt, media_type in reversed(table.items())}
    for kind, table in _FORMATS.items()
}
_WIRE_FORMATS["image"]["image/jpg"] = "jpeg"
_WIRE_FORMATS["audio"]["audio/mp3"] = "mp3"

_RESULT_MEDIA = ("image", "document", "video")
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass
class _Entry:
    """A written block (plus its cachePoint) and the canonical turn/part it came from."""

    role: str  # user | assistant
    blocks: list[dict[str, Any]]
    turn: int
    part: int
    kind: str = "other"  # use | result | other
    id: str | None = None


def write(conversation: Conversation, *, target: str | None = None, origins: bool = True) -> Written:
    """The Converse request replaying `conversation`; what Bedrock cannot carry is reported."""
    return _Writer(conversation, writer_target(NAME, target)).recording(
        origins, partial(write, conversation, target=target)).run()


class _Writer(Writer):
    def __init__(self, conv: Conversation, target: str) -> None:
        super().__init__(conv)
        self.calls = self.conv.invocations()
        self.fit = Fitting(conv, target, self.losses, id_prefix="tooluse_")  # toolUseIds and names

    def run(self) -> Written:
        conv = self.conv
        body: dict[str, Any] = {}
        entries = [e for t, turn in enumerate(conv.turns) for e in self.turn(t, turn)]
        messages = self.messages(entries)
        body["messages"] = [{"role": m[0].role,
                             "content": [self.carries(b, e.turn, e.part) for e in m for b in e.blocks]}
                            for m in messages]
        system = [b for p, part in enumerate(conv.system) for b in self.blocks(part, None, p, "system")]
        if system:
            body["system"] = system
        own = own_meta(NAME, conv.meta)
        body.update({k: v for k, v in own.items() if k not in _OWN_KEYS})
        self.write_settings(body, FACTS, self.fit.target)
        self.report_parameters(FACTS)
        config = self.tool_config([e for m in messages for e in m], own.get("toolConfig"))
        if config:
            body["toolConfig"] = config
        self.ends_on_calls(FACTS.title, "a toolResult")
        return Written(body=body, losses=tuple(self.losses), origins=self.origins(body))

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
            if is_own_opaque(part, NAME):
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
        lost = [name for name, had in (("summary", part.summary), ("id", part.wire_id)) if had]
        if lost:
            self.lose(f"reasoning {' and '.join(lost)} {'are' if len(lost) > 1 else 'is'} not carried", t, p)
        if part.redacted is not None and not part.text and part.signature is None:
            return {"reasoningContent": {"redactedContent": part.redacted}}
        if part.redacted is not None:
            self.lose("redacted reasoning beside reasoning text dropped", t, p)
        text: dict[str, Any] = {"text": part.text}
        if part.signature is not None:
            text["signature"] = part.signature
        return {"reasoningContent": {"reasoningText": text}}

    def invocation(self, part: Invocation, t: int | None, p: int) -> dict[str, Any]:
        wire_id = self.fit.call_id(part, t, p)
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
        wire_id = self.fit.result_id(part, t, p)
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
        return self.fit.name(name, t, p)

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
            self.lose_setting("tool_choice", self.conv.tool_choice.mode if self.conv.tool_choice else None,
                              "not carried", "no tools to choose from")
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
            self.lose_setting("tool_choice.parallel", choice.parallel, "not carried",
                              "Bedrock Converse has no such control")
        if choice.mode == "auto":
            return {"auto": {}}
        if choice.mode == "required":
            return {"any": {}}
        if choice.mode == "tool" and choice.name:
            return {"tool": {"name": self.tool_name(choice.name, None, None)}}
        self.lose_setting("tool_choice", choice.mode, "not carried",
                          "Bedrock Converse has auto, any and tool")
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
