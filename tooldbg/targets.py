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
    final_turn    TD807    a request whose last turn is the assistant's (a prefill)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from .fit import Limit, fit, fit_each

_K = TypeVar("_K")


# ------------------------------------------------------------------------------- constraint kinds


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
    emit one (gpt-5.1-codex-max skips it on later steps); a call no recorded response shows (a
    history saved without its reasoning, checked alone) needs it when the model is a reasoning one
    (`models`).

    Which assistant turns: `scope` is `last` (the latest turn with calls, while the tool loop is
    still open: no user message after it), `current` (every turn with calls after the latest user
    message) or `all` (every turn with calls). `item_ids`: only calls replayed with their own item
    id (Responses `fc_…`) need it.

    Where, in such a turn: `position` is `first` (the turn opens with it), `carrier` (a
    signature-only reasoning part right before the turn's first call, i.e. the signature rides on
    that call), `before_call` (somewhere before each call) or `any` (anywhere in the turn). The
    reasoning must be of `origin` and, with `signature`, carry its signature (or be redacted);
    `what` names it as the provider does (`thinking block`, `reasoning_content`…).

    `stored`: a request parameter (a path, like `param`) that, set to false, means the provider keeps
    nothing between requests: the reasoning must then carry its signature whatever `signature` says,
    an id alone names nothing (`stored_what` names what is then needed, `stored_error` is the
    provider's answer)."""

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
    stored: tuple[str, ...] = ()
    stored_what: str = ""
    stored_error: str = ""


@dataclass(frozen=True, slots=True)
class FinalTurn:
    """A request may not end on the assistant's turn (a prefill): refused when tools are declared
    (`with_tools`, the provider's text) and, whatever the tools, on the models `refusing` matches
    (`refused`); accepted elsewhere (a prefill is a documented feature of older models), which is a
    warning at most. `models`, when set, limits the rule to matching models (Bedrock: Claude)."""

    with_tools: str
    refused: str
    refusing: str
    source: str
    models: str | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """One target's constraints; an empty entry means the target has no such limit."""

    call_id: tuple[Limit, ...] = ()
    tool_name: tuple[Limit, ...] = ()
    pairing: Pairing | None = None
    result_media: ResultMedia | None = None
    reasoning: ReasoningReplay | None = None
    final_turn: FinalTurn | None = None
    #: The request key a profile takes `max_tokens` under when it is not its format's own field
    #: (Chat Completions writes `max_completion_tokens`).
    max_tokens_key: str | None = None


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
        # the reasoning models: o-series, the gpt-5 family (not its -chat models) and codex
        # (https://platform.openai.com/docs/guides/reasoning)
        models=r"(?:^|/)(?:o[1-9](?:-|$)|codex-|gpt-5(?![\d.]*-chat))",
        error="Item '{item}' of type 'function_call' was provided without its required 'reasoning' "
              "item: 'rs_…'.",
        stored=("store",), stored_what="reasoning item with its encrypted_content (store is false)",
        stored_error="Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. "
                     "Try again with `store` set to true, or remove this item from your input.",
        source="issue continuedev/continue#10018; store: false, issues vercel/ai#7543, "
               "openai/openai-agents-js#546"),
)

#: Claude 4.6 and later, and the Claude 5 family: "Prefilling assistant messages returns a 400 error on
#: Claude 4.6 models" (https://platform.claude.com/docs/en/about-claude/models/migration-guide); ids
#: as Anthropic, Bedrock (`anthropic.claude-opus-4-6-v1`) and Vertex AI write them.
_NO_PREFILL = r"claude-[a-z]+-(?:4-[6-9]|[5-9])(?![0-9])"
_FINAL_TURN = FinalTurn(
    with_tools="Your API request included an `assistant` message in the final position, which would pre-fill "
               "the `assistant` response. When using tools, pre-filling the `assistant` response is not "
               "supported.",
    refused="This model does not support assistant message prefill. The conversation must end with a user "
            "message.",
    refusing=_NO_PREFILL,
    source="https://platform.claude.com/docs/en/api/errors; issues Doriandarko/claude-engineer#40 (with "
           "tools), jobrunr/JavaClaw#36 (Claude 4.6); Bedrock, langchain-ai/langchain-aws#124")

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
    final_turn=_FINAL_TURN,
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
    # Bedrock passes Claude's own rule on ("The model returned the following errors: …")
    final_turn=replace(_FINAL_TURN, models=r"(?:^|[./])claude-"),
    result_media=ResultMedia(
        frozenset({"image", "document", "video"}), "ToolResultContentBlock holds json, text, image, "
        "document, video and searchResult only",
        "botocore bedrock-runtime service-2.json ToolResultContentBlock"),
)

_OPENAI_PAIRING = OPENAI_CHAT.pairing
_OPENAI_MEDIA = OPENAI_CHAT.result_media

MISTRAL = Table(
    max_tokens_key="max_tokens",  # https://docs.mistral.ai/api/ (chat completion request)
    call_id=(
        Limit("pattern", "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9.",
              "issues nearai/ironclaw#1241, karthink/gptel#1203", value=r"[a-zA-Z0-9]{9}"),
    ),
    pairing=_OPENAI_PAIRING,
    result_media=_OPENAI_MEDIA,
)

DEEPSEEK = Table(
    max_tokens_key="max_tokens",  # https://api-docs.deepseek.com/api/create-chat-completion
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
    max_tokens_key="max_tokens",  # https://platform.moonshot.ai/docs/api/chat
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
# The machinery is in `tooldbg.fit`; these entry points look up the target's rows.


def fit_call_id(target: str, value: str, used: set[str]) -> str | None:
    """`value` as a call id `target` accepts (see `fit`); unchanged when the target sets no limit."""
    limits = _limits(target).call_id
    return fit(value, limits, used, fallback="call")


def fit_tool_name(target: str, value: str, used: set[str]) -> str | None:
    """`value` as a tool name `target` accepts (see `fit`)."""
    limits = _limits(target).tool_name
    return fit(value, limits, used, fallback="tool")


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
