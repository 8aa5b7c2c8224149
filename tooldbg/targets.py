"""What each provider accepts: one table per target, data not code, read by the TD8xx rules.

Targets are the five wire formats plus provider profiles that speak a format but add limits
(`mistral`, `deepseek`, `kimi` speak OpenAI Chat Completions). A profile's table keeps its format's
pairing and result-media entries (the wire shape is the same) and sets the provider's own limits.

Every constraint carries its parameters, the provider's own error text (as the cited issue or
recording quotes it; `{id}`, `{name}`, `{length}` are filled in with the offending value, indices
the provider would print stay `N`/`M`) and where that text and the limit come from: a GitHub issue
(`owner/repo#N`), a recording, or the official SDK type (openai-python, anthropic-sdk-python,
python-genai) or botocore shape that declares the limit. A constraint that was reported once but
could not be reproduced is `certain=False`: the rules report it as a risk (a warning), not as a
rejection.

The constraint kinds, one rule each:

    call_id       TD801 (certain limits) / TD802 (uncertain ones)   charset, length, empty ids
    pairing       TD803    where the results of an assistant turn's calls must be
    result_media  TD804    media a tool result may carry
    reasoning     TD805    reasoning that must be replayed with tool turns
    tool_name     TD806    charset and length of tool names
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

_K = TypeVar("_K")

#: Provider profiles → the wire format they speak.
PROFILES: dict[str, str] = {"mistral": "openai-chat", "deepseek": "openai-chat", "kimi": "openai-chat"}


def wire_format(target: str) -> str:
    """The wire format a target writes (`mistral` → `openai-chat`)."""
    return PROFILES.get(target, target)


# ------------------------------------------------------------------------------- constraint kinds


@dataclass(frozen=True, slots=True)
class Limit:
    """One test a string (an id, a tool name) must pass.

    `test` is `empty` (the string must not be empty), `pattern` (`value`, a regex, must match the
    whole string) or `max_length` (`value`, a number of characters)."""

    test: Literal["empty", "pattern", "max_length"]
    error: str
    source: str
    value: str | int | None = None
    certain: bool = True


@dataclass(frozen=True, slots=True)
class Pairing:
    """Where the results answering an assistant turn's calls must be.

    `scope` is `next` (all in the turn right after the calls) or `later` (anywhere after them);
    `calls_last`: nothing may follow a call inside its assistant turn (the provider then sees the
    call as unanswered); `exact_count`: the turn after the calls holds exactly one result per call,
    no more, no fewer."""

    scope: Literal["next", "later"]
    error: str
    source: str
    calls_last: bool = False
    exact_count: bool = False


@dataclass(frozen=True, slots=True)
class ResultMedia:
    """The media kinds (`image`, `document`, `audio`, `video`, `file`, as the canonical `Media.kind`
    names them) a tool result may carry. `models`, when set, is a regex over the model name: the
    limit applies only to a model that matches (and is skipped when the model is unknown)."""

    allowed: frozenset[str]
    error: str
    source: str
    models: str | None = None


@dataclass(frozen=True, slots=True)
class ReasoningReplay:
    """Reasoning the target requires back with the tool turns it produced.

    When it applies: thinking is on, known from a request parameter (`param`, a path into the
    conversation's request parameters, equal to one of `on`), from the model name (`models`, a
    regex), or — with `seen` — from reasoning of `origin` anywhere in the conversation. A parameter
    equal to one of `off` turns it off whatever else says. With `recorded`, it applies call by call:
    a call needs reasoning when the response that produced it (in the log) had reasoning before it —
    the Responses API remembers which `rs_…` item preceded each `fc_…`, and a model does not always
    emit one (gpt-5.1-codex-max skips it on later steps).

    Which assistant turns: `scope` is `last` (the latest turn with calls, while the tool loop is
    still open: no user message after it), `current` (every turn with calls after the latest user
    message) or `all` (every turn with calls). `item_ids`: only calls replayed with their own item
    id (Responses `fc_…`) need it.

    Where, in such a turn: `position` is `first` (the turn opens with it), `carrier` (a
    signature-only reasoning part right before the turn's first call, i.e. the signature rides on
    that call), `before_call` (somewhere before each call) or `any` (anywhere in the turn). The
    reasoning must be of `origin` and, with `signature`, carry its signature (or be redacted);
    `what` names it as the provider does (`thinking block`, `reasoning_content`…)."""

    origin: str
    what: str
    position: Literal["first", "carrier", "before_call", "any"]
    scope: Literal["last", "current", "all"]
    error: str
    source: str
    param: tuple[str, ...] = ()
    on: tuple[str, ...] = ()
    off: tuple[str, ...] = ()
    models: str | None = None
    seen: bool = False
    recorded: bool = False
    signature: bool = False
    item_ids: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    """One target's constraints; an empty entry means the target has no such limit."""

    call_id: tuple[Limit, ...] = ()
    tool_name: tuple[Limit, ...] = ()
    pairing: Pairing | None = None
    result_media: ResultMedia | None = None
    reasoning: ReasoningReplay | None = None


