"""Writing a conversation as a stateless Responses request, with what it could not carry."""

from __future__ import annotations

import copy
from functools import partial
from typing import Any

from ...jsonio import dumps_str
from ...model import Conversation, Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text, Tool, Turn
from ..base import Written
from ..freeform import is_freeform, responses_tool
from ..meta import STARTS_MESSAGE, own_meta
from ..settings import request_loss
from ..writer import Fitting, Writer, is_own_opaque, report_foreign, writer_target
from .common import _MODES, FACTS, NAME, _media_type, _read_choice, _text_type

#: Replaying these next to the whole history would duplicate it, so the writer leaves them out.
_STATEFUL = ("previous_response_id", "conversation")


def write(conversation: Conversation, *, target: str | None = None, origins: bool = True) -> Written:
    """The stateless request that replays the conversation (`store` and the like come from meta)."""
    writer = _Writer(conversation, writer_target(NAME, target)).recording(
        origins, partial(write, conversation, target=target))
    body = writer.body()
    return Written(body=body, losses=tuple(writer.losses), origins=writer.origins(body))


class _Writer(Writer):
    FREEFORM = True  # (`custom_tool_call` and its `input`)

    def __init__(self, conv: Conversation, target: str) -> None:
        super().__init__(conv)
        self.fit = Fitting(conv, target, self.losses, id_prefix="call_")  # call_ids and tool names
        self.call_names: dict[str, str] = {}  # call_id written → written name of the latest call with it
        self.pairs: list[tuple[bool, str, int, int]] = []  # (is a call, call_id, turn, part) in order
        self.open: tuple[dict[str, Any], Any] | None = None  # the message parts are appended to

    def body(self) -> dict[str, Any]:
        conv = self.conv
        body: dict[str, Any] = {}
        self.write_model(body, FACTS)
        self.report_parameters(FACTS)
        items = self.system(body)
        last_role = None
        for t, turn in enumerate(conv.turns):
            written = self.turn(t, turn, last_role is not None)
            if written and turn.role == last_role and turn.role in ("assistant", "tool"):
                self.lose(f"merged with the previous {turn.role} turn: Responses items have no turn boundary",
                          t)
            if written:
                items.extend(written)
                last_role = turn.role
        body["input"] = items
        tools = [w for i, t in enumerate(conv.tools) if (w := self.tool(i, t)) is not None]
        if tools:
            body["tools"] = tools
        body.update(self.choice())
        for key, value in own_meta(NAME, conv.meta).items():
            if key in _STATEFUL:
                self.lose(request_loss(key, value, "not carried", "the request replays the whole history"))
            elif key != "tool_choice":
                body.setdefault(key, value)
        self.write_settings(body, FACTS, self.fit.target)
        self.check_pairs()
        return body

    # -- system, tools, tool choice

    def system(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The first plain system text → `instructions`; the rest → leading system/developer messages."""
        parts = list(enumerate(self.conv.system))
        for i, part in parts:
            report_foreign(NAME, part.meta, self.losses, None, i)
        lead = parts[0][1] if parts else None
        if isinstance(lead, Text) and not own_meta(NAME, lead.meta):
            body["instructions"] = lead.text
            parts.pop(0)
        items: list[dict[str, Any]] = []
        for i, part in parts:
            fields = own_meta(NAME, part.meta)
            role = fields.get("role")
            if role not in ("system", "developer"):
                self.lose("sent as a system message: instructions hold a single text", None, i)
                role = "system"
            self.add(items, role, _message_fields(fields), part, None, i,
                     opens=bool(fields.get(STARTS_MESSAGE)))
        return items

    def tool(self, index: int, tool: Tool) -> dict[str, Any] | None:
        report_foreign(NAME, tool.meta, self.losses)
        if tool.kind == "function":
            out: dict[str, Any] = {"type": "function", "name": self.fit.name(tool.name)}
            if tool.description is not None:
                out["description"] = tool.description
            return {**out, "parameters": tool.parameters, **own_meta(NAME, tool.meta)}
        if tool.origin == NAME and isinstance(tool.raw, dict):
            return copy.deepcopy(tool.raw)
        if tool.kind == "custom" and tool.origin == "openai-chat" and isinstance(tool.raw, dict):
            return responses_tool(tool.raw, self.fit.name(tool.name))
        self.lose(f"tool {index} ({tool.origin or 'unknown'} {tool.kind} {tool.name!r}) dropped: "
                  "Responses cannot declare it", None)
        return None

    def choice(self) -> dict[str, Any]:
        choice = self.conv.tool_choice
        if choice is None:
            return {}
        verbatim = own_meta(NAME, self.conv.meta).get("tool_choice")
        out: dict[str, Any] = {}
        renamed = choice.name is not None and self.fit.written_name(choice.name) != choice.name
        if verbatim is not None and not renamed and _read_choice(verbatim, choice.parallel)[0] == choice:
            out["tool_choice"] = verbatim
        elif choice.mode in _MODES:
            out["tool_choice"] = choice.mode
        elif choice.mode == "tool" and choice.name:
            kind = next((t.kind for t in self.conv.tools if t.name == choice.name), "function")
            out["tool_choice"] = {"type": "custom" if kind == "custom" else "function",
                                  "name": self.fit.name(choice.name)}
        else:
            self.lose_setting("tool_choice", choice.mode, "written as auto",
                              "OpenAI Responses has no such tool choice")
            out["tool_choice"] = "auto"
        if choice.parallel is not None:
            out["parallel_tool_calls"] = choice.parallel
        return out

    # -- turns

    def turn(self, t: int, turn: Turn, after_turns: bool) -> list[dict[str, Any]]:
        report_foreign(NAME, turn.meta, self.losses, t)
        if turn.role == "system" and not after_turns:
            self.lose("a leading system turn reads back as the system prompt", t)
        items: list[dict[str, Any]] = []
        reasoning: int | None = None  # part index of the last reasoning item written
        fields = {k: v for k, v in own_meta(NAME, turn.meta).items() if k != "role"}
        role = own_meta(NAME, turn.meta).get("role", "system") if turn.role == "system" else turn.role
        for p, part in enumerate(turn.parts):
            report_foreign(NAME, part.meta, self.losses, t, p)
            if not _allowed(turn.role, part):
                self.lose(f"{_a(part)} part cannot be carried in a {turn.role} turn", t, p)
            elif isinstance(part, Reasoning):
                item = self.reasoning(part, t, p)
                if item is not None:
                    items.append(self.carries(item, t, p))
                    reasoning = p
            elif isinstance(part, Invocation):
                items.append(self.carries(self.call(part, t, p, reasoning is not None), t, p))
            elif isinstance(part, Result):
                items.append(self.carries(self.result(part, t, p), t, p))
            elif isinstance(part, Opaque) and not own_meta(NAME, part.meta).get("content"):
                if is_own_opaque(part, NAME):
                    items.append(self.carries(copy.deepcopy(part.value), t, p))
                else:
                    self.foreign_opaque(part, t, p)
            else:
                message = fields
                if turn.role == "assistant":
                    message = _message_fields(own_meta(NAME, part.meta))
                self.add(items, role, message, part, t, p, typed=reasoning is not None)
        if items and items[-1].get("type") == "reasoning":
            items.pop()
            self.lose("reasoning dropped: the API rejects a reasoning item without the item that followed it",
                      t, reasoning)
        if not items:
            self.lose("nothing in this turn can be carried", t)
        return items

    def add(self, items: list[dict[str, Any]], role: str, fields: dict[str, Any], part: Part,
            t: int | None, p: int, typed: bool = False, opens: bool = False) -> None:
        """Append a content part to the open message of the same role and fields, or open one (always
        when `opens`: the part began a message of its own)."""
        block = self.block(part, role, t, p)
        if block is None:
            return
        key = (role, fields)
        if opens or not (items and self.open is not None and items[-1] is self.open[0]
                         and self.open[1] == key):
            dropped = {k: fields[k] for k in ("id", "status") if k in fields}
            if role == "assistant" and dropped and not (typed and "id" in dropped):
                what = ", ".join(f"{k} {v!r}" for k, v in dropped.items())
                self.lose(f"assistant message {what} left out: only a message replayed with its msg_ id "
                          "after its reasoning item carries them", t, p)
            self.open = (self.carries(_message(role, fields, typed), t), key)
            items.append(self.open[0])
        message = self.open[0]
        if message.get("type") == "message" and block.get("type") == "output_text":
            block.setdefault("annotations", [])
        message["content"].append(self.carries(block, t, p))

    def block(self, part: Part, role: str, t: int | None, p: int) -> dict[str, Any] | None:
        fields = {k: v for k, v in own_meta(NAME, part.meta).items()
                  if k not in ("message", "role", "content", STARTS_MESSAGE)}
        if isinstance(part, Text):
            kind = fields.pop("type", _text_type(role))
            return {"type": kind, "refusal" if kind == "refusal" else "text": part.text, **fields}
        if isinstance(part, Media):
            block = _write_media(part, fields) if role != "assistant" else None
            if block is None:
                self.lose(f"{part.kind} dropped: Responses cannot carry it here", t, p)
            elif part.media_type and part.data is None:  # (only a data URL says the type)
                self.lose(f"media type {part.media_type} not carried by a reference", t, p)
            return block
        if is_own_opaque(part, NAME):
            return copy.deepcopy(part.value)
        if isinstance(part, Opaque):
            self.foreign_opaque(part, t, p)
            return None
        self.lose(f"{_a(part)} part cannot be carried in a message", t, p)
        return None

    def reasoning(self, part: Reasoning, t: int, p: int) -> dict[str, Any] | None:
        """Own reasoning only. `id` is optional on replay: Codex never sends it
        (openai/codex `codex-rs/protocol/src/models.rs`, `ResponseItem::Reasoning`, `skip_serializing`)."""
        if part.origin != NAME:
            self.lose(f"reasoning from {part.origin or 'an unknown format'} dropped: only Responses "
                      "reasoning items can be replayed", t, p)
            return None
        if part.redacted is not None:
            self.lose("redacted reasoning dropped: Responses has no redacted form", t, p)
        item: dict[str, Any] = {"type": "reasoning"}
        if part.wire_id is not None:
            item["id"] = part.wire_id
        item["summary"] = [{"type": "summary_text", "text": s} for s in part.summary]
        if part.text:
            item["content"] = [{"type": "reasoning_text", "text": part.text}]
        if part.signature is not None:
            item["encrypted_content"] = part.signature
        return {**item, **own_meta(NAME, part.meta)}

    def call(self, part: Invocation, t: int, p: int, after_reasoning: bool) -> dict[str, Any]:
        """`fc_` item ids are replayed only after their reasoning item: alone they are a 400
        (`Item 'fc_…' of type 'function_call' was provided without its required 'reasoning' item`),
        while a call without `id` is accepted."""
        call_id = self.fit.call_id(part, t, p) or ""
        name = self.fit.name(part.name, t, p)
        self.call_names[call_id] = name
        self.pairs.append((True, call_id, t, p))
        fields = own_meta(NAME, part.meta)
        item_id = fields.pop("id", None)
        fields.pop("custom", None)
        custom = is_freeform(part)  # (Chat's custom call too)
        item: dict[str, Any] = {"type": "custom_tool_call" if custom else "function_call"}
        if item_id is not None and after_reasoning:
            item["id"] = item_id
        elif item_id is not None:
            self.lose(f"call item id {item_id!r} left out: the API rejects it without its reasoning item",
                      t, p)
        item.update(call_id=call_id, name=name)
        arguments = part.raw_arguments if part.raw_arguments is not None else dumps_str(part.arguments)
        if not custom:
            item["arguments"] = arguments
        elif isinstance(part.arguments, str):
            item["input"] = part.arguments
        else:
            self.lose("custom tool input must be text: wrote the arguments as JSON", t, p)
            item["input"] = arguments
        return {**item, **fields}

    def result(self, part: Result, t: int, p: int) -> dict[str, Any]:
        call_id = self.fit.result_id(part, t, p) or ""
        # The output names only its call_id, so it reads back with the name of the call that id
        # binds to (`link`): only a name other than that call's is lost.
        call_name = self.call_names.get(call_id)
        if part.name is not None and part.name != call_name:
            what = f"it reads back as its call's, {call_name!r}" if call_name is not None \
                else "it answers no call"
            self.lose(f"tool name {part.name!r} not carried: function_call_output names only the call_id, "
                      f"and {what}", t, p)
        self.pairs.append((False, call_id, t, p))
        fields = own_meta(NAME, part.meta)
        custom = fields.pop("custom", False)
        item = {"type": "custom_tool_call_output" if custom else "function_call_output", "call_id": call_id,
                "output": self.output(part, t, p)}
        return {**item, **fields}

    def output(self, part: Result, t: int, p: int) -> str | list[dict[str, Any]]:
        """Result content → a string, or `input_text`/`input_image`/`input_file` parts."""
        blocks: list[dict[str, Any]] = []
        for c in part.content:
            report_foreign(NAME, c.meta, self.losses, t, p)
            if isinstance(c, Json):
                self.lose("structured result content sent as JSON text", t, p)
                blocks.append({"type": "input_text", "text": dumps_str(c.value)})
            elif (block := self.block(c, "user", t, p)) is not None:
                blocks.append(block)
        if not part.content and not part.is_error:  # (a failed one is sent as "Error", said below)
            self.lose("a result without content is sent as an empty string", t, p)
        if part.is_error:
            self.lose("is_error folded into the output text: Responses has no failure flag", t, p)
            texts = (b for b in blocks if b.get("type") == "input_text" and isinstance(b.get("text"), str))
            text = next(texts, None)
            if text is None:
                blocks.insert(0, {"type": "input_text", "text": "Error"})
            elif not text["text"].lower().startswith("error"):
                text["text"] = "Error: " + text["text"]
        if not blocks:
            return ""
        if len(blocks) == 1 and blocks[0].get("type") == "input_text" and len(blocks[0]) == 2:
            return blocks[0]["text"]
        return blocks

    # -- checks

    def foreign_opaque(self, part: Opaque, t: int | None, p: int) -> None:
        """An opaque part this writer cannot put back: another format's block, or a value of its own
        origin that is no item (a canonical document may hold any JSON value there)."""
        if part.origin == NAME:
            self.lose(f"an opaque {NAME} value that is not an item (a JSON object) dropped", t, p)
            return
        kind = part.value.get("type") if isinstance(part.value, dict) else None
        what = f"{part.origin} block {kind!r}" if isinstance(kind, str) else f"{part.origin} block"
        self.lose(f"{what} dropped: only {part.origin} can replay it", t, p)

    def check_pairs(self) -> None:
        """The two pairing 400s: a call without its output (quoted in router-for-me/CLIProxyAPI#2368)
        and an output without its call (microsoft/vscode#320060). A writer neither invents nor drops
        turns, so it says what the API will reject (conversation-level: the turns themselves are
        carried unchanged)."""
        called: set[str] = set()
        answered = {call_id for is_call, call_id, _, _ in self.pairs if not is_call}
        for is_call, call_id, t, p in self.pairs:
            if is_call and call_id not in answered:
                self.lose(f"turn {t} part {p}: the API rejects a call without its output "
                          f"(No tool output found for function call {call_id}.)", None)
            elif not is_call and call_id not in called:
                self.lose(f"turn {t} part {p}: the API rejects an output without its call "
                          f"(No tool call found for function call output with call_id {call_id}.)", None)
            if is_call:
                called.add(call_id)


def _a(part: Part) -> str:
    """The part's type with its article: `an opaque`, `a json`."""
    return ("an " if part.type[0] in "aeiou" else "a ") + part.type


def _allowed(role: str, part: Part) -> bool:
    if role == "assistant":
        return isinstance(part, (Text, Media, Opaque, Reasoning, Invocation))
    if role == "tool":
        return isinstance(part, Result) or (isinstance(part, Opaque)
                                            and not own_meta(NAME, part.meta).get("content"))
    return isinstance(part, (Text, Media, Opaque))


def _message(role: str, fields: dict[str, Any], typed: bool) -> dict[str, Any]:
    """A message item. An assistant message keeps its `msg_` id only after a reasoning item (the
    same rule as `fc_` ids); with an id it takes the typed output form, which requires `status`."""
    fields = dict(fields)
    message: dict[str, Any] = {}
    msg_id = fields.pop("id", None)
    if role == "assistant":
        status = fields.pop("status", "completed")
        if msg_id is not None and typed:
            message = {"type": "message", "id": msg_id, "status": status}
    elif msg_id is not None or "status" in fields:
        message = {"type": "message", **({"id": msg_id} if msg_id is not None else {})}
    return {**message, "role": role, "content": [], **fields}


def _write_media(part: Media, fields: dict[str, Any]) -> dict[str, Any] | None:
    kind = fields.pop("type", _media_type(part.kind))
    inline = f"data:{part.media_type};base64,{part.data}" if part.data is not None and part.media_type \
        else part.data
    block: dict[str, Any] = {"type": kind}
    if kind == "input_image":
        if part.data is not None and not part.media_type:
            return None  # an image needs its media type to travel as a data URL
        if inline is not None or part.url is not None:
            block["image_url"] = inline if inline is not None else part.url
    elif kind == "input_file":
        if inline is not None:
            block["file_data"] = inline
        if part.url is not None:
            block["file_url"] = part.url
    else:
        return None
    if part.file_id is not None:
        block["file_id"] = part.file_id
    return {**block, **fields} if len(block) > 1 else None


def _message_fields(own: dict[str, Any]) -> dict[str, Any]:
    """The message-level fields a part's meta recorded (`id`, `status`, `phase`…): an object, or
    none at all when a hand-edited canonical document put something else there."""
    fields = own.get("message")
    return fields if isinstance(fields, dict) else {}
