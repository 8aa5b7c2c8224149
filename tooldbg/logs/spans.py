"""The spans of an OTLP JSON file decoded (`logs.otlp` reads the file; `logs.genai` and
`logs.openinference` read a span's messages): attribute values made plain, each with the pointer to it,
log records attached to the span they name."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..formats.base import ApiError, Response
from ..jsonio import dumps_str
from ..records.lines import json_lines
from .base import decoded as decoded_json
from .base import listed, mapping

#: The log format's name: the meta key of what its readers derive (`otlp.NAME`).
ORIGIN = "otlp"
#: OTLP `Status.code` for an error, in its JSON spellings.
ERROR_CODES = (2, "2", "STATUS_CODE_ERROR")
#: Attribute prefixes of the conventions read (a bare attribute map is told by them).
CONVENTIONS = ("gen_ai.", "llm.", "openinference.", "input.value", "output.value")


@dataclass(slots=True)
class Span:
    """A span (or a bare attribute map) decoded: each attribute's value and the pointer to it."""

    location: str  # where the span is in the file
    body: dict[str, Any]
    attrs: dict[str, tuple[Any, str]] = field(default_factory=dict)
    name: str = ""
    trace: str = ""
    span_id: str = ""
    start: int = 0
    failed: bool = False
    status: str = ""
    #: (event name, its attributes decoded, its pointer) for the span's events, and the log records
    #: that name it (legacy GenAI events)
    events: list[tuple[str, dict[str, Any], str, str]] = field(default_factory=list)

    def get(self, key: str) -> Any:
        found = self.attrs.get(key)
        return found[0] if found is not None else None

    def where(self, key: str) -> str:
        """The pointer of attribute `key`'s value in the span."""
        return self.attrs[key][1]


def value(any_value: Any) -> Any:
    """An OTLP `AnyValue` as a plain value (`intValue` is a string in JSON: made an int)."""
    if not isinstance(any_value, dict):
        return any_value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in any_value:
            return any_value[key]
    if "intValue" in any_value:
        raw = any_value["intValue"]
        return int(raw) if isinstance(raw, str) and raw.lstrip("-").isdigit() else raw
    # An array or a key-value list not shaped as OTLP's (`{"values": [...]}`) is the value as it stands.
    if "arrayValue" in any_value:
        array = any_value["arrayValue"]
        items = (array.get("values") or []) if isinstance(array, dict) else None
        return [value(v) for v in items] if isinstance(items, list) else array
    if "kvlistValue" in any_value:
        kvlist = any_value["kvlistValue"]
        items = (kvlist.get("values") or []) if isinstance(kvlist, dict) else None
        if not isinstance(items, list):
            return kvlist
        return {_key(kv.get("key")): value(kv.get("value")) for kv in items if isinstance(kv, dict)}
    if "bytesValue" in any_value:
        return any_value["bytesValue"]
    return None


def _key(key: Any) -> str | None:
    """A key-value list's key: a string, else as JSON (OTLP keys are strings; None when absent)."""
    return key if key is None or isinstance(key, str) else dumps_str(key)


def attributes(listed: Any, at: str) -> dict[str, tuple[Any, str]]:
    """`[{key, value}]` → key → (plain value, pointer to the AnyValue's scalar)."""
    out: dict[str, tuple[Any, str]] = {}
    for i, kv in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            raw = kv.get("value")
            inner = next(iter(raw), "") if isinstance(raw, dict) and len(raw) == 1 else ""
            out[kv["key"]] = (value(raw), f"{at}/{i}/value" + (f"/{inner}" if inner else ""))
    return out


def read_spans(path: str, data: bytes, document: Any, errors: list[InputError]) -> list[Span]:
    """Every span of the file, log records attached to the span they name."""
    records: Iterator[tuple[str, Any]]
    if document is not None:
        records = iter((("", document),))
    else:
        records = ((f"line {n}", r) for n, r in json_lines(path, data, errors))
    spans: list[Span] = []
    logs: list[tuple[str, str, str, dict[str, Any], str]] = []  # (trace, span, name, body, location)
    for where, record in records:
        if not isinstance(record, dict):
            errors.append(InputError(path, where, "a record must be an object"))
            continue
        if not any(k in record for k in ("resourceSpans", "resourceLogs")):  # a bare attribute map
            spans.append(Span(where, record, {k: (v, f"/{k}") for k, v in record.items()}))
            continue
        for at, span in _nested(record, where, ("resourceSpans", "scopeSpans", "spans")):
            spans.append(_span(at, span))
        for at, log in _nested(record, where, ("resourceLogs", "scopeLogs", "logRecords")):
            attrs = {key: v for key, (v, _) in attributes(log.get("attributes"), "").items()}
            name = log.get("eventName") or attrs.get("event.name") or ""
            body = value(log.get("body"))
            logs.append((str(log.get("traceId", "")), str(log.get("spanId", "")), str(name),
                         body if isinstance(body, dict) else {"content": body}, at))
    by_id = {(s.trace, s.span_id): s for s in spans}
    for trace, span_id, name, body, where in logs:
        owner = by_id.get((trace, span_id))
        if owner is None:  # events of a span the file does not hold: a span of their own
            owner = by_id[(trace, span_id)] = Span(where, {}, trace=trace, span_id=span_id)
            spans.append(owner)
        owner.events.append((name, body, where, ""))
    return spans


def _nested(record: dict[str, Any], where: str,
            keys: tuple[str, str, str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The objects three lists down (`resourceSpans[].scopeSpans[].spans[]`), each with where it is;
    what is not an object on the way is passed over."""
    outer, middle, inner = keys
    for r, resource in enumerate(listed(record, outer)):
        for s, scope in enumerate(listed(resource, middle)):
            for k, item in enumerate(listed(scope, inner)):
                if isinstance(item, dict):
                    yield f"{where}/{outer}/{r}/{middle}/{s}/{inner}/{k}", item


def _span(where: str, span: dict[str, Any]) -> Span:
    status = mapping(span, "status")
    start = span.get("startTimeUnixNano")
    decoded = Span(where, span, attributes(span.get("attributes"), "/attributes"),
                   name=str(span.get("name", "")), trace=str(span.get("traceId", "")),
                   span_id=str(span.get("spanId", "")),
                   start=int(start) if isinstance(start, (int, str)) and str(start).isdigit() else 0,
                   failed=status.get("code") in ERROR_CODES, status=str(status.get("message") or ""))
    for i, event in enumerate(listed(span, "events")):
        if isinstance(event, dict):
            attrs = {k: v for k, (v, _) in attributes(event.get("attributes"), "").items()}
            decoded.events.append((str(event.get("name", "")), attrs, where, f"/events/{i}"))
    # Pydantic AI / Logfire keep the older events as one attribute, `events`: a JSON list of bodies
    # each naming its event in `event.name` (pydantic/logfire's tests show it)
    kept = decoded_json(decoded.get("events"))
    for body in kept if isinstance(kept, list) else []:
        if isinstance(body, dict) and isinstance(body.get("event.name"), str):
            decoded.events.append((body["event.name"], body, where, decoded.where("events")))
    return decoded


def error_response(span: Span) -> Response | None:
    """A failed LLM span: the call failed (its status message, or `error.type`)."""
    if not span.failed:
        return None
    message = span.status or str(span.get("error.type") or "the call failed")
    return Response(error=ApiError(message=message, type=str(span.get("error.type") or "") or None))

