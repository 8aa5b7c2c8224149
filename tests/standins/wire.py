"""What the five stand-in APIs share: where a request is routed, an error answer, ids, and the
framing of server-sent events."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Route:
    """A request path the API serves: whether it streams, and the model when the URL names it."""

    stream: bool
    model: str | None = None


@dataclass(frozen=True)
class Failure:
    """An error answer: status, JSON body, extra headers."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Auth:
    """How an API takes its key (`credential`: the key a request carries, None without one) and
    how it refuses a wrong one (`refuse`, given the key the request carried)."""

    credential: Callable[[dict[str, str], dict[str, str]], str | None]
    refuse: Callable[[str | None], Failure]


def bearer(headers: dict[str, str], query: dict[str, str]) -> str | None:
    """`Authorization: Bearer KEY`: OpenAI, and Bedrock's API keys."""
    value = headers.get("authorization", "")
    return value[7:] if value.lower().startswith("bearer ") else None


def token(n: int, k: int, length: int) -> str:
    """A deterministic alphanumeric id for the k-th item of the n-th answer."""
    digest = hashlib.sha256(f"{n}-{k}".encode()).hexdigest()
    return (digest * 2)[:length]


def sse(data: Any, event: str | None = None, end: str = "\n\n") -> bytes:
    """One server-sent event: `data` as JSON (a string as it is), preceded by `event:` if named."""
    text = data if isinstance(data, str) else json.dumps(data)
    return ((f"event: {event}\n" if event else "") + f"data: {text}{end}").encode()


def pieces(text: str) -> list[str]:
    """Text as a model streams it: a word (with its trailing space) at a time."""
    return re.findall(r"\S+\s*|\s+", text)


def halves(text: str) -> list[str]:
    """Arguments as a model streams them: in two fragments, cut mid-way."""
    cut = max(1, len(text) // 2)
    return [text[:cut], text[cut:]]
