"""`tooldbg diff A B` on the command line: the text report, the `check`-shaped JSON document with
sides, exit codes, and the output boundary (masking, escaping)."""

import json
import shutil

from tests.paths import SAMPLES
from tests.test_cli import run

PAIRS = SAMPLES / "defects"
TEXT_LOST = PAIRS / "TD703-relay-drops-text-beside-tool-calls"
TOOLS = PAIRS / "TD701-relay-drops-tools-on-the-way-upstream"
CLEAN = SAMPLES / "anthropic" / "parallel-calls.jsonl"


def test_the_text_report_names_code_side_and_both_places(capsys):
    code, out, err = run(capsys, "diff", str(TEXT_LOST / "client.jsonl"), str(TEXT_LOST / "upstream.jsonl"))
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"a  {TEXT_LOST / 'client.jsonl'}  ·  json  ·  openai-chat  ·  1 exchange")
    assert lines[1].startswith(f"b  {TEXT_LOST / 'upstream.jsonl'}  ·  json  ·  anthropic  ·  1 exchange")
    assert "paired: a c1 ↔ b c1   exchanges 0↔0" in lines
    assert "  a c1 turn 1 assistant  ↔  b c1 turn 1 assistant" in lines
    assert ("    TD703 error part-lost-in-translation on a: the assistant's text \"I'll check the road status and "
            "t…ast for Saturday.\" is in b's response but not in a's — error: lost or changed on the way") in lines
    assert "      a  exchange 0 /response/body#/choices/0/message" in lines
    assert "      b  exchange 0 /response/body#/content/0" in lines
    assert '           "text": "I\'ll check the road status and the Bergen forecast for Saturday."' in lines
    assert lines[-1] == "1 difference  ·  a: no findings  ·  b: no findings"


def test_json_is_the_check_document_with_sides(capsys):
    code, out, _ = run(capsys, "diff", str(TOOLS / "client.jsonl"), str(TOOLS / "upstream.jsonl"),
                       "--format", "json")
    doc = json.loads(out)
    assert code == 1
    assert list(doc)[:4] == ["tooldbg", "inputs", "findings", "summary"]
    assert [(i["side"], i["formats"]) for i in doc["inputs"]] == [("a", ["openai-chat"]), ("b", ["anthropic"])]
    assert [(f["code"], f["side"]) for f in doc["findings"]] == [("TD701", "b"), ("TD701", "b")]
    first = doc["findings"][0]
    assert first["path"] == first["b"]["path"] == str(TOOLS / "upstream.jsonl")
    assert first["a"] == {"path": str(TOOLS / "client.jsonl"), "exchange": 0, "conversation": "c1", "turn": None,
                          "part": None, "pointer": "/request/body#/tools/0/function", "chunk": None}
    assert doc["summary"] == {"error": 2, "warning": 0, "info": 0} and doc["differences"] == 2
    assert doc["pairs"] == [{"a": "c1", "b": "c1", "exchanges": [[0, 0]], "turns": [[0, 0], [1, 1]]}]
    assert doc["notes"] == [{"message": "model 'claude-sonnet-4-5' on a is 'claude-sonnet-4-5-20250929' on b",
                             "a": None, "b": None}]


def test_own_findings_carry_their_side(capsys):
    defect = SAMPLES / "defects" / "TD303-session-store-drops-is-error.jsonl"
    code, out, _ = run(capsys, "diff", str(defect), str(defect), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["differences"] == 0
    assert [(f["code"], f["side"]) for f in doc["findings"]] == [("TD303", "a"), ("TD303", "b")]
    a, b = doc["findings"]
    assert a["a"]["turn"] == a["turn"] and a["b"]["turn"] == a["turn"]  # the same turn on the other side
    assert b["b"]["pointer"] == b["pointer"]


def test_two_equal_logs_exit_0(capsys):
    code, out, _ = run(capsys, "diff", str(CLEAN), str(CLEAN))
    assert code == 0
    assert "no differences" in out.splitlines() and out.splitlines()[-1] == (
        "0 differences  ·  a: no findings  ·  b: no findings")


def test_standard_input_is_one_side(capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CLEAN.read_bytes())))
    code, out, _ = run(capsys, "diff", "-", str(CLEAN), "--format", "json")
    assert code == 0 and json.loads(out)["inputs"][0]["path"] == "<stdin>"
    code, _, err = run(capsys, "diff", "-", "-")
    assert code == 2 and err == "tooldbg: standard input (-) given more than once\n"


