"""Agent sessions made up for the metamorphic properties (`properties.py`), in every wire format.

A session is a canonical conversation drawn at random — a user's first message, rounds of tool
calls (in parallel at times, with or without call ids) and their results (some failing), the
model's answer, at times a follow-up — written as the exchanges an agent loop logs: each request is
tooldbg's own writer's replay of the history so far, each response the model's next turn, as the
provider returns it. A session is well formed (`check` finds nothing in it on its own), so what a
property sees is what the transformation under test did. Everything is drawn from the
`random.Random` passed in: an input is rebuilt from its seed.

`container` writes exchanges as a user's file: JSON Lines, recorded interactions (bodies as JSON or
as strings), HAR (on one line, pretty-printed, an entry a line) or a JSON array.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from typing import Any

from tooldbg import formats
from tooldbg.formats.reading import link
from tooldbg.model import Conversation, Invocation, Json, Part, Result, Text, Tool, Turn

from .mutate import _dumps_deep as dumps

URLS = {
    "openai-chat": "https://api.openai.com/v1/chat/completions",
    "openai-responses": "https://api.openai.com/v1/responses",
    "anthropic": "https://api.anthropic.com/v1/messages",
    "gemini": "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    "bedrock": "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-haiku/converse",
}
MODELS = {"openai-chat": "gpt-4.1", "openai-responses": "gpt-5", "anthropic": "claude-sonnet-4-5",
          "gemini": "gemini-2.5-flash", "bedrock": "anthropic.claude-3-5-haiku"}
#: The formats whose calls need no id (Gemini pairs by name): sessions without ids are written there.
WITHOUT_IDS = ("gemini",)

TOOLS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "search_docs": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}},
    "run_sql": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]},
}
WORDS = ("Oslo", "Bergen", "invoice", "weather", "tomorrow", "select", "status", "report", "é", "🙂",
         "line\nbreak", "tab\there", "quote\"d", "[markup]", "100%")
FIRST = ("hi", "Weather in Oslo?", "What changed in the report?")


def words(rng: random.Random, n: int = 3) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, n)))


def conversation(rng: random.Random, *, first: str | None = None, ids: bool = True,
                 tag: str = "") -> Conversation:
    """A well-formed conversation. `tag` is in every call's arguments and every answer after the
    first, so two sessions drawn with different tags differ after their first exchange."""
    names = rng.sample(sorted(TOOLS), rng.randint(1, 3))
    tools = tuple(Tool(name=n, description=f"The {n} tool.", parameters=TOOLS[n]) for n in names)
    turns: list[Turn] = [Turn(role="user", parts=(Text(text=first or rng.choice(FIRST)),))]
    n = 0
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        parts: list[Part] = [Text(text=words(rng))] if rng.random() < 0.3 else []
        calls = []
        # (without ids, parallel calls of one tool pair by position only: TD107 says so)
        count = rng.choice((1, 1, 1, 2, 3))
        chosen = [rng.choice(names) for _ in range(count)] if ids else rng.sample(names, min(count, len(names)))
        for name in chosen:
            n += 1
            key = next(iter(TOOLS[name]["properties"]))
            calls.append(Invocation(name=name, arguments={key: f"{words(rng, 2)} {tag}{n}".strip()},
                                    wire_id=f"call_{tag}{n}x{rng.randrange(10 ** 6)}" if ids else None))
        turns.append(Turn(role="assistant", parts=(*parts, *calls)))
        results = []
        for call in calls:
            content: tuple[Part, ...] = ((Text(text=f"{words(rng)} {call.wire_id or ''}".strip()),)
                                         if rng.random() < 0.7 else (Json(value={"out": words(rng)}),))
            results.append(Result(wire_id=call.wire_id, name=call.name, content=content,
                                  is_error=rng.random() < 0.15))
        turns.append(Turn(role="tool", parts=tuple(results)))
        if rng.random() < 0.15:  # the user speaks before the model answers the results
            turns.append(Turn(role="user", parts=(Text(text=words(rng)),)))
    turns.append(Turn(role="assistant", parts=(Text(text=f"{words(rng)} {tag}".strip()),)))
    if rng.random() < 0.3:
        turns.append(Turn(role="user", parts=(Text(text=words(rng)),)))
        turns.append(Turn(role="assistant", parts=(Text(text=f"{words(rng)} {tag}".strip()),)))
    return Conversation(tools=tools, turns=link(turns))


@dataclass(frozen=True, slots=True)
class Session:
    format: str
    conversation: Conversation
    exchanges: tuple[dict[str, Any], ...]


def session(rng: random.Random, fmt: str | None = None, *, first: str | None = None, ids: bool | None = None,
            tag: str = "") -> Session:
    """A session in `fmt` (drawn when None); without call ids only in a format that pairs by name."""
    fmt = fmt or rng.choice(formats.WIRE_FORMATS)
    ids = (fmt not in WITHOUT_IDS or rng.random() < 0.3) if ids is None else (ids or fmt not in WITHOUT_IDS)
    conv = replace(conversation(rng, first=first, ids=ids, tag=tag), model=MODELS[fmt])
    exchanges = []
    for k, turn in enumerate(conv.turns):
        if turn.role == "assistant":
            exchanges.append(exchange(fmt, replace(conv, turns=conv.turns[:k]), turn, rng))
    return Session(fmt, conv, tuple(exchanges))


def exchange(fmt: str, history: Conversation, answer: Turn, rng: random.Random) -> dict[str, Any]:
    """One exchange: the request replaying `history` as tooldbg writes it, answered with `answer`."""
    write = formats.get(fmt).write
    request = write(history).body
    whole = write(replace(history, turns=(*history.turns, answer))).body
    return {"request": {"method": "POST", "url": URLS[fmt], "headers": {"content-type": "application/json"},
                        "body": request},
            "response": {"status": 200, "headers": {"content-type": "application/json"},
                         "body": _response(fmt, request, whole, rng)}}


def _response(fmt: str, request: dict[str, Any], whole: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The provider's response whose message is the one `whole` (the request with the answer) adds."""
    ident = f"{rng.randrange(16 ** 8):08x}"
    if fmt == "openai-chat":
        message = whole["messages"][-1]
        return {"id": f"chatcmpl-{ident}", "object": "chat.completion", "model": MODELS[fmt],
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}]}
    if fmt == "anthropic":
        content = whole["messages"][-1]["content"]
        used = any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)
        return {"id": f"msg_{ident}", "type": "message", "role": "assistant", "model": MODELS[fmt],
                "content": content, "stop_reason": "tool_use" if used else "end_turn"}
    if fmt == "gemini":
        return {"candidates": [{"content": whole["contents"][-1], "finishReason": "STOP", "index": 0}],
                "modelVersion": MODELS[fmt]}
    if fmt == "bedrock":
        message = whole["messages"][-1]
        used = any("toolUse" in b for b in message["content"])
        return {"output": {"message": message}, "stopReason": "tool_use" if used else "end_turn"}
    items = whole["input"][len(request["input"]):]
    return {"id": f"resp_{ident}", "object": "response", "status": "completed", "model": MODELS[fmt],
            "output": [dict(item, type=item.get("type", "message")) for item in items]}


