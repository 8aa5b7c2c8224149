"""What a log format does not carry, said once per file instead of being reported as defects.

An agent's own log is not a wire capture: a Claude Code session keeps the messages but not the
request that carried them (no tool declarations, no system prompt), an OpenTelemetry span often keeps
no tool-call ids, a Codex rollout no failure flag. A rule that needs such data would otherwise judge
the file on a guess (every call "to an undeclared tool"). So a reader states what its file lacks
(`Loaded.lacks`, named by the constants below), every view says it once (`show`, the TUI's file row,
`check --format json` `inputs[].lacks`), and a rule that declares it `NEEDS` one of them is not run on
that file (`checks.run_checks`).
"""

from __future__ import annotations

#: The tool declarations a request carried (and its tool choice).
TOOLS = "tools"
#: The system prompt.
SYSTEM = "system"
#: The ids that bind a tool result to its call.
IDS = "ids"
#: The conversation's messages themselves (a LiteLLM spend log kept without `store_prompts_in_spend_logs`).
PROMPTS = "prompts"

#: What each lack means, as the views say it.
MEANING = {
    TOOLS: "tool declarations (rules on undeclared tools and argument schemas are not run)",
    SYSTEM: "the system prompt",
    IDS: "tool-call ids (rules on ids are not run; results pair with calls by name and order)",
    PROMPTS: "the messages (the log was kept without prompts)",
}


def describe(lacks: tuple[str, ...] | list[str]) -> str:
    """`lacks tool declarations (…), the system prompt`: one line for the views."""
    return "lacks " + "; ".join(MEANING.get(item, item) for item in lacks)
