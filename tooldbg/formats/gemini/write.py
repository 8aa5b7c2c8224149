"""Writing a canonical conversation as the Gemini `generateContent` request that replays it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...jsonio import dumps_str
from ...model import (
    Conversation,
    Invocation,
    Json,
    Loss,
    Media,
    Opaque,
    Part,
    Reasoning,
    Result,
    Text,
    Tool,
    ToolChoice,
    Turn,
)
from ..base import (
    Fitting,
    Origins,
    Written,
    is_own_opaque,
    loss_for,
    media_kind,
    own_meta,
    report_foreign,
    split_data_url,
    writer_target,
)
from .common import _SIGNATURE, NAME

_MODES_OUT = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}
_END_OF_HISTORY = ("Gemini rejects a history that ends on a model turn; append a user turn before "
                   "sending")


def write(conv: Conversation, *, target: str | None = None) -> Written:
    """The request body that replays `conv`, and what it could not carry."""
    losses: list[Loss] = []
    # Function names (and ids, which Gemini leaves unconstrained and the writer never makes up) as
    # the target accepts them: one name per name everywhere, distinct names kept distinct, since
    # Gemini pairs a response with its call by name.
    names = Fitting(conv, writer_target(NAME, target), losses, id_prefix=None)
    marks = Origins()
    contents = _write_contents(conv, names, losses, marks)
    body: dict[str, Any] = {"contents": [c for _, c in contents]}
    system = _write_parts(enumerate(conv.system), None, names, losses)
    if system:
        body["systemInstruction"] = {"parts": system}
    tools = _write_tools(conv.tools, names, losses)
    if tools:
        body["tools"] = tools
    if conv.tool_choice is not None:
        body["toolConfig"] = {"functionCallingConfig": _write_choice(conv.tool_choice, names, losses)}
    _merge(body, own_meta(NAME, conv.meta))
    report_foreign(NAME, conv.meta, losses, what="request settings")
    _check_order(contents, losses)
    return Written(body=body, losses=tuple(losses), origins=marks.later(body))


def _write_contents(conv: Conversation, names: Fitting, losses: list[Loss],
                    marks: Origins) -> list[tuple[int, dict[str, Any]]]:
    """Each turn → one Content; the results answering a model turn → one user Content right after
    it, in call order. Returns (canonical turn index, Content) pairs."""
    turns = conv.turns
    answers = _claim_results(turns, losses)
    taken = {(k, i) for k, i, _ in answers.values()}
    out: list[tuple[int, dict[str, Any]]] = []
    for k, turn in enumerate(turns):
        for i, p in enumerate(turn.parts):
            if isinstance(p, Result) and (k, i) not in taken:
                loss_for(losses, f"result for {p.name or 'an unknown call'} answers no call of the model "
                         "turn before it: Gemini has nowhere to put it, dropped", k, i)
        others = [(i, p) for i, p in enumerate(turn.parts) if not isinstance(p, Result)]
        if not turn.parts:
            loss_for(losses, "empty turn omitted: Gemini rejects a content without parts", k)
        if others:
            role = "model" if turn.role == "assistant" else "user"
            if turn.role in ("system", "tool"):
                loss_for(losses, f"Gemini has no {turn.role} turn inside contents: written as a user turn", k)
            parts = _write_parts(others, k, names, losses, marks)
            if parts:
                out.append((k, _content(role, parts, turn, k, losses)))
            else:
                loss_for(losses, "nothing in this turn can be written for Gemini: turn omitted", k)
        calls = [(i, p) for i, p in enumerate(turn.parts) if isinstance(p, Invocation)]
        if turn.role != "assistant" or not calls:
            continue
        responses = []
        for i, call in calls:
            if call.id in answers:
                at, j, result = answers[call.id]
                responses.append(marks.mark(_write_result(result, call, at, j, names, losses), at, j))
            else:
                loss_for(losses, f"call {call.name} (turn {k}, part {i}) has no result: Gemini requires one "
                         "functionResponse per functionCall in the next content")
        if responses:
            nxt = turns[k + 1] if k + 1 < len(turns) and turns[k + 1].role == "tool" else None
            out.append((k + 1 if nxt else k, _content("user", responses, nxt, k + 1, losses)))
    return out


def _claim_results(turns: tuple[Turn, ...], losses: list[Loss]) -> dict[str, tuple[int, int, Result]]:
    """For each model turn with calls, the results after it (until the next model turn) that
    answer them: call id → (turn, part, result)."""
    answers: dict[str, tuple[int, int, Result]] = {}
    for k, turn in enumerate(turns):
        ids = {c.id for c in turn.invocations()} if turn.role == "assistant" else set()
        j = k + 1
        while ids and j < len(turns) and turns[j].role != "assistant":
            for i, p in enumerate(turns[j].parts):
                if isinstance(p, Result) and p.invocation_id in ids and p.invocation_id not in answers:
                    answers[p.invocation_id] = (j, i, p)
                    if j != k + 1 or turns[j].role != "tool":
                        loss_for(losses, "result moved into the user content right after its call turn "
                                 "(Gemini wants all responses of a model turn there)", j, i)
            j += 1
    return answers


def _content(role: str, parts: list[dict[str, Any]], turn: Turn | None, k: int,
             losses: list[Loss]) -> dict[str, Any]:
    content = {"role": role, "parts": parts}
    if turn is not None:
        _apply_meta(content, turn.meta, losses, k, None)
    return content


def _write_parts(items: Iterable[tuple[int, Part]], k: int | None, names: Fitting,
                 losses: list[Loss], marks: Origins | None = None) -> list[dict[str, Any]]:
    """Parts → wire parts; a signature-only Reasoning of Gemini's goes onto the part after it."""
    marks = marks if marks is not None else Origins()
    out: list[dict[str, Any]] = []
    pending: tuple[int, str] | None = None
    for i, part in items:
        if _carrier(part):
            if pending:
                out.append(marks.mark(_lone_signature(pending, k, losses), k, pending[0]))
            pending = (i, part.signature)  # type: ignore[attr-defined]
            continue
        wire = _write_part(part, k, i, names, losses)
        if wire is None:
            continue
        signed = pending if pending and not isinstance(part, Reasoning) else None
        if signed:
            wire[_SIGNATURE] = signed[1]
        elif pending:
            out.append(marks.mark(_lone_signature(pending, k, losses), k, pending[0]))
        pending = None
        out.append(marks.mark(wire, k, i))
        if signed:
            marks.mark(wire, k, signed[0], "/" + _SIGNATURE)
    if pending:
        out.append(marks.mark(_lone_signature(pending, k, losses), k, pending[0]))
    return out


