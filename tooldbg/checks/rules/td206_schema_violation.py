"""Arguments that do not fit the parameter schema the request declared for the tool.

A required property missing, a value of the wrong type (`"days": "3"` for an integer), a value
outside its `enum`, or — only where the schema says `additionalProperties: false` — a property it
does not declare. Most providers return a call as the model generated it, so the tool receives
input its author ruled out: a strict executor answers with a validation error the model must
recover from, a lenient one runs with a silently coerced or missing value. With OpenAI `strict`
tools a violation means the constrained decoding was bypassed (a relay re-wrote the call, or a
different model answered).

Undeclared properties under a schema that does not forbid them are *not* reported: JSON Schema
allows them and so does every provider. The validator (`tooldbg.checks.schema`) reads standard JSON
Schema and Gemini's OpenAPI form (`OBJECT`, `nullable`); `oneOf` is read as `anyOf`; `format` is
ignored. Each message names the place: `$.city: expected string, got number`.
"""

from collections.abc import Iterator

from ...lacking import TOOLS
from ...shorten import quote
from ..arguments import calls, finding
from ..base import Context, Finding
from ..schema import validate

CODE = "TD206"
NAME = "schema-violation"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "arguments do not fit the declared tool schema"
NEEDS = (TOOLS,)
BAD = r"""
"tools": [{"type": "function", "function": {"name": "get_forecast", "parameters": {
  "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
  "required": ["city", "days"]}}}]
"tool_calls": [{"id": "call_4Rw", "type": "function",
  "function": {"name": "get_forecast", "arguments": "{\"days\": \"3\"}"}}]
"""
GOOD = r"""
"tool_calls": [{"id": "call_4Rw", "type": "function",
  "function": {"name": "get_forecast", "arguments": "{\"city\": \"Oslo\", \"days\": 3}"}}]
"""

_SHOWN = 3


def check(ctx: Context) -> Iterator[Finding]:
    for call in calls(ctx):
        if not call.first or call.custom or call.broken_stream or call.declared is None:
            continue
        args = call.call.arguments
        if args is None or isinstance(args, str) or call.call.raw_arguments is not None \
                or (call.encoding == "object" and call.has_wire and not isinstance(call.wire, dict)):
            continue  # arguments of the wrong shape are TD201-TD205's
        tool = call.declared.functions().get(call.name)
        if tool is None or not isinstance(tool.parameters, dict):
            continue
        errors = validate(args, tool.parameters)
        if errors:
            more = f" (and {len(errors) - _SHOWN} more)" if len(errors) > _SHOWN else ""
            yield finding(ctx, call, f"arguments of {quote(call.name)} do not fit its schema: "
                                     + "; ".join(errors[:_SHOWN]) + more)