# ------------------------------------------------------------------------------------ containers

CONTAINERS = ("jsonl", "interactions", "interactions-text", "har-one-line", "har-pretty", "har-entry-a-line",
              "json-array")


def container(exchanges: list[dict[str, Any]], kind: str) -> tuple[str, bytes]:
    """The exchanges as a file of one container kind: (a file name, its bytes)."""
    if kind == "jsonl":
        return "log.jsonl", "".join(text(x) + "\n" for x in exchanges).encode()
    if kind == "json-array":
        return "log.json", text(exchanges).encode()
    if kind.startswith("interactions"):
        strings = kind == "interactions-text"
        records = [{key: {**value, "body": text(value["body"])} if strings and key in ("request", "response")
                    else value for key, value in x.items()} for x in exchanges]
        return "recording.json", text({"version": 1, "interactions": records}).encode()
    return har([_har_entry(x) for x in exchanges], kind)


def har(entries: list[Any], kind: str) -> tuple[str, bytes]:
    """HAR entries as a file: on one line (`har-one-line`), pretty-printed (`har-pretty`), or an
    entry a line."""
    if kind == "har-one-line":
        return "log.har", text(har_document(entries)).encode()
    if kind == "har-pretty":
        return "log.har", text(har_document(entries), indent=True).encode()
    lines = ",\n".join("    " + text(e) for e in entries)
    return "log.har", ('{"log": {"version": "1.2", "creator": {"name": "fuzz", "version": "1"}, "entries": [\n'
                       + lines + "\n]}}\n").encode()


def text(value: Any, *, indent: bool = False) -> str:
    """JSON text of a value of any depth (past the standard library's own: written without
    recursion, and then compact), ASCII only (a lone surrogate stays an escape)."""
    try:
        return json.dumps(value, indent=2 if indent else None, allow_nan=False)
    except RecursionError:
        return dumps(value)


def har_document(entries: list[Any]) -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": "fuzz", "version": "1"}, "entries": entries}}


def _har_entry(x: dict[str, Any]) -> dict[str, Any]:
    def headers(side: dict[str, Any]) -> list[dict[str, str]]:
        return [{"name": k, "value": v} for k, v in side.get("headers", {}).items()]

    q, r = x["request"], x.get("response")
    entry: dict[str, Any] = {
        "startedDateTime": "2026-01-01T00:00:00Z", "time": 1,
        "request": {"method": q.get("method", "POST"), "url": q.get("url", ""), "httpVersion": "HTTP/1.1",
                    "headers": headers(q), "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
                    "postData": {"mimeType": "application/json", "text": text(q["body"])}}}
    if r is not None:
        entry["response"] = {"status": r.get("status", 200), "statusText": "", "httpVersion": "HTTP/1.1",
                             "headers": headers(r), "cookies": [], "redirectURL": "", "headersSize": -1,
                             "bodySize": -1, "content": {"mimeType": "application/json", "size": -1,
                                                         "text": text(r["body"])}}
    return entry
