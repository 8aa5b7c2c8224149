"""Writing a canonical conversation as the Gemini `generateContent` request that replays it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

from ...jsonio import dumps_str
from ...model import (
    Conversation,
    Invocation,
    Json,
    Media,
    Opaque,
    Part,
    Reasoning,
    Result,
    Text,
    ToolChoice,
    Turn,
)
from ...shorten import clip
from ..base import Written
from ..meta import own_meta, signature_carrier
from ..reading import media_kind, split_data_url
from ..writer import Fitting, Writer, is_own_opaque, report_foreign, writer_target
from .common import _SIGNATURE, FACTS, NAME

_MODES_OUT = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}
_END_OF_HISTORY = ("Gemini rejects a history that ends on a model turn; append a user turn before "
                   "sending")


def write(conversation: Conversation, *, target: str | None = None, origins: bool = True) -> Written:
    """The request body that replays `conversation`, and what it could not carry."""
    return _Writer(conversation, writer_target(NAME, target)).recording(
        origins, partial(write, conversation, target=target)).run()


class _Writer(Writer):
    def __init__(self, conv: Conversation, target: str) -> None:
        super().__init__(conv)
        # Function names (and ids, which Gemini leaves unconstrained and the writer never makes
        # up) as the target accepts them: one name per name everywhere, distinct names kept
        # distinct, since Gemini pairs a response with its call by name.
        self.fit = Fitting(conv, target, self.losses, id_prefix=None)

    def run(self) -> Written:
        conv = self.conv
        contents = self.contents()
        body: dict[str, Any] = {"contents": [c for _, c in contents]}
        system = self.parts(enumerate(conv.system), None)
        if system:
            body["systemInstruction"] = {"parts": system}
        tools = self.tools()
        if tools:
            body["tools"] = tools
        if conv.tool_choice is not None:
            body["toolConfig"] = {"functionCallingConfig": self.tool_choice(conv.tool_choice)}
        _merge(body, own_meta(NAME, conv.meta))
        self.write_settings(body, FACTS, self.fit.target)
        self.report_parameters(FACTS)
        self.check_order(contents)
        return Written(body=body, losses=tuple(self.losses), origins=self.origins(body))

    # ----- turns and contents

    def contents(self) -> list[tuple[int, dict[str, Any]]]:
        """Each turn → one Content; the results answering a model turn → one user Content right
        after it, in call order. Returns (canonical turn index, Content) pairs."""
        turns = self.conv.turns
        answers = self.claim_results()
        taken = {(k, i) for k, i, _ in answers.values()}
        out: list[tuple[int, dict[str, Any]]] = []
        for k, turn in enumerate(turns):
            for i, p in enumerate(turn.parts):
                if isinstance(p, Result) and (k, i) not in taken:
                    self.lose(f"result for {p.name or 'an unknown call'} answers no call of the model "
                              "turn before it: Gemini has nowhere to put it, dropped", k, i)
            others = [(i, p) for i, p in enumerate(turn.parts) if not isinstance(p, Result)]
            if not turn.parts:
                self.lose("empty turn omitted: Gemini rejects a content without parts", k)
            if others:
                role = "model" if turn.role == "assistant" else "user"
                if turn.role in ("system", "tool"):
                    self.lose(f"Gemini has no {turn.role} turn inside contents: written as a user turn", k)
                parts = self.parts(others, k)
                if parts:
                    out.append((k, self.content(role, parts, turn, k)))
                else:
                    self.lose("nothing in this turn can be written for Gemini: turn omitted", k)
            calls = [(i, p) for i, p in enumerate(turn.parts) if isinstance(p, Invocation)]
            if turn.role != "assistant" or not calls:
                continue
            responses = []
            for i, call in calls:
                if call.id in answers:
                    at, j, result = answers[call.id]
                    responses.append(self.carries(self.result(result, call, at, j), at, j))
                else:
                    self.lose(f"call {call.name} (turn {k}, part {i}) has no result: Gemini requires one "
                              "functionResponse per functionCall in the next content")
            if responses:
                nxt = turns[k + 1] if k + 1 < len(turns) and turns[k + 1].role == "tool" else None
                out.append((k + 1 if nxt else k, self.content("user", responses, nxt, k + 1)))
        return out

    def claim_results(self) -> dict[str, tuple[int, int, Result]]:
        """For each model turn with calls, the results after it (until the next model turn) that
        answer them: call id → (turn, part, result)."""
        turns = self.conv.turns
        answers: dict[str, tuple[int, int, Result]] = {}
        for k, turn in enumerate(turns):
            ids = {c.id for c in turn.invocations()} if turn.role == "assistant" else set()
            j = k + 1
            while ids and j < len(turns) and turns[j].role != "assistant":
                for i, p in enumerate(turns[j].parts):
                    if isinstance(p, Result) and p.invocation_id in ids and p.invocation_id not in answers:
                        answers[p.invocation_id] = (j, i, p)
                        if j != k + 1 or turns[j].role != "tool":
                            self.lose("result moved into the user content right after its call turn "
                                      "(Gemini wants all responses of a model turn there)", j, i)
                j += 1
        return answers

    def content(self, role: str, parts: list[dict[str, Any]], turn: Turn | None, k: int) -> dict[str, Any]:
        content = {"role": role, "parts": parts}
        if turn is not None:
            self.apply_meta(content, turn.meta, k, None)
        return content

    def check_order(self, contents: list[tuple[int, dict[str, Any]]]) -> None:
        """The turn-order rules Gemini enforces with a 400, reported (never repaired by inventing
        turns)."""
        if not contents:
            self.lose("Gemini needs at least one content; the conversation has no turn to send")
            return
        for n, (k, content) in enumerate(contents):
            calls = any("functionCall" in p for p in content["parts"])
            if content["role"] == "model" and calls and (n == 0 or contents[n - 1][1]["role"] != "user"):
                self.lose(f"the function call turn (turn {k}) does not follow a user turn or a function "
                          "response turn: Gemini rejects it")
        if contents[-1][1]["role"] == "model":
            self.lose(_END_OF_HISTORY)

    # ----- parts

    def parts(self, items: Iterable[tuple[int, Part]], k: int | None) -> list[dict[str, Any]]:
        """Parts → wire parts; a signature-only Reasoning of Gemini's goes onto the part after it."""
        out: list[dict[str, Any]] = []
        pending: tuple[int, str] | None = None
        for i, part in items:
            if signature_carrier(part, NAME):
                if pending:
                    out.append(self.carries(self.lone_signature(pending, k), k, pending[0]))
                pending = (i, part.signature)  # type: ignore[attr-defined]
                continue
            wire = self.part(part, k, i)
            if wire is None:
                continue
            signed = pending if pending and not isinstance(part, Reasoning) else None
            if signed:
                wire[_SIGNATURE] = signed[1]
            elif pending:
                out.append(self.carries(self.lone_signature(pending, k), k, pending[0]))
            pending = None
            out.append(self.carries(wire, k, i))
            if signed:
                self.carries(wire, k, signed[0], "/" + _SIGNATURE)
        if pending:
            out.append(self.carries(self.lone_signature(pending, k), k, pending[0]))
        return out

    def lone_signature(self, pending: tuple[int, str], k: int | None) -> dict[str, Any]:
        self.lose("thought signature with no part after it to ride on: written on an empty "
                  "thought part", k, pending[0])
        return {"text": "", "thought": True, _SIGNATURE: pending[1]}

    def part(self, part: Part, k: int | None, i: int) -> dict[str, Any] | None:
        wire: dict[str, Any] | None
        if isinstance(part, Text):
            wire = {"text": part.text}
        elif isinstance(part, Reasoning):
            wire = self.reasoning(part, k, i)
        elif isinstance(part, Media):
            wire = self.media(part, k, i)
        elif isinstance(part, Invocation):
            wire = {"functionCall": self.call(part, k, i)}
        elif isinstance(part, Json):
            self.lose("JSON content outside a tool result written as text", k, i)
            wire = {"text": dumps_str(part.value)}
        elif is_own_opaque(part, NAME):
            wire = dict(part.value)
        elif isinstance(part, Opaque):
            self.lose(f"{part.origin} block {clip(dumps_str(part.value), 60)} has no Gemini equivalent: "
                      "dropped", k, i)
            return None
        else:
            self.lose("a tool result outside a tool turn cannot be written: dropped", k, i)
            return None
        if wire is not None:
            self.apply_meta(wire, part.meta, k, i)
        return wire

    def reasoning(self, part: Reasoning, k: int | None, i: int) -> dict[str, Any] | None:
        if part.origin != NAME:
            self.lose(f"{part.origin or 'unattributed'} reasoning dropped: Gemini only accepts its own "
                      "thoughts and thought signatures", k, i)
            return None
        for what, value in (("summary", part.summary), ("redacted reasoning", part.redacted),
                            ("reasoning id", part.wire_id)):
            if value:
                self.lose(f"Gemini thoughts have no {what}: dropped", k, i)
        wire: dict[str, Any] = {"text": part.text, "thought": True}
        if part.signature:
            wire[_SIGNATURE] = part.signature
        return wire

    def media(self, part: Media, k: int | None, i: int) -> dict[str, Any] | None:
        media_type, data = part.media_type, part.data
        if data is None and part.url and part.url.startswith("data:"):
            media_type, data = split_data_url(part.url)
            media_type = media_type or part.media_type
            self.lose("data: URL written as inlineData", k, i)
        if data is not None:
            if media_type is None:
                self.lose("inlineData needs a MIME type: wrote application/octet-stream", k, i)
            wire = {"inlineData": {"mimeType": media_type or "application/octet-stream", "data": data}}
            if part.url and not part.url.startswith("data:"):
                self.lose(f"media URL {part.url} dropped beside the inline data", k, i)
        elif part.url is not None:
            wire = {"fileData": {**({"mimeType": media_type} if media_type else {}), "fileUri": part.url}}
        else:
            self.lose(f"file id {part.file_id} has no Gemini equivalent (fileData needs a URI): "
                      "media dropped", k, i)
            return None
        if part.file_id and (data is not None or part.url is not None):
            self.lose(f"file id {part.file_id} dropped", k, i)
        if part.kind != media_kind(media_type or "application/octet-stream"):
            self.lose(f"media kind {part.kind} not carried: Gemini infers it from the MIME type", k, i)
        return wire

    def call(self, call: Invocation, k: int | None, i: int) -> dict[str, Any]:
        name, args = self.fit.name(call.name, k, i), call.arguments
        if not isinstance(args, dict):
            shown = call.raw_arguments if call.raw_arguments is not None else dumps_str(args)
            self.lose(f"arguments {clip(shown, 80)!r} are not a JSON object, which Gemini requires: "
                      "wrote {}", k, i)
            args = {}
        out = {"name": name, "args": args}
        wire_id = self.fit.call_id(call, k, i)
        if wire_id is not None:
            out["id"] = wire_id
        return out

    def result(self, result: Result, call: Invocation, k: int, i: int) -> dict[str, Any]:
        if result.name is None:
            self.lose(f"functionResponse needs the function name: wrote {call.name!r}, its call's", k, i)
        elif result.name != call.name and call.wire_id is None:
            self.lose(f"functionResponse named {result.name!r} answers a call of {call.name!r}: without "
                      "ids Gemini pairs responses with calls by name, so it no longer answers its call",
                      k, i)
        out: dict[str, Any] = {"name": self.fit.name(result.name or call.name, k, i)}
        call_id = self.fit.written_id(call.id)
        if call_id is not None:
            out["id"] = call_id
            if result.wire_id != call_id:
                self.lose(f"functionResponse id written as {call_id!r}, its call's id", k, i)
        elif result.wire_id is not None:
            self.lose(f"id {result.wire_id!r} dropped: its call has none, and Gemini matches ids", k, i)
        out["response"], media = self.response(result, k, i)
        if media:
            out["parts"] = media
        wire = {"functionResponse": out}
        self.apply_meta(wire, result.meta, k, i)
        return wire

    def response(self, result: Result, k: int, i: int) -> tuple[Any, list[dict[str, Any]]]:
        """Result content → (`response` object, `parts`): text and JSON go in the response object,
        under `error` when the call failed; media goes in `parts`."""
        inline: list[Text | Json] = []
        media: list[dict[str, Any]] = []
        for n, p in enumerate(result.content):
            if p.meta:
                report_foreign(NAME, p.meta, self.losses, k, i)
            if isinstance(p, Text | Json):
                inline.append(p)
            elif isinstance(p, Media):
                wire = self.media(p, k, i)
                media.extend([wire] if wire else [])
            elif is_own_opaque(p, NAME):
                media.append(dict(p.value))
            else:
                self.lose(f"{p.type} part {n} of a result has no Gemini equivalent: dropped", k, i)
        first_media = next((n for n, p in enumerate(result.content) if isinstance(p, Media | Opaque)), None)
        if first_media is not None and any(isinstance(p, Text | Json) for p in result.content[first_media:]):
            self.lose("result media moved after its text: Gemini keeps media in functionResponse.parts",
                      k, i)
        values = [p.text if isinstance(p, Text) else p.value for p in inline]
        value = values[0] if len(values) == 1 else None
        if len(values) > 1 and all(isinstance(p, Text) for p in inline):
            value = "\n".join(values)
            self.lose(f"{len(values)} text parts of a result joined into one response string", k, i)
        elif len(values) > 1:
            value = values
            self.lose(f"{len(values)} parts of a result written as one JSON array", k, i)
        elif inline and isinstance(inline[0], Json) and (value is None or isinstance(value, str)):
            self.lose("a JSON null or string result reads back as empty or as text", k, i)
        key = "error" if result.is_error else "output"
        if not own_meta(NAME, result.meta).get("bare_response"):
            return {key: value}, media
        # An object that was the response itself goes back bare when it reads back the same.
        if (len(inline) == 1 and isinstance(inline[0], Json) and isinstance(value, dict)
                and ("error" in value) == result.is_error and set(value) not in ({"output"}, {"error"})):
            return value, media
        self.lose(f"response object wrapped in {{{key!r}: …}}", k, i)
        return {key: value}, media

    # ----- tools

    def tools(self) -> list[dict[str, Any]]:
        """Consecutive function tools → one `functionDeclarations` object; Gemini's own hosted tools
        verbatim, in order."""
        out: list[dict[str, Any]] = []
        group: list[dict[str, Any]] | None = None
        for tool in self.conv.tools:
            if tool.kind == "function":
                decl: dict[str, Any] = {"name": self.fit.name(tool.name, None, None)}
                if tool.description is not None:
                    decl["description"] = tool.description
                if tool.parameters is not None:
                    plain = own_meta(NAME, tool.meta).get("schema") == "parameters"
                    decl["parameters" if plain else "parametersJsonSchema"] = tool.parameters
                self.apply_meta(decl, tool.meta, None, None, what=f"tool {tool.name}")
                if group is None:
                    group = []
                    out.append({"functionDeclarations": group})
                group.append(decl)
            elif tool.origin == NAME and isinstance(tool.raw, dict):
                out.append(tool.raw)
                group = None
            else:
                self.lose(f"{tool.origin or 'another format'}'s hosted tool {tool.name} ({tool.kind}) "
                          "has no Gemini equivalent: dropped")
        return out

    def tool_choice(self, choice: ToolChoice) -> dict[str, Any]:
        mode = _MODES_OUT.get(choice.mode)
        if mode is None:
            self.lose_setting("tool_choice", choice.mode, "written as AUTO", "Gemini has no such mode")
        out: dict[str, Any] = {"mode": mode or "AUTO"}
        if choice.mode == "tool" and choice.name:
            out["allowedFunctionNames"] = [self.fit.name(choice.name, None, None)]
        elif choice.mode == "tool":
            self.lose_setting("tool_choice", choice.mode, "written as ANY (any tool)",
                              "the forced choice names no tool")
        if choice.parallel is not None:
            verb = "allow" if choice.parallel else "forbid"
            self.lose_setting("tool_choice.parallel", choice.parallel, "not carried",
                              f"Gemini cannot {verb} parallel calls explicitly")
        return out

    # ----- details

    def apply_meta(self, wire: dict[str, Any], meta: Mapping[str, Any], k: int | None, i: int | None,
                   what: str = "details") -> None:
        """Put Gemini's own unmodelled keys back; report the details other formats kept."""
        extra = own_meta(NAME, meta).get("extra")
        if isinstance(extra, Mapping):
            _merge(wire, extra)
        report_foreign(NAME, meta, self.losses, k, i, what)


def _merge(target: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Deep-merge `extra` into `target`; nested objects are copied, never mutated in place."""
    for key, value in extra.items():
        old = target.get(key)
        if isinstance(old, dict) and isinstance(value, Mapping):
            target[key] = inner = dict(old)
            _merge(inner, value)
        else:
            target[key] = value
