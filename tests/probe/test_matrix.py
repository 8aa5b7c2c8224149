"""`tooldbg probe` through a relay in front of each API's stand-in: with the relay clean, every step
passes; with each fault switched on, the step that tests its layer fails with the rule that names it,
and every other step passes or is skipped with a reason — exactly the verdicts of the README's table.
The capture is read back by `tooldbg check` with the same findings, and the exchanges where the step
failed are marked for the debugger."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.command import run
from tests.relay.faulty import FAULTS, NOT_IN, relaying
from tests.standins import APIS, standin
from tests.standins.provider import Provider
from tooldbg.probe.apis import APIS as PROBED
from tooldbg.probe.steps import STEPS

LAYERS = {s.name: s.layer for s in STEPS}
README = Path(__file__).resolve().parents[2] / "README.md"
#: How the README's table names each API where their verdicts differ (scripts/probe_matrix.py).
SHORT = {api.removeprefix("openai-"): api for api in APIS}


def readme_table() -> dict[str, dict[str, list[str]]]:
    """The README's verdict table (made by scripts/probe_matrix.py from a real run): relay fault (or
    `clean`) → API → each step's cell (`PASS`, `SKIP`, `FAIL TD206`, …)."""
    text = README.read_text()
    start = text.index("| relay | " + " | ".join(LAYERS) + " |")
    table: dict[str, dict[str, list[str]]] = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("| "):
            break
        first, *cells = [c.strip() for c in line.strip("|").split(" | ")]
        fault = first.split(" (")[0]
        left_out = {SHORT[name] for name in re.findall(r"not (\w+):", first)}
        rows: dict[str, list[str]] = {api: [] for api in APIS if api not in left_out}
        for cell in cells:
            default, *named = cell.split("; ")  # the most common verdict, then the others by API
            by_api = {SHORT[api]: value for said in named
                      for value, apis in [said[:-1].split(" (")] for api in apis.split(", ")}
            for api, row in rows.items():
                row.append(by_api.get(api, default))
        table[fault] = rows
    return table


TABLE = readme_table()


def test_the_readme_table_has_every_api_clean_and_with_every_fault():
    assert list(TABLE) == ["clean", *FAULTS]
    for fault, rows in TABLE.items():
        assert set(rows) == set(APIS) - set(a for a in APIS if fault in NOT_IN.get(a, {}))


@contextmanager
def relay(api: str, faults: set[str]) -> Iterator[Provider]:
    with standin(api) as upstream, relaying(api, upstream, faults) as relayed:
        yield relayed


def probe(capsys, monkeypatch, provider: Provider, api: str, har: Path, *more: str) -> tuple[int, str, str]:
    monkeypatch.setenv(PROBED[api].key_env, provider.key)
    return run(capsys, "probe", provider.base_url, "--api", api, "--model", "stand-in-model", "-o", str(har),
               "--timeout", "10", *more)


#: Every API with every fault, but those a fault cannot touch (`NOT_IN` says why; the README's table
#: leaves them out too): a combination that cannot fail is not run, rather than run and skipped.
CASES = [(api, fault) for api in APIS for fault in (None, *FAULTS) if fault not in NOT_IN.get(api, {})]


@pytest.mark.parametrize("api, fault", CASES, ids=lambda x: x or "clean")
def test_each_fault_fails_the_step_of_its_layer_and_no_other(tmp_path, capsys, monkeypatch, api, fault):
    har = tmp_path / "probe.har"
    with relay(api, {fault} if fault else set()) as relayed:
        code, out, err = probe(capsys, monkeypatch, relayed, api, har, "--format", "json")
    doc = json.loads(out)
    steps = {s["step"]: s for s in doc["steps"]}
    assert list(steps) == [s.name for s in STEPS]
    assert all(s["layer"] == LAYERS[name] for name, s in steps.items())
    failed = {name: s for name, s in steps.items() if s["verdict"] == "fail"}
    # the verdicts are the README's, from its real run: one step fails with the codes of its layer
    assert [v["verdict"].upper() + (" " + ", ".join(v["codes"]) if v["codes"] else "")
            for v in steps.values()] == TABLE[fault or "clean"][api]
    assert all(s["reason"] for s in steps.values())  # a skip says why
    if fault is None:
        assert code == 0 and err == ""
        # the results went back in reverse order on purpose: noted, not failed
        assert {f["code"] for f in doc["findings"]} == {"TD401"}
    else:
        assert code == 1 and err == ""
        assert len(failed) == 1, steps
        assert all(e["exchange"] is not None and e["pointer"] for s in failed.values() for e in s["evidence"])
    # every pass was observed somewhere in the capture
    assert all(s["evidence"] for s in steps.values() if s["verdict"] == "pass")

    # `tooldbg check` reads the capture with the same findings
    capsys.readouterr()
    checked, out, _ = run(capsys, "check", str(har), "--format", "json")
    rechecked = json.loads(out)
    assert [(f["code"], f["exchange"], f["pointer"]) for f in rechecked["findings"]] == \
        [(f["code"], f["exchange"], f["pointer"]) for f in doc["findings"]]
    assert rechecked["inputs"][0]["errors"] == [] and rechecked["inputs"][0]["formats"] == [api]

    # the exchanges a step failed on carry the codes that failed it, for the debugger to open on
    entries = json.loads(har.read_text())["log"]["entries"]
    marked = {(i, c) for i, e in enumerate(entries) for c in e["_tooldbg"].get("focus", [])}
    assert marked == {(e["exchange"], e["code"]) for s in failed.values() for e in s["evidence"] if e["code"]}
