"""The README's probe verdict table, from a real run: `tooldbg probe` through the faulty relay of
`tests/relay/faulty.py` in front of each API's stand-in (`tests/standins`), clean and with each
fault, every verdict as the probe gave it.

    .venv/bin/python scripts/probe_matrix.py [API…]      # prints the Markdown table (all five APIs)

A cell is the verdict every API gave, or each verdict with the APIs that gave it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.relay.faulty import FAULTS, NOT_IN, relaying  # noqa: E402
from tests.standins import APIS, standin  # noqa: E402
from tooldbg.probe.apis import APIS as PROBED  # noqa: E402
from tooldbg.probe.steps import STEPS, Probe  # noqa: E402


def short(api: str) -> str:
    """How the table names an API where cells differ: `chat`, `responses`, `anthropic`, …"""
    return api.removeprefix("openai-")


def cell(verdict: str, codes: tuple[str, ...]) -> str:
    return verdict.upper() + (f" {', '.join(codes)}" if codes else "")


def verdicts(api: str, fault: str | None, folder: Path) -> list[str]:
    """Each step's cell for one API through the relay with `fault` (None: clean)."""
    with standin(api) as upstream, relaying(api, upstream, {fault} if fault else set()) as relay:
        outcome = Probe(PROBED[api], relay.base_url, "stand-in-model", upstream.key, timeout=10).run(
            str(folder / f"{api}-{fault}.har"))
    return [cell(v.verdict, v.codes) for v in outcome.verdicts]


def combined(cells: dict[str, str]) -> str:
    """One cell for every API: the value where all agree, else each value with the APIs that gave it
    (the most common first, unnamed when the others are named)."""
    values: dict[str, list[str]] = {}
    for api, value in cells.items():
        values.setdefault(value, []).append(api)
    if len(values) == 1:
        return next(iter(values))
    ranked = sorted(values.items(), key=lambda item: -len(item[1]))
    return "; ".join(value if i == 0 else f"{value} ({', '.join(short(a) for a in apis)})"
                     for i, (value, apis) in enumerate(ranked))


def main(apis: list[str]) -> None:
    apis = apis or list(APIS)
    print("| relay | " + " | ".join(s.name for s in STEPS) + " |")
    print("|---|" + "---|" * len(STEPS))
    with tempfile.TemporaryDirectory() as folder:
        for fault in [None, *FAULTS]:
            rows = {api: verdicts(api, fault, Path(folder)) for api in apis
                    if fault not in NOT_IN.get(api, {})}
            cells = [combined({api: row[k] for api, row in rows.items()}) for k in range(len(STEPS))]
            missing = [f"{short(a)}: {NOT_IN[a][fault]}" for a in apis if fault in NOT_IN.get(a, {})]
            print(f"| {fault or 'clean'}{' (not ' + '; '.join(missing) + ')' if missing else ''} | "
                  + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
