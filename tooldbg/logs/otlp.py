"""OpenTelemetry traces in OTLP JSON: the spans (and log records) an instrumented app exported, each
LLM call a span whose attributes hold the messages (`logs.genai`, `logs.openinference`).

The container (https://opentelemetry.io/docs/specs/otel/protocol/file-exporter/, and the OTLP JSON
mapping of opentelemetry-proto): a file is JSON Lines of `TracesData` `{"resourceSpans": [{resource,
scopeSpans: [{scope, spans: [...]}]}]}` or `LogsData` `{"resourceLogs": [... logRecords ...]}`, or one
such document; a span has `traceId`, `spanId`, `name`, `startTimeUnixNano`, `attributes` as
`[{key, value: AnyValue}]` (`stringValue`, `intValue` — a string in JSON —, `doubleValue`,
`boolValue`, `arrayValue.values`, `kvlistValue.values`), `events` and `status {code, message}`
(`STATUS_CODE_ERROR` = 2). A bare map of attributes (what a span exporter or a UI copies out) is
read as one span.

Spans are not in order in a file. A span's conversation is its `gen_ai.conversation.id` (or
OpenInference's `session.id`), else its trace: the LLM spans are read in that order, each an
exchange for `load` to stitch (its request replays the history). A tool span that failed
(`gen_ai.operation.name` `execute_tool` or OpenInference kind `TOOL`, status ERROR) marks the result
with its call id failed (`gen_ai.tool.call.id`, OpenInference `tool.id`). What spans do not carry —
tool declarations, call ids — is said per file (`lacking`), found once the file is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import FormatError, InputError
from ..formats.base import ApiError, Response
from ..lacking import IDS, TOOLS
from ..model import Invocation, Result, Source
from ..records.containers import Capture, Exchange, Preread, json_lines
from .base import Peek, mapping

NAME = "otlp"
TITLE = "OpenTelemetry trace (OTLP JSON)"
LACKS: tuple[str, ...] = ()

#: OTLP `Status.code` for an error, in its JSON spellings.
_ERROR = (2, "2", "STATUS_CODE_ERROR")
#: Attribute prefixes of the conventions read (a bare attribute map is told by them).
_CONVENTIONS = ("gen_ai.", "llm.", "openinference.", "input.value", "output.value")


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


def sniff(peek: Peek) -> bool:
    first = peek.first
    if not isinstance(first, dict):
        return False
    if isinstance(first.get("resourceSpans"), list) or isinstance(first.get("resourceLogs"), list):
        return True
    return peek.document and any(isinstance(k, str) and k.startswith(_CONVENTIONS) for k in first)


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
    if "arrayValue" in any_value:
        return [value(v) for v in (any_value["arrayValue"] or {}).get("values") or []]
    if "kvlistValue" in any_value:
        listed = (any_value["kvlistValue"] or {}).get("values") or []
        return {kv.get("key"): value(kv.get("value")) for kv in listed if isinstance(kv, dict)}
    if "bytesValue" in any_value:
        return any_value["bytesValue"]
    return None


def _attributes(listed: Any, at: str) -> dict[str, tuple[Any, str]]:
    """`[{key, value}]` → key → (plain value, pointer to the AnyValue's scalar)."""
    out: dict[str, tuple[Any, str]] = {}
    for i, kv in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            raw = kv.get("value")
            inner = next(iter(raw), "") if isinstance(raw, dict) and len(raw) == 1 else ""
            out[kv["key"]] = (value(raw), f"{at}/{i}/value" + (f"/{inner}" if inner else ""))
    return out


def _spans(path: str, data: bytes, document: Any, errors: list[InputError]) -> list[Span]:
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
        for r, resource in enumerate(record.get("resourceSpans") or []):
            for s, scope in enumerate((resource or {}).get("scopeSpans") or []):
                for k, span in enumerate((scope or {}).get("spans") or []):
                    if isinstance(span, dict):
                        spans.append(_span(f"{where}/resourceSpans/{r}/scopeSpans/{s}/spans/{k}", span))
        for r, resource in enumerate(record.get("resourceLogs") or []):
            for s, scope in enumerate((resource or {}).get("scopeLogs") or []):
                for k, log in enumerate((scope or {}).get("logRecords") or []):
                    if isinstance(log, dict):
                        attrs = {key: v for key, (v, _) in _attributes(log.get("attributes"), "").items()}
                        name = log.get("eventName") or attrs.get("event.name") or ""
                        body = value(log.get("body"))
                        logs.append((str(log.get("traceId", "")), str(log.get("spanId", "")), str(name),
                                     body if isinstance(body, dict) else {"content": body},
                                     f"{where}/resourceLogs/{r}/scopeLogs/{s}/logRecords/{k}"))
    by_id = {(s.trace, s.span_id): s for s in spans}
    for trace, span_id, name, body, where in logs:
        owner = by_id.get((trace, span_id))
        if owner is None:  # events of a span the file does not hold: a span of their own
            owner = by_id[(trace, span_id)] = Span(where, {}, trace=trace, span_id=span_id)
            spans.append(owner)
        owner.events.append((name, body, where, ""))
    return spans


def _span(where: str, span: dict[str, Any]) -> Span:
    status = mapping(span, "status")
    start = span.get("startTimeUnixNano")
    decoded = Span(where, span, _attributes(span.get("attributes"), "/attributes"),
                   name=str(span.get("name", "")), trace=str(span.get("traceId", "")),
                   span_id=str(span.get("spanId", "")),
                   start=int(start) if isinstance(start, (int, str)) and str(start).isdigit() else 0,
                   failed=status.get("code") in _ERROR, status=str(status.get("message") or ""))
    for i, event in enumerate(span.get("events") or []):
        if isinstance(event, dict):
            attrs = {k: v for k, (v, _) in _attributes(event.get("attributes"), "").items()}
            decoded.events.append((str(event.get("name", "")), attrs, where, f"/events/{i}"))
    return decoded


def read(path: str, data: bytes, document: Any) -> Capture:
    from . import genai, openinference

    capture = Capture(path, NAME)
    spans = _spans(path, data, document, capture.errors)
    failed = {str(s.get("gen_ai.tool.call.id") or s.get("tool.id") or s.get("tool_call.id"))
              for s in spans if s.failed and (s.get("gen_ai.operation.name") == "execute_tool"
                                                or s.get("openinference.span.kind") == "TOOL")}
    ordered = sorted(spans, key=lambda s: (str(s.get("gen_ai.conversation.id") or s.get("session.id")
                                               or s.trace), s.start))
    exchanges: list[Exchange] = []
    for span in ordered:
        reader = openinference if openinference.claims(span) else genai
        exchange = reader.exchange(path, span, len(exchanges))
        if exchange is not None:
            exchanges.append(_failures(path, exchange, failed))
    capture.exchanges, capture.records = exchanges, len(exchanges)
    capture.lacks.extend(_lacking(exchanges))
    if not exchanges and not capture.errors:
        capture.errors.append(InputError(path, "", "no LLM span found (neither GenAI nor OpenInference "
                                                   "attributes)"))
    return capture


def _failures(path: str, exchange: Exchange, failed: set[str]) -> Exchange:
    """Results whose call a failed tool span ran marked failed, the meta naming the span status (a
    span's raw bodies are read here to mark them)."""
    if not failed:
        return exchange
    if exchange.read is None:
        exchange.read = _wire(path, exchange)
    read = exchange.read
    if read is None or read.request is None:
        return exchange
    turns = tuple(replace(t, parts=tuple(
        replace(p, is_error=True, meta={**p.meta, NAME: {"is_error_from": "tool span status ERROR"}})
        if isinstance(p, Result) and p.wire_id in failed and not p.is_error else p for p in t.parts))
        for t in read.request.turns)
    exchange.read = replace(read, request=replace(read.request, turns=turns))
    return exchange


def _wire(path: str, exchange: Exchange) -> Preread | None:
    """An exchange of raw bodies read by its wire format (None: no format reads it without error;
    `load` then reads it and says why)."""
    from .. import formats

    sent, answer = exchange.request, exchange.response
    fmt = formats.detect_body(sent.body, "request") if sent is not None else None
    if fmt is None or sent is None:
        return None
    module = formats.get(fmt)
    try:
        request = module.read_request(sent.body, Source(path, exchange.index, "request", sent.location))
        responses = () if answer is None or answer.body is None else \
            (module.read_response(answer.body, Source(path, exchange.index, "response", answer.location)),)
    except FormatError:
        return None
    return Preread(request=request, responses=responses, format=fmt)


def _lacking(exchanges: list[Exchange]) -> list[str]:
    """What the spans did not carry: tool declarations (no request declared any, though calls were
    made), call ids (a call or result without one)."""
    requests = [e.read.request for e in exchanges if e.read is not None and e.read.request is not None]
    answers = [r.turn for e in exchanges if e.read is not None
               for r in e.read.responses if r.turn is not None]
    parts = [p for r in requests for t in r.turns for p in t.parts] + [p for t in answers for p in t.parts]
    calls = [p for p in parts if isinstance(p, (Invocation, Result))]
    lacks = []
    if requests and calls and not any(r.tools for r in requests):
        lacks.append(TOOLS)
    if any(p.wire_id is None for p in calls):
        lacks.append(IDS)
    return lacks


def error_response(span: Span) -> Response | None:
    """A failed LLM span: the call failed (its status message, or `error.type`)."""
    if not span.failed:
        return None
    message = span.status or str(span.get("error.type") or "the call failed")
    return Response(error=ApiError(message=message, type=str(span.get("error.type") or "") or None))