# ------------------------------------------------------------------------------------- the tables

_OPENAI_EMPTY = ("Invalid 'messages[N].tool_calls[M].{field}': empty string. Expected a string with "
                 "minimum length 1, but got an empty string instead.")
_OPENAI_NAME = ("Invalid 'tools[N].function.name': string does not match pattern. Expected a string "
                "that matches the pattern '^[a-zA-Z0-9_-]+$'.")

OPENAI_CHAT = Table(
    call_id=(
        Limit("empty", _OPENAI_EMPTY.replace("{field}", "id"),
              "the validator's wording for an empty tool-call field, issue "
              "continuedev/continue#9784 (`function.name`)"),
        Limit("max_length", "Invalid 'messages[N].tool_calls[M].id': string too long. Expected a string "
              "with maximum length 40, but got a string with length {length} instead.",
              "issue agno-agi/agno#5382; not reproduced in July 2026 (vercel/ai#17233)",
              value=40, certain=False),
    ),
    tool_name=(
        Limit("empty", _OPENAI_EMPTY.replace("{field}", "function.name"),
              "issue continuedev/continue#9784"),
        Limit("pattern", _OPENAI_NAME, "issue brekkylab/ailoy#109; openai-python "
              "src/openai/types/shared_params/function_definition.py", value=r"[a-zA-Z0-9_-]+"),
        Limit("max_length", "Invalid 'tools[N].function.name': string too long. Expected a string with "
              "maximum length 64, but got a string with length {length} instead.",
              "openai-python src/openai/types/shared_params/function_definition.py (FunctionDefinition.name: "
              "maximum length 64)", value=64),
    ),
    pairing=Pairing(
        "next", "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: {id}",
        "issue router-for-me/CLIProxyAPI#2798"),
    result_media=ResultMedia(
        frozenset(), "tool messages carry text only: `content` is a string or an array of text parts "
        "(ChatCompletionToolMessageParam); strict OpenAI-compatible servers answer 400 \"Invalid "
        "'messages' in payload\", lenient ones drop the image unseen",
        "openai-python src/openai/types/chat/chat_completion_tool_message_param.py; issues "
        "QwenLM/qwen-code#3616, openai/openai-openapi#523"),
)

OPENAI_RESPONSES = Table(
    call_id=(
        Limit("empty", "Invalid 'input[N].call_id': empty string. Expected a string with minimum "
              "length 1, but got an empty string instead.",
              "the validator's wording for empty strings (issue diegosouzapw/OmniRoute#707)"),
        Limit("max_length", "Invalid 'input[N].call_id': string too long. Expected a string with "
              "maximum length 64, but got a string with length {length} instead.",
              "issues AnswerDotAI/fastllm#45, V1ki/dsh-plugin-subscriptions#29", value=64),
    ),
    tool_name=(
        Limit("empty", "Invalid 'tools[N].name': empty string. Expected a string with minimum length 1, "
              "but got an empty string instead.", "issue diegosouzapw/OmniRoute#707"),
        Limit("pattern", "Invalid 'tools[N].name': string does not match pattern. Expected a string "
              "that matches the pattern '^[a-zA-Z0-9_-]+$'.", "issue justrach/codegraff#930",
              value=r"[a-zA-Z0-9_-]+"),
    ),
    pairing=Pairing("later", "No tool output found for function call {id}.",
                    "issue router-for-me/CLIProxyAPI#2368"),
    result_media=ResultMedia(
        frozenset({"image", "document", "file"}), "function_call_output carries input_text, input_image "
        "and input_file parts only",
        "openai-python src/openai/types/responses/response_input_param.py (FunctionCallOutput)"),
    reasoning=ReasoningReplay(
        origin="openai-responses", what="reasoning item", position="before_call", scope="all",
        item_ids=True, recorded=True,
        error="Item '{item}' of type 'function_call' was provided without its required 'reasoning' "
              "item: 'rs_…'.",
        source="issue continuedev/continue#10018"),
)

