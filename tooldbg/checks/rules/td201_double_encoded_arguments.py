r"""Tool-call arguments encoded as JSON twice: a JSON string that decodes to another JSON string.

OpenAI-style `arguments` are a JSON-encoded string; encoded once more, they decode to a
*string* holding JSON (`"\"{\\\"city\\\":\\\"Paris\\\"}\""` on the wire) instead of an object.
Nothing rejects it: the provider accepts any string, the tool receives a string where it expected
named parameters (so `city` is silently missing), and a converter that turns the call into an
Anthropic `input` or a Gemini `args` fails with "Input should be a valid dictionary". The usual
cause is a relay or SDK calling `json.dumps` on arguments that were already a string — LiteLLM's
trailing summary chunk re-sent double-encoded arguments (BerriAI/litellm#20480). In formats that
carry an object (`input`, `args`), a string holding a JSON string is the same defect one level
deeper; a string holding the object itself is TD204.
"""

from collections.abc import Iterator

from ...shorten import quote
from ..arguments import calls, decode_levels, finding, short
from ..base import Context, Finding

CODE = "TD201"
NAME = "double-encoded-arguments"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "arguments are a JSON string that decodes to another JSON string"
BAD = r"""
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_8fKq2", "type": "function",
  "function": {"name": "get_weather",
               "arguments": "\"{\\\"city\\\":\\\"Paris\\\"}\""}}]}
"""
GOOD = r"""
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_8fKq2", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for call in calls(ctx):
        if not call.first or call.custom or call.broken_stream:
            continue
        if call.has_wire:
            if not isinstance(call.wire, str):
                continue
            levels, value = decode_levels(call.wire)
            extra = levels - 1  # the wire string itself is one decoding (TD204 where it should not be)
        elif isinstance(call.call.arguments, str):
            levels, value = decode_levels(call.call.arguments)
            extra = levels
        else:
            continue
        if extra >= 1 and isinstance(value, dict | list):
            times = "twice" if extra == 1 else f"{extra + 1} times"
            yield finding(ctx, call, f"arguments of {quote(call.name)} are JSON-encoded {times}: they decode "
                                     f"to a string holding {short(value)}, not to the {_kind(value)}")


def _kind(value: object) -> str:
    return "object" if isinstance(value, dict) else "array"
