"""Where a request is forwarded, and the variables that point a client at the proxy.

Without `--upstream`, the provider is told by the request's path: each API's endpoints live under
paths no other one uses. With it, every request goes to that URL, the request's path appended to
the URL's own (`--upstream https://openrouter.ai/api` + `/v1/chat/completions`).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

#: (path prefix, provider origin), first match wins. Anthropic Messages
#: (https://docs.anthropic.com/en/api/messages), OpenAI Chat Completions and Responses
#: (https://platform.openai.com/docs/api-reference), the Gemini API
#: (https://ai.google.dev/api/generate-content: `/v1beta/models/{model}:generateContent`).
PROVIDERS: tuple[tuple[str, str], ...] = (
    ("/v1/messages", "https://api.anthropic.com"),
    ("/v1/chat/completions", "https://api.openai.com"),
    ("/v1/responses", "https://api.openai.com"),
    ("/v1beta/models", "https://generativelanguage.googleapis.com"),
)


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where one request goes: `scheme://host:port` and the path (with its query) to ask for."""

    scheme: str
    host: str
    port: int
    path: str

    @property
    def origin(self) -> tuple[str, str, int]:
        return self.scheme, self.host, self.port

    @property
    def where(self) -> str:
        """`host:port`, as a message about reaching the provider names it."""
        return f"{self.host}:{self.port}"

    @property
    def url(self) -> str:
        default = 443 if self.scheme == "https" else 80
        netloc = self.host if self.port == default else f"{self.host}:{self.port}"
        if ":" in self.host:  # an IPv6 literal
            netloc = f"[{self.host}]" if self.port == default else f"[{self.host}]:{self.port}"
        return f"{self.scheme}://{netloc}{self.path}"


class Router:
    """`route(path)`: the upstream for a request path, or None when no provider serves it."""

    def __init__(self, upstream: str | None = None) -> None:
        self.fixed = parse_upstream(upstream) if upstream else None

    def route(self, path: str) -> Upstream | None:
        if self.fixed is not None:
            base = self.fixed.path.rstrip("/")
            return Upstream(self.fixed.scheme, self.fixed.host, self.fixed.port, base + path)
        bare = path.split("?", 1)[0]
        for prefix, origin in PROVIDERS:
            if bare == prefix or bare.startswith(prefix + "/"):
                found = parse_upstream(origin)
                return Upstream(found.scheme, found.host, found.port, path)
        return None


def parse_upstream(url: str) -> Upstream:
    """`https://host[:port][/prefix]` → Upstream (its path is the prefix); ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL")
    if parts.query or parts.fragment:
        raise ValueError(f"{url!r}: give the URL without a query or fragment")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return Upstream(parts.scheme, parts.hostname, port, parts.path.rstrip("/"))


def is_loopback(host: str) -> bool:
    """Does `host` (an address or a name) listen on this machine only? A name counts when every
    address it resolves to is a loopback one."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def client_environment(base: str) -> dict[str, str]:
    """The variables that point the common SDKs and agents at the proxy listening at `base`
    (`http://127.0.0.1:PORT`), each as its client expects it (the README lists who reads which):

    * `OPENAI_BASE_URL` — openai-python and openai-node (`base_url` defaults to it), Codex CLI,
      Qwen Code (https://qwenlm.github.io/qwen-code-docs/en/cli/openai-auth); ends in `/v1`.
    * `OPENAI_API_BASE` — LiteLLM's OpenAI provider and older LangChain; ends in `/v1`.
    * `ANTHROPIC_BASE_URL` — anthropic-sdk-python and -typescript, Claude Code
      (https://code.claude.com/docs/en/env-vars), LiteLLM's Anthropic provider; no `/v1`: the
      client appends `/v1/messages`.
    * `GOOGLE_GEMINI_BASE_URL` — Gemini CLI (google-gemini/gemini-cli#25357); no version path.
    """
    return {
        "OPENAI_BASE_URL": f"{base}/v1",
        "OPENAI_API_BASE": f"{base}/v1",
        "ANTHROPIC_BASE_URL": base,
        "GOOGLE_GEMINI_BASE_URL": base,
    }