ANTHROPIC = Table(
    call_id=(
        Limit("empty", "messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
              "issue BlockRunAI/ClawRouter#17: the pattern needs at least one character"),
        Limit("pattern", "messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
              "issue BlockRunAI/ClawRouter#17", value=r"[a-zA-Z0-9_-]+"),
    ),
    tool_name=(
        Limit("empty", "tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
              "issue microsoft/vscode#262790"),
        Limit("pattern", "tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
              "issue microsoft/vscode#262790 (issue cyanheads/atlas-mcp-server#14 quotes the older {1,64})",
              value=r"[a-zA-Z0-9_-]+"),
        Limit("max_length", "tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
              "issue microsoft/vscode#262790", value=128),
    ),
    pairing=Pairing(
        "next", "messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "{id}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        "issue anthropics/claude-code#8210; a tool_use followed by text in its message gets this same "
        "400 (anomalyco/opencode packages/llm/test/fixtures/recordings/anthropic-messages/"
        "rejects-malformed-assistant-tool-order-without-patch.json)",
        calls_last=True),
    result_media=ResultMedia(
        frozenset({"image", "document"}), "tool_result content holds text, image, document and "
        "search_result blocks only",
        "anthropic-sdk-python src/anthropic/types/tool_result_block_param.py (ToolResultBlockParam)"),
    reasoning=ReasoningReplay(
        origin="anthropic", what="signed thinking block", position="first", scope="last", signature=True,
        param=("thinking", "type"), on=("enabled", "adaptive"),
        error="messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
              "`{found}`. When `thinking` is enabled, a final `assistant` message must start with a "
              "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).",
        source="issue Kilo-Org/kilocode#5219"),
)

_GEMINI_NAME = ("GenerateContentRequest.tools[0].function_declarations[N].name: Invalid function name. "
                "Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), "
                "underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.")
GEMINI = Table(
    # ids are optional: Gemini pairs by name and position, and sets no id limit.
    tool_name=(
        Limit("empty", _GEMINI_NAME, "issue google-gemini/gemini-cli#9535"),
        Limit("pattern", _GEMINI_NAME, "issue google-gemini/gemini-cli#9535 (python-genai "
              "google/genai/types.py FunctionDeclaration.name says 128; the API says 64)",
              value=r"[a-zA-Z_][a-zA-Z0-9_.:-]*"),
        Limit("max_length", _GEMINI_NAME, "issue google-gemini/gemini-cli#9535", value=64),
    ),
    pairing=Pairing(
        "next", "Please ensure that the number of function response parts is equal to the number of "
        "function call parts of the function call turn.",
        "issue cloudwego/eino-ext#571", exact_count=True),
    result_media=ResultMedia(
        frozenset(), "Unable to submit request because `function_response.parts` is not supported for "
        "this model.", "issue google-gemini/gemini-cli#19436; multimodal function responses are "
        "Gemini 3+ only (issue google-gemini/gemini-cli#17068)", models=r"gemini-(1|2)[.-]"),
    reasoning=ReasoningReplay(
        origin="gemini", what="thought signature", position="carrier", scope="current", signature=True,
        models=r"gemini-3",
        error="Function call is missing a thought_signature in functionCall parts. This is required for "
              "tools to work correctly, and missing thought_signature may lead to degraded model "
              "performance. Additional data, function call `default_api:{name}`, position N.",
        source="issue lbjlaq/Antigravity-Manager#3202; "
               "https://ai.google.dev/gemini-api/docs/thought-signatures"),
)

