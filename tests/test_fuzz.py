"""The fuzzing suite, bounded: every seed as it is, then a fixed run of mutants through every path
(tests/fuzz/). `scripts/fuzz.py --count 100000 --seed N` is the same run, as long as you like."""

from __future__ import annotations

import base64
import json
import random
import struct
import zlib

import pytest

from tests.fuzz import mutate as m
from tests.fuzz.exercise import exercise
from tests.fuzz.properties import PROPERTIES, check_property
from tests.fuzz.seeds import seeds
from tooldbg.errors import InputError
from tooldbg.records import eventstream

#: The run CI does: this many mutants of this seed (a few seconds), every tenth also through the
#: CLI commands and the TUI's loader.
SEED, COUNT = 20250611, 200


def _report(problems: list, where: str) -> str:
    return "\n".join(f"{where}: {p.signature}: {p.message}" for p in problems)


def test_every_seed_is_handled_as_it_is():
    """The samples and the corpus themselves: no problem, before any mutation."""
    problems = []
    for i, seed in enumerate(seeds()):
        found = exercise(seed.name, seed.data, random.Random(i), cli_commands=i % 10 == 0, tui=i % 10 == 0)
        problems += [(seed.name, p) for p in found]
    assert not problems, "\n".join(f"{name}: {p.signature}: {p.message}" for name, p in problems)


def test_mutants_are_handled():
    """A fixed run of mutants (deterministic: a failure prints the command that rebuilds it)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "fuzz_script", Path(__file__).resolve().parents[1] / "scripts" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    failures = []
    for index in range(COUNT):
        name, data, rng = script.build(SEED, index)
        problems = exercise(name, data, rng, cli_commands=index % 10 == 0, tui=index % 10 == 0)
        if problems:
            failures.append(_report(problems, f"scripts/fuzz.py --seed {SEED} --start {index} --count 1"))
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------- the metamorphic properties

#: The properties' run in CI: this many inputs of each, 660 in all (under a minute on one core);
#: `scripts/fuzz.py --properties all --count 100000` is the long run.
PROPERTY_SEED = 20250612
PROPERTY_COUNTS = {"layout": 100, "containers": 60, "fix": 100, "diff": 100, "canonical": 100,
                   "interleave": 120, "secrets": 40, "hashseed": 40}


@pytest.mark.parametrize("name", sorted(PROPERTIES))
def test_the_property_holds(name):
    """Each input deterministic: a failure prints the command that rebuilds and saves it."""
    failures = []
    for index in range(PROPERTY_COUNTS[name]):
        checked = check_property(name, random.Random(f"{PROPERTY_SEED}:{name}:{index}"))
        if checked.violations:
            failures.append(f"scripts/fuzz.py --properties {name} --seed {PROPERTY_SEED} --start {index} "
                            f"--count 1: {checked.violations[0]}")
    assert not failures, "\n".join(failures)


def test_the_properties_can_fail(monkeypatch):
    """Each comparison sees a change: the outputs a property compares, sabotaged, are a violation."""
    import tooldbg.secrets
    from tests.fuzz import properties
    from tests.fuzz.workers import workers

    real = properties.load

    def by_layout(name, data):  # a reader that drops a conversation when the file has an indented line
        loaded = real(name, data)
        if b"\n  " in data:
            loaded.conversations = loaded.conversations[:-1]
        return loaded

    monkeypatch.setattr(properties, "load", by_layout)
    assert any(check_property("layout", random.Random(f"x:{i}")).violations for i in range(20))

    def by_name(name, data):  # a reader whose errors name the container
        loaded = real(name, data)
        loaded.errors = [*loaded.errors, InputError(name, "", name)]
        return loaded

    monkeypatch.setattr(properties, "load", by_name)
    assert check_property("containers", random.Random(1)).violations
    monkeypatch.setattr(properties, "load", real)
    monkeypatch.setattr(tooldbg.secrets, "_replace", lambda text, spans: text)  # masking nothing
    assert any(check_property("secrets", random.Random(i)).violations for i in range(3))
    assert workers().hashes[0] != workers().hashes[1]


def test_a_crash_the_user_sees_as_a_line_is_a_violation(monkeypatch):
    """A repair that raises is 'not repaired (internal error …)' for the user, and `fix` goes on; in a
    property run it is a violation, not an input with nothing to say."""
    from tooldbg.repair import registry

    def broken(conversation, log):
        raise KeyError("planted")

    monkeypatch.setattr(registry, "REPAIRS", [(codes, broken) for codes, _ in registry.REPAIRS])
    said = [v for i in range(10) for v in check_property("fix", random.Random(f"crash:{i}")).violations]
    assert said and all(v.startswith("crash KeyError: 'planted'") for v in said), said


# ------------------------------------------------------------------ the fuzzer itself is checked


def test_the_cli_oracle_tells_a_traceback_from_a_log_quoting_one():
    from tests.fuzz.exercise import stderr_problems

    quoted = ("tooldbg: c1 turn 4 part 1: result 'call_Q' \"Traceback (most recent call last):\\nNameError: "
              "name 'prin'…\" would be left out of the anthropic request\n")
    assert stderr_problems("cli-convert", quoted) == []
    printed = 'Traceback (most recent call last):\n  File "x.py", line 1\nKeyError: 1\n'
    assert [p.kind for p in stderr_problems("cli-convert", printed)] == ["last)"]
    assert [p.kind for p in stderr_problems("cli-check", "tooldbg: internal error: KeyError: 1\n")] == ["error"]


def test_a_run_is_deterministic_by_seed():
    for index in (0, 7):
        a = m.mutate(seeds()[index].data, random.Random(f"1:{index}"))
        b = m.mutate(seeds()[index].data, random.Random(f"1:{index}"))
        assert a == b


def test_structured_mutants_mostly_still_parse():
    """Mutation that knows the container keeps most mutants readable, so they reach the readers."""
    source = next(s for s in seeds() if s.name.endswith("anthropic/request.json"))
    rng = random.Random(3)
    parsed = sum(m.loads(m.mutate_structured(source.data, rng))[0] for _ in range(100))
    assert parsed > 80


def test_json_strings_holding_documents_are_mutated_as_documents():
    """HAR and recorder files keep bodies as JSON text: the mutant's body is still JSON, changed."""
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "model": "x"})
    doc = {"log": {"entries": [{"request": {"postData": {"text": body}}}]}}
    rng = random.Random(5)
    changed = 0
    for _ in range(200):
        value = json.loads(json.dumps(doc))
        inner = _dig(m.mutate_tree(value, rng), "log", "entries", 0, "request", "postData", "text")
        if isinstance(inner, str) and inner != body and m.loads(inner)[0]:
            changed += 1
    assert changed > 20


