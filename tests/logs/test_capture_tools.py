"""Capture tools' files: claude-trace (`status_code`, `body_raw`, `response: null`), claude-tap
(`path`, `sse_events`), mitmproxy's `.zhar` and its failed flows, and a HAR whose exporter cut a body."""

import json
import zlib

from tests import paths
from tests.command import run
from tests.logs.helpers import codes, tally
from tooldbg.load import load_bytes, load_file

TRACE = paths.SAMPLES / "claude-trace" / "log-2026-03-05-09-02-00.jsonl"
TAP = paths.SAMPLES / "claude-tap" / "trace_110001.jsonl"
ZHAR = paths.SAMPLES / "mitmproxy" / "flows.zhar"


def test_claude_trace_keeps_the_status_reads_the_raw_stream_and_the_unanswered_request():
    loaded = load_file(TRACE)
    assert loaded.errors == [] and loaded.container == "claude-trace" and loaded.formats == ["anthropic"]
    first, second, orphaned = loaded.reads
    assert first.exchange.response.status == 200 and first.streams  # `body_raw`: the SSE as it came
    assert first.exchange.response.location == "line 1/response/body_raw"
    assert orphaned.exchange.response is None and orphaned.request is not None
    assert tally(loaded) == (1, 1, 0) and codes(loaded) == []


def test_claude_trace_error_status_is_the_providers_rejection(tmp_path):
    lines = TRACE.read_text().splitlines()
    record = json.loads(lines[1])
    record["response"] = {"timestamp": 1.0, "status_code": 529, "headers": {},
                          "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}}
    loaded = load_bytes("log.jsonl", (lines[0] + "\n" + json.dumps(record) + "\n").encode())
    assert loaded.reads[1].exchange.response.status == 529
    assert "TD901" in codes(loaded)


def test_claude_tap_reads_the_path_and_the_stream_events_it_kept():
    loaded = load_file(TAP)
    assert loaded.errors == [] and loaded.container == "claude-tap" and loaded.formats == ["openai-responses"]
    first = loaded.reads[0]
    assert first.exchange.request.url == "/v1/responses"
    assert first.exchange.response.location == "line 1/response/sse_events" and first.streams
    assert tally(loaded) == (1, 1, 0) and codes(loaded) == []


def test_a_zhar_reads_as_its_har_and_a_failed_flow_says_it_got_no_response(capsys):
    loaded = load_file(ZHAR)
    assert loaded.errors == [] and loaded.container == "har" and loaded.skipped == 1
    failed = loaded.reads[3]
    assert failed.exchange.response.error == "Connection killed." and failed.responses == ()
    assert failed.request is not None and len(failed.request.turns) == 5
    code, out, _ = run(capsys, "show", str(ZHAR))
    assert code == 0 and "no response: Connection killed." in out


def test_a_body_the_exporter_cut_is_said_to_be_cut_not_invalid_json():
    har = json.loads(zlib.decompress(ZHAR.read_bytes()))
    entry = har["log"]["entries"][1]
    entry["request"]["postData"]["text"] = ""
    entry["request"]["postData"]["comment"] = \
        "Body discarded during HAR generation: longer than limit of 500000 bytes"
    loaded = load_bytes("cut.har", json.dumps(har).encode())
    [error] = loaded.errors
    assert error.location == "/log/entries/1/request/postData/text"
    assert error.message.startswith("body truncated by the exporter") and "500000" in error.message