_BEDROCK_ID = ("Value '{id}' at 'messages.N.member.content.M.member.toolUse.toolUseId' failed to satisfy "
               "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+")
BEDROCK = Table(
    call_id=(
        Limit("empty", "Value '' at 'messages.N.member.content.M.member.toolUse.toolUseId' failed to "
              "satisfy constraint: Member must have length greater than or equal to 1",
              "botocore bedrock-runtime service-2.json ToolUseId (length 1–64); wording as Bedrock "
              "words it for toolSpec.name "
              "(issue BerriAI/litellm#24668)"),
        Limit("pattern", _BEDROCK_ID, "botocore bedrock-runtime service-2.json ToolUseId pattern; "
              "wording as in issue openclaw/openclaw#12892", value=r"[a-zA-Z0-9_.:-]+"),
        Limit("max_length", "Value '{id}' at 'messages.N.member.content.M.member.toolUse.toolUseId' "
              "failed to satisfy constraint: Member must have length less than or equal to 64",
              "botocore bedrock-runtime service-2.json ToolUseId (length 1–64)", value=64),
    ),
    tool_name=(
        Limit("empty", "Value '' at 'toolConfig.tools.N.member.toolSpec.name' failed to satisfy "
              "constraint: Member must have length greater than or equal to 1",
              "issue BerriAI/litellm#24668"),
        Limit("pattern", "Value '{name}' at 'toolConfig.tools.N.member.toolSpec.name' failed to satisfy "
              "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
              "issue aws-samples/remote-swe-agents#457", value=r"[a-zA-Z0-9_-]+"),
        Limit("max_length", "Value at 'messages.N.member.content.M.member.toolUse.name' failed to satisfy "
              "constraint: Member must have length less than or equal to 64",
              "issue openclaw/openclaw#12892", value=64),
    ),
    pairing=Pairing("next", "Expected toolResult blocks at messages.N.content for the following Ids: {id}",
                    "issue zeroclaw-labs/zeroclaw#1476"),
    result_media=ResultMedia(
        frozenset({"image", "document", "video"}), "ToolResultContentBlock holds json, text, image, "
        "document, video and searchResult only",
        "botocore bedrock-runtime service-2.json ToolResultContentBlock"),
)

_OPENAI_PAIRING = OPENAI_CHAT.pairing
_OPENAI_MEDIA = OPENAI_CHAT.result_media

MISTRAL = Table(
    call_id=(
        Limit("pattern", "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9.",
              "issues nearai/ironclaw#1241, karthink/gptel#1203", value=r"[a-zA-Z0-9]{9}"),
    ),
    pairing=_OPENAI_PAIRING,
    result_media=_OPENAI_MEDIA,
)

DEEPSEEK = Table(
    # DeepSeek issues opaque ids of its own (`call_00_…`); OpenAI's 40-character limit is not its own.
    tool_name=(
        Limit("pattern", _OPENAI_NAME, "api.deepseek.com answers with OpenAI's text, issue "
              "nikkigallery/Whimbox#61", value=r"[a-zA-Z0-9_-]+"),
    ),
    pairing=_OPENAI_PAIRING,
    result_media=_OPENAI_MEDIA,
    reasoning=ReasoningReplay(
        origin="openai-chat", what="reasoning_content", position="any", scope="current", seen=True,
        param=("thinking", "type"), on=("enabled",), off=("disabled",), models=r"deepseek-reasoner",
        error="Missing `reasoning_content` field in the assistant message at message index N. (newer "
              "models: \"The `reasoning_content` in the thinking mode must be passed back to the API.\")",
        source="issues abhigyanpatwari/GitNexus#43, earendil-works/pi#3636; "
               "api-docs.deepseek.com/guides/thinking_mode#tool-calls"),
)

