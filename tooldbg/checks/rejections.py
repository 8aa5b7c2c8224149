"""The provider's rejections a log holds, and the rules that explain them (TD901).

A rejection is a response that is an error: an error body of any of the five formats (or, at an
HTTP error status, a body no reader recognised: a gateway's HTML page), an SSE `error` event, a
Responses `response.failed`, an OpenAI Chat error chunk, a Bedrock exception in the event stream.
`rejections(loaded)` finds them, for the TD901 rule (which `check`, `show`, the debugger and `diff`
report) and for the provider's own fields that `diff --format json` lists as `rejections`: one
source, so every view says the same.

`KNOWN` is the table that links a provider's error text to the tooldbg rules that explain it: each
row a pattern of the provider's own words, the rules, and the public source quoting that text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from ..formats.base import ApiError
from ..load import Loaded
from ..timeline import ExchangeRead


@dataclass(frozen=True, slots=True)
class Known:
    """A provider's error text (`pattern`, searched case-insensitively in the error's message), the
    rules that explain it, most likely first, where that text is quoted (`source`), and the
    providers (`tooldbg.formats.providers` keys) that answer with it: those known to reject what the rules
    find (`checks.evidence`)."""

    pattern: str
    codes: tuple[str, ...]
    source: str
    providers: tuple[str, ...]


KNOWN: tuple[Known, ...] = (
    # Anthropic Messages (Bedrock relays Claude's own texts: "The model returned the following errors: …")
    Known(r"`tool_use` ids were found without `tool_result` blocks immediately after",
          ("TD102", "TD405", "TD803"),
          "issue anthropics/claude-code#8210; text after a tool_use in its message gets the same 400 "
          "(anomalyco/opencode packages/llm/test/fixtures/recordings/anthropic-messages/"
          "rejects-malformed-assistant-tool-order-without-patch.json)",
          providers=("anthropic",)),
    Known(r"unexpected `tool_use_id` found in `tool_result` blocks", ("TD101", "TD103", "TD402"),
          "issue anthropics/claude-code#18947",
          providers=("anthropic",)),
    Known(r"Did not find \d+ `tool_result` block\(s\) at the beginning of this message", ("TD403", "TD102"),
          "issues apify/tester-mcp-client#12, langchain-ai/langchain-aws#451",
          providers=("anthropic",)),
    Known(r"each tool_use must have a single result", ("TD105",),
          "BerriAI/litellm tests/test_litellm/llms/anthropic/experimental_pass_through/adapters/"
          "test_anthropic_experimental_pass_through_adapters_transformation.py (a regression test "
          "quoting the 400)",
          providers=("anthropic",)),
    Known(r"`tool_use` ids must be unique", ("TD104",), "issue anthropics/claude-code#28515",
          providers=("anthropic",)),
    Known(r"tool_use\.id: String should match pattern", ("TD108", "TD801"), "issue BlockRunAI/ClawRouter#17",
          providers=("anthropic",)),
    Known(r"tool_use\.input: Input should be a valid dictionary", ("TD204",),
          "issue ComposioHQ/composio#3429",
          providers=("anthropic",)),
    Known(r"text content blocks must (?:be non-empty|contain non-whitespace text)", ("TD406",),
          "issues NousResearch/hermes-agent#55092, NousResearch/hermes-agent#61318",
          providers=("anthropic",)),
    Known(r"Expected `thinking` or `redacted_thinking`, but found", ("TD307", "TD805"),
          "issue Kilo-Org/kilocode#5219",
          providers=("anthropic",)),
    Known(r"`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified",
          ("TD307",), "issues anthropics/claude-code#19539, anthropics/claude-code#63203",
          providers=("anthropic",)),
    Known(r"all messages must have non-empty content", ("TD404",), "issue anthropics/claude-code#6774",
          providers=("anthropic",)),
    # A history that ends on the assistant's turn: a prefill, refused with tools declared and on the
    # models Anthropic lists as not supporting prefill (TD807)
    Known(r"included an `assistant` message in the final position.{0,80}When using tools, pre-filling",
          ("TD807", "TD102"), "issues Doriandarko/claude-engineer#40, inngest/agent-kit#41; Bedrock, "
          "langchain-ai/langchain-aws#124",
          providers=("anthropic",)),
    Known(r"does not support assistant message prefill|Prefilling assistant messages is not supported",
          ("TD807",), "https://platform.claude.com/docs/en/about-claude/models/migration-guide (\"Prefilling "
          "assistant messages returns a 400 error on Claude 4.6 models\"); issue jobrunr/JavaClaw#36",
          providers=("anthropic",)),
    Known(r"tools\.\d+\.custom\.name: String should match pattern", ("TD806",),
          "issue microsoft/vscode#262790",
          providers=("anthropic",)),
    # OpenAI Chat Completions, and the providers that answer with its texts
    Known(r"messages with role 'tool' must be a response to a prece+ding", ("TD101", "TD402"),
          "issues miurla/morphic#136 (`preceeding`), FoundationAgents/OpenManus#744 (`preceding`); "
          "api.deepseek.com answers with the same text (FoundationAgents/OpenManus#23, deepseek-chat)",
          providers=("openai", "deepseek")),
    Known(r"An assistant message with 'tool_calls' must be followed by tool messages responding to each",
          ("TD102", "TD402", "TD803"), "issue router-for-me/CLIProxyAPI#2798",
          providers=("openai",)),
    Known(r"Invalid value: '[^']+'\. Supported values are: 'text', 'image_url'", ("TD404",),
          "pull request agno-agi/agno#4772 (an Anthropic `tool_result` block sent to Chat Completions)",
          providers=("openai",)),
    Known(r"'messages\[\d+\]\.tool_calls\[\d+\]\.id': string too long", ("TD802",),
          "issue agno-agi/agno#5382",
          providers=("openai",)),
    Known(r"'messages\[\d+\]\.tool_calls\[\d+\]\.id': empty string", ("TD108", "TD801"),
          "issue continuedev/continue#9784 (the validator's wording for an empty tool-call field)",
          providers=("openai",)),
    Known(r"'messages\[\d+\]\.tool_calls\[\d+\]\.function\.arguments': expected a string", ("TD203",),
          "pull request aaif-goose/goose-mobile#20",
          providers=("openai",)),
    Known(r"'tools\[\d+\]\.(?:function\.)?name': "
          r"(?:string does not match pattern|string too long|empty string)", ("TD806",),
          "issues brekkylab/ailoy#109, justrach/codegraff#930, continuedev/continue#9784",
          providers=("openai", "deepseek")),
    Known(r"Tool call id was \S* but must be a-z, A-Z, 0-9, with a length of 9", ("TD801",),
          "Mistral; issues nearai/ironclaw#1241, karthink/gptel#1203",
          providers=("mistral",)),
    Known(r"`reasoning_content`.{0,80}(?:missing|must be passed back)|Missing `reasoning_content`|"
          r"reasoning_content is missing", ("TD307", "TD805"),
          "DeepSeek, Kimi; issues abhigyanpatwari/GitNexus#43, earendil-works/pi#3636, "
          "continuedev/continue#11806",
          providers=("deepseek", "kimi")),
    # OpenAI Responses
    Known(r"No tool output found for function call", ("TD102", "TD803"),
          "issue router-for-me/CLIProxyAPI#2368",
          providers=("openai",)),
    Known(r"No tool call found for function call output with call_id", ("TD101",),
          "issue microsoft/vscode#320060",
          providers=("openai",)),
    Known(r"was provided without its required 'reasoning' item", ("TD307", "TD805"),
          "issue continuedev/continue#10018",
          providers=("openai",)),
    Known(r"Item with id '[^']*' not found\. Items are not persisted when `store` is set to false",
          ("TD307", "TD805"), "issues vercel/ai#7543, openai/openai-agents-js#546",
          providers=("openai",)),
    Known(r"'input\[\d+\]\.call_id': (?:empty string|string too long)", ("TD108", "TD801"),
          "issues diegosouzapw/OmniRoute#707, AnswerDotAI/fastllm#45",
          providers=("openai",)),
    # Gemini
    Known(r"Function call is missing a thought_signature", ("TD307", "TD805"),
          "issue lbjlaq/Antigravity-Manager#3202; https://ai.google.dev/gemini-api/docs/thought-signatures",
          providers=("gemini",)),
    Known(r"number of function response parts is equal to the number of function call parts",
          ("TD102", "TD105", "TD803"), "issue cloudwego/eino-ext#571",
          providers=("gemini",)),
    Known(r"function response turn comes immediately after a function call turn", ("TD101", "TD402"),
          "issue langchain-ai/langchain#27799",
          providers=("gemini",)),
    Known(r"functionResponse\.id does not match functionCall\.id", ("TD103",),
          "issue router-for-me/CLIProxyAPI#5199",
          providers=("gemini",)),
    Known(r"function_declarations\[\d+\]\.name: Invalid function name", ("TD806",),
          "issue google-gemini/gemini-cli#9535",
          providers=("gemini",)),
    Known(r"Please use a valid role: user, model", ("TD404",), "issue the-open-agent/openagent#1666",
          providers=("gemini",)),
    # Bedrock Converse (HTTP 400 ValidationException)
    # TD404: results sent as another format's blocks (Anthropic `tool_result`) are no toolResult blocks
    Known(r"Expected toolResult blocks at messages\.\d+\.content for the following Ids",
          ("TD102", "TD402", "TD803", "TD404"), "issue zeroclaw-labs/zeroclaw#1476",
          providers=("bedrock",)),
    Known(r"number of toolResult blocks at messages?\.\d+\.content exceeds the number of toolUse blocks",
          ("TD101", "TD105"), "issues pydantic/pydantic-ai#2327, Just-Curieous/Curie#16",
          providers=("bedrock",)),
    Known(r"The text field in the ContentBlock object at messages\.\d+\.content\.\d+ is blank", ("TD406",),
          "issue aws-samples/bedrock-engineer#8",
          providers=("bedrock",)),
    Known(r"The content field in the Message object at messages\.\d+ is empty", ("TD404",),
          "pull request earendil-works/pi#3443",
          providers=("bedrock",)),
    Known(r"toolUse\.toolUseId' failed to satisfy constraint", ("TD108", "TD801"),
          "issue openclaw/openclaw#12892",
          providers=("bedrock",)),
    Known(r"(?:toolSpec|toolUse)\.name' failed to satisfy constraint", ("TD806",),
          "issues BerriAI/litellm#24668, aws-samples/remote-swe-agents#457, openclaw/openclaw#12892",
          providers=("bedrock",)),
)

#: Error types and statuses that say the request was not at fault: a rate limit, an overloaded or
#: failing server, a credential (Anthropic `rate_limit_error`, `overloaded_error`, `api_error`;
#: OpenAI `insufficient_quota`, `server_error`; Gemini `RESOURCE_EXHAUSTED`, `UNAVAILABLE`;
#: Bedrock `ThrottlingException`, `ServiceUnavailableException`, `ModelNotReadyException`).
_NOT_THE_HISTORY = re.compile(
    r"rate_limit|overloaded|^api_error$|insufficient_quota|server_error|RESOURCE_EXHAUSTED|UNAVAILABLE|"
    r"INTERNAL|DEADLINE_EXCEEDED|Throttling|ServiceUnavailable|ModelNotReady|InternalServer|"
    r"authentication|permission|UNAUTHENTICATED|PERMISSION_DENIED|AccessDenied", re.I)


#: The same said in an error's words, for an error event that gives no type (`Overloaded`).
_NOT_THE_HISTORY_WORDS = re.compile(
    r"\boverloaded\b|rate.?limit|too many (?:requests|tokens)|exceeded your current quota|throttl|"
    r"try again later", re.I)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


def matching(message: str) -> Known | None:
    """The first row of the table whose words the message holds."""
    return next((k for k in KNOWN if _compiled(k.pattern).search(message)), None)


def explaining(message: str) -> tuple[str, ...]:
    """The rules that explain a rejection with this message (the first row that matches), or ()."""
    found = matching(message)
    return found.codes if found is not None else ()


def not_the_history(error: ApiError, status: int | None) -> bool:
    """A rejection that is no defect of the request's history: a rate limit, an overloaded or failing
    server, a missing credential (by the error's type or code, or an HTTP 401, 403, 429 or 5xx)."""
    kinds = " ".join(k for k in (error.type, error.code) if k)
    return bool(kinds and _NOT_THE_HISTORY.search(kinds)) or status in (401, 403, 429) or \
        (status is not None and status >= 500) or bool(_NOT_THE_HISTORY_WORDS.search(error.message[:500]))


@dataclass(frozen=True, slots=True)
class Rejection:
    """One error response of an exchange: the error, the event that carried it in a stream
    (`chunk`), and where it is in the response body (`pointer`; empty for a stream or a body that
    is the error itself)."""

    read: ExchangeRead
    error: ApiError
    chunk: int | None = None
    pointer: str = ""

    @property
    def exchange(self) -> int:
        return self.read.exchange.index

    @property
    def status(self) -> int | None:
        response = self.read.exchange.response
        return response.status if response is not None else None


def rejections(loaded: Loaded) -> Iterator[Rejection]:
    """Every error response in the file, in log order: a response read as an error, and a stream
    that carried an error event (Anthropic `event: error` after `message_start`, a Bedrock exception)
    even where the message before it was kept."""
    for read in loaded.reads:
        for i, response in enumerate(read.responses):
            stream = read.streams[i] if i < len(read.streams) else None
            events = [p for p in stream.problems if p.kind == "error"] if stream is not None else []
            error = response.error or (ApiError(message=events[0].message) if events else None)
            if error is None:
                continue
            if stream is not None:
                yield Rejection(read, error, chunk=events[0].chunk if events else None)
                continue
            body = read.exchange.response.body if read.exchange.response is not None else None
            at = "/error" if isinstance(body, dict) and "error" in body else ""  # Bedrock: the body itself
            yield Rejection(read, error, pointer=at)
