"""The command line: exit codes, one-line errors, no tracebacks, outputs a user pipes on."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.command import run
from tooldbg.cli import bundled_sample, bundled_samples
from tooldbg.model import CANONICAL_FORMAT

SAMPLES = Path(__file__).resolve().parents[1] / "sample_transcripts"



def test_no_argument_shows_the_bundled_samples(capsys):
    code, out, err = run(capsys, "show", "--width", "160")
    assert code == 0, err
    assert all(f"conversation {sample}#c1" in out for sample in bundled_samples())  # two files


def test_the_bundled_defect_sample_shows_its_defect(capsys):
    defect, clean = bundled_samples()
    code, out, _ = run(capsys, "check", str(defect), "--format", "json")
    assert code == 1 and [f["code"] for f in json.loads(out)["findings"]] == ["TD303"]
    assert run(capsys, "check", str(clean))[0] == 0


def test_convert_to_canonical_prints_the_document(capsys):
    code, out, err = run(capsys, "convert", str(bundled_sample()), "--to", "canonical")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["format"] == CANONICAL_FORMAT
    assert doc["conversations"][0]["turns"]


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"])
def test_convert_to_each_wire_format_reports_losses_on_stderr(capsys, target):
    code, out, err = run(capsys, "convert", str(bundled_sample()), "--to", target)
    assert code == 0, err
    body = json.loads(out)
    assert isinstance(body, dict) and body
    for line in err.splitlines():
        assert line.startswith("loss: c1 "), line


def test_convert_json_format_carries_losses(capsys):
    code, out, _ = run(capsys, "convert", str(bundled_sample()), "--to", "openai-chat", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["target"] == "openai-chat" and "body" in doc
    assert all(set(loss) == {"turn", "part", "message"} for loss in doc["losses"])


def test_convert_writes_a_file_and_refuses_to_overwrite(tmp_path, capsys):
    out_file = tmp_path / "out.json"
    assert run(capsys, "convert", str(bundled_sample()), "--to", "anthropic", "-o", str(out_file))[0] == 0
    assert json.loads(out_file.read_text())["messages"]
    code, _, err = run(capsys, "convert", str(bundled_sample()), "--to", "anthropic", "-o", str(out_file))
    assert code == 2 and "file exists" in err and len(err.strip().splitlines()) == 1
    assert run(capsys, "convert", str(bundled_sample()), "--to", "anthropic", "-o", str(out_file),
               "--force")[0] == 0


def test_convert_never_writes_over_its_input(tmp_path, capsys):
    copy = tmp_path / "in.jsonl"
    copy.write_bytes(bundled_sample().read_bytes())
    code, _, err = run(capsys, "convert", str(copy), "--to", "canonical", "-o", str(copy), "--force")
    assert code == 2 and "input" in err
    assert copy.read_bytes() == bundled_sample().read_bytes()


@pytest.mark.parametrize("content, needle", [
    (b"", "empty file"),
    (b'{"messages": [', "invalid JSON at line 1"),
    (b"\xff\xfe", "invalid UTF-8"),
    (b'{"hello": "world"}', "no LLM exchange found"),
])
def test_bad_input_is_one_line_naming_the_file_exit_2(tmp_path, capsys, content, needle):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    for argv in (["convert", str(bad), "--to", "canonical"], ["show", str(bad)]):
        code, out, err = run(capsys, *argv)
        assert code == 2
        assert err.count("\n") == 1 and str(bad) in err and needle in err, err
        assert "Traceback" not in err


def test_missing_file_and_bad_option_exit_2(capsys):
    assert run(capsys, "show", "/no/such/file.json")[0] == 2
    assert run(capsys, "convert", str(bundled_sample()), "--to", "klingon")[0] == 2


def test_formats_lists_every_format(capsys):
    code, out, _ = run(capsys, "formats")
    assert code == 0
    for name in ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "canonical", "har"):
        assert name in out


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "tooldbg", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "0.1.0" in out.stdout


def test_show_masks_api_keys_unless_asked(capsys):
    key = "sk-ant-test-not-a-real-key"
    assert key in bundled_sample().read_text()
    code, out, _ = run(capsys, "show", str(bundled_sample()), "--width", "200")
    assert code == 0 and key not in out and "Bearer sk-a•••" in out
    code, out, _ = run(capsys, "show", str(bundled_sample()), "--width", "200", "--no-redact")
    assert code == 0 and key in out


def test_a_rejected_request_is_shown_with_the_request_that_caused_it(tmp_path, capsys):
    request = {"model": "gpt-4o-mini", "messages": [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "tool", "tool_call_id": "call_missing", "content": "12C"}]}
    error = {"error": {"message": "Invalid parameter: messages with role 'tool' must be a response "
                                  "to a preceeding message with 'tool_calls'.",
                       "type": "invalid_request_error", "param": "messages.[1].role", "code": None}}
    log = tmp_path / "rejected.jsonl"
    log.write_text(json.dumps({"request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                                           "body": request},
                               "response": {"status": 400, "body": error}}) + "\n")
    code, out, err = run(capsys, "show", str(log), "--width", "200")
    assert code == 0, err
    assert "Weather in Oslo?" in out and "→ 400" in out
    assert ("exchange 0: TD901 provider-rejected: the provider rejected the request (HTTP 400 "
            "invalid_request_error): “Invalid parameter: messages with role 'tool' must be a response to a "
            "preceeding message with 'tool_calls'.” — see TD101") in out  # the rule that found it there


def test_a_folder_is_every_file_in_it(capsys):
    code, out, err = run(capsys, "show", str(SAMPLES / "anthropic"), "--width", "160")
    assert code == 0, err
    for name in ("parallel-calls.jsonl", "request.json", "response.json", "stream.sse"):
        assert name in out


def test_input_format_overrides_detection(tmp_path, capsys):
    body = tmp_path / "ambiguous.json"
    body.write_text(json.dumps({"max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}))
    code, out, _ = run(capsys, "convert", str(body), "--to", "canonical", "--input-format", "openai-chat")
    assert code == 0 and json.loads(out)["conversations"][0]["meta"] == {"openai-chat": {"max_tokens": 100}}


def test_log_text_cannot_drive_the_terminal(tmp_path, capsys):
    hostile = "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 [bold red]not markup[/] \x1b[2J"
    body = tmp_path / "hostile.json"
    body.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": hostile}]}))
    code, out, _ = run(capsys, "show", str(body), "--width", "200")
    assert code == 0
    assert "\x1b]8" not in out and "\x1b[2J" not in out and "\x07" not in out
    assert "\\x1b]8;;https://evil.example\\x07click" in out
    assert "[bold red]not markup[/]" in out


@pytest.mark.parametrize("columns", ["40", "300"])
def test_the_terminal_width_of_the_shell_does_not_reach_the_tests(columns, capsys, monkeypatch):
    """tests/conftest.py fixes 80 columns; a test that sets its own width gets it, and `show`'s
    side-by-side layout takes it (so the fixture is what keeps every other test at 80). Piped, only
    that layout has a width: a heading or a line of text is printed whole."""
    import os

    assert os.environ["COLUMNS"] == "80"
    path = SAMPLES / "openai-chat" / "parallel-calls.jsonl"
    _, at_80, _ = run(capsys, "show", str(path))
    monkeypatch.setenv("COLUMNS", columns)
    _, at_other, _ = run(capsys, "show", str(path))
    assert max(len(line) for line in at_80.splitlines() if "│" in line) <= 80
    assert at_other != at_80