KIMI = Table(
    # Kimi issues ids like `functions.get_weather:0` itself: no id limit of its own is known.
    pairing=_OPENAI_PAIRING,
    result_media=_OPENAI_MEDIA,
    reasoning=ReasoningReplay(
        origin="openai-chat", what="reasoning_content", position="any", scope="all", seen=True,
        param=("thinking", "type"), on=("enabled",), off=("disabled",),
        models=r"kimi-k2-thinking|kimi-k2\.[5-9]",
        error="thinking is enabled but reasoning_content is missing in assistant tool call message at "
              "index N",
        source="issues continuedev/continue#11806, openclaw/openclaw#74846"),
)

#: Target → its constraints. Profiles keep their format's pairing and result-media rules (the wire
#: shape is the same) and set what the provider does differently; limits nobody has seen a profile
#: enforce (OpenAI's id length, tool-name rules for Mistral and Kimi) are left out rather than guessed.
TABLES: dict[str, Table] = {
    "openai-chat": OPENAI_CHAT,
    "openai-responses": OPENAI_RESPONSES,
    "anthropic": ANTHROPIC,
    "gemini": GEMINI,
    "bedrock": BEDROCK,
    "mistral": MISTRAL,
    "deepseek": DEEPSEEK,
    "kimi": KIMI,
}


def table(target: str | None) -> Table | None:
    """The constraints of `target` (None when no target is set or it is unknown)."""
    return TABLES.get(target) if target else None


# ------------------------------------------------------------------ making a string fit a target
#
# Writers make ids and tool names fit their target from the same rows the pre-flight judges with:
# the character class, required first character and length come from the `Limit` patterns
# themselves (a small parser for the restricted regex forms the tables use), so there is no second
# table to disagree with this one.
#
# Uncertain limits (OpenAI Chat's 40-character id) are fitted too by default: a writer that makes
# ids the provider may reject is worse than one that rewrites them and says so.


@dataclass(frozen=True, slots=True)
class Atom:
    """One piece of a parsed pattern: a character from `chars`, repeated `low` to `high` times
    (`high` None: unbounded)."""

    chars: frozenset[str]
    low: int
    high: int | None


@dataclass(frozen=True, slots=True)
class Shape:
    """What a string must look like, read off a tuple of limits: `first` (when set) is what its
    first character must be, `chars` what every other character must be (None: anything), and its
    length is `low` to `high` characters (`high` None: no maximum)."""

    chars: frozenset[str] | None = None
    first: frozenset[str] | None = None
    low: int = 0
    high: int | None = None

    @property
    def exact(self) -> bool:
        return self.high is not None and self.low == self.high


def parse_pattern(pattern: str) -> tuple[Atom, ...]:
    """A restricted regex — a sequence of character classes (`[a-zA-Z0-9_.:-]`, ranges, literal
    characters, `\\xHH` and `\\`-escaped punctuation) or literal characters, each optionally with a
    quantifier `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}` — as atoms. Anything else is a ValueError, so a
    table row using a form this cannot fit fails its test instead of being fitted wrongly."""
    atoms: list[Atom] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "[":
            chars, i = _parse_class(pattern, i + 1)
        elif pattern[i] == "\\":
            char, i = _parse_escape(pattern, i + 1)
            chars = frozenset(char)
        elif pattern[i] in "^$.()|?*+{}]":
            raise ValueError(f"pattern {pattern!r}: {pattern[i]!r} at {i} is not supported")
        else:
            chars, i = frozenset(pattern[i]), i + 1
        low, high, i = _parse_quantifier(pattern, i)
        atoms.append(Atom(chars, low, high))
    return tuple(atoms)


def _parse_escape(pattern: str, i: int) -> tuple[str, int]:
    if i >= len(pattern):
        raise ValueError(f"pattern {pattern!r}: a trailing backslash")
    if pattern[i] == "x":
        code = pattern[i + 1:i + 3]
        if len(code) != 2 or any(c not in "0123456789abcdefABCDEF" for c in code):
            raise ValueError(f"pattern {pattern!r}: a bad \\x escape at {i - 1}")
        return chr(int(code, 16)), i + 3
    if pattern[i].isalnum():  # \d, \w, \s…: classes this parser does not model
        raise ValueError(f"pattern {pattern!r}: \\{pattern[i]} is not supported")
    return pattern[i], i + 1