def _carrier(part: Part) -> bool:
    """A Reasoning that only holds the thoughtSignature of the part after it."""
    return (isinstance(part, Reasoning) and part.origin == NAME and bool(part.signature)
            and not (part.text or part.summary or part.redacted or own_meta(NAME, part.meta).get("thought")))


def _lone_signature(pending: tuple[int, str], k: int | None, losses: list[Loss]) -> dict[str, Any]:
    loss_for(losses, "thought signature with no part after it to ride on: written on an empty "
             "thought part", k, pending[0])
    return {"text": "", "thought": True, _SIGNATURE: pending[1]}


def _write_part(part: Part, k: int | None, i: int, names: Fitting,
                losses: list[Loss]) -> dict[str, Any] | None:
    wire: dict[str, Any] | None
    if isinstance(part, Text):
        wire = {"text": part.text}
    elif isinstance(part, Reasoning):
        wire = _write_reasoning(part, k, i, losses)
    elif isinstance(part, Media):
        wire = _write_media(part, k, i, losses)
    elif isinstance(part, Invocation):
        wire = {"functionCall": _write_call(part, k, i, names, losses)}
    elif isinstance(part, Json):
        loss_for(losses, "JSON content outside a tool result written as text", k, i)
        wire = {"text": dumps_str(part.value)}
    elif is_own_opaque(part, NAME):
        wire = dict(part.value)
    elif isinstance(part, Opaque):
        loss_for(losses, f"{part.origin} block {dumps_str(part.value)[:60]} has no Gemini equivalent: "
                 "dropped", k, i)
        return None
    else:
        loss_for(losses, "a tool result outside a tool turn cannot be written: dropped", k, i)
        return None
    if wire is not None:
        _apply_meta(wire, part.meta, losses, k, i)
    return wire


def _write_reasoning(part: Reasoning, k: int | None, i: int, losses: list[Loss]) -> dict[str, Any] | None:
    if part.origin != NAME:
        loss_for(losses, f"{part.origin or 'unattributed'} reasoning dropped: Gemini only accepts its own "
                 "thoughts and thought signatures", k, i)
        return None
    for what, value in (("summary", part.summary), ("redacted reasoning", part.redacted),
                        ("reasoning id", part.wire_id)):
        if value:
            loss_for(losses, f"Gemini thoughts have no {what}: dropped", k, i)
    wire: dict[str, Any] = {"text": part.text, "thought": True}
    if part.signature:
        wire[_SIGNATURE] = part.signature
    return wire


