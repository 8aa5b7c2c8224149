"""Inspect AI evaluation logs (UKGovernmentBEIS/inspect_ai; https://inspect.aisi.org.uk/eval-logs.html):
`.json`, one `EvalLog` document (`src/inspect_ai/log/_log.py`: `{version, status, eval, plan,
results, stats, samples}`), and `.eval`, a zip of `header.json` and a `samples/<id>_epoch_<n>.json`
per sample (`log/_recorders/eval.py`). Each sample is a conversation:

* its model events (`event: "model"`, `event/_model.py` `ModelEvent`) keep the raw call:
  `call.request` is what was posted to the provider and `call.response` what came back
  (`ModelCall`, "Raw data posted to model" / "Raw response data from model"): these are read by the
  wire readers, one exchange per call, so the wire view shows what was really sent; a model event
  with an `error` and no response is the call failing;
* without them, the sample's `messages` (`model/_chat_message.py`: `ChatMessageSystem`, `User`,
  `Assistant` with `tool_calls [{id, function, arguments}]`, `Tool` with `tool_call_id`, `function`
  and `error {type, message}`) are read as one request, the tools from its last model event.

A log deduplicates what it stores (`log/_pool.py`): a model call's message list may live in the
sample's `call_pool` (`call.call_refs` ranges, the list's key in `call.call_key`), and long strings
are `attachment://<hash>` references into the sample's `attachments`. Both are put back before reading.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import InputError
from ..formats.base import Request
from ..formats.reading import link, parse_arguments, split_data_url
from ..lacking import TOOLS
from ..model import Invocation, Media, Opaque, Part, Reasoning, Result, Source, Text, Tool, Turn
from ..records.compressed import ZIP_MAGIC
from ..records.containers import Capture, Exchange, Message, Preread
from .base import Peek, listed, mapping, schema, text

NAME = "inspect-ai"
TITLE = "Inspect AI log"
LACKS: tuple[str, ...] = ()

_ATTACHMENT = "attachment://"


def sniff(peek: Peek) -> bool:
    """An `EvalLog` document (`eval` and `samples`/`status`), or a zip holding `header.json`."""
    if peek.head.startswith(ZIP_MAGIC):
        return b"header.json" in peek.data or b"_journal/start.json" in peek.data
    first = peek.first
    return peek.document and isinstance(first, dict) and isinstance(first.get("eval"), dict) \
        and ("samples" in first or "status" in first)


def read(path: str, data: bytes, document: Any) -> Capture:
    capture = Capture(path, NAME)
    if document is None:
        samples = _zip_samples(capture, data)
    else:
        listed = document.get("samples") or []
        samples = ((f"/samples/{i}", s) for i, s in enumerate(listed if isinstance(listed, list) else []))
    exchanges: list[Exchange] = []
    for where, sample in samples:
        if not isinstance(sample, dict):
            capture.errors.append(InputError(path, where, "a sample must be an object"))
            continue
        exchanges.extend(_sample(capture, where, sample, len(exchanges)))
    if not exchanges and not capture.errors:
        capture.errors.append(InputError(path, "", "the log holds no sample (it was written without them)"))
    capture.exchanges, capture.records = exchanges, len(exchanges)
    return capture


def _zip_samples(capture: Capture, data: bytes) -> Iterator[tuple[str, Any]]:
    """Each `samples/*.json` member of an `.eval` zip, parsed, in name order."""
    import io
    import zipfile
    import zlib

    from ..errors import FormatError
    from ..jsonio import loads

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError) as err:
        capture.errors.append(InputError(capture.path, "", f"not a readable .eval zip: {err}"))
        return
    with archive:
        for name in sorted(n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json")):
            try:
                yield name, loads(archive.read(name))
            except FormatError as err:
                capture.errors.append(InputError(capture.path, f"{name}{err.pointer}", err.message))
            except (NotImplementedError, zipfile.BadZipFile, OSError, ValueError, EOFError,
                    zlib.error) as err:
                # a damaged member, or one compressed with zstd (Python reads that from 3.14)
                capture.errors.append(InputError(capture.path, name, f"cannot be unzipped: {err}"))


def _sample(capture: Capture, where: str, sample: dict[str, Any], start: int) -> list[Exchange]:
    """A sample's model calls as exchanges, or its messages as one."""
    attachments, pool = mapping(sample, "attachments"), listed(sample, "call_pool")
    events = listed(sample, "events")
    models = [(i, e) for i, e in enumerate(events) if isinstance(e, dict) and e.get("event") == "model"]
    calls = [(i, e) for i, e in models if isinstance(e.get("call"), dict)]
    if calls and len(calls) == len(models):
        return [_call(f"{where}/events/{i}", event, pool, attachments, start + n)
                for n, (i, event) in enumerate(calls)]
    messages = sample.get("messages")
    if not isinstance(messages, list) or not messages:
        return []
    messages = _resolved(messages, attachments)
    tools = models[-1][1].get("tools") if models else None
    exchange = Exchange(start, request=Message(location=f"{where}/messages", body=messages))
    source = Source(file=capture.path, exchange=start, side="request", location=f"{where}/messages")
    if not isinstance(tools, list):
        capture.lacks.append(TOOLS)
    exchange.read = Preread(request=_request(messages, source, tools if isinstance(tools, list) else []))
    return [exchange]


