"""Load + stitch + check speed and memory, as ratios against `orjson.loads` on the same bytes.

    .venv/bin/python scripts/bench.py [--turns 150] [--repeat 3]

Generates an agent session logged as JSON Lines the way a proxy logs it: every request replays the
whole history (text beside a call, the call, its result), so the file grows quadratically in turns
(150 turns ≈ the contract's 64 MB example). Each measurement runs in a fresh subprocess so peak
memory (ru_maxrss) belongs to that step alone. Run on demand; not part of CI.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PADDING = "x" * 40_000  # tool outputs this size make 150 turns ≈ the contract's 64 MB log


def session(turns: int) -> bytes:
    tools = [{"type": "function", "function": {"name": "read_file", "description": "Read a file",
              "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                             "required": ["path"]}}}]
    history: list[dict] = [{"role": "system", "content": "You are a coding agent."},
                           {"role": "user", "content": "Fix the failing test."}]
    lines = []
    for step in range(turns // 3):
        call_id = f"call_{step:08d}abcdefghijkl"
        answer = {"role": "assistant", "content": f"Reading file {step}.", "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/m{step}.py"})}}]}
        request = {"model": "gpt-4.1", "messages": list(history), "tools": tools}
        response = {"id": f"chatcmpl-{step}", "object": "chat.completion", "model": "gpt-4.1",
                    "choices": [{"index": 0, "message": answer, "finish_reason": "tool_calls"}]}
        lines.append(json.dumps({"request": {"url": "https://api.openai.com/v1/chat/completions",
                                             "body": request},
                                 "response": {"status": 200, "body": response}}))
        history += [answer, {"role": "tool", "tool_call_id": call_id,
                             "content": f"# file {step}\n{PADDING}"}]
    return ("\n".join(lines) + "\n").encode()


#: Imported before the clock starts: the steps time reading the log, not importing tooldbg.
SETUP = "import orjson\nfrom tooldbg.load import load_bytes\nfrom tooldbg.checks import run_checks"
STEPS = {
    "orjson.loads": "for line in data.splitlines():\n    orjson.loads(line)",
    "load + stitch": "load_bytes('bench.jsonl', data)",
    "load + stitch + check": "run_checks(load_bytes('bench.jsonl', data))",
}

# Peak memory is the high-water mark of resident memory. On Linux it is reset first: a child keeps
# the maximum its parent had when it forked (this script, after generating the session), which
# ru_maxrss would report instead.
RUNNER = """
import resource, sys, time
sys.path.insert(0, {root!r})
{setup}
def high_water():
    try:
        with open('/proc/self/status') as status:
            return next(int(line.split()[1]) for line in status if line.startswith('VmHWM:'))
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    with open('/proc/self/clear_refs', 'w') as refs:
        refs.write('5')
except OSError:
    pass
data = open({path!r}, 'rb').read()
base = high_water()
start = time.perf_counter()
{code}
elapsed = time.perf_counter() - start
peak = high_water()
print(elapsed, (peak - base) * 1024)
"""


def measure(path: Path, code: str, repeat: int) -> tuple[float, int]:
    best, memory = float("inf"), 0
    indented = code
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", RUNNER.format(root=str(ROOT), path=str(path),
                                                                  setup=SETUP, code=indented)],
                             capture_output=True, text=True, check=True).stdout.split()
        best, memory = min(best, float(out[0])), max(memory, int(out[1]))
    return best, memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        path.write_bytes(session(args.turns))
        size = path.stat().st_size
        print(f"{args.turns}-turn session, {size / 2**20:.1f} MiB of JSON Lines, "
              f"{len(path.read_bytes().splitlines())} exchanges")
        results = {name: measure(path, code, args.repeat) for name, code in STEPS.items()}
    floor, _ = results["orjson.loads"]
    for name, (seconds, memory) in results.items():
        print(f"  {name:24} {seconds:7.3f} s  {seconds / floor:5.2f}× orjson   "
              f"peak +{memory / 2**20:7.1f} MiB  {memory / size:5.2f}× file size")


if __name__ == "__main__":
    main()
