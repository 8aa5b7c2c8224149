"""Files → exchanges. A capture is one file: a single body, JSON Lines, recorded interactions, HAR 1.2,
an SSE capture or a binary AWS event stream. Each becomes a list of `Exchange`s, every body located
inside its container so a finding can name it (`/log/entries/1/request/postData/text`).

One bad record does not hide the others: it becomes an `InputError` in `Capture.errors` and the
rest of the file is still read. Only a file that yields nothing at all raises.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FormatError, InputError
from ..formats.base import StreamEvent
from ..jsonio import loads
from ..model import is_canonical
from . import eventstream, sse

#: Bodies larger than this are still read; the number only bounds error-message excerpts.
_EXCERPT = 60


@dataclass(slots=True)
class Message:
    """One side of an exchange. `body` is the parsed JSON body (None for a stream or an unreadable
    body), `events` the stream events when the body was a stream, `text` the body text as captured
    (kept for streams and unparsable bodies, so the wire view can show what was really sent)."""

    location: str
    body: Any = None
    events: list[StreamEvent] | None = None
    text: str | None = None
    url: str = ""
    method: str = ""
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def is_stream(self) -> bool:
        return self.events is not None


@dataclass(slots=True)
class Exchange:
    """A request and its response (either may be missing: response-only fixtures exist)."""

    index: int
    request: Message | None = None
    response: Message | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Capture:
    path: str
    container: str
    exchanges: list[Exchange] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    canonical: Any = None  # a tooldbg.canonical/1 document, read as is


CONTAINERS = ("json", "jsonl", "interactions", "har", "sse", "eventstream", "canonical")


#: What a folder walk reads; a file named on the command line is read whatever its name.
LOG_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson", ".har", ".sse", ".txt", ".log", ".bin", ""})


def iter_files(path: Path) -> Iterator[Path]:
    """A file, or every log file below a folder in name order (hidden files and documents such as
    README.md skipped)."""
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file() and child.suffix.lower() in LOG_SUFFIXES and \
                    not any(p.startswith(".") for p in child.relative_to(path).parts):
                yield child
    else:
        yield path


def read_capture(path: str, data: bytes) -> Capture:
    """Split one file's bytes into exchanges. Raises InputError when nothing can be read."""
    if not data.strip():
        raise InputError(path, "", "empty file")
    if eventstream.looks_like_eventstream(data):
        return _single_stream(path, "eventstream", _eventstream(path, "", data))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(path, f"byte {err.start}", "invalid UTF-8") from None
    if sse.looks_like_sse(text):
        return _single_stream(path, "sse", sse.parse(text), text)
    try:
        value = loads(text)
    except FormatError as whole_err:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) > 1 and lines[0].lstrip().startswith(("{", "[")):
            return _jsonl(path, text)
        raise InputError(path, "", whole_err.message) from None
    return _json_document(path, value)


def _json_document(path: str, value: Any) -> Capture:
    if isinstance(value, dict):
        if is_canonical(value):
            return Capture(path, "canonical", canonical=value)
        log = value.get("log")
        if isinstance(log, dict) and "entries" in log:
            return _har(path, log)
        if "interactions" in value:
            return _interactions(path, value)
        if _is_exchange(value):
            capture = Capture(path, "json")
            _add_exchange(capture, value, "", 0)
            return capture
        return Capture(path, "json", [_bare_exchange(value)])
    if isinstance(value, list):
        if value and all(_is_exchange(v) for v in value):
            capture = Capture(path, "json")
            for i, item in enumerate(value):
                _add_exchange(capture, item, f"/{i}", i)
            return capture
        # A JSON array of events: Gemini's streamGenerateContent without alt=sse.
        events = [StreamEvent(index=i, data=v) for i, v in enumerate(value)]
        return _single_stream(path, "json", events)
    raise InputError(path, "", "expected a JSON object or array at the top level")


def _is_exchange(value: Any) -> bool:
    """`{"request": …, "response": …}`, and not a body or stream event that happens to have one of
    those keys (a Responses `response.created` event carries `"response"`)."""
    return isinstance(value, dict) and ("request" in value or "response" in value) and not (
        "type" in value or "messages" in value or "contents" in value or "input" in value)


def _bare_exchange(body: dict[str, Any]) -> Exchange:
    """A body on its own: a request or a response, told apart by its shape. Response shapes are
    tagged (`choices`, `candidates`, `output`, `type: message`, `object: response`) and a response
    may echo its request's fields (a Responses object carries `instructions`, `tools`,
    `previous_response_id`), so a body that reads as a response is one."""
    from ..formats import detect_body  # formats depend on records only through StreamEvent

    message = Message(location="", body=body)
    if detect_body(body, "response") or not detect_body(body, "request"):
        return Exchange(0, response=message)
    return Exchange(0, request=message)


def _single_stream(path: str, container: str, events: list[StreamEvent],
                   text: str | None = None) -> Capture:
    return Capture(path, container, [Exchange(0, response=Message(location="", events=events,
                                                                 text=text))])


def _jsonl(path: str, text: str) -> Capture:
    """JSON Lines: exchanges (`{"request":…, "response":…}`), or the events of one stream."""
    capture = Capture(path, "jsonl")
    events: list[StreamEvent] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = loads(line)
        except FormatError as err:
            capture.errors.append(InputError(path, f"line {number}", err.message))
            continue
        if _is_exchange(value):
            _add_exchange(capture, value, f"line {number}", len(capture.exchanges))
        else:
            events.append(StreamEvent(index=len(events), data=value, offset=number))
    if events:
        capture.exchanges.append(Exchange(len(capture.exchanges),
                                          response=Message(location="", events=events)))
    if not capture.exchanges:
        raise InputError(path, "", capture.errors[0].message if capture.errors else "no records")
    return capture