def _parse_class(pattern: str, i: int) -> tuple[frozenset[str], int]:
    """The class opened just before `i` → (its characters, the index after its `]`)."""
    if pattern[i:i + 1] == "^":
        raise ValueError(f"pattern {pattern!r}: negated classes are not supported")
    chars: set[str] = set()
    start = i
    while True:
        if i >= len(pattern):
            raise ValueError(f"pattern {pattern!r}: an unclosed class")
        if pattern[i] == "]" and i > start:
            return frozenset(chars), i + 1
        if pattern[i] == "\\":
            low, i = _parse_escape(pattern, i + 1)
        else:
            low, i = pattern[i], i + 1
        if pattern[i:i + 1] == "-" and i + 1 < len(pattern) and pattern[i + 1] != "]":
            if pattern[i + 1] == "\\":
                high, i = _parse_escape(pattern, i + 2)
            else:
                high, i = pattern[i + 1], i + 2
            if ord(high) < ord(low):
                raise ValueError(f"pattern {pattern!r}: a bad range {low}-{high}")
            chars.update(chr(c) for c in range(ord(low), ord(high) + 1))
        else:
            chars.add(low)


def _parse_quantifier(pattern: str, i: int) -> tuple[int, int | None, int]:
    """The quantifier at `i` (none: exactly once) → (low, high, the index after it)."""
    q = pattern[i:i + 1]
    if q == "?":
        return 0, 1, i + 1
    if q == "*":
        return 0, None, i + 1
    if q == "+":
        return 1, None, i + 1
    if q != "{":
        return 1, 1, i
    end = pattern.find("}", i)
    body = pattern[i + 1:end] if end > 0 else ""
    low_text, comma, high_text = body.partition(",")
    if not low_text.isdigit() or (high_text and not high_text.isdigit()):
        raise ValueError(f"pattern {pattern!r}: a bad quantifier at {i}")
    low = int(low_text)
    high = (int(high_text) if high_text else None) if comma else low
    if high is not None and high < low:
        raise ValueError(f"pattern {pattern!r}: a bad quantifier at {i}")
    return low, high, end + 1


def _pattern_shape(pattern: str) -> Shape:
    """`[C]q` or `[F][C]q` (F exactly once): the two forms a string can be fitted to."""
    atoms = parse_pattern(pattern)
    if len(atoms) == 1:
        (body,) = atoms
        return Shape(chars=body.chars, low=body.low, high=body.high)
    if len(atoms) == 2 and (atoms[0].low, atoms[0].high) == (1, 1):
        head, body = atoms
        return Shape(chars=body.chars, first=head.chars, low=1 + body.low,
                     high=None if body.high is None else 1 + body.high)
    raise ValueError(f"pattern {pattern!r}: only [C]q or [F][C]q can be fitted")


def active(limits: tuple[Limit, ...], *, uncertain: bool = True) -> tuple[Limit, ...]:
    """The limits a writer fits to: all of them, or only the certain ones."""
    return limits if uncertain else tuple(limit for limit in limits if limit.certain)


def shape(limits: tuple[Limit, ...]) -> Shape:
    """Every limit of the tuple in one shape (patterns intersected, the shortest maximum)."""
    result = Shape()
    for limit in limits:
        if limit.test == "empty":
            found = Shape(low=1)
        elif limit.test == "max_length":
            found = Shape(high=int(limit.value or 0))
        else:
            found = _pattern_shape(str(limit.value))
        result = _meet(result, found)
    return result


def _meet(a: Shape, b: Shape) -> Shape:
    def both(x: frozenset[str] | None, y: frozenset[str] | None) -> frozenset[str] | None:
        return y if x is None else x if y is None else x & y

    chars = both(a.chars, b.chars)
    # What the first character may be, under each shape: its `first`, else any of its characters.
    first = both(a.first if a.first is not None else a.chars, b.first if b.first is not None else b.chars)
    highs = [h for h in (a.high, b.high) if h is not None]
    return Shape(chars=chars, first=None if first == chars else first, low=max(a.low, b.low),
                 high=min(highs) if highs else None)


