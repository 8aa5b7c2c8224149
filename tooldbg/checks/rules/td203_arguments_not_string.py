"""Arguments sent as a JSON object where the wire requires a JSON-encoded string.

OpenAI Chat Completions (`function.arguments`) and Responses (`function_call.arguments`) carry
arguments as a *string* of JSON. A client that replays them as the parsed object — or a relay that
translates from Anthropic/Gemini and forgets to encode them — gets the whole request rejected:
"Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object
instead." (`code: invalid_type`). In a response, the same shape breaks the SDKs, which
`json.loads` the string. `null`, arrays, numbers and booleans fail the same way. Checked on the wire
of every request and response that carries the call, since a canonical reading cannot tell the two
encodings apart.
"""

from collections.abc import Iterator

from ...shorten import quote
from ..arguments import Call, calls, describe, short, unique
from ..base import Context, Finding

CODE = "TD203"
NAME = "arguments-not-string"
SEVERITY = "error"
HARM = "rejection"
LOST = ("the arguments are not in the shape the format defines, and how the provider read them is "
        "unknown")
MESSAGE = "arguments are an object where the wire requires a JSON string"
BAD = """
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_8fKq2", "type": "function",
  "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}
"""
GOOD = r"""
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_8fKq2", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    return unique(ctx, _findings(ctx))


def _findings(ctx: Context) -> Iterator[tuple[Call, str]]:
    for call in calls(ctx):
        if call.encoding != "string" or call.custom or call.broken_stream:
            continue
        if call.has_wire and not isinstance(call.wire, str):
            yield call, (f"arguments of {quote(call.name)} are {describe(call.wire)} "
                         f"({short(call.wire, 40)}); {call.format} requires a JSON string")
