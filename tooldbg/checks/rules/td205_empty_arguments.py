"""Arguments that are an empty string, where a call without arguments sends `"{}"`.

`""` is not JSON. It appears when a stream assembler starts a call with `"arguments": ""` and no
fragment ever follows (a tool without parameters), or when a model or gateway emits nothing for a
parameterless tool. Executors that `json.loads` the value fail ("Tool call 'get_ipinfo' have
non-JSON arguments ''"; "argument after ** must be a mapping, not str"), and replayed as history it
wedges the session for good: OpenAI-compatible upstreams that validate history answer "`arguments`
must be valid JSON" / "Assistant tool call function.arguments must be valid JSON." on every later
turn. The repair is mechanical — send `"{}"` — which is why this is its own finding and not TD202.
"""

from collections.abc import Iterator

from ...shorten import quote
from ..arguments import calls, finding
from ..base import Context, Finding

CODE = "TD205"
NAME = "empty-arguments"
SEVERITY = "error"
HARM = "damage"
MESSAGE = 'arguments are "" where "{}" is meant'
BAD = """
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_Zt41", "type": "function",
  "function": {"name": "list_open_tickets", "arguments": ""}}]}
"""
GOOD = """
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_Zt41", "type": "function",
  "function": {"name": "list_open_tickets", "arguments": "{}"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for call in calls(ctx):
        if not call.first or call.custom or call.broken_stream or call.encoding == "object":
            continue  # in an object format any string is TD204
        text = call.encoded_text()
        if text is not None and not text.strip():
            shown = '""' if not text else "only whitespace"
            yield finding(ctx, call, f'arguments of {quote(call.name)} are {shown}; a call without arguments '
                                     'sends "{}"')
