"""tooldbg's benchmark: check, memory, convert and the TUI on generated agent sessions of 1–100 MB.

    python3 scripts/bench.py                      # everything; prints a markdown table
    python3 scripts/bench.py --sizes 1,10 --captures jsonl --no-tui
    python3 scripts/bench.py --turns 150          # the quick check-vs-orjson run on one JSONL session
    python3 scripts/bench.py --record             # `tooldbg record`'s added latency (scripts/bench_record.py)

Run on demand from a clean clone, never in CI. The first run makes `.bench-venv` beside the repo
(`pip install -e '.[bench]'`: tooldbg plus LiteLLM, the converter compared against) and runs in
it; LiteLLM is installed nowhere else. Sessions come from `bench_sessions.py` (JSONL, HAR and
streamed captures with replayed history, parallel calls, long tool outputs and a few defects; the
HAR also laid out again on one line, `har-line`, and with tabs and CRLF line ends, entries first,
`har-tabs`). First it measures the start-up of `check`, `convert` and `show` on a small file
(`bench_targets.startup`) and a 201-message OpenAI Chat conversation converted to Anthropic against
LiteLLM; then, for each capture and size:

* check ÷ floor: `load` + stitch + `run_checks` on the file, over the floor: `orjson.loads` of
  every JSON document in the same bytes (each line; for HAR the file and each body it holds as a
  string; for SSE each record and each event's `data`), both from the file's bytes on disk;
* peak memory ÷ size: the peak resident memory the check adds to a Python that has imported
  tooldbg (in a fresh process, the peak `VmHWM` reset just before reading the file, so the file's
  bytes are included), over the file's size;
* convert ÷ LiteLLM: the file's last request (the whole conversation) converted in process —
  `load_bytes` + `export` to the other provider (OpenAI Chat → Anthropic, Anthropic → OpenAI
  Chat) — over LiteLLM parsing the same bytes and translating the same request (system, tools,
  parameters and messages: `TO_ANTHROPIC`, and `LiteLLMAnthropicMessagesAdapter.translate_anthropic_to_openai`
  for the reverse); both give Python objects, neither serializes; best of many runs each;
* TUI first paint: `tooldbg FILE` started headless until the first frame shows a conversation
  (scripts/measure_tui.py); and key-to-repaint on a 10,000-turn conversation.

Times are CPU seconds (`time.process_time`: user + system of the process), so that a busy, shared
machine does not inflate them; the TUI's are wall-clock latencies. Every timing but convert runs
in a fresh subprocess, the best of `--repeat` (the floor and the check in turn, so that a change in
the host's load falls on both; five times as many rounds where a round takes under 50 ms, as at
1 MB, where the best of three was mostly the host's noise). The report ends with the targets of
issue 22, each met or missed on this run (`bench_targets.targets`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
BENCH_VENV = ROOT / ".bench-venv"
MB = 1_000_000

_LINES = """
for line in data.splitlines():
    if line.strip():
        orjson.loads(line)"""
_HAR = """
for entry in orjson.loads(data)["log"]["entries"]:
    orjson.loads(entry["request"]["postData"]["text"])
    orjson.loads(entry["response"]["content"]["text"])"""
FLOOR = {
    "jsonl": _LINES,
    "claude-code": _LINES,
    "codex": _LINES,
    "har": _HAR,
    "har-line": _HAR,
    "har-tabs": _HAR,
    "sse": """
for line in data.splitlines():
    if line.strip():
        for event in orjson.loads(line)["response"]["body"].split("\\n\\n"):
            for field in event.splitlines():
                if field.startswith("data:"):
                    orjson.loads(field[5:])""",
}
CHECK = """
from tooldbg.load import load_bytes
from tooldbg.checks import run_checks
run_checks(load_bytes(path, data))"""
LOAD = """
from tooldbg.load import load_bytes
load_bytes(path, data)"""

RUNNER = """
import sys, time
sys.path.insert(0, {root!r})
import gc, orjson, tooldbg.load, tooldbg.checks
len(tooldbg.checks.RULES)  # every rule's module imported before the clock starts: start-up is timed apart
path = {path!r}

def status(field):
    line = next(x for x in open('/proc/self/status') if x.startswith(field + ':'))
    return int(line.split()[1]) * 1024

gc.collect()
with open('/proc/self/clear_refs', 'w') as f:
    f.write('5')  # reset the peak (VmHWM) to the resident size now
