"""The OpenTelemetry GenAI semantic conventions (open-telemetry/semantic-conventions `docs/gen-ai/`):
a span's messages, in each of the forms instrumentations write them.

* Current: `gen_ai.input.messages`, `gen_ai.output.messages` and `gen_ai.system_instructions`
  (`gen-ai-input-messages.json`, `gen-ai-output-messages.json`: a list of `{role, parts}`, parts
  `{type: text, content}`, `{type: tool_call, id, name, arguments}`, `{type: tool_call_response, id,
  response}`, `reasoning`, `blob`, `uri`, `file`; output messages add `finish_reason`), as a JSON
  string on spans (most SDKs) or as values; `gen_ai.tool.definitions` the tools.
* Older events (`gen-ai-events.md`, up to 1.36): `gen_ai.system.message`, `gen_ai.user.message`,
  `gen_ai.assistant.message {content, tool_calls: [{id, type, function: {name, arguments}}]}`,
  `gen_ai.tool.message {content, id}` and `gen_ai.choice {index, finish_reason, message}`, as span
  events or as log records naming the span.
* Flattened keys (OpenLLMetry / Traceloop): `gen_ai.prompt.N.role` / `.content` / `.tool_call_id` /
  `.tool_calls.M.id|name|arguments`, and `gen_ai.completion.N.*` the same with `finish_reason`.

Neither form carries a failure flag on a tool result: a failed tool span marks it (`logs.otlp`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..formats.base import Request, Response
from ..formats.reading import link, parse_arguments, split_data_url
from ..model import Invocation, Json, Media, Opaque, Part, Reasoning, Result, Side, Source, Text, Tool, Turn
from ..records.containers import Exchange, Message, Preread
from .base import decoded, listed, mapping, schema, text
from .spans import ORIGIN, Span, error_response

#: The legacy event names, by role.
_EVENTS = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
           "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}


@dataclass(slots=True)
class Chat:
    """One message in the chat shape several conventions share (role, text, calls, the call a tool
    message answers), with where each piece is."""

    role: str
    at: Source
    content: Any = None
    calls: list[tuple[Any, Any, Any, Source]] = field(default_factory=list)  # (id, name, arguments, where)
    answers: Any = None  # the call id a tool message answers
    finish: str | None = None


def exchange(path: str, span: Span, index: int) -> Exchange | None:
    """A span's LLM call, read from whichever form its messages take (None: the span holds none)."""
    for form in (_current, _events, _flattened):
        made = form(path, span, index)
        if made is not None:
            return made
    return None


def located(path: str, index: int, side: Side, location: str) -> Source:
    return Source(file=path, exchange=index, side=side, location=location)


# ----------------------------------------------------------------------------- the current form


def _current(path: str, span: Span, index: int) -> Exchange | None:
    inputs = decoded(span.get("gen_ai.input.messages"))
    outputs = decoded(span.get("gen_ai.output.messages"))
    if not isinstance(inputs, list) and not isinstance(outputs, list):
        return None
    exchange = Exchange(index)
    request = response = None
    system: list[Part] = []
    instructions = decoded(span.get("gen_ai.system_instructions"))
    if isinstance(instructions, list):
        at = located(path, index, "request", span.location + span.where("gen_ai.system_instructions"))
        system.extend(_part(p, at.child(i)) for i, p in enumerate(instructions))
    if isinstance(inputs, list):
        where = span.location + span.where("gen_ai.input.messages")
        exchange.request = Message(location=where, body=inputs)
        at = located(path, index, "request", where)
        turns: list[Turn] = []
        for i, message in enumerate(inputs):
            role, parts = _message(message, at.child(i))
            if role == "system" and not turns:
                system.extend(parts)
            else:
                turns.extend(_split(role, parts, at.child(i)))
        request = Request(turns=link(turns), system=tuple(system), tools=_tools(span, path, index),
                          model=_model(span))
    responses: tuple[Response, ...] = ()
    if isinstance(outputs, list) and outputs:
        where = span.location + span.where("gen_ai.output.messages")
        exchange.response = Message(location=where, body=outputs)
        at = located(path, index, "response", where)
        answer = [p for i, m in enumerate(outputs) for p in _message(m, at.child(i))[1]]
        finish = outputs[-1].get("finish_reason") if isinstance(outputs[-1], dict) else None
        response = Response(turn=link((Turn(role="assistant", parts=tuple(answer), source=at),))[0],
                            finish_reason=finish if isinstance(finish, str) else None, model=_model(span))
        responses = (response,)
    failed = error_response(span)
    exchange.read = Preread(request=request, responses=responses or ((failed,) if failed else ()))
    return exchange


def _message(message: Any, at: Source) -> tuple[str, tuple[Part, ...]]:
    if not isinstance(message, dict):
        return "user", ()
    parts = listed(message, "parts")
    role = message.get("role")
    return (role if isinstance(role, str) else "user",
            tuple(_part(p, at.child("parts", i)) for i, p in enumerate(parts)))


