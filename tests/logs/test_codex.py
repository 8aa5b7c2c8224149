"""Codex rollouts, both layouts and compressed: every item read through the Responses reader, a
failure only where the output's own metadata says the command failed, and the source of that flag
named on the result."""

import json

import pytest

from tests import paths
from tests.command import run
from tests.logs.helpers import codes, jsonl, shown_lines, tally
from tooldbg.checks import run_checks
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Result
from tooldbg.records import compressed

ROLLOUT = paths.SAMPLES / "codex" / "rollout.jsonl"
BARE = paths.SAMPLES / "codex" / "rollout-bare-layout.jsonl"


def item(payload):
    return {"timestamp": "2026-03-01T10:00:00Z", "type": "response_item", "payload": payload}


def shell_call(cid):
    return item({"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": cid})


def output(cid, text):
    return item({"type": "function_call_output", "call_id": cid, "output": text})


def test_the_sample_rollout_reads_every_call_result_and_failure():
    loaded = load_file(ROLLOUT)
    assert loaded.errors == [] and loaded.container == "codex" and loaded.formats == ["openai-responses"]
    assert tally(loaded) == (3, 3, 1)
    assert codes(loaded) == []
    [conv] = loaded.conversations
    assert conv.model == "gpt-5-codex" and conv.system[0].text.startswith("You are Codex")
    assert loaded.lacks == ("tools",)


def test_the_bare_layout_reads_as_the_enveloped_one():
    loaded = load_file(BARE)
    assert loaded.errors == [] and loaded.container == "codex"
    assert tally(loaded) == (1, 1, 0)
    assert [t.role for t in loaded.conversations[0].turns] == ["user", "assistant", "tool", "assistant"]
    assert loaded.lacks == ("tools", "system")  # no instructions were logged


@pytest.mark.parametrize(("text", "failed", "field"), [
    ('{"output":"boom","metadata":{"exit_code":1,"duration_seconds":0.1}}', True, "output.metadata.exit_code"),
    ('{"output":"fine","metadata":{"exit_code":0,"duration_seconds":0.1}}', False, None),
    # a zero exit at the very end decides only where it is the output's own last word
    ('{"metadata":{"exit_code":3,"duration_seconds":1},"output":{"metadata":{"exit_code":0,"duration_seconds":1}}}',
     True, "output.metadata.exit_code"),
    ('{"metadata": {"exit_code": 2}, "output": "x", "metadata": {"exit_code": 0, "duration_seconds": 1.5e-3}}',
     False, None),
    ('{"output":"a\\", "metadata": {"exit_code": 0, "duration_seconds": 1}}', False, None),
    ("Exit code: 127\nWall time: 0 seconds\nOutput:\nsh: nope: not found", True, "output: Exit code"),
    ("Error: the word error in a plain output says nothing", False, None),
])
def test_a_result_fails_only_where_its_own_metadata_says_so(tmp_path, text, failed, field):
    path = jsonl(tmp_path / "r.jsonl", [
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        shell_call("call_1"), output("call_1", text)])
    [conv] = load_file(path).conversations
    [res] = conv.turns[-1].parts
    assert isinstance(res, Result) and res.is_error is failed
    assert res.meta.get("codex", {}).get("is_error_from") == field


def test_a_planted_unanswered_call_is_found(tmp_path):
    path = jsonl(tmp_path / "r.jsonl", [
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        shell_call("call_1"), shell_call("call_2"), output("call_2", "ok"),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]})])
    assert codes(load_file(path)) == ["TD102"]


def test_a_compressed_rollout_reads_as_the_plain_one():
    zstandard = pytest.importorskip("zstandard", reason="the zstd extra (tooldbg[zstd]) is not installed")
    packed = zstandard.ZstdCompressor().compress(ROLLOUT.read_bytes())
    loaded = load_bytes("rollout.jsonl.zst", packed)
    assert loaded.errors == [] and tally(loaded) == tally(load_file(ROLLOUT))


def test_without_a_zstd_decompressor_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setattr(compressed, "_zstd", lambda path, data: compressed._missing(path))
    loaded = load_bytes("rollout.jsonl.zst", compressed.ZSTD_MAGIC + b"\x00" * 16)
    [error] = loaded.errors
    assert "tooldbg[zstd]" in error.message and "3.14" in error.message


def test_a_rollout_exports_as_an_anthropic_request_that_passes_its_check(capsys, tmp_path):
    body = tmp_path / "out.json"
    assert run(capsys, "fix", str(ROLLOUT), "--to", "anthropic", "-o", str(body))[0] == 0
    assert run(capsys, "check", str(body), "--target", "anthropic")[0] == 0
    failed = [b for m in json.loads(body.read_text())["messages"] if isinstance(m["content"], list)
              for b in m["content"] if b.get("type") == "tool_result" and b.get("is_error")]
    assert len(failed) == 1


def test_the_wire_view_shows_each_node_in_its_line_the_instructions_too():
    loaded = load_file(ROLLOUT)
    shown = shown_lines(loaded, ROLLOUT)
    assert shown[0] == ("line 1", True)  # the system prompt, in the session_meta line
    assert len(shown) > 10 and all(ok for _, ok in shown)


def test_each_call_is_judged_by_its_own_line_not_the_first_of_its_answer(tmp_path):
    """Parallel calls are logged an item a line: the second call's arguments are its own line's,
    not those of the double-encoded call before it."""
    twice = json.dumps(json.dumps({"command": ["ls"]}))
    path = jsonl(tmp_path / "r.jsonl", [
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        item({"type": "function_call", "name": "shell", "arguments": twice, "call_id": "call_1"}),
        shell_call("call_2"), output("call_1", "ok"), output("call_2", "ok"),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]})])
    [finding] = run_checks(load_file(path))
    assert (finding.code, finding.pointer) == ("TD201", "line 2#/payload/arguments")
