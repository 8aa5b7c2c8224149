"""A tool name the target rejects: empty, outside its character set, or too long.

Tool names travel in every request, declared or called, and each provider validates them its own
way: OpenAI and DeepSeek "Invalid 'tools[0].function.name': string does not match pattern. Expected
a string that matches the pattern '^[a-zA-Z0-9_-]+$'."; Anthropic "tools.N.custom.name: String should
match pattern '^[a-zA-Z0-9_-]{1,128}$'"; Gemini "Invalid function name. Must start with a letter or an
underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-),
with a maximum length of 64."; Bedrock "Member must satisfy regular expression pattern:
[a-zA-Z0-9_-]+". MCP servers name tools `server.tool`, `get_/whoami` or `Complete Session`; what one
provider accepts (Gemini takes dots and colons) another refuses, and the whole request fails — even
when the tool is only declared. A name called in history must be renamed together with its
declaration. One finding per distinct name, at its declaration when there is one.
"""

from collections.abc import Iterator

from ...model import Invocation
from ...shorten import quote as shown
from ..base import Context, Finding
from ..targeting import failure, quote, target_table

CODE = "TD806"
NAME = "target-tool-name"
SEVERITY = "error"
HARM = "target"
TARGET = True
MESSAGE = "a tool name the target rejects (empty, charset or length)"
BAD = """
--target openai-chat, replaying a Gemini history with MCP tool names:
{"tools": [{"functionDeclarations": [{"name": "github.create_issue", "parameters": {"type": "OBJECT"}}]}]}
"""
GOOD = """
{"tools": [{"type": "function", "function": {"name": "github_create_issue",
  "parameters": {"type": "object"}}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    limits = target_table(ctx)
    if limits is None or not limits.tool_name:
        return
    for conv in ctx.conversations:
        seen: set[str] = set()
        for tool in conv.tools:
            if tool.kind != "function" or tool.name in seen:
                continue
            seen.add(tool.name)
            limit = failure(tool.name, limits.tool_name)
            if limit is not None:
                yield ctx.at(f"{ctx.target} rejects the declared tool name {shown(tool.name)}: "
                             + quote(limit.error, name=tool.name, length=len(tool.name)),
                             conversation=conv, source=tool.source)
        for t, _, p, part in ctx.parts(conv):
            if not isinstance(part, Invocation) or part.name in seen:
                continue
            seen.add(part.name)
            limit = failure(part.name, limits.tool_name)
            if limit is not None:
                yield ctx.at(f"{ctx.target} rejects the called tool name {shown(part.name)}: "
                             + quote(limit.error, name=part.name, length=len(part.name)),
                             conversation=conv, turn=t, part=p)
