"""`tooldbg probe` through a relay in front of each API's stand-in: with the relay clean, every step
passes; with each fault switched on, the step that tests its layer fails with the rule that names it,
and every other step passes or is skipped with a reason. The capture is read back by `tooldbg check`
with the same findings, and the exchanges where the step failed are marked for the debugger."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.command import run
from tests.relay.faulty import FAULTS, NOT_IN, relaying
from tests.standins import APIS, Provider, standin
from tooldbg.probe.apis import APIS as PROBED
from tooldbg.probe.steps import STEPS

LAYERS = {s.name: s.layer for s in STEPS}
OBJECT_APIS = ("anthropic", "gemini", "bedrock")

#: fault → (the step it fails, the codes that fail it: the same in every API, or by API)
MATRIX: dict[str, tuple[str, dict[str, set[str]]]] = {
    "drop-tools": ("forced-call", dict.fromkeys(APIS, {"TD603"})),
    "strip-schema": ("schema-carried", dict.fromkeys(APIS, {"TD206"})),
    "arguments-reshaped": ("arguments-shape", {api: {"TD204" if api in OBJECT_APIS else "TD203"} for api in APIS}),
    "reject-tool-results": ("second-round", dict.fromkeys(APIS, {"TD901"})),
    "drop-tool-results": ("second-round", dict.fromkeys(APIS, {"TD601"})),
    "pair-by-position": ("parallel", dict.fromkeys(APIS, {"TD401"})),
    # what each API's stream assembler says of a fragment one index past its call: Chat opens a
    # call with no id or name for it (and the call it belongs to is left with "" arguments)
    "reindex-stream": ("streamed", {"openai-chat": {"TD503", "TD205"}, "openai-responses": {"TD501"},
                                    "anthropic": {"TD501"}, "bedrock": {"TD501", "TD503"}}),
    "truncate-stream": ("streamed", dict.fromkeys(APIS, {"TD504"})),
}


def test_every_fault_is_in_the_matrix():
    assert set(MATRIX) == set(FAULTS)


@contextmanager
def relay(api: str, faults: set[str]) -> Iterator[Provider]:
    with standin(api) as upstream, relaying(api, upstream, faults) as relayed:
        yield relayed


def probe(capsys, monkeypatch, provider: Provider, api: str, har: Path, *more: str) -> tuple[int, str, str]:
    monkeypatch.setenv(PROBED[api].key_env, provider.key)
    return run(capsys, "probe", provider.base_url, "--api", api, "--model", "stand-in-model", "-o", str(har),
               "--timeout", "10", *more)


@pytest.mark.parametrize("fault", [None, *FAULTS], ids=lambda f: f or "clean")
@pytest.mark.parametrize("api", APIS)
def test_each_fault_fails_the_step_of_its_layer_and_no_other(tmp_path, capsys, monkeypatch, api, fault):
    if fault in NOT_IN.get(api, {}):
        pytest.skip(NOT_IN[api][fault])
    har = tmp_path / "probe.har"
    with relay(api, {fault} if fault else set()) as relayed:
        code, out, err = probe(capsys, monkeypatch, relayed, api, har, "--format", "json")
    doc = json.loads(out)
    steps = {s["step"]: s for s in doc["steps"]}
    assert list(steps) == [s.name for s in STEPS]
    assert all(s["layer"] == LAYERS[name] for name, s in steps.items())
    failed = {name: s for name, s in steps.items() if s["verdict"] == "fail"}
    if fault is None:
        assert code == 0 and err == ""
        assert failed == {} and all(s["verdict"] == "pass" for s in steps.values()), steps
        # the results went back in reverse order on purpose: noted, not failed
        assert {f["code"] for f in doc["findings"]} == {"TD401"}
    else:
        step, codes = MATRIX[fault]
        assert code == 1 and err == ""
        assert list(failed) == [step], steps
        assert set(failed[step]["codes"]) == codes[api]
        assert all(e["exchange"] is not None and e["pointer"] for e in failed[step]["evidence"])
        assert all(other["reason"] for other in steps.values())  # a skip says why
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
