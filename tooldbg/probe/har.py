"""The probe's capture: every exchange as a HAR 1.2 entry, the container every command reads.

Credentials never reach it: the request headers that carry one are masked (`secrets.redact_headers`)
and the key itself, wherever a server echoed it (an error message, a body), is replaced by stars of
its length. A body that is not UTF-8 text — a Bedrock event stream's binary frames — is kept as
base64 with `encoding: "base64"`, as mitmproxy writes it.

Each entry carries `_tooldbg` (HAR allows custom fields that start with `_`): `probe`, the step the
exchange was made for, and, on the exchanges where a step failed, `focus`: the codes of the findings
that failed it, which the debugger selects first when it opens the capture."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..records.eventstream import looks_like_eventstream
from ..secrets import redact_headers
from .http import Sent

#: The entry field tooldbg's own annotations live in (`Exchange.meta` keeps it when a HAR is read).
FIELD = "_tooldbg"


def scrub(data: bytes, key: str | None) -> bytes:
    """`data` with every occurrence of `key` replaced by as many stars (lengths, and so an event
    stream's frame sizes, stay as they were)."""
    if not key:
        return data
    secret = key.encode()
    return data.replace(secret, b"*" * len(secret))


def entry(sent: Sent, purpose: str, key: str | None) -> dict[str, Any]:
    """One exchange as a HAR entry, credentials masked."""
    request_type = sent.request_headers.get("content-type", "application/json")
    response_type = sent.header("content-type") or "application/octet-stream"
    request_text = scrub(sent.request_body, key).decode("utf-8", "replace")
    body = scrub(sent.response_body, key)
    content: dict[str, Any] = {"size": len(body), "mimeType": response_type}
    text = None if looks_like_eventstream(body) else _utf8(body)  # (binary frames may happen to decode)
    if text is None:
        content.update(text=base64.b64encode(body).decode(), encoding="base64")
    else:
        content["text"] = text
    elapsed = round(sent.elapsed * 1000, 3)
    out: dict[str, Any] = {
        "startedDateTime": datetime.fromtimestamp(sent.started, UTC).isoformat(timespec="milliseconds"),
        "time": elapsed,
        "request": {"method": sent.method, "url": masked(sent.url, key), "httpVersion": "HTTP/1.1",
                    "headers": _headers(redact_headers(sent.request_headers), key), "queryString": [],
                    "cookies": [], "headersSize": -1, "bodySize": len(sent.request_body),
                    "postData": {"mimeType": request_type, "text": request_text}},
        "response": {"status": sent.status, "statusText": masked(sent.reason, key), "httpVersion": "HTTP/1.1",
                     "headers": _headers(redact_headers(dict(sent.response_headers)), key), "cookies": [],
                     "content": content, "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
        "cache": {}, "timings": {"send": 0, "wait": elapsed, "receive": 0},
        FIELD: {"probe": purpose},
    }
    if sent.cut:
        out["comment"] = f"tooldbg probe: {sent.cut}"
    return out


def document(entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": "tooldbg probe", "version": __version__},
                    "entries": list(entries)}}


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def masked(text: str, key: str | None) -> str:
    """`text` with `key` replaced by as many stars."""
    return text.replace(key, "*" * len(key)) if key else text


def _headers(headers: dict[str, str], key: str | None) -> list[dict[str, str]]:
    return [{"name": name, "value": masked(value, key)} for name, value in headers.items()]
