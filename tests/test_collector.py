"""Reading and checking hold the cyclic garbage collector off (`tooldbg.collector`): a large file's
objects end frozen out of its sight, a small one's do not, and the collector is left as the caller
had it — on, or off when the caller had switched it off."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator

import pytest

from tooldbg.checks import run_checks
from tooldbg.collector import FREEZE_AT
from tooldbg.load import load_bytes


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    """Each test starts with the collector on and nothing frozen, and leaves it so."""
    gc.unfreeze()
    gc.enable()
    yield
    gc.unfreeze()
    gc.enable()


def rollout(steps: int) -> bytes:
    """A Codex rollout of `steps` tool calls, each answered."""
    lines = [{"timestamp": "2026-01-05T11:00:00.000Z", "type": "session_meta",
              "payload": {"id": "s1", "instructions": "Use the tools."}}]
    for k in range(steps):
        lines.append({"timestamp": "2026-01-05T11:00:01.000Z", "type": "response_item",
                      "payload": {"type": "function_call", "name": "run", "call_id": f"call_{k}",
                                  "arguments": json.dumps({"command": f"ls {k}"})}})
        lines.append({"timestamp": "2026-01-05T11:00:02.000Z", "type": "response_item",
                      "payload": {"type": "function_call_output", "call_id": f"call_{k}",
                                  "output": f"file_{k}.py"}})
    return "\n".join(json.dumps(line) for line in lines).encode() + b"\n"


def test_a_large_file_is_read_into_frozen_objects_and_the_collector_is_back_on():
    data = rollout(FREEZE_AT // 2)
    loaded = load_bytes("rollout.jsonl", data)
    assert gc.isenabled()
    assert gc.get_freeze_count() > FREEZE_AT  # what was read is out of the collector's sight
    [conversation] = loaded.conversations
    assert len(conversation.turns) == FREEZE_AT  # a call and its result, each step
    findings = run_checks(loaded)
    assert gc.isenabled() and findings == []


def test_the_freeze_ends_when_every_file_read_under_it_is_let_go():
    """A process that goes on reading files (a Dask worker) keeps collecting the cycles it drops."""
    first = load_bytes("a.jsonl", rollout(FREEZE_AT // 2))
    second = load_bytes("b.jsonl", rollout(FREEZE_AT // 2))
    del first
    assert gc.get_freeze_count() > FREEZE_AT  # the second file still holds it
    del second
    assert gc.get_freeze_count() == 0


def test_a_file_dropped_in_a_cycle_does_not_hold_the_freeze_for_ever():
    """A file let go inside a cycle (an exception's traceback that holds it) that the next file's
    freeze took with everything else is never freed while frozen: were the freeze to wait for
    every file read under one, it would never end."""
    first = load_bytes("a.jsonl", rollout(FREEZE_AT // 2))
    data = rollout(FREEZE_AT // 2)
    gc.collect()  # (no young collection is due until the second file is read, under its freeze)
    cycle: list[object] = [first]
    cycle.append(cycle)
    del first, cycle  # unreachable, and not collected yet
    second = load_bytes("b.jsonl", data)
    del second
    assert gc.get_freeze_count() == 0
    gc.collect()  # the cycle, and the first file in it, freed


def test_an_older_file_let_go_leaves_the_newer_ones_frozen():
    """The TUI's preview (one record, read first) is let go once the whole session is read."""
    preview = load_bytes("a.jsonl", rollout(FREEZE_AT // 2))
    session = load_bytes("b.jsonl", rollout(FREEZE_AT // 2))
    del preview
    assert gc.get_freeze_count() > FREEZE_AT
    assert session.conversations


def test_a_small_file_is_not_frozen():
    loaded = load_bytes("rollout.jsonl", rollout(3))
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert len(loaded.conversations[0].turns) == 6


def test_a_collector_the_caller_switched_off_stays_off_and_nothing_is_frozen():
    gc.disable()
    loaded = load_bytes("rollout.jsonl", rollout(FREEZE_AT // 2))
    run_checks(loaded)
    assert not gc.isenabled() and gc.get_freeze_count() == 0

