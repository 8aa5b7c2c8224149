"""The benchmark's start-up measure and its targets (issue 22), judged on the figures of one run.

`startup` times `tooldbg check`, `convert` and `show` of a 2 KB request as a user runs them: the
installed `tooldbg` script in a fresh process each time, its output a pipe, the bytecode cached (a
first run writes it), CPU time (user + system) of the process, the median of the runs. `targets`
says of each target whether this run met it, with the figures; `verdicts` prints them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The small file the start-up is measured on (2 KB).
SMALL = ROOT / "sample_transcripts" / "openai-chat" / "request.json"
COMMANDS = {"check": ["check"], "convert": ["convert", "--to", "anthropic"], "show": ["show"]}
#: The start-up targets, CPU seconds.
STARTUP = {"check": 0.12, "convert": 0.12, "show": 0.15}
#: How much faster than LiteLLM convert must be.
CONVERT = 1.5
#: Peak memory over the file's size (PRODUCT.md, Performance: "under 3× the file size in memory").
MEMORY = 3.0
MB = 1_000_000


def startup(runs: int) -> dict[str, float]:
    """Median CPU seconds of each command (see the module docstring), and of `python -c pass` run
    the same way (`python`: what the machine's load makes of a bare interpreter, for reading the
    others; no target)."""
    script = Path(sys.executable).with_name("tooldbg")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # cache the bytecode
    out = {}
    for name, argv in [*((name, [str(script), *args, str(SMALL)]) for name, args in COMMANDS.items()),
                       ("python", [sys.executable, "-c", "pass"])]:
        times = [_cpu(argv, env) for _ in range(runs + 1)][1:]
        out[name] = statistics.median(times)
    return out


def _cpu(argv: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one process, its output read through pipes."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    assert process.stdout is not None
    process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def targets(rows: list[dict], keys: dict | None, started: dict[str, float] | None,
            chat: dict | None) -> list[tuple[str, str, bool]]:
    """(target, this run's figures, met) for each target the run measured."""
    out = []
    converted = [r for r in rows if r["convert"] == r["convert"] and r["litellm"] == r["litellm"]]
    speeds = [(f"{r['capture']} {r['size'] / MB:.0f} MB", r["litellm"] / r["convert"]) for r in converted]
    if chat is not None:
        speeds.append((f"the {chat['messages']}-message conversation", chat["litellm"] / chat["convert"]))
    if speeds:
        low = min(speeds, key=lambda s: s[1])
        out.append((f"convert at least {CONVERT}× faster than LiteLLM, every capture and size and the "
                    "201-message conversation",
                    f"{min(s for _, s in speeds):.2f}–{max(s for _, s in speeds):.2f}× (slowest: {low[0]})",
                    low[1] >= CONVERT))
    hars = [r for r in rows if r["capture"].startswith("har") and r["size"] >= 90 * MB]
    if hars:
        worst = max(r["memory"] / r["size"] for r in hars)
        out.append(("a HAR of 100 MB, however laid out, peaks under 1.5× the file",
                    ", ".join(f"{r['capture']} {r['memory'] / r['size']:.2f}×" for r in hars), worst < 1.5))
    if started is not None:
        out.append(("start-up on a pipe: check and convert under 0.12 s CPU, show under 0.15 s",
                    ", ".join(f"{name} {started[name] * 1000:.0f} ms" for name in STARTUP),
                    all(started[name] < limit for name, limit in STARTUP.items())))
    checked = [r for r in rows if r["capture"] in ("jsonl", "har", "sse")]
    for label, chosen, limit in (("1 MB", [r for r in checked if r["size"] < 5 * MB], 3.0),
                                 ("10 MB and more", [r for r in checked if r["size"] >= 5 * MB], 2.0)):
        if chosen:
            ratios = [r["check"] / r["floor"] for r in chosen]
            out.append((f"check within {limit:.0f}× the orjson floor at {label} (jsonl, har, sse)",
                        f"{min(ratios):.1f}–{max(ratios):.1f}×", max(ratios) <= limit))
    if rows:
        worst = max(r["memory"] / r["size"] for r in rows)
        out.append((f"peak memory under {MEMORY:g}× the file", f"up to {worst:.2f}×", worst < MEMORY))
    painted = [r["tui"]["first_paint"] for r in rows if "tui" in r and r["size"] >= 90 * MB]
    if painted:
        out.append(("TUI first paint under 0.5 s at 100 MB", f"up to {max(painted):.2f} s",
                    max(painted) < 0.5))
    if keys:
        out.append(("key-to-repaint under 50 ms on 10,000 turns (median)",
                    f"{keys['key_median'] * 1000:.1f} ms", keys["key_median"] < 0.05))
        out.append(("the screen settled within 30 ms of a key on 10,000 turns (median)",
                    f"{keys['settled_median'] * 1000:.1f} ms (p95 {keys['settled_p95'] * 1000:.1f} ms)",
                    keys["settled_median"] <= 0.03))
    return out


def verdicts(found: list[tuple[str, str, bool]]) -> str:
    """The targets as the markdown table the README includes."""
    lines = ["| target | this run | |", "|---|---|---|"]
    lines += [f"| {target} | {here} | {'met' if met else 'missed'} |" for target, here, met in found]
    return "\n".join(lines)
