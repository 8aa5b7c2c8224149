"""Fuzz tooldbg for as long as you like (the normal test run does a bounded number: tests/test_fuzz.py).

    .venv/bin/python scripts/fuzz.py --count 100000 --seed 1        # the long mode
    .venv/bin/python scripts/fuzz.py --count 2000 --seed 7 --start 5000   # a slice of a run
    .venv/bin/python scripts/fuzz.py --replay fuzz-crashes/          # rerun saved inputs

Input `i` of seed `N` is built from `random.Random(f"{N}:{i}")` alone — a seed file of
`sample_transcripts/` or the corpus (each container drawn as often as the others), mutated
(tests/fuzz/mutate.py) — so a run is deterministic and any input is rebuilt by
`--seed N --start i --count 1`, given the same corpus (its third-party part where tests/paths.py
finds it: `TOOLDBG_CORPUS`). Each input goes through the oracle of
tests/fuzz/exercise.py: load, check, reports, show, convert and pre-flight in process; every
`--cli-every`th also through the CLI commands (click's CliRunner) and the TUI's loader.

`--properties NAME,… | all` runs the metamorphic properties of tests/fuzz/properties.py instead
(layout, containers, fix, diff, canonical, interleave, secrets, hashseed): input `i` goes to the
`i % n`th property named, built from `random.Random(f"{N}:{property}:{i}")`; every violating input is
written to `--out/property-<name>/<seed>-<i>/` with what was violated, and the run ends with each
property's inputs, violations and time:

    .venv/bin/python scripts/fuzz.py --properties all --count 100000 --seed 1
    .venv/bin/python scripts/fuzz.py --properties fix --seed 1 --start 552 --count 1   # one input again

Each distinct problem (stage, exception type and the innermost tooldbg frame) is written to
`--out` (default `fuzz-crashes/`): `<signature>/<seed>-<index>.<suffix>` holds the input, beside
it a `.txt` with the problem and its traceback (the first three inputs per signature). An input
that takes longer than `--slow` seconds, or raises the process's peak memory by more than `--memory`
MiB, is recorded as a problem too; `--timeout` stops one that hangs. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import random
import resource
import signal
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz.exercise import REACHED, Problem, exercise  # noqa: E402
from tests.fuzz.mutate import mutate  # noqa: E402
from tests.fuzz.properties import PROPERTIES, Checked, check_property  # noqa: E402
from tests.fuzz.seeds import by_container  # noqa: E402
from tests.paths import CORPUS_MISSING, HAVE_CORPUS, corpus_misnamed  # noqa: E402


class Timeout(BaseException):
    """Raised by the alarm in an input that hangs (a BaseException: no `except Exception` eats it)."""


def build(seed: int, index: int) -> tuple[str, bytes, random.Random]:
    """Input `index` of run `seed`: its file name, its bytes, and the generator the oracle goes on
    drawing from."""
    rng = random.Random(f"{seed}:{index}")
    groups = by_container()
    source = rng.choice(groups[rng.choice(sorted(groups))])
    data = mutate(source.data, rng)
    return f"fuzz-{index}{Path(source.name).suffix}", data, rng


def run_one(name: str, data: bytes, rng: random.Random, *, full: bool, timeout: float) -> list[Problem]:
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return exercise(name, data, rng, cli_commands=full, tui=full)
    except Timeout:
        return [Problem("all", "timeout", f"no answer in {timeout:g} s")]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def property_input(names: list[str], seed: int, index: int) -> tuple[str, random.Random]:
    """Input `index` of a property run: which property checks it, and the generator it is built from."""
    name = names[index % len(names)]
    return name, random.Random(f"{seed}:{name}:{index}")


def run_property(name: str, rng: random.Random, timeout: float) -> Checked:
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return check_property(name, rng)
    except Timeout:
        return Checked(violations=[f"no answer in {timeout:g} s"])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def properties(args: argparse.Namespace) -> int:
    """The metamorphic properties over `--count` inputs: the figures per property, violations saved."""
    names = sorted(PROPERTIES) if args.properties == "all" else args.properties.split(",")
    unknown = [n for n in names if n not in PROPERTIES]
    if unknown:
        raise SystemExit(f"no property {', '.join(unknown)} (properties: {', '.join(sorted(PROPERTIES))})")
    inputs: Counter[str] = Counter()
    violating: Counter[str] = Counter()
    spent: Counter[str] = Counter()
    started = time.monotonic()
    for index in range(args.start, args.start + args.count):
        name, rng = property_input(names, args.seed, index)
        t0 = time.monotonic()
        checked = run_property(name, rng, args.timeout)
        spent[name] += time.monotonic() - t0
        inputs[name] += 1
        if checked.violations:
            violating[name] += 1
            folder = args.out / f"property-{name}" / f"{args.seed}-{index}"
            folder.mkdir(parents=True, exist_ok=True)
            for file, data in checked.files.items():
                (folder / Path(file).name).write_bytes(data)
            rebuild = f"--properties {name} --seed {args.seed} --start {index} --count 1"
            said = "\n\n".join(checked.violations).encode("utf-8", "backslashreplace").decode()
            (folder / "violations.txt").write_text(f"{rebuild}\n\n{said}", encoding="utf-8")
            print(f"VIOLATION {name} at {rebuild}: {said[:300]}", flush=True)
        done = index - args.start + 1
        if done % 1000 == 0:
            print(f"{done} inputs, {time.monotonic() - started:.0f} s, {sum(violating.values())} violating",
                  flush=True)
    elapsed = time.monotonic() - started
    last = args.start + args.count - 1
    print(f"done: {sum(inputs.values())} inputs (seed {args.seed}, {args.start}..{last}) in {elapsed:.0f} s; "
          f"{sum(violating.values())} violating; peak memory {_peak_mib()} MiB")
    for name in names:
        print(f"  {name:11} {inputs[name]:7} inputs  {violating[name]:5} violating  {spent[name]:8.0f} s")
    return 1 if violating else 0


def save(out: Path, problem: Problem, name: str, data: bytes, tag: str, count: int, source: str) -> None:
    if count > 3:
        return
    folder = out / problem.signature[:150]
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"{tag}{Path(name).suffix}"
    stem.write_bytes(data)
    stem.with_suffix(".txt").write_text(
        f"{source}\n{problem.stage} {problem.kind}: {problem.message}\n\n{problem.trace}", encoding="utf-8")


def _peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-crashes"))
    parser.add_argument("--cli-every", type=int, default=10,
                        help="every Nth input also through the CLI commands and the TUI loader")
    parser.add_argument("--slow", type=float, default=10.0, help="seconds after which an input is a problem")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--memory", type=int, default=500,
                        help="MiB by which one input may raise the peak memory before it is a problem")
    parser.add_argument("--replay", type=Path, help="rerun saved inputs (a file or a folder) instead")
    parser.add_argument("--properties", metavar="NAME,…",
                        help=f"run metamorphic properties instead (or all: {', '.join(sorted(PROPERTIES))})")
    args = parser.parse_args()

    def alarm(_signum: int, _frame: object) -> None:
        raise Timeout

    signal.signal(signal.SIGALRM, alarm)
    if args.properties:
        return properties(args)
    signatures: Counter[str] = Counter()
    started = time.monotonic()
    slowest = (0.0, -1)

    if args.replay is not None:
        files = [args.replay] if args.replay.is_file() else sorted(
            p for p in args.replay.rglob("*") if p.is_file() and p.suffix != ".txt")
        for file in files:
            problems = run_one(file.name, file.read_bytes(), random.Random(0), full=True,
                               timeout=args.timeout)
            for problem in problems:
                signatures[problem.signature] += 1
            print(f"{'FAIL' if problems else 'ok  '} {file}", *(f"\n     {p.signature}: {p.message}"
                                                               for p in problems))
        return 1 if signatures else 0

    if problem := corpus_misnamed():
        print(f"fuzz: {problem}", file=sys.stderr)
        return 2
    if not HAVE_CORPUS:
        print(f"fuzz: {CORPUS_MISSING}; the seeds are the project's own files only, so an input number "
              "names another input than in a run with it", file=sys.stderr)
    inputs = 0
    for index in range(args.start, args.start + args.count):
        name, data, rng = build(args.seed, index)
        peak = _peak_mib()  # tooldbg's memory and time, not the mutator's
        t0 = time.monotonic()
        problems = run_one(name, data, rng, full=index % args.cli_every == 0, timeout=args.timeout)
        spent = time.monotonic() - t0
        now = _peak_mib()
        if now - peak > args.memory:
            problems.append(Problem("all", "memory", f"peak memory grew by {now - peak} MiB on an input "
                                    f"of {len(data) / 2 ** 20:.1f} MiB"))
        slowest = max(slowest, (spent, index))
        if spent > args.slow and not any(p.kind == "timeout" for p in problems):
            problems.append(Problem("all", "slow", f"{spent:.1f} s"))
        for problem in problems:
            signatures[problem.signature] += 1
            if signatures[problem.signature] == 1:
                print(f"NEW {problem.signature} at --seed {args.seed} --start {index}: {problem.message}",
                      flush=True)
            save(args.out, problem, name, data, f"{args.seed}-{index}", signatures[problem.signature],
                 f"--seed {args.seed} --start {index} --count 1")
        inputs += 1
        if inputs % 1000 == 0:
            print(f"{inputs} inputs, {time.monotonic() - started:.0f} s, {len(signatures)} distinct problems",
                  flush=True)
    elapsed = time.monotonic() - started
    print(f"done: {inputs} inputs (seed {args.seed}, {args.start}..{args.start + inputs - 1}) in "
          f"{elapsed:.0f} s ({inputs / max(elapsed, 1e-9):.1f}/s); slowest {slowest[0]:.2f} s (input "
          f"{slowest[1]}); peak memory {_peak_mib()} MiB; {len(signatures)} distinct problems, "
          f"{sum(signatures.values())} in all")
    print("reached:", ", ".join(f"{stage} {count}" for stage, count in sorted(REACHED.items())))
    for signature, count in signatures.most_common():
        print(f"  {count:6}  {signature}")
    return 1 if signatures else 0


if __name__ == "__main__":
    sys.exit(main())
