"""Writing a conversation as an Anthropic Messages request, enforcing the API's ordering rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from itertools import groupby
from operator import itemgetter
from typing import Any

from ...jsonio import dumps_str
from ...model import Conversation, Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text, Tool, Turn
from ...shorten import clip
from ..base import Written
from ..meta import own_meta
from ..reading import split_data_url, type_name
from ..writer import Fitting, Writer, is_own_opaque, report_foreign, writer_target
from .common import _CHOICE_MODES, FACTS, NAME, _type

_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_SCHEMA_COMBINATORS = frozenset({"oneOf", "anyOf", "allOf"})
_THINKING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_CHOICE_TYPES = {mode: wire for wire, mode in _CHOICE_MODES.items()}  # canonical mode → wire type


def write(conversation: Conversation, *, target: str | None = None, origins: bool = True) -> Written:
    """The request body that replays `conversation`, and what Anthropic cannot carry."""
    return _Writer(conversation, writer_target(NAME, target)).recording(
        origins, partial(write, conversation, target=target)).write()


_Item = tuple[dict[str, Any], int, int]  # a wire block, with the canonical turn and part it came from


class _Writer(Writer):
    def __init__(self, conversation: Conversation, target: str) -> None:
        super().__init__(conversation)
        # Ids and tool names as the target accepts them; tool_use ids must be unique in the request
        # (anthropics/claude-code#28515).
        self.fit = Fitting(conversation, target, self.losses, id_prefix="toolu_", unique_ids=True)
        #: Canonical invocation id → the call's name, its name as written and its id as written (None:
        #: a call without a canonical id, which no result names as `Fitting` knows it).
        self.names: dict[str, tuple[str, str, str | None]] = {}
        turns = conversation.turns
        #: The index of the final turn when it is the model's (the one message Anthropic accepts
        #: empty), else -1.
        self.final = len(turns) - 1 if turns and turns[-1].role == "assistant" else -1

    def write(self) -> Written:
        conv = self.conv
        body: dict[str, Any] = {}
        self.write_model(body, FACTS)
        body.update((k, v) for k, v in own_meta(NAME, conv.meta).items()
                    if k not in ("model", "messages", "system", "tools"))
        self.write_settings(body, FACTS, self.fit.target)
        self.report_parameters(FACTS)
        system = [b for k, p in enumerate(conv.system) if (b := self.block(p, "system", None, k)) is not None]
        tools = self.tools()
        choice = self.tool_choice(bool(tools))
        messages = self.messages()
        system += self.leading_system(messages)
        self.thinking_rules(body, messages)
        body.update((k, v) for k, v in (("system", system), ("tools", tools), ("tool_choice", choice)) if v)
        written = body["messages"] = [{"role": role, "content": [block for block, _, _ in items]}
                                      for role, items in messages]
        self.mark_messages(written, messages)
        if not written:
            self.lose("no message to send; Anthropic requires at least one")
        self.ends_on_calls(FACTS.title, "a tool_result")
        return Written(body=body, losses=tuple(self.losses), origins=self.origins(body))

    def mark_messages(self, written: list[dict[str, Any]], messages: list[tuple[str, list[_Item]]]) -> None:
        """What each written message and block carries, when origins are recorded (`Writer.recording`):
        marked once the body is final, and not at all when nothing records them."""
        mark = self.marker
        if mark is None:
            return
        for message, (_, items) in zip(written, messages, strict=True):
            message["content"] = [mark(block, ti, pi) for block, ti, pi in items]
            if not items:  # the final assistant turn, empty or emptied (rule 8)
                mark(message, len(self.conv.turns) - 1, None)

    # -- conversation level

    def leading_system(self, messages: list[tuple[str, list[_Item]]]) -> list[dict[str, Any]]:
        """System messages that would open `messages`, taken out of it for the top-level `system`
        (where a reader puts them back)."""
        blocks = []
        while messages and messages[0][0] == "system":
            _, items = messages.pop(0)
            for ti in sorted({ti for _, ti, _ in items}):
                self.lose("a system turn before any other message is written as top-level system", ti)
            blocks += [self.carries(block, ti, pi) for block, ti, pi in items]
        return blocks

    def tools(self) -> list[dict[str, Any]]:
        out = []
        for tool in self.conv.tools:
            report_foreign(NAME, tool.meta, self.losses, what=f"details of tool {tool.name!r}")
            if tool.kind == "function":
                wire: dict[str, Any] = {"name": self.tool_name(tool.name, None, None)}
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
            # (the schema as the log has it: lower-cased, a key in it would no longer look like one)
            self.lose(f"tool {tool.name!r}: schema {clip(dumps_str(tool.parameters), 80)} is not an object "
                      f"schema Anthropic accepts; an empty object schema is written")
        return {"type": "object", "properties": {}}

    def tool_choice(self, has_tools: bool) -> dict[str, Any] | None:
        choice = self.conv.tool_choice
        if choice is None:
            return None
        if not has_tools:
            self.lose_setting("tool_choice", choice.mode, "not carried", "no tool is declared")
            return None
        if choice.mode not in _CHOICE_TYPES or (choice.mode == "tool" and not choice.name):
            self.lose_setting("tool_choice", choice.mode, "not carried", "Anthropic has no such tool choice")
            return None
        wire: dict[str, Any] = {"type": _CHOICE_TYPES[choice.mode]}
        if choice.mode == "tool":
            wire["name"] = self.tool_name(choice.name, None, None)  # type: ignore[arg-type]
        if choice.parallel is not None:
            if choice.mode == "none":
                self.lose_setting("tool_choice.parallel", choice.parallel, "not carried",
                                  "Anthropic takes it only beside a tool choice other than none")
            else:
                wire["disable_parallel_tool_use"] = not choice.parallel
        return wire

    def tool_name(self, name: str, turn: int | None, part: int | None) -> str:
        return self.fit.name(name, turn, part)

    # -- turns

    def messages(self) -> list[tuple[str, list[_Item]]]:
        """Turns → messages. Consecutive user and tool turns form one group answering the assistant
        group before it; every call must be answered in that group and every result must answer a
        call of it (the API's two pairing 400s, quoted in anthropics/claude-code#8210 and #18947)."""
        turns = self.conv.turns
        groups = _groups(turns)
        out: list[tuple[str, list[_Item]]] = []
        calls: set[str] = set()  # the calls of the assistant group just written
        last = len(groups) - 1
        for g, (side, indices) in enumerate(groups):
            if side == "assistant":
                answered = ({p.invocation_id for i in groups[g + 1][1] for p in turns[i].parts
                             if type(p) is Result}
                            if g < last and groups[g + 1][0] == "user" else set())
                calls = self.assistant(indices, answered, g == last, out)
            elif side == "user":
                self.user(indices, calls, out)
            else:
                _per_turn("system", [(b, ti, pi) for ti, pi, p in self.each_part(indices)
                                     if (b := self.block(p, "system", ti, pi)) is not None], out)
                calls = set()
        return out

    def each_part(self, indices: list[int]) -> Iterable[tuple[int, int, Part]]:
        """(turn, part index, part) over the turns (see `parts_of`)."""
        for ti in indices:
            for pi, part in enumerate(self.parts_of(ti)):
                yield ti, pi, part

    def parts_of(self, ti: int) -> tuple[Part, ...]:
        """Turn `ti`'s parts; an empty turn is reported as dropped, but for a final assistant turn,
        the one message Anthropic accepts empty (anthropics/claude-code#6774)."""
        turn = self.conv.turns[ti]
        if turn.meta:
            report_foreign(NAME, turn.meta, self.losses, ti)
        if not turn.parts and ti != self.final:
            self.lose("empty turn dropped: Anthropic rejects a message without content", ti)
        return turn.parts

    def assistant(self, indices: list[int], answered: set[str | None], last: bool,
                  out: list[tuple[str, list[_Item]]]) -> set[str]:
        """Assistant turns, one message each (added to `out`), unless a block follows a call:
        `tool_use` blocks must close the merged assistant message (a call followed by other blocks
        is rejected as unanswered: vercel/ai#13013, and the Anthropic recordings of anomalyco/opencode
        `packages/llm/test/fixtures/recordings/`), so then the turns become one message with the
        calls moved last. Returns the calls written."""
        items: list[_Item] = []
        calls: set[str] = set()
        called = after_call = False  # whether a tool_use block was written, and a block after one
        fit, block, names = self.fit, self.block, self.names
        for ti in indices:
            for pi, part in enumerate(self.parts_of(ti)):
                if type(part) is Invocation:
                    if not last and part.id not in answered:
                        self.lose(f"call {part.name!r} has no result in the next message; dropped "
                                  f"(Anthropic rejects an unanswered tool_use)", ti, pi)
                        continue
                    if not part.meta and part.raw_arguments is None and type(part.arguments) is dict:
                        # the usual call, as `tool_use` writes it without its checks (its name and id
                        # as they are when every one fits: `Fitting.names_kept`, `ids_kept`)
                        name = part.name if fit.names_kept else fit.name(part.name, ti, pi)
                        wire_id = part.wire_id if fit.ids_kept else fit.call_id(part, ti, pi)
                        names[part.id] = (part.name, name, wire_id if part.id else None)
                        items.append(({"type": "tool_use", "id": wire_id or "", "name": name,
                                       "input": part.arguments}, ti, pi))
                    else:
                        items.append((self.tool_use(part, ti, pi), ti, pi))
                    calls.add(part.id)
                    called = True
                elif type(part) is Text and not part.meta and part.text and not part.text.isspace():
                    # the usual text, as `block` writes it
                    items.append(({"type": "text", "text": part.text}, ti, pi))
                    after_call = after_call or called
                elif (written := block(part, "assistant", ti, pi)) is not None:
                    items.append((written, ti, pi))
                    if written.get("type") == "tool_use":  # (an Anthropic block kept verbatim)
                        called = True
                    elif called:
                        after_call = True
        if not after_call:
            _per_turn("assistant", items, out)
            if indices[-1] == self.final and not (items and items[-1][1] == indices[-1]):
                out.append(("assistant", []))  # the final turn, empty or emptied
            return calls
        first_call = next(k for k, item in enumerate(items) if _type(item[0]) == "tool_use")
        moved = [item for item in items[first_call:] if _type(item[0]) != "tool_use"]
        for _, ti, pi in moved:
            self.lose("moved before the tool calls: Anthropic requires tool_use blocks last", ti, pi)
        for ti in sorted({ti for _, ti, _ in items} - {items[0][1]}):
            self.lose("merged into one assistant message with the turn before it", ti)
        tool_uses = [item for item in items[first_call:] if _type(item[0]) == "tool_use"]
        out.append(("assistant", items[:first_call] + moved + tool_uses))
        return calls

    def user(self, indices: list[int], calls: set[str], out: list[tuple[str, list[_Item]]]) -> None:
        """User and tool turns (added to `out`). With results they form one message, results first
        (Anthropic's guide, https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls,
        as quoted in nearai/ironclaw#7274); without, one message per turn."""
        results: list[_Item] = []
        others: list[_Item] = []
        answered: set[str | None] = set()
        block, tool_result = self.block, self.tool_result
        for ti in indices:
            for pi, part in enumerate(self.parts_of(ti)):
                if type(part) is not Result:
                    if (written := block(part, "user", ti, pi)) is not None:
                        others.append((written, ti, pi))
                    continue
                call = part.invocation_id
                if call not in calls:
                    self.lose("result answers no tool_use of the previous assistant message; dropped "
                              "(Anthropic rejects it)", ti, pi)
                elif call in answered:
                    self.lose("a second result for the same call; dropped", ti, pi)
                else:
                    answered.add(call)
                    results.append((tool_result(part, ti, pi), ti, pi))
        if not results:
            _per_turn("user", others, out)
            return
        turns = self.conv.turns
        first = turns[indices[0]]
        clean = (first.role == "tool" and set(map(type, first.parts)) <= _RESULTS
                 and (len(indices) == 1 or len(indices) == 2 and turns[indices[1]].role == "user"
                      and Result not in set(map(type, turns[indices[1]].parts))))
        if not clean:  # reading the message back gives other turns than these
            for ti in indices:
                self.lose("merged into one user message, tool results first (Anthropic requires them "
                          "first)", ti)
        out.append(("user", results + others if others else results))

    # -- blocks

    def block(self, part: Part, where: str, ti: int | None, pi: int) -> dict[str, Any] | None:
        """One non-call part in `where` (system, user, assistant or result content), or None."""
        # (`text and not text.isspace()`: whether it has more than whitespace, without the copy of
        # a long text `strip()` makes when it ends on a newline)
        if type(part) is Text and not part.meta and part.text and not part.text.isspace():  # the usual part
            return {"type": "text", "text": part.text}
        report_foreign(NAME, part.meta, self.losses, ti, pi)
        if isinstance(part, Text):
            if part.text and not part.text.isspace():
                return _restore({"type": "text", "text": part.text}, part.meta)
            self.lose("empty text block dropped: Anthropic rejects it", ti, pi)
        elif isinstance(part, Media) and where in ("user", "result"):
            return self.media(part, ti, pi)
        elif isinstance(part, Json) and where in ("user", "result"):
            self.lose("structured content written as JSON text", ti, pi)
            return {"type": "text", "text": dumps_str(part.value)}
        elif isinstance(part, Reasoning) and where == "assistant":
            return self.thinking(part, ti, pi)
        elif is_own_opaque(part, NAME):
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
        """Only Anthropic's own signed thinking can be replayed: a thinking block needs its
        `signature` and must come back unmodified (anthropic-sdk-python
        `src/anthropic/types/thinking_block_param.py`)."""
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
        """A call that is not the usual one `assistant` writes itself: meta, or arguments that are not
        an object."""
        report_foreign(NAME, part.meta, self.losses, ti, pi)
        own = own_meta(NAME, part.meta)
        if own.pop("string_input", None):
            self.lose("input was a JSON string on the wire; written as an object", ti, pi)
        arguments = part.arguments
        if part.raw_arguments is not None:
            shown = clip(part.raw_arguments, 60)
            self.lose(f"arguments are not valid JSON ({shown!r}); input written as {{}}", ti, pi)
            arguments = {}
        elif not isinstance(arguments, dict):
            self.lose("call had no arguments; input written as {}" if arguments is None else
                      f"arguments are {type_name(arguments)}, not an object; input written as {{}}",
                      ti, pi)
            arguments = {}
        name, wire_id = self.tool_name(part.name, ti, pi), self.fit.call_id(part, ti, pi)
        self.names[part.id] = (part.name, name, wire_id if part.id else None)
        block = {"type": "tool_use", "id": wire_id or "", "name": name, "input": arguments}
        return _restore(block, {NAME: own})

    def tool_result(self, part: Result, ti: int, pi: int) -> dict[str, Any]:
        if part.meta:
            report_foreign(NAME, part.meta, self.losses, ti, pi)
        call_name, written_name, written_id = self.names[part.invocation_id]  # type: ignore[index]
        # its call's tool_use id: as written for the call when the result has it already (nothing to
        # report; `Fitting.result_id` would find the same), else as `Fitting` says
        wire_id = (written_id if written_id is not None and written_id == part.wire_id else
                   self.fit.result_id(part, ti, pi) or "")
        # A tool_result names only its call's id, so it reads back under its call's written name:
        # a loss only when that is not the name the result had.
        if part.name is not None and part.name != written_name:
            self.lose(f"result name {part.name!r} not carried: a tool_result names only its call's id"
                      + (f" (its call is {call_name!r})" if part.name != call_name else
                         f"; it reads back as {written_name!r}, its call's written name"), ti, pi)
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": wire_id}
        only = part.content[0] if len(part.content) == 1 else None
        if type(only) is Text and not only.meta and only.text and not only.text.isspace():  # the usual result
            block["content"] = only.text
        elif content := [b for p in part.content if (b := self.block(p, "result", ti, pi)) is not None]:
            if len(content) == 1 and content[0].keys() == {"type", "text"} and content[0]["type"] == "text":
                block["content"] = content[0]["text"]
            else:
                block["content"] = content
        if part.is_error:
            block["is_error"] = True
        return _restore(block, part.meta) if part.meta else block

    def thinking_rules(self, body: dict[str, Any], messages: list[tuple[str, list[_Item]]]) -> None:
        """The thinking rule both ways — with thinking on, the assistant message with the latest
        calls must open with its thinking (Kilo-Org/kilocode#5219); with it off, a final assistant
        message must not hold any (tailcallhq/forgecode#1853) — and no trailing whitespace at the
        end of a final assistant message."""
        config = body.get("thinking")
        enabled = isinstance(config, dict) and config.get("type") in ("enabled", "adaptive")
        with_calls = [k for k, (role, items) in enumerate(messages)
                      if role == "assistant" and any(b.get("type") == "tool_use" for b, _, _ in items)
                      ] if enabled else []
        if with_calls and with_calls[-1] >= len(messages) - 2 \
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


#: The type names of Gemini's OpenAPI dialect (the `Type` enum of the Gemini API's Schema:
#: https://googleapis.github.io/js-genai/release_docs/enums/types.Type.html), upper-case.
_GEMINI_TYPES = frozenset({"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT",
                           "NULL"})


def _lower_type(value: Any) -> Any:
    """A Gemini type name in lower case, as JSON Schema spells it; any other value as it is (lower-
    cased, a key that stood there would no longer look like one to the masking)."""
    return value.lower() if isinstance(value, str) and value.upper() in _GEMINI_TYPES else value


def _lower_types(schema: Any) -> Any:
    """The schema with every Gemini `type` name in lower case (values under enum/const/default
    untouched)."""
    if isinstance(schema, list):
        return [_lower_types(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type":
            value = [_lower_type(v) for v in value] if isinstance(value, list) else _lower_type(value)
        elif key not in ("enum", "const", "default", "examples", "example"):
            value = _lower_types(value)
        out[key] = value
    return out


#: The part types of a turn of results only (a subset test of its parts' types).
_RESULTS = frozenset({Result})


def _per_turn(role: str, items: list[_Item], out: list[tuple[str, list[_Item]]]) -> None:
    """One message per canonical turn, added to `out`."""
    if not items:
        return
    if items[0][1] == items[-1][1]:  # (the usual group: one turn)
        out.append((role, items))
    else:
        out += [(role, list(run)) for _, run in groupby(items, key=itemgetter(1))]


def _groups(turns: tuple[Turn, ...]) -> list[tuple[str, list[int]]]:
    """The turns' indices in runs of one side (user and tool turns are one side)."""
    groups: list[tuple[str, list[int]]] = []
    last = None
    for i, turn in enumerate(turns):
        side = turn.role
        if side == "tool":  # (user and tool turns are one side)
            side = "user"
        if side == last:
            groups[-1][1].append(i)
        else:
            groups.append((side, [i]))
            last = side
    return groups


def _restore(block: dict[str, Any], meta: Any) -> dict[str, Any]:
    """A wire block plus the details this format kept in meta (`cache_control`, `citations`…);
    `block` itself when there are none (each caller makes a new one)."""
    own = own_meta(NAME, meta)
    return {**block, **{k: v for k, v in own.items() if k not in block}} if own else block