def test_unreadable_input_exits_2_after_the_report(tmp_path, capsys):
    code, out, err = run(capsys, "diff", str(CLEAN), str(tmp_path / "missing.jsonl"))
    assert code == 2
    assert "unreadable: " in out
    assert err == (f"tooldbg: 1 of 2 inputs unreadable or without an LLM exchange (1 error); first: "
                   f"{tmp_path / 'missing.jsonl'}: no such file or folder\n")


def test_a_folder_of_several_logs_is_a_usage_error(tmp_path, capsys):
    for name in ("one.jsonl", "two.jsonl"):
        shutil.copy(CLEAN, tmp_path / name)
    code, out, err = run(capsys, "diff", str(tmp_path), str(CLEAN))
    assert code == 2 and out == ""
    assert err.startswith(f"tooldbg: {tmp_path}: diff compares two logs, and this folder holds 2 (")


def test_check_cannot_select_the_diff_rules_and_rules_explains_them(capsys):
    code, _, err = run(capsys, "check", str(CLEAN), "--select", "TD7")
    assert code == 2 and err == "tooldbg: --select TD7: TD7xx rules compare two logs; run `tooldbg diff A B`\n"
    code, out, _ = run(capsys, "rules", "TD703")
    assert code == 0
    assert out.splitlines()[0] == "TD703 part-lost-in-translation  (error, from `tooldbg diff A B`)"
    assert "Bad" in out and "tool_result" in out
    code, out, _ = run(capsys, "rules")
    assert [line.split()[0] for line in out.splitlines() if line.startswith("TD7")] == \
        ["TD701", "TD702", "TD703", "TD704", "TD705"]


def test_log_text_is_masked_and_escaped(tmp_path, capsys):
    """A key and a terminal escape in the text that was lost: masked and escaped in the text report
    and in the JSON document (the message quotes the text escaped; the JSON strings keep no raw
    control character)."""
    key = "sk-ant-api03-" + "k" * 40
    for name in ("client.jsonl", "upstream.jsonl"):
        text = (TEXT_LOST / name).read_text()
        text = text.replace("I'll check the road status", f"I'll check \\u001b[2J {key} the road status")
        (tmp_path / name).write_text(text)
    code, out, _ = run(capsys, "diff", str(tmp_path / "client.jsonl"), str(tmp_path / "upstream.jsonl"))
    assert code == 1 and key not in out and "\x1b" not in out and "\\x1b[2J" in out
    code, out, _ = run(capsys, "diff", str(tmp_path / "client.jsonl"), str(tmp_path / "upstream.jsonl"),
                       "--format", "json")
    assert key not in out and "\x1b" not in out and "sk-a•••" in out
    code, out, _ = run(capsys, "diff", str(tmp_path / "client.jsonl"), str(tmp_path / "upstream.jsonl"),
                       "--no-redact")
    assert key in out and "\x1b" not in out


def test_the_readme_story_is_what_diff_prints(capsys, monkeypatch):
    """The README's `diff` example is the command's real output (remade by running it)."""
    from tests.paths import ROOT

    readme = (ROOT / "README.md").read_text()
    command = "$ tooldbg diff docs/examples/relay-drops-second-result/client.har " \
              "docs/examples/relay-drops-second-result/upstream.har\n"
    shown = readme.split(command, 1)[1].split("$ echo $?\n1\n", 1)[0]
    monkeypatch.chdir(ROOT)
    code, out, _ = run(capsys, *command[2:].split()[1:])
    assert code == 1 and out == shown