def _dig(value, *keys):
    for key in keys:
        if isinstance(key, int) and isinstance(value, list) and len(value) > key:
            value = value[key]
        elif isinstance(key, str) and isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


def test_event_stream_mutants_keep_valid_checksums():
    """Frames are re-encoded after their payload or headers change, so they get past the CRCs."""
    payload = json.dumps({"role": "assistant"}).encode()
    frame = m.encode_frame([m.string_header(":event-type", "messageStart"),
                            m.string_header(":message-type", "event")], payload)
    assert eventstream.parse(frame)[0].name == "messageStart"
    rng = random.Random(9)
    valid = 0
    for _ in range(100):
        mutated = m.mutate_eventstream(frame * 3, rng)
        if mutated and m.is_eventstream(mutated):
            total = struct.unpack_from(">I", mutated)[0]
            valid += len(mutated) >= total and zlib.crc32(mutated[: total - 4]) == struct.unpack_from(">I", mutated, total - 4)[0]
    assert valid > 50


def test_deep_values_are_built_and_written_at_any_depth():
    value = m.deep(5000, random.Random(1), leaf=1)
    text = m.dumps(value)
    assert text.count("[") + text.count("{") == 5000 and m.loads(text) == (False, None)  # too deep for json
    assert m.self_nested({"content": [{"type": "text"}]}, 300, random.Random(2))


def test_the_oracle_reports_a_crash(monkeypatch):
    """The harness can fail: a reader that raises something other than FormatError is a problem,
    with the innermost tooldbg frame in its signature."""
    from tooldbg.formats import anthropic

    def broken(body, source):
        raise KeyError("boom")

    monkeypatch.setattr(anthropic, "read_request", broken)
    source = next(s for s in seeds() if s.name.endswith("anthropic/parallel-calls.jsonl"))
    problems = exercise("x.jsonl", source.data, random.Random(0))
    assert problems and problems[0].kind == "KeyError" and problems[0].stage == "load"


@pytest.mark.parametrize("data", [b"", b"\x00" * 20, base64.b64decode("AAAAEAAAAAA=") + b"\x00" * 8])
def test_degenerate_inputs(data):
    assert exercise("x.bin", data, random.Random(0), cli_commands=True, tui=True) == []
