"""Claude Code sessions: detected by content, every call, result and failure read, block-per-line
messages joined, branches and subagents as conversations of their own, API errors as rejections,
and what a session does not carry said, not flagged."""

import json

import pytest

from tests import paths
from tests.command import run
from tests.logs.helpers import codes, jsonl, shown_lines, tally
from tooldbg.jsonio import MAX_DEPTH
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Invocation, Reasoning, Result

SESSION = paths.SAMPLES / "claude-code" / "session.jsonl"
ENVELOPE = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": "s1", "version": "2.1.63"}


def record(kind, uuid, parent, content, **extra):
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": extra.pop("mid", f"msg_{uuid}"), "type": "message", "model": "claude-sonnet-4-5",
                   "stop_reason": None, **message}
    return {"parentUuid": parent, **ENVELOPE, "type": kind, "uuid": uuid, "timestamp": "2026-03-01T10:00:00Z",
            "message": message, **extra}


def call(cid, name="Bash"):
    return {"type": "tool_use", "id": cid, "name": name, "input": {"command": "ls"}}


def result(cid, text="ok", **flags):
    return {"type": "tool_result", "tool_use_id": cid, "content": text, **flags}


def test_the_sample_session_reads_every_call_result_and_failure():
    loaded = load_file(SESSION)
    assert loaded.errors == [] and loaded.container == "claude-code" and loaded.formats == ["anthropic"]
    assert tally(loaded) == (4, 4, 2)
    assert codes(loaded) == []
    [conv] = loaded.conversations
    assert conv.model == "claude-sonnet-4-5-20250929"
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool", "assistant", "tool", "assistant",
                                            "tool", "assistant"]


def test_a_message_logged_a_block_a_line_is_one_turn_each_part_pointing_at_its_line():
    [conv] = load_file(SESSION).conversations
    thinking, bash, read = conv.turns[3].parts
    assert isinstance(thinking, Reasoning) and thinking.signature
    assert [p.source.location for p in (thinking, bash, read)] == ["line 7", "line 8", "line 9"]
    assert [p.source.pointer for p in (thinking, bash, read)] == ["/message/content/0"] * 3
    # the two results of the parallel calls, logged a line each, are the one user message sent
    assert [(r.invocation_id, r.source.location) for r in conv.turns[4].parts] == [
        (bash.id, "line 10"), (read.id, "line 11")]


def test_the_json_report_says_what_the_session_lacks(capsys):
    code, out, _ = run(capsys, "check", str(SESSION), "--format", "json")
    entry = json.loads(out)["inputs"][0]
    assert code == 0 and entry["container"] == "claude-code" and entry["lacks"] == ["tools", "system"]


def test_rules_that_need_tool_declarations_are_not_run_on_a_session(tmp_path):
    """A call to a tool no request declared is TD207 in a wire capture; a session keeps no
    declarations, so the rule is not run on a guess."""
    capture = load_file(paths.SAMPLES / "defects" / "TD207-gpt-oss-calls-undeclared-tool.json")
    assert "TD207" in codes(capture)
    capture.lacks = ("tools",)
    assert "TD207" not in codes(capture)


def test_a_planted_orphan_result_is_found(tmp_path):
    path = jsonl(tmp_path / "s.jsonl", [
        record("user", "u1", None, "go"),
        record("assistant", "a1", "u1", [call("toolu_A1")]),
        record("user", "u2", "a1", [result("toolu_A1")]),
        record("user", "u3", "u2", [result("toolu_B2")]),  # answers no call of the session
    ])
    assert codes(load_file(path)) == ["TD101"]


def test_a_failure_said_only_by_tool_use_result_is_marked_and_says_so(tmp_path):
    path = jsonl(tmp_path / "s.jsonl", [
        record("user", "u1", None, "go"),
        record("assistant", "a1", "u1", [call("toolu_A1")]),
        record("user", "u2", "a1", [result("toolu_A1", "no such file")], toolUseResult="Error: no such file"),
    ])
    [conv] = load_file(path).conversations
    [res] = conv.turns[2].parts
    assert isinstance(res, Result) and res.is_error
    assert res.meta == {"claude-code": {"is_error_from": "toolUseResult"}}


def test_an_edited_prompt_branches_into_a_conversation_sharing_the_turns_before(tmp_path):
    path = jsonl(tmp_path / "s.jsonl", [
        record("user", "u1", None, "first task"),
        record("assistant", "a1", "u1", [{"type": "text", "text": "done"}]),
        record("user", "u2", "a1", "second task"),
        record("assistant", "a2", "u2", [{"type": "text", "text": "done too"}]),
        record("user", "u3", "a1", "second task, reworded"),  # rewound to a1 and edited
        record("assistant", "a3", "u3", [{"type": "text", "text": "done differently"}]),
    ])
    loaded = load_file(path)
    first, second = loaded.conversations
    assert len(first.turns) == len(second.turns) == 4
    assert first.turns[:2] == second.turns[:2] and first.turns[1] is second.turns[1]
    assert second.turns[2].parts[0].text == "second task, reworded"
    assert codes(loaded) == []


