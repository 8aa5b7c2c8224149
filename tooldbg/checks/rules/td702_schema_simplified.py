"""A tool reached the model with a simpler schema than the client declared: parameters, required
fields or enums removed.

Relays translate JSON Schema between dialects (OpenAI `parameters`, Anthropic `input_schema`, Gemini's
OpenAPI subset, Bedrock `inputSchema.json`), and a translation that does not know a keyword — or
"sanitizes" the schema for a provider that rejects some — can strip much more than it must: every
`properties` entry, the `required` list, an `enum`. The model then calls the tool with arguments the
client's code does not expect (a missing required field, a unit outside the enum — TD206 on the
client's side), or with no arguments at all. Only the keywords that constrain a call are compared
(`properties`, `required`, `enum`, at any depth), since providers legitimately differ on the others
(`additionalProperties`, `format`, `$schema`). Produced by `tooldbg diff CLIENT UPSTREAM`.
"""

from collections.abc import Iterator

from ..base import Context, Finding

CODE = "TD702"
NAME = "schema-simplified"
SEVERITY = "error"
HARM = "damage"
DIFF = True
MESSAGE = "a tool's schema lost parameters, required fields or enums between the two sides"
BAD = """
a (client, openai-chat):
{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
  "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
  "required": ["city"]}}}
b (upstream, anthropic):
{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
"""
GOOD = """
b (upstream, anthropic):
{"name": "get_weather", "input_schema": {"type": "object",
  "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
  "required": ["city"]}}
"""


def check(ctx: Context) -> Iterator[Finding]:
    return iter(())  # two logs compared: tooldbg/diff/
