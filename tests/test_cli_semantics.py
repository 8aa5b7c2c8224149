"""What CI and a new user can rely on from the command line: exit 2 for unreadable input (after
the report), usage errors that list what is valid, conversation ids unique across files, unknown
commands named as such, whole lines when piped, and `-` for standard input."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import SAMPLES
from tests.test_cli import run

CLEAN = SAMPLES / "anthropic" / "parallel-calls.jsonl"
TD303 = SAMPLES / "defects" / "TD303-session-store-drops-is-error.jsonl"
ORPHAN = {"model": "gpt-4o-mini", "messages": [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "tool", "tool_call_id": "call_9", "content": "4°C"}]}


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("tooldbg: "), err
    assert "Traceback" not in err and "internal error" not in err, err
    return err.strip()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two logs, each with its own `c1` (one with an orphan result), and one file that is not an LLM
    log at all."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(CLEAN, logs / "clean.jsonl")
    (logs / "orphan.json").write_text(json.dumps(ORPHAN))
    return logs


# -- exit 2: unreadable input, or none of it an LLM exchange ------------------------------------

def test_a_file_with_no_llm_exchange_exits_2_after_the_report(tmp_path, capsys):
    not_llm = tmp_path / "config.json"
    not_llm.write_text('{"hello": "world"}')
    code, out, err = run(capsys, "check", str(not_llm))
    assert code == 2
    assert f"unreadable: {not_llm}" in out and "0 errors" in out  # the report was printed
    assert one_line(err) == (f"tooldbg: {not_llm}: no LLM exchange found (1 entry in no provider's "
                             "format; --input-format reads it as one)")


@pytest.mark.parametrize("content", ['{"format": "tooldbg.canonical/1", "conversations": []}',
                                     '{"log": {"version": "1.2", "entries": []}}'])
def test_a_readable_file_without_an_exchange_exits_2(tmp_path, capsys, content):
    empty = tmp_path / "empty.json"
    empty.write_text(content)
    code, out, err = run(capsys, "check", str(empty), "--format", "json")
    assert code == 2
    [entry] = json.loads(out)["inputs"]
    assert entry["errors"] == [{"location": "", "message": "no LLM exchange found"}]
    assert one_line(err) == f"tooldbg: {empty}: no LLM exchange found"


def test_one_unreadable_file_in_a_folder_exits_2_and_the_rest_is_still_checked(folder, capsys):
    (folder / "broken.json").write_text('{"messages": [')
    code, out, err = run(capsys, "check", str(folder), "--format", "json")
    assert code == 2  # not 1: the findings are reported, but the gate cannot vouch for broken.json
    doc = json.loads(out)
    assert [f["code"] for f in doc["findings"]] == ["TD101"]
    assert [bool(i["errors"]) for i in doc["inputs"]] == [True, False, False]
    assert one_line(err).startswith("tooldbg: 1 of 3 inputs unreadable or without an LLM exchange "
                                    f"(1 error); first: {folder / 'broken.json'}: invalid JSON")


def test_a_missing_file_among_others_is_reported_with_them(tmp_path, capsys):
    code, out, err = run(capsys, "check", str(CLEAN), str(tmp_path / "gone.json"), "--format", "github")
    assert code == 2
    assert f"::error file={tmp_path / 'gone.json'},title=unreadable input::" in out
    assert "no such file or folder" in one_line(err)


def test_github_and_text_formats_also_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for fmt in ("text", "github", "json"):
        assert run(capsys, "check", str(bad), "--format", fmt)[0] == 2


def test_show_prints_what_it_can_and_exits_2(folder, capsys):
    (folder / "broken.json").write_text("{")
    code, out, err = run(capsys, "show", str(folder))
    assert code == 2 and "Weather in Oslo?" in out and "broken.json" in one_line(err)


# -- usage errors that say what is valid ------------------------------------------------------

@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_an_unknown_rule_code_is_a_usage_error_listing_the_codes(capsys, option):
    code, out, err = run(capsys, "check", str(CLEAN), option, "TD1,XYZ")
    assert code == 2 and out == ""
    line = one_line(err)
    assert f"{option} XYZ: no rule has this code or prefix" in line
    assert "TD101-TD108" in line and "TD301-TD307" in line


def test_rule_codes_prefixes_and_names_select(tmp_path, capsys):
    orphan = tmp_path / "orphan.json"
    orphan.write_text(json.dumps(ORPHAN))
    assert run(capsys, "check", str(orphan), "--select", "orphan-result")[0] == 1
    assert run(capsys, "check", str(orphan), "--select", "td1")[0] == 1
    assert run(capsys, "check", str(orphan), "--ignore", "orphan-result,TD102")[0] == 0


def test_a_target_rule_without_a_target_is_a_usage_error(capsys):
    code, _, err = run(capsys, "check", str(CLEAN), "--select", "TD801")
    assert code == 2 and "--select TD801: target rules" in one_line(err) and "--target" in err
    assert run(capsys, "check", str(CLEAN), "--select", "TD801", "--target", "mistral")[0] == 1


@pytest.mark.parametrize("command", [["show"], ["convert", "--to", "canonical"]])
def test_an_unknown_conversation_is_a_usage_error_listing_the_ids(capsys, command):
    code, out, err = run(capsys, command[0], str(CLEAN), *command[1:], "--conversation", "c9")
    assert code == 2 and out == ""
    assert one_line(err) == "tooldbg: no conversation 'c9'; the conversations are: c1"


def test_click_usage_errors_are_one_line(capsys):
    code, _, err = run(capsys, "check", str(CLEAN), "--bogus")
    assert code == 2 and one_line(err) == ("tooldbg: no such option '--bogus'. Did you mean '--jobs'? "
                                           "(see `tooldbg check --help`)")
    code, _, err = run(capsys, "convert", str(CLEAN), "--to", "klingon")
    assert code == 2 and "invalid value for '--to': 'klingon' is not one of 'openai-chat'" in one_line(err)
    assert run(capsys, "--help")[0] == 0 and run(capsys, "--version")[0] == 0


# -- conversation ids across files: FILE#c1 ------------------------------------------------------

def test_a_folder_names_its_conversations_file_hash_id(folder, capsys):
    code, out, err = run(capsys, "convert", str(folder), "--to", "canonical")
    assert code == 0, err
    ids = [c["id"] for c in json.loads(out)["conversations"]]
    assert ids == [f"{folder / 'clean.jsonl'}#c1", f"{folder / 'orphan.json'}#c1"]
    code, out, _ = run(capsys, "show", str(folder))
    assert f"conversation {folder / 'clean.jsonl'}#c1" in out and f"conversation {folder / 'orphan.json'}#c1" in out


def test_a_bare_id_in_several_files_asks_which(folder, capsys):
    """Was an internal error listing `(c1, c1)`."""
    code, out, err = run(capsys, "convert", str(folder), "--to", "openai-chat", "--conversation", "c1")
    assert code == 2 and out == ""
    assert one_line(err) == (f"tooldbg: conversation 'c1' is in 2 files; say which: "
                             f"{folder / 'clean.jsonl'}#c1, {folder / 'orphan.json'}#c1")
    code, _, err = run(capsys, "convert", str(folder), "--to", "openai-chat")
    assert code == 2 and f"({folder / 'clean.jsonl'}#c1, {folder / 'orphan.json'}#c1)" in one_line(err)


@pytest.mark.parametrize("spelled", ["{folder}/orphan.json#c1", "orphan.json#c1", "logs/orphan.json#c1"])
def test_conversation_takes_the_file_qualified_id(folder, capsys, spelled):
    wanted = spelled.format(folder=folder)
    code, out, err = run(capsys, "convert", str(folder), "--to", "openai-chat", "--conversation", wanted,
                         "--format", "json", "--fix")  # its orphan result is taken out, not dropped unsaid
    assert code == 0, err
    doc = json.loads(out)
    assert doc["conversations"] == [f"{folder / 'orphan.json'}#c1"]
    assert doc["body"]["messages"][0]["content"] == "Weather in Oslo?"
    code, out, _ = run(capsys, "show", str(folder), "--conversation", wanted)
    assert code == 0 and "Weather in Oslo?" in out and "clean.jsonl" not in out


def test_a_partial_file_name_is_not_a_file(folder, capsys):
    code, _, err = run(capsys, "show", str(folder), "--conversation", "phan.json#c1")
    assert code == 2 and "no conversation 'phan.json#c1'" in one_line(err)


def test_one_file_keeps_bare_ids_and_accepts_the_qualified_one(capsys):
    code, out, _ = run(capsys, "convert", str(CLEAN), "--to", "openai-chat", "--format", "json",
                       "--conversation", f"{CLEAN.name}#c1")
    assert code == 0 and json.loads(out)["conversations"] == ["c1"]


# -- unknown commands ---------------------------------------------------------------------------

def test_an_unknown_command_is_named_as_one(capsys):
    code, out, err = run(capsys, "lint", "run.har")
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith("tooldbg: no such command 'lint' (commands: open, record, show, convert, check")
    code, _, err = run(capsys, "chek", "run.har")
    assert code == 2 and "no such command 'chek'; did you mean 'check'?" in one_line(err)


def test_a_word_that_is_a_path_still_opens_it(tmp_path, capsys, monkeypatch):
    import tooldbg.tui.app as tui_app

    opened: list[tuple[str, ...]] = []

    class App:
        def __init__(self, paths, _input_format, follow=False):
            opened.append(tuple(paths))

        def run(self):
            pass

    monkeypatch.setattr(tui_app, "make_app", App)
    monkeypatch.chdir(tmp_path)
    shutil.copy(CLEAN, tmp_path / "lint")
    assert run(capsys, "lint")[0] == 0 and opened == [("lint",)]
    code, _, err = run(capsys, "missing-log.jsonl")  # not shaped like a command: a missing file
    assert code == 2 and one_line(err) == "tooldbg: missing-log.jsonl: no such file or folder"


# -- piped output: whole lines -----------------------------------------------------------------

@pytest.fixture
def deep_defect(tmp_path: Path) -> Path:
    """The TD303 sample under a path longer than 80 columns."""
    deep = tmp_path / ("fixtures-recorded-from-the-on-call-agent-" * 2) / "replays"
    deep.mkdir(parents=True)
    target = deep / TD303.name
    shutil.copy(TD303, target)
    assert len(str(target)) > 120
    return target


def assert_whole_lines(out: str) -> None:
    assert all(line == line.rstrip() for line in out.splitlines()), "a line ends in padding"


def test_piped_check_prints_whole_lines(deep_defect, capsys):
    code, out, _ = run(capsys, "check", str(deep_defect))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == str(deep_defect)  # the path on one line, not split at column 80
    assert ("    TD303 error lost-is-error: result 'toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze' had is_error: true "
            "in exchange 1's request; its replay in exchange 2 is no longer marked as a failure — error: the data "
            "received is damaged, whatever the provider answered") in lines
    assert ('        "content": "Error: monitoring API returned 503 for fraud-scoring (no data for '
            'the last 12 minutes)"') in lines
    assert_whole_lines(out)


def test_piped_rules_print_one_line_per_rule_and_paragraph(capsys):
    from tooldbg.checks import RULES

    code, out, _ = run(capsys, "rules")
    assert code == 0 and len(out.splitlines()) == len(RULES)
    code, out, _ = run(capsys, "rules", "TD303")
    assert code == 0
    assert any(line.startswith("Anthropic's `is_error: true`") and line.endswith("is reported.")
               for line in out.splitlines())
    assert_whole_lines(out)


def test_piped_show_keeps_paths_whole_and_lays_out_in_width(deep_defect, capsys):
    code, out, _ = run(capsys, "show", str(deep_defect), "--width", "100")
    assert code == 0
    lines = out.splitlines()
    assert str(deep_defect) in lines[0] and "…" not in lines[0]
    assert "conversation c1  model claude-sonnet-4-5-20250929" in out
    assert any(len(line) > 100 for line in lines)  # headers are whole…
    assert all(len(line) <= 100 for line in lines if "╭" in line or "│" in line)  # …tables are laid out
    assert_whole_lines(out)


def test_piped_output_of_a_real_process(deep_defect):
    done = subprocess.run([sys.executable, "-m", "tooldbg", "check", str(deep_defect)],
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": ""})
    assert done.returncode == 1 and done.stdout.splitlines()[0] == str(deep_defect)
    assert not re.search(r"\x1b\[", done.stdout)  # no colour codes into a pipe


# -- standard input -----------------------------------------------------------------------------

def stdin_run(*argv: str, data: bytes) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tooldbg", *argv], input=data.decode(),
                          capture_output=True, text=True)


def test_check_reads_standard_input():
    done = stdin_run("check", "-", "--format", "json", data=TD303.read_bytes())
    assert done.returncode == 1, done.stderr
    doc = json.loads(done.stdout)
    assert doc["inputs"][0]["path"] == "<stdin>" and [f["code"] for f in doc["findings"]] == ["TD303"]
    assert doc["findings"][0]["path"] == "<stdin>"


def test_show_and_convert_read_standard_input():
    done = stdin_run("show", "-", data=CLEAN.read_bytes())
    assert done.returncode == 0 and "<stdin>" in done.stdout and "Oslo" in done.stdout
    done = stdin_run("convert", "-", "--to", "gemini", data=CLEAN.read_bytes())
    assert done.returncode == 0 and json.loads(done.stdout)["contents"]


def test_unreadable_standard_input_is_named(tmp_path):
    done = stdin_run("check", "-", data=b"{")
    assert done.returncode == 2 and one_line(done.stderr).startswith("tooldbg: <stdin>: invalid JSON")
    done = stdin_run("check", "-", "-", data=b"{}")
    assert done.returncode == 2 and "standard input (-) given more than once" in one_line(done.stderr)