def test_a_sidechain_is_its_own_conversation_named_by_the_task_call(tmp_path):
    path = jsonl(tmp_path / "s.jsonl", [
        record("user", "u1", None, "research it"),
        record("assistant", "a1", "u1", [call("toolu_T1", "Task")]),
        {**record("user", "s1", None, "look up the API"), "isSidechain": True, "agentId": "ag7"},
        {**record("assistant", "s2", "s1", [{"type": "text", "text": "found it"}]), "isSidechain": True,
         "agentId": "ag7"},
        record("user", "u2", "a1", [result("toolu_T1", "found it")], toolUseResult={"agentId": "ag7"}),
    ])
    main, side = load_file(path).conversations
    assert [t.role for t in main.turns] == ["user", "assistant", "tool"]
    assert side.meta == {"claude-code": {"sidechain": True, "agentId": "ag7", "task": "toolu_T1"}}


def test_an_api_error_record_is_the_provider_rejecting_the_call(tmp_path):
    path = jsonl(tmp_path / "s.jsonl", [
        record("user", "u1", None, "go"),
        {**record("assistant", "a1", "u1", [{"type": "text", "text": "API Error: 529 Overloaded"}]),
         "isApiErrorMessage": True, "error": "overloaded", "apiErrorStatus": 529},
    ])
    loaded = load_file(path)
    [conv] = loaded.conversations
    assert [t.role for t in conv.turns] == ["user"]  # the synthetic message is no turn
    assert codes(loaded) == ["TD901"]


def test_bookkeeping_lines_are_no_turns_and_no_errors(tmp_path):
    path = jsonl(tmp_path / "s.jsonl", [
        {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}},
        record("user", "u1", None, "go"),
        {"parentUuid": "u1", **ENVELOPE, "type": "progress", "uuid": "p1", "data": {"type": "hook_progress"}},
        record("assistant", "a1", "p1", [{"type": "text", "text": "ok"}]),
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s1", "timestamp": "x"},
        {"type": "summary", "summary": "Did it", "leafUuid": "a1"},
    ])
    loaded = load_file(path)
    assert loaded.errors == [] and [t.role for t in loaded.conversations[0].turns] == ["user", "assistant"]


def test_a_session_can_be_named_on_the_command_line_and_exported_for_anthropic(capsys, tmp_path):
    body = tmp_path / "out.json"
    code, _, err = run(capsys, "fix", str(SESSION), "--to", "anthropic", "-o", str(body),
                       "--input-format", "claude-code")
    assert code == 0, err
    assert run(capsys, "check", str(body), "--target", "anthropic")[0] == 0
    sent = json.loads(body.read_text())["messages"]
    assert sum(b["type"] == "tool_use" for m in sent for b in m["content"] if isinstance(b, dict)) == 4


def test_a_bad_line_is_an_error_at_its_line_and_the_rest_is_read():
    lines = SESSION.read_bytes().splitlines(keepends=True)
    data = b"".join(lines[:3]) + b'{"type": "user", "message": \n' + b"".join(lines[3:])
    loaded = load_bytes("s.jsonl", data)
    assert [e.location for e in loaded.errors] == ["line 4"]
    assert sum(isinstance(p, Invocation) for c in loaded.conversations for t in c.turns for p in t.parts) == 4


@pytest.mark.parametrize("levels", [MAX_DEPTH - 4, MAX_DEPTH - 3])
def test_a_line_nested_past_the_limit_is_an_error_at_its_line(levels):
    """The record, its message, the content list and the block are four levels; `input` is the
    first of `levels` objects nested in one another."""
    lines = SESSION.read_bytes().splitlines(keepends=True)
    deep = record("assistant", "a9", "u-0001", [{**call("toolu_D"), "input": {}}])
    text = json.dumps(deep).replace('"input": {}', '"input": ' + '{"a": ' * levels + "1" + "}" * levels)
    loaded = load_bytes("s.jsonl", b"".join(lines[:3]) + text.encode() + b"\n" + b"".join(lines[3:]))
    if levels + 4 > MAX_DEPTH:
        [error] = loaded.errors
        assert error.location == "line 4/message/content/0/input" + "/a" * (MAX_DEPTH - 4)
    else:
        assert loaded.errors == []


def test_a_prompt_that_quotes_a_tool_result_is_not_a_replay_of_it(tmp_path):
    """A session logs each message once: the next prompt follows a result, it does not replay it,
    so a user quoting what a tool printed is no result turned into text (TD302)."""
    path = jsonl(tmp_path / "s.jsonl", [
        record("user", "u1", None, "run the tests"),
        record("assistant", "a1", "u1", [call("toolu_A1")]),
        record("user", "u2", "a1", [result("toolu_A1", "3 passed, 1 failed in 0.4s")]),
        record("assistant", "a2", "u2", [{"type": "text", "text": "One test fails."}]),
        record("user", "u3", "a2", "you said 3 passed, 1 failed in 0.4s: fix the failing one"),
        record("assistant", "a3", "u3", [{"type": "text", "text": "On it."}]),
    ])
    assert codes(load_file(path)) == []


def test_the_wire_view_shows_each_node_in_its_line():
    shown = shown_lines(load_file(SESSION), SESSION)
    assert len(shown) > 10 and all(ok for _, ok in shown)
