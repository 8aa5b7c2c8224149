"""The provider formats: one package each, same public names (`base.Format`), registered here once.

What the rest of tooldbg needs to know about a format is the `Facts` its module declares (`facts`);
nothing outside this package keeps a table of formats (tests/formats/test_facts.py checks both)."""

from __future__ import annotations

from typing import Any

from ..source import Side
from . import anthropic, bedrock, gemini, openai_chat, openai_responses
from .base import Facts, Format, StreamEvent

#: Detection order matters where shapes overlap: Bedrock and Anthropic bodies both have
#: `messages`, and are told apart before OpenAI Chat, whose sniffing is the loosest. Typed as
#: `Format`, so each module is checked against the protocol.
_DETECTION_ORDER: tuple[Format, ...] = (openai_responses, gemini, bedrock, anthropic, openai_chat)
FORMATS: dict[str, Format] = {m.NAME: m for m in _DETECTION_ORDER}

#: The formats in the order they are listed to the user (each format's `Facts.order`).
WIRE_FORMATS: tuple[str, ...] = tuple(sorted(FORMATS, key=lambda name: FORMATS[name].FACTS.order))
#: What a conversation can be written as: each wire format, and the canonical document.
TARGETS: tuple[str, ...] = (*WIRE_FORMATS, "canonical")


def get(name: str) -> Format:
    return FORMATS[name]


def facts(name: str) -> Facts:
    """What format `name` declares about itself (a KeyError for a name that is not a format)."""
    return FORMATS[name].FACTS


#: Each format's URL hints with its name, in detection order: one loop to find the first that matches.
_URL_HINTS: tuple[tuple[str, str], ...] = tuple((hint, name) for name, module in FORMATS.items()
                                                for hint in module.URL_HINTS)


def detect_url(url: str) -> str | None:
    """The format an endpoint URL names, if any (`/v1/messages` → anthropic)."""
    for hint, name in _URL_HINTS:
        if hint in url:
            return name
    return None


def detect_body(body: Any, side: Side) -> str | None:
    for name, module in FORMATS.items():
        if module.sniff(body, side):
            return name
    return None


def detect_stream(events: list[StreamEvent]) -> str | None:
    for name, module in FORMATS.items():
        if module.sniff_stream(events):
            return name
    return None
