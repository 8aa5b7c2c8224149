"""LiteLLM's logs of the calls it made: the `StandardLoggingPayload` every logging callback receives,
the proxy's spend logs, and the `POST Request Sent from LiteLLM` lines of its debug output.

* `StandardLoggingPayload` (BerriAI/litellm `litellm/types/utils.py`; what gets logged:
  https://docs.litellm.ai/docs/proxy/logging_spec): `messages` (the OpenAI Chat messages it was
  called with, whatever the provider), `model_parameters` (the call's parameters, `tools` among
  them), `response` (an OpenAI `ChatCompletion`), `status` `success` / `failure` with `error_str` and
  `error_information {error_code, error_class, error_message}`. S3 and GCS buckets keep one JSON a
  call; read here as a document, a JSON array of them, or JSON Lines.
* Spend logs (the `LiteLLM_SpendLogs` table, exported as JSON; shape:
  `tests/logging_callback_tests/gcs_pub_sub_body/spend_logs_payload.json`): `request_id`, `call_type`,
  `spend`, and `messages`, `response` and `proxy_server_request` (the client's own request) as JSON
  strings — each `"{}"` unless `general_settings.store_prompts_in_spend_logs` is on: such a log keeps
  no conversation, and says so (`lacking.PROMPTS`).
* Debug output (`litellm --detailed_debug`, `LITELLM_LOG=DEBUG`;
  `litellm/litellm_core_utils/litellm_logging.py`, `_get_request_curl_command`): after a line
  `POST Request Sent from LiteLLM:` come `curl -X POST \\`, the endpoint URL, the headers (masked) and
  `-d '{body}'`, the body being Python's `str()` of the request dict (single quotes, `True`, `None`):
  it is read with `ast.literal_eval`, which evaluates literals only. A later `RAW RESPONSE:` line gives
  the response. These are the provider's own bodies (Anthropic's, Gemini's…), told by their URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..errors import InputError
from ..jsonio import dumps_str, try_loads
from ..lacking import PROMPTS
from ..records.containers import Capture, Exchange, Message
from ..records.lines import json_lines
from ..records.sniff import LITELLM_MARKER
from .base import Peek, decoded

NAME = "litellm"
TITLE = "LiteLLM log"
LACKS: tuple[str, ...] = ()

#: The payload's keys that tell it from another record (two suffice).
_PAYLOAD = ("call_type", "model_parameters", "hidden_params", "response_cost", "standard_logging_object")
_SPEND = ("request_id", "call_type", "spend", "proxy_server_request")
_RESPONSE_LINE = re.compile(r"RAW RESPONSE:\s*$")


def sniff(peek: Peek) -> bool:
    """A payload or spend-log record (or an array of them), or debug output with a request in it."""
    first = peek.first
    if isinstance(first, list) and first:
        first = first[0]
    if isinstance(first, dict):
        return _is_payload(first) or _is_spend(first)
    # Debug output is text: a JSON document that quotes the marker (a request asking about it) is
    # not one, and its records are told by their shape once parsed (`detect_document`).
    return not peek.records and peek.data.lstrip()[:1] not in (b"{", b"[") and _marked(peek.data)


def _marked(data: bytes) -> bool:
    """LiteLLM's debug marker in the first 4 MiB (searched in place: a slice would copy them)."""
    return data.find(LITELLM_MARKER, 0, 1 << 22) >= 0


def _is_payload(record: dict[str, Any]) -> bool:
    return sum(key in record for key in _PAYLOAD) >= 2 and "messages" in record


def _is_spend(record: dict[str, Any]) -> bool:
    return sum(key in record for key in _SPEND) >= 3


def read(path: str, data: bytes, document: Any) -> Capture:
    capture = Capture(path, NAME)
    exchanges: list[Exchange] = []
    if document is None and _marked(data) and data.lstrip()[:1] not in (b"{", b"["):
        exchanges = _debug_output(capture, data)
    else:
        records: Iterable[tuple[str, Any]]
        if isinstance(document, list):
            records = ((f"/{i}", r) for i, r in enumerate(document))
        elif document is not None:
            records = (("", document),)
        else:
            records = ((f"line {n}", r) for n, r in json_lines(path, data, capture.errors))
        for where, record in records:
            exchange = _record(capture, where, record, len(exchanges))
            if exchange is not None:
                exchanges.append(exchange)
    capture.exchanges, capture.records = exchanges, len(exchanges)
    if not exchanges and not capture.errors and not capture.lacks:
        capture.errors.append(InputError(path, "", "no LiteLLM call found"))
    return capture