def _write_media(part: Media, k: int | None, i: int, losses: list[Loss]) -> dict[str, Any] | None:
    media_type, data = part.media_type, part.data
    if data is None and part.url and part.url.startswith("data:"):
        media_type, data = split_data_url(part.url)
        media_type = media_type or part.media_type
        loss_for(losses, "data: URL written as inlineData", k, i)
    if data is not None:
        if media_type is None:
            loss_for(losses, "inlineData needs a MIME type: wrote application/octet-stream", k, i)
        wire = {"inlineData": {"mimeType": media_type or "application/octet-stream", "data": data}}
        if part.url and not part.url.startswith("data:"):
            loss_for(losses, f"media URL {part.url} dropped beside the inline data", k, i)
    elif part.url is not None:
        wire = {"fileData": {**({"mimeType": media_type} if media_type else {}), "fileUri": part.url}}
    else:
        loss_for(losses, f"file id {part.file_id} has no Gemini equivalent (fileData needs a URI): "
                 "media dropped", k, i)
        return None
    if part.file_id and (data is not None or part.url is not None):
        loss_for(losses, f"file id {part.file_id} dropped", k, i)
    if part.kind != media_kind(media_type or "application/octet-stream"):
        loss_for(losses, f"media kind {part.kind} not carried: Gemini infers it from the MIME type", k, i)
    return wire


def _write_call(call: Invocation, k: int | None, i: int, names: Fitting,
                losses: list[Loss]) -> dict[str, Any]:
    name, args = names.name(call.name, k, i), call.arguments
    if not isinstance(args, dict):
        shown = call.raw_arguments if call.raw_arguments is not None else dumps_str(args)
        loss_for(losses, f"arguments {shown[:80]!r} are not a JSON object, which Gemini requires: "
                 "wrote {}", k, i)
        args = {}
    out = {"name": name, "args": args}
    wire_id = names.call_id(call, k, i)
    if wire_id is not None:
        out["id"] = wire_id
    return out


def _write_result(result: Result, call: Invocation, k: int, i: int, names: Fitting,
                  losses: list[Loss]) -> dict[str, Any]:
    if result.name is None:
        loss_for(losses, f"functionResponse needs the function name: wrote {call.name!r}, its call's", k, i)
    elif result.name != call.name and call.wire_id is None:
        loss_for(losses, f"functionResponse named {result.name!r} answers a call of {call.name!r}: without "
                 "ids Gemini pairs responses with calls by name, so it no longer answers its call", k, i)
    out: dict[str, Any] = {"name": names.name(result.name or call.name, k, i)}
    call_id = names.written_id(call.id)
    if call_id is not None:
        out["id"] = call_id
        if result.wire_id != call_id:
            loss_for(losses, f"functionResponse id written as {call_id!r}, its call's id", k, i)
    elif result.wire_id is not None:
        loss_for(losses, f"id {result.wire_id!r} dropped: its call has none, and Gemini matches ids",
                 k, i)
    out["response"], media = _write_response(result, k, i, losses)
    if media:
        out["parts"] = media
    wire = {"functionResponse": out}
    _apply_meta(wire, result.meta, losses, k, i)
    return wire


def _write_response(result: Result, k: int, i: int, losses: list[Loss]) -> tuple[Any, list[dict[str, Any]]]:
    """Result content → (`response` object, `parts`): text and JSON go in the response object,
    under `error` when the call failed; media goes in `parts`."""
    inline: list[Text | Json] = []
    media: list[dict[str, Any]] = []
    for n, p in enumerate(result.content):
        if isinstance(p, Text | Json):
            inline.append(p)
        elif isinstance(p, Media):
            wire = _write_media(p, k, i, losses)
            media.extend([wire] if wire else [])
        elif is_own_opaque(p, NAME):
            media.append(dict(p.value))
        else:
            loss_for(losses, f"{p.type} part {n} of a result has no Gemini equivalent: dropped", k, i)
    first_media = next((n for n, p in enumerate(result.content) if isinstance(p, Media | Opaque)), None)
    if first_media is not None and any(isinstance(p, Text | Json) for p in result.content[first_media:]):
        loss_for(losses, "result media moved after its text: Gemini keeps media in functionResponse.parts",
                 k, i)
    values = [p.text if isinstance(p, Text) else p.value for p in inline]
    value = values[0] if len(values) == 1 else None
    if len(values) > 1 and all(isinstance(p, Text) for p in inline):
        value = "\n".join(values)
        loss_for(losses, f"{len(values)} text parts of a result joined into one response string", k, i)
    elif len(values) > 1:
        value = values
        loss_for(losses, f"{len(values)} parts of a result written as one JSON array", k, i)
    elif inline and isinstance(inline[0], Json) and (value is None or isinstance(value, str)):
        loss_for(losses, "a JSON null or string result reads back as empty or as text", k, i)
    key = "error" if result.is_error else "output"
    if not own_meta(NAME, result.meta).get("bare_response"):
        return {key: value}, media
    # An object that was the response itself goes back bare when it reads back the same.
    if (len(inline) == 1 and isinstance(inline[0], Json) and isinstance(value, dict)
            and ("error" in value) == result.is_error and set(value) not in ({"output"}, {"error"})):
        return value, media
    loss_for(losses, f"response object wrapped in {{{key!r}: …}}", k, i)
    return {key: value}, media


