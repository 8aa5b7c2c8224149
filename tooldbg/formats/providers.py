"""Who received a request: the provider, told from the endpoint's host (or its default port) and
from the model name. One table, read by every rule whose severity depends on the provider
(`tooldbg.checks.evidence`) and by the `--target` profiles (`formats.profiles.PROFILES` is derived
from it), so `--target deepseek` and a log sent to api.deepseek.com name the same provider.

A host says more than a model name: a relay or a router (OpenRouter) serves many vendors' models,
so the host is asked first and the model name only when no host is known. Model names are matched
only where they are the provider's own API ids (`deepseek-reasoner`, `claude-…`): an open-weights
name (`openai/gpt-oss-120b`, `Qwen/Qwen3-8B`) is served by anyone and names no provider. Servers
that run on a machine of their own are known only by their default port (vLLM 8000, SGLang 30000,
Ollama 11434), and say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class Provider:
    """One provider. `hosts` is a regex over the URL's host name (whole), `port` a default port
    (any host), `models` a regex over the start of a model name. `native` lists the wire formats
    whose constraint table (`tooldbg.targets`) is this provider's own; `profile` names the
    `--target` profile holding its limits where it speaks another vendor's format (`wire`)."""

    key: str
    name: str
    source: str
    hosts: str | None = None
    port: int | None = None
    models: str | None = None
    native: tuple[str, ...] = ()
    profile: str | None = None
    wire: str | None = None
    #: It serves Claude models too, and answers for them in Anthropic's words (Bedrock: "The model
    #: returned the following errors: …"; Vertex AI's Claude endpoints).
    serves_claude: bool = False

    def target(self, fmt: str | None) -> str | None:
        """The `--target` table that judges a request in format `fmt` sent to this provider (`fmt`
        unknown: its one format, if it has one)."""
        if self.profile is not None:
            return self.profile
        if fmt is None:
            return self.native[0] if len(self.native) == 1 else None
        return fmt if fmt in self.native else None


PROVIDERS: tuple[Provider, ...] = (
    Provider("openai", "OpenAI", "https://platform.openai.com/docs/api-reference; Azure OpenAI "
             "https://learn.microsoft.com/azure/ai-services/openai/reference",
             hosts=r"api\.openai\.com|[\w-]+\.openai\.azure\.com",
             # gpt-oss is open weights, served by anyone
             models=r"(?!gpt-oss)(?:gpt-\d|chatgpt-|o[1-9](?:-|$)|codex-|computer-use-)",
             native=("openai-chat", "openai-responses")),
    Provider("anthropic", "Anthropic", "https://docs.anthropic.com/en/api/messages",
             hosts=r"api\.anthropic\.com", models=r"claude-", native=("anthropic",)),
    Provider("gemini", "Google Gemini", "https://ai.google.dev/api/generate-content; Vertex AI "
             "https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest",
             hosts=r"generativelanguage\.googleapis\.com|(?:[\w-]+-)?aiplatform\.googleapis\.com",
             models=r"gemini-", native=("gemini",)),
    Provider("bedrock", "Amazon Bedrock", "https://docs.aws.amazon.com/bedrock/latest/APIReference/"
             "API_runtime_Converse.html; model ids https://docs.aws.amazon.com/bedrock/latest/userguide/"
             "models-supported.html",
             hosts=r"bedrock-runtime(?:-fips)?\.[\w-]+\.amazonaws\.com",
             models=r"(?:(?:us|eu|apac|global|jp|au|ca|us-gov)\.)?"
                    r"(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek|writer|qwen)\.[\w.:-]+-v\d",
             native=("bedrock",), serves_claude=True),
    Provider("mistral", "Mistral", "https://docs.mistral.ai/api/", hosts=r"(?:api|codestral)\.mistral\.ai",
             models=r"(?:mistral-(?:large|medium|small|tiny|saba)|codestral|magistral|devstral|ministral|"
                    r"pixtral|open-mistral|open-mixtral)",
             profile="mistral", wire="openai-chat"),
    Provider("deepseek", "DeepSeek", "https://api-docs.deepseek.com/ (base URL, models deepseek-chat "
             "and deepseek-reasoner)", hosts=r"api\.deepseek\.com", models=r"deepseek-(?:chat|reasoner)\b",
             profile="deepseek", wire="openai-chat"),
    Provider("kimi", "Kimi (Moonshot)", "https://platform.moonshot.ai/docs/api/chat (api.moonshot.ai, "
             "api.moonshot.cn)", hosts=r"api\.moonshot\.(?:ai|cn)", models=r"kimi-|moonshot-v1",
             profile="kimi", wire="openai-chat"),
    Provider("xai", "xAI", "https://docs.x.ai/docs/api-reference", hosts=r"api\.x\.ai", models=r"grok-"),
    Provider("groq", "Groq", "https://console.groq.com/docs/openai", hosts=r"api\.groq\.com"),
    Provider("openrouter", "OpenRouter", "https://openrouter.ai/docs/api-reference/overview",
             hosts=r"openrouter\.ai"),
    Provider("together", "Together AI", "https://docs.together.ai/docs/openai-api-compatibility",
             hosts=r"api\.together\.(?:xyz|ai)"),
    Provider("vllm", "vLLM", "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html "
             "(`vllm serve` listens on port 8000 by default)", port=8000),
    Provider("sglang", "SGLang", "https://docs.sglang.ai/basic_usage/send_request.html "
             "(`python -m sglang.launch_server` listens on port 30000 by default)", port=30000),
    Provider("ollama", "Ollama", "https://github.com/ollama/ollama/blob/main/docs/openai.md "
             "(localhost:11434)", port=11434),
)

BY_KEY: dict[str, Provider] = {p.key: p for p in PROVIDERS}


@dataclass(frozen=True, slots=True)
class Identity:
    """A provider and what told it (`the URL host api.deepseek.com`, `the model deepseek-reasoner`,
    `port 8000, vLLM's default`, `--target deepseek`)."""

    provider: Provider
    how: str


def identify(url: str | None, model: str | None) -> Identity | None:
    """The provider a request went to, from its URL (host, then default port) and else its model."""
    if url:
        return _by_url(url) or (_by_model(model) if model else None)
    return _by_model(model) if model else None


def by_target(target: str) -> Identity | None:
    """The provider a `--target` names: a profile's own, or the one whose format it is."""
    found = next((p for p in PROVIDERS if p.profile == target), None) or \
        next((p for p in PROVIDERS if target in p.native), None)
    return Identity(found, f"--target {target}") if found is not None else None


@cache
def _by_url(url: str) -> Identity | None:
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:  # a port that is not a number
        return None
    if not host:
        return None
    for provider in PROVIDERS:
        if provider.hosts is not None and re.fullmatch(provider.hosts, host):
            return Identity(provider, f"the URL host {host}")
    for provider in PROVIDERS:
        if provider.port is not None and port == provider.port:
            return Identity(provider, f"port {port}, {provider.name}'s default")
    return None


@cache
def _by_model(model: str) -> Identity | None:
    for provider in PROVIDERS:
        if provider.models is not None and re.match(provider.models, model):
            return Identity(provider, f"the model {model}")
    return None


def claude(model: str | None) -> bool:
    """An Anthropic model, by any provider's name for it (`claude-…`, Bedrock `us.anthropic.claude-…`,
    Vertex AI `claude-…@…`)."""
    return bool(model) and re.search(r"(?:^|[./])claude-", model or "") is not None