def _add_exchange(capture: Capture, record: dict[str, Any], where: str, index: int) -> None:
    exchange = Exchange(index, meta={k: v for k, v in record.items()
                                     if k not in ("request", "response")})
    for side in ("request", "response"):
        part = record.get(side)
        if part is None:
            continue
        location = f"{where}/{side}"
        try:
            setattr(exchange, side, _http_message(capture.path, part, location))
        except InputError as err:
            capture.errors.append(err)
    capture.exchanges.append(exchange)


def _http_message(path: str, part: Any, location: str) -> Message:
    """`{method, url, headers, body, status, bodyEncoding?}` as recorders and JSON Lines write it."""
    if not isinstance(part, dict):
        raise InputError(path, location, "expected an object with a body")
    headers = _headers(part.get("headers"))
    message = Message(location=f"{location}/body", url=str(part.get("url") or ""),
                      method=str(part.get("method") or ""), headers=headers,
                      status=part.get("status") if isinstance(part.get("status"), int) else None)
    if "body" not in part:
        # A response logged without a body wrapper: the record itself is the body.
        if any(k in part for k in ("choices", "candidates", "output", "content", "messages",
                                   "contents", "input")):
            message.location, message.body = location, part
        return message
    _fill_body(path, message, part["body"], part.get("bodyEncoding"), headers.get("content-type", ""))
    return message


def _fill_body(path: str, message: Message, body: Any, encoding: Any, content_type: str) -> None:
    if body is None or isinstance(body, dict | list):
        message.body = body
        return
    if not isinstance(body, str):
        raise InputError(path, message.location, f"body must be a string or JSON, not {type(body).__name__}")
    if encoding == "base64":
        try:
            raw = base64.b64decode(body, validate=False)
        except (binascii.Error, ValueError):
            raise InputError(path, message.location, "body is not valid base64") from None
        if eventstream.looks_like_eventstream(raw):
            message.events = _eventstream(path, message.location, raw)
            return
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputError(path, message.location, f"invalid UTF-8 at byte {err.start}") from None
    _fill_text(path, message, body, content_type)


def _fill_text(path: str, message: Message, text: str, content_type: str) -> None:
    message.text = text
    if not text.strip():
        return
    if "event-stream" in content_type or sse.looks_like_sse(text):
        message.events = sse.parse(text)
        return
    try:
        message.body = loads(text)
        message.text = None
    except FormatError as err:
        raise InputError(path, message.location, err.message) from None


def _eventstream(path: str, location: str, data: bytes) -> list[StreamEvent]:
    try:
        return eventstream.parse(data)
    except FormatError as err:
        raise InputError(path, f"{location} {err.pointer}".strip(), err.message) from None


def _headers(value: Any) -> dict[str, str]:
    """Headers as a dict with lower-case names, from a dict or HAR's `[{name, value}]`."""
    if isinstance(value, dict):
        return {str(k).lower(): str(v) for k, v in value.items()}
    if isinstance(value, list):
        return {str(h.get("name", "")).lower(): str(h.get("value", ""))
                for h in value if isinstance(h, dict)}
    return {}


def _interactions(path: str, doc: dict[str, Any]) -> Capture:
    interactions = doc.get("interactions")
    if not isinstance(interactions, list):
        raise InputError(path, "/interactions", "expected a list of interactions")
    capture = Capture(path, "interactions")
    for i, record in enumerate(interactions):
        if not isinstance(record, dict):
            capture.errors.append(InputError(path, f"/interactions/{i}", "expected an object"))
            continue
        _add_exchange(capture, record, f"/interactions/{i}", i)
    return capture


def _har(path: str, log: dict[str, Any]) -> Capture:
    entries = log.get("entries")
    if not isinstance(entries, list):
        raise InputError(path, "/log/entries", "expected a list of entries")
    capture = Capture(path, "har")
    for i, entry in enumerate(entries):
        where = f"/log/entries/{i}"
        if not isinstance(entry, dict):
            capture.errors.append(InputError(path, where, "expected an object"))
            continue
        exchange = Exchange(i, meta={k: entry[k] for k in ("startedDateTime", "time") if k in entry})
        request, response = entry.get("request"), entry.get("response")
        try:
            if isinstance(request, dict):
                exchange.request = _har_side(path, request, f"{where}/request/postData/text",
                                             (request.get("postData") or {}), None)
            if isinstance(response, dict):
                content = response.get("content") or {}
                exchange.response = _har_side(path, response, f"{where}/response/content/text",
                                              content, content.get("encoding"))
        except InputError as err:
            capture.errors.append(err)
        capture.exchanges.append(exchange)
    return capture


def _har_side(path: str, side: dict[str, Any], location: str, payload: Any,
              encoding: Any) -> Message:
    headers = _headers(side.get("headers"))
    message = Message(location=location, url=str(side.get("url") or ""),
                      method=str(side.get("method") or ""), headers=headers,
                      status=side.get("status") if isinstance(side.get("status"), int) else None)
    if isinstance(payload, dict) and isinstance(payload.get("text"), str):
        content_type = str(payload.get("mimeType") or headers.get("content-type", ""))
        _fill_body(path, message, payload["text"], encoding, content_type)
    return message
