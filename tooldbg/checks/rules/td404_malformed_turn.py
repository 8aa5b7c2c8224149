"""A turn the wire format cannot carry: an empty message, a role the format does not have, two
turns in an order the format forbids, or a block of a type the format does not define.

Each provider states its own structure and rejects a request that breaks it, often with a message
that names a position but not the cause:

* empty messages — Anthropic: "all messages must have non-empty content except for the optional final
  assistant message"; Bedrock: "The content field in the Message object at messages.X is empty.";
  Gemini: "GenerateContentRequest.contents[1].parts: contents.parts must not be empty." (quoted in
  aaif-goose/goose#1425); OpenAI rejects an assistant message whose `content` is null without
  `tool_calls` ("Invalid value for 'content': expected a string, got null."), and an assistant message
  with empty content says nothing to the model (warning). A blank text block is TD406's;
* roles — Gemini `contents` carry only `user` and `model`: the legacy `function` role and a `system`
  content get "Please use a valid role: user, model." (quoted in the-open-agent/openagent#1666); the
  Responses API has no `tool` role (results are `function_call_output` items);
* order — Gemini: "Please ensure that function call turn comes immediately after a user turn or after
  a function response turn."; Bedrock: "A conversation must start with a user message. Try again with
  a conversation that starts with a user message." and "A conversation must alternate between user
  and assistant roles." (quoted in elastic/kibana#246393 and langchain-ai/langchain-aws#130);
* blocks of another format — a content block whose `type` the format does not define
  (`Facts.content_types`: openai-python `ChatCompletionContentPartParam`, anthropic-sdk
  `ContentBlockParam`, the Responses content part types), or, in Bedrock Converse and Gemini whose
  blocks are unions keyed by member and have no `type` (`Facts.content_members`: botocore
  `ContentBlock` / `ToolResultContentBlock`, Gemini `Part`), a block with a `type` or with no member
  (how clients tell an OpenAI- or Anthropic-style part from a native one: 567-labs/instructor#2078),
  forwarded unconverted by a framework or relay: LangChain's own
  `{"type": "image", "base64": …, "mime_type": …}` in a tool message (langchain-ai/langchain#37090:
  "rejects the unknown `base64`/`mime_type` keys … returning HTTP 422"), Anthropic `tool_use` /
  `tool_result` blocks sent to a Chat Completions endpoint or by a gateway to Bedrock Converse (which
  then misses the toolResult blocks: "Expected toolResult blocks at messages.2.content …"), a Chat
  `image_url` part in an Anthropic message or a Gemini part. Strict servers reject the request;
  lenient ones drop the block, and the model never sees the call, the result or the image. Where the shape is recognisable it is read for what it means
  (`formats/foreign.py`), so the call and its result still pair (no TD101 / TD102) and `--target`
  judges the media (TD804).

Anthropic, by contrast, combines consecutive messages of one role and accepts a history that starts
with an assistant message (recorded traffic: two consecutive `assistant` and two consecutive `user`
messages answered 200), and OpenAI Chat accepts consecutive messages of one role: neither is a
finding. Only what a request sent is judged; an answer is the provider's own output.
"""

from collections.abc import Iterator
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from ... import formats
from ...formats.base import Facts
from ...model import Invocation, Media, Opaque, Part, Result, Text
from ...shorten import plain, quote
from ...timeline import ExchangeRead
from ..base import Context, Finding
from ..structure import View, views, wire_role

CODE = "TD404"
NAME = "malformed-turn"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model was shown a turn its format does not define, and what it made of it is unknown"
MESSAGE = "a turn the wire format cannot carry (empty, unknown role, forbidden order, foreign block)"
BAD = """
{"contents": [
  {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
  {"role": "model", "parts": [{"text": "Let me check."}]},
  {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
  {"role": "function", "parts": [{"functionResponse": {"name": "get_weather",
    "response": {"output": {"temp_c": 4}}}}]}]}
"""
GOOD = """
{"contents": [
  {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
  {"role": "model", "parts": [{"text": "Let me check."},
    {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
  {"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
    "response": {"output": {"temp_c": 4}}}}]}]}
"""

#: What a foreign block's finding says before what tooldbg read the block as (`read as …`, or `kept
#: verbatim`): the TD404 repair reads the meaning after it.
FORWARDED = "forwarded unconverted; "

_RESPONSES_ROLES = frozenset({"user", "assistant", "system", "developer"})


def check(ctx: Context) -> Iterator[Finding]:
    for view in views(ctx):
        yield from _empty(ctx, view)
        yield from _foreign_blocks(ctx, view)
        if view.format == "gemini":
            yield from _gemini(ctx, view)
        elif view.format == "bedrock":
            yield from _bedrock(ctx, view)
        elif view.format == "openai-responses":
            yield from _responses_roles(ctx, view)


