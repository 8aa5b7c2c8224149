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

from dataclasses import replace
from typing import Any

from ..errors import FormatError, InputError
from ..lacking import IDS, TOOLS
from ..model import Invocation, Result, Source
from ..records.containers import Capture, Exchange, Preread
from . import genai, openinference
from .base import Peek
from .spans import CONVENTIONS, ORIGIN, read_spans

NAME = ORIGIN
TITLE = "OpenTelemetry trace (OTLP JSON)"
LACKS: tuple[str, ...] = ()


def sniff(peek: Peek) -> bool:
    first = peek.first
    if not isinstance(first, dict):
        return False
    if isinstance(first.get("resourceSpans"), list) or isinstance(first.get("resourceLogs"), list):
        return True
    return peek.document and any(isinstance(k, str) and k.startswith(CONVENTIONS) for k in first)


def read(path: str, data: bytes, document: Any) -> Capture:
    capture = Capture(path, NAME)
    spans = read_spans(path, data, document, capture.errors)
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


