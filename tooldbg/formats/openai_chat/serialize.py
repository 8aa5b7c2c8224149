"""Writing a conversation as a Chat Completions request body, with what it could not carry."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from itertools import compress
from operator import attrgetter, itemgetter
from typing import Any

from ...jsonio import dumps, dumps_str
from ...model import Conversation, Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text, Turn
from ..base import Written
from ..freeform import chat_tool, is_freeform
from ..meta import STARTS_MESSAGE, own_meta
from ..writer import Fitting, Writer, history_ends_on_call, is_own_opaque, report_foreign, writer_target
from .common import FACTS, NAME, _audio_type, _choice
from .reasoning import FIELD, is_detail, visible, write_detail


def write(conversation: Conversation, *, target: str | None = None, origins: bool = True) -> Written:
    """The request body that replays `conversation` for `target` (openai-chat, or a provider
    profile that speaks it: `mistral`, `deepseek`, `kimi`), and what it could not carry."""
    return _Writer(conversation, writer_target(NAME, target)).recording(
        origins, partial(write, conversation, target=target)).run()


class _Writer(Writer):
    """Turns → messages (with where each came from), paired as they are written (`send`,
    `tool_message`), then tools and params."""

    FREEFORM = True  # (`{"type": "custom", "custom": {"name", "input"}}`)

    def __init__(self, conversation: Conversation, target: str) -> None:
        super().__init__(conversation)
        # Call ids and tool names as the target accepts them (ids are otherwise opaque here).
        self.fit = Fitting(conversation, target, self.losses, id_prefix="call_")
        self.legacy: set[str] = set()  # call keys written as a legacy `function_call`
        self.renamed: set[str] = set()  # see `plan_calls`
        self.called = self.fit.called  # call key → the call's own (canonical) name
        self.written_ids = self.fit.written_ids  # call key → its written id
        self.plain_calls = False  # see `plan_calls`
        self.messages: list[dict[str, Any]] = []  # the messages kept so far
        # The pairing: the assistant message the tool messages that follow must answer, the
        # pairing keys of its calls (with their parts; none after any other message), and those
        # no tool message has answered yet.
        self.owner: dict[str, Any] | None = None
        self.owner_turn: int | None = None
        self.calls: Sequence[tuple[str, int]] = ()
        self.keys: set[str] = set()
        self.waiting: set[str] = set()

    def run(self) -> Written:
        self.mark = self.marker
        self.plan_calls()
        body: dict[str, Any] = {}
        self.write_model(body, FACTS)
        self.system_messages()
        for t, turn in enumerate(self.conv.turns):
            self.turn(t, turn)
        if self.waiting:
            self.unanswered(at_end=self.messages[-1] is self.owner)
        body["messages"] = self.messages
        self.tools(body)
        params = own_meta(NAME, self.conv.meta)
        params.pop("tool_choice", None)
        body.update({k: v for k, v in params.items() if k not in body})
        self.write_settings(body, FACTS, self.fit.target)
        self.report_parameters(FACTS)
        return Written(body=body, losses=tuple(sorted(
            self.losses, key=lambda x: (-1 if x.turn is None else x.turn, -1 if x.part is None else x.part))),
            origins=self.origins(body))

    # ---- ids and names

    def plan_calls(self) -> None:
        """Find the calls written as a legacy `function_call` first, so a result answering one is
        told wherever it is."""
        turns, calls = self.conv.turns, self.fit.calls
        detailed = compress(calls, map(_details, map(_call, calls)))  # (in C: most calls have none)
        self.legacy = {call.id or f"@{t}.{p}" for t, p, call in detailed if _legacy(call, turns[t])}
        # A call without details of its own is written in place (`call`): no legacy call, ids, names kept
        self.plain_calls = not self.legacy and self.fit.names_kept and self.fit.ids_kept
        # The tools whose calls' name a result does not read back as it is (asked once per tool)
        self.renamed = set() if self.fit.names_kept else \
            {name for name in set(self.called.values()) if self.fit.written_name(name) != name}

    # ---- the pairing rules, enforced as messages are written

    def send(self, message: dict[str, Any], turn: int | None, calls: Sequence[tuple[str, int]] = ()) -> None:
        """Keep a system, user or assistant message (`calls`: the pairing keys of its calls, with
        their parts; never changed). Chat Completions rejects a call no tool message right after it
        answers: those of the assistant message before are dropped first (a history may end on calls)."""
        if self.waiting:
            self.unanswered(at_end=False)
        self.owner, self.owner_turn, self.calls = message, turn, calls
        self.keys = set(map(_pairing_key, calls))
        self.waiting = self.keys.copy()
        if self.mark is not None:
            self.mark(message, turn, None)
        self.messages.append(message)

    def unanswered(self, *, at_end: bool) -> None:
        """The owner's calls no tool message answered: a history that ends on them says so; others
        are dropped."""
        missing = [(k, p) for k, p in self.calls if k in self.waiting]
        if at_end:
            for _, p in missing:
                self.lose(history_ends_on_call("Chat Completions", "a tool message"), self.owner_turn, p)
            return
        for _, p in missing:
            self.lose("this call has no result right after it (Chat Completions rejects that); "
                      "dropped", self.owner_turn, p)
        if not missing:
            return
        message = self.owner
        assert message is not None
        if any(k.startswith("legacy:") for k, _ in missing):
            del message["function_call"]
        gone = {k for k, _ in missing}
        entries = [k for k, _ in self.calls if not k.startswith("legacy:")]
        calls = [c for c, k in zip(message.get("tool_calls", []), entries, strict=True) if k not in gone]
        message.pop("tool_calls", None)
        if calls:
            message["tool_calls"] = calls
        elif message.get("content") is None and "function_call" not in message:
            message["content"] = ""

    # ---- messages

    def system_messages(self) -> None:
        """Leading system parts, one message per run of parts that came from one message."""
        group: list[tuple[int, Part]] = []
        for p, part in enumerate(self.conv.system):
            own = own_meta(NAME, part.meta)
            if group and (own.get(STARTS_MESSAGE)
                          or own_meta(NAME, group[-1][1].meta).get("message") != own.get("message")):
                self.system_message(group)
                group = []
            group.append((p, part))
        if group:
            self.system_message(group)

    def system_message(self, group: list[tuple[int, Part]]) -> None:
        message = own_meta(NAME, group[0][1].meta).get("message")
        extras = dict(message) if isinstance(message, Mapping) else {}
        items = []
        for p, part in group:
            report_foreign(NAME, part.meta, self.losses, None, p)
            item = self.text_item(part, None, p, "a system message", drop=("message", STARTS_MESSAGE))
            if item is not None:
                items.append(item)
        role = extras.pop("role", "system")
        self.send({**extras, "role": role, "content": _text_content(items, empty_string=True)}, None)

    def turn(self, t: int, turn: Turn) -> None:
        """One canonical turn → its messages: each Result its own tool message, each run of other
        parts one message."""
        if turn.meta:
            report_foreign(NAME, turn.meta, self.losses, t)
        parts = turn.parts
        if Result not in map(type, parts):  # (most turns: one message)
            if turn.role == "assistant":
                self.assistant(t, turn, enumerate(parts))
            elif parts or turn.role != "tool":
                self.message(t, turn, 0, len(parts))
            else:
                self.lose("an empty tool turn has no message", t)
            return
        start = 0  # where the run of parts that are not results began
        for p, part in enumerate(parts):
            if type(part) is Result:
                if start < p:
                    self.message(t, turn, start, p)
                self.tool_message(t, p, part)
                start = p + 1
        if start < len(parts):
            self.message(t, turn, start, len(parts))

    def message(self, t: int, turn: Turn, start: int, stop: int) -> None:
        """Parts `start` to `stop` of turn `t`, none of them a result, as one message."""
        parts = enumerate(turn.parts[start:stop], start)
        if turn.role == "assistant":
            return self.assistant(t, turn, parts)
        extras = own_meta(NAME, turn.meta) if turn.meta else {}
        run = list(parts)
        for p, part in run:
            if part.meta:
                report_foreign(NAME, part.meta, self.losses, t, p)
        if turn.role == "system":
            items = [self.carries(self.text_item(part, t, p, "a system message"), t, p) for p, part in run]
            role = extras.pop("role", "system")
            return self.send(self.with_content({**extras, "role": role}, items), t)
        if turn.role == "tool":
            self.lose("tool turn content that is not a result written as a user message", t, start)
        items = [self.carries(self.user_item(part, t, p), t, p) for p, part in run]
        return self.send(self.with_content({**extras, "role": "user"}, items), t)

    def with_content(self, message: dict[str, Any], items: list[dict[str, Any] | None]) -> dict[str, Any]:
        """The message with its content: the items, or the text of the one plain text item."""
        kept = [i for i in items if i is not None]
        message["content"] = content = _text_content(kept)
        if isinstance(content, str) and kept:
            self.moved(kept[0], message, "/content")
        return message

    def text_item(self, part: Part, t: int | None, p: int, where: str,
                  drop: tuple[str, ...] = ()) -> dict[str, Any] | None:
        """A Text (or Opaque of this format) as a content-array entry; anything else is lost."""
        if type(part) is Text:
            if not part.meta:
                return {"type": "text", "text": part.text}
            own = {k: v for k, v in own_meta(NAME, part.meta).items() if k not in drop}
            if own.get("field") == "refusal" or own.get("type") == "refusal":
                own.pop("field", None)
                return {**own, "type": "refusal", "refusal": part.text}
            return {**own, "type": "text", "text": part.text}
        if is_own_opaque(part, NAME) and own_meta(NAME, part.meta).get("field") is None:
            return part.value
        self.lose(f"{_describe(part)} cannot be written in {where}; dropped", t, p)
        return None

    def user_item(self, part: Part, t: int, p: int) -> dict[str, Any] | None:
        if isinstance(part, Media):
            return self.media(part, t, p)
        return self.text_item(part, t, p, "a user message")

    def media(self, part: Media, t: int, p: int) -> dict[str, Any] | None:
        """image → `image_url`, wav/mp3 audio → `input_audio`, documents/files → `file`."""
        own = own_meta(NAME, part.meta)
        if part.kind == "image" and (part.data is not None or part.url):
            url: str | None
            if part.data is not None:
                media_type = part.media_type or "image/png"
                if part.media_type is None:
                    self.lose("an inline image without a media type written as image/png", t, p)
                url = f"data:{media_type};base64,{part.data}"
            else:
                url = part.url
            image = {"url": url, **{k: own.pop(k) for k in ("detail",) if k in own}}
            return {**own, "type": "image_url", "image_url": image}
        if part.kind == "audio" and part.data is not None and part.media_type:
            fmt = part.media_type.removeprefix("audio/").replace("mpeg", "mp3").replace("x-wav", "wav")
            if fmt in ("wav", "mp3"):
                if _audio_type(fmt) != part.media_type:
                    self.lose(f"audio of type {part.media_type} written as {_audio_type(fmt)}", t, p)
                return {**own, "type": "input_audio", "input_audio": {"data": part.data, "format": fmt}}
        if part.kind in ("document", "file") and (part.data is not None or part.file_id):
            file: dict[str, Any] = {k: own.pop(k) for k in ("filename",) if k in own}
            if part.file_id:
                file["file_id"] = part.file_id
            if part.data is not None:
                file["file_data"] = (f"data:{part.media_type};base64,{part.data}" if part.media_type
                                     else part.data)
            return {**own, "type": "file", "file": file}
        self.lose(f"{_describe(part)} cannot be sent in a user message; dropped", t, p)
        return None

    def assistant(self, t: int, turn: Turn, parts: Iterable[tuple[int, Part]]) -> None:
        """Turn `t`'s `parts` as one assistant message. Reasoning, content and calls go to separate
        fields: their relative order is fixed."""
        message: dict[str, Any] = \
            {**own_meta(NAME, turn.meta), "role": "assistant"} if turn.meta else {"role": "assistant"}
        calls: list[tuple[str, int]] = []  # the pairing keys of its calls (`send`)
        reasoning: list[tuple[int, Part]] = []
        content: list[dict[str, Any]] = []
        refusals: list[str] = []
        entries: list[dict[str, Any]] = []
        slot = 0
        mark = self.mark
        for p, part in parts:
            if part.meta:
                report_foreign(NAME, part.meta, self.losses, t, p)
            if type(part) is Text and not part.meta:  # plain text: the usual part
                block = {"type": "text", "text": part.text}
                content.append(block if mark is None else mark(block, t, p))
                here = 1
            elif type(part) is Invocation:
                entry = self.call(message, calls, part, t, p)
                if entry is not None:
                    entries.append(entry if mark is None else mark(entry, t, p))
                here = 3
            elif is_own_opaque(part, NAME) and own_meta(NAME, part.meta).get("field") == "tool_calls":
                call_id = part.value.get("id")
                calls.append((call_id if isinstance(call_id, str) else f"@{t}.{p}", p))
                entries.append(part.value if mark is None else mark(part.value, t, p))
                here = 3
            elif (isinstance(part, Reasoning) and part.origin == NAME) or is_detail(part):
                reasoning.append((p, part))
                here = 0
            elif isinstance(part, Reasoning):
                self.lose(f"reasoning from {part.origin or 'an unknown origin'} cannot be replayed "
                          "here; dropped", t, p)
                continue
            elif isinstance(part, Text) and own_meta(NAME, part.meta).get("field") == "refusal":
                if not refusals:
                    self.carries(message, t, p, "/refusal")
                refusals.append(part.text)
                here = 2
            else:
                item = self.text_item(part, t, p, "an assistant message")
                if item is None:
                    continue
                content.append(self.carries(item, t, p))
                here = 1
            if here < slot:
                self.lose("moved: Chat Completions keeps reasoning, then content, then tool calls", t, p)
            else:
                slot = here
        if reasoning:
            self.write_reasoning(message, reasoning, t)
        written = _text_content(content)
        message["content"] = None if written == "" and (calls or refusals) else written
        if mark is not None and isinstance(written, str) and content:
            self.moved(content[0], message, "/content")
        if refusals:
            message["refusal"] = "".join(refusals)
            if len(refusals) > 1:
                self.lose("several refusals joined into one", t)
        if entries:
            message["tool_calls"] = entries
        self.send(message, t, calls)

    def write_reasoning(self, message: dict[str, Any], reasoning: list[tuple[int, Part]], t: int) -> None:
        """Plain reasoning → `reasoning_content` (or OpenRouter's `reasoning`); blocks read from
        `reasoning_details` → that array again (and the `reasoning` string they stand for)."""
        details = [(p, r) for p, r in reasoning if is_detail(r)]
        plain = [(p, r) for p, r in reasoning if not is_detail(r) and isinstance(r, Reasoning)]
        if details:
            message[FIELD] = [self.carries(write_detail(r), t, p) for p, r in details]
            if own_meta(NAME, details[0][1].meta).get("mirror"):
                message["reasoning"] = visible([r for _, r in details])
        if not plain:
            return
        openrouter = own_meta(NAME, plain[0][1].meta).get("field") == "reasoning"
        field_name = "reasoning" if openrouter else "reasoning_content"
        message[field_name] = "".join(r.text for _, r in plain)
        self.carries(message, t, plain[0][0], f"/{field_name}")
        if len(plain) > 1:
            self.lose(f"several reasoning parts joined into one {field_name}", t, plain[1][0])
        for p, r in plain:
            kept = [name for name, value in (("signature", r.signature), ("summary", r.summary),
                                             ("redacted reasoning", r.redacted), ("id", r.wire_id))
                    if value]
            if kept:
                self.lose(f"reasoning {', '.join(kept)} not carried by {field_name}", t, p)

    def call(self, message: dict[str, Any], calls: list[tuple[str, int]], part: Invocation, t: int,
             p: int) -> dict[str, Any] | None:
        """One `tool_calls` entry (None for a legacy `function_call`, set on `message`), its pairing
        key added to `calls`."""
        if not part.meta and self.plain_calls:  # (the usual call: a function's, nothing of its own)
            call_id = part.wire_id or ""
            calls.append((call_id, p))
            args = part.raw_arguments
            if args is None:
                args = dumps(part.arguments).decode()
            return {"id": call_id, "type": "function", "function": {"name": part.name, "arguments": args}}
        return self.any_call(message, calls, part, t, p)

    def any_call(self, message: dict[str, Any], calls: list[tuple[str, int]], part: Invocation, t: int,
                 p: int) -> dict[str, Any] | None:
        """`call` for any call (legacy, freeform, with details of its own)."""
        name = self.fit.name(part.name, t, p)
        key = part.id or f"@{t}.{p}"
        own = own_meta(NAME, part.meta)
        own.pop("type", None)
        custom = is_freeform(part)  # (a Responses custom call too)
        legacy = own.pop("function_call", False)
        if part.raw_arguments is not None:
            arguments = part.raw_arguments
        elif custom and isinstance(part.arguments, str):
            arguments = part.arguments
        else:
            arguments = dumps(part.arguments).decode()
        if key in self.legacy:
            message["function_call"] = self.carries({"name": name, "arguments": arguments}, t, p)
            calls.append(("legacy:" + key, p))
            return None
        if legacy:
            self.lose("a legacy function_call written as a tool call", t, p)
        call_id = self.fit.written_call_id(part, t, p) or ""  # said here if rewritten or made up
        calls.append((call_id, p))
        if custom:
            return {**own, "id": call_id, "type": "custom", "custom": {"name": name, "input": arguments}}
        return {**own, "id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}

    def tool_message(self, t: int, p: int, result: Result) -> None:
        """A Result → a `tool` message (a `function` message answering a legacy call), kept only
        when it answers a call of the assistant message right before its run (a 400 otherwise)."""
        key = result.invocation_id
        parts = result.content
        said = result.name
        if len(parts) == 1 and type(first := parts[0]) is Text and first.text and not first.meta \
                and not result.meta and not result.is_error \
                and (answers := self.written_ids.get(key)) is not None and answers == result.wire_id \
                and key not in self.legacy \
                and (said is None or (said == self.called.get(key) and said not in self.renamed)):
            # (the usual result: one plain text, answering its call by the call's own id and name)
            message: dict[str, Any] = {"role": "tool", "tool_call_id": answers, "content": first.text}
            return self.keep(message, answers, t, p)
        return self.keep(*self.any_tool_message(t, p, result), t, p)

    def keep(self, message: dict[str, Any], answers: str, t: int, p: int) -> None:
        """Keep a tool message that answers a call of the assistant message right before its run
        (the pairing: see `send`); drop it otherwise."""
        if answers in self.keys:
            self.waiting.discard(answers)
            if self.mark is not None:
                self.mark(message, t, p)
            self.messages.append(message)
        else:
            self.lose("this result answers no call of the assistant message right before it "
                      "(Chat Completions rejects it); dropped", t, p)

    def any_tool_message(self, t: int, p: int, result: Result) -> tuple[dict[str, Any], str]:
        """`tool_message`'s message for any result (details of its own, content that is not one plain
        text, a legacy call's, an id or name rewritten), and the pairing key it answers."""
        if result.meta:
            report_foreign(NAME, result.meta, self.losses, t, p)
            own = own_meta(NAME, result.meta)
            legacy_meta = own.pop("role", None) == "function"
            named = own.pop("name", None) is True
        else:
            own, legacy_meta, named = {}, False, False
        key = result.invocation_id
        parts = result.content
        first = parts[0] if len(parts) == 1 else None
        if type(first) is Text and first.text and not first.meta and not result.is_error:
            content: str | list[dict[str, Any]] = first.text  # (one plain text)
        else:
            content = self.result_content(result, t, p)
        if key in self.legacy:
            name = self.fit.written_name(self.called[key])
            if result.name is not None and result.name != name:
                self.lose(f"result name {result.name!r} written as its call's {name!r}", t, p)
            return {**own, "role": "function", "name": name, "content": content}, "legacy:" + key
        if legacy_meta:
            self.lose("a legacy function message written as a tool message", t, p)
        answers = self.fit.result_id(result, t, p) or ""
        message: dict[str, Any] = {**own, "role": "tool", "tool_call_id": answers} if own else \
            {"role": "tool", "tool_call_id": answers}
        said = result.name
        if named and said is not None:
            message["name"] = self.fit.name(said, t, p)  # the wire had one: it carries the name
        elif said is not None and (self.called.get(key) != said or said in self.renamed):
            self.result_name(result, key, t, p)  # (not the usual: its call's name, written as it is)
        message["content"] = content
        return message, answers

    def result_name(self, result: Result, key: str | None, t: int, p: int) -> None:
        """A tool message without `name` reads back with its call's written name (None unbound):
        report a name that differs from its call's, or one that changes with its call's."""
        if result.name is None:
            return
        called = self.called.get(key)
        if called is None:
            self.lose(f"the result's tool name {result.name!r} is not carried (tool messages bind by id)",
                      t, p)
        elif result.name != called:
            self.lose(f"the result's tool name {result.name!r} differs from its call's {called!r} and "
                      "is not carried (tool messages bind by id)", t, p)
        elif (written := self.fit.written_name(called)) != called:
            self.lose(f"the result's tool name {result.name!r} reads back as its call's written name "
                      f"{written!r}", t, p)

    def result_content(self, result: Result, t: int, p: int) -> str | list[dict[str, Any]]:
        """Result content as text: structured values become JSON text, media is dropped."""
        content = result.content
        items: list[dict[str, Any]] = []
        for part in content:
            report_foreign(NAME, part.meta, self.losses, t, p)
            if isinstance(part, Json):
                self.lose("structured result content written as JSON text", t, p)
                items.append({"type": "text", "text": dumps_str(part.value)})
            elif isinstance(part, Text | Opaque):
                item = self.text_item(part, t, p, "a tool message")
                if item is not None:
                    items.append(item)
            else:
                self.lose(f"{_describe(part)} in a tool result cannot be carried (tool messages are "
                          "text only); dropped", t, p)
        if result.is_error:
            first = items[0] if items else None
            if first is not None and first.get("type") == "text" and set(first) == {"type", "text"}:
                said = first["text"].lower().startswith("error")
                if not said:
                    items[0] = {"type": "text", "text": "Error: " + first["text"]}
            else:
                said = False
                items.insert(0, {"type": "text", "text": "Error"})
            self.lose("is_error has no field here: " + ("the text already says so" if said else
                                                        "folded into the text as an 'Error' prefix"), t, p)
        return _text_content(items)

    # ---- tools

    def tools(self, body: dict[str, Any]) -> None:
        """`tools` (or legacy `functions` when every tool came from there) and the tool choice."""
        functions = bool(self.conv.tools) and all(own_meta(NAME, t.meta).get("functions")
                                                  for t in self.conv.tools)
        written: list[Any] = []
        kinds: dict[str, str] = {}
        for tool in self.conv.tools:
            report_foreign(NAME, tool.meta, self.losses)
            if tool.raw is not None and tool.origin == NAME:
                written.append(tool.raw)
                kinds[tool.name] = tool.kind
                continue
            if tool.kind == "custom" and tool.origin == "openai-responses" and isinstance(tool.raw, Mapping):
                written.append(chat_tool(tool.raw, self.fit.name(tool.name, None, None)))
                kinds[tool.name] = tool.kind
                continue
            if tool.raw is not None or tool.kind != "function":
                self.lose(f"tool {tool.name!r} ({tool.origin or '?'} {tool.kind}) cannot be declared "
                          "in Chat Completions; dropped")
                continue
            own = own_meta(NAME, tool.meta)
            if own.pop("functions", None) and not functions:
                self.lose(f"legacy function {tool.name!r} declared in tools[] beside modern tools")
            outer = own.pop("tool", None)
            outer = outer if isinstance(outer, Mapping) else {}
            fn: dict[str, Any] = {"name": self.fit.name(tool.name, None, None)}
            if tool.description is not None:
                fn["description"] = tool.description
            if tool.parameters is not None:
                fn["parameters"] = tool.parameters
            fn.update(own)
            written.append(fn if functions else {**outer, "type": "function", "function": fn})
            kinds[tool.name] = "function"
        if written:
            body["functions" if functions else "tools"] = written
        self.tool_choice(body, kinds, functions)

    def tool_choice(self, body: dict[str, Any], kinds: dict[str, str], functions: bool) -> None:
        choice = self.conv.tool_choice
        verbatim = own_meta(NAME, self.conv.meta).get("tool_choice")
        if choice is None and verbatim is None:
            return
        if not kinds:
            if choice is not None:
                self.lose_setting("tool_choice", choice.mode, "not carried", "no tools to choose from")
            return
        renamed = choice is not None and choice.name is not None and \
            self.fit.written_name(choice.name) != choice.name
        if verbatim is not None and not renamed and \
                _choice(verbatim) == (replace(choice, parallel=None) if choice else None):
            value: Any = verbatim
        elif choice is None:
            return
        elif choice.mode in ("auto", "none", "required") and not (functions and choice.mode == "required"):
            value = choice.mode
        elif choice.mode == "tool" and choice.name in kinds:
            kind = kinds[choice.name]
            name = self.fit.name(choice.name, None, None)
            value = {"name": name} if functions else {"type": kind, kind: {"name": name}}
        else:
            why = "no such tool to choose" if choice.mode == "tool" else "functions have no such choice"
            what = f"{choice.mode} {choice.name or ''}".rstrip()
            self.lose_setting("tool_choice", what, "not carried", why)
            return
        body["function_call" if functions else "tool_choice"] = value
        if choice is not None and choice.parallel is not None:
            if functions:
                self.lose_setting("tool_choice.parallel", choice.parallel, "not carried",
                                  "parallel_tool_calls needs tools[], not legacy functions")
            else:
                body["parallel_tool_calls"] = choice.parallel


def _legacy(call: Invocation, turn: Turn) -> bool:
    """A call read from a legacy `function_call` (it has no id), still the only call of its turn."""
    return bool(own_meta(NAME, call.meta).get("function_call")) and call.wire_id is None \
        and sum(type(x) is Invocation for x in turn.parts) == 1


_pairing_key = itemgetter(0)  # of a (pairing key, part) pair
_call = itemgetter(2)  # of a (turn, part, call) triple
_details = attrgetter("meta")


def _text_content(items: list[dict[str, Any]], empty_string: bool = False) -> str | list[dict[str, Any]]:
    """One plain text (its keys `type` and `text` alone) → a string (an empty one too with
    `empty_string`: a leading system message's reader reads "" as it); none → ""; otherwise the
    content array."""
    if len(items) == 1:
        item = items[0]
        text = item.get("text") if len(item) == 2 and item.get("type") == "text" else None
        if isinstance(text, str) and (text or empty_string):
            return text
    return items if items else ""


def _describe(part: Part) -> str:
    if isinstance(part, Media):
        return f"{part.kind} ({part.media_type or part.url or part.file_id or 'media'})"
    if isinstance(part, Opaque):
        return f"an opaque {part.origin} block"
    return f"a {part.type} part"
