"""Provider profiles: targets that speak a wire format but add limits of their own (`mistral` speaks
OpenAI Chat Completions). Named by the provider-identity table (`tooldbg.formats.providers`, each provider
with a profile), apart from the limit tables (`tooldbg.targets`, which names each profile's limits),
so the command line and the writers can name a target without loading the tables."""

from .providers import PROVIDERS

#: Provider profiles → the wire format they speak.
PROFILES: dict[str, str] = {p.profile: p.wire for p in PROVIDERS
                            if p.profile is not None and p.wire is not None}


def wire_format(target: str) -> str:
    """The wire format a target writes (`mistral` → `openai-chat`)."""
    return PROFILES.get(target, target)