def _write_tools(tools: tuple[Tool, ...], names: Fitting, losses: list[Loss]) -> list[dict[str, Any]]:
    """Consecutive function tools → one `functionDeclarations` object; Gemini's own hosted tools
    verbatim, in order."""
    out: list[dict[str, Any]] = []
    group: list[dict[str, Any]] | None = None
    for tool in tools:
        if tool.kind == "function":
            decl: dict[str, Any] = {"name": names.name(tool.name, None, None)}
            if tool.description is not None:
                decl["description"] = tool.description
            if tool.parameters is not None:
                plain = own_meta(NAME, tool.meta).get("schema") == "parameters"
                decl["parameters" if plain else "parametersJsonSchema"] = tool.parameters
            _apply_meta(decl, tool.meta, losses, None, None, what=f"tool {tool.name}")
            if group is None:
                group = []
                out.append({"functionDeclarations": group})
            group.append(decl)
        elif tool.origin == NAME and isinstance(tool.raw, dict):
            out.append(tool.raw)
            group = None
        else:
            loss_for(losses, f"{tool.origin or 'another format'}'s hosted tool {tool.name} ({tool.kind}) "
                     "has no Gemini equivalent: dropped")
    return out


def _write_choice(choice: ToolChoice, names: Fitting, losses: list[Loss]) -> dict[str, Any]:
    mode = _MODES_OUT.get(choice.mode)
    if mode is None:
        loss_for(losses, f"tool choice {choice.mode!r} has no Gemini mode: wrote AUTO")
    out: dict[str, Any] = {"mode": mode or "AUTO"}
    if choice.mode == "tool" and choice.name:
        out["allowedFunctionNames"] = [names.name(choice.name, None, None)]
    elif choice.mode == "tool":
        loss_for(losses, "forced tool choice names no tool: wrote ANY (any tool)")
    if choice.parallel is not None:
        loss_for(losses, f"Gemini cannot {'allow' if choice.parallel else 'forbid'} parallel calls "
                 "explicitly: setting dropped")
    return out


def _apply_meta(wire: dict[str, Any], meta: Mapping[str, Any], losses: list[Loss], k: int | None,
                i: int | None, what: str = "details") -> None:
    """Put Gemini's own unmodelled keys back; report the details other formats kept."""
    extra = own_meta(NAME, meta).get("extra")
    if isinstance(extra, Mapping):
        _merge(wire, extra)
    report_foreign(NAME, meta, losses, k, i, what)


def _merge(target: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Deep-merge `extra` into `target`; nested objects are copied, never mutated in place."""
    for key, value in extra.items():
        old = target.get(key)
        if isinstance(old, dict) and isinstance(value, Mapping):
            target[key] = inner = dict(old)
            _merge(inner, value)
        else:
            target[key] = value


def _check_order(contents: list[tuple[int, dict[str, Any]]], losses: list[Loss]) -> None:
    """The turn-order rules Gemini enforces with a 400, reported (never repaired by inventing turns)."""
    if not contents:
        loss_for(losses, "Gemini needs at least one content; the conversation has no turn to send")
        return
    for n, (k, content) in enumerate(contents):
        calls = any("functionCall" in p for p in content["parts"])
        if content["role"] == "model" and calls and (n == 0 or contents[n - 1][1]["role"] != "user"):
            loss_for(losses, f"the function call turn (turn {k}) does not follow a user turn or a function "
                     "response turn: Gemini rejects it")
    if contents[-1][1]["role"] == "model":
        loss_for(losses, _END_OF_HISTORY)