base = status('VmRSS')
start = time.process_time()
data = open(path, 'rb').read()
{code}
elapsed = time.process_time() - start
print(elapsed, status('VmHWM') - base)
"""

CONVERT = """
import sys, time, orjson
sys.path.insert(0, {root!r})
from tooldbg.load import load_bytes
from tooldbg.convert import export
body = open({path!r}, 'rb').read()
target = {target!r}

def tooldbg_convert():
    return export(load_bytes('conversation.json', body).conversations, target, allow_blanks=True)

def litellm_translate():
{litellm}

def best(fn, seconds=1.0):
    fn()
    times, until = [], time.perf_counter() + seconds
    while time.perf_counter() < until or len(times) < 5:
        t = time.process_time(); fn(); times.append(time.process_time() - t)
    return min(times)

ours = best(tooldbg_convert)
try:
    theirs = best(litellm_translate)
except ImportError:
    theirs = float('nan')
print(ours, theirs)
"""
#: LiteLLM's OpenAI Chat Completions → Anthropic Messages, the whole request as `export` writes it:
#: the parameters and tools (`map_openai_params`), the system messages as the top-level `system`
#: (`translate_system_message`) and the other messages (`anthropic_messages_pt`) — the steps of
#: `AnthropicConfig.transform_request`, without its cache-control and header work.
TO_ANTHROPIC = """
    from litellm.litellm_core_utils.prompt_templates.factory import anthropic_messages_pt
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    model, config, request = "claude-sonnet-4-5-20250929", AnthropicConfig(), orjson.loads(body)
    messages = request.pop("messages")
    out = config.map_openai_params({k: v for k, v in request.items() if k != "model"}, {}, model, False)
    out["system"] = config.translate_system_message([m for m in messages if m["role"] == "system"])
    out["messages"] = anthropic_messages_pt([m for m in messages if m["role"] != "system"],
                                            model=model, llm_provider="anthropic")
    return out"""
#: LiteLLM's Anthropic Messages → OpenAI Chat Completions, the whole request (system, tools, tool
#: choice, parameters, messages), as its /v1/messages adapter translates it.
TO_OPENAI_CHAT = """
    from litellm.llms.anthropic.messages.adapters.transformation import LiteLLMAnthropicMessagesAdapter
    return LiteLLMAnthropicMessagesAdapter().translate_anthropic_to_openai(orjson.loads(body))"""


def convert_target(capture: str) -> str:
    """The JSON Lines session is OpenAI Chat, converted to Anthropic; the HAR and SSE sessions are
    Anthropic, converted to OpenAI Chat."""
    return "anthropic" if capture == "jsonl" else "openai-chat"


def ensure_environment(argv: list[str]) -> None:
    """Re-run in `.bench-venv` (made on first use) unless this Python already has LiteLLM and
    tooldbg: LiteLLM belongs to the benchmark only."""
    from importlib.util import find_spec

    # Not imported here: LiteLLM's import is large, and this process's size would show in the
    # peak memory of the processes it starts.
    if find_spec("litellm") is not None and find_spec("tooldbg") is not None:
        return
    python = BENCH_VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == BENCH_VENV.resolve():
        sys.exit("the .bench-venv environment lacks litellm or tooldbg: remove .bench-venv and rerun")
    if not python.exists():
        print(f"making {BENCH_VENV.name} (tooldbg and LiteLLM, for the benchmark only)…", file=sys.stderr)
        venv.create(BENCH_VENV, with_pip=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", f"{ROOT}[bench]"], check=True)
    os.execv(str(python), [str(python), __file__, *argv])


#: The environment of every timed process: LiteLLM's model price list read from its own copy (it
#: fetches it from the network on import otherwise), and bytecode written as Python does by default
#: (an environment that turns that off would time the compiling of every module imported lazily).
OFFLINE = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def run(code: str) -> list[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=OFFLINE
    ).stdout.split()


#: Under this many seconds a round (floor and check), a measure is repeated `SHORT_ROUNDS` × more.
SHORT = 0.05
SHORT_ROUNDS = 5


def timed(path: Path, codes: list[str], repeat: int) -> list[tuple[float, int]]:
    """(best seconds, largest peak memory added) of each of `codes`, run in turn in fresh processes
    (so that a change in the host's load falls on all of them alike): `repeat` rounds, or
    `SHORT_ROUNDS` × as many when the first round took under `SHORT` seconds in all (the best of three
    runs of 10 ms is mostly the host's noise)."""
    best, memory = [float("inf")] * len(codes), [0] * len(codes)

    def one_round() -> None:
        for i, code in enumerate(codes):
            out = run(RUNNER.format(root=str(ROOT), path=str(path), code=code))
            best[i], memory[i] = min(best[i], float(out[0])), max(memory[i], int(out[1]))

    one_round()
    for _ in range(repeat * (SHORT_ROUNDS if sum(best) < SHORT else 1) - 1):
        one_round()
    return list(zip(best, memory, strict=True))


def convert_times(body: Path, target: str) -> tuple[float, float]:
    out = run(
        CONVERT.format(
            root=str(ROOT),
            path=str(body),
            target=target,
            litellm=TO_ANTHROPIC if target == "anthropic" else TO_OPENAI_CHAT,
        )
    )
    return float(out[0]), float(out[1])


def tui(args: list[str]) -> dict:
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "measure_tui.py"), "--json", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def machine() -> str:
    model = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            platform.processor(),
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor()
    )
    versions = []
    for name in ("orjson", "textual", "litellm"):
        try:
            from importlib.metadata import version

            versions.append(f"{name} {version(name)}")
        except Exception:  # noqa: BLE001 - not installed: not named
            pass
    return (
        f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, {', '.join(versions)}"
    )


