"""The canonical form, `tooldbg.canonical/1`: one conversation model every wire format maps onto.

Rules (after simonw/llm's `parts.py`):

* Values are pure and immutable (`node`: no field is ever assigned, which the type checker
  enforces). Equal content means equal objects; the `source` a node points back
  to never takes part in equality, so the same turn read from two exchanges compares equal.
* Tool calls carry tooldbg's own `id` (`i1`, `i2`, … in order of appearance, so a replayed prefix
  keeps its ids) and the provider's `wire_id`; a result names the call it answers by that own id.
* `is_error` is an explicit boolean. Formats without the flag lose it on writing, and say so.
* Nothing is silently dropped on reading: a block tooldbg does not model becomes an `Opaque` part
  holding the wire JSON verbatim, and format-specific details a part keeps (Anthropic
  `cache_control`, a Responses `phase`, item ids) live in `meta`, keyed by the format's name.

The JSON form (`to_dict` / `from_dict`) is documented in `docs/canonical.md` and reads back equal.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, TypeGuard, TypeVar, dataclass_transform

from .errors import FormatError
from .shorten import message as one_message
from .shorten import quote
from .source import NO_SOURCE, Source

CANONICAL_FORMAT = "tooldbg.canonical/1"


class _NoMeta(dict[str, Any]):
    """An empty meta that refuses to be changed (`NO_META`)."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("NO_META is shared by every node without meta: make a new dict instead")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> str:
        return "NO_META"  # (unpickled as the one object, not a copy)


#: The meta of every node that has none: one empty dict for all (a dict each was a tenth of a long
#: agent log's size again, the nodes it reads most having none).
NO_META: dict[str, Any] = _NoMeta()


def _no_meta() -> dict[str, Any]:
    return NO_META  # (a factory: a dataclass field may not default to a dict itself)


Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")


def is_role(value: object) -> TypeGuard[Role]:
    """`value` is one of the four turn roles."""
    return value in ROLES


_Node = TypeVar("_Node")


@dataclass_transform(frozen_default=True, kw_only_default=True, field_specifiers=(field,))
def node(cls: type[_Node]) -> type[_Node]:
    """A canonical node class (a part, a turn, a tool, a conversation): a slotted dataclass with
    keyword-only fields, immutable — frozen to the type checker, which refuses any assignment to a
    field (mypy checks the whole package). At run time it is not made frozen: a frozen dataclass
    stores each field through `object.__setattr__`, and that `__init__` alone was 40 % of reading a
    request body into the model (a reader makes one node per wire node it reads)."""
    return dataclass(slots=True, kw_only=True)(cls)


# --------------------------------------------------------------------------------------- parts


@node
class Part:
    """Base of every part. `meta` holds format-specific details keyed by format name."""

    type: ClassVar[str] = ""
    meta: Mapping[str, Any] = field(default_factory=_no_meta)
    source: Source = field(default=NO_SOURCE, compare=False, repr=False)


@node
class Text(Part):
    """Plain text (a system prompt, a message, a result's text)."""

    type: ClassVar[str] = "text"
    text: str


@node
class Media(Part):
    """An image or other media, inline (`data`, base64) or by reference (`url`, `file_id`)."""

    type: ClassVar[str] = "media"
    kind: str = "image"  # image | audio | video | document | file
    media_type: str | None = None
    data: str | None = None
    url: str | None = None
    file_id: str | None = None


@node
class Reasoning(Part):
    """Model reasoning and the token a provider requires back with it.

    `signature` is the provider's proof of the reasoning (Anthropic `signature`, Gemini
    `thoughtSignature`, Bedrock `signature`, Responses `encrypted_content`); `origin` names the format
    that issued it, since no other provider accepts it. `redacted` holds opaque redacted reasoning.
    """

    type: ClassVar[str] = "reasoning"
    text: str = ""
    summary: tuple[str, ...] = ()
    signature: str | None = None
    redacted: str | None = None
    origin: str | None = None
    wire_id: str | None = None


@node
class Invocation(Part):
    """A tool call. `arguments` is the parsed JSON value; when the wire string was not valid JSON,
    `arguments` is None and `raw_arguments` keeps the string exactly."""

    type: ClassVar[str] = "invocation"
    id: str = ""
    name: str
    arguments: Any = None
    raw_arguments: str | None = None
    wire_id: str | None = None


