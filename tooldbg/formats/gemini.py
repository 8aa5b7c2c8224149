"""Gemini `generateContent` (v1beta and v1, and Vertex AI's identical body).

What makes this format more than a field mapping:

* Calls usually carry no id. A `functionResponse` answers the call with the same name at the same
  position in the model turn before it (`link` pairs them so), and all responses to one model turn
  go in one user `Content`, in call order, one for each call. A response is written under its own
  name (a result read without one has its call's, from `link`); one named unlike its call is
  reported when the call has no id, since pairing by name then no longer finds that call.
* There is no error flag. By convention a response object holds `{"output": …}` or `{"error": …}`.
  The reader maps `error` to `is_error` and the writer puts it back, so the flag survives a round trip.
* `thoughtSignature` can ride beside any part. It is read as a `Reasoning(signature=…)` placed right
  before the part that carried it (a `thought: true` text part is itself that Reasoning), and the
  writer puts it back on that part.
* Streams are not deltas of one object: each chunk adds parts. Text runs are joined, and Vertex
  `partialArgs` fragments (addressed by JSON path) are put back into `args`.
* Media in a tool result is written as `functionResponse.parts`, which only Gemini 3 and later
  accept (Gemini 2.x has no multimodal function responses).
* Keys arrive in lowerCamelCase (REST) or snake_case (logs from Python tooling). Both are read;
  camelCase is written. Wire keys tooldbg does not model are kept in `meta["gemini"]`
  (`extra`) and written back verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import FormatError
from ..jsonio import dumps_str
from ..model import (
    Conversation,
    Invocation,
    Json,
    Loss,
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
    Written,
    expect_dict,
    expect_list,
    link,
    loss_for,
    media_kind,
    meta_for,
    optional_field,
    optional_list,
    own_meta,
    own_opaque,
    report_foreign,
    split_data_url,
    split_results,
    type_name,
)

NAME = "gemini"
URL_HINTS: tuple[str, ...] = (":generateContent", ":streamGenerateContent")

from .base import Facts  # noqa: E402 - one block with FACTS, to move as one

#: What the code outside this module needs to know about Gemini generateContent (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=4,
    messages_key="contents",
    finish_pointer="/candidates/0/finishReason",
    arguments="object",
    arguments_path=("functionCall", "args"),
    failure="error-key",
    failure_wording='an {"error": …} response',
    reasoning="thoughtSignature",
    strict_pairing=True,
    merges_roles=False,
    calls_last=False,
    rejects_blank_text=False,
)

_SIGNATURE = "thoughtSignature"
_ROLES = {None: "user", "user": "user", "model": "assistant", "function": "user", "system": "system"}
_SNAKE = re.compile(r"(?<=[a-z0-9])_([a-z0-9])")
_UPPER = re.compile(r"[A-Z]")
_VALID_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d{1,9})\]|\[(['\"])(.*?)\3\]")
_MODES_IN = {"AUTO": "auto", "ANY": "required", "NONE": "none"}
_MODES_OUT = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}
_END_OF_HISTORY = ("Gemini rejects a history that ends on a model turn; append a user turn before "
                   "sending")

#: `_extra` specs: the keys a reader consumed (None: wholly; a mapping: these keys inside it).
_Spec = Mapping[str, Any]


# ----------------------------------------------------------------------------- key spellings


def _camel(key: str) -> str:
    return _SNAKE.sub(lambda m: m.group(1).upper(), key)


def _find(obj: Mapping[str, Any], name: str) -> tuple[str, Any]:
    """(key, value) of the lowerCamelCase field `name`, also found under its snake_case spelling."""
    if name in obj:
        return name, obj[name]
    snake = _UPPER.sub(lambda m: "_" + m.group(0).lower(), name)
    return snake, obj.get(snake)


def _get(obj: Mapping[str, Any], name: str) -> Any:
    return _find(obj, name)[1]


def _text_field(obj: Mapping[str, Any], name: str, source: Source) -> str | None:
    """The string field `name`, under whichever spelling the object uses."""
    return optional_field(obj, _find(obj, name)[0], str, source)


def _extra(obj: Mapping[str, Any], used: _Spec) -> dict[str, Any]:
    """The keys of `obj` a reader did not consume, defaults (null, false, "", empty) left out. Consumed keys
    with a nested spec keep their unconsumed sub-keys, under the camelCase name the writer uses."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = _camel(key)
        if name in used:
            if used[name] is None or not isinstance(value, dict):
                continue
            key, value = name, _extra(value, used[name])
        if not (value is None or value is False or value in ("", {}, [])):
            out[key] = value
    return out


