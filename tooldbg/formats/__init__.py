"""The provider formats: one module each, same public names (see `base`), registered here once.

What the rest of tooldbg needs to know about a format is the `Facts` its module declares (`facts`);
nothing outside this package keeps a table of formats (tests/formats/test_facts.py checks both)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import anthropic, bedrock, gemini, openai_chat, openai_responses
from .base import Facts, StreamEvent

#: Detection order matters where shapes overlap: Bedrock and Anthropic bodies both have
#: `messages`, and are told apart before OpenAI Chat, whose sniffing is the loosest.
FORMATS: dict[str, ModuleType] = {
    m.NAME: m for m in (openai_responses, gemini, bedrock, anthropic, openai_chat)
}

#: The formats in the order they are listed to the user (each format's `Facts.order`).
WIRE_FORMATS: tuple[str, ...] = tuple(sorted(FORMATS, key=lambda name: FORMATS[name].FACTS.order))


def get(name: str) -> ModuleType:
    return FORMATS[name]


def facts(name: str) -> Facts:
    """What format `name` declares about itself (a KeyError for a name that is not a format)."""
    declared: Facts = FORMATS[name].FACTS
    return declared


def detect_url(url: str) -> str | None:
    """The format an endpoint URL names, if any (`/v1/messages` → anthropic)."""
    for name, module in FORMATS.items():
        if any(hint in url for hint in module.URL_HINTS):
            return name
    return None


def detect_body(body: Any, side: str) -> str | None:
    for name, module in FORMATS.items():
        if module.sniff(body, side):
            return name
    return None


def detect_stream(events: list[StreamEvent]) -> str | None:
    for name, module in FORMATS.items():
        if module.sniff_stream(events):
            return name
    return None