@node
class Result(Part):
    """A tool result. `invocation_id` is the own id of the call it answers (None: orphan);
    `wire_id` is the id the wire used to bind it; `name` the tool name where the wire carries one."""

    type: ClassVar[str] = "result"
    invocation_id: str | None = None
    content: tuple[Part, ...] = ()
    is_error: bool = False
    wire_id: str | None = None
    name: str | None = None


@node
class Json(Part):
    """Structured result content (Gemini `functionResponse.response`, Bedrock `json` blocks)."""

    type: ClassVar[str] = "json"
    value: Any = None


@node
class Opaque(Part):
    """A provider block tooldbg does not model, kept verbatim. Only `origin`'s writer can emit it."""

    type: ClassVar[str] = "opaque"
    origin: str
    value: Any = None


PART_TYPES: dict[str, type[Part]] = {
    cls.type: cls for cls in (Text, Media, Reasoning, Invocation, Result, Json, Opaque)
}


# ----------------------------------------------------------------------- turns and conversations


@node
class Turn:
    """One message of the conversation, as the parts it holds in order."""

    role: Role
    parts: tuple[Part, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=_no_meta)
    source: Source = field(default=NO_SOURCE, compare=False, repr=False)

    def invocations(self) -> Iterator[Invocation]:
        return (p for p in self.parts if isinstance(p, Invocation))

    def results(self) -> Iterator[Result]:
        return (p for p in self.parts if isinstance(p, Result))




@node
class Tool:
    """A declared tool. Hosted tools (web search, code execution…) keep their wire form in `raw`,
    with `kind` their wire type and `origin` the format that declared them."""

    name: str
    description: str | None = None
    parameters: Any = None
    kind: str = "function"
    origin: str | None = None
    raw: Any = None
    meta: Mapping[str, Any] = field(default_factory=_no_meta)
    source: Source = field(default=NO_SOURCE, compare=False, repr=False)




@dataclass(frozen=True, slots=True, kw_only=True)
class ToolChoice:
    """`mode` is auto | none | required | tool (then `name`); `parallel` False forbids parallel calls."""

    mode: str = "auto"
    name: str | None = None
    parallel: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """The sampling settings every format has a field for, read out of whichever field the source
    used (`max_tokens` is Chat's `max_completion_tokens`, Gemini's `generationConfig.maxOutputTokens`,
    Bedrock's `inferenceConfig.maxTokens`…; `formats.base.Facts.settings` says where). None: not set."""

    max_tokens: int | None = None
    temperature: int | float | None = None
    top_p: int | float | None = None
    stop: tuple[str, ...] | None = None

    def items(self) -> list[tuple[str, Any]]:
        """(name, value) of each setting that is set, in field order."""
        return [(name, v) for name in _SETTING_NAMES if (v := getattr(self, name)) is not None]


_SETTING_NAMES = tuple(f.name for f in fields(Settings))  # (`fields` on every call: a writer asks thrice)
NO_SETTINGS = Settings()


@node
class Conversation:
    """A conversation: its turns and what every request of it declares (system, tools, settings)."""

    id: str = "c1"
    model: str | None = None
    settings: Settings = NO_SETTINGS
    system: tuple[Part, ...] = ()
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice | None = None
    turns: tuple[Turn, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=_no_meta)

    def invocations(self) -> dict[str, Invocation]:
        return {p.id: p for t in self.turns for p in t.invocations()}


@dataclass(frozen=True, slots=True)
class Loss:
    """Something a writer could not carry: at `turn` (index) and `part` (index), or conversation-wide
    (`turn` None: system, tools, tool choice)."""

    message: str
    turn: int | None = None
    part: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", one_message(self.message))  # one bounded line

    def __str__(self) -> str:
        where = "conversation" if self.turn is None else f"turn {self.turn}"
        if self.part is not None:
            where += f" part {self.part}"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "part": self.part, "message": self.message}


# ---------------------------------------------------------------------------------- JSON form


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    """Drop None and empty containers: a part's optional fields at their default (None, or no items)
    stay out of the JSON. An empty string stays: `wire_id: ""` (an empty id, TD108), `origin: ""`
    are what the log held, not an absent field, and must read back as they were."""
    return {k: v for k, v in data.items() if v is not None and v != () and v != {} and v != []}