def _empty(ctx: Context, view: View) -> Iterator[Finding]:
    conv, fmt = view.conversation, view.format
    for t in range(view.sent):
        turn = view.wire[t]
        if turn.parts:  # a blank text in it is TD406's
            continue
        severity, why = SEVERITY, ""
        if turn.role == "assistant" and t == view.sent - 1 and fmt in ("anthropic", None):
            # Anthropic's optional final assistant message (a prefill) may be empty; a canonical
            # document's last answer is a record at rest, shown to no model (`fix` keeps it)
            continue
        if fmt == "anthropic":
            why = "Anthropic: all messages must have non-empty content"
        elif fmt == "bedrock":
            why = "Bedrock: the content field in the Message object is empty"
        elif fmt == "gemini":
            why = "Gemini: contents.parts must not be empty"
        elif turn.role != "assistant":
            continue
        elif fmt == "openai-chat":
            wire = ctx.loaded.wire_at(turn.source.exchange, turn.source.side, turn.source.pointer)
            if isinstance(wire, dict) and wire.get("audio") is not None:
                continue  # an audio answer replayed by its id carries no content of its own
            if isinstance(wire, dict) and wire.get("content") is None:
                why = "OpenAI: an assistant message without tool_calls needs a content"
            else:
                severity, why = "warning", "the model is shown a turn in which it said nothing"
        else:
            severity, why = "warning", "the model is shown a turn in which it said nothing"
        role = wire_role(turn) if fmt != "gemini" else ("model" if turn.role == "assistant" else "user")
        yield ctx.at(f"an empty {role} message: {why}", conversation=conv, turn=t, source=view.source(t),
                     severity=severity)


def _gemini(ctx: Context, view: View) -> Iterator[Finding]:
    conv = view.conversation
    if view.request is not None:
        yield from _gemini_roles(ctx, view, view.request)
    for unit, turns in view.groups:
        t = turns[0]
        if t >= view.sent or view.roles[unit] != "assistant":
            continue
        calls = [p for p, part in enumerate(conv.turns[t].parts) if isinstance(part, Invocation)]
        if not calls or (unit > 0 and view.roles[unit - 1] == "user"):
            continue
        after = "opens the history" if unit == 0 else "follows another model turn"
        yield ctx.at(f"a function call turn {after}: Gemini answers \"Please ensure that function call "
                     f"turn comes immediately after a user turn or after a function response turn.\"",
                     conversation=conv, turn=t, part=calls[0], source=view.source(t, calls[0]))


def _gemini_roles(ctx: Context, view: View, read: ExchangeRead) -> Iterator[Finding]:
    turn_at = {view.wire[t].source.pointer: t for t in range(view.sent - 1, -1, -1)}
    body = read.exchange.request.body if read.exchange.request is not None else None
    contents = body.get("contents") if isinstance(body, dict) else None
    for i, content in enumerate(contents if isinstance(contents, list) else ()):
        role = content.get("role") if isinstance(content, dict) else None
        if role in (None, "user", "model"):
            continue
        t = turn_at.get(f"/contents/{i}")
        what = "the legacy `function` role (function responses go in a `user` content)" \
            if role == "function" else f"the role {quote(role)}"
        message = f"contents[{i}] has {what}: Gemini answers \"Please use a valid role: user, model.\""
        if t is not None:
            yield ctx.at(message, conversation=view.conversation, turn=t,
                         source=view.source(t).child("role"))
        else:
            yield ctx.at_exchange(read, message, side="request", pointer=f"/contents/{i}/role")


def _bedrock(ctx: Context, view: View) -> Iterator[Finding]:
    conv = view.conversation
    previous = None
    for unit, turns in view.groups:
        t = turns[0]
        role = view.roles[unit]
        if t >= view.sent or role == "system":
            continue
        if previous is None and role != "user":
            yield ctx.at(f"the conversation starts with an {role} message: Bedrock answers \"A "
                         f"conversation must start with a user message.\"", conversation=conv, turn=t,
                         source=view.source(t))
        elif previous == role:
            yield ctx.at(f"two consecutive {role} messages: Bedrock answers \"A conversation must "
                         f"alternate between user and assistant roles.\"", conversation=conv, turn=t,
                         source=view.source(t))
        previous = role


def _responses_roles(ctx: Context, view: View) -> Iterator[Finding]:
    conv = view.conversation
    for t in range(view.sent):
        for p, part in enumerate(view.wire[t].parts):
            value = part.value if isinstance(part, Opaque) else None
            if not isinstance(value, dict) or value.get("type") not in (None, "message"):
                continue
            role = value.get("role")
            if isinstance(role, str) and role not in _RESPONSES_ROLES:
                hint = " (a tool result is a function_call_output item)" if role == "tool" else ""
                yield ctx.at(f"an input item with the role {quote(role)}, which the Responses API does not "
                             f"have{hint}", conversation=conv, turn=t, part=p, source=view.source(t, p))


