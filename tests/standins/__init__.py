"""Deterministic stand-ins for the five provider APIs, on 127.0.0.1 (ephemeral ports), for tests that
need a provider without the internet: `tooldbg probe`'s and `tooldbg record`'s, and any test driving
an official client.

    from tests.standins import standin

    with standin("anthropic") as provider:           # openai-chat, openai-responses, anthropic,
        client = anthropic.Anthropic(base_url=provider.base_url, api_key=provider.key)
        ...                                           # gemini, bedrock
        provider.requests                             # the request bodies it accepted, in order
        provider.log                                  # every request received, every answer sent (bytes)

Each validates a request as the real API does where a client or a relay gets it wrong (the 400s in
the API's own words, each cited in its module), refuses a wrong key as the API does, follows
`tool_choice`, fills the declared schema's required fields, answers tool results with what they
said (`model.py`), and streams in the API's own framing: SSE for OpenAI, Anthropic and Gemini
(`alt=sse`), AWS event-stream binary frames for Bedrock ConverseStream. Everything is a function
of the requests: the same requests get the same answers, ids included. Requests are answered
concurrently, each in a thread of its own.

For what a test must find or prove, a stand-in can be told to answer with a defect (`plant=`, one of
the API module's `PLANTS`), and to hold a stream after its first event until a gate opens
(`provider.gate`): a client that opens it on receiving event 1 proves that event 1 reached it before
event 2 was sent; a gate nobody opens stalls the stream mid-way.

`base_url` is what the provider's SDK is given: `…/v1` for the OpenAI SDK (it adds
`/chat/completions`, `/responses`), the host for Anthropic's (it adds `/v1/messages`) and Bedrock's
(`/model/{id}/converse`), `…/v1beta` for Gemini's REST paths (`/models/{model}:generateContent`).
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.relay.servers import serving, url

from . import anthropic, bedrock, gemini, openai_chat, openai_responses
from .provider import Provider
from .server import StandIn

MODULES = {m.NAME: m for m in (openai_chat, openai_responses, anthropic, gemini, bedrock)}
APIS = tuple(MODULES)
#: The key each stand-in accepts unless told another: shaped like the provider's own.
KEYS = {"openai-chat": "sk-proj-standin0000000000000000000000000000KEY1",
        "openai-responses": "sk-proj-standin0000000000000000000000000000KEY2",
        "anthropic": "sk-ant-api03-standin000000000000000000000000000000KEY3",
        "gemini": "AIzaSyStandIn0000000000000000000000KEY4",
        "bedrock": "ABSKQmVkcm9ja0FQSUtleS1zdGFuZGluMDAwMDAwMDAwMDAwMDAwMDAwS0VZNQ=="}


@contextmanager
def standin(api: str, *, key: str | None = None, limit: int = 40, plant: str | None = None,
            tls: ssl.SSLContext | None = None, **options: Any) -> Iterator[Provider]:
    """A stand-in for `api` serving at most `limit` requests until the block is left (a gate still
    shut is opened first). `plant` names a defect of the module's `PLANTS` every answer carries;
    with `tls`, it speaks HTTPS (`url` then starts with `https://`). `options` go to the API's
    answers (`call_ids=False`: Gemini calls without ids, as Gemini 2.5 answers)."""
    module = MODULES[api]
    if plant is not None and plant not in module.PLANTS:
        raise ValueError(f"{api} stand-in: no planted defect {plant!r}; it plants {', '.join(module.PLANTS)}")
    provider = Provider(api, "", key or KEYS[api], plant=plant, options=options)
    with serving(StandIn, limit=limit, tls=tls, api=module, provider=provider) as server:
        provider.url = url(server).replace("http://", "https://") if tls else url(server)
        try:
            yield provider
        finally:
            if provider.gate is not None:
                provider.gate.set()