def bench(captures: list[str], sizes: list[int], repeat: int, with_tui: bool, folder: Path) -> list[dict]:
    sys.path.insert(0, str(SCRIPTS))
    import bench_sessions

    rows = []
    for capture in captures:
        for size in sizes:
            path = folder / f"session-{size}MB.{'har' if capture.startswith('har') else 'jsonl'}"
            calls = bench_sessions.write(capture, path, size * MB)
            body = folder / "conversation.json"
            (floor, floor_memory), (check, check_memory) = timed(path, [FLOOR[capture], CHECK], repeat)
            if capture in bench_sessions.SESSION_LOGS or capture in bench_sessions.LAYOUTS:
                # a session log replays nothing: no request body to convert; a HAR laid out again
                # holds the same conversation as the HAR, converted there
                ours = theirs = float("nan")
                body.write_bytes(b"")
            else:
                body.write_bytes(bench_sessions.last_request(capture, path))
                ours, theirs = convert_times(body, convert_target(capture))
            row = {
                "capture": capture,
                "size": path.stat().st_size,
                "calls": calls,
                "floor": floor,
                "check": check,
                "memory": check_memory,
                "floor_memory": floor_memory,
                "convert": ours,
                "litellm": theirs,
                "body": body.stat().st_size,
                "target": convert_target(capture),
            }
            if with_tui and capture not in bench_sessions.LAYOUTS:
                row["tui"] = tui(["--file", str(path), "--presses", "0"])
            rows.append(row)
            print(f"  {capture} {size} MB: {summary(row)}", file=sys.stderr)
            path.unlink()
    return rows


def summary(row: dict) -> str:
    paint = f", first paint {row['tui']['first_paint'] * 1000:.0f} ms" if "tui" in row else ""
    convert = (
        f", convert {row['convert'] * 1000:.1f} ms vs LiteLLM {row['litellm'] * 1000:.1f} ms"
        if row["convert"] == row["convert"]
        else ""
    )
    return (
        f"check {row['check']:.2f} s = {row['check'] / row['floor']:.1f}× floor, "
        f"memory {row['memory'] / row['size']:.2f}× size{convert}{paint}"
    )


def seconds(value: float) -> str:
    if value >= 1:
        return f"{value:.2f} s"
    return f"{value * 1000:.1f} ms" if value >= 0.001 else f"{value * 1e6:.0f} µs"