def _foreign_blocks(ctx: Context, view: View) -> Iterator[Finding]:
    """Blocks in the request's content arrays (and in its own tool results' content) that the format
    does not define: of another `type` (`Facts.content_types`), or, where blocks are unions keyed by
    member, carrying a `type` or no member (`Facts.content_members`)."""
    read, fmt = view.request, view.format
    facts = formats.facts(fmt) if fmt is not None else None
    body = read.exchange.request.body if read is not None and read.exchange.request is not None else None
    if read is None or facts is None or not isinstance(body, dict):
        return
    if facts.content_types is None and facts.content_members is None:
        return
    key = facts.messages_key
    parts: dict[str, tuple[int, int, Part]] | None = None  # (made for the first block found)
    messages = body.get(key)
    for i, message in enumerate(messages if isinstance(messages, list) else ()):
        if not isinstance(message, dict):
            continue
        role, field = message.get("role"), "parts" if "parts" in message else "content"  # Gemini: parts
        for pointer, what in _undefined(message.get(field), f"/{key}/{i}/{field}", facts):
            if parts is None:
                parts = _parts_at(view)
            found = parts.get(pointer)
            read_as = _read_as(found[2]) if found is not None else "kept verbatim"
            whose = f"an {plain(role)} message" if role == "assistant" else \
                f"a {plain(role)} message" if isinstance(role, str) else "a message"
            message_text = (f"a block {what} in {whose}: {fmt} has no such content type — another "
                            f"format's block (or an agent framework's) {FORWARDED}{read_as}")
            if found is not None:
                yield ctx.at(message_text, conversation=view.conversation, turn=found[0], part=found[1],
                             source=found[2].source)
            else:
                yield ctx.at_exchange(read, message_text, side="request", pointer=pointer)


def _undefined(content: Any, pointer: str, facts: Facts) -> Iterator[tuple[str, str]]:
    """(pointer, description) of each block of `content` the format does not define; the content of
    a defined tool result (Anthropic `tool_result`, Bedrock `toolResult`) is searched too."""
    types = facts.content_types
    for j, block in enumerate(content if isinstance(content, list) else ()):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        # (most blocks: of a type the format names as it is, asked without a call)
        what = None if types is not None and type(kind) is str and kind in types else _foreign_shape(block, facts)
        if what is not None:
            yield f"{pointer}/{j}", what
        elif types is not None:
            if isinstance(inner := block.get("content"), list):  # (a tool result's blocks)
                yield from _undefined(inner, f"{pointer}/{j}/content", facts)
        elif isinstance(result := block.get("toolResult"), dict):
            yield from _undefined(result.get("content"), f"{pointer}/{j}/toolResult/content", facts)


def _foreign_shape(block: dict[str, Any], facts: Facts) -> str | None:
    """How `block` differs from the format's blocks (`of type "image_url"`), None if it does not."""
    kind = block.get("type")
    if facts.content_types is not None:
        known = not isinstance(kind, str) or _defined(kind, facts.content_types)
        return None if known else f"of type {quote(kind)}"
    if isinstance(kind, str):  # neither Bedrock's nor Gemini's union has a `type`
        return f"of type {quote(kind)}"
    members = facts.content_members or ()
    if block and not any(key in members for key in block):
        return f"with the key {quote(next(iter(block)))}"
    return None


@lru_cache(maxsize=256)
def _defined(kind: str, types: tuple[str, ...]) -> bool:
    """`kind` matches one of a format's block types (patterns among them), decided once per type:
    a request repeats a few types in every message. A type named as it is needs no pattern (each
    pattern is compiled on its first use: a millisecond for a format's dozen)."""
    return kind in types or any(fnmatchcase(kind, t) for t in types if not _WILDCARDS.isdisjoint(t))


#: What makes a block type an `fnmatch` pattern rather than a name.
_WILDCARDS = frozenset("*?[")


def _parts_at(view: View) -> dict[str, tuple[int, int, Part]]:
    """Wire pointer → (turn, part, the part read there) for the parts the request sent, the content
    of its results included."""
    out: dict[str, tuple[int, int, Part]] = {}
    for t in range(view.sent):
        for p, part in enumerate(view.wire[t].parts):
            out.setdefault(part.source.pointer, (t, p, part))
            for inner in part.content if isinstance(part, Result) else ():
                out.setdefault(inner.source.pointer, (t, p, inner))
    return out


def _read_as(part: Part) -> str:
    """What tooldbg read a foreign block as."""
    if isinstance(part, Invocation):
        return f"read as the call {part.id} {plain(part.name)}"
    if isinstance(part, Result):
        return f"read as the result for {part.invocation_id or 'no call'}" + (
            f" {plain(part.name)}" if part.name else "")
    if isinstance(part, Text):
        return "read as text"
    if isinstance(part, Media):
        return f"read as {part.kind}" + (f" ({part.media_type})" if part.media_type else "")
    return "kept verbatim"
