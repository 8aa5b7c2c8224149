"""What every provider module returns, and the steps they share.

Each provider module (`openai_chat`, `openai_responses`, `anthropic`, `gemini`, `bedrock`) has the
same public names, like msgspec's per-format modules:

    NAME                                   the format's name on the command line
    URL_HINTS                              substrings of an endpoint URL that name this format
    FACTS                                  a `Facts`: what the rest of tooldbg needs to know of the
                                           format (list key, finish pointer, argument encoding…)
    sniff(body, side) -> bool              does this parsed body look like this format?
    sniff_stream(events) -> bool           does this stream look like this format?
    read_request(body, source) -> Request  a request body as canonical turns (linked); with
                                           `start=n, prior=turns`, only its messages from the n-th
                                           on, after the turns read of the ones before (below)
    read_response(body, source) -> Response  a response body (or an error body) as one turn
    split_streams(events) -> list[list[StreamEvent]]   a capture holding several responses
                                           back to back (a new `message_start`, `response.created`,
                                           `messageStart`…) split into one event list per response
    assemble_stream(events, source) -> Assembled   one response's events → the equivalent response
                                           body, exactly as the official SDK accumulates them
    write(conversation, *, target=None, origins=True) -> Written   canonical → the request body
                                           that replays it (for `target`, a profile of the format
                                           such as `mistral`; the format itself by default),
                                           + losses, + where each wire item came from
                                           (`Written.origins`, recorded with `Writer.carries` as
                                           items are made; with `origins` false, found by writing
                                           again when first read: `origins.Unrecorded`)

`Format` below spells these out as a protocol: the registry in `formats/__init__.py` holds modules
typed by it, so a module missing a name, or with a signature that does not fit, fails type checking.

Readers raise only `FormatError` (with a JSON pointer); writers never raise on a valid canonical
conversation: what the target cannot carry is a `Loss` in the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..model import NO_SETTINGS, Conversation, Loss, Part, Settings, Tool, ToolChoice, Turn
from ..shorten import message as one_message
from ..source import Side, Source
from .origins import Origin


@dataclass(frozen=True, slots=True)
class Request:
    """A request body read into canonical form; `turns` are linked (see `link`)."""

    turns: tuple[Turn, ...] = ()
    system: tuple[Part, ...] = ()
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice | None = None
    model: str | None = None
    stream: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    settings: Settings = NO_SETTINGS


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error body (`{"error": {...}}`, Bedrock `{"message": ...}`) or an in-stream error event."""

    message: str
    type: str | None = None
    code: str | None = None
    param: str | None = None


@dataclass(frozen=True, slots=True)
class Response:
    """A response body: the assistant turn (None for an error body) and what ended it."""

    turn: Turn | None = None
    finish_reason: str | None = None
    model: str | None = None
    usage: dict[str, Any] | None = None
    error: ApiError | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class StreamEvent:
    """One event of a captured stream, at its position: `index` counts events from 0, `offset` is
    the byte (or character) offset of the event in the captured body, `name` the SSE `event:` field
    or the Bedrock `:event-type` header, `data` the parsed JSON payload (a str when it is not JSON,
    e.g. `[DONE]`).

    Not frozen, though never changed once made: a frozen class stores each field through
    `object.__setattr__`, which made an event cost three times as much, and a stream's events are
    made by the hundred (its `data`, a dict, made it unhashable anyway)."""

    index: int
    data: Any
    name: str | None = None
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class StreamProblem:
    """Something that went wrong while assembling: at event `chunk` (None: the stream as a whole).
    `kind` is one of: order (index missing/reused/non-contiguous), arguments (not JSON once
    assembled), identity (id or name missing/changed), truncated (no terminal event), error (an
    error event), other."""

    kind: str
    message: str
    chunk: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", one_message(self.message))  # one bounded line