def broken(value: str, limits: tuple[Limit, ...], *, uncertain: bool = True) -> Limit | None:
    """The first limit `value` breaks, in table order — the pre-flight's judgement
    (`checks.preflight.failure`), except that an empty string is also tested against the patterns
    (the pre-flight reports only the `empty` row for it; a writer must not emit it either way)."""
    for limit in active(limits, uncertain=uncertain):
        if limit.test == "empty":
            bad = value == ""
        elif limit.test == "pattern":
            bad = re.fullmatch(str(limit.value), value) is None
        else:
            bad = len(value) > int(limit.value or 0)
        if bad:
            return limit
    return None


def passes(value: str, limits: tuple[Limit, ...], *, uncertain: bool = True) -> bool:
    return broken(value, limits, uncertain=uncertain) is None


def fit(value: str, limits: tuple[Limit, ...], used: set[str], *, fallback: str = "x",
        uncertain: bool = True) -> str | None:
    """`value` made to pass `limits` and not be in `used`; the result is added to `used`.

    Unchanged when it already passes and is unused. Else: characters outside the pattern's class
    become `_` where `_` is allowed and are dropped otherwise; a required first character is supplied
    (`_` when allowed, else the first letter the class allows); the string is cut to the maximum
    length (`fallback`, fitted the same way, stands in for a string left empty); an exact-length
    pattern (Mistral's `[a-zA-Z0-9]{9}`) is met from a hash of the original, so the same original
    always maps to the same new string (a call and its result agree). A string already in `used` gets
    a numbered suffix (`_2`, `_3`…, within the maximum length), or another hash for exact lengths.
    The result is checked against the limits: None when it cannot be made to fit."""
    limits = active(limits, uncertain=uncertain)
    if value not in used and passes(value, limits):
        used.add(value)
        return value
    try:
        form = shape(limits)
    except ValueError:
        return None
    if form.high is not None and form.low > form.high:
        return None
    base = _reshape(value, form, fallback)
    candidate: str | None = base
    n = 1
    while candidate is not None and (candidate in used or not passes(candidate, limits)):
        n += 1
        candidate = _variant(value, base, form, n) if n <= _TRIES else None
    if candidate is not None:
        used.add(candidate)
    return candidate


_TRIES = 1000


def _reshape(value: str, form: Shape, fallback: str) -> str:
    if form.exact:
        return _hashed(value, form, 0)
    text = _clean(value, form) or _clean(fallback, form)
    if form.high is not None:
        text = text[:form.high]
    if len(text) < form.low:
        text += _hashed(value, form, 0, form.low - len(text), body=bool(text))
    return text


def _clean(value: str, form: Shape) -> str:
    """Characters outside the class replaced (or dropped), then the first character supplied."""
    chars = form.chars
    if chars is not None:
        sub = "_" if "_" in chars else ""
        value = "".join(c if c in chars else sub for c in value)
    if form.first is not None and value and value[0] not in form.first:
        lead = "_" if "_" in form.first else min(form.first & _ALNUM or form.first, default="")
        value = lead + value
    return value


_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _alphabet(chars: frozenset[str] | None) -> str:
    """The characters a hash is spelled in: the class's letters and digits (all of it when it has
    none), sorted so the spelling is stable."""
    pool = _ALNUM if chars is None else (chars & _ALNUM or chars)
    return "".join(sorted(pool))


def _hashed(value: str, form: Shape, salt: int, length: int | None = None, *, body: bool = False) -> str:
    """`length` (default: the exact length) characters from a hash of `value` (and `salt`), spelled
    in the class's alphabet, the first from `first` unless `body`."""
    length = form.low if length is None else length
    if length <= 0:
        return ""
    seed = value if salt == 0 else f"{value}\x00{salt}"
    number = int.from_bytes(hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest(), "big")
    out = []
    for i in range(length):
        alphabet = _alphabet(form.first if i == 0 and not body and form.first is not None else form.chars)
        if not alphabet:
            return ""
        number, digit = divmod(number, len(alphabet))
        out.append(alphabet[digit])
    return "".join(out)


