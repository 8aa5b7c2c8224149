"""A real relay between two captures: `diff` of what the client exchanged with the relay (HAR) and
what the relay exchanged with the upstream (HAR) names each fault of the relay with its code and
side — and nothing when the relay works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.relay.capture import capture
from tests.relay.relay import FAULTS
from tests.test_cli import run
from tooldbg.diff import diff
from tooldbg.load import load_file


def through_relay(tmp_path: Path, faults: set[str], **how) -> tuple[Path, Path, list[int]]:
    return capture(tmp_path, faults, **how)


#: fault → (how the agent talks to the relay, every finding `diff` shows as (code, side), the
#: statuses the client saw). Differences are TD7xx; the rest are each side's own findings.
MATRIX = {
    None: ({}, set(), [200, 200]),
    "stream": ({"stream": True}, set(), [200, 200]),
    "anthropic": ({"protocol": "anthropic"}, set(), [200, 200]),
    "drop-tools": ({}, {("TD701", "b")}, [200]),
    "strip-schema": ({}, {("TD702", "b"), ("TD206", "a")}, [200, 200]),
    # the 400 Anthropic answered is in both logs (the relay passed it back): TD901 on each side
    "drop-parallel-result": ({}, {("TD703", "b"), ("TD102", "b"), ("TD901", "a"), ("TD901", "b")}, [200, 400]),
    "fold-is-error": ({"protocol": "anthropic"}, {("TD703", "b"), ("TD304", "b")}, [200, 200]),
    "drop-text-beside-call": ({}, {("TD703", "a"), ("TD301", "b")}, [200, 200]),
    "arguments-as-object": ({}, {("TD203", "a")}, [200, 200]),
    "reindex-stream": ({"stream": True}, {("TD501", "a"), ("TD703", "a"), ("TD704", "a")}, [200]),
}


def test_every_fault_is_in_the_matrix():
    assert set(FAULTS) <= set(MATRIX)


@pytest.mark.parametrize("fault", list(MATRIX), ids=lambda f: f or "no-fault")
def test_diff_names_the_relays_fault(tmp_path, fault):
    how, expected, statuses = MATRIX[fault]
    faults = {fault} if fault in FAULTS else set()
    client, upstream, seen = through_relay(tmp_path, faults, **how)
    assert seen == statuses
    a, b = load_file(client), load_file(upstream)
    assert a.errors == [] and b.errors == []
    result = diff(a, b)
    found = {(f.code, f.side) for f in result.everything}
    assert found == expected, [f"{f.side} {f.code} {f.message}" for f in result.everything]
    if not expected:
        assert result.findings == [] and result.own == []
    assert [p.exchanges for p in result.pairings] == [[(i, i) for i in range(len(statuses))]]


def test_the_cli_on_a_relay_capture(tmp_path, capsys):
    client, upstream, _ = through_relay(tmp_path, {"drop-parallel-result"})
    code, out, err = run(capsys, "diff", str(client), str(upstream), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and err == ""
    [difference] = [f for f in doc["findings"] if f["code"].startswith("TD7")]
    assert difference["side"] == "b"
    assert difference["a"]["pointer"] == "/log/entries/1/request/postData/text#/messages/4"
    assert difference["b"]["pointer"] == "/log/entries/1/request/postData/text#/messages/2"
    assert "the result of 'get_weather' (call_01011BER) 'Error: weather service tim…ut after 10 s'" in \
        difference["message"]
    code, out, _ = run(capsys, "diff", str(client), str(client), "--format", "json")
    doc = json.loads(out)
    assert doc["differences"] == 0 and code == 1  # no difference; the client's own TD901 still fails it
    assert {f["code"] for f in doc["findings"]} == {"TD901"}
    assert [r["exchange"] for i in doc["inputs"] for r in i["rejections"]] == [1, 1]
