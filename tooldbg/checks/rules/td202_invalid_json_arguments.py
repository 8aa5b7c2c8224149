"""Tool-call arguments that are not valid JSON.

The tool cannot be run with them (the client's `json.loads` raises, or an agent framework answers
with a parse error the model then has to recover from), and once the call sits in history it wedges
the conversation: strict OpenAI-compatible gateways re-parse every replayed `arguments` and reject
the whole request ("Invalid request: messages.70.tool_calls.0.function.arguments: arguments must be a
valid JSON object string"; "`arguments` must be valid JSON"), on every later turn. Causes: a
generation cut at `max_tokens`, a context compactor truncating history text, a model emitting
Python literals (`{'city': 'Paris'}`) or trailing commas. A streamed call whose assembled arguments
break is reported by the stream rules (TD502, TD504) at the chunk; an empty string is TD205.
"""

from collections.abc import Iterator

from ...errors import FormatError
from ...jsonio import loads
from ...shorten import quote
from ..arguments import calls, finding, short
from ..base import Context, Finding

CODE = "TD202"
NAME = "invalid-json-arguments"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "tool-call arguments are not valid JSON"
BAD = r"""
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_8fKq2", "type": "function",
  "function": {"name": "get_weather", "arguments": "{'city': 'Paris'}"}}]}
"""
GOOD = r"""
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_8fKq2", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for call in calls(ctx):
        raw = call.call.raw_arguments
        if not call.first or call.custom or call.broken_stream or raw is None or not raw.strip():
            continue
        if call.encoding == "object" and isinstance(call.wire, str):
            continue  # a string where an object belongs: TD204 says so
        yield finding(ctx, call, f"arguments of {quote(call.name)} are not valid JSON ({_why(raw)}): {short(raw)}")


def _why(raw: str) -> str:
    try:
        loads(raw)
    except FormatError as err:
        return err.message
    return "unreadable"
