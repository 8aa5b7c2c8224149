"""Reading Chat Completions bodies: a request → system, tools, tool choice and linked turns;
a completion → the assistant turn of its first choice; an error body → `ApiError`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from ...constructors import new_invocation, new_result, new_text, new_turn
from ...errors import FormatError
from ...model import (
    NO_META,
    Invocation,
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
from ...shorten import quote
from ...source import Source
from ..base import Request, Response
from ..foreign import foreign_part
from ..meta import meta_for, starting_message, unmodeled, with_meta
from ..reading import (
    ReadLinker,
    ReadOnce,
    expect_dict,
    expect_list,
    listed_from,
    media_kind,
    optional_field,
    optional_list,
    parse_arguments,
    required_field,
    split_data_url,
    split_results,
    type_name,
)
from ..settings import read_settings, without
from .common import FACTS, NAME, _api_error, _audio_type, _choice
from .reasoning import FIELD, mirrored, read_details, visible

# Top-level request keys the reader models; every other key is a parameter kept in meta.
_MODELED_PARAMS = frozenset({"model", "messages", "tools", "functions", "tool_choice",
                             "function_call", "parallel_tool_calls"})


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


# ---------------------------------------------------------------------------------- reading


def read_request(body: Any, source: Source, *, start: int = 0, prior: tuple[Turn, ...] = ()) -> Request:
    """A request body → system, tools, tool choice and linked turns (`start`, `prior`: see
    `base.Format.read_request`)."""
    body = expect_dict(body, source, "a Chat Completions request")
    at = source.child("messages")
    linker = ReadLinker(prior)  # (each message's calls and results linked as they are read)
    system, turns = _read_messages(expect_list(body.get("messages"), at, "messages"), at, start,
                                   prior, linker)
    settings, taken = read_settings(body, FACTS.settings)
    params = without(unmodeled(body, _MODELED_PARAMS, defaults={"stream": False}), taken)
    choice, verbatim = _read_tool_choice(body, source)
    if verbatim is not None:
        params["tool_choice"] = verbatim
    if "tool_choice" in body and body.get("function_call") is not None:
        params["function_call"] = body["function_call"]  # the modern choice wins; keep the other
    tools = _TOOLS((body.get("tools"), body.get("functions")), source)
    return Request(turns=linker.linked(prior, turns), system=tuple(system), tools=tools, tool_choice=choice,
                   model=optional_field(body, "model", str, source), stream=body.get("stream") is True,
                   meta=meta_for(NAME, params), settings=settings)


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
        message_at = at.child("message")
        message = expect_dict(choice.get("message"), message_at, "a choice message")
        linker = ReadLinker()
        turn = linker.linked((), (_assistant_turn(message, message_at, linker),))[0]
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


def _read_messages(messages: list[Any], src: Source, start: int, prior: tuple[Turn, ...],
                   linker: ReadLinker) -> tuple[list[Part], list[Turn]]:
    """Leading system/developer messages → system parts; the rest → turns, consecutive tool
    (and legacy function) messages merged into one `tool` turn (from `start`, after `prior`), their
    calls and results linked by `linker` as they are read."""
    system: list[Part] = []
    turns: list[Turn] = []
    results: list[Part] = []  # the results of the run of tool messages being read (one turn)
    results_at = src
    child, bind, end_turn = Source.child, linker.bind, linker.end_turn
    for i, message in listed_from(messages, start):
        at = child(src, i)
        if type(message) is not dict:
            expect_dict(message, at, "a message")
        role = message.get("role")
        if role == "tool" or role == "function":
            content, wire_id = message.get("content"), message.get("tool_call_id")
            if type(content) is str and type(wire_id) is str and len(message) == 3 and role == "tool":
                # the usual tool message (role, tool_call_id and a string content: no other key), as
                # `_result` reads it, without its lookups
                bound, name = bind(wire_id)
                text = (new_text(text=content, source=child(at, "content")),) if content else ()
                result = new_result(invocation_id=bound, name=name, wire_id=wire_id, content=text, source=at)
            else:
                result = _result(message, at, role == "function", linker)
            if results:
                results.append(result)
            elif turns and turns[-1].role == "tool":  # (results a user message held just before)
                turns[-1] = replace(turns[-1], parts=(*turns[-1].parts, result))
            else:
                results, results_at = [result], at
            continue
        if results:
            turns.append(new_turn(role="tool", parts=tuple(results), source=results_at))
            results = []
        if role == "assistant":
            content, calls = message.get("content"), message.get("tool_calls")
            if type(content) is str and type(calls) is list and len(message) == 3:
                # the usual message (role, a string content and calls: no other key), as
                # `_assistant_turn` reads it, without its lookups
                parts: list[Part] = [new_text(text=content, source=child(at, "content"))] if content else []
                _tool_calls(calls, at, parts, linker)
                end_turn()
                turns.append(new_turn(role="assistant", parts=tuple(parts), source=at))
            else:
                turns.append(_assistant_turn(message, at, linker))
        elif role == "user":
            meta = meta_for(NAME, _extras(message, _ROLE_CONTENT))
            parts = _content(message.get("content"), at.child("content"), role, linker)
            # Anthropic `tool_result` blocks forwarded unconverted (see `foreign`) are results
            turns.extend(t if t.role == "tool" or not meta else replace(t, meta=meta)
                         for t in split_results(role, parts, at))
        elif role == "system" or role == "developer":
            parts = _content(message.get("content"), at.child("content"), role, linker)
            extras = _extras(message, _ROLE_CONTENT)
            if role == "developer":
                extras["role"] = "developer"
            if turns or prior:
                turns.append(Turn(role="system", parts=tuple(parts), meta=meta_for(NAME, extras), source=at))
            else:
                if not parts and message.get("content") == "":  # (an empty message is one all the same)
                    parts = [new_text(text="", source=at.child("content"))]
                if system:  # (a message after the first: where it starts, for the writer)
                    parts = starting_message(NAME, parts)
                system.extend(with_meta(NAME, p, {"message": extras}) if extras else p for p in parts)
        else:
            raise FormatError(f"unknown message role {quote(role)}", at.child("role").pointer)
    if results:
        turns.append(new_turn(role="tool", parts=tuple(results), source=results_at))
    return system, turns


#: The keys of a user or system message the reader models.
_ROLE_CONTENT = ("role", "content")
#: The keys of the usual assistant message: content and calls, nothing else to look up or keep.
_PLAIN_ASSISTANT = frozenset({"role", "content", "tool_calls"})


def _assistant_turn(message: dict[str, Any], at: Source, linker: ReadLinker) -> Turn:
    """Reasoning, then content (text and refusal parts), the `refusal` field, then the calls (the
    message's turn ends `linker`'s)."""
    if message.keys() <= _PLAIN_ASSISTANT:  # the usual message: no reasoning, refusal nor extras
        content, calls = message.get("content"), message.get("tool_calls")
        parts = _content(content, at.child("content"), "assistant", linker) if content is not None else []
        if calls is not None:
            _tool_calls(calls, at, parts, linker)
        linker.end_turn()
        return new_turn(role="assistant", parts=tuple(parts), source=at)
    parts = []
    modeled = {"role", "content", "refusal", "tool_calls", "function_call"}
    details = message.get(FIELD)
    blocks = read_details(details, at.child(FIELD)) if isinstance(details, list) else []
    if isinstance(details, list):
        modeled.add(FIELD)
    for key in ("reasoning_content", "reasoning"):
        text = message.get(key)
        if isinstance(text, str):  # a non-string `reasoning` stays in meta, verbatim
            modeled.add(key)
            if key == "reasoning" and blocks and text == visible(blocks):
                blocks = mirrored(blocks)  # OpenRouter's string repeats the blocks' text
            elif text:
                kept = {"field": key} if key != "reasoning_content" else {}
                parts.append(Reasoning(text=text, origin=NAME, source=at.child(key),
                                       meta=meta_for(NAME, kept)))
    parts.extend(blocks)
    parts.extend(_content(message.get("content"), at.child("content"), "assistant", linker))
    refusal = optional_field(message, "refusal", str, at)
    if refusal:
        parts.append(Text(text=refusal, meta=meta_for(NAME, {"field": "refusal"}),
                          source=at.child("refusal")))
    calls = message.get("tool_calls")
    if calls is not None:
        _tool_calls(calls, at, parts, linker)
    legacy = message.get("function_call")
    if legacy is not None:
        parts.append(_function_call(expect_dict(legacy, at.child("function_call"), "function_call"),
                                    at.child("function_call"), {"function_call": True}, linker))
    linker.end_turn()
    return Turn(role="assistant", parts=tuple(parts), meta=meta_for(NAME, _extras(message, modeled)),
                source=at)


def _tool_calls(calls: Any, message_at: Source, parts: list[Part], linker: ReadLinker) -> None:
    """A message's `tool_calls`, added to `parts` (and to `linker`'s calls): the usual call read
    here, any other by `_tool_call`."""
    if type(calls) is not list:
        expect_list(calls, message_at.child("tool_calls"), "tool_calls")
    child = Source.child
    next_id, called = linker.next_id, linker.calls
    for k, call in enumerate(calls):
        at = child(message_at, "tool_calls", k)
        # the usual call (`index`, `custom` or any other key takes the long way), as `_tool_call`
        # reads it, without the lookups that find nothing to keep or report (Mistral omits `type`);
        # no key but `function`, `id` and `type` (counted: a view of the keys compared with a set
        # cost three times as much)
        if type(call) is dict and type(fn := call.get("function")) is dict \
                and len(call) == 1 + ("id" in call) + ("type" in call) \
                and (call.get("type") or "function") == "function" and type(name := fn.get("name")) is str \
                and ((wire_id := call.get("id")) is None or type(wire_id) is str):
            arguments, raw = parse_arguments(fn.get("arguments"))
            made = new_invocation(id=next_id(), name=name, arguments=arguments, raw_arguments=raw,
                               wire_id=wire_id, source=at)
            parts.append(made)
            called.append(made)
        else:
            parts.append(_tool_call(call, at, linker))



def _tool_call(call: Any, at: Source, linker: ReadLinker) -> Part:
    """A `function` or `custom` tool call; any other type stays verbatim as Opaque."""
    if type(call) is not dict:
        expect_dict(call, at, "a tool call")
    kind = call.get("type") or "function"  # Mistral omits `type`
    # `index` is a stream artifact DeepSeek leaves in non-streamed bodies: not worth replaying.
    extras = _extras(call, ("id", "type", "function", "custom", "index"))
    wire_id = optional_field(call, "id", str, at)
    if kind == "function":
        fn_at = at.child("function")
        fn = expect_dict(call.get("function"), fn_at, "a tool call's function")
        return _function_call(fn, fn_at, extras, linker, wire_id=wire_id, source=at)
    if kind == "custom":
        custom = expect_dict(call.get("custom"), at.child("custom"), "a custom tool call")
        made = Invocation(id=linker.next_id(),
                          name=optional_field(custom, "name", str, at.child("custom")) or "",
                          arguments=optional_field(custom, "input", str, at.child("custom")),
                          wire_id=wire_id, meta=meta_for(NAME, {"type": "custom", **extras}), source=at)
        linker.calls.append(made)
        return made
    return Opaque(origin=NAME, value=call, meta=meta_for(NAME, {"field": "tool_calls"}), source=at)


def _function_call(fn: dict[str, Any], at: Source, meta: dict[str, Any], linker: ReadLinker, *,
                   wire_id: str | None = None, source: Source | None = None) -> Invocation:
    """`{name, arguments}`: arguments parsed from their JSON string (kept raw when invalid); the
    call's `source` is `at` unless the object holding `fn` is given."""
    arguments, raw = parse_arguments(fn.get("arguments"))
    made = Invocation(id=linker.next_id(), name=optional_field(fn, "name", str, at) or "",
                      arguments=arguments, raw_arguments=raw, wire_id=wire_id, meta=meta_for(NAME, meta),
                      source=source if source is not None else at)
    linker.calls.append(made)
    return made