def _part(part: Any, at: Source) -> Part:
    """One message part (`gen-ai-input-messages.json` `$defs`); a type not modelled is kept verbatim."""
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text" and isinstance(part.get("content"), str):
        return Text(text=part["content"], source=at)
    if kind == "tool_call":
        arguments, raw = parse_arguments(part.get("arguments"))
        return Invocation(name=text(part.get("name")) or "", arguments=arguments, raw_arguments=raw,
                          wire_id=_id(part.get("id")), source=at)
    if kind == "tool_call_response":
        response = part.get("response")
        content = (Text(text=response, source=at.child("response")),) if isinstance(response, str) else \
            (Json(value=response, source=at.child("response")),)
        return Result(wire_id=_id(part.get("id")), content=content, source=at)
    if kind == "reasoning" and isinstance(part.get("content"), str):
        return Reasoning(text=part["content"], source=at)
    if kind == "blob" and isinstance(part.get("content"), str):
        return Media(kind=text(part.get("modality")) or "file", media_type=text(part.get("mime_type")),
                     data=part["content"], source=at)
    if kind in ("uri", "file_data") and isinstance(part.get("uri"), str):
        media_type, data = split_data_url(part["uri"])
        return Media(kind=text(part.get("modality")) or "file",
                     media_type=text(part.get("mime_type")) or media_type,
                     data=data, url=None if data else part["uri"], source=at)
    return Opaque(origin=ORIGIN, value=part, source=at)


def _split(role: str, parts: tuple[Part, ...], at: Source) -> list[Turn]:
    """A message → turns: results apart from the rest (the canonical form keeps them in tool turns)."""
    results = tuple(p for p in parts if isinstance(p, Result))
    rest = tuple(p for p in parts if not isinstance(p, Result))
    role = role if role in ("system", "user", "assistant", "tool") else "user"
    turns = [Turn(role="tool", parts=results, source=at)] if results else []
    if rest or not results:
        turns.append(Turn(role="user" if role == "tool" else role,  # type: ignore[arg-type]
                          parts=rest, source=at))
    return turns


def _tools(span: Span, path: str, index: int) -> tuple[Tool, ...]:
    """`gen_ai.tool.definitions` (`gen-ai-tool-definitions.json`), or OpenInference's `llm.tools`."""
    listed = decoded(span.get("gen_ai.tool.definitions"))
    if not isinstance(listed, list):
        return ()
    at = located(path, index, "request", span.location + span.where("gen_ai.tool.definitions"))
    out = []
    for i, tool in enumerate(listed):
        function = tool.get("function") if isinstance(tool, dict) and isinstance(tool.get("function"), dict) \
            else tool
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            out.append(Tool(name=function["name"], description=text(function.get("description")),
                            parameters=schema(function.get("parameters")), source=at.child(i)))
    return tuple(out)


def _model(span: Span) -> str | None:
    model = span.get("gen_ai.request.model") or span.get("gen_ai.response.model") \
        or span.get("llm.model_name")
    return model if isinstance(model, str) else None


