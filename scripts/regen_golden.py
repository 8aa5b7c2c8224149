"""Regenerate the golden canonical documents in tests/golden/ from sample_transcripts/.

    .venv/bin/python scripts/regen_golden.py [--check]

The tests only compare against these files; they never write them. Run this after a change that is
meant to alter how a sample reads, then review `git diff tests/golden/` hunk by hunk against the
sample's wire JSON before committing: a golden is a reading checked by eye, not a copy of whatever
the code printed. `--check` writes nothing and exits 1 when a golden file would change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_samples import FILES, GOLDEN, canonical_text, golden_path  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a golden would change")
    args = parser.parse_args()
    changed = []
    for path in FILES:
        golden = golden_path(path)
        text = canonical_text(path)
        if golden.exists() and golden.read_text() == text:
            continue
        changed.append(golden.relative_to(ROOT).as_posix())
        if not args.check:
            golden.parent.mkdir(parents=True, exist_ok=True)
            golden.write_text(text)
    wanted = {golden_path(p) for p in FILES}
    stale = sorted(p.relative_to(ROOT).as_posix() for p in GOLDEN.rglob("*.canonical.json")
                   if p not in wanted)
    for line in changed:
        print(("would change " if args.check else "wrote ") + line)
    for line in stale:
        print(f"stale (no sample): {line}")
    if not changed and not stale:
        print(f"{len(FILES)} golden files up to date")
    return 1 if args.check and (changed or stale) else 0


if __name__ == "__main__":
    raise SystemExit(main())
