"""Stream fragments that do not put back together in the order they claim.

A streamed tool call arrives in pieces addressed by position: Chat Completions `tool_calls[].index`,
Anthropic and Bedrock content-block indices, Responses `output_index` and `sequence_number`. A
relay that drops the `index` (Gemini's OpenAI-compatible endpoint), numbers every parallel call 0,
skips an index, interleaves the pieces of two calls or reorders events makes every assembler guess:
openai-python's accumulator raises or glues two calls' arguments together (`{"a":1}{"b":2}`), and an
agent executes the wrong call or none. A relay translating an Anthropic stream into Chat chunks that
passes on the content-block index starts the calls at 1 (the text block was 0; BerriAI/litellm#5231):
the accumulator files the call at position 0 and its later fragments as a second call without id or
name. A fragment that repeats its call's `id` on every piece (LiteLLM, Fireworks, some DeepSeek/Qwen
servers) is glued the same way into `call_xcall_xcall_x`, an id the next request cannot answer
("messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"). The
finding points at the chunk where the order broke.

Not findings: a call at content-block index 1 after a text block at 0 in Anthropic's and Bedrock's
own streams, or at `output_index` 1 after a message in the Responses API (they number text and calls
together; Chat numbers the calls alone, from 0); Groq and xAI sending a whole call in one fragment,
Mistral sending whole calls with no `index` but an id, Qwen's empty `"id":""` continuations,
OpenRouter's repeated finish chunks and comment lines. A Responses capture whose `sequence_number`s
only skip forward is missing events — recorders and fixture writers trim long delta runs (vercel/ai's
`openai-phase.1.chunks.txt`) — while its `.done` events and `response.completed` still carry every
value whole: from the first missing event on, the problems are the capture's, not the stream's, and
are only noted (info).
"""

from collections.abc import Iterator

from ..base import Context, Finding
from ..streams import missing_from, streams

CODE = "TD501"
NAME = "stream-fragment-order"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "stream fragments missing, reusing or skipping their index, or interleaved"
BAD = """
data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"call_B2","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Bergen\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
"""
GOOD = """
data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_B2","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Bergen\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
"""


def check(ctx: Context) -> Iterator[Finding]:
    for stream in streams(ctx):
        missing = missing_from(stream)
        trimmed = []
        for problem in stream.problems("order"):
            if missing is not None and (problem.chunk is None or problem.chunk >= missing[0]):
                trimmed.append(problem)  # events absent from the capture explain it (see above)
                continue
            yield stream.finding(ctx, problem.message, problem.chunk, kind="order")
        if trimmed and missing is not None:
            yield stream.finding(ctx, (
                f"the capture lacks {missing[1]} events (sequence_number skips ahead from here on): "
                f"{len(trimmed)} order problem(s) after it are the recording's, not the stream's — the "
                ".done events and response.completed carry every value whole"), missing[0],
                severity="info", harm="symptom")
