"""`tooldbg repro`: a failing log shrunk to a small one that still shows the finding, keys masked."""

import re

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.checks.test_registry import sample_target
from tests.command import run
from tooldbg.checks import RULES, run_checks
from tooldbg.load import load_bytes, load_file
from tooldbg.repro import JsonFile, Shrinker
from tooldbg.secrets import MASK

from .paths import SAMPLES

DEFECTS = sorted(p for p in (SAMPLES / "defects").iterdir() if p.is_file())
TD102 = SAMPLES / "defects" / "TD102-failed-parallel-result-dropped.jsonl"
TD303 = SAMPLES / "defects" / "TD303-session-store-drops-is-error.jsonl"
KEY = "sk-ant-api03-pX7mQ2vL9kT4wR8zN3cB6yH1dF5gJ0sA"


def said(message):
    return re.sub(r"\d+", "#", message)


def shown(path, code, target=None, data=None):
    """What `check` says of rule `code` on the file (numbers aside), and whether it read cleanly."""
    loaded = load_bytes(str(path), data) if data is not None else load_file(path)
    return {said(f.message) for f in run_checks(loaded, [RULES[code]], target) if f.code == code}, \
        len(loaded.errors)


def repro(capsys, path, out, *args):
    code = path.name.split("-", 1)[0]
    target = sample_target(path)
    return run(capsys, "repro", str(path), "--rule", code, "-o", str(out),
               *(("--target", target) if target else ()), *args)


@pytest.mark.parametrize("path", DEFECTS, ids=[p.name for p in DEFECTS])
def test_every_defect_sample_shrinks_to_a_smaller_log_showing_the_same_finding(capsys, tmp_path, path):
    code, target = path.name.split("-", 1)[0], sample_target(path)
    out = tmp_path / "repro.json"
    status, stdout, err = repro(capsys, path, out)
    assert status == 0 and err == "", err
    before, errors_before = shown(path, code, target)
    after, errors_after = shown(out, code, target)
    assert after and after <= before and errors_after <= errors_before
    written = out.read_bytes()
    assert len(written) < path.stat().st_size
    records, total = re.search(r": (\d+) of (\d+) records?, ", stdout).groups()
    assert int(records) <= int(total)
    assert f"{code} reproduced in {out}: " in stdout and "credentials masked" in stdout
    assert "stopped at --max-checks" not in stdout


def test_no_single_record_of_the_result_can_go(capsys, tmp_path):
    """1-minimal over records: each record the result keeps is needed for the finding."""
    out = tmp_path / "repro.jsonl"
    assert repro(capsys, TD303, out)[0] == 0
    lines = out.read_bytes().splitlines()
    assert len(lines) == 2  # the request that sent the failure, and the one that replays it unflagged
    for drop in range(len(lines)):
        kept = b"\n".join(line for i, line in enumerate(lines) if i != drop)
        assert not shown(out, "TD303", data=kept)[0], f"record {drop} was not needed"


def test_a_long_log_around_the_defect_shrinks_to_the_defect(capsys, tmp_path):
    """Sixty clean exchanges of other sessions before and after: none is kept."""
    clean = (SAMPLES / "anthropic" / "parallel-calls.jsonl").read_bytes().splitlines()
    defect = TD102.read_bytes().splitlines()
    long_log = tmp_path / "session.jsonl"
    long_log.write_bytes(b"\n".join(clean * 30 + defect + clean * 30) + b"\n")
    out = tmp_path / "repro.jsonl"
    status, stdout, _ = run(capsys, "repro", str(long_log), "--rule", "TD102", "-o", str(out))
    assert status == 0 and f": 1 of {len(clean) * 60 + len(defect)} records" in stdout
    assert out.read_bytes().count(b"\n") == 1


def test_credentials_are_masked_unless_asked(capsys, tmp_path):
    """With one check there is no shrinking: the whole log is written, its key masked (the check of
    the masked file still shows the finding)."""
    masked, plain = tmp_path / "masked.jsonl", tmp_path / "plain.jsonl"
    status, stdout, err = repro(capsys, TD102, masked, "--max-checks", "1")
    assert status == 0 and err == "" and ", 1 check (stopped at --max-checks 1" in stdout
    assert KEY not in masked.read_text() and MASK in masked.read_text()
    assert shown(masked, "TD102")[0]
    assert repro(capsys, TD102, plain, "--max-checks", "1", "--no-redact")[0] == 0
    assert KEY in plain.read_text()


