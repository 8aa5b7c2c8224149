"""`tooldbg check` and `tooldbg rules`: exit codes, the documented JSON document, GitHub
annotations, selection, and rule docs."""

import json

import pytest

from tests.test_cli import run

ORPHAN = {"model": "gpt-4o-mini", "messages": [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "tool", "tool_call_id": "call_9", "content": "4°C"}]}


@pytest.fixture
def orphan(tmp_path):
    path = tmp_path / "orphan.json"
    path.write_text(json.dumps(ORPHAN))
    return path


def test_findings_exit_1_and_the_text_names_turn_part_and_json(orphan, capsys):
    code, out, _ = run(capsys, "check", str(orphan))
    assert code == 1
    assert "c1 turn 1 tool" in out
    assert "TD101 error orphan-result: result 'call_9' answers no earlier call" in out
    assert "exchange 0 /messages/1" in out and '"tool_call_id": "call_9"' in out
    assert out.rstrip().endswith("1 error, 0 warnings, 0 info")


def test_json_document_follows_the_documented_schema(orphan, capsys):
    code, out, _ = run(capsys, "check", str(orphan), "--format", "json")
    doc = json.loads(out)
    assert code == 1
    assert set(doc) == {"tooldbg", "inputs", "findings", "summary"}
    assert doc["inputs"] == [{"path": str(orphan), "container": "json", "formats": ["openai-chat"],
                              "exchanges": 1, "conversations": 1, "errors": []}]
    [finding] = [f for f in doc["findings"] if f["code"] == "TD101"]
    assert finding == {"code": "TD101", "name": "orphan-result", "severity": "error",
                       "message": "result 'call_9' answers no earlier call", "path": str(orphan),
                       "exchange": 0, "conversation": "c1", "turn": 1, "part": 0,
                       "pointer": "/messages/1", "chunk": None}
    assert doc["summary"]["error"] >= 1


def test_github_annotations(orphan, capsys):
    _, out, _ = run(capsys, "check", str(orphan), "--format", "github", "--select", "TD101")
    assert out.strip() == (f"::error file={orphan},title=TD101 orphan-result::"
                           "result 'call_9' answers no earlier call (c1 turn 1) at /messages/1")


def test_select_ignore_and_fail_on(orphan, capsys):
    assert run(capsys, "check", str(orphan), "--ignore", "TD101", "--select", "TD1")[0] == 0
    assert run(capsys, "check", str(orphan), "--select", "td101")[0] == 1
    assert run(capsys, "check", str(orphan), "--fail-on", "never")[0] == 0


def test_clean_file_exits_0(capsys):
    from tests.paths import SAMPLES
    code, out, _ = run(capsys, "check", str(SAMPLES / "anthropic" / "parallel-calls.jsonl"))
    assert code == 0 and "no findings" in out


def test_unreadable_input_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, _, err = run(capsys, "check", str(bad))
    assert code == 2 and str(bad) in err and "invalid JSON" in err


def test_rules_lists_the_catalogue_and_explains_one(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0 and "TD101" in out and "orphan-result" in out
    code, out, _ = run(capsys, "rules", "TD101")
    assert code == 0 and "Bad" in out and "Good" in out and "preceeding message" in out
    code, out, _ = run(capsys, "rules", "orphan-result")
    assert code == 0 and out.startswith("TD101 orphan-result")
    assert run(capsys, "rules", "TD999")[0] == 2


def test_convert_runs_the_target_preflight_before_writing(tmp_path, capsys):
    from tests.paths import SAMPLES
    sample = SAMPLES / "anthropic" / "parallel-calls.jsonl"
    code, out, err = run(capsys, "convert", str(sample), "--to", "mistral")
    assert code == 1 and json.loads(out)["messages"]
    preflight = [line for line in err.splitlines() if line.startswith("preflight: ")]
    assert preflight and all(" TD801 error target-call-id: mistral rejects call id 'toolu_" in line
                             for line in preflight)
    assert "must be a-z, A-Z, 0-9, with a length of 9." in preflight[0]
    code, _, err = run(capsys, "convert", str(sample), "--to", "openai-chat")
    assert code == 0 and "preflight:" not in err