#: The keys of the usual tool message: nothing else to look up or keep.
_PLAIN_RESULT = frozenset({"role", "tool_call_id", "content"})


def _result(message: dict[str, Any], at: Source, legacy: bool, linker: ReadLinker) -> Result:
    """A tool (or legacy `function`) message, bound to the call it answers."""
    wire_id = message.get("tool_call_id")
    if not legacy and message.keys() <= _PLAIN_RESULT and (wire_id is None or type(wire_id) is str):
        content = message.get("content")
        bound, name = linker.bind(wire_id)  # (before the content: see the loop's usual message)
        parts = _content(content, at.child("content"), "tool", linker) if content is not None else ()
        return new_result(invocation_id=bound, name=name, wire_id=wire_id, content=tuple(parts), source=at)
    extras = _extras(message, ("role", "tool_call_id", "content", "name"))
    if legacy:
        extras["role"] = "function"
    elif message.get("name") is not None:
        extras["name"] = True  # a dialect's optional tool-message `name`: written back as it came
    wire_id = optional_field(message, "tool_call_id", str, at)
    name = optional_field(message, "name", str, at)
    content = tuple(_content(message.get("content"), at.child("content"), "tool", linker))
    bound, name = linker.bind(wire_id, name)
    return new_result(wire_id=wire_id, invocation_id=bound, name=name, content=content,
                   meta=meta_for(NAME, extras), source=at)