def test_the_budget_stops_the_shrinking_and_says_so(capsys, tmp_path):
    out = tmp_path / "repro.jsonl"
    status, stdout, _ = repro(capsys, TD102, out, "--max-checks", "6")
    assert status == 0 and ", 6 checks (stopped at" in stdout  # the first, of the whole file, counted
    assert "(stopped at --max-checks 6: a smaller log may exist)" in stdout
    assert shown(out, "TD102")[0] and out.stat().st_size < TD102.stat().st_size


@pytest.mark.parametrize("args, message", [
    (["--rule", "TD999"], "--rule TD999: no rule has this code"),
    (["--rule", "TD303"], "shows no TD303 finding to reproduce"),
    (["--rule", "TD701"], "--rule TD701: TD7xx rules compare two logs"),
    (["--rule", "TD801"], "--rule TD801: target rules check a provider's limits and run only with --target"),
])
def test_a_rule_it_cannot_reproduce_is_one_line_and_exit_2(capsys, tmp_path, args, message):
    status, stdout, err = run(capsys, "repro", str(TD102), *args, "-o", str(tmp_path / "out"))
    assert status == 2 and stdout == "" and message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_unreadable_input_and_an_existing_output_are_one_line_and_exit_2(capsys, tmp_path):
    existing = tmp_path / "existing.jsonl"
    existing.write_text("keep me")
    status, _, err = run(capsys, "repro", str(TD102), "--rule", "TD102", "-o", str(existing))
    assert status == 2 and str(existing) in err and err.count("\n") == 1
    assert existing.read_text() == "keep me"
    status, _, err = run(capsys, "repro", str(tmp_path / "missing.jsonl"), "--rule", "TD102",
                         "-o", str(tmp_path / "out"))
    assert status == 2 and "missing.jsonl" in err and err.count("\n") == 1
    binary = tmp_path / "log.bin"
    binary.write_bytes(bytes(range(256)))
    status, _, err = run(capsys, "repro", str(binary), "--rule", "TD102", "-o", str(tmp_path / "out"))
    assert status == 2 and "log.bin" in err and err.count("\n") == 1 and "Traceback" not in err


# The shrinking itself, on planted trees: what is left is the path to what the check looks for.

_leaves = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1), st.text(max_size=100))
_trees = st.recursive(_leaves, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.text(min_size=1, max_size=5), inner, max_size=5), max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(tree=st.lists(_trees, min_size=1, max_size=6), where=st.data())
def test_the_shrinker_keeps_only_the_path_to_what_the_check_needs(tree, where):
    """A marker planted somewhere in a JSON Lines file: the shrinker keeps its record, and in it only
    the lists and objects that lead to it — each holding exactly one item."""
    marker = "MARKER-7f3a"
    record = where.draw(st.integers(0, len(tree) - 1))
    tree[record] = {"path": [tree[record], {"to": marker}]}
    data = b"\n".join(orjson.dumps(value) for value in tree)
    file = JsonFile("log.jsonl", data)
    assert Shrinker(file, lambda text: marker in text, 10_000).run()
    assert [orjson.loads(line) for line in file.text().split("\n") if line] == [{"path": [{"to": marker}]}]


def test_a_string_holding_json_is_shrunk_inside_and_kept_a_string():
    """A HAR body is a string of JSON: its messages go as any list's items do."""
    body = {"messages": [{"role": "user", "content": f"m{i}"} for i in range(20)]}
    body["messages"][13]["content"] = "the one"
    har = {"log": {"entries": [{"request": {"postData": {"text": orjson.dumps(body).decode()}}}]}}
    file = JsonFile("run.har", orjson.dumps(har, option=orjson.OPT_INDENT_2))
    assert Shrinker(file, lambda text: "the one" in text, 10_000).run()
    written = orjson.loads(file.text())
    text = written["log"]["entries"][0]["request"]["postData"]["text"]
    assert isinstance(text, str) and orjson.loads(text) == {"messages": [{"content": "the one"}]}
