"""openai-chat: OpenAI Chat Completions and every OpenAI-compatible dialect.

DeepSeek, xAI, Groq, Together, OpenRouter, Mistral, Qwen, Azure and Anthropic's compatibility
endpoint all speak this one wire shape and differ only in extras (`reasoning_content`, `x_groq`,
`native_finish_reason`, ids repeated or blanked in stream fragments), so one tolerant reader covers
them and one strict writer targets them. What the canonical model does not name is kept per node
in `meta["openai-chat"]` (message `name`, `developer` role, `strict`, image `detail`, Gemini-compat
`extra_content.google.thought_signature`, legacy `function_call`) so a rewrite is faithful.

The writer emits reasoning of this origin as `reasoning_content`: only DeepSeek/Kimi-style
thinking endpoints read it back (others ignore it). Tool messages carry text only and no error
flag, so media in results is dropped and `is_error` survives only as an "Error" prefix in the text,
each reported as a loss. Tool messages bind by id and (outside some dialects' optional `name`)
carry no tool name: a bound result reads its call's name (see `base.link`), and the writer reports
a result name only where it differs from its call's, the one thing a rewrite cannot keep.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from ..errors import FormatError
from ..jsonio import dumps_str
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
    escape_pointer,
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
    expect_dict,
    expect_list,
    link,
    media_kind,
    meta_for,
    optional_field,
    optional_list,
    own_meta,
    own_opaque,
    parse_arguments,
    report_foreign,
    required_field,
    safe_tool_name,
    split_data_url,
    type_name,
    unique_id,
    unmodeled,
    with_meta,
)

NAME = "openai-chat"
URL_HINTS: tuple[str, ...] = ("/chat/completions",)

from .base import Facts  # noqa: E402 - one block with FACTS, to move as one

#: What the code outside this module needs to know about OpenAI Chat Completions (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=1,
    messages_key="messages",
    finish_pointer="/choices/0/finish_reason",
    arguments="string",
    arguments_path=("function", "arguments"),
    failure="text",
    failure_wording=None,
    reasoning="reasoning_content",
    strict_pairing=True,
    merges_roles=False,
    calls_last=False,
    rejects_blank_text=False,
)

# Top-level request keys the reader models; every other key is a parameter kept in meta.
_MODELED_PARAMS = frozenset({"model", "messages", "tools", "functions", "tool_choice",
                             "function_call", "parallel_tool_calls"})
# OpenAI rejects tool-call ids longer than 40 characters (dossier §1.7); ids are otherwise opaque.
_CALL_ID = re.compile(r"[\x21-\x7e]{1,40}")


# ------------------------------------------------------------------------------------ sniffing


def sniff(body: Any, side: str) -> bool:
    """A request with `messages` (and no top-level `system`), or a completion / error body."""
    if not isinstance(body, dict):
        return False
    if side == "request":
        return isinstance(body.get("messages"), list) and "system" not in body
    if isinstance(body.get("choices"), list):
        return True
    return isinstance(body.get("error"), dict) and "type" not in body


def sniff_stream(events: list[StreamEvent]) -> bool:
    """Any chunk that is a `chat.completion.chunk` or carries `choices[].delta`."""
    return any(_is_chunk(e.data) for e in events)


def _is_chunk(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    choices = data.get("choices")
    return data.get("object") == "chat.completion.chunk" or (
        isinstance(choices, list) and any(isinstance(c, dict) and "delta" in c for c in choices))


# ---------------------------------------------------------------------------------- reading


def read_request(body: Any, source: Source) -> Request:
    """A request body → system, tools, tool choice and linked turns."""
    body = expect_dict(body, source, "a Chat Completions request")
    messages = expect_list(body.get("messages"), source.child("messages"), "messages")
    system, turns = _read_messages(messages, source.child("messages"))
    params = unmodeled(body, _MODELED_PARAMS, defaults={"stream": False})
    choice, verbatim = _read_tool_choice(body, source)
    if verbatim is not None:
        params["tool_choice"] = verbatim
    if "tool_choice" in body and body.get("function_call") is not None:
        params["function_call"] = body["function_call"]  # the modern choice wins; keep the other
    return Request(turns=link(turns), system=tuple(system), tools=tuple(_read_tools(body, source)),
                   tool_choice=choice, model=optional_field(body, "model", str, source),
                   stream=body.get("stream") is True, meta=meta_for(NAME, params))


def read_response(body: Any, source: Source) -> Response:
    """A completion body → the assistant turn of `choices[0]`; an error body → `ApiError`."""
    body = expect_dict(body, source, "a Chat Completions response")
    error = _api_error(body.get("error"))
    if error is not None and body.get("choices") is None:
        return Response(error=error)
    choices = expect_list(body.get("choices"), source.child("choices"), "choices")
    turn, finish, extras = None, None, {}
    if choices:
        at = source.child("choices", 0)
        choice = expect_dict(choices[0], at, "a choice")
        message = expect_dict(choice.get("message"), at.child("message"), "a choice message")
        turn = link([_assistant_turn(message, at.child("message"))])[0]
        finish = optional_field(choice, "finish_reason", str, at)
        extras = _extras(choice, ("index", "message", "finish_reason"))
    usage = body.get("usage")
    if usage is not None:
        usage = expect_dict(usage, source.child("usage"), "usage")
    meta = _extras(body, ("choices", "usage", "model", "object", "error"))
    if extras:
        meta["choice"] = extras
    if len(choices) > 1:
        meta["choices"] = choices[1:]
    return Response(turn=turn, finish_reason=finish, model=optional_field(body, "model", str, source),
                    usage=usage, error=error, meta=meta_for(NAME, meta))


def _api_error(error: Any) -> ApiError | None:
    """`{"error": {message, type, param, code}}`; a bare string or other value is the message."""
    if error is None:
        return None
    if not isinstance(error, dict):
        return ApiError(message=error if isinstance(error, str) else dumps_str(error))
    message = error.get("message")
    return ApiError(message=message if isinstance(message, str) else dumps_str(error),
                    type=_scalar(error.get("type")), code=_scalar(error.get("code")),
                    param=_scalar(error.get("param")))


def _scalar(value: Any) -> str | None:
    return None if value is None else value if isinstance(value, str) else dumps_str(value)


def _read_messages(messages: list[Any], src: Source) -> tuple[list[Part], list[Turn]]:
    """Leading system/developer messages → system parts; the rest → turns, consecutive tool
    (and legacy function) messages merged into one `tool` turn."""
    system: list[Part] = []
    turns: list[Turn] = []
    for i, message in enumerate(messages):
        at = src.child(i)
        message = expect_dict(message, at, "a message")
        role = message.get("role")
        if role in ("system", "developer"):
            parts = _content(message.get("content"), at.child("content"))
            extras = _extras(message, ("role", "content"))
            if role == "developer":
                extras["role"] = "developer"
            if turns:
                turns.append(Turn(role="system", parts=tuple(parts), meta=meta_for(NAME, extras), source=at))
            else:
                system.extend(with_meta(NAME, p, {"message": extras}) if extras else p for p in parts)
        elif role in ("tool", "function"):
            result = _result(message, at, legacy=role == "function")
            if turns and turns[-1].role == "tool":
                turns[-1] = replace(turns[-1], parts=(*turns[-1].parts, result))
            else:
                turns.append(Turn(role="tool", parts=(result,), source=at))
        elif role == "user":
            turns.append(Turn(role="user", parts=tuple(_content(message.get("content"), at.child("content"))),
                              meta=meta_for(NAME, _extras(message, ("role", "content"))), source=at))
        elif role == "assistant":
            turns.append(_assistant_turn(message, at))
        else:
            raise FormatError(f"unknown message role {role!r}", at.child("role").pointer)
    return system, turns


def _assistant_turn(message: dict[str, Any], at: Source) -> Turn:
    """Reasoning, then content (text and refusal parts), the `refusal` field, then the calls."""
    parts: list[Part] = []
    modeled = {"role", "content", "refusal", "tool_calls", "function_call"}
    for key in ("reasoning_content", "reasoning"):
        text = message.get(key)
        if isinstance(text, str):  # a non-string `reasoning` stays in meta, verbatim
            modeled.add(key)
            if text:
                kept = {"field": key} if key != "reasoning_content" else {}
                parts.append(Reasoning(text=text, origin=NAME, source=at.child(key),
                                       meta=meta_for(NAME, kept)))
    parts.extend(_content(message.get("content"), at.child("content")))
    refusal = optional_field(message, "refusal", str, at)
    if refusal:
        parts.append(Text(text=refusal, meta=meta_for(NAME, {"field": "refusal"}),
                          source=at.child("refusal")))
    calls = message.get("tool_calls")
    if calls is not None:
        calls = expect_list(calls, at.child("tool_calls"), "tool_calls")
        parts.extend(_tool_call(c, at.child("tool_calls", k)) for k, c in enumerate(calls))
    legacy = message.get("function_call")
    if legacy is not None:
        parts.append(_function_call(expect_dict(legacy, at.child("function_call"), "function_call"),
                                    at.child("function_call"), {"function_call": True}))
    return Turn(role="assistant", parts=tuple(parts), meta=meta_for(NAME, _extras(message, modeled)),
                source=at)


def _tool_call(call: Any, at: Source) -> Part:
    """A `function` or `custom` tool call; any other type stays verbatim as Opaque."""
    call = expect_dict(call, at, "a tool call")
    kind = call.get("type") or "function"  # Mistral omits `type`
    # `index` is a stream artifact DeepSeek leaves in non-streamed bodies: not worth replaying.
    extras = _extras(call, ("id", "type", "function", "custom", "index"))
    wire_id = optional_field(call, "id", str, at)
    if kind == "function":
        fn = expect_dict(call.get("function"), at.child("function"), "a tool call's function")
        return replace(_function_call(fn, at.child("function"), extras), wire_id=wire_id, source=at)
    if kind == "custom":
        custom = expect_dict(call.get("custom"), at.child("custom"), "a custom tool call")
        return Invocation(name=optional_field(custom, "name", str, at.child("custom")) or "",
                          arguments=optional_field(custom, "input", str, at.child("custom")),
                          wire_id=wire_id, meta=meta_for(NAME, {"type": "custom", **extras}), source=at)
    return Opaque(origin=NAME, value=call, meta=meta_for(NAME, {"field": "tool_calls"}), source=at)


def _function_call(fn: dict[str, Any], at: Source, meta: dict[str, Any]) -> Invocation:
    """`{name, arguments}`: arguments parsed from their JSON string (kept raw when invalid)."""
    arguments, raw = parse_arguments(fn.get("arguments"))
    return Invocation(name=optional_field(fn, "name", str, at) or "", arguments=arguments,
                      raw_arguments=raw, meta=meta_for(NAME, meta), source=at)


def _result(message: dict[str, Any], at: Source, *, legacy: bool) -> Result:
    extras = _extras(message, ("role", "tool_call_id", "content", "name"))
    if legacy:
        extras["role"] = "function"
    elif message.get("name") is not None:
        extras["name"] = True  # a dialect's optional tool-message `name`: written back as it came
    return Result(wire_id=optional_field(message, "tool_call_id", str, at),
                  name=optional_field(message, "name", str, at),
                  content=tuple(_content(message.get("content"), at.child("content"))),
                  meta=meta_for(NAME, extras), source=at)


def _content(content: Any, at: Source) -> list[Part]:
    """String content → one Text (none when empty); an array → one part per entry."""
    if content is None:
        return []
    if isinstance(content, str):
        return [Text(text=content, source=at)] if content else []
    items = expect_list(content, at, "content")
    return [_content_part(item, at.child(k)) for k, item in enumerate(items)]


def _content_part(item: Any, at: Source) -> Part:
    item = expect_dict(item, at, "a content part")
    kind = item.get("type")
    if kind == "text":
        return Text(text=required_field(item, "text", str, at),
                    meta=meta_for(NAME, _extras(item, ("type", "text"))), source=at)
    if kind == "refusal":
        return Text(text=required_field(item, "refusal", str, at), source=at,
                    meta=meta_for(NAME, {"type": "refusal", **_extras(item, ("type", "refusal"))}))
    if kind == "image_url":
        return _image(item, at)
    if kind == "input_audio":
        audio = expect_dict(item.get("input_audio"), at.child("input_audio"), "input_audio")
        fmt = optional_field(audio, "format", str, at.child("input_audio"))
        return Media(kind="audio", media_type=_audio_type(fmt) if fmt else None,
                     data=optional_field(audio, "data", str, at.child("input_audio")), source=at,
                     meta=meta_for(NAME, {**_extras(item, ("type", "input_audio")),
                                 **_extras(audio, ("data", "format"))}))
    if kind == "file":
        file = expect_dict(item.get("file"), at.child("file"), "file")
        data = optional_field(file, "file_data", str, at.child("file"))
        media_type, payload = split_data_url(data) if data else (None, None)
        return Media(kind=media_kind(media_type) if media_type else "file", media_type=media_type,
                     data=payload if payload is not None else data,
                     file_id=optional_field(file, "file_id", str, at.child("file")), source=at,
                     meta=meta_for(NAME, {**_extras(item, ("type", "file")),
                                 **_extras(file, ("file_data", "file_id"))}))
    return Opaque(origin=NAME, value=item, source=at)


def _image(item: dict[str, Any], at: Source) -> Media:
    """`image_url`: a data URL becomes inline data, anything else a reference (`detail` in meta)."""
    image = item.get("image_url")
    if isinstance(image, str):  # some clients send the URL bare
        image = {"url": image}
    image = expect_dict(image, at.child("image_url"), "image_url")
    url = required_field(image, "url", str, at.child("image_url"))
    media_type, data = split_data_url(url)
    meta = {**_extras(item, ("type", "image_url")), **_extras(image, ("url",))}
    if data is not None:
        return Media(kind="image", media_type=media_type, data=data, meta=meta_for(NAME, meta), source=at)
    return Media(kind="image", url=url, meta=meta_for(NAME, meta), source=at)


def _audio_type(fmt: str) -> str:
    return "audio/mpeg" if fmt == "mp3" else f"audio/{fmt}"


def _read_tools(body: dict[str, Any], src: Source) -> list[Tool]:
    """`tools[]` (function, custom, anything else verbatim) and legacy `functions[]`."""
    tools: list[Tool] = []
    for k, tool in enumerate(optional_list(body.get("tools"), src.child("tools"), "tools")):
        at = src.child("tools", k)
        tool = expect_dict(tool, at, "a tool")
        kind = tool.get("type") or "function"
        if not isinstance(kind, str):
            raise FormatError(f"a tool type must be a string, not {type_name(kind)}",
                              at.child("type").pointer)
        if kind == "function":
            fn = expect_dict(tool.get("function"), at.child("function"), "a tool's function")
            outer = _extras(tool, ("type", "function"))
            tools.append(_function_tool(fn, at.child("function"), {"tool": outer} if outer else {}))
            continue
        inner = tool.get(kind)
        name = inner.get("name") if isinstance(inner, dict) else None
        description = inner.get("description") if isinstance(inner, dict) else None
        tools.append(Tool(name=name if isinstance(name, str) else kind,
                          description=description if isinstance(description, str) else None,
                          kind=kind, origin=NAME, raw=tool, source=at))
    for k, fn in enumerate(optional_list(body.get("functions"), src.child("functions"), "functions")):
        at = src.child("functions", k)
        tools.append(_function_tool(expect_dict(fn, at, "a function"), at, {"functions": True}))
    return tools


def _function_tool(fn: dict[str, Any], at: Source, meta: dict[str, Any]) -> Tool:
    return Tool(name=required_field(fn, "name", str, at),
                description=optional_field(fn, "description", str, at),
                parameters=fn.get("parameters"), source=at,
                meta=meta_for(NAME, {**meta, **_extras(fn, ("name", "description", "parameters"))}))


def _read_tool_choice(body: dict[str, Any], src: Source) -> tuple[ToolChoice | None, Any]:
    """(`tool_choice` / legacy `function_call` + `parallel_tool_calls`, the verbatim choice when
    the canonical form cannot hold it: `allowed_tools` and unknown objects)."""
    parallel = body.get("parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        raise FormatError(f"parallel_tool_calls must be a boolean, not {type_name(parallel)}",
                          src.child("parallel_tool_calls").pointer)
    value = body.get("tool_choice", body.get("function_call"))
    choice = _choice(value)
    verbatim = value if isinstance(value, dict) and (choice is None or choice.mode != "tool") else None
    if choice is None and parallel is not None:
        choice = ToolChoice()
    return (replace(choice, parallel=parallel) if choice is not None else None), verbatim


def _choice(value: Any) -> ToolChoice | None:
    """One wire tool choice → ToolChoice (None when absent or unknown)."""
    if isinstance(value, str):
        return ToolChoice(mode=value)
    if not isinstance(value, dict):
        return None
    kind = value.get("type", "function")  # legacy `function_call: {name}` has no type
    inner = value.get(kind) if kind in ("function", "custom") else None
    name = (inner if isinstance(inner, dict) else value).get("name")
    if kind in ("function", "custom") and isinstance(name, str):
        return ToolChoice(mode="tool", name=name)
    allowed = value.get("allowed_tools")
    if kind == "allowed_tools" and isinstance(allowed, dict) and isinstance(allowed.get("mode"), str):
        return ToolChoice(mode=allowed["mode"])
    return None


# ------------------------------------------------------------------------------ read helpers


#: Keys a reader does not model, kept verbatim (nulls and empty containers are defaults).
_extras = partial(unmodeled, empty=True)


# -------------------------------------------------------------------------------- streams


def split_streams(events: list[StreamEvent]) -> list[list[StreamEvent]]:
    """A Chat Completions capture is one response: `[DONE]` ends it."""
    return [list(events)]


def assemble_stream(events: list[StreamEvent], source: Source) -> Assembled:
    """Chunks → the equivalent `chat.completion` body, as openai-python accumulates them
    (`src/openai/lib/streaming/_deltas.py` `accumulate_delta` and
    `src/openai/lib/streaming/chat/_completions.py` `ChatCompletionStreamState`): strings
    concatenate, dicts merge, list entries merge by their `index`, `finish_reason` keeps the last
    non-null value, chunks whose `object` is not `chat.completion.chunk` are skipped (Azure's
    content-filter chunk), an `{"error": …}` payload ends the stream, `[DONE]` terminates it.

    Deliberate departures where the SDK corrupts real dialects: identity fields (`id`, `name`,
    `type`, `role`, `index`) keep their first non-empty value instead of concatenating
    (OpenRouter/Together repeat `role`, Qwen sends `"id":""`, Mistral-format `"name":""`, LiteLLM
    repeats the id); tool calls are keyed by their `index` value, not list position (the first
    call may be index 1); numbers are replaced, not summed; usage keeps the last reported value
    rather than being reset by a later chunk without it.

    Where the SDK would corrupt the message, the chunk that does it is recorded, once: a fragment
    repeating its call's `id` or function `name` unchanged (the SDK glues `call_xcall_x`), and a
    second call arriving on an index already used (servers that number every parallel call 0: the
    SDK runs the arguments together, `{"a":1}{"b":2}`) — both "order", since the fragments are
    right and their addressing is not. Empty continuation values (`"id":""`) repeat nothing.
    """
    assembler = _Assembler()
    try:
        for position, event in enumerate(events):
            if not assembler.feed(event):
                rest = [e.index for e in events[position + 1:] if e.data not in ("", None)]
                if rest and assembler.done:
                    assembler.problem("other", f"{len(rest)} events after [DONE] ignored", rest[0])
                break
    except RecursionError:
        raise FormatError("stream payload nested too deeply") from None
    return assembler.result(events)


@dataclass
class _Choice:
    """One choice being assembled, with the stream state its tool calls need."""

    index: int
    opened: int
    message: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    finish_reason: Any = None
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    chunks: dict[str, int] = field(default_factory=dict)  # relative pointer → event
    last_call: int | None = None
    last_arguments: dict[int, int] = field(default_factory=dict)
    reported: set[tuple[str, Any]] = field(default_factory=set)
    reused: set[int] = field(default_factory=set)  # indices a second call arrived on
    repeats: dict[int, tuple[int, set[str]]] = field(default_factory=dict)  # index → (first chunk, what)


class _Assembler:
    """Folds events one by one into per-choice state, collecting chunk pointers and problems."""

    def __init__(self) -> None:
        self.envelope: dict[str, Any] = {}
        self.choices: dict[int, _Choice] = {}
        self.chunks: dict[str, int] = {}
        self.problems: list[StreamProblem] = []
        self.usage: Any = None
        self.error: Any = None
        self.done = False
        self.finished = False

    def feed(self, event: StreamEvent) -> bool:
        """Fold one event in; False once the stream is over ([DONE] or an error)."""
        data = event.data
        if isinstance(data, str):
            if data.strip().startswith("[DONE]"):
                self.done = True
                return False
            if data.strip():
                self.problem("other", "a stream event that is not JSON", event.index)
            return True
        if not isinstance(data, dict):
            self.problem("other", f"a stream event that is {type_name(data)}, not an object", event.index)
            return True
        if data.get("error"):
            self.error = data["error"]
            self.chunks["/error"] = event.index
            message = _api_error(data["error"])
            self.problem("error", f"error event: {message.message if message else ''}", event.index)
            return False
        if "object" in data and data["object"] != "chat.completion.chunk":
            if data.get("choices"):
                self.problem("other", f"a chunk of object {data['object']!r} was skipped", event.index)
            return True
        self.chunks.setdefault("", event.index)
        for key, value in data.items():
            if key not in ("choices", "usage", "object", "obfuscation") and value not in (None, ""):
                self.envelope.setdefault(key, value)
        if isinstance(data.get("usage"), dict):
            self.usage = data["usage"]
            self.chunks["/usage"] = event.index
        choices = data.get("choices")
        if choices is not None and not isinstance(choices, list):
            self.problem("other", f"choices is {type_name(choices)}, not a list", event.index)
        for choice in choices if isinstance(choices, list) else ():
            self.feed_choice(choice, event.index)
        return True

    def feed_choice(self, choice: Any, at: int) -> None:
        if not isinstance(choice, dict):
            self.problem("other", f"a choice that is {type_name(choice)}, not an object", at)
            return
        index = choice.get("index", 0)
        if not _is_int(index):
            self.problem("order", "a choice without an integer index (taken as 0)", at)
            index = 0
        state = self.choices.get(index)
        if state is None:
            state = self.choices[index] = _Choice(index=index, opened=at)
        for key, value in choice.items():
            if key not in ("index", "delta", "finish_reason", "logprobs", "text") and value not in (None, ""):
                state.extras.setdefault(key, value)
        if choice.get("logprobs") is not None:
            _merge(state.extras, "logprobs", choice["logprobs"])
        delta = choice.get("delta")
        if delta is None and isinstance(choice.get("text"), str):
            delta = {"content": choice["text"]}  # a text-only chunk; Together sends both (no double count)
        if isinstance(delta, dict):
            for key, value in delta.items():
                if key == "tool_calls":
                    self.feed_calls(state, value, at)
                elif not _is_int(value):  # per-token counters (Together `token_id`) are no content
                    if value is not None and key not in state.message:
                        state.chunks.setdefault(f"/message/{escape_pointer(key)}", at)
                    _merge(state.message, key, value)
        elif delta is not None:
            self.problem("other", f"a delta that is {type_name(delta)}, not an object", at)
        if choice.get("finish_reason"):
            state.finish_reason = choice["finish_reason"]
            state.chunks.setdefault("/finish_reason", at)
            self.finished = True

    def feed_calls(self, state: _Choice, fragments: Any, at: int) -> None:
        if fragments is None:
            return
        if not isinstance(fragments, list):
            self.problem("other", f"tool_calls is {type_name(fragments)}, not a list", at)
            return
        for fragment in fragments:
            if not isinstance(fragment, dict):
                self.problem("other", f"a tool call fragment that is {type_name(fragment)}", at)
                continue
            reuse = self.reuses(state, fragment)
            index = self.call_index(state, fragment, at, reuse)
            call = state.calls.get(index)
            if call is None:
                call = state.calls[index] = {}
                state.chunks[f"/call/{index}"] = at
            elif reuse or index in state.reused:
                if index not in state.reused:
                    state.reused.add(index)
                    self.problem("order", f"tool call index {index} is reused by another call "
                                          f"({fragment.get('id')!r} after {call.get('id')!r}): its "
                                          "fragments merge into the first call, running the arguments "
                                          "together (parallel calls all sent at one index)", at)
            else:
                self.check_identity(state, index, call, fragment, at)
                if _is_int(fragment.get("index")):
                    self.check_repeat(state, index, call, fragment, at)
            for key, value in fragment.items():
                if key != "index":
                    _merge(call, key, value)
            fn = fragment.get("function")
            if isinstance(fn, dict) and fn.get("arguments") or isinstance(fragment.get("custom"), dict):
                state.last_arguments[index] = at
            state.last_call = index

    def reuses(self, state: _Choice, fragment: dict[str, Any]) -> bool:
        """Does this fragment open another call on an index a call already holds? It names another
        id, and the call there is whole (its arguments are JSON already) or it names another
        function; another id continuing unfinished arguments is the call changing its id."""
        index, new_id = fragment.get("index"), fragment.get("id")
        call = state.calls.get(index) if _is_int(index) else None
        if call is None or not isinstance(new_id, str) or not new_id or call.get("id") in (None, "", new_id):
            return False
        fn, known = fragment.get("function"), call.get("function")
        name = fn.get("name") if isinstance(fn, dict) else None
        known = known if isinstance(known, dict) else {}
        arguments = _joined(known.get("arguments"))
        whole = isinstance(arguments, str) and bool(arguments.strip()) \
            and parse_arguments(arguments)[1] is None
        return whole or (isinstance(name, str) and bool(name) and known.get("name") not in (None, "", name))

    def call_index(self, state: _Choice, fragment: dict[str, Any], at: int, reuse: bool = False) -> int:
        """The fragment's `index`, checked for gaps and interleaving (a reused index is not
        interleaving: the caller reports it); guessed when missing."""
        index = fragment.get("index")
        if not _is_int(index):
            # Mistral sends whole calls without `index`: an id places the fragment unambiguously.
            new_id = fragment.get("id")
            by_id = {c.get("id"): i for i, c in state.calls.items() if c.get("id")}
            if isinstance(new_id, str) and new_id:
                return by_id.get(new_id, max(state.calls, default=-1) + 1)
            self.problem("order", "a tool call fragment has neither an integer index nor an id: "
                                  + ("taken as a new call" if state.last_call is None
                                     else f"appended to call {state.last_call}"), at)
            return max(state.calls, default=-1) + 1 if state.last_call is None else state.last_call
        if index not in state.calls and state.calls and index != max(state.calls) + 1:
            self.problem("order", f"tool call index {index} follows index {max(state.calls)}: "
                                  "indices are not contiguous", at)
        elif index in state.calls and index != state.last_call and not reuse:
            self.problem("order", f"a fragment of tool call {index} arrived after tool call "
                                  f"{state.last_call} had started (interleaved fragments)", at)
        return index

    def check_identity(self, state: _Choice, index: int, call: dict[str, Any],
                       fragment: dict[str, Any], at: int) -> None:
        """A later fragment naming another id or function than the call's first one."""
        fn, known = fragment.get("function"), call.get("function")
        pairs = [("id", fragment.get("id"), call.get("id")),
                 ("name", fn.get("name") if isinstance(fn, dict) else None,
                  known.get("name") if isinstance(known, dict) else None)]
        for what, new, old in pairs:
            if new not in (None, "") and old not in (None, "") and new != old \
                    and (what, index) not in state.reported:
                state.reported.add((what, index))
                self.problem("identity", f"tool call {index} changes {what} from {old!r} to {new!r} "
                                         "(the first value is kept)", at)

    def check_repeat(self, state: _Choice, index: int, call: dict[str, Any],
                     fragment: dict[str, Any], at: int) -> None:
        """A later fragment repeating the call's id or function name unchanged (LiteLLM, Fireworks):
        noted at the first repeat; reported once per call when the choice is finished."""
        fn, known = fragment.get("function"), call.get("function")
        pairs = [("id", fragment.get("id"), call.get("id")),
                 ("name", fn.get("name") if isinstance(fn, dict) else None,
                  known.get("name") if isinstance(known, dict) else None)]
        same = {what for what, new, old in pairs if isinstance(new, str) and new and new == old}
        if same:
            first, seen = state.repeats.get(index, (at, set()))
            state.repeats[index] = (first, seen | same)

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def result(self, events: list[StreamEvent]) -> Assembled:
        choices = []
        for position, state in enumerate(sorted(self.choices.values(), key=lambda c: c.index)):
            choices.append(self.finish_choice(state, f"/choices/{position}"))
        complete = self.done or self.finished
        if not complete and self.error is None:
            self.problem("truncated", "the stream ends with no finish_reason and no [DONE]",
                         events[-1].index if events else None)
        if self.error is not None and not choices:
            return Assembled(body={"error": self.error}, chunks=self.chunks,
                             problems=tuple(self.problems), complete=complete)
        body = {k: self.envelope[k] for k in ("id", "object", "created", "model") if k in self.envelope}
        body["object"] = "chat.completion"
        body.update({k: v for k, v in self.envelope.items() if k not in body})
        body["choices"] = choices
        if self.usage is not None:
            body["usage"] = self.usage
        if self.error is not None:
            body["error"] = self.error
        return Assembled(body=body, chunks=self.chunks, problems=tuple(self.problems), complete=complete)

    def finish_choice(self, state: _Choice, at: str) -> dict[str, Any]:
        """The choice as a non-streamed body holds it; checks each assembled call."""
        message = _joined(state.message)
        self.chunks[at] = self.chunks[at + "/message"] = state.opened
        for pointer, index in state.chunks.items():
            if not pointer.startswith("/call/"):
                self.chunks[at + pointer] = index
        if state.calls:
            message["tool_calls"] = []
            for position, index in enumerate(sorted(state.calls)):
                call = _joined(state.calls[index])
                opened = state.chunks[f"/call/{index}"]
                self.chunks[f"{at}/message/tool_calls/{position}"] = opened
                if index in state.repeats:
                    self.report_repeat(index, call, *state.repeats[index])
                self.check_call(index, call, opened, state.last_arguments.get(index, opened),
                                merged=index in state.reused)
                message["tool_calls"].append(call)
        return {"index": state.index, "message": message, "finish_reason": state.finish_reason,
                **_joined(state.extras)}

    def report_repeat(self, index: int, call: dict[str, Any], chunk: int, what: set[str]) -> None:
        fn = call.get("function")
        named = {"id": call.get("id"), "name": fn.get("name") if isinstance(fn, dict) else None}
        shown = " and ".join(f"its {k} {named[k]!r}" for k in ("id", "name") if k in what)
        glue = str(named["id" if "id" in what else "name"])
        self.problem("order", f"tool call {index} repeats {shown} on a later fragment: assemblers that "
                              f"concatenate strings, as openai-python's does, glue them into "
                              f"{glue + glue!r}", chunk)

    def check_call(self, index: int, call: dict[str, Any], opened: int, last: int,
                   merged: bool = False) -> None:
        """A finished call has an id, a name and JSON arguments (a call merged with another one
        reusing its index is already reported: its arguments run together by that cause)."""
        if not call.get("id"):
            self.problem("identity", f"tool call {index} has no id", opened)
        if call.get("type", "function") != "function":
            return
        fn = call.get("function")
        if not isinstance(fn, dict) or not fn.get("name"):
            self.problem("identity", f"tool call {index} has no function name", opened)
        arguments = fn.get("arguments") if isinstance(fn, dict) else None
        # "" (an argument-less call never completed) is TD205's business, not a broken assembly.
        if isinstance(arguments, str) and arguments and not merged \
                and parse_arguments(arguments)[1] is not None:
            self.problem("arguments", f"tool call {index}: the assembled arguments are not valid JSON",
                         last)