def table(rows: list[dict], keys: dict | None) -> str:
    """The markdown the README's performance section includes."""
    out = [
        "| capture | file | calls | check ÷ floor | peak memory ÷ size | convert ÷ LiteLLM "
        "| TUI first paint |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        speed = r["litellm"] / r["convert"]
        how = f"{speed:.1f}× faster" if speed >= 1 else f"{1 / speed:.1f}× slower"
        if r["convert"] != r["convert"]:
            convert = ("– (the HAR's conversation)" if r["capture"].startswith("har")
                       else "– (a session log: no request to convert)")
        elif r["litellm"] == r["litellm"]:
            times = f"{seconds(r['convert'])} / {seconds(r['litellm'])}"
            convert = f"{r['convert'] / r['litellm']:.1f} ({times}, {how})"
        else:
            convert = f"{r['convert'] * 1000:.1f} ms (no LiteLLM)"
        paint = seconds(r["tui"]["first_paint"]) if "tui" in r else "–"
        out.append(
            f"| {r['capture']} | {r['size'] / MB:.0f} MB | {r['calls']} | "
            f"{r['check'] / r['floor']:.1f} ({seconds(r['check'])} / {seconds(r['floor'])}) | "
            f"{r['memory'] / r['size']:.2f} ({r['memory'] / 2**20:.0f} MiB) | {convert} | {paint} |"
        )
    growth = []
    for capture in dict.fromkeys(r["capture"] for r in rows):
        mine = [r for r in rows if r["capture"] == capture]
        if len(mine) > 1 and mine[0]["convert"] == mine[0]["convert"]:
            a, b = mine[0], mine[-1]
            x = b["size"] / a["size"]
            growth.append(
                f"{capture} ×{x:.0f} in size: check ×{b['check'] / a['check']:.0f} "
                f"(floor ×{b['floor'] / a['floor']:.0f}), memory ×{b['memory'] / max(a['memory'], 1):.0f}, "
                f"convert ×{b['convert'] / a['convert']:.0f} (LiteLLM ×{b['litellm'] / a['litellm']:.0f}, "
                f"conversation {a['body'] / 1e3:.0f} kB → {b['body'] / 1e3:.0f} kB)"
                + (
                    f", first paint ×{b['tui']['first_paint'] / a['tui']['first_paint']:.1f}"
                    if "tui" in a
                    else ""
                )
            )
    if growth:
        out += ["", "Growth from the smallest to the largest file: " + "; ".join(growth) + "."]
    if keys:
        out += [
            "",
            f"TUI on a {keys['turns']:,}-turn conversation ({keys['size'] / MB:.1f} MB): first paint "
            f"{keys['first_paint']:.2f} s; key-to-repaint (`down` in the tree, to the first frame "
            f"showing the next turn) median {keys['key_median'] * 1000:.1f} ms, p95 "
            f"{keys['key_p95'] * 1000:.1f} ms; until the screen settles median "
            f"{keys['settled_median'] * 1000:.1f} ms, p95 {keys['settled_p95'] * 1000:.1f} ms.",
        ]
    return "\n".join(out)


def legacy_session(turns: int) -> bytes:
    """The session `--turns` has always measured (kept so figures stay comparable): every request
    replays the whole history, a 40 kB tool output per call; 150 turns ≈ 64 MB."""
    padding = "x" * 40_000
    tools = [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            },
        }
    ]
    history: list[dict] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the failing test."},
    ]
    lines = []
    for step in range(turns // 3):
        call_id = f"call_{step:08d}abcdefghijkl"
        answer = {
            "role": "assistant",
            "content": f"Reading file {step}.",
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/m{step}.py"})},
                }
            ],
        }
        request = {"model": "gpt-4.1", "messages": list(history), "tools": tools}
        response = {
            "id": f"chatcmpl-{step}",
            "object": "chat.completion",
            "model": "gpt-4.1",
            "choices": [{"index": 0, "message": answer, "finish_reason": "tool_calls"}],
        }
        lines.append(
            json.dumps(
                {
                    "request": {"url": "https://api.openai.com/v1/chat/completions", "body": request},
                    "response": {"status": 200, "body": response},
                }
            )
        )
        history += [answer, {"role": "tool", "tool_call_id": call_id, "content": f"# file {step}\n{padding}"}]
    return ("\n".join(lines) + "\n").encode()