@dataclass(frozen=True, slots=True)
class Assembled:
    """A stream put back together: `body` has the shape of the format's non-streamed response, so
    `read_response(body)` reads it; `chunks` maps JSON pointers in `body` to the index of the event
    that opened that node (the longest matching prefix applies)."""

    body: Any
    chunks: dict[str, int] = field(default_factory=dict)
    problems: tuple[StreamProblem, ...] = ()
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Written:
    """A writer's output: the request body, everything it could not carry, and where each wire
    item came from: `origins` maps the JSON pointer of every node of `body` that carries canonical
    content (each item of the message list, each block in one that carries a part) to its
    `Origin`, in document order. A part may be carried by several nodes (a block and its cache
    point); a node that joins several parts (texts joined into one string) names the first, the
    writer reporting the join. Derived from `body`, so not compared."""

    body: dict[str, Any]
    losses: tuple[Loss, ...] = ()
    origins: Mapping[str, Origin] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Facts:
    """What the code outside a format's module needs to know about the format, declared once by the
    module as `FACTS` and read through `formats.facts(name)`: no other module keeps a table of
    formats. Every field is required, so a new format answers every question (tests/formats/
    test_facts.py checks the answers against the format's own reader and writer)."""

    name: str
    """The format's name: the module's `NAME`."""
    order: int
    """Where the format comes when formats are listed (distinct per format): `formats.WIRE_FORMATS`
    is sorted by it, and with it the CLI's `--input-format`/`--target` choices, `tooldbg formats`,
    `convert --to`, the TUI's wire-view cycle (`f`), its command palette and its export dialog."""
    messages_key: str
    """The request key of the message list the writer fills (`messages`, `input`, `contents`):
    `reserialize` finds a turn's wire items in it."""
    finish_pointer: str
    """The JSON pointer of the finish (stop) reason in a response body, or in the body assembled from
    a stream: findings about the finish reason (TD602) point there (`checks.structure.Answer`)."""
    arguments: Literal["string", "object"]
    """How a call's arguments travel: a JSON-encoded `string` (OpenAI) or a JSON `object`.
    `checks.arguments.Call.encoding` gives it to the argument rules: TD203 judges string formats,
    TD202, TD204, TD205 and TD206 object formats."""
    arguments_path: tuple[str, ...]
    """The keys from a function call's wire node to its arguments (`("function", "arguments")`,
    `("input",)`): `checks.arguments` reads the wire value there (custom tools and legacy shapes are
    its special cases), and TD204 names the field by the last key."""
    call_id_keys: tuple[str, ...] | None
    """The key of a call's id and the key by which its result names it (`("id", "tool_call_id")`),
    both required by the provider's own types (openai-python `ChatCompletionMessageToolCallParam.id`
    and `ChatCompletionToolMessageParam.tool_call_id`, `ResponseFunctionToolCallParam.call_id`,
    anthropic-sdk `ToolUseBlockParam.id` and `ToolResultBlockParam.tool_use_id`, botocore's
    `ToolUseBlock` and `ToolResultBlock` `toolUseId`); None where ids are optional (Gemini pairs by
    name): TD108 reports a call or result without its id."""
    failure: Literal["flag", "error-key", "text"]
    """How a tool result says that the tool failed: a `flag` beside the content (Anthropic `is_error`,
    Bedrock `status`), an `error-key` in place of the output (Gemini `response.error`), or only in
    its `text`. TD304 judges `flag` and `error-key` formats; `checks.failures.lost_flags` (TD303)
    excuses a replay in a `text` format that says the failure in its text."""
    failure_wording: str | None
    """The failure marking as findings quote it (`is_error: true`), None for a `text` format: TD303
    and TD304 name it in their messages."""
    reasoning: str | None
    """What the format calls the reasoning that has to come back with a call (`thinking block`,
    `reasoning item`, `thoughtSignature`), None when it has none: TD307 names it."""
    reasoning_replay: Literal["signature", "signed-text", "text"]
    """What of the reasoning before a call must come back intact on replay (`checks.reasoning`, TD307):
    its `signature` only (or redacted data, or item id; the text beside it is not verified: Gemini,
    Responses); `signed-text`, the signature and, unchanged, the text it signs (Anthropic, Bedrock);
    `text`, the reasoning text even unsigned, and signed blocks unchanged (Chat Completions dialects:
    DeepSeek and Kimi `reasoning_content`, OpenRouter `reasoning_details`)."""
    content_types: tuple[str, ...] | None
    """The `type`s a block in a message's `content` array (or in a tool result's) may have, as the
    provider's own types define them (`fnmatch` patterns: Anthropic names its many server-tool blocks
    `*_tool_use` / `*_tool_result`); None where blocks carry no `type` (Gemini parts and Bedrock
    blocks are unions keyed by member: `content_members`). TD404 reports a block of another type —
    another format's or an agent framework's, forwarded unconverted."""
    content_members: tuple[str, ...] | None
    """The member keys a block of a union-keyed content list holds (Bedrock `ContentBlock` and
    `ToolResultContentBlock`, Gemini `Part` in both its spellings), None where blocks are keyed by
    `type`. TD404 reports a block that carries a `type` (neither union has one) or no member at all."""
    strict_pairing: bool
    """The provider rejects a history whose results are not in the turn right after their calls:
    TD402 is then an error, not a warning."""
    merges_roles: bool
    """The provider combines consecutive messages of one role into one before validating them
    (Anthropic): `checks.structure.views` counts such a run as one wire message."""
    calls_last: bool
    """The provider rejects text (or another block) after a call in the same assistant message:
    TD405 judges the format."""
    rejects_blank_text: bool
    """The provider rejects a request holding an empty or whitespace-only text block: TD406 judges
    the format."""
    title: str
    """The format as its provider names it (`Bedrock Converse`): loss lines name it."""
    model_key: str | None
    """The request key naming the model (`model`), None when the model travels in the URL (Gemini
    `…/models/{model}:generateContent`, Bedrock `/model/{modelId}/converse`): the writer writes it,
    and `convert` reports an export without it as incomplete (exit 1)."""
    settings: Mapping[str, tuple[tuple[str, ...], ...]]
    """Where each `model.Settings` field travels in a request: the keys from the body to it, the
    first spelling the one written, any other one also read (Chat's older `max_tokens`, kept on
    rewriting that format). A setting the format has no field for is absent (Responses: `stop`)."""
    setting_ranges: Mapping[str, tuple[int | float, int | float]]
    """The values the provider documents for a setting, low and high inclusive (for `stop`, the
    number of sequences): a value outside is not written but reported, since the provider rejects it."""
    max_tokens_default: int | None
    """The `max_tokens` written when the conversation sets none because the provider requires one
    (Anthropic), reported as a default; None: the provider does not require one."""
    stream_key: str | None
    """The request key that asks for a streamed response (`stream: true`), None where the URL does
    (Gemini `:streamGenerateContent`, Bedrock `/converse-stream`): another format's request that
    streamed is written streaming where the target has the key, and said not carried where not."""
    restated: Mapping[str, Any]
    """Details the reader keeps in a node's meta only to write them back as recorded, which say
    nothing the canonical form does not (Bedrock's `status: "success"` is `is_error: false`): no
    other writer reports them as lost. Empty for most formats."""


