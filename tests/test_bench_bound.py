"""The benchmark's lower bound for session logs (scripts/bench_bound.py) does the work it claims:
one object per content block or item, and each call paired with its result by id — so the figure it
gives is what a reader that does that much, and nothing more, costs (timed on demand only)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


bench_sessions = _script("bench_sessions")
bench_bound = _script("bench_bound")


def _blocks_and_unanswered(path: Path) -> tuple[int, set[str]]:
    """What the bound must find, worked out apart: the blocks and items the log's messages hold, and
    the ids of the calls no result answers under the same id."""
    blocks, calls, results = 0, set(), set()
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["type"] not in ("user", "assistant", "response_item"):
            continue
        message = record["message"] if "message" in record else record["payload"]
        content = message.get("content")
        items = content if isinstance(content, list) else [message]  # (a message's parts, or the item)
        blocks += len(items)
        calls |= {i.get("id") or i["call_id"] for i in items if i.get("type") in ("tool_use", "function_call")}
        results |= {i.get("tool_use_id") or i["call_id"] for i in items
                    if i.get("type") in ("tool_result", "function_call_output")}
    return blocks, calls - results


@pytest.mark.parametrize("capture", bench_sessions.SESSION_LOGS)
def test_the_bound_keeps_a_block_each_and_pairs_the_calls(tmp_path: Path, capture: str):
    path = tmp_path / "session.jsonl"
    bench_sessions.write(capture, path, 200_000)
    scope: dict[str, Any] = {"orjson": orjson, "data": path.read_bytes()}
    exec(bench_bound.BOUND, scope)  # noqa: S102 - the benchmark's own code, as bench.timed runs it
    blocks, unanswered = _blocks_and_unanswered(path)
    assert len(scope["blocks"]) == blocks
    # the planted dropped result and lower-cased id leave their calls unanswered, and only those
    assert unanswered and set(scope["calls"]) == unanswered
