"""The benchmark's generated sessions (scripts/bench_sessions.py) read as real logs do: every
exchange read and stitched into one conversation, and exactly the planted defects found, so the
benchmark measures logs tooldbg reads in full (`python3 scripts/bench.py`; not run here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tooldbg.checks import run_checks
from tooldbg.load import load_file
from tooldbg.model import Invocation

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench_sessions", ROOT / "scripts" / "bench_sessions.py")
assert _spec is not None and _spec.loader is not None
bench_sessions = importlib.util.module_from_spec(_spec)
sys.modules["bench_sessions"] = bench_sessions  # (its dataclasses look their module up there)
_spec.loader.exec_module(bench_sessions)

#: The defects planted (scripts/bench_sessions.py): arguments sent as a JSON string, a result id a
#: relay lower-cased, a result the client dropped.
PLANTED = {"jsonl": ["TD102", "TD103", "TD201"], "har": ["TD102", "TD103", "TD204"],
           "sse": ["TD102", "TD103", "TD204"], "codex": ["TD102", "TD103", "TD201"],
           # (the string input is found in the line that logs its tool_use block, as in the
           # Anthropic captures: Claude Code logs the model's answer a block a line)
           "claude-code": ["TD102", "TD103", "TD204"]}


@pytest.mark.parametrize("capture", bench_sessions.CAPTURES)
def test_a_generated_session_reads_whole_with_only_its_planted_defects(tmp_path: Path, capture: str):
    path = tmp_path / f"session.{'har' if capture == 'har' else 'jsonl'}"
    calls = bench_sessions.write(capture, path, 1_000_000)
    assert path.stat().st_size >= 1_000_000 and calls > bench_sessions.DROPPED_RESULT + 2
    loaded = load_file(path)
    assert not loaded.errors
    assert sorted(f.code for f in run_checks(loaded)) == PLANTED[capture]
    assert len(loaded.conversations) == 1  # each request replays the one before it, or continues it
    if capture in bench_sessions.SESSION_LOGS:  # each message logged once: no request body to convert
        assert loaded.container == capture
        assert sum(isinstance(p, Invocation) for t in loaded.conversations[0].turns for p in t.parts) == calls
        return
    assert loaded.container == ("har" if capture == "har" else "jsonl")
    assert len(loaded.reads) == calls and all(r.request and r.responses for r in loaded.reads)
    if capture == "sse":
        assert all(r.streams for r in loaded.reads)
    body = bench_sessions.last_request(capture, path)
    assert len(body) < path.stat().st_size and body.startswith(b"{")