def _kept(obj: Mapping[str, Any], used: _Spec, **flags: Any) -> dict[str, Any]:
    """A node's meta: `{"gemini": {flags…, "extra": {unconsumed wire keys}}}`, or {}."""
    extra = _extra(obj, used)
    return meta_for(NAME, {**flags, **({"extra": extra} if extra else {})})


# ----------------------------------------------------------------------------------- sniffing


def sniff(body: Any, side: str) -> bool:
    if not isinstance(body, dict):
        return False
    if side == "request":
        return isinstance(_get(body, "contents"), list)
    error = body.get("error")
    return (_get(body, "candidates") is not None or _get(body, "promptFeedback") is not None
            or isinstance(error, dict) and isinstance(error.get("status"), str))


def sniff_stream(events: list[StreamEvent]) -> bool:
    first = next((e.data for e in events if isinstance(e.data, dict)), None)
    return first is not None and (_get(first, "candidates") is not None
                                  or _get(first, "promptFeedback") is not None)


# ------------------------------------------------------------------------------------- reading


def read_request(body: Any, source: Source) -> Request:
    """A `generateContent` request body: contents, systemInstruction, tools, toolConfig."""
    body = expect_dict(body, source, "a Gemini request body")
    system, system_used = _read_system(body, source)
    key, contents = _find(body, "contents")
    turns: list[Turn] = []
    for i, raw in enumerate(optional_list(contents, source.child(key), "contents")):
        at = source.child(key, i)
        content = expect_dict(raw, at, "a content")
        role = _get(content, "role")
        if not (role is None or isinstance(role, str)) or role not in _ROLES:
            raise FormatError(f"unknown role {role!r} (Gemini has user and model)", at.child("role").pointer)
        parts_key, parts = _find(content, "parts")
        read = _read_parts(parts, at.child(parts_key))
        if _ROLES[role] == "system" and not turns:
            system.extend(read)
            continue
        split = split_results(_ROLES[role], read, at)
        split[0] = replace(split[0], meta=_kept(content, {"role": None, "parts": None}))
        turns.extend(split)
    choice, choice_used = _read_choice(body, source)
    extra = _extra(body, {"contents": None, "systemInstruction": system_used, "tools": None,
                          "toolConfig": choice_used})
    model = body.get("model")
    return Request(turns=link(turns), system=tuple(system), tools=_read_tools(body, source),
                   tool_choice=choice, model=model if isinstance(model, str) else None,
                   meta=meta_for(NAME, extra))


def read_response(body: Any, source: Source) -> Response:
    """A `generateContent` response body (first candidate), or an error body."""
    body = expect_dict(body, source, "a Gemini response body")
    if "error" in body:
        return _read_error(body["error"])
    key, candidates = _find(body, "candidates")
    candidates = optional_list(candidates, source.child(key), "candidates")
    meta = _extra(body, {"candidates": None, "usageMetadata": None, "modelVersion": None})
    usage_key, usage = _find(body, "usageMetadata")
    if usage is not None:
        usage = expect_dict(usage, source.child(usage_key), "usageMetadata")
    model = _text_field(body, "modelVersion", source)
    if not candidates:
        feedback = _get(body, "promptFeedback")
        reason = _get(feedback, "blockReason") if isinstance(feedback, dict) else None
        return Response(finish_reason=reason if isinstance(reason, str) else None, model=model,
                        usage=usage, meta=meta_for(NAME, meta))
    at = source.child(key, 0)
    candidate = expect_dict(candidates[0], at, "a candidate")
    meta.update(_extra(candidate, {"content": {"role": None, "parts": None}, "finishReason": None,
                                   "index": None}))
    if len(candidates) > 1:
        meta["moreCandidates"] = candidates[1:]
    content_key, content = _find(candidate, "content")
    parts: list[Part] = []
    if content is not None:
        content = expect_dict(content, at.child(content_key), "content")
        parts_key, raw_parts = _find(content, "parts")
        parts = _read_parts(raw_parts, at.child(content_key, parts_key))
    turn = Turn(role="assistant", parts=tuple(parts),
                source=at.child(content_key) if content is not None else at)
    return Response(turn=link([turn])[0], finish_reason=_text_field(candidate, "finishReason", at),
                    model=model, usage=usage, meta=meta_for(NAME, meta))