def _content(content: Any, at: Source, role: str, linker: ReadLinker) -> list[Part]:
    """String content → one Text (none when empty); an array → one part per entry."""
    if content is None:
        return []
    if isinstance(content, str):
        return [new_text(text=content, source=at)] if content else []
    items = expect_list(content, at, "content")
    return [_content_part(item, at.child(k), role, linker) for k, item in enumerate(items)]


def _content_part(item: Any, at: Source, role: str, linker: ReadLinker) -> Part:
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
    # a part of a type Chat Completions does not define: another format's, read for what it means
    # (a forwarded call or result linked as its message's own would be)
    part = foreign_part(item, at, role)
    if type(part) is Invocation:
        part = replace(part, id=linker.next_id())
        linker.calls.append(part)
    elif type(part) is Result:
        bound, name = linker.bind(part.wire_id)
        part = replace(part, invocation_id=bound, name=name)
    return part or Opaque(origin=NAME, value=item, source=at)


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


def _read_tools(declared: tuple[Any, Any], src: Source) -> tuple[Tool, ...]:
    """`declared`: the request's `tools[]` (function, custom, anything else verbatim) and legacy
    `functions[]`."""
    listed, functions = declared
    tools: list[Tool] = []
    for k, tool in enumerate(optional_list(listed, src.child("tools"), "tools")):
        at = src.child("tools", k)
        tool = expect_dict(tool, at, "a tool")
        kind = tool.get("type") or "function"
        if not isinstance(kind, str):
            raise FormatError(f"a tool type must be a string, not {type_name(kind)}",
                              at.child("type").pointer)
        if kind == "function":
            fn_at = at.child("function")
            fn = expect_dict(tool.get("function"), fn_at, "a tool's function")
            # (no key but `type` and `function`, counted: nothing to keep, as the usual tool)
            outer = _extras(tool, ("type", "function")) if len(tool) != 1 + ("type" in tool) else None
            tools.append(_function_tool(fn, fn_at, {"tool": outer} if outer else None))
            continue
        inner = tool.get(kind)
        name = inner.get("name") if isinstance(inner, dict) else None
        description = inner.get("description") if isinstance(inner, dict) else None
        tools.append(Tool(name=name if isinstance(name, str) else kind,
                          description=description if isinstance(description, str) else None,
                          kind=kind, origin=NAME, raw=tool, source=at))
    if functions is not None:  # (the usual request declares none)
        for k, fn in enumerate(expect_list(functions, src.child("functions"), "functions")):
            at = src.child("functions", k)
            tools.append(_function_tool(expect_dict(fn, at, "a function"), at, {"functions": True}))
    return tuple(tools)