_IDENTITY = frozenset({"id", "name", "type", "role", "index"})


class _Fragments:
    """A string still being streamed: its pieces, joined once at the end (linear, not quadratic)."""

    __slots__ = ("pieces",)

    def __init__(self, *pieces: str) -> None:
        self.pieces = list(pieces)


def _joined(value: Any) -> Any:
    """`value` with every `_Fragments` joined into its string."""
    if isinstance(value, _Fragments):
        return "".join(value.pieces)
    if isinstance(value, dict):
        return {k: _joined(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_joined(v) for v in value]
    return value


def _merge(acc: dict[str, Any], key: str, value: Any) -> None:
    """Fold one delta value into `acc[key]` (see `assemble_stream` for the rules)."""
    old = acc.get(key)
    if value is None:
        acc.setdefault(key, None)
    elif old is None or (old == "" and key in _IDENTITY):
        acc[key] = copy.deepcopy(value)
    elif key in _IDENTITY:
        return
    elif isinstance(old, _Fragments) and isinstance(value, str):
        old.pieces.append(value)
    elif isinstance(old, str) and isinstance(value, str):
        acc[key] = _Fragments(old, value)
    elif isinstance(old, dict) and isinstance(value, dict):
        for k, v in value.items():
            _merge(old, k, v)
    elif isinstance(old, list) and isinstance(value, list):
        for entry in value:
            index = entry.get("index") if isinstance(entry, dict) else None
            target = next((e for e in old if _is_int(index) and isinstance(e, dict)
                           and e.get("index") == index), None)
            if target is None:
                old.append(copy.deepcopy(entry))
            else:
                for k, v in entry.items():
                    _merge(target, k, v)
    else:
        acc[key] = copy.deepcopy(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------------------------- writing


def write(conversation: Conversation) -> Written:
    """The request body that replays `conversation`, and what it could not carry."""
    return _Writer(conversation).run()


@dataclass
class _Out:
    """A written message and where it came from; `calls` are the pairing keys of its tool calls,
    `answers` the key a tool/function message answers."""

    message: dict[str, Any]
    turn: int | None
    calls: list[tuple[str, int]] = field(default_factory=list)
    answers: str | None = None
    part: int | None = None


class _Writer(Writer):
    """Turns → messages (with where each came from), then the pairing rules, tools and params."""

    def __init__(self, conversation: Conversation) -> None:
        super().__init__(conversation)
        self.ids: dict[str, str] = {}  # call key → written id
        self.id_notes: dict[str, str] = {}
        self.legacy: set[str] = set()  # call keys written as a legacy `function_call`
        self.call_names: dict[str, str] = {}  # call key → written tool name
        self.called: dict[str, str] = {}  # call key → the call's own (canonical) name

    def run(self) -> Written:
        self.plan_calls()
        body: dict[str, Any] = {}
        if self.conv.model is not None:
            body["model"] = self.conv.model
        else:
            self.lose("no model: the request needs one")
        outs = self.system_messages()
        for t, turn in enumerate(self.conv.turns):
            outs.extend(self.turn(t, turn))
        body["messages"] = self.pair(outs)
        self.tools(body)
        params = own_meta(NAME, self.conv.meta)
        params.pop("tool_choice", None)
        body.update({k: v for k, v in params.items() if k not in body})
        report_foreign(NAME, self.conv.meta, self.losses, what="request parameters")
        return Written(body=body, losses=tuple(sorted(
            self.losses, key=lambda x: (-1 if x.turn is None else x.turn, -1 if x.part is None else x.part))))

    # ---- ids and names

    def plan_calls(self) -> None:
        """Decide every call's written id first, so results can name it wherever they are."""
        pending: list[tuple[str, Invocation]] = []
        used: set[str] = set()
        for t, turn in enumerate(self.conv.turns):
            calls = [(p, x) for p, x in enumerate(turn.parts) if isinstance(x, Invocation)]
            for p, call in calls:
                key = _key(call, t, p)
                self.call_names[key] = safe_tool_name(call.name)
                self.called[key] = call.name
                legacy = own_meta(NAME, call.meta).get("function_call")
                if legacy and len(calls) == 1 and call.wire_id is None:
                    self.legacy.add(key)
                elif call.wire_id is not None and _CALL_ID.fullmatch(call.wire_id):
                    self.ids[key] = call.wire_id
                    used.add(call.wire_id)
                else:
                    pending.append((key, call))
        for key, call in pending:
            new = unique_id("call_" + (re.sub(r"[^A-Za-z0-9_-]", "", key) or "0"), used, limit=40)
            self.ids[key] = new
            self.id_notes[key] = (f"call {call.id or key} has no id; wrote {new!r}" if call.wire_id is None
                                  else f"call id {call.wire_id!r} is not valid here (1-40 printable "
                                       f"characters); wrote {new!r}")

    def name(self, name: str, turn: int | None, part: int | None) -> str:
        safe = safe_tool_name(name)
        if safe != name:
            self.lose(f"tool name {name!r} is not valid here (letters, digits, _ and -, up to 64); "
                      f"wrote {safe!r}", turn, part)
        return safe

    # ---- messages

    def system_messages(self) -> list[_Out]:
        """Leading system parts, one message per run of parts that came from one message."""
        outs: list[_Out] = []
        group: list[tuple[int, Part]] = []
        for p, part in enumerate(self.conv.system):
            message = own_meta(NAME, part.meta).get("message")
            if group and own_meta(NAME, group[-1][1].meta).get("message") != message:
                outs.append(self.system_message(group))
                group = []
            group.append((p, part))
        if group:
            outs.append(self.system_message(group))
        return outs

    def system_message(self, group: list[tuple[int, Part]]) -> _Out:
        message = own_meta(NAME, group[0][1].meta).get("message")
        extras = dict(message) if isinstance(message, Mapping) else {}
        items = []
        for p, part in group:
            report_foreign(NAME, part.meta, self.losses, None, p)
            item = self.text_item(part, None, p, "a system message", drop=("message",))
            if item is not None:
                items.append(item)
        role = extras.pop("role", "system")
        return _Out({**extras, "role": role, "content": _text_content(items)}, None)

    def turn(self, t: int, turn: Turn) -> list[_Out]:
        """One canonical turn → its messages; each Result becomes its own tool message."""
        report_foreign(NAME, turn.meta, self.losses, t)
        outs: list[_Out] = []
        run: list[tuple[int, Part]] = []
        for p, part in enumerate(turn.parts):
            if isinstance(part, Result):
                if run:
                    outs.append(self.message(t, turn, run))
                    run = []
                outs.append(self.tool_message(t, p, part))
            else:
                run.append((p, part))
        if run:
            outs.append(self.message(t, turn, run))
        elif not outs and turn.role == "tool":
            self.lose("an empty tool turn has no message", t)
        elif not outs:
            outs.append(self.message(t, turn, run))
        return outs

    def message(self, t: int, turn: Turn, parts: list[tuple[int, Part]]) -> _Out:
        extras = own_meta(NAME, turn.meta)
        if turn.role == "assistant":
            return self.assistant(t, parts, extras)
        for p, part in parts:
            report_foreign(NAME, part.meta, self.losses, t, p)
        if turn.role == "system":
            items = [self.text_item(part, t, p, "a system message") for p, part in parts]
            role = extras.pop("role", "system")
            return _Out({**extras, "role": role,
                         "content": _text_content([i for i in items if i is not None])}, t)
        if turn.role == "tool":
            self.lose("tool turn content that is not a result written as a user message", t, parts[0][0])
        items = [self.user_item(part, t, p) for p, part in parts]
        return _Out({**extras, "role": "user",
                     "content": _text_content([i for i in items if i is not None])}, t)

    def text_item(self, part: Part, t: int | None, p: int, where: str,
                  drop: tuple[str, ...] = ()) -> dict[str, Any] | None:
        """A Text (or Opaque of this format) as a content-array entry; anything else is lost."""
        if isinstance(part, Text):
            own = {k: v for k, v in own_meta(NAME, part.meta).items() if k not in drop}
            if own.get("field") == "refusal" or own.get("type") == "refusal":
                own.pop("field", None)
                return {**own, "type": "refusal", "refusal": part.text}
            return {**own, "type": "text", "text": part.text}
        if own_opaque(NAME, part) and own_meta(NAME, part.meta).get("field") is None:
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

    def assistant(self, t: int, parts: list[tuple[int, Part]], extras: dict[str, Any]) -> _Out:
        """Reasoning, content and calls go to separate fields: their relative order is fixed."""
        out = _Out({**extras, "role": "assistant"}, t)
        reasoning: list[tuple[int, Reasoning]] = []
        content: list[dict[str, Any]] = []
        refusals: list[str] = []
        calls: list[dict[str, Any]] = []
        slot = 0
        for p, part in parts:
            report_foreign(NAME, part.meta, self.losses, t, p)
            if isinstance(part, Reasoning) and part.origin == NAME:
                reasoning.append((p, part))
                here = 0
            elif isinstance(part, Reasoning):
                self.lose(f"reasoning from {part.origin or 'an unknown origin'} cannot be replayed "
                          "here; dropped", t, p)
                continue
            elif isinstance(part, Text) and own_meta(NAME, part.meta).get("field") == "refusal":
                refusals.append(part.text)
                here = 2
            elif isinstance(part, Invocation) or (own_opaque(NAME, part)
                                                  and own_meta(NAME, part.meta).get("field") == "tool_calls"):
                entry = self.call(out, part, t, p)
                if entry is not None:
                    calls.append(entry)
                here = 3
            else:
                item = self.text_item(part, t, p, "an assistant message")
                if item is None:
                    continue
                content.append(item)
                here = 1
            if here < slot:
                self.lose("moved: Chat Completions keeps reasoning, then content, then tool calls", t, p)
            slot = max(slot, here)
        if reasoning:
            self.write_reasoning(out.message, reasoning, t)
        written = _text_content(content)
        out.message["content"] = None if written == "" and (out.calls or refusals) else written
        if refusals:
            out.message["refusal"] = "".join(refusals)
            if len(refusals) > 1:
                self.lose("several refusals joined into one", t)
        if calls:
            out.message["tool_calls"] = calls
        return out

    def write_reasoning(self, message: dict[str, Any], reasoning: list[tuple[int, Reasoning]],
                        t: int) -> None:
        openrouter = own_meta(NAME, reasoning[0][1].meta).get("field") == "reasoning"
        field_name = "reasoning" if openrouter else "reasoning_content"
        message[field_name] = "".join(r.text for _, r in reasoning)
        if len(reasoning) > 1:
            self.lose(f"several reasoning parts joined into one {field_name}", t, reasoning[1][0])
        for p, r in reasoning:
            kept = [name for name, value in (("signature", r.signature), ("summary", r.summary),
                                             ("redacted reasoning", r.redacted), ("id", r.wire_id))
                    if value]
            if kept:
                self.lose(f"reasoning {', '.join(kept)} not carried by {field_name}", t, p)

    def call(self, out: _Out, part: Part, t: int, p: int) -> dict[str, Any] | None:
        """One `tool_calls` entry (None for a legacy `function_call`), recorded for pairing."""
        if isinstance(part, Opaque):
            call_id = part.value.get("id")
            out.calls.append((call_id if isinstance(call_id, str) else f"@{t}.{p}", p))
            return part.value
        assert isinstance(part, Invocation)
        key = _key(part, t, p)
        own = own_meta(NAME, part.meta)
        custom = own.pop("type", None) == "custom"
        legacy = own.pop("function_call", False)
        name = self.name(part.name, t, p)
        if part.raw_arguments is not None:
            arguments = part.raw_arguments
        elif custom and isinstance(part.arguments, str):
            arguments = part.arguments
        else:
            arguments = dumps_str(part.arguments)
        if key in self.legacy:
            out.message["function_call"] = {"name": name, "arguments": arguments}
            out.calls.append(("legacy:" + key, p))
            return None
        if legacy:
            self.lose("a legacy function_call written as a tool call", t, p)
        if key in self.id_notes:
            self.lose(self.id_notes[key], t, p)
        out.calls.append((self.ids[key], p))
        if custom:
            return {**own, "id": self.ids[key], "type": "custom",
                    "custom": {"name": name, "input": arguments}}
        return {**own, "id": self.ids[key], "type": "function",
                "function": {"name": name, "arguments": arguments}}

    def tool_message(self, t: int, p: int, result: Result) -> _Out:
        """A Result → a `tool` message (a `function` message answering a legacy call)."""
        report_foreign(NAME, result.meta, self.losses, t, p)
        own = own_meta(NAME, result.meta)
        legacy_meta = own.pop("role", None) == "function"
        named = own.pop("name", None) is True
        key = result.invocation_id
        content = self.result_content(result, t, p)
        if key in self.legacy:
            name = self.call_names[key]
            if result.name is not None and result.name != name:
                self.lose(f"result name {result.name!r} written as its call's {name!r}", t, p)
            return _Out({**own, "role": "function", "name": name, "content": content}, t,
                        answers="legacy:" + key, part=p)
        if legacy_meta:
            self.lose("a legacy function message written as a tool message", t, p)
        call_id = self.ids.get(key) if key is not None else None
        call_id = call_id if call_id is not None else result.wire_id or ""
        if call_id and call_id != result.wire_id:
            self.lose(f"result bound by the written call id {call_id!r}", t, p)
        message = {**own, "role": "tool", "tool_call_id": call_id}
        if named and result.name is not None:
            message["name"] = result.name  # the wire had one: it carries the result's name as is
        else:
            self.result_name(result, key, t, p)
        return _Out({**message, "content": content}, t, answers=call_id, part=p)

    def result_name(self, result: Result, key: str | None, t: int, p: int) -> None:
        """A tool message without `name` reads back with its call's written name (None unbound):
        report a name that differs from its call's, or one that changes with its call's."""
        if result.name is None:
            return
        called = self.called.get(key) if key is not None else None
        written = self.call_names.get(key) if key is not None else None
        if called is None:
            self.lose(f"the result's tool name {result.name!r} is not carried (tool messages bind by id)",
                      t, p)
        elif result.name != called:
            self.lose(f"the result's tool name {result.name!r} differs from its call's {called!r} and "
                      "is not carried (tool messages bind by id)", t, p)
        elif written != called:
            self.lose(f"the result's tool name {result.name!r} reads back as its call's written name "
                      f"{written!r}", t, p)

    def result_content(self, result: Result, t: int, p: int) -> str | list[dict[str, Any]]:
        """Result content as text: structured values become JSON text, media is dropped."""
        items: list[dict[str, Any]] = []
        for part in result.content:
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

    def pair(self, outs: list[_Out]) -> list[dict[str, Any]]:
        """Enforce the 400 rules: every tool message answers a call of the assistant message right
        before its run, and every call is answered in that run (a history may end on calls)."""
        kept: list[_Out] = []
        owner: _Out | None = None
        answered: set[str] = set()
        for out in outs:
            if out.answers is not None:
                if owner is not None and any(out.answers == k for k, _ in owner.calls):
                    answered.add(out.answers)
                    kept.append(out)
                else:
                    self.lose("this result answers no call of the assistant message right before it "
                              "(Chat Completions rejects it); dropped", out.turn, out.part)
                continue
            if owner is not None:
                self.unanswered(owner, answered, at_end=False)
            owner, answered = (out, set()) if out.calls else (None, set())
            kept.append(out)
        if owner is not None:
            self.unanswered(owner, answered, at_end=kept[-1] is owner)
        return [out.message for out in kept]

    def unanswered(self, owner: _Out, answered: set[str], *, at_end: bool) -> None:
        missing = [(k, p) for k, p in owner.calls if k not in answered]
        if at_end:
            for _, p in missing:
                self.lose("the conversation ends on this call with no result: a history, which "
                          "Chat Completions rejects as a request until a tool message answers it",
                          owner.turn, p)
            return
        for _, p in missing:
            self.lose("this call has no result right after it (Chat Completions rejects that); "
                      "dropped", owner.turn, p)
        if not missing:
            return
        message = owner.message
        if any(k.startswith("legacy:") for k, _ in missing):
            del message["function_call"]
        gone = {k for k, _ in missing}
        entries = [k for k, _ in owner.calls if not k.startswith("legacy:")]
        calls = [c for c, k in zip(message.get("tool_calls", []), entries, strict=True) if k not in gone]
        message.pop("tool_calls", None)
        if calls:
            message["tool_calls"] = calls
        elif message.get("content") is None and "function_call" not in message:
            message["content"] = ""

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
            if tool.raw is not None or tool.kind != "function":
                self.lose(f"tool {tool.name!r} ({tool.origin or '?'} {tool.kind}) cannot be declared "
                          "in Chat Completions; dropped")
                continue
            own = own_meta(NAME, tool.meta)
            if own.pop("functions", None) and not functions:
                self.lose(f"legacy function {tool.name!r} declared in tools[] beside modern tools")
            outer = own.pop("tool", None)
            outer = outer if isinstance(outer, Mapping) else {}
            fn: dict[str, Any] = {"name": self.name(tool.name, None, None)}
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
                self.lose("tool choice dropped: there are no tools to choose from")
            return
        if verbatim is not None and _choice(verbatim) == (replace(choice, parallel=None) if choice else None):
            value: Any = verbatim
        elif choice is None:
            return
        elif choice.mode in ("auto", "none", "required") and not (functions and choice.mode == "required"):
            value = choice.mode
        elif choice.mode == "tool" and choice.name in kinds:
            kind = kinds[choice.name]
            name = safe_tool_name(choice.name)
            value = {"name": name} if functions else {"type": kind, kind: {"name": name}}
        else:
            self.lose(f"tool choice {choice.mode} {choice.name or ''}".rstrip()
                      + " cannot be written; dropped")
            return
        body["function_call" if functions else "tool_choice"] = value
        if choice.parallel is not None:
            if functions:
                self.lose("parallel_tool_calls needs tools[], not legacy functions; dropped")
            else:
                body["parallel_tool_calls"] = choice.parallel


def _key(call: Invocation, turn: int, part: int) -> str:
    """A call's own id, or its position when it has none."""
    return call.id or f"@{turn}.{part}"


def _text_content(items: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """One plain text → a string; none → ""; otherwise the content array."""
    if not items:
        return ""
    if len(items) == 1 and set(items[0]) == {"type", "text"} and items[0]["type"] == "text" \
            and items[0]["text"]:
        return items[0]["text"]
    return items


def _describe(part: Part) -> str:
    if isinstance(part, Media):
        return f"{part.kind} ({part.media_type or part.url or part.file_id or 'media'})"
    if isinstance(part, Opaque):
        return f"an opaque {part.origin} block"
    return f"a {part.type} part"