def _read_error(error: Any) -> Response:
    if not isinstance(error, dict):
        return Response(error=ApiError(message=error if isinstance(error, str) else dumps_str(error)))
    message, status, code = error.get("message"), error.get("status"), error.get("code")
    meta = _extra(error, {"message": None, "status": None, "code": None})
    return Response(error=ApiError(message=message if isinstance(message, str) else dumps_str(error),
                                   type=status if isinstance(status, str) else None,
                                   code=None if code is None else str(code)),
                    meta=meta_for(NAME, meta))


def _read_system(body: dict[str, Any], source: Source) -> tuple[list[Part], _Spec | None]:
    key, system = _find(body, "systemInstruction")
    if system is None:
        return [], None
    if isinstance(system, str):
        return [Text(text=system, source=source.child(key))], None
    system = expect_dict(system, source.child(key), "systemInstruction")
    parts_key, parts = _find(system, "parts")
    return _read_parts(parts, source.child(key, parts_key)), {"parts": None}


def _read_parts(raw: Any, source: Source) -> list[Part]:
    out: list[Part] = []
    for j, item in enumerate(optional_list(raw, source, "parts")):
        out.extend(_read_part(item, source.child(j)))
    return out


def _read_part(raw: Any, source: Source) -> list[Part]:
    """One wire part → its canonical part, preceded by a Reasoning holding its thoughtSignature."""
    part = expect_dict(raw, source, "a part")
    key, response = _find(part, "functionResponse")
    if response is not None:  # a signature here stays in the result's meta: it lives in a tool turn
        return [_read_result(part, key, response, source)]
    sig_key, signature = _find(part, _SIGNATURE)
    if signature is None:
        return [_read_data(part, source)]
    if not isinstance(signature, str):
        raise FormatError("thoughtSignature must be a string", source.child(sig_key).pointer)
    rest = {k: v for k, v in part.items() if k != sig_key}
    if not rest:
        return [Opaque(origin=NAME, value=part, source=source)]
    main = _read_data(rest, source)
    if isinstance(main, Reasoning):
        return [replace(main, signature=signature)]
    return [Reasoning(signature=signature, origin=NAME, source=source.child(sig_key)), main]


def _read_data(part: dict[str, Any], source: Source) -> Part:
    key, call = _find(part, "functionCall")
    if call is not None:
        return _read_call(part, key, call, source)
    media = _read_media(part, source)
    if media is not None:
        return media
    text_key, text = _find(part, "text")
    if text is None:
        return Opaque(origin=NAME, value=part, source=source)
    if not isinstance(text, str):
        raise FormatError(f"text must be a string, not {type_name(text)}", source.child(text_key).pointer)
    thought = _get(part, "thought")
    used: dict[str, Any] = {"text": None, **({"thought": None} if isinstance(thought, bool) else {})}
    if thought is True:
        return Reasoning(text=text, origin=NAME, source=source,
                         meta=_kept(part, used, **({"thought": True} if not text else {})))
    return Text(text=text, meta=_kept(part, used), source=source)


def _read_call(part: dict[str, Any], key: str, call: Any, source: Source) -> Invocation:
    at = source.child(key)
    call = expect_dict(call, at, "functionCall")
    args = _get(call, "args")
    return Invocation(name=_text_field(call, "name", at) or "", arguments={} if args is None else args,
                      wire_id=_text_field(call, "id", at), source=source,
                      meta=_kept(part, {"functionCall": {"name": None, "args": None, "id": None}}))


def _read_media(part: dict[str, Any], source: Source) -> Media | None:
    """An `inlineData` / `fileData` part, or None when the part is neither."""
    for name, ref in (("inlineData", "data"), ("fileData", "fileUri")):
        key, blob = _find(part, name)
        if blob is None:
            continue
        at = source.child(key)
        blob = expect_dict(blob, at, name)
        media_type, value = _text_field(blob, "mimeType", at), _text_field(blob, ref, at)
        return Media(kind=media_kind(media_type), media_type=media_type, source=source,
                     data=value if ref == "data" else None, url=value if ref == "fileUri" else None,
                     meta=_kept(part, {name: {"mimeType": None, ref: None}}))
    return None