_DATA_FIELDS: dict[type[Part], tuple[str, ...]] = {}


def _data_fields(kind: type[Part]) -> tuple[str, ...]:
    """A part class's fields but `meta` and `source`, once per class: `dataclasses.fields` on every
    call was a tenth of a conversion's time (stitching hashes each turn through `part_to_dict`)."""
    names = _DATA_FIELDS.get(kind)
    if names is None:
        names = _DATA_FIELDS[kind] = tuple(f.name for f in fields(kind) if f.name not in ("meta", "source"))
    return names


def part_to_dict(part: Part, *, sources: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": part.type}
    for name in _data_fields(type(part)):
        value = getattr(part, name)
        if name == "content":
            value = [part_to_dict(p, sources=sources) for p in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    # Fields whose None or empty value is meaningful stay whatever they hold.
    keep: dict[str, Any] = {k: out[k] for k in ("arguments", "value") if k in out}
    out = _compact(out)
    out.update(keep)
    if isinstance(part, Result):
        out["is_error"] = part.is_error
        out.setdefault("invocation_id", None)
    if part.meta:
        out["meta"] = dict(part.meta)
    if sources and part.source != NO_SOURCE:
        out["source"] = part.source.to_dict()
    return out


#: The JSON type each part field must have in the canonical document (None: null allowed); fields
#: not listed take any JSON value (`arguments`, `value`, `raw`, `parameters` are checked apart).
_STR, _OPT_STR = (str,), (str, None)
_FIELD_TYPES: dict[str, tuple[Any, ...]] = {
    "text": _STR, "kind": _STR, "media_type": _OPT_STR, "data": _OPT_STR, "url": _OPT_STR,
    "file_id": _OPT_STR, "signature": _OPT_STR, "redacted": _OPT_STR, "origin": _OPT_STR,
    "wire_id": _OPT_STR, "id": _STR, "name": _OPT_STR, "raw_arguments": _OPT_STR,
    "invocation_id": _OPT_STR, "is_error": (bool,), "meta": (dict,),
}
#: Fields a part of that type must have.
_REQUIRED = {"text": ("text",), "invocation": ("name",), "opaque": ("origin",)}


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), "a value")


def _typed(value: Any, kinds: tuple[Any, ...], key: str, pointer: str) -> Any:
    """`value`, checked to be one of `kinds` (None in `kinds`: null allowed; bool is not a number)."""
    if value is None and None in kinds:
        return None
    if any(k is not None and isinstance(value, k) and not (k is int and isinstance(value, bool))
           for k in kinds):
        return value
    wanted = " or ".join("null" if k is None else _kind(k()) for k in kinds)
    raise FormatError(f"{key} must be {wanted}, not {_kind(value)}", f"{pointer}/{key}")


