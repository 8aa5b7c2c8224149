"""The command line: exit codes, one-line errors, no tracebacks, outputs a user pipes on."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooldbg.cli import bundled_sample, main
from tooldbg.model import CANONICAL_FORMAT

SAMPLES = Path(__file__).resolve().parents[1] / "sample_transcripts"


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capsys.readouterr()
    return exit_info.value.code or 0, out, err


def test_no_argument_shows_the_bundled_sample(capsys):
    code, out, err = run(capsys, "show", "--width", "160")
    assert code == 0, err
    assert "conversation c1" in out
    assert bundled_sample().name in out


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
    (b'{"hello": "world"}', "unknown format"),
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
