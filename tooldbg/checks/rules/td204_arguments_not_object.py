"""Arguments sent as a string (or another non-object) where the wire requires a JSON object.

Anthropic `tool_use.input`, Gemini `functionCall.args` and Bedrock `toolUse.input` are objects. A
converter that copies OpenAI's JSON-string `arguments` across unchanged produces
`"input": "{\\"city\\":\\"Paris\\"}"`, which Anthropic rejects — "tool_use.input: Input should be a
valid dictionary" — and which Gemini and Bedrock either reject or hand to the tool as one opaque
string. Checked on the wire of every request and response that carries the call; a canonical
document read from Anthropic keeps the fact as `meta.anthropic.string_input`. (Bedrock *streams*
deliver `input` as string fragments by design: only the assembled value counts.)
"""

from collections.abc import Iterator, Mapping

from ... import formats
from ...jsonio import try_loads
from ...shorten import quote
from ..arguments import Call, calls, describe, short, unique
from ..base import Context, Finding

CODE = "TD204"
NAME = "arguments-not-object"
SEVERITY = "error"
HARM = "rejection"
LOST = ("the arguments are not in the shape the format defines, and how the provider read them is "
        "unknown")
MESSAGE = "arguments are a string where the wire requires a JSON object"
BAD = r"""
{"role": "assistant", "content": [
  {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": "{\"city\":\"Paris\"}"}]}
"""
GOOD = """
{"role": "assistant", "content": [
  {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    return unique(ctx, _findings(ctx))


def _findings(ctx: Context) -> Iterator[tuple[Call, str]]:
    for call in calls(ctx):
        if call.broken_stream:
            continue
        if call.format is not None and call.encoding == "object":
            # Protobuf JSON reads a null `args` as unset (Gemini), and Bedrock's is a document: only
            # Anthropic's pydantic model is known to reject `"input": null`.
            if call.has_wire and not isinstance(call.wire, dict) and not (
                    call.wire is None and call.format != "anthropic"):
                what = describe(call.wire)
                if isinstance(call.wire, str):
                    what = "a JSON string" if _is_json(call.wire) else "a string (not even JSON)"
                field = formats.facts(call.format).arguments_path[-1]
                yield call, (f"{field} of {quote(call.name)} is {what} "
                             f"({short(call.wire, 40)}); {call.format} requires an object")
        elif not call.has_wire and call.format is None:
            own = call.call.meta.get("anthropic")
            if isinstance(own, Mapping) and own.get("string_input"):
                yield call, (f"input of {quote(call.name)} was a JSON string on the Anthropic "
                             "wire; anthropic requires an object")


def _is_json(text: str) -> bool:
    return try_loads(text)[0]
