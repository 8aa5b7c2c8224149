"""A streamed response that ended without its terminal event.

`message_stop`, `response.completed`, `[DONE]`, a final `finishReason`, `messageStop`: without it the
client cannot know the message was whole, and SDKs that accumulate the stream hand back a message
whose last tool call may be cut mid-arguments — which the agent then executes or replays. A stream
the provider ended with an error event (Anthropic `event: error`, a Bedrock exception) is not
truncated but rejected: TD901 reports it, at that event.
"""

from collections.abc import Iterator

from ..base import Context, Finding

CODE = "TD504"
NAME = "stream-truncated"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a stream with no terminal event"
BAD = """
event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Os"}}

(connection closed)
"""
GOOD = """
event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":20}}

event: message_stop
data: {"type":"message_stop"}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for read in ctx.reads:
        for stream in read.streams:
            if any(p.kind == "error" for p in stream.problems):
                continue  # the provider ended it with an error event: TD901 reports it there
            for problem in stream.problems:
                if problem.kind == "truncated":
                    yield ctx.at_exchange(read, problem.message, chunk=problem.chunk)
