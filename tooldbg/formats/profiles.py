"""Provider profiles: targets that speak a wire format but add limits of their own (`mistral` speaks
OpenAI Chat Completions). Apart from the limit tables (`tooldbg.targets`, which names both here too),
so the command line and the writers can name a target without loading the tables."""

#: Provider profiles → the wire format they speak.
PROFILES: dict[str, str] = {"mistral": "openai-chat", "deepseek": "openai-chat", "kimi": "openai-chat"}


def wire_format(target: str) -> str:
    """The wire format a target writes (`mistral` → `openai-chat`)."""
    return PROFILES.get(target, target)