def legacy(turns: int, repeat: int) -> None:
    """`--turns N`: load + stitch + check on one N-turn JSON Lines session against orjson."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        path.write_bytes(legacy_session(turns))
        k = len(path.read_bytes().splitlines())
        size = path.stat().st_size
        print(f"{turns}-turn session, {size / 2**20:.1f} MiB of JSON Lines, {k} exchanges")
        names = ["orjson.loads", "load + stitch", "load + stitch + check"]
        results = dict(zip(names, timed(path, [FLOOR["jsonl"], LOAD, CHECK], repeat), strict=True))
    floor, _ = results["orjson.loads"]
    for name, (seconds, memory) in results.items():
        print(
            f"  {name:24} {seconds:7.3f} s  {seconds / floor:5.2f}× orjson   "
            f"peak +{memory / 2**20:7.1f} MiB  {memory / size:5.2f}× file size"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,100", help="file sizes in MB, comma-separated")
    parser.add_argument("--captures", default=",".join(("jsonl", "har", "sse", "har-line", "har-tabs")),
                        help="captures, comma-separated (also claude-code, codex: agent session logs)")
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up measure")
    parser.add_argument("--startup-runs", type=int, default=20, help="processes per start-up median")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per timing (best kept)")
    parser.add_argument("--no-tui", action="store_true", help="skip the TUI measurements")
    parser.add_argument("--turns", type=int, help="only the quick check-vs-orjson run, on an N-turn session")
    parser.add_argument("--save", type=Path, help="also write the figures to this JSON file")
    parser.add_argument("--table", type=Path, help="only print the table of the figures saved by --save")
    parser.add_argument(
        "--here", action="store_true", help="run in this Python (convert without LiteLLM if absent)"
    )
    parser.add_argument("--record", action="store_true",
                        help="only `tooldbg record`'s added latency per request and per streamed event")
    args = parser.parse_args(argv)
    if args.record:  # the proxy against a direct connection: no LiteLLM, no generated sessions
        return subprocess.run([sys.executable, str(SCRIPTS / "bench_record.py")], check=False).returncode
    if args.turns is not None:
        legacy(args.turns, args.repeat)
        return 0
    if args.table is not None:
        saved = json.loads(args.table.read_text())
        report(saved)
        return 0
    if not args.here:
        ensure_environment(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    captures = args.captures.split(",")
    print(
        f"benchmark: {', '.join(captures)} at {', '.join(map(str, sizes))} MB on {machine()}", file=sys.stderr
    )
    load = [os.getloadavg()[0]]
    sys.path.insert(0, str(SCRIPTS))
    import bench_sessions
    import bench_targets

    started = None if args.no_startup else bench_targets.startup(args.startup_runs)
    with tempfile.TemporaryDirectory() as tmp:
        body = Path(tmp) / "conversation.json"
        body.write_bytes(bench_sessions.chat_conversation(201))
        ours, theirs = convert_times(body, "anthropic")
        chat = {"messages": 201, "size": body.stat().st_size, "convert": ours, "litellm": theirs}
        rows = bench(captures, sizes, args.repeat, not args.no_tui, Path(tmp))
    keys = None if args.no_tui else tui(["--turns", "10000", "--presses", "30"])
    load.append(os.getloadavg()[0])
    figures = {"machine": machine(), "load": load, "rows": rows, "keys": keys, "startup": started,
               "chat": chat}
    if args.save is not None:
        args.save.write_text(json.dumps(figures, indent=1))
    report(figures)
    return 0


def report(figures: dict) -> None:
    """The run's table, its other figures and the targets, met or missed."""
    import bench_targets

    load = figures.get("load")
    print(f"Machine: {figures['machine']}" + (f"; load average (1 min) {load[0]:.2f} at the start, "
                                              f"{load[1]:.2f} at the end" if load else "") + ".\n")
    print(table(figures["rows"], figures["keys"]))
    started, chat = figures.get("startup"), figures.get("chat")
    if chat is not None:
        speed = chat["litellm"] / chat["convert"]
        print(f"\nA {chat['messages']}-message OpenAI Chat conversation ({chat['size'] / 1e3:.0f} kB) to "
              f"Anthropic: {seconds(chat['convert'])} against LiteLLM's {seconds(chat['litellm'])} "
              f"({speed:.2f}× {'faster' if speed >= 1 else 'as fast'}).")
    if started is not None:
        bare = started.get("python")
        commands = ", ".join(f"`{name}` {value * 1000:.0f} ms" for name, value in started.items()
                             if name != "python")
        python = "" if bare is None else f" (`python -c pass` {bare * 1000:.0f} ms, measured the same way)"
        print("\nStart-up, a 2 KB request, output to a pipe, CPU time (median of fresh processes): "
              f"{commands}{python}.")
    found = bench_targets.targets(figures["rows"], figures["keys"], started, chat)
    print("\n" + bench_targets.verdicts(found))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