#: The tools of a request, read once while the requests declare the same ones.
_TOOLS = ReadOnce(_read_tools)


def _function_tool(fn: dict[str, Any], at: Source, meta: dict[str, Any] | None) -> Tool:
    """A function declared by `fn` (`meta`: what its declaration keeps besides `fn`'s own extras)."""
    name = required_field(fn, "name", str, at)
    description = optional_field(fn, "description", str, at)
    parameters = optional_field(fn, "parameters", dict, at)
    # (no key but the three read, counted: the usual function has nothing to keep)
    if len(fn) != 1 + ("description" in fn) + ("parameters" in fn):
        meta = {**(meta or {}), **_extras(fn, ("name", "description", "parameters"))}
    return Tool(name=name, description=description, parameters=parameters, source=at,
                meta=meta_for(NAME, meta) if meta else NO_META)


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
    if parallel is None:
        return choice, verbatim
    # (made with `parallel` rather than made and then replaced: `dataclasses.replace` was two thirds
    # of reading the tool choice)
    return (ToolChoice(parallel=parallel) if choice is None else replace(choice, parallel=parallel)), verbatim


# ------------------------------------------------------------------------------ read helpers


#: Keys a reader does not model, kept verbatim (nulls and empty containers are defaults).
_extras = partial(unmodeled, empty=True)
