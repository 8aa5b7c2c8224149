"""A streamed tool call that ends up without its id or its name, or changes them mid-call.

The id is what the result must quote back (`tool_call_id`, `tool_use_id`, `call_id`, `toolUseId`);
the name is what the client dispatches on. When the fragment that should carry them never comes, or
a later fragment names another id (Poolside) or another function, the client either drops the call,
invents an id the provider never issued, or — like openai-python, which concatenates — ends up with
`call_acall_b`, so the next request is rejected ("Invalid parameter: messages with role 'tool' must
be a response to a preceeding message with 'tool_calls'.") or answers the wrong call. The finding
points at the chunk that opened the call or changed its identity.

Not findings: continuation fragments with an empty `"id":""` (Qwen) or `"name":""` (Mistral
format), which add nothing; a Responses item whose `.added` event carried a provisional `call_id`
that `response.output_item.done` replaces with the final one — the API finalizes items there and
every client takes the `.done` values (OpenAI itself does so for `tool_search_call`).
"""

from collections.abc import Iterator

from ..base import Context, Finding
from ..streams import finalized_item, streams

CODE = "TD503"
NAME = "stream-missing-id-or-name"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a streamed call without an id or a name, or whose id or name changes mid-call"
BAD = """
data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"get_weather","arguments":""}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":\\"Oslo\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
"""
GOOD = """
data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":\\"Oslo\\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]
"""


def check(ctx: Context) -> Iterator[Finding]:
    for stream in streams(ctx):
        for problem in stream.problems("identity"):
            if stream.format == "openai-responses" and finalized_item(stream, problem):
                continue
            yield stream.finding(ctx, problem.message, problem.chunk, kind="identity")