def _id(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# ------------------------------------------------------------------- chat-shaped messages, shared


def chat_exchange(path: str, span: Span, index: int, inputs: list[Chat], outputs: list[Chat],
                  location: str, tools: tuple[Tool, ...] = ()) -> Exchange:
    """An exchange from chat-shaped messages (legacy events, flattened keys): the request the inputs
    make, the answer the outputs make; the wire view shows the span."""
    exchange = Exchange(index, request=Message(location=location, body=span.body or span.events))
    system: list[Part] = []
    turns: list[Turn] = []
    for chat in inputs:
        parts = _chat_parts(chat)
        if chat.role == "system" and not turns:
            system.extend(parts)
        elif chat.role == "tool":
            turns.append(Turn(role="tool", parts=parts, source=chat.at))
        else:
            role = chat.role if chat.role in ("user", "assistant") else "user"
            turns.append(Turn(role=role, parts=parts, source=chat.at))  # type: ignore[arg-type]
    request = Request(turns=link(turns), system=tuple(system), tools=tools, model=_model(span)) \
        if inputs else None
    responses: tuple[Response, ...] = ()
    if outputs:
        parts = tuple(p for chat in outputs for p in _chat_parts(chat))
        responses = (Response(turn=link((Turn(role="assistant", parts=parts, source=outputs[0].at),))[0],
                              finish_reason=outputs[-1].finish, model=_model(span)),)
    failed = error_response(span)
    exchange.read = Preread(request=request, responses=responses or ((failed,) if failed else ()))
    return exchange


def _chat_parts(chat: Chat) -> tuple[Part, ...]:
    content = chat.content
    if isinstance(content, list):  # content given as parts (`[{type: text, text}]`)
        content = "".join(text(p.get("text")) or "" for p in content if isinstance(p, dict))
    at = chat.at.child("content")
    texts = (Text(text=content, source=at),) if isinstance(content, str) and content else ()
    if chat.role == "tool":
        return (Result(wire_id=_id(chat.answers), content=texts, source=chat.at),)
    calls = tuple(Invocation(name=text(name) or "", arguments=parse_arguments(arguments)[0],
                             raw_arguments=parse_arguments(arguments)[1], wire_id=_id(cid), source=where)
                  for cid, name, arguments, where in chat.calls)
    return texts + calls


# ----------------------------------------------------------------------------- the older events


def _events(path: str, span: Span, index: int) -> Exchange | None:
    messages = [(name, body, where, pointer) for name, body, where, pointer in span.events
                if name in _EVENTS or name == "gen_ai.choice"]
    if not messages:
        return None
    inputs, outputs = [], []
    for name, body, where, pointer in messages:
        at = located(path, index, "request", span.location if pointer else where).at(pointer)
        if name == "gen_ai.choice":
            outputs.append(_event_chat("assistant", mapping(body, "message"), at, body.get("finish_reason")))
        else:
            inputs.append(_event_chat(_EVENTS[name], body, at, None))
    return chat_exchange(path, span, index, inputs, outputs, span.location)


def _event_chat(role: str, body: dict[str, Any], at: Source, finish: Any) -> Chat:
    """An event's body: `content`, `tool_calls [{id, function: {name, arguments}}]`, a tool message's
    `id`."""
    calls = listed(body, "tool_calls")
    return Chat(role=role, at=at, content=body.get("content"), answers=body.get("id"),
                finish=finish if isinstance(finish, str) else None,
                # (an event's body is no JSON document in the file: its calls point at the event)
                calls=[(c.get("id"), _function(c).get("name"), _function(c).get("arguments"), at)
                       for c in calls if isinstance(c, dict)])


def _function(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function")
    return function if isinstance(function, dict) else {}


# ------------------------------------------------------------------------- the flattened keys


def indexed(span: Span, prefix: str) -> list[dict[str, tuple[Any, str]]]:
    """`prefix.N.rest` attributes grouped by N (in index order): each group rest → (value, pointer)."""
    groups: dict[int, dict[str, tuple[Any, str]]] = {}
    start = prefix + "."
    for key, found in span.attrs.items():
        if key.startswith(start):
            number, _, rest = key[len(start):].partition(".")
            if number.isdigit() and rest:
                groups.setdefault(int(number), {})[rest] = found
    return [groups[n] for n in sorted(groups)]


def nested(group: dict[str, tuple[Any, str]], prefix: str) -> list[dict[str, tuple[Any, str]]]:
    """`indexed` inside one group (a message's `tool_calls.M.*`)."""
    return indexed(Span("", {}, group), prefix)


def first_pointer(group: dict[str, tuple[Any, str]]) -> str:
    return min((p for _, p in group.values()), key=_attribute_order)


def _attribute_order(pointer: str) -> tuple[int, str]:
    head = pointer.split("/")
    return (int(head[2]) if len(head) > 2 and head[2].isdigit() else 0, pointer)


def flat_chat(path: str, span: Span, index: int, group: dict[str, tuple[Any, str]],
              get: Callable[[str], Any], calls: list[dict[str, tuple[Any, str]]],
              call_keys: tuple[str, str, str], side: Side, default: str) -> Chat:
    """A chat message from its flattened keys: `get` reads a key of its group (`role`, `content`,
    `tool_call_id`, `finish_reason`), `calls` its calls' groups, keyed by `call_keys` (id, name,
    arguments)."""
    at = located(path, index, side, span.location)
    role, finish = get("role"), get("finish_reason")
    return Chat(role=role if isinstance(role, str) else default, at=at.at(first_pointer(group)),
                content=get("content"), answers=get("tool_call_id"),
                finish=finish if isinstance(finish, str) else None,
                calls=[(_value(c, call_keys[0]), _value(c, call_keys[1]), _value(c, call_keys[2]),
                        at.at(first_pointer(c))) for c in calls])


def _value(group: dict[str, tuple[Any, str]], key: str) -> Any:
    return group.get(key, (None, ""))[0]


def _flattened(path: str, span: Span, index: int) -> Exchange | None:
    prompts, completions = indexed(span, "gen_ai.prompt"), indexed(span, "gen_ai.completion")
    if not prompts and not completions:
        return None

    def chat(group: dict[str, tuple[Any, str]], default: str) -> Chat:
        return flat_chat(path, span, index, group, lambda key: _value(group, key),
                         nested(group, "tool_calls"), ("id", "name", "arguments"), "request", default)

    return chat_exchange(path, span, index, [chat(g, "user") for g in prompts],
                         [chat(g, "assistant") for g in completions], span.location)