def _read_result(part: dict[str, Any], key: str, response: Any, source: Source) -> Result:
    at = source.child(key)
    response = expect_dict(response, at, "functionResponse")
    value_key, value = _find(response, "response")
    content, is_error, bare = _response_content(value, at.child(value_key))
    parts_key, items = _find(response, "parts")
    items = optional_list(items, at.child(parts_key), "functionResponse.parts")
    media = tuple(_read_response_part(item, at.child(parts_key, i)) for i, item in enumerate(items))
    used = {"functionResponse": {"name": None, "response": None, "id": None, "parts": None}}
    return Result(name=_text_field(response, "name", at), wire_id=_text_field(response, "id", at),
                  content=content + media, is_error=is_error, source=source,
                  meta=_kept(part, used, **({"bare_response": True} if bare else {})))


def _read_response_part(raw: Any, source: Source) -> Part:
    """A `functionResponse.parts` item: inline or file media (Gemini 3+), anything else opaque."""
    item = expect_dict(raw, source, "a functionResponse part")
    return _read_media(item, source) or Opaque(origin=NAME, value=item, source=source)


def _response_content(value: Any, source: Source) -> tuple[tuple[Part, ...], bool, bool]:
    """`functionResponse.response` → (content, is_error, bare): `{"output": v}` and `{"error": v}`
    unwrap to v; any other object is the output itself (an error if it has an `error` key)."""
    if isinstance(value, dict):
        if set(value) == {"output"}:
            return _value_content(value["output"], source.child("output")), False, False
        if set(value) == {"error"}:
            return _value_content(value["error"], source.child("error")), True, False
        return (Json(value=value, source=source),), "error" in value, True
    return _value_content(value, source), False, False