def part_from_dict(data: Any, pointer: str = "") -> Part:
    """One part of a canonical document, every field checked for its type (a FormatError at the
    field's pointer otherwise): what the document holds reaches the writers well formed."""
    if not isinstance(data, Mapping):
        raise FormatError(f"a part must be an object, not {_kind(data)}", pointer)
    kind = data.get("type")
    cls = PART_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise FormatError(f"unknown part type {quote(data.get('type'))}", pointer + "/type")
    for key in _REQUIRED.get(cls.type, ()):
        if data.get(key) is None:
            raise FormatError(f"a {cls.type} part needs {key}", f"{pointer}/{key}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data or f.name == "type":
            continue
        value = data[f.name]
        if f.name == "source":
            value = _source(value, f"{pointer}/source")
        elif f.name == "content":
            if not isinstance(value, list):
                raise FormatError(f"result content must be a list, not {_kind(value)}", f"{pointer}/content")
            value = tuple(part_from_dict(p, f"{pointer}/content/{i}") for i, p in enumerate(value))
        elif f.name == "summary":
            items = _typed(value, (list,), "summary", pointer)
            value = tuple(_typed(v, _STR, str(i), f"{pointer}/summary") for i, v in enumerate(items))
        elif f.name in _FIELD_TYPES:
            value = _typed(value, _FIELD_TYPES[f.name], f.name, pointer)
        kwargs[f.name] = value
    return cls(**kwargs)


def _source(data: Any, pointer: str) -> Source:
    """Where a node came from, as the document says; a malformed one is an error at its pointer."""
    if data is None:
        return NO_SOURCE
    data = _typed(data, (dict,), "source", pointer.rsplit("/", 1)[0])
    for key in ("file", "location", "pointer"):
        _typed(data.get(key, ""), _STR, key, pointer)
    for key in ("exchange", "chunk"):
        _typed(data.get(key), (int, None), key, pointer)
    if data.get("side") not in ("request", "response", None):
        raise FormatError(f"side must be request or response, not {quote(data.get('side'))}",
                          f"{pointer}/side")
    return Source.from_dict(data)


def turn_to_dict(turn: Turn, *, sources: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"role": turn.role,
                           "parts": [part_to_dict(p, sources=sources) for p in turn.parts]}
    if turn.meta:
        out["meta"] = dict(turn.meta)
    if sources and turn.source != NO_SOURCE:
        out["source"] = turn.source.to_dict()
    return out


def turn_content(turn: Turn) -> list[Any]:
    """All a turn's equality compares — its role, its meta, each part's type and fields, not where
    they came from — as JSON values in fixed places: what stitching hashes (`stitch.turn_hash`).
    Made without `turn_to_dict`'s dict a part and its leaving out of empty fields (the hashing
    of every new turn of a log was a twentieth of checking it)."""
    return [turn.role, turn.meta or None, [_part_content(p) for p in turn.parts]]


def _part_content(part: Part) -> list[Any]:
    values: list[Any] = [part.type, part.meta or None]
    for name in _data_fields(type(part)):
        value = getattr(part, name)
        values.append([_part_content(p) for p in value] if name == "content" else value)
    return values


def tool_to_dict(tool: Tool) -> dict[str, Any]:
    # Every field but `meta` defaults to None: an empty value (`parameters: {}`) is what was declared.
    out = {"name": tool.name, **{k: v for k, v in (("description", tool.description),
                                                    ("parameters", tool.parameters), ("origin", tool.origin),
                                                    ("raw", tool.raw)) if v is not None}}
    if tool.meta:
        out["meta"] = dict(tool.meta)
    if tool.kind != "function":
        out["kind"] = tool.kind
    return out


def conversation_to_dict(conv: Conversation, *, sources: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"id": conv.id}
    if conv.model is not None:
        out["model"] = conv.model
    if conv.settings != NO_SETTINGS:
        out["settings"] = {k: list(v) if isinstance(v, tuple) else v for k, v in conv.settings.items()}
    out["system"] = [part_to_dict(p, sources=sources) for p in conv.system]
    out["tools"] = [tool_to_dict(t) for t in conv.tools]
    if conv.tool_choice is not None:
        out["tool_choice"] = {"mode": conv.tool_choice.mode}  # always: an absent mode reads as auto
        if conv.tool_choice.name is not None:
            out["tool_choice"]["name"] = conv.tool_choice.name
        if conv.tool_choice.parallel is not None:
            out["tool_choice"]["parallel"] = conv.tool_choice.parallel
    out["turns"] = [turn_to_dict(t, sources=sources) for t in conv.turns]
    if conv.meta:
        out["meta"] = dict(conv.meta)
    return out


def document(conversations: list[Conversation], *, sources: bool = True) -> dict[str, Any]:
    """The canonical document: `{"format": "tooldbg.canonical/1", "conversations": [...]}`."""
    return {"format": CANONICAL_FORMAT,
            "conversations": [conversation_to_dict(c, sources=sources) for c in conversations]}


def conversation_from_dict(data: Any, pointer: str = "") -> Conversation:
    """One conversation of a canonical document, every field checked for its type."""
    if not isinstance(data, Mapping):
        raise FormatError(f"a conversation must be an object, not {_kind(data)}", pointer)

    def parts(key: str, items: Any) -> tuple[Part, ...]:
        if not isinstance(items, list):
            raise FormatError(f"{key} must be a list, not {_kind(items)}", f"{pointer}/{key}")
        return tuple(part_from_dict(p, f"{pointer}/{key}/{i}") for i, p in enumerate(items))

    turns = []
    for i, t in enumerate(_list(data, "turns", pointer)):
        at = f"{pointer}/turns/{i}"
        if not isinstance(t, Mapping) or t.get("role") not in ROLES:
            raise FormatError(f"a turn needs a role among {', '.join(ROLES)}", at)
        turns.append(Turn(role=t["role"], parts=parts(f"turns/{i}/parts", t.get("parts", [])),
                          meta=_typed(t.get("meta") or {}, (dict,), "meta", at),
                          source=_source(t.get("source"), f"{at}/source")))
    tools = []
    for i, t in enumerate(_list(data, "tools", pointer)):
        at = f"{pointer}/tools/{i}"
        if not isinstance(t, Mapping) or not isinstance(t.get("name"), str):
            raise FormatError("a tool needs a name", at)
        tools.append(Tool(name=t["name"],
                          description=_typed(t.get("description"), _OPT_STR, "description", at),
                          parameters=_typed(t.get("parameters"), (dict, None), "parameters", at),
                          kind=_typed(t.get("kind", "function"), _STR, "kind", at),
                          origin=_typed(t.get("origin"), _OPT_STR, "origin", at), raw=t.get("raw"),
                          meta=_typed(t.get("meta") or {}, (dict,), "meta", at)))
    return Conversation(
        id=_conversation_id(data.get("id", "c1"), pointer),
        model=_typed(data.get("model"), _OPT_STR, "model", pointer),
        settings=_settings(data.get("settings"), f"{pointer}/settings"),
        system=parts("system", data.get("system", [])), tools=tuple(tools),
        tool_choice=_tool_choice(data.get("tool_choice"), f"{pointer}/tool_choice"),
        turns=tuple(turns), meta=_typed(data.get("meta") or {}, (dict,), "meta", pointer))


#: The longest conversation id a canonical document may give (ids name conversations on the command
#: line, in file names and on screen).
ID_LENGTH = 200


def _conversation_id(value: Any, pointer: str) -> str:
    text: str = _typed(value, _STR, "id", pointer)
    if not text or len(text) > ID_LENGTH or not text.isprintable():
        raise FormatError(f"a conversation id is one line of 1 to {ID_LENGTH} printable characters, not "
                          f"{quote(text)}", f"{pointer}/id")
    return text


def _tool_choice(data: Any, pointer: str) -> ToolChoice | None:
    if data is None:
        return None
    data = _typed(data, (dict,), "tool_choice", pointer.rsplit("/", 1)[0])
    return ToolChoice(mode=_typed(data.get("mode", "auto"), _STR, "mode", pointer),
                      name=_typed(data.get("name"), _OPT_STR, "name", pointer),
                      parallel=_typed(data.get("parallel"), (bool, None), "parallel", pointer))


def _settings(data: Any, pointer: str) -> Settings:
    """`settings`: every key optional, each of its JSON type (an unknown key is kept out, not an
    error: the document is only ever extended)."""
    if data is None:
        return NO_SETTINGS
    data = _typed(data, (dict,), "settings", pointer.rsplit("/", 1)[0])
    number = (int, float, None)
    stop = _typed(data.get("stop"), (list, None), "stop", pointer)
    return Settings(max_tokens=_typed(data.get("max_tokens"), (int, None), "max_tokens", pointer),
                    temperature=_typed(data.get("temperature"), number, "temperature", pointer),
                    top_p=_typed(data.get("top_p"), number, "top_p", pointer),
                    stop=None if stop is None else
                    tuple(_typed(v, _STR, str(i), f"{pointer}/stop") for i, v in enumerate(stop)))


def _list(data: Mapping[str, Any], key: str, pointer: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise FormatError(f"{key} must be a list, not {_kind(value)}", f"{pointer}/{key}")
    return value


def read_document(data: Any) -> list[Conversation]:
    """Read a canonical document (or a bare conversation) back."""
    if isinstance(data, Mapping) and data.get("format") == CANONICAL_FORMAT:
        return [conversation_from_dict(c, f"/conversations/{i}")
                for i, c in enumerate(_list(data, "conversations", ""))]
    if isinstance(data, Mapping) and "turns" in data:
        return [conversation_from_dict(data)]
    raise FormatError(f"not a {CANONICAL_FORMAT} document")


def is_canonical(data: Any) -> bool:
    return isinstance(data, Mapping) and data.get("format") == CANONICAL_FORMAT


