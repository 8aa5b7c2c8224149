"""A tool call's arguments differ between the two sides: the relay changed what the model asked for,
or what the client replays.

Arguments cross a relay twice: in the response (the model's call, translated back to the client) and
in every later request (the client's replay, translated to the upstream). A translation that
re-encodes them — parses a JSON string and drops a key it does not know, coerces `"5"` to `5`, cuts a
long value, glues two streamed calls' fragments into one — makes the client execute a call the model
did not make, or shows the model a call it did not make. Both sides are read into parsed arguments,
so a string on one wire and an object on the other compare equal; key order and number spelling do
not count. Produced by `tooldbg diff CLIENT UPSTREAM`.
"""

from collections.abc import Iterator

from ..base import Context, Finding

CODE = "TD704"
NAME = "arguments-changed"
SEVERITY = "error"
HARM = "damage"
DIFF = True
MESSAGE = "a call's arguments differ between the two sides"
BAD = """
b (upstream, anthropic response):
{"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Oslo", "unit": "celsius"}}
a (client, openai-chat response, from the relay):
{"id": "toolu_01", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}
"""
GOOD = """
a (client, openai-chat response, from the relay):
{"id": "toolu_01", "type": "function", "function": {"name": "get_weather",
  "arguments": "{\\"city\\":\\"Oslo\\",\\"unit\\":\\"celsius\\"}"}}
"""


def check(ctx: Context) -> Iterator[Finding]:
    return iter(())  # two logs compared: tooldbg/diff/