def _record(capture: Capture, where: str, record: Any, index: int) -> Exchange | None:
    """A payload or a spend-log row as exchange `index` (None: it holds no conversation)."""
    if not isinstance(record, dict):
        capture.errors.append(InputError(capture.path, where, "a record must be an object"))
        return None
    if _is_spend(record) and not _is_payload(record):
        return _spend(capture, where, record, index)
    return _payload(capture, where, record, index)


def _payload(capture: Capture, where: str, record: dict[str, Any], index: int) -> Exchange | None:
    """A `StandardLoggingPayload`: the request it was called with (its messages and parameters, at
    their places in the record) and the response or the error."""
    messages = _decoded(record.get("messages"))
    if not messages:
        capture.lacks.append(PROMPTS)
        return None
    parameters = record.get("model_parameters")
    body: dict[str, Any] = {"model": record.get("model"),
                            **(parameters if isinstance(parameters, dict) else {})}
    body["input" if "responses" in str(record.get("call_type")) else "messages"] = messages
    exchange = Exchange(index, request=Message(location=where, body=body))
    exchange.meta = {k: record[k] for k in ("id", "trace_id", "call_type", "status", "api_base")
                     if k in record}
    if record.get("status") == "failure":
        info = record.get("error_information")
        info = info if isinstance(info, dict) else {}
        code = str(info.get("error_code") or "")
        message = info.get("error_message") or record.get("error_str") or "the call failed"
        exchange.response = Message(
            location=f"{where}/error_information",
            status=int(code) if code.isdigit() and len(code) == 3 else None,
            body={"error": {"message": message, "type": info.get("error_class"), "code": code or None}})
    else:
        response = _decoded(record.get("response"))
        if response:
            exchange.response = Message(location=f"{where}/response", body=response)
    return exchange


def _spend(capture: Capture, where: str, record: dict[str, Any], index: int) -> Exchange | None:
    """A spend-log row: the client's request (`proxy_server_request`, else the `messages`) and the
    response, each a JSON string in the row."""
    request = _decoded(record.get("proxy_server_request"))
    at = f"{where}/proxy_server_request"
    if not request:
        messages = _decoded(record.get("messages"))
        request, at = ({"model": record.get("model"), "messages": messages}, f"{where}/messages") \
            if messages else (None, at)
    if not request:
        capture.lacks.append(PROMPTS)
        return None
    exchange = Exchange(index, request=Message(location=at, body=request))
    exchange.meta = {k: record[k] for k in ("request_id", "call_type", "status", "api_base") if k in record}
    response = _decoded(record.get("response"))
    if response:
        exchange.response = Message(location=f"{where}/response", body=response)
    return exchange


def _decoded(value: Any) -> Any:
    """A field that holds JSON (or JSON in a string); None for nothing (`"{}"`, an empty string)."""
    return decoded(value) or None


def _debug_output(capture: Capture, data: bytes) -> list[Exchange]:
    """Each `Request Sent from LiteLLM` block's body (and the `RAW RESPONSE` after it) as an exchange."""
    import ast

    lines = data.decode("utf-8", errors="replace").splitlines()
    exchanges: list[Exchange] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if LITELLM_MARKER.decode() in line:
            url, body_line = "", None
            for j in range(i + 1, min(i + 40, len(lines))):
                text = lines[j]
                if "curl -X" in text and j + 1 < len(lines):
                    words = lines[j + 1].rstrip().removesuffix("\\").split()  # (the URL, then ` \`)
                    url = words[-1] if words else url
                if "-d '" in text:
                    body_line = j
                    break
            if body_line is None:
                i += 1
                continue
            raw = lines[body_line].split("-d '", 1)[1].rstrip()
            raw = raw[:-1] if raw.endswith("'") else raw
            where = f"line {body_line + 1}"
            try:
                body = ast.literal_eval(raw)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                ok, body = try_loads(raw)
                if not ok:
                    capture.errors.append(InputError(capture.path, where, "the request body is not a Python "
                                                     "or JSON literal"))
                    i = body_line + 1
                    continue
            else:  # the JSON value the literal writes as: what JSON cannot hold (a lone surrogate, a
                # tuple) would not read back the same from what tooldbg writes of it
                ok, normal = try_loads(dumps_str(body))
                body = normal if ok else body
            exchanges.append(Exchange(len(exchanges), request=Message(location=where, body=body, url=url,
                                                                      method="POST")))
            i = body_line + 1
            continue
        if _RESPONSE_LINE.search(line) and exchanges and exchanges[-1].response is None \
                and i + 1 < len(lines):
            ok, body = try_loads(lines[i + 1].strip())
            if ok and isinstance(body, dict):
                exchanges[-1].response = Message(location=f"line {i + 2}", body=body)
        i += 1
    return exchanges
