"""AWS event-stream framing (`application/vnd.amazon.eventstream`) → `StreamEvent`s.

Bedrock ConverseStream answers in binary frames, not SSE. Each frame is

    total length (4 B, big-endian) | headers length (4 B) | prelude CRC32 (4 B)
    | headers | payload | message CRC32 (4 B, over everything before it)

and each header is `name length (1 B) | name | type (1 B) | value`, where the value's size depends on
its type (AWS "Event stream encoding" spec; botocore `eventstream.py` decodes the same way). The
event name lives only in the `:event-type` header (`:exception-type` for exceptions, `:error-code`
for error frames); the JSON payload is the bare event body.
"""

from __future__ import annotations

import struct
import zlib

from ..errors import FormatError
from ..formats.base import StreamEvent
from ..jsonio import loads
from ..shorten import quote

_PRELUDE = 12  # total length, headers length, prelude CRC
_FRAME_OVERHEAD = _PRELUDE + 4  # + message CRC

# Header value types with a fixed size: bool true/false, byte, short, int, long, timestamp, uuid.
_FIXED_SIZES = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_BYTES, _STRING = 6, 7  # 2-byte length prefix


def looks_like_eventstream(data: bytes) -> bool:
    """True when the first frame's prelude CRC checks out."""
    if len(data) < _FRAME_OVERHEAD:
        return False
    total, headers = struct.unpack_from(">II", data)
    return (total >= _FRAME_OVERHEAD and headers <= total - _FRAME_OVERHEAD
            and zlib.crc32(data[:8]) == struct.unpack_from(">I", data, 8)[0])


def parse(data: bytes) -> list[StreamEvent]:
    """Decode every frame; a truncated frame or a bad CRC raises at that frame's byte offset."""
    events: list[StreamEvent] = []
    offset = 0
    while offset < len(data):
        frame, size = _frame(data, offset)
        headers = _headers(frame[_PRELUDE:_PRELUDE + size], offset)
        payload = frame[_PRELUDE + size:-4]
        events.append(StreamEvent(index=len(events), data=_payload(payload, headers),
                                  name=_name(headers), offset=offset))
        offset += len(frame)
    return events


def _frame(data: bytes, offset: int) -> tuple[bytes, int]:
    """The frame at `offset` (checked) and its headers length."""
    at = f"byte {offset}"
    if len(data) - offset < _PRELUDE:
        raise FormatError(f"event-stream frame truncated: {len(data) - offset} bytes of a prelude", at)
    total, headers, prelude_crc = struct.unpack_from(">III", data, offset)
    if zlib.crc32(data[offset:offset + 8]) != prelude_crc:
        raise FormatError("event-stream prelude CRC mismatch", at)
    if total < _FRAME_OVERHEAD or headers > total - _FRAME_OVERHEAD:
        raise FormatError(f"event-stream frame lengths are inconsistent ({total}, {headers})", at)
    if len(data) - offset < total:
        raise FormatError(f"event-stream frame truncated: {len(data) - offset} of {total} bytes", at)
    frame = data[offset:offset + total]
    if zlib.crc32(frame[:-4]) != struct.unpack_from(">I", frame, total - 4)[0]:
        raise FormatError("event-stream message CRC mismatch", at)
    return frame, headers


def _headers(raw: bytes, offset: int) -> dict[str, object]:
    """Decode the header block; values of every type are skipped correctly, strings kept."""
    out: dict[str, object] = {}
    pos = 0
    while pos < len(raw):
        name_len = raw[pos]
        name = raw[pos + 1:pos + 1 + name_len].decode("utf-8", "replace")
        pos += 1 + name_len
        if pos >= len(raw):
            raise FormatError(f"event-stream header {quote(name)} has no value", f"byte {offset}")
        kind = raw[pos]
        pos += 1
        if kind in _FIXED_SIZES:
            size = _FIXED_SIZES[kind]
            value: object = kind == 0 if kind in (0, 1) else raw[pos:pos + size]
        elif kind in (_BYTES, _STRING):
            if pos + 2 > len(raw):
                raise FormatError(f"event-stream header {quote(name)} truncated", f"byte {offset}")
            size = 2 + int.from_bytes(raw[pos:pos + 2], "big")
            value = raw[pos + 2:pos + size]
            if kind == _STRING:
                value = raw[pos + 2:pos + size].decode("utf-8", "replace")
        else:
            raise FormatError(f"event-stream header {quote(name)} has unknown type {kind}", f"byte {offset}")
        pos += size
        if pos > len(raw):
            raise FormatError(f"event-stream header {quote(name)} truncated", f"byte {offset}")
        out[name] = value
    return out


def _name(headers: dict[str, object]) -> str | None:
    kind = headers.get(":message-type", "event")
    key = {"exception": ":exception-type", "error": ":error-code"}.get(str(kind), ":event-type")
    name = headers.get(key)
    return name if isinstance(name, str) else None


def _payload(payload: bytes, headers: dict[str, object]) -> object:
    """The JSON payload; text when it is not JSON; an error frame's message when it has none."""
    text = payload.decode("utf-8", "replace")
    if not text.strip() and headers.get(":message-type") == "error":
        return {"message": headers.get(":error-message", "")}
    try:
        return loads(text)
    except FormatError:
        return text
