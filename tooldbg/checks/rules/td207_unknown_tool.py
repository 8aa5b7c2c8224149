"""A call to a tool the request did not declare.

The client has nothing to run: agent loops answer "unknown tool" (or crash on the lookup), and the
model, seeing its call fail, often repeats it. Typical causes: a tool renamed or sanitised on the
way (`mcp.github.create_issue` declared as `mcp_github_create_issue`, the model answering with the
original), a relay that dropped or filtered the tool list, a model trained on another agent's tool
names, or a prefix the model invents (`functions.get_weather`). Checked only against requests that
declare function tools at all: server-run and hosted tools (web search, code execution, MCP
connectors) and response-only logs with no request are not findings, nor are calls whose tools may
come from a tool search or a namespace. A call replayed in later requests is judged against the
request of the exchange where it first appears, so a tool list that changes later does not
re-judge old history.
"""

from collections.abc import Iterator, Mapping

from ...lacking import TOOLS
from ...shorten import plain, quote
from ..arguments import calls, finding
from ..base import Context, Finding

CODE = "TD207"
NAME = "unknown-tool"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a call to a tool the request did not declare"
NEEDS = (TOOLS,)
BAD = r"""
"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {...}}}]
"tool_calls": [{"id": "call_Lm2", "type": "function",
  "function": {"name": "get_forecast", "arguments": "{\"city\":\"Oslo\"}"}}]
"""
GOOD = r"""
"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {...}}}]
"tool_calls": [{"id": "call_Lm2", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]
"""

_SHOWN = 6


def check(ctx: Context) -> Iterator[Finding]:
    for call in calls(ctx):
        declared = call.declared
        if not call.first or declared is None or not call.name:
            continue
        if not declared.functions() or declared.dynamic() or _namespaced(call.call.meta):
            continue
        # Provider-defined client tools (Anthropic `bash_20250124` → `bash`, `memory_20250818`…) are
        # called by their name like function tools.
        names = declared.names()
        if call.name in names:
            continue
        listed = ", ".join(plain(n) for n in names[:_SHOWN])
        if len(names) > _SHOWN:
            listed += f" and {len(names) - _SHOWN} more"
        yield finding(ctx, call, f"call to {quote(call.name)}, which the request does not declare "
                                 f"(it declares {listed})", at=call.call.source)


def _namespaced(meta: Mapping) -> bool:
    own = meta.get("openai-responses")
    return isinstance(own, Mapping) and own.get("namespace") is not None
