"""openai-responses: the OpenAI Responses API (`POST /v1/responses`), its bodies and its SSE events.

Responses has no turns, only a flat list of items (messages, `reasoning`, `function_call`,
`function_call_output`, hosted-tool items). Reading groups them as the canonical form needs:
consecutive model-side items make one assistant turn, consecutive outputs one tool turn, each user
message one user turn; leading system/developer messages join `instructions` in `Request.system`.

Item details a faithful rewrite needs (`id`, non-default `status`, `phase`, `caller`, `namespace`,
annotations, unknown keys) are kept in `meta["openai-responses"]`. One assistant turn gathers several
items, so an assistant message's own fields sit under the `"message"` key of each of its parts.

Custom (freeform) tools carry plain text, not JSON: `custom_tool_call.input` becomes
`Invocation(arguments=<the string>)` and its output a `Result`, both marked `{"custom": True}`.
Responses has no failure flag on outputs: `is_error` is always False on reading and folded into the
output text on writing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from ..errors import FormatError
from ..jsonio import dumps_str, try_loads
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
    event_type,
    expect_dict,
    expect_list,
    link,
    media_kind,
    meta_for,
    own_meta,
    parse_arguments,
    report_foreign,
    split_at,
    split_data_url,
    unique_id,
    unmodeled,
    with_meta,
)

NAME = "openai-responses"
URL_HINTS: tuple[str, ...] = ("/responses",)

from .base import Facts  # noqa: E402 - one block with FACTS, to move as one

#: What the code outside this module needs to know about the OpenAI Responses API (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=2,
    messages_key="input",
    finish_pointer="/status",
    arguments="string",
    arguments_path=("arguments",),
    failure="text",
    failure_wording=None,
    reasoning="reasoning item",
    strict_pairing=False,
    merges_roles=False,
    calls_last=False,
    rejects_blank_text=False,
)

_MODES = ("auto", "none", "required")
#: Request keys read into the canonical form; every other key is kept in `Request.meta`.
_MODELED = ("model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "stream")
#: Replaying these next to the whole history would duplicate it, so the writer leaves them out.
_STATEFUL = ("previous_response_id", "conversation")
#: `Invalid 'input[95].call_id': string too long. Expected a string with maximum length 64, ...`
#: [issue:https://github.com/AnswerDotAI/fastllm/issues/45]
_MAX_CALL_ID = 64
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


# ----------------------------------------------------------------------------------- sniffing


def sniff(body: Any, side: str) -> bool:
    """A request has `input` (or chains a stored response); a response is `object: "response"`."""
    if not isinstance(body, dict) or "messages" in body or "contents" in body:
        return False
    if side == "request":
        return "input" in body or "previous_response_id" in body
    return body.get("object") == "response" or (isinstance(body.get("output"), list) and "status" in body)


def sniff_stream(events: list[StreamEvent]) -> bool:
    return any((event_type(e) or "").startswith("response.") for e in events[:10])


# ------------------------------------------------------------------------------------ reading


def read_request(body: Any, source: Source) -> Request:
    """A request body → system (instructions + leading system messages), linked turns, tools."""
    body = expect_dict(body, source, "a Responses request")
    system: list[Part] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        system.append(Text(text=instructions, source=source.child("instructions")))
    elif instructions is not None:
        raise FormatError("instructions must be a string", source.child("instructions").pointer)
    raw = body.get("input")
    at = source.child("input")
    if isinstance(raw, str):
        turns = [Turn(role="user", parts=(Text(text=raw, source=at),), source=at)]
    else:
        turns = _group([] if raw is None else expect_list(raw, at, "input"), at, system)
    choice, verbatim = _read_choice(body.get("tool_choice"), _bool(body.get("parallel_tool_calls")))
    rest = unmodeled(body, _MODELED)
    if verbatim is not None:
        rest["tool_choice"] = verbatim
    tools = expect_list(body.get("tools") or [], source.child("tools"), "tools")
    model = body.get("model")
    return Request(turns=link(turns), system=tuple(system),
                   tools=tuple(_read_tool(t, source.child("tools", i)) for i, t in enumerate(tools)),
                   tool_choice=choice, model=model if isinstance(model, str) else None,
                   stream=body.get("stream") is True, meta=meta_for(NAME, rest))


def read_response(body: Any, source: Source) -> Response:
    """A response object → one assistant turn (every output item, hosted ones Opaque), or an error body."""
    body = expect_dict(body, source, "a Responses response")
    error = _api_error(body.get("error"))
    if "output" not in body and body.get("object") != "response":
        if error is None:
            raise FormatError("neither a response object nor an error body", source.pointer)
        return Response(error=error)
    output = body.get("output")
    parts: list[Part] = []
    for i, item in enumerate(expect_list([] if output is None else output, source.child("output"), "output")):
        here = source.child("output", i)
        side, item_parts, fields = _item(item, here)
        if side != "assistant":
            item_parts, fields = [Opaque(origin=NAME, value=item, source=here)], {}
        parts.extend(with_meta(NAME, p, {"message": fields} if fields else {}) for p in item_parts)
    turn = None
    if parts or error is None:
        turn = link([Turn(role="assistant", parts=tuple(parts), source=source.child("output"))])[0]
    status, details = body.get("status"), body.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    finish = f"{status}:{reason}" if isinstance(status, str) and isinstance(reason, str) else status
    model, usage, rid = body.get("model"), body.get("usage"), body.get("id")
    return Response(turn=turn, finish_reason=finish if isinstance(finish, str) else None,
                    model=model if isinstance(model, str) else None,
                    usage=usage if isinstance(usage, dict) else None, error=error,
                    meta=meta_for(NAME, {"id": rid} if isinstance(rid, str) else {}))


def _group(items: list[Any], at: Source, system: list[Part]) -> list[Turn]:
    """Input items → turns: model-side and tool-side runs merge, every user message opens a turn."""
    turns: list[Turn] = []
    parts_of: list[list[Part]] = []  # the parts of each turn, filled in place
    for i, item in enumerate(items):
        here = at.child(i)
        side, parts, fields = _item(item, here)
        if side in ("system", "developer") and not turns:
            system.extend(with_meta(NAME, p, {"role": side, **({"message": fields} if fields else {})})
                          for p in parts)
            continue
        if side in ("system", "developer"):
            meta, side = {**({"role": "developer"} if side == "developer" else {}), **fields}, "system"
        elif side == "assistant":
            meta, parts = {}, [with_meta(NAME, p, {"message": fields} if fields else {}) for p in parts]
        else:
            meta = fields
        joins = side in ("assistant", "tool") or (side == "user" and not _is_message(item))
        if turns and turns[-1].role == side and joins:
            parts_of[-1].extend(parts)
        else:
            turns.append(Turn(role=side, meta=meta_for(NAME, meta), source=here))
            parts_of.append(list(parts))
    return [replace(t, parts=tuple(p)) for t, p in zip(turns, parts_of, strict=True)]


def _is_message(item: dict[str, Any]) -> bool:
    return item.get("type") == "message" or (item.get("type") is None and "role" in item)


def _item(item: Any, at: Source) -> tuple[str, list[Part], dict[str, Any]]:
    """One item → (side: user/assistant/tool/system/developer, parts, message-level fields)."""
    if not isinstance(item, dict):
        raise FormatError("an item must be an object", at.pointer)
    kind, role = item.get("type"), item.get("role")
    if _is_message(item) and role in ("user", "assistant", "system", "developer"):
        return role, _content(item.get("content"), at.child("content"), role), \
            _extras(item, ("type", "role", "content"))
    if kind in ("function_call", "custom_tool_call"):
        return "assistant", [_call(item, at)], {}
    if kind in ("function_call_output", "custom_tool_call_output"):
        return "tool", [_result(item, at)], {}
    if kind == "reasoning":
        return "assistant", [_reasoning(item, at)], {}
    return _side(item), [Opaque(origin=NAME, value=item, source=at)], {}


def _side(item: dict[str, Any]) -> str:
    """Who produced an item tooldbg does not model: the model (`*_call`, `mcp_*`, server-run items),
    the client running a tool (`*_output`, approvals), else the user (`item_reference`, unknown)."""
    kind = item.get("type")
    if not isinstance(kind, str):
        return "user"
    if (kind.endswith("_output") and item.get("execution") != "server") or kind == "mcp_approval_response":
        return "tool"
    if kind.endswith(("_call", "_output")) or kind.startswith("mcp_") or kind in ("program", "compaction"):
        return "assistant"
    return "user"


def _content(content: Any, at: Source, role: str) -> list[Part]:
    if content is None:
        return []
    if isinstance(content, str):
        return [Text(text=content, source=at)]
    if isinstance(content, list):
        return [_block(b, at.child(i), role) for i, b in enumerate(content)]
    raise FormatError("content must be a string, a list or null", at.pointer)


def _block(block: Any, at: Source, role: str) -> Part:
    """One content part (of a message or of a tool output)."""
    if not isinstance(block, dict):
        raise FormatError("a content part must be an object", at.pointer)
    kind = block.get("type")
    if kind in ("input_text", "output_text", "text") and isinstance(block.get("text"), str):
        fields = _extras(block, ("type", "text"))
        if kind != _text_type(role):
            fields["type"] = kind
        return Text(text=block["text"], meta=meta_for(NAME, fields), source=at)
    if kind == "refusal" and isinstance(block.get("refusal"), str):
        return Text(text=block["refusal"], source=at,
                    meta=meta_for(NAME, {**_extras(block, ("type", "refusal")), "type": kind}))
    if kind in ("input_image", "input_file"):
        media = _media(block, at)
        if media is not None:
            return media
    return Opaque(origin=NAME, value=block, meta=meta_for(NAME, {"content": True}), source=at)


def _text_type(role: str) -> str:
    return "output_text" if role == "assistant" else "input_text"


def _media(block: dict[str, Any], at: Source) -> Media | None:
    """`input_image {image_url | file_id}` / `input_file {file_data | file_url | file_id}`; inline data
    travels as a data URL (`input_file.file_data` may also be bare base64)."""
    kind = block["type"]
    url_key = "image_url" if kind == "input_image" else "file_url"
    url, file_id, inline = block.get(url_key), block.get("file_id"), block.get("file_data")
    if not all(v is None or isinstance(v, str) for v in (url, file_id, inline)):
        return None
    if kind == "input_image" and url is not None and url.startswith("data:"):
        url, inline = None, url
    media_type, data = split_data_url(inline) if inline is not None else (None, None)
    if inline is not None and data is None:
        data = inline
    if url is None and file_id is None and data is None:
        return None
    mkind = media_kind(media_type) if media_type else ("image" if kind == "input_image" else "file")
    fields = _extras(block, ("type", url_key, "file_id", "file_data"))
    if _media_type(mkind) != kind:
        fields["type"] = kind
    return Media(kind=mkind, media_type=media_type, data=data, url=url, file_id=file_id,
                 meta=meta_for(NAME, fields), source=at)


def _media_type(kind: str) -> str | None:
    return {"image": "input_image", "document": "input_file", "file": "input_file"}.get(kind)


def _call(item: dict[str, Any], at: Source) -> Invocation:
    custom = item["type"] == "custom_tool_call"
    name, call_id = item.get("name"), item.get("call_id")
    name = "" if name is None else name  # a missing name is a finding (TD503), not an unreadable body
    if not isinstance(name, str) or not (call_id is None or isinstance(call_id, str)):
        raise FormatError("a tool call needs a string name and call_id", at.pointer)
    fields = _extras(item, ("type", "name", "call_id", "input" if custom else "arguments"))
    if custom:
        text = item.get("input", "")
        if not isinstance(text, str):
            raise FormatError("custom_tool_call input must be a string", at.child("input").pointer)
        return Invocation(name=name, arguments=text, wire_id=call_id,
                          meta=meta_for(NAME, {**fields, "custom": True}), source=at)
    arguments, raw = parse_arguments(item.get("arguments"))
    return Invocation(name=name, arguments=arguments, raw_arguments=raw, wire_id=call_id,
                      meta=meta_for(NAME, fields), source=at)


def _result(item: dict[str, Any], at: Source) -> Result:
    call_id, output, name = item.get("call_id"), item.get("output"), item.get("name")
    if not (call_id is None or isinstance(call_id, str)):
        raise FormatError("call_id must be a string", at.child("call_id").pointer)
    here = at.child("output")
    if isinstance(output, list):
        content = tuple(_block(b, here.child(i), "user") for i, b in enumerate(output))
    elif isinstance(output, str):
        content = (Text(text=output, source=here),)
    else:  # an object is a 400 on the wire, but logs hold it (old Codex `{content, success}`)
        content = () if output is None else (Json(value=output, source=here),)
    named = isinstance(name, str)
    fields = _extras(item, ("type", "call_id", "output", *(("name",) if named else ())))
    if item["type"] == "custom_tool_call_output":
        fields["custom"] = True
    return Result(wire_id=call_id, name=name if named else None, content=content, meta=meta_for(NAME, fields),
                  source=at)


def _reasoning(item: dict[str, Any], at: Source) -> Reasoning:
    """`summary[]`/`content[]` are read when they have their usual shape, else kept verbatim in meta."""
    rid, signature = item.get("id"), item.get("encrypted_content")
    if not all(v is None or isinstance(v, str) for v in (rid, signature)):
        raise FormatError("reasoning id and encrypted_content must be strings", at.pointer)
    consumed = ["type", "id", "encrypted_content"]
    summary, content = item.get("summary"), item.get("content")
    if summary is None or _plain(summary, "summary_text"):
        consumed.append("summary")
    if content is None or (_plain(content, "reasoning_text") and len(content) <= 1):
        consumed.append("content")
    return Reasoning(text="\n".join(_texts(content)), summary=tuple(_texts(summary)), signature=signature,
                     origin=NAME, wire_id=rid, meta=meta_for(NAME, _extras(item, consumed)), source=at)


def _plain(parts: Any, kind: str) -> bool:
    return isinstance(parts, list) and all(
        isinstance(p, dict) and p.get("type") == kind and isinstance(p.get("text"), str) and len(p) == 2
        for p in parts)


def _texts(parts: Any) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


def _read_tool(tool: Any, at: Source) -> Tool:
    """Flat function tools; custom and hosted tools keep their wire form in `raw`."""
    if not isinstance(tool, dict) or not isinstance(tool.get("type"), str):
        raise FormatError("a tool must be an object with a type", at.pointer)
    kind = tool["type"]
    if kind != "function":
        name = next((tool[k] for k in ("name", "server_label") if isinstance(tool.get(k), str)), kind)
        description = tool.get("description")
        return Tool(name=name, description=description if isinstance(description, str) else None, kind=kind,
                    origin=NAME, raw=tool, source=at)
    # A Chat-shaped `{"type": "function", "function": {...}}` (a 400 here) is read for what it means.
    nested = "name" not in tool and isinstance(tool.get("function"), dict)
    spec = tool["function"] if nested else tool
    name, description = spec.get("name"), spec.get("description")
    if not isinstance(name, str):
        raise FormatError("a function tool needs a name", at.child("name").pointer)
    described = isinstance(description, str)
    consumed = ("type", "function", "name", "parameters", *(("description",) if described else ()))
    return Tool(name=name, description=description if described else None, parameters=spec.get("parameters"),
                meta=meta_for(NAME, _extras(tool if not nested else {**tool, **spec}, consumed)), source=at)


def _read_choice(raw: Any, parallel: bool | None) -> tuple[ToolChoice | None, Any]:
    """`tool_choice` → (ToolChoice, the wire value when ToolChoice cannot say all of it)."""
    if raw is None:
        return (None if parallel is None else ToolChoice(parallel=parallel)), None
    if raw in _MODES:
        return ToolChoice(mode=raw, parallel=parallel), None
    if isinstance(raw, dict):
        kind, name = raw.get("type"), raw.get("name")
        if kind in ("function", "custom") and isinstance(name, str) and len(raw) == 2:
            return ToolChoice(mode="tool", name=name, parallel=parallel), None
        if kind == "allowed_tools" and raw.get("mode") in ("auto", "required"):
            return ToolChoice(mode=raw["mode"], parallel=parallel), raw
        if isinstance(kind, str):  # a hosted-tool selector names the tool by its type
            name = name if isinstance(name, str) else kind
            return ToolChoice(mode="tool", name=name, parallel=parallel), raw
    return ToolChoice(parallel=parallel), raw


def _api_error(value: Any) -> ApiError | None:
    if isinstance(value, str):
        return ApiError(message=value)
    if not isinstance(value, dict):
        return None
    message = value.get("message")
    code = value.get("code")
    return ApiError(message=message if isinstance(message, str) else dumps_str(value),
                    type=_str(value.get("type")),
                    code=str(code) if isinstance(code, (str, int)) and not isinstance(code, bool) else None,
                    param=_str(value.get("param")))


#: The keys a reader did not model, for a faithful rewrite: nulls, empty lists/objects and the
#: default `status: "completed"` are left out.
_extras = partial(unmodeled, empty=True, defaults={"status": "completed"})


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


# ------------------------------------------------------------------------------------ streams


def split_streams(events: list[StreamEvent]) -> list[list[StreamEvent]]:
    """A capture of several responses back to back → one list per `response.created`."""
    return split_at(events, lambda event: event_type(event) == "response.created")


def assemble_stream(events: list[StreamEvent], source: Source) -> Assembled:
    """Rebuild the response body as openai-python accumulates events
    (`src/openai/lib/streaming/responses/_responses.py`, `ResponseStreamState.accumulate_event`):
    items open at `output_item.added` and are found by `output_index` (never by `item_id`, which
    GitHub Copilot rotates on every event), deltas append, `.done` values win (but an empty string
    never overwrites a value), and `response.completed` — or `.failed`/`.incomplete` — is the final
    state; without `output` there, the finished items stand in for it, as in the SDK.

    Order problems are recorded once, at the event that caused them: an `output_index` opening out
    of turn (the SDK appends each added item and looks events up by `output[output_index]`, so a
    skipped index fails there), an event for an output after a later one was added while it is still
    open (interleaved outputs, once per output), a `sequence_number` going back (a gap it fills is
    then no gap), and the gaps no later event fills (events missing)."""
    state = _Stream()
    for event in events:
        state.feed(event)
    return state.finish(events[-1].index if events else None)


#: event prefix → (where its target sits in the item, the field its deltas build, the part's type)
_FIELDS: dict[str, tuple[str, str, str | None]] = {
    "response.output_text": ("content", "text", "output_text"),
    "response.refusal": ("content", "refusal", "refusal"),
    "response.reasoning_text": ("content", "text", "reasoning_text"),
    "response.reasoning_summary_text": ("summary", "text", "summary_text"),
    "response.function_call_arguments": ("item", "arguments", None),
    "response.custom_tool_call_input": ("item", "input", None),
    "response.mcp_call_arguments": ("item", "arguments", None),
    "response.code_interpreter_call_code": ("item", "code", None),
    "response.apply_patch_call_operation_diff": ("operation", "diff", None),
}
_PARTS = {"response.content_part": "content", "response.reasoning_summary_part": "summary"}
_PART_INDEX = {"content": "content_index", "summary": "summary_index"}

_Key = tuple[int, str, int | None, str]


class _Stream:
    """One response being put back together."""

    def __init__(self) -> None:
        self.base: dict[str, Any] | None = None
        self.first: int | None = None
        self.items: dict[int, dict[str, Any]] = {}  # output_index → item
        self.opened: dict[int, int] = {}  # output_index → event that opened it
        self.parts: dict[tuple[int, str, int], int] = {}  # (output_index, content|summary, index) → event
        self.fragments: dict[_Key, str] = {}  # deltas not yet checked against a `.done` value
        self.terminal: dict[str, Any] | None = None
        self.terminal_at: int | None = None
        self.error: dict[str, Any] | None = None
        self.sequence: int | None = None  # the last event's sequence_number
        self.highest: int | None = None  # the highest sequence_number so far
        self.gaps: list[tuple[StreamProblem, int, int, set[int]]] = []  # (problem, from, to, filled since)
        self.closed: set[int] = set()  # outputs whose output_item.done came
        self.interleaved: set[int] = set()  # outputs reported as interleaved
        self.readded: set[int] = set()  # outputs added twice (the second item replaced the first)
        self.problems: list[StreamProblem] = []

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def feed(self, event: StreamEvent) -> None:
        data, at = event.data, event.index
        if not isinstance(data, dict):
            if not (isinstance(data, str) and data.strip() == "[DONE]"):
                self.problem("other", "an event that is not a JSON object", at)
            return
        kind = event_type(event)
        if self.first is None:
            self.first = at
            if kind != "response.created":
                self.problem("order", f"the stream starts with {kind!r}, not response.created", at)
        self._check_sequence(data.get("sequence_number"), at)
        prefix, _, suffix = (kind or "").rpartition(".")
        if kind in ("response.created", "response.in_progress", "response.queued"):
            if self.base is None and isinstance(data.get("response"), dict):
                self.base = copy.deepcopy(data["response"])
        elif kind in _TERMINAL:
            self._terminal(kind, data, at)
        elif kind == "error":
            err = data.get("error")
            self.error = dict(err) if isinstance(err, dict) else {
                k: data[k] for k in ("code", "message", "param") if data.get(k) is not None}
            self.problem("error", f"error event: {self.error.get('message', self.error)}", at)
        elif kind == "response.output_item.added":
            self._added(data, at)
        elif kind == "response.output_item.done":
            self._done(data, at)
        elif prefix in _PARTS and suffix in ("added", "done"):
            self._part(kind, data, at, _PARTS[prefix], suffix == "added")
        elif prefix in _FIELDS and suffix in ("delta", "done"):
            self._field(kind, data, at, *_FIELDS[prefix], suffix == "delta")
        elif not isinstance(kind, str):
            self.problem("other", "an event without a type", at)
        # Other events (`*.in_progress`, `*.searching`, annotations, audio…) only report progress:
        # the item they describe arrives whole in `output_item.done`.

    def _check_sequence(self, number: Any, at: int) -> None:
        """A number going back is reported where it does; a jump ahead is reported as missing
        events until later events fill it (two swapped events are one problem, not three)."""
        if not isinstance(number, int) or isinstance(number, bool):
            return
        last, highest = self.sequence, self.highest
        if last is not None and number <= last:
            self.problem("order", f"sequence_number {number} after {last}: events repeated or reordered", at)
        if highest is not None and number > highest + 1:
            gap = StreamProblem("order", _missing(highest, number, number - highest - 1), at)
            self.problems.append(gap)
            self.gaps.append((gap, highest, number, set()))
        elif highest is not None and number < highest:
            self._fill(number)
        self.sequence = number
        self.highest = number if highest is None else max(highest, number)

    def _fill(self, number: int) -> None:
        """A late event arrived: the gap it belonged to lacks one event fewer (none: no gap)."""
        for k, (gap, start, end, filled) in enumerate(self.gaps):
            if not start < number < end or number in filled:
                continue
            filled.add(number)
            position = next(i for i, p in enumerate(self.problems) if p is gap)
            lacking = end - start - 1 - len(filled)
            if lacking:
                update = StreamProblem("order", _missing(start, end, lacking), gap.chunk)
                self.problems[position] = update
                self.gaps[k] = (update, start, end, filled)
            else:
                del self.problems[position]
                del self.gaps[k]
            return

    def _terminal(self, kind: str, data: dict[str, Any], at: int) -> None:
        if self.terminal is not None:  # a repeated terminal event changes nothing
            return
        response = data.get("response")
        self.terminal = copy.deepcopy(response) if isinstance(response, dict) else {}
        self.terminal_at = at
        if kind == "response.failed" and self.error is None:
            err = self.terminal.get("error")
            message = err.get("message") if isinstance(err, dict) else err
            self.problem("error", f"response failed: {message}", at)

    def _target(self, kind: str, data: dict[str, Any], at: int) -> tuple[int, dict[str, Any]] | None:
        index = as_index(data.get("output_index"))
        if index is None or index not in self.items:
            self.problem("order", f"{kind} for output {index} before its output_item.added", at)
            return None
        self._check_interleaved(kind, index, at)
        return index, self.items[index]

    def _check_interleaved(self, kind: str, index: int, at: int) -> None:
        """An event for an open output after a later output was added (once per output)."""
        latest = max(self.items)
        if index < latest and index not in self.closed and index not in self.interleaved:
            self.interleaved.add(index)
            self.problem("order", f"{kind} for output {index} after output {latest} was added "
                                  "(interleaved outputs)", at)

    def _check_opening(self, index: int, at: int) -> None:
        """A new output must take the next output_index: the SDK appends it and finds it again by
        `output[output_index]`, which a skipped index misses."""
        if self.gaps and self.gaps[-1][0].chunk == at:
            return  # events are missing right before this one: they may have held the outputs between
        expected = max(self.items) + 1 if self.items else 0
        if index not in self.items and index != expected:
            after = f"after output {expected - 1}" if self.items else "as the first output"
            self.problem("order", f"output_index {index} {after}: expected {expected} "
                                  "(output indices skipped or out of order)", at)

    def _added(self, data: dict[str, Any], at: int) -> None:
        index, item = as_index(data.get("output_index")), data.get("item")
        if not isinstance(item, dict):  # the SDK skips an added event without an item
            return
        if index is None:
            self.problem("other", "output_item.added without an output_index", at)
            return
        if index in self.items:
            self.problem("order", f"output {index} added twice", at)
            self.readded.add(index)
        self._check_opening(index, at)
        self.items[index] = copy.deepcopy(item)
        self.opened[index] = at
        self.closed.discard(index)

    def _done(self, data: dict[str, Any], at: int) -> None:
        index, item = as_index(data.get("output_index")), data.get("item")
        if not isinstance(item, dict) or index is None:
            self.problem("other", "output_item.done without an item or output_index", at)
            return
        current = self.items.get(index)
        if current is None:  # a whole item in one event
            self._check_opening(index, at)
            self.items[index] = copy.deepcopy(item)
            self.opened[index] = at
            self.closed.add(index)
            return
        self._check_interleaved("output_item.done", index, at)
        self.closed.add(index)
        self._settle(index, lambda w, i, f: (_locate(item, w, i) or {}).get(f), "output_item.done", at)
        for key in ("call_id", "name"):
            before, after = current.get(key), item.get(key)
            if isinstance(before, str) and isinstance(after, str) and before and after and before != after:
                self.problem("identity", f"output {index}: {key} {before!r} became {after!r} at "
                                         "output_item.done", at)
        self.items[index] = _merge(current, item)

    def _part(self, kind: str, data: dict[str, Any], at: int, where: str, added: bool) -> None:
        target = self._target(kind, data, at)
        index, part = as_index(data.get(_PART_INDEX[where])), data.get("part")
        if target is None or index is None or not isinstance(part, dict):
            return
        oi, item = target
        parts = item.setdefault(where, [])
        if not isinstance(parts, list):
            self.problem("other", f"{kind}: output {oi} has no {where} list", at)
            return
        if not added:
            self._settle(oi, lambda w, i, f: part.get(f) if (w, i) == (where, index) else None, kind, at)
            if index < len(parts) and isinstance(parts[index], dict):
                parts[index] = _merge(parts[index], part)
                return
            self.problem("order", f"{kind}: {where} part {index} of output {oi} was never opened", at)
        elif index != len(parts):
            self.problem("order", f"{kind}: {where} part {index} of output {oi} opens at position "
                                  f"{len(parts)}", at)
        if index < len(parts):
            parts[index] = copy.deepcopy(part)
        else:
            parts.append(copy.deepcopy(part))
            index = len(parts) - 1
        self.parts[(oi, where, index)] = at

    def _field(self, kind: str, data: dict[str, Any], at: int, where: str, field: str,
               part_type: str | None, delta: bool) -> None:
        target = self._target(kind, data, at)
        if target is None:
            return
        oi, item = target
        index = as_index(data.get(_PART_INDEX[where])) if where in _PART_INDEX else None
        node = _locate(item, where, index)
        if node is None and part_type is not None and isinstance(item.setdefault(where, []), list) \
                and index == len(item[where]):
            # Text before its `content_part.added`: keep the text, say the opening event is missing.
            self.problem("order", f"{kind} before the {where} part {index} of output {oi} was opened", at)
            node = {"type": part_type, field: ""}
            item[where].append(node)
            self.parts[(oi, where, index)] = at
        if node is None:
            what = where if index is None else f"{where} part {index}"
            self.problem("order", f"{kind}: output {oi} has no {what}", at)
            return
        value = data.get("delta" if delta else field)
        if not isinstance(value, str):
            return
        previous = node.get(field)
        if delta:
            node[field] = (previous if isinstance(previous, str) else "") + value
            key: _Key = (oi, where, index, field)
            self.fragments[key] = self.fragments.get(key, "") + value
            return
        self._settle(oi, lambda w, i, f: value if (w, i, f) == (where, index, field) else None, kind, at)
        if value or previous in (None, ""):
            node[field] = value

    def _settle(self, oi: int, final: Callable[[str, int | None, str], Any], kind: str, at: int) -> None:
        """Check the fragments of output `oi` against the final values the event `kind` carries."""
        for key in [k for k in self.fragments if k[0] == oi]:
            value = final(*key[1:])
            if not isinstance(value, str):
                continue
            joined = self.fragments.pop(key)
            if value != joined:
                self.problem("order", f"the {key[3]} fragments of output {oi} add up to {_short(joined)} "
                                      f"but {kind} says {_short(value)}", at)

    def finish(self, last: int | None) -> Assembled:
        keys = sorted(self.items)
        if self.terminal is not None:
            body = self.terminal
            if not isinstance(body.get("output"), list):
                body["output"] = [self.items[k] for k in keys]
        else:
            body = self.base if self.base is not None else {}
            body["output"] = [self.items[k] for k in keys]
            if self.error is not None and not body.get("error"):
                body["error"] = self.error
            self.problem("truncated", "the stream ended without response.completed, .failed or .incomplete",
                         last)
        chunks = {"": self.first} if self.first is not None else {}
        ids = {item.get("id"): k for k, item in self.items.items() if isinstance(item.get("id"), str)}
        for pos, item in enumerate(body["output"]):
            item_id = item.get("id") if isinstance(item, dict) else None
            key = ids.get(item_id) if isinstance(item_id, str) else None
            key = key if key is not None else (keys[pos] if pos < len(keys) else None)
            if key is not None:
                chunks[f"/output/{pos}"] = self.opened[key]
                chunks.update({f"/output/{pos}/{where}/{i}": c
                               for (oi, where, i), c in self.parts.items() if oi == key})
            if isinstance(item, dict):
                # an output added twice streamed two items: the final one answers for neither
                streamed = self.items.get(key) if key is not None and key not in self.readded else None
                self._check_call(item, pos, streamed,
                                 chunks.get(f"/output/{pos}", self.terminal_at))
        return Assembled(body=body, chunks={k: v for k, v in chunks.items() if v is not None},
                         problems=tuple(self.problems), complete=self.terminal is not None)

    def _check_call(self, item: dict[str, Any], pos: int, streamed: dict[str, Any] | None,
                    chunk: int | None) -> None:
        """A finished call has its id, its name and JSON arguments, as the stream said."""
        kind = item.get("type")
        if kind not in ("function_call", "custom_tool_call"):
            return
        for key in ("call_id", "name"):
            value = item.get(key)
            if not isinstance(value, str) or not value:
                self.problem("identity", f"output {pos}: the {kind} has no {key}", chunk)
            elif streamed is not None and streamed is not item and streamed.get(key) not in (None, "", value):
                self.problem("identity", f"output {pos}: the final response says {key} {value!r}, the "
                                         f"stream said {streamed.get(key)!r}", self.terminal_at)
        arguments = item.get("arguments")
        if kind == "function_call" and not (isinstance(arguments, str) and try_loads(arguments)[0]):
            self.problem("arguments", f"output {pos}: arguments are not valid JSON: {_short(arguments)}",
                         chunk)


def _merge(current: dict[str, Any], final: dict[str, Any]) -> dict[str, Any]:
    """The `.done` copy wins, except that an empty value never overwrites one the stream gave."""
    return {**current, **{k: copy.deepcopy(v) for k, v in final.items()
                          if not (v in (None, "") and current.get(k) not in (None, ""))}}


def _locate(item: dict[str, Any], where: str, index: int | None) -> dict[str, Any] | None:
    """The node of an item a delta builds: the item, its `operation`, or one of its content/summary parts."""
    if where == "item":
        return item
    node = item.get(where)
    if where in _PART_INDEX:
        node = node[index] if isinstance(node, list) and index is not None and index < len(node) else None
    return node if isinstance(node, dict) else None


def _missing(last: int, number: int, count: int) -> str:
    return f"sequence_number jumps from {last} to {number}: {count} events missing"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------------------ writing


def write(conversation: Conversation) -> Written:
    """The stateless request that replays the conversation (`store` and the like come from meta)."""
    writer = _Writer(conversation)
    return Written(body=writer.body(), losses=tuple(writer.losses))


class _Writer(Writer):
    def __init__(self, conv: Conversation) -> None:
        super().__init__(conv)
        self.call_ids: dict[str, str] = {}  # own invocation id → call_id written
        self.call_names: dict[str, str] = {}  # call_id written → name of the latest call with it
        self.used = {p.wire_id for t in conv.turns for p in t.parts
                     if isinstance(p, (Invocation, Result)) and p.wire_id}
        self.pairs: list[tuple[bool, str, int, int]] = []  # (is a call, call_id, turn, part) in order
        self.open: tuple[dict[str, Any], Any] | None = None  # the message parts are appended to

    def body(self) -> dict[str, Any]:
        conv = self.conv
        body: dict[str, Any] = {}
        if conv.model:
            body["model"] = conv.model
        else:
            self.lose("no model: the Responses API requires one", None)
        report_foreign(NAME, conv.meta, self.losses)
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
                self.lose(f"{key} left out: the request replays the whole history", None)
            elif key != "tool_choice":
                body.setdefault(key, value)
        self.check_pairs()
        return body

    # -- system, tools, tool choice

    def system(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The first plain system text → `instructions`; the rest → leading system/developer messages."""
        parts = list(enumerate(self.conv.system))
        for i, part in parts:
            report_foreign(NAME, part.meta, self.losses, None, i)
        if parts and isinstance(parts[0][1], Text) and not own_meta(NAME, parts[0][1].meta):
            body["instructions"] = parts.pop(0)[1].text
        items: list[dict[str, Any]] = []
        for i, part in parts:
            fields = own_meta(NAME, part.meta)
            role = fields.get("role")
            if role not in ("system", "developer"):
                self.lose("sent as a system message: instructions hold a single text", None, i)
                role = "system"
            self.add(items, role, fields.get("message") or {}, part, None, i)
        return items

    def tool(self, index: int, tool: Tool) -> dict[str, Any] | None:
        report_foreign(NAME, tool.meta, self.losses)
        if tool.kind == "function":
            out: dict[str, Any] = {"type": "function", "name": tool.name}
            if tool.description is not None:
                out["description"] = tool.description
            return {**out, "parameters": tool.parameters, **own_meta(NAME, tool.meta)}
        if tool.origin == NAME and isinstance(tool.raw, dict):
            return copy.deepcopy(tool.raw)
        self.lose(f"tool {index} ({tool.origin or 'unknown'} {tool.kind} {tool.name!r}) dropped: "
                  "Responses cannot declare it", None)
        return None

    def choice(self) -> dict[str, Any]:
        choice = self.conv.tool_choice
        if choice is None:
            return {}
        verbatim = own_meta(NAME, self.conv.meta).get("tool_choice")
        out: dict[str, Any] = {}
        if verbatim is not None and _read_choice(verbatim, choice.parallel)[0] == choice:
            out["tool_choice"] = verbatim
        elif choice.mode in _MODES:
            out["tool_choice"] = choice.mode
        elif choice.mode == "tool" and choice.name:
            kind = next((t.kind for t in self.conv.tools if t.name == choice.name), "function")
            out["tool_choice"] = {"type": "custom" if kind == "custom" else "function", "name": choice.name}
        else:
            self.lose(f"tool choice {choice.mode!r} has no Responses form: sent 'auto'", None)
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
                self.lose(f"a {part.type} part cannot be carried in a {turn.role} turn", t, p)
            elif isinstance(part, Reasoning):
                item = self.reasoning(part, t, p)
                if item is not None:
                    items.append(item)
                    reasoning = p
            elif isinstance(part, Invocation):
                items.append(self.call(part, t, p, reasoning is not None))
            elif isinstance(part, Result):
                items.append(self.result(part, t, p))
            elif isinstance(part, Opaque) and not own_meta(NAME, part.meta).get("content"):
                if part.origin == NAME:
                    items.append(copy.deepcopy(part.value))
                else:
                    self.foreign_opaque(part, t, p)
            else:
                message = fields
                if turn.role == "assistant":
                    message = own_meta(NAME, part.meta).get("message") or {}
                self.add(items, role, message, part, t, p, typed=reasoning is not None)
        if items and items[-1].get("type") == "reasoning":
            items.pop()
            self.lose("reasoning dropped: the API rejects a reasoning item without the item that followed it",
                      t, reasoning)
        if not items:
            self.lose("nothing in this turn can be carried", t)
        return items

    def add(self, items: list[dict[str, Any]], role: str, fields: dict[str, Any], part: Part,
            t: int | None, p: int, typed: bool = False) -> None:
        """Append a content part to the open message of the same role and fields, or open one."""
        block = self.block(part, role, t, p)
        if block is None:
            return
        key = (role, fields)
        if not (items and self.open is not None and items[-1] is self.open[0] and self.open[1] == key):
            dropped = {k: fields[k] for k in ("id", "status") if k in fields}
            if role == "assistant" and dropped and not (typed and "id" in dropped):
                what = ", ".join(f"{k} {v!r}" for k, v in dropped.items())
                self.lose(f"assistant message {what} left out: only a message replayed with its msg_ id "
                          "after its reasoning item carries them", t, p)
            self.open = (_message(role, fields, typed), key)
            items.append(self.open[0])
        message = self.open[0]
        if message.get("type") == "message" and block.get("type") == "output_text":
            block.setdefault("annotations", [])
        message["content"].append(block)

    def block(self, part: Part, role: str, t: int | None, p: int) -> dict[str, Any] | None:
        fields = {k: v for k, v in own_meta(NAME, part.meta).items()
                  if k not in ("message", "role", "content")}
        if isinstance(part, Text):
            kind = fields.pop("type", _text_type(role))
            return {"type": kind, "refusal" if kind == "refusal" else "text": part.text, **fields}
        if isinstance(part, Media):
            block = _write_media(part, fields) if role != "assistant" else None
            if block is None:
                self.lose(f"{part.kind} dropped: Responses cannot carry it here", t, p)
            return block
        if isinstance(part, Opaque) and part.origin == NAME:
            return copy.deepcopy(part.value)
        if isinstance(part, Opaque):
            self.foreign_opaque(part, t, p)
            return None
        self.lose(f"a {part.type} part cannot be carried in a message", t, p)
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
        call_id = part.wire_id if _valid_id(part.wire_id) else self.new_id(part.id or f"t{t}p{p}")
        if call_id != part.wire_id:
            what = f"call id {part.wire_id!r} is not a valid call_id" if part.wire_id else "call had no id"
            self.lose(f"{what}: wrote {call_id!r}", t, p)
        if part.id:
            self.call_ids[part.id] = call_id
        self.call_names[call_id] = part.name
        self.pairs.append((True, call_id, t, p))
        fields = own_meta(NAME, part.meta)
        item_id = fields.pop("id", None)
        custom = fields.pop("custom", False)
        item: dict[str, Any] = {"type": "custom_tool_call" if custom else "function_call"}
        if item_id is not None and after_reasoning:
            item["id"] = item_id
        elif item_id is not None:
            self.lose(f"call item id {item_id!r} left out: the API rejects it without its reasoning item",
                      t, p)
        item.update(call_id=call_id, name=part.name)
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
        call_id = self.call_ids.get(part.invocation_id or "")
        if call_id is None:
            seed = part.invocation_id or f"t{t}p{p}"
            call_id = part.wire_id if _valid_id(part.wire_id) else self.new_id(seed)
        if call_id != part.wire_id:
            what = f"result call_id {part.wire_id!r}" if part.wire_id else "result had no call id"
            self.lose(f"{what}: wrote {call_id!r}, the id of its call", t, p)
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
        if not part.content:
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

    def new_id(self, seed: str) -> str:
        """A deterministic call_id from the canonical id, unique in this conversation."""
        return unique_id(f"call_{seed}"[:_MAX_CALL_ID - 4], self.used)

    def foreign_opaque(self, part: Opaque, t: int, p: int) -> None:
        kind = part.value.get("type") if isinstance(part.value, dict) else None
        what = f"{part.origin} block {kind!r}" if isinstance(kind, str) else f"{part.origin} block"
        self.lose(f"{what} dropped: only {part.origin} can replay it", t, p)

    def check_pairs(self) -> None:
        """The two pairing 400s of dossier §2.5. A writer neither invents nor drops turns, so it says
        what the API will reject (conversation-level: the turns themselves are carried unchanged)."""
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


def _valid_id(value: str | None) -> bool:
    return isinstance(value, str) and 0 < len(value) <= _MAX_CALL_ID and not value.isspace()