def _value_content(value: Any, source: Source) -> tuple[Part, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (Text(text=value, source=source),)
    return (Json(value=value, source=source),)


def _read_tools(body: dict[str, Any], source: Source) -> tuple[Tool, ...]:
    key, tools = _find(body, "tools")
    out: list[Tool] = []
    for t, raw in enumerate(optional_list(tools, source.child(key), "tools")):
        at = source.child(key, t)
        for name, value in expect_dict(raw, at, "a tool").items():
            kind = _camel(name)
            if value is None:
                continue
            if kind == "functionDeclarations":
                out.extend(_read_declaration(d, at.child(name, i))
                           for i, d in enumerate(expect_list(value, at.child(name), name)))
            else:
                out.append(Tool(name=kind, kind=kind, raw={name: value}, origin=NAME, source=at.child(name)))
    return tuple(out)


def _read_declaration(raw: Any, source: Source) -> Tool:
    decl = expect_dict(raw, source, "a function declaration")
    name = _text_field(decl, "name", source)
    if name is None:
        raise FormatError("a function declaration needs a name", source.pointer)
    schema_key = next((k for k in ("parametersJsonSchema", "parameters") if _get(decl, k) is not None), None)
    flags = {"schema": "parameters"} if schema_key == "parameters" else {}
    used = {"name": None, "description": None, **({schema_key: None} if schema_key else {})}
    return Tool(name=name, description=_text_field(decl, "description", source),
                parameters=_get(decl, schema_key) if schema_key else None,
                meta=_kept(decl, used, **flags), source=source)


def _read_choice(body: dict[str, Any], source: Source) -> tuple[ToolChoice | None, _Spec | None]:
    """toolConfig.functionCallingConfig → ToolChoice, and the keys it consumed. Modes without a
    canonical twin (VALIDATED, MODE_UNSPECIFIED) read as auto and stay in meta verbatim."""
    key, config = _find(body, "toolConfig")
    if config is None:
        return None, None
    config = expect_dict(config, source.child(key), "toolConfig")
    calling_key, calling = _find(config, "functionCallingConfig")
    if calling is None:
        return None, {}
    calling = expect_dict(calling, source.child(key, calling_key), "functionCallingConfig")
    mode, allowed = _get(calling, "mode"), _get(calling, "allowedFunctionNames")
    mode = mode.upper() if isinstance(mode, str) else None
    if mode == "ANY" and isinstance(allowed, list) and len(allowed) == 1 and isinstance(allowed[0], str):
        return (ToolChoice(mode="tool", name=allowed[0]),
                {"functionCallingConfig": {"mode": None, "allowedFunctionNames": None}})
    if mode is None:
        return None, {}
    used = {"functionCallingConfig": {"mode": None}} if mode in _MODES_IN else {}
    return ToolChoice(mode=_MODES_IN.get(mode, "auto")), used


# -------------------------------------------------------------------------------------- streams


def split_streams(events: list[StreamEvent]) -> list[list[StreamEvent]]:
    """A Gemini stream has no start event to split on: one capture is one response."""
    return [events]


def assemble_stream(events: list[StreamEvent], source: Source) -> Assembled:
    """Rebuild the non-streamed response body. Follows Google ADK's `StreamingResponseAggregator`
    (google/adk-python `src/google/adk/utils/streaming_utils.py`, progressive SSE mode): runs of
    plain (or thought) text are joined, whole parts are kept in order, `partialArgs` fragments are
    set by JSON path with strings of one path concatenated, and the last usage reported wins. An
    empty `functionCall {}` closes a streamed call (vercel/ai `google-language-model.ts`)."""
    problems: list[StreamProblem] = []
    top: dict[str, Any] = {}
    candidates: dict[int, _Candidate] = {}
    error: dict[str, Any] | None = None
    blocked = False
    for event in events:
        data = event.data
        if not isinstance(data, dict):
            problems.append(StreamProblem("other", f"event is not a JSON object: {str(data)[:60]!r}",
                                          event.index))
            continue
        if "error" in data:
            message = _read_error(data["error"]).error
            problems.append(StreamProblem("error", message.message if message else "error event",
                                          event.index))
            error = error or data
            continue
        top.update((k, v) for k, v in data.items() if _camel(k) != "candidates" and v is not None)
        feedback = _get(data, "promptFeedback")
        blocked = blocked or isinstance(feedback, dict) and _get(feedback, "blockReason") is not None
        raw = _get(data, "candidates")
        if raw is None:
            continue
        if not isinstance(raw, list):
            problems.append(StreamProblem("other", "candidates is not a list", event.index))
            continue
        for item in raw:
            if not isinstance(item, dict):
                problems.append(StreamProblem("other", "a candidate is not an object", event.index))
                continue
            number = _get(item, "index")
            number = number if isinstance(number, int) else 0
            candidates.setdefault(number, _Candidate(first=event.index)).take(item, event.index, problems)
    chunks: dict[str, int] = {}
    assembled = []
    for n, state in enumerate(candidates.values()):
        state.end(problems)
        at = f"/candidates/{n}"
        chunks[at] = state.first
        chunks.update((f"{at}/content/parts/{j}", opened) for j, opened in enumerate(state.opened))
        if state.finish is not None:
            chunks[f"{at}/finishReason"] = state.finish
        content = {"parts": state.parts, **({"role": state.role} if state.role is not None else {})}
        assembled.append({"content": content, **state.fields})
    complete = error is not None or blocked or any(s.finish is not None for s in candidates.values())
    if not complete:
        problems.append(StreamProblem("truncated", "the stream ended without a finishReason",
                                      events[-1].index if events else None))
    body = {"candidates": assembled, **top} if assembled or error is None else error
    return Assembled(body=body, chunks=chunks, problems=tuple(problems), complete=complete)


@dataclass
class _Call:
    """A call whose arguments are still arriving as `partialArgs`."""

    part: dict[str, Any]
    chunk: int
    continued: bool = False

    @property
    def name(self) -> str | None:
        return self.part["functionCall"].get("name")


@dataclass
class _Candidate:
    """One candidate being rebuilt: its parts, the event that opened each, and any open call."""

    first: int
    fields: dict[str, Any] = field(default_factory=dict)
    role: Any = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    opened: list[int] = field(default_factory=list)
    finish: int | None = None
    call: _Call | None = None
    unterminated: _Call | None = None  # closed by its last fragment; `functionCall {}` still due

    def take(self, item: dict[str, Any], index: int, problems: list[StreamProblem]) -> None:
        self.fields.update((k, v) for k, v in item.items() if _camel(k) != "content" and v is not None)
        if _get(item, "finishReason") is not None:
            self.finish = index
        content = _get(item, "content")
        if content is None:
            return
        parts = _get(content, "parts") if isinstance(content, dict) else None
        if not isinstance(content, dict) or not isinstance(parts, list | None):
            problems.append(StreamProblem("other", "content or its parts are malformed", index))
            return
        self.role = self.role if self.role is not None else _get(content, "role")
        for part in parts or ():
            self.add(part, index, problems)

    def add(self, part: Any, index: int, problems: list[StreamProblem]) -> None:
        if not isinstance(part, dict):
            problems.append(StreamProblem("other", "a part is not an object", index))
            return
        call = _get(part, "functionCall")
        if self.unterminated is not None and not _closes(call):
            self._missing_close(problems)
        if isinstance(call, dict) and (self.call is not None or _get(call, "partialArgs")
                                       or _get(call, "willContinue") or not _get(call, "name")):
            self._stream(part, call, index, problems)
            return
        if self.call is not None:
            problems.append(StreamProblem("truncated", f"call {self.call.name} was not closed before "
                                          "the next part arrived", index))
            self.call = None
        if self._join_text(part):
            return
        self.parts.append(dict(part))
        self.opened.append(index)

    def _join_text(self, part: dict[str, Any]) -> bool:
        """Append a text continuation to the text part before it; True when nothing is left to add
        (an empty text without a signature is a no-op)."""
        text = _get(part, "text")
        if not isinstance(text, str) or _get(part, _SIGNATURE) or not _plain_text(part):
            return False
        last = self.parts[-1] if self.parts else None
        if last is not None and _plain_text(last) and isinstance(_get(last, "text"), str) \
                and bool(_get(last, "thought")) == bool(_get(part, "thought")):
            key = _find(last, "text")[0]
            last[key] += text
            return True
        return text == ""

    def _stream(self, part: dict[str, Any], call: dict[str, Any], index: int,
                problems: list[StreamProblem]) -> None:
        name = _get(call, "name") if isinstance(_get(call, "name"), str) else None
        fragments = _get(call, "partialArgs")
        if _closes(call):
            self.call = self.unterminated = None
            return
        if name and self.call is not None and (name != self.call.name or not fragments):
            problems.append(StreamProblem("order", f"call {name} began before call "
                                          f"{self.call.name or '(unnamed)'} was closed", index))
            self.call = None
        if self.call is None:
            if not name:
                problems.append(StreamProblem("identity", "argument fragments with no call open "
                                              "(no function name)", index))
            self.call = self._open(part, call, name, index)
        else:
            self._same_call(part, call, index, problems)
        self._fill(fragments, index, problems)
        self.call.chunk = index
        if _get(call, "willContinue"):
            self.call.continued = True
        else:
            self.unterminated = self.call if self.call.continued else None
            self.call = None

    def _open(self, part: dict[str, Any], call: dict[str, Any], name: str | None, index: int) -> _Call:
        wire_id, args = _get(call, "id"), _get(call, "args")
        built = {**({"name": name} if name else {}),
                 **({"id": wire_id} if isinstance(wire_id, str) and wire_id else {}),
                 "args": dict(args) if isinstance(args, dict) else {}}
        new = {"functionCall": built, **{k: v for k, v in part.items() if _camel(k) != "functionCall"}}
        self.parts.append(new)
        self.opened.append(index)
        return _Call(part=new, chunk=index)

    def _same_call(self, part: dict[str, Any], call: dict[str, Any], index: int,
                   problems: list[StreamProblem]) -> None:
        """A continuation: empty ids and names never overwrite; a different id is reported."""
        assert self.call is not None
        built = self.call.part["functionCall"]
        wire_id = _get(call, "id")
        if isinstance(wire_id, str) and wire_id:
            if built.get("id", wire_id) != wire_id:
                problems.append(StreamProblem("identity", f"call id changed from {built['id']} to "
                                              f"{wire_id} mid-call", index))
            else:
                built["id"] = wire_id
        signature = _get(part, _SIGNATURE)
        if signature and _get(self.call.part, _SIGNATURE) is None:
            self.call.part[_SIGNATURE] = signature

    def _fill(self, fragments: Any, index: int, problems: list[StreamProblem]) -> None:
        assert self.call is not None
        args = self.call.part["functionCall"]["args"]
        for fragment in fragments if isinstance(fragments, list) else ():
            path = _get(fragment, "jsonPath") if isinstance(fragment, dict) else None
            steps = _json_path(path) if isinstance(path, str) else None
            if steps is None:
                problems.append(StreamProblem("arguments", f"unreadable partialArgs entry {fragment!r:.80}",
                                              index))
                continue
            found = _fragment_value(fragment)
            if found is None:
                continue
            kind, value = found
            problem = _put(args, steps, value, append=kind == "stringValue" and isinstance(value, str))
            if problem:
                problems.append(StreamProblem(problem[0], f"{path}: {problem[1]}", index))
        if fragments is not None and not isinstance(fragments, list):
            problems.append(StreamProblem("arguments", "partialArgs is not a list", index))

    def _missing_close(self, problems: list[StreamProblem]) -> None:
        assert self.unterminated is not None
        problems.append(StreamProblem(
            "other", f"call {self.unterminated.name} ended on a fragment without willContinue; the "
            "closing empty functionCall {} never came", self.unterminated.chunk))
        self.unterminated = None

    def end(self, problems: list[StreamProblem]) -> None:
        if self.call is not None:
            problems.append(StreamProblem("truncated", f"call {self.call.name} was still receiving "
                                          "arguments when the stream ended", self.call.chunk))
            self.call = None
        if self.unterminated is not None:
            self._missing_close(problems)


def _closes(call: Any) -> bool:
    """`functionCall {}`: the empty part that closes a call streamed with `partialArgs`."""
    return (isinstance(call, dict) and _get(call, "args") is None
            and not any(_get(call, k) for k in ("name", "partialArgs", "willContinue")))


def _plain_text(part: dict[str, Any]) -> bool:
    return all(_camel(k) in ("text", "thought", _SIGNATURE) for k in part)


def _fragment_value(fragment: dict[str, Any]) -> tuple[str, Any] | None:
    """(kind, value) of a `partialArgs` entry; only a `stringValue` continues what is there."""
    for name in ("stringValue", "numberValue", "boolValue", "nullValue"):
        key, value = _find(fragment, name)
        if key in fragment:
            return name, None if name == "nullValue" else value
    return None


def _json_path(path: str) -> list[str | int] | None:
    """`$.recipe.ingredients[0].amount` → ["recipe", "ingredients", 0, "amount"]."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        m = _PATH_STEP.match(path, pos)
        if m is None:
            return None
        steps.append(m.group(1) if m.group(1) is not None
                     else int(m.group(2)) if m.group(2) is not None else m.group(4))
        pos = m.end()
    return steps or None


def _put(root: dict[str, Any], steps: list[str | int], value: Any, *, append: bool) -> tuple[str, str] | None:
    """Set `value` at `steps` below `root`, creating objects and arrays on the way; a string at a
    path that already holds one is appended. Returns (problem kind, message) when it cannot."""
    node: Any = root
    for step, following in zip(steps, steps[1:], strict=False):
        child = _child(node, step)
        if child is None and isinstance(following, int) and following > 0:
            return "order", f"index {following} arrived before index 0"
        if child is None:
            child = [] if isinstance(following, int) else {}
            problem = _assign(node, step, child)
            if problem:
                return problem
        elif not isinstance(child, list if isinstance(following, int) else dict):
            return "arguments", f"{type_name(child)} where the path needs a container"
        node = child
    old = _child(node, steps[-1])
    if append and isinstance(old, str):
        value = old + value
    elif append and old is not None:
        return "arguments", f"a string continues {type_name(old)}"
    return _assign(node, steps[-1], value)


def _child(node: Any, step: str | int) -> Any:
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(step)
    if isinstance(node, list) and isinstance(step, int) and step < len(node):
        return node[step]
    return None


def _assign(node: Any, step: str | int, value: Any) -> tuple[str, str] | None:
    if isinstance(node, dict) and isinstance(step, str):
        node[step] = value
    elif isinstance(node, list) and isinstance(step, int) and step <= len(node):
        node[step:step + 1] = [value]
    elif isinstance(node, list) and isinstance(step, int):
        return "order", f"index {step} arrived before index {len(node)}"
    else:
        return "arguments", f"path step {step!r} does not fit {type_name(node)}"
    return None


# -------------------------------------------------------------------------------------- writing


def write(conv: Conversation) -> Written:
    """The request body that replays `conv`, and what it could not carry."""
    losses: list[Loss] = []
    names = _names(conv)
    contents = _write_contents(conv, names, losses)
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
    return Written(body=body, losses=tuple(losses))


def _names(conv: Conversation) -> dict[str, str]:
    """Function names Gemini rejects, each mapped to a valid one used everywhere it appears."""
    seen = [t.name for t in conv.tools if t.kind == "function"]
    seen += [p.name for t in conv.turns for p in t.parts if isinstance(p, Invocation | Result)
             and p.name is not None]
    out = {}
    for name in seen:
        if not _VALID_NAME.fullmatch(name):
            fixed = re.sub(r"[^A-Za-z0-9_.:-]", "_", name)
            out[name] = (fixed if re.match(r"[A-Za-z_]", fixed) else "_" + fixed)[:128]
    return out


def _name(name: str, names: dict[str, str], losses: list[Loss], turn: int | None,
          part: int | None) -> str:
    if name in names:
        loss_for(losses, f"function name {name!r} is not valid for Gemini (a letter or _, then "
                 f"letters, digits, _ . : -, at most 128): written as {names[name]!r}", turn, part)
    return names.get(name, name)


def _write_contents(conv: Conversation, names: dict[str, str],
                    losses: list[Loss]) -> list[tuple[int, dict[str, Any]]]:
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
            parts = _write_parts(others, k, names, losses)
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
                responses.append(_write_result(result, call, at, j, names, losses))
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


def _write_parts(items: Iterable[tuple[int, Part]], k: int | None, names: dict[str, str],
                 losses: list[Loss]) -> list[dict[str, Any]]:
    """Parts → wire parts; a signature-only Reasoning of Gemini's goes onto the part after it."""
    out: list[dict[str, Any]] = []
    pending: tuple[int, str] | None = None
    for i, part in items:
        if _carrier(part):
            if pending:
                out.append(_lone_signature(pending, k, losses))
            pending = (i, part.signature)  # type: ignore[attr-defined]
            continue
        wire = _write_part(part, k, i, names, losses)
        if wire is None:
            continue
        if pending and not isinstance(part, Reasoning):
            wire[_SIGNATURE] = pending[1]
        elif pending:
            out.append(_lone_signature(pending, k, losses))
        pending = None
        out.append(wire)
    if pending:
        out.append(_lone_signature(pending, k, losses))
    return out


def _carrier(part: Part) -> bool:
    """A Reasoning that only holds the thoughtSignature of the part after it."""
    return (isinstance(part, Reasoning) and part.origin == NAME and bool(part.signature)
            and not (part.text or part.summary or part.redacted or own_meta(NAME, part.meta).get("thought")))


def _lone_signature(pending: tuple[int, str], k: int | None, losses: list[Loss]) -> dict[str, Any]:
    loss_for(losses, "thought signature with no part after it to ride on: written on an empty "
             "thought part", k, pending[0])
    return {"text": "", "thought": True, _SIGNATURE: pending[1]}


def _write_part(part: Part, k: int | None, i: int, names: dict[str, str],
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
    elif own_opaque(NAME, part):
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


def _write_call(call: Invocation, k: int | None, i: int, names: dict[str, str],
                losses: list[Loss]) -> dict[str, Any]:
    name, args = _name(call.name, names, losses, k, i), call.arguments
    if not isinstance(args, dict):
        shown = call.raw_arguments if call.raw_arguments is not None else dumps_str(args)
        loss_for(losses, f"arguments {shown[:80]!r} are not a JSON object, which Gemini requires: "
                 "wrote {}", k, i)
        args = {}
    out = {"name": name, "args": args}
    if call.wire_id is not None:
        out["id"] = call.wire_id
    return out


def _write_result(result: Result, call: Invocation, k: int, i: int, names: dict[str, str],
                  losses: list[Loss]) -> dict[str, Any]:
    if result.name is None:
        loss_for(losses, f"functionResponse needs the function name: wrote {call.name!r}, its call's", k, i)
    elif result.name != call.name and call.wire_id is None:
        loss_for(losses, f"functionResponse named {result.name!r} answers a call of {call.name!r}: without "
                 "ids Gemini pairs responses with calls by name, so it no longer answers its call", k, i)
    out: dict[str, Any] = {"name": _name(result.name or call.name, names, losses, k, i)}
    if call.wire_id is not None:
        out["id"] = call.wire_id
        if result.wire_id != call.wire_id:
            loss_for(losses, f"functionResponse id written as {call.wire_id!r}, its call's id", k, i)
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
        elif own_opaque(NAME, p):
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


def _write_tools(tools: tuple[Tool, ...], names: dict[str, str], losses: list[Loss]) -> list[dict[str, Any]]:
    """Consecutive function tools → one `functionDeclarations` object; Gemini's own hosted tools
    verbatim, in order."""
    out: list[dict[str, Any]] = []
    group: list[dict[str, Any]] | None = None
    for tool in tools:
        if tool.kind == "function":
            decl: dict[str, Any] = {"name": _name(tool.name, names, losses, None, None)}
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


def _write_choice(choice: ToolChoice, names: dict[str, str], losses: list[Loss]) -> dict[str, Any]:
    mode = _MODES_OUT.get(choice.mode)
    if mode is None:
        loss_for(losses, f"tool choice {choice.mode!r} has no Gemini mode: wrote AUTO")
    out: dict[str, Any] = {"mode": mode or "AUTO"}
    if choice.mode == "tool" and choice.name:
        out["allowedFunctionNames"] = [_name(choice.name, names, losses, None, None)]
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
