"""Masking of credentials: on screen and in every export unless the user asks otherwise.

Headers are masked by name (`Authorization`, `x-api-key`, `x-goog-api-key`, `api-key`, …), URLs by
query parameter (`?key=`), and free text by the shapes provider keys have (`sk-…`, `AIza…`, `AKIA…`),
keeping a short prefix so a reader can still tell which key was used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

SECRET_HEADERS = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key",
    "openai-api-key", "anthropic-api-key", "cookie", "set-cookie", "x-amz-security-token",
})
_URL_KEY = re.compile(r"([?&](?:key|api_key|apikey|access_token|token)=)([^&#\s]+)", re.IGNORECASE)
_TEXT_KEYS = re.compile(
    r"\b(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,}|AKIA[0-9A-Z]{12,}|"
    r"gsk_[A-Za-z0-9]{16,}|xai-[A-Za-z0-9]{16,})")
MASK = "•••"


def mask(value: str) -> str:
    """`Bearer sk-abc123…` → `Bearer sk-a•••`: the scheme and four characters stay visible."""
    scheme, _, token = value.partition(" ") if value.lower().startswith(("bearer ", "basic ")) \
        else ("", "", value)
    shown = token[:4] if len(token) > 8 else ""
    return f"{scheme} {shown}{MASK}".strip() if scheme else f"{shown}{MASK}"


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: mask(v) if k.lower() in SECRET_HEADERS else v for k, v in headers.items()}


def redact_url(url: str) -> str:
    return _URL_KEY.sub(lambda m: m.group(1) + mask(m.group(2)), url)


def redact_text(text: str) -> str:
    """Mask key-shaped strings anywhere in a text (an exported body, a tool result)."""
    return _TEXT_KEYS.sub(lambda m: mask(m.group(1)), text)
