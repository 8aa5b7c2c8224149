"""AWS event-stream framing: the Bedrock corpus frames, frames this file encodes itself (every
header type), and the errors a truncated or corrupted capture gives."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import paths
from tooldbg.errors import FormatError
from tooldbg.formats.base import StreamEvent
from tooldbg.records import eventstream

CORPUS = paths.CORPUS / "opencode-recordings" / "bedrock-converse"


def header(name: str, kind: int, value: bytes) -> bytes:
    raw = name.encode()
    return bytes([len(raw)]) + raw + bytes([kind]) + value


def string_header(name: str, value: str) -> bytes:
    raw = value.encode()
    return header(name, 7, struct.pack(">H", len(raw)) + raw)


def frame(payload: bytes, *headers: bytes) -> bytes:
    """One event-stream message with correct CRCs."""
    block = b"".join(headers)
    total = 16 + len(block) + len(payload)
    prelude = struct.pack(">II", total, len(block))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + block + payload
    return body + struct.pack(">I", zlib.crc32(body))


def event(name: str, payload: dict) -> bytes:
    return frame(json.dumps(payload).encode(), string_header(":event-type", name),
                 string_header(":content-type", "application/json"),
                 string_header(":message-type", "event"))


def corpus_body(name: str) -> bytes:
    data = json.loads((CORPUS / name).read_text())
    return base64.b64decode(data["interactions"][0]["response"]["body"])


@pytest.mark.needs_corpus
def test_corpus_tool_call_frames():
    """The recorded ConverseStream tool call decodes to six named events at their byte offsets."""
    data = corpus_body("streams-a-tool-call.json")
    events = eventstream.parse(data)
    assert [e.name for e in events] == ["messageStart", "contentBlockStart", "contentBlockDelta",
                                        "contentBlockStop", "messageStop", "metadata"]
    assert [e.index for e in events] == list(range(6))
    ends = [e.offset + struct.unpack_from(">I", data, e.offset)[0] for e in events]
    assert [e.offset for e in events] == [0, *ends[:-1]] and ends[-1] == len(data)
    assert events[2].data == {"contentBlockIndex": 0,
                              "delta": {"toolUse": {"input": '{"city":"Paris"}'}},
                              "p": "abcdefghijklmnopqrstuvwxyzABCDEFGHI"}
    assert eventstream.looks_like_eventstream(data)


@pytest.mark.needs_corpus
def test_corpus_text_frames():
    events = eventstream.parse(corpus_body("streams-text.json"))
    assert [(e.name, e.data.get("delta")) for e in events] == [
        ("messageStart", None), ("contentBlockDelta", {"text": "Hello"}),
        ("contentBlockDelta", {"text": ""}), ("contentBlockStop", None), ("messageStop", None),
        ("metadata", None)]


def test_every_header_type_is_skipped_correctly():
    """Headers of every type (bool, byte, short, int, long, bytes, timestamp, uuid) are stepped over."""
    headers = [header("t", 0, b""), header("f", 1, b""), header("b", 2, b"\x07"),
               header("s", 3, b"\x00\x02"), header("i", 4, b"\x00\x00\x00\x03"),
               header("l", 5, b"\x00" * 8), header("raw", 6, b"\x00\x03abc"),
               header("ts", 8, b"\x00" * 8), header("id", 9, b"\x01" * 16),
               string_header(":event-type", "messageStop")]
    data = frame(b'{"stopReason":"end_turn"}', *headers)
    assert eventstream.parse(data) == [StreamEvent(index=0, data={"stopReason": "end_turn"},
                                                   name="messageStop", offset=0)]


def test_exception_and_error_frames_are_named():
    exception = frame(b'{"message":"Too many requests"}',
                      string_header(":exception-type", "throttlingException"),
                      string_header(":message-type", "exception"))
    error = frame(b"", string_header(":error-code", "InternalFailure"),
                  string_header(":error-message", "boom"), string_header(":message-type", "error"))
    events = eventstream.parse(event("messageStart", {"role": "assistant"}) + exception + error)
    assert [(e.name, e.data) for e in events] == [
        ("messageStart", {"role": "assistant"}),
        ("throttlingException", {"message": "Too many requests"}),
        ("InternalFailure", {"message": "boom"})]


def test_non_json_payload_stays_text():
    assert eventstream.parse(frame(b"hello", string_header(":event-type", "x")))[0].data == "hello"


def test_corrupted_message_crc_names_the_frame():
    good = event("messageStart", {"role": "assistant"})
    bad = bytearray(event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "hi"}}))
    bad[-6] ^= 0xFF  # a payload byte: the message CRC no longer matches
    with pytest.raises(FormatError) as err:
        eventstream.parse(good + bytes(bad))
    assert err.value.pointer == f"byte {len(good)}"
    assert "message CRC" in err.value.message


def test_corrupted_prelude_crc():
    data = bytearray(event("messageStart", {"role": "assistant"}))
    data[9] ^= 0x01
    with pytest.raises(FormatError, match="prelude CRC") as err:
        eventstream.parse(bytes(data))
    assert err.value.pointer == "byte 0"
    assert not eventstream.looks_like_eventstream(bytes(data))


def test_truncated_capture_names_the_last_frame():
    first = event("messageStart", {"role": "assistant"})
    second = event("messageStop", {"stopReason": "end_turn"})
    with pytest.raises(FormatError) as err:
        eventstream.parse(first + second[:-10])
    assert (err.value.pointer, err.value.message) == \
        (f"byte {len(first)}", f"event-stream frame truncated: {len(second) - 10} of {len(second)} bytes")
    with pytest.raises(FormatError) as err:
        eventstream.parse(first + second[:5])
    assert err.value.message == "event-stream frame truncated: 5 bytes of a prelude"


def test_a_header_without_its_type_is_named():
    data = frame(b"{}", string_header(":event-type", "messageStop"), bytes([3]) + b"odd")
    with pytest.raises(FormatError) as err:
        eventstream.parse(data)
    assert (err.value.pointer, err.value.message) == ("byte 0", "event-stream header 'odd' has no value")


def test_an_error_frame_without_a_message_and_a_header_not_utf8_are_still_read():
    error = frame(b"", string_header(":error-code", "InternalFailure"), string_header(":message-type", "error"))
    odd = frame(b"{}", header(":event-type", 7, b"\x00\x03a\xffb"))
    assert [(e.name, e.data) for e in eventstream.parse(error + odd)] == \
        [("InternalFailure", {"message": ""}), ("a\ufffdb", {})]


def test_looks_like_eventstream_rejects_other_bodies():
    assert not eventstream.looks_like_eventstream(b'{"output": {}}')
    assert not eventstream.looks_like_eventstream(b"data: {}\n\n")
    assert not eventstream.looks_like_eventstream(b"")
    assert eventstream.parse(b"") == []


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_raise_only_format_errors(data):
    try:
        eventstream.parse(data)
    except FormatError as err:
        assert err.pointer.startswith("byte ")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["messageStart", "contentBlockDelta", "metadata"]),
                          st.dictionaries(st.text(max_size=5), st.integers(-2**63, 2**64 - 1), max_size=3)),
                max_size=5))
def test_encoded_frames_round_trip(items):
    data = b"".join(event(name, payload) for name, payload in items)
    assert [(e.name, e.data) for e in eventstream.parse(data)] == items
