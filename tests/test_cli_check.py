"""`tooldbg check` and `tooldbg rules`: exit codes, the documented JSON document, GitHub
annotations, selection, and rule docs."""

import json
import re

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
    assert set(doc) == {"tooldbg", "inputs", "findings", "summary", "skipped"}
    assert doc["inputs"] == [{"path": str(orphan), "container": "json", "formats": ["openai-chat"],
                              "exchanges": 1, "conversations": 1, "errors": [], "skipped": 0,
                              "lacks": []}]
    assert doc["skipped"] == {"files": 0, "paths": [], "entries": 0}
    [finding] = [f for f in doc["findings"] if f["code"] == "TD101"]
    assert finding == {"code": "TD101", "name": "orphan-result", "severity": "error",
                       "message": "result 'call_9' answers no earlier call — error: OpenAI rejects it (the model "
                                  "gpt-4o-mini)", "path": str(orphan),
                       "exchange": 0, "conversation": "c1", "turn": 1, "part": 0,
                       "pointer": "/messages/1", "chunk": None, "evidence": "provider"}
    assert doc["summary"]["error"] >= 1


def test_github_annotations(orphan, capsys):
    _, out, _ = run(capsys, "check", str(orphan), "--format", "github", "--select", "TD101")
    assert out.strip() == (f"::error file={orphan},title=TD101 orphan-result::"
                           "result 'call_9' answers no earlier call — error: OpenAI rejects it (the model "
                           "gpt-4o-mini) (c1 turn 1) at /messages/1")


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


@pytest.mark.parametrize("code, said", [
    ("TD101", "Severity: the providers that refuse this are named; a finding is an error where the log "
              "shows the refusal"),
    ("TD303", "Severity: the data the model or the client received is damaged"),
    ("TD106", "Severity: what the log suggests rather than shows: the rule's severity, a warning or an info"),
    ("TD801", "Severity: the provider named by --target refuses it"),
    ("TD901", "Severity: the provider's own rejection, recorded in the log"),
])
def test_a_rule_explained_says_what_sets_its_severity(capsys, code, said):
    """`check` judges each finding by the evidence in the log (`checks.evidence`): the catalogue says
    which evidence, by what the rule's defect harms."""
    status, out, _ = run(capsys, "rules", code)
    assert status == 0 and said in " ".join(out.split())


def test_convert_runs_the_target_preflight_before_writing(tmp_path, capsys):
    # DeepSeek's thinking mode needs the reasoning_content the history does not have: no writer can
    # make it up, so the pre-flight reports it and convert exits 1, after writing the body.
    log = tmp_path / "deepseek.jsonl"
    call = {"id": "call_00_abc", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}
    body = {"model": "deepseek-reasoner", "messages": [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_00_abc", "content": "4C"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}
    log.write_text(json.dumps({"request": {"method": "POST", "url": "https://api.deepseek.com/chat/completions",
                                           "body": body}}) + "\n")
    code, out, err = run(capsys, "convert", str(log), "--to", "deepseek")
    assert code == 1 and json.loads(out)["messages"]
    preflight = [line for line in err.splitlines() if line.startswith("preflight: ")]
    assert len(preflight) == 1 and " TD805 error target-reasoning-missing: " in preflight[0]
    code, _, err = run(capsys, "convert", str(log), "--to", "openai-chat")
    assert code == 0 and "preflight:" not in err


def test_convert_to_mistral_writes_ids_mistral_accepts(capsys):
    """Issue 7: `convert --to mistral` failed its own pre-flight (TD801) on the ids it wrote."""
    from tests.paths import SAMPLES
    sample = SAMPLES / "anthropic" / "parallel-calls.jsonl"
    code, out, err = run(capsys, "convert", str(sample), "--to", "mistral")
    assert code == 0 and "preflight:" not in err
    body = json.loads(out)
    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or ()]
    answers = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert calls and all(re.fullmatch(r"[a-zA-Z0-9]{9}", i) for i in calls)
    assert sorted(answers) == sorted(calls)  # each result carries its call's new id
    losses = [line for line in err.splitlines() if line.startswith("loss: ") and "call id 'toolu_" in line]
    assert len(losses) == len(calls)
    assert all("does not fit mistral (letters and digits, exactly 9 characters); wrote '" in line
               for line in losses)


def test_convert_to_gemini_fits_a_long_tool_name_and_says_so(tmp_path, capsys):
    """Issue 7: a 100-character tool name was written as is, then the pre-flight rejected it (TD806)."""
    long_name = "mcp__" + "x" * 95
    log = tmp_path / "long.json"
    call = {"id": "call_1", "type": "function", "function": {"name": long_name, "arguments": "{}"}}
    log.write_text(json.dumps({"model": "gpt-4.1", "messages": [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "done"}],
        "tools": [{"type": "function", "function": {"name": long_name, "parameters": {"type": "object"}}}]}))
    code, out, err = run(capsys, "convert", str(log), "--to", "gemini")
    assert code == 0 and "preflight:" not in err and "TD806" not in err
    body = json.loads(out)
    [declared] = body["tools"][0]["functionDeclarations"]
    called = body["contents"][1]["parts"][0]["functionCall"]["name"]
    answered = body["contents"][2]["parts"][0]["functionResponse"]["name"]
    assert declared["name"] == called == answered == long_name[:64]
    losses = [line for line in err.splitlines()
              if line.startswith("loss: c1 ") and f"tool name {long_name!r} does not fit gemini" in line]
    assert sorted(line.split(":")[1].strip() for line in losses) == [  # declared, called, answered
        "c1 conversation", "c1 turn 1 part 0", "c1 turn 2 part 0"]
    assert all(line.endswith(f"wrote {long_name[:64]!r}") for line in losses)


