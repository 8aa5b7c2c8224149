"""The least a Python reader of an agent session log can cost, against the benchmark's floor.

    .venv/bin/python scripts/bench_bound.py            # claude-code and codex at 10 and 100 MB
    .venv/bin/python scripts/bench_bound.py --sizes 10 --captures codex

Issue 20 asks `check` of a 100 MB Claude Code session or Codex rollout to stay within 2× the
floor (`orjson.loads` of every line: `bench.FLOOR`). This measures, on the same generated logs
(`bench_sessions.py`) and the same way (`bench.timed`: a fresh process each, CPU time, best of
`--repeat`), a reader that does far less than any debugger can:

* `bound`: every line parsed, one slotted object kept for each content block or item (its kind,
  its value, its line: what lets a finding point back into the file), and each tool call paired
  with its result by id in one dictionary — the least the unanswered-call and orphan-result rules
  need. No canonical model, no validation, no other rule.
* `visited`: `bound`, then each of tooldbg's rules (`RULES`, 48) looking once at every block, one
  comparison each — what a rule costs at the very least when it must see every part.
* `check`: tooldbg's own `load` + `run_checks` (`bench.CHECK`), for comparison.

When `bound` alone is near 2× the floor, no reader written in Python that builds an object per
block and runs its rules over them can meet the target: that is what this shows, with figures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
MB = 1_000_000

BOUND = """
class Block:
    __slots__ = ("kind", "value", "line")

    def __init__(self, kind, value, line):
        self.kind, self.value, self.line = kind, value, line

blocks, calls = [], {}
for number, line in enumerate(data.splitlines()):
    if not line.strip():
        continue
    record = orjson.loads(line)
    kind = record.get("type")
    if kind not in ("user", "assistant", "response_item"):  # (a session's other lines hold no message)
        continue
    message = record.get("payload") if kind == "response_item" else record.get("message")
    if not isinstance(message, dict):
        continue
    content = message.get("content")
    items = content if isinstance(content, list) else [message]
    for item in items:
        if not isinstance(item, dict):
            continue
        block = Block(item.get("type"), item, number)
        blocks.append(block)
        if block.kind in ("tool_use", "function_call"):
            calls[item.get("id") or item.get("call_id")] = block
        elif block.kind in ("tool_result", "function_call_output"):
            calls.pop(item.get("tool_use_id") or item.get("call_id"), None)
"""
#: `BOUND`, then one look a rule at every block.
VISITED = BOUND + """
from tooldbg.checks import RULES
for rule in RULES:
    for block in blocks:
        if block.kind == "tool_use":
            pass
"""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100", help="file sizes in MB, comma-separated")
    parser.add_argument("--captures", default="claude-code,codex", help="session logs, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per timing (best kept)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(SCRIPTS))
    import bench
    import bench_sessions

    print("| log | size | floor | bound ÷ floor | visited ÷ floor | check ÷ floor |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for capture in args.captures.split(","):
            for size in (int(s) for s in args.sizes.split(",")):
                path = Path(tmp) / f"{capture}-{size}MB.jsonl"
                bench_sessions.write(capture, path, size * MB)
                floor, bound, visited, check = (seconds for seconds, _ in bench.timed(
                    path, [bench.FLOOR[capture], BOUND, VISITED, bench.CHECK], args.repeat))
                print(f"| {capture} | {size} MB | {floor * 1000:.0f} ms | {bound / floor:.2f}× | "
                      f"{visited / floor:.2f}× | {check / floor:.2f}× |", flush=True)
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
