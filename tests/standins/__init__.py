"""Deterministic stand-ins for the five provider APIs, on 127.0.0.1 (ephemeral ports), for tests that
need a provider without the internet: `tooldbg probe`'s, and any test driving an official client.

    from tests.standins import standin

    with standin("anthropic") as provider:           # openai-chat, openai-responses, anthropic,
        client = anthropic.Anthropic(base_url=provider.base_url, api_key=provider.key)
        ...                                           # gemini, bedrock
        provider.requests                             # the request bodies it accepted, in order

Each validates a request as the real API does where a client or a relay gets it wrong (the 400s in
the API's own words, each cited in its module), refuses a wrong key as the API does, follows
`tool_choice`, fills the declared schema's required fields, answers tool results with what they
said (`model.py`), and streams in the API's own framing: SSE for OpenAI, Anthropic and Gemini
(`alt=sse`), AWS event-stream binary frames for Bedrock ConverseStream. Everything is a function
of the requests: the same requests get the same answers, ids included.

`base_url` is what the provider's SDK is given: `…/v1` for the OpenAI SDK (it adds
`/chat/completions`, `/responses`), the host for Anthropic's (it adds `/v1/messages`) and Bedrock's
(`/model/{id}/converse`), `…/v1beta` for Gemini's REST paths (`/models/{model}:generateContent`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.relay.servers import serving, url

from . import anthropic, bedrock, gemini, openai_chat, openai_responses
from .server import StandIn

MODULES = {m.NAME: m for m in (openai_chat, openai_responses, anthropic, gemini, bedrock)}
APIS = tuple(MODULES)
#: The key each stand-in accepts unless told another: shaped like the provider's own.
KEYS = {"openai-chat": "sk-proj-standin0000000000000000000000000000KEY1",
        "openai-responses": "sk-proj-standin0000000000000000000000000000KEY2",
        "anthropic": "sk-ant-api03-standin000000000000000000000000000000KEY3",
        "gemini": "AIzaSyStandIn0000000000000000000000KEY4",
        "bedrock": "ABSKQmVkcm9ja0FQSUtleS1zdGFuZGluMDAwMDAwMDAwMDAwMDAwMDAwS0VZNQ=="}
_BASE_PATHS = {"openai-chat": "/v1", "openai-responses": "/v1", "anthropic": "", "gemini": "/v1beta", "bedrock": ""}


@dataclass
class Provider:
    """A running stand-in: `url` is its root (`http://127.0.0.1:PORT`), `base_url` what the SDK is
    given, `key` the key it accepts, `requests` the bodies it accepted."""

    api: str
    url: str
    key: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return self.url + _BASE_PATHS[self.api]


@contextmanager
def standin(api: str, *, key: str | None = None, limit: int = 40, **options: Any) -> Iterator[Provider]:
    """A stand-in for `api` serving at most `limit` requests until the block is left. `options` go
    to the API's answers (`call_ids=False`: Gemini calls without ids, as Gemini 2.5 answers)."""
    key = key or KEYS[api]
    requests: list[dict[str, Any]] = []
    with serving(StandIn, limit=limit, api=MODULES[api], key=key, options=options, requests=requests) as server:
        yield Provider(api, url(server), key, requests)