# ------------------------------------------------------------------- TD901 provider-rejected

REJECTED = {"request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "body": {
    "model": "claude-sonnet-4-5", "max_tokens": 512, "thinking": {"type": "enabled", "budget_tokens": 1024},
    "messages": [{"role": "user", "content": "Weather in Oslo?"}]}},
    "response": {"status": 400, "body": {"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. "
                   "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
                   "(preceeding the lastmost set of `tool_use` and `tool_result` blocks)."}}}}
REJECTED_MESSAGE = ("the provider rejected the request (HTTP 400 invalid_request_error): “messages.1.content.0.type: "
                    "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, "
                    "a final `assistant` message must start with a thinking block (preceeding the lastmost set of "
                    "`tool_use` and `tool_result` blocks).” — no rule explains it on this request: its words "
                    "point to TD307, TD805, none of which found it here (TD805 runs with --target anthropic)")


@pytest.fixture
def rejected(tmp_path):
    """A log holding nothing wrong but the provider's 400: before TD901, `check` said "no findings"."""
    path = tmp_path / "rejected.jsonl"
    path.write_text(json.dumps(REJECTED) + "\n")
    return path


def test_a_log_holding_only_a_rejection_fails_check(rejected, capsys):
    code, out, _ = run(capsys, "check", str(rejected))
    assert code == 1
    assert f"TD901 error provider-rejected: {REJECTED_MESSAGE}" in out
    assert "at exchange 0 /response/body#/error" in out and '"type": "invalid_request_error"' in out
    assert out.rstrip().endswith("1 error, 0 warnings, 0 info")
    assert run(capsys, "check", str(rejected), "--ignore", "TD901")[0] == 0


def test_github_annotations_mask_a_key_before_they_escape_percent_signs(tmp_path, capsys):
    """GitHub reads `%` as `%25`: escaped first, a key after a URL's `%22` followed `%2522` and no
    longer started a word, so it printed whole (found by the secrets property)."""
    key = "AIzaQunzReZM3b4q0BJAgsKgI750zuMXr2PTKe0"
    body = {"model": "gpt-4o", "messages": [{"role": f"https://x.example/a?trace=%22{key}", "content": "hi"}]}
    path = tmp_path / "role.json"
    path.write_text(json.dumps(body))
    _, out, err = run(capsys, "check", str(path), "--format", "github")
    assert "trace=%2522AIza•••" in out + err and key[4:12] not in out + err


def test_a_rejection_in_the_json_document_and_the_github_annotations(rejected, capsys):
    code, out, _ = run(capsys, "check", str(rejected), "--format", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["findings"] == [{"code": "TD901", "name": "provider-rejected", "severity": "error",
                                "message": REJECTED_MESSAGE, "path": str(rejected), "exchange": 0,
                                "conversation": "c1", "turn": None, "part": None,
                                "pointer": "/response/body#/error", "chunk": None, "evidence": "rejected"}]
    assert doc["summary"] == {"error": 1, "warning": 0, "info": 0}
    code, out, _ = run(capsys, "check", str(rejected), "--format", "github")
    assert code == 1
    assert out.strip() == (f"::error file={rejected},title=TD901 provider-rejected::{REJECTED_MESSAGE} "
                           "at /response/body#/error")


def test_rules_explains_td901_with_a_bad_and_a_good_exchange(capsys):
    code, out, _ = run(capsys, "rules", "TD901")
    assert code == 0
    assert out.splitlines()[0] == "TD901 provider-rejected  (error)"
    assert "Bad" in out and "Good" in out and '"status": 400' in out and '"status": 200' in out
    code, out, _ = run(capsys, "rules")
    assert any(line.startswith("TD901") for line in out.splitlines())


def test_the_report_is_the_same_whatever_the_hash_seed(tmp_path):
    """Findings that differ only in exchange, pointer or chunk (the same stream cut off in two
    exchanges) come out in one order: the sort key is every field, not the order a set of findings
    was iterated in (PYTHONHASHSEED 0, 1 and 3 gave three orders before)."""
    import os
    import subprocess
    import sys

    from tests import paths

    sample = paths.SAMPLES / "defects" / "TD504-anthropic-connection-drops-mid-tool-input.json"
    doc = json.loads(sample.read_text())
    doc["interactions"] = doc["interactions"] * 2
    log = tmp_path / "retried.json"
    log.write_text(json.dumps(doc))
    outputs = set()
    for seed in ("0", "1", "3"):
        done = subprocess.run([sys.executable, "-m", "tooldbg", "check", str(log), "--format", "json"],
                              capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 1, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1
    findings = json.loads(outputs.pop())["findings"]
    assert [(f["code"], f["exchange"], f["chunk"]) for f in findings] == \
        [("TD504", 0, 4), ("TD504", 1, 4), ("TD504", 0, 8), ("TD504", 1, 8)]