# ------------------------------------------------------------------------------- the protocol


class Format(Protocol):
    """A provider module's public names (see the module docstring). Parameters are positional-only:
    callers pass them by position, and a module may name them as it likes (`conv`, `conversation`)
    or accept more (a `Sequence` of events, a default `source`)."""

    @property
    def NAME(self) -> str: ...

    @property
    def URL_HINTS(self) -> tuple[str, ...]: ...

    @property
    def FACTS(self) -> Facts: ...

    def sniff(self, body: Any, side: Side, /) -> bool: ...

    def sniff_stream(self, events: list[StreamEvent], /) -> bool: ...

    def read_request(self, body: Any, source: Source, /, *, start: int = 0,
                     prior: tuple[Turn, ...] = ()) -> Request:
        """The request body; with `start`, only the messages of its list (`FACTS.messages_key`)
        from that index on, their sources pointing into the whole list (`listed_from`), after
        `prior`: the linked turns read of the messages before it, which begin the request's turns
        (`linked_after`). A system message after `prior` is a turn, as in the whole list; system
        parts the messages before `start` gave are not read. `tooldbg.history` reads the messages
        an agent loop replays once this way; it cuts only where the first message read starts a
        turn of its own (one of another role than `prior`'s last)."""
        ...

    def read_response(self, body: Any, source: Source, /) -> Response: ...

    def split_streams(self, events: list[StreamEvent], /) -> list[list[StreamEvent]]: ...

    def assemble_stream(self, events: list[StreamEvent], source: Source, /) -> Assembled: ...

    def write(self, conversation: Conversation, /, *, target: str | None = None,
              origins: bool = True) -> Written: ...

