"""What each provider accepts: one table per target, data not code, read by the TD8xx rules.

Targets are the five wire formats plus provider profiles that speak a format but add limits
(`mistral`, `deepseek`, `kimi` speak OpenAI Chat Completions).
"""

from __future__ import annotations

#: Provider profiles → the wire format they speak.
PROFILES: dict[str, str] = {"mistral": "openai-chat", "deepseek": "openai-chat", "kimi": "openai-chat"}


def wire_format(target: str) -> str:
    """The wire format a target writes (`mistral` → `openai-chat`)."""
    return PROFILES.get(target, target)