def _variant(value: str, base: str, form: Shape, n: int) -> str | None:
    """The `n`-th try (n ≥ 2) at a string for `value` when `base`, its fitted form, is taken:
    another hash for an exact length, else `base` with a suffix `_n` (cut to keep within the
    maximum length; digits, or hash characters when the class has no digits)."""
    if form.exact:
        return _hashed(value, form, n)
    chars = form.chars
    digits = str(n) if chars is None or set(str(n)) <= chars else _hashed(value, form, n, 4, body=True)
    suffix = ("_" if chars is None or "_" in chars else "") + digits
    room = len(base) if form.high is None else min(len(base), form.high - len(suffix))
    if room < (1 if form.first is not None else 0):
        return None
    return base[:room] + suffix


def describe(limits: tuple[Limit, ...], *, uncertain: bool = True) -> str:
    """The limits in words, for a loss: `letters, digits, - and _, 1 to 64 characters`."""
    try:
        form = shape(active(limits, uncertain=uncertain))
    except ValueError:
        return ", ".join(f"matching {limit.value}" for limit in limits if limit.test == "pattern")
    words = []
    if form.first is not None:
        words.append(f"starting with {_spell(form.first, ' or ', one=True)}")
    if form.chars is not None:
        words.append(_spell(form.chars, " and "))
    if form.exact:
        words.append(f"exactly {form.low} characters")
    elif form.high is not None:
        words.append(f"{max(form.low, 1)} to {form.high} characters" if form.low else
                     f"up to {form.high} characters")
    elif form.low:
        words.append("not empty")
    return ", ".join(words)


_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")


def _spell(chars: frozenset[str], joiner: str, *, one: bool = False) -> str:
    names = []
    rest = set(chars)
    for name, group in (("a letter" if one else "letters", _LETTERS),
                        ("a digit" if one else "digits", _DIGITS)):
        if group <= rest:
            names.append(name)
            rest -= group
    names.extend(sorted(rest))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + joiner + names[-1]


def fit_call_id(target: str, value: str, used: set[str]) -> str | None:
    """`value` as a call id `target` accepts (see `fit`); unchanged when the target sets no limit."""
    limits = _limits(target).call_id
    return fit(value, limits, used, fallback="call")


def fit_tool_name(target: str, value: str, used: set[str]) -> str | None:
    """`value` as a tool name `target` accepts (see `fit`)."""
    limits = _limits(target).tool_name
    return fit(value, limits, used, fallback="tool")


def fit_each(values: Mapping[_K, str], limits: tuple[Limit, ...], *, fallback: str = "x",
             used: set[str] | None = None) -> dict[_K, str | None]:
    """Every value fitted, in order, keeping each one that already fits the first time it occurs —
    those are set aside before any other is rewritten, so a rewritten string never takes the place of
    an original that needed no change. A value repeated under another key is rewritten (two calls
    with one id get two). `used` (default: a new set) collects what was written."""
    used = set() if used is None else used
    out: dict[_K, str | None] = {}
    for key, value in values.items():
        if value not in used and passes(value, limits):
            used.add(value)
            out[key] = value
    for key, value in values.items():
        if key not in out:
            out[key] = fit(value, limits, used, fallback=fallback)
    return {key: out[key] for key in values}


def fit_call_ids(target: str, values: Mapping[_K, str], *,
                 used: set[str] | None = None) -> dict[_K, str | None]:
    """Call ids (keyed by call) as `target` accepts them: see `fit_each`."""
    return fit_each(values, _limits(target).call_id, fallback="call", used=used)


def fit_tool_names(target: str, names: Iterable[str], *,
                   used: set[str] | None = None) -> dict[str, str | None]:
    """Each distinct tool name → the name `target` accepts (itself when it fits): see `fit_each`."""
    return fit_each({name: name for name in names}, _limits(target).tool_name, fallback="tool", used=used)


def _limits(target: str) -> Table:
    found = TABLES.get(target)
    if found is None:
        raise ValueError(f"unknown target {target!r}")
    return found
