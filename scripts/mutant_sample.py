"""Helper of scripts/mutate.sh: pick a reproducible random sample of mutant names, or print the
score of a run from mutmut's results in ./mutants/.

    python scripts/mutant_sample.py N SEED [GLOB...]     # N names matching the globs, seeded
    python scripts/mutant_sample.py --score [NAME|GLOB...]   # killed / tested, by module
"""

from __future__ import annotations

import fnmatch
import json
import random
import sys
from collections import Counter
from pathlib import Path

MUTANTS = Path(__file__).resolve().parents[1] / "mutants"
#: mutmut's exit codes: 1 (a test failed), 3 (segfault-like), -24/24/36/152/255 (timeout or killed)
KILLED_CODES = {1, 3, -24, 24, 36, 152, 255, -9}


def results() -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for meta in MUTANTS.rglob("*.meta"):
        out.update(json.loads(meta.read_text())["exit_code_by_key"])
    return out


def matching(names, patterns: list[str]) -> list[str]:
    return sorted(n for n in names if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns))


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--score":
        chosen = matching(results(), argv[1:])
        codes = results()
        tested = [n for n in chosen if codes[n] is not None]
        killed = [n for n in tested if codes[n] in KILLED_CODES]
        by_module: Counter[str] = Counter()
        for n in tested:
            by_module[n.split(".x")[0]] += 1
        for module, count in sorted(by_module.items()):
            k = sum(1 for n in killed if n.split(".x")[0] == module)
            print(f"{module}: {k}/{count} killed ({100 * k / count:.1f} %)")
        if tested:
            print(f"score: {len(killed)}/{len(tested)} killed ({100 * len(killed) / len(tested):.1f} %)"
                  + (f"; {len(chosen) - len(tested)} not run" if len(chosen) > len(tested) else ""))
        survivors = [n for n in tested if codes[n] == 0]
        for n in survivors:
            print(f"survived: {n}")
        return 0
    count, seed, patterns = int(argv[0]), int(argv[1]), argv[2:]
    names = matching(results(), patterns)
    for name in sorted(random.Random(seed).sample(names, min(count, len(names)))):
        print(name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
