"""A tool the client declared never reached the model: the relay dropped it (or the forced choice).

Gateways and relays ("API transit stations") rebuild each request for the upstream provider, and
some rebuild it without `tools` — the upstream model does not support them, the relay's translation
has no mapping for a hosted tool, a tool name was rejected and quietly left out, or `tool_choice` was
not carried. Nothing fails: the model answers in text, or calls nothing, and the agent concludes the
model "ignored" its tools (TD603 is the symptom on one side). Comparing the request the client sent
with the request the upstream received shows the declaration that went missing, on the side that
lacks it. Produced by `tooldbg diff CLIENT UPSTREAM`, not by `check` on one file.
"""

from collections.abc import Iterator

from ..base import Context, Finding

CODE = "TD701"
NAME = "tools-dropped"
SEVERITY = "error"
HARM = "damage"
DIFF = True
MESSAGE = "a tool (or a forced tool choice) declared on one side is missing on the other"
BAD = """
a (client → relay, openai-chat):
{"model": "gpt-4o", "tool_choice": "required", "messages": [{"role": "user", "content": "Weather in Oslo?"}],
 "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
   "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]}
b (relay → upstream, anthropic):
{"model": "claude-sonnet-4-5", "max_tokens": 1024,
 "messages": [{"role": "user", "content": "Weather in Oslo?"}]}
"""
GOOD = """
b (relay → upstream, anthropic):
{"model": "claude-sonnet-4-5", "max_tokens": 1024, "tool_choice": {"type": "any"},
 "messages": [{"role": "user", "content": "Weather in Oslo?"}],
 "tools": [{"name": "get_weather", "input_schema": {"type": "object",
   "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    return iter(())  # two logs compared: tooldbg/diff/