def _call(where: str, event: dict[str, Any], pool: list[Any], attachments: dict[str, Any],
          index: int) -> Exchange:
    """A model event's raw call: the request with its pooled messages put back, and the response
    (or the event's error when the call failed)."""
    call = event["call"]
    request = dict(mapping(call, "request"))
    refs = call.get("call_refs")
    if isinstance(refs, list):
        key = call.get("call_key") if isinstance(call.get("call_key"), str) else "messages"
        request[key] = [m for ref in refs if isinstance(ref, list) and len(ref) == 2
                        and all(isinstance(n, int) for n in ref) for m in pool[ref[0]:ref[1]]]
    exchange = Exchange(index, request=Message(location=f"{where}/call/request",
                                               body=_resolved(request, attachments)))
    response = call.get("response")
    if isinstance(response, dict) and response:
        exchange.response = Message(location=f"{where}/call/response", body=_resolved(response, attachments))
    elif isinstance(event.get("error"), str):
        exchange.response = Message(location=f"{where}/error", status=500,
                                    body={"error": {"message": event["error"]}})
    return exchange


def _resolved(value: Any, attachments: dict[str, Any]) -> Any:
    """`value` with every `attachment://<hash>` string replaced by what it names."""
    if not attachments:
        return value
    if isinstance(value, str):
        if value.startswith(_ATTACHMENT):
            found = attachments.get(value[len(_ATTACHMENT):])
            return found if isinstance(found, str) else value
        return value
    if isinstance(value, list):
        return [_resolved(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: _resolved(v, attachments) for k, v in value.items()}
    return value


# -------------------------------------------------------------------- Inspect's own message shape


def _request(messages: list[Any], at: Source, tools: list[Any]) -> Request:
    system: list[Part] = []
    turns: list[Turn] = []
    for i, message in enumerate(messages):
        here = at.child(i)
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        parts = _content(message.get("content"), here.child("content"))
        if role == "system":
            if turns:
                turns.append(Turn(role="system", parts=parts, source=here))
            else:
                system.extend(parts)
        elif role == "assistant":
            parts += tuple(_invocation(c, here.child("tool_calls", j))
                           for j, c in enumerate(listed(message, "tool_calls")) if isinstance(c, dict))
            turns.append(Turn(role="assistant", parts=parts, source=here))
        elif role == "tool":
            turns.append(Turn(role="tool", parts=(_result(message, parts, here),), source=here))
        else:
            turns.append(Turn(role="user", parts=parts, source=here))
    declared = tuple(Tool(name=t["name"], description=text(t.get("description")),
                          parameters=schema(t.get("parameters")), source=at)
                     for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str))
    return Request(turns=link(turns), system=tuple(system), tools=declared)


def _content(content: Any, at: Source) -> tuple[Part, ...]:
    if isinstance(content, str):
        return (Text(text=content, source=at),) if content else ()
    if not isinstance(content, list):
        return ()
    return tuple(_block(b, at.child(i)) for i, b in enumerate(content))


def _block(block: Any, at: Source) -> Part:
    """`ContentText`, `ContentReasoning`, `ContentImage` (`_util/content.py`); others kept verbatim."""
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text" and isinstance(block.get("text"), str):
        return Text(text=block["text"], source=at)
    if kind == "reasoning" and isinstance(block.get("reasoning"), str):
        signature = block.get("signature")
        return Reasoning(text=block["reasoning"], signature=signature if isinstance(signature, str) else None,
                         source=at)
    if kind == "image" and isinstance(block.get("image"), str):
        media_type, data = split_data_url(block["image"])
        return Media(kind="image", media_type=media_type, data=data,
                     url=None if data is not None else block["image"], source=at)
    return Opaque(origin=NAME, value=block, source=at)


def _invocation(call: dict[str, Any], at: Source) -> Invocation:
    arguments, raw = parse_arguments(call.get("arguments"))
    name, cid = call.get("function"), call.get("id")
    return Invocation(name=name if isinstance(name, str) else "", arguments=arguments, raw_arguments=raw,
                      wire_id=cid if isinstance(cid, str) else None, source=at)


def _result(message: dict[str, Any], parts: tuple[Part, ...], at: Source) -> Result:
    """A tool message: failed when it carries an `error` (its message is the content when there is
    no other)."""
    error = mapping(message, "error")
    failed = isinstance(message.get("error"), dict)
    if failed and not parts and isinstance(error.get("message"), str):
        parts = (Text(text=error["message"], source=at.child("error", "message")),)
    cid, name = message.get("tool_call_id"), message.get("function")
    return Result(wire_id=cid if isinstance(cid, str) else None, name=name if isinstance(name, str) else None,
                  content=parts, is_error=failed, source=at)
