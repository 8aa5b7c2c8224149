"""`tooldbg fix` and exports that never blank recorded data (issue 8): what the user sees — the repair
lines, the values in the written body, the exit codes — and, for every defect sample and every wire
target, a result the target's pre-flight accepts or a refusal that says why not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests import paths
from tests.checks.test_reasoning_replay import THINKING, USE, anthropic_two
from tests.checks.test_replay import (
    A_ASK,
    A_OK,
    ANTHROPIC,
    CALLS,
    OPENAI,
    RESPONSES,
    RESULTS,
    TOOLS,
    anthropic_message,
    anthropic_request,
    chat_answer,
    chat_call,
    chat_completion,
    chat_loop,
    exchange,
    log,
)
from tests.command import run
from tests.fixing import fix, run_fix
from tooldbg import formats
from tooldbg.checks import RULES, export_rules, run_checks
from tooldbg.cli import bundled_samples
from tooldbg.cli.repairs import record_line
from tooldbg.convert import NotWritten, export
from tooldbg.formats.profiles import PROFILES
from tooldbg.guard import blanks
from tooldbg.jsonio import dumps, dumps_str
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Result, Text
from tooldbg.repair import fix_conversation, registry
from tooldbg.repair.base import Refusal, Repair
from tooldbg.repair.registry import BY_CODE, NO_REPAIR, REPAIRS
from tooldbg.repair.structure import NO_RESULT

DEFECTS = paths.SAMPLES / "defects"
TD201 = DEFECTS / "TD201-litellm-proxy-double-encodes-arguments.jsonl"
TD102 = DEFECTS / "TD102-failed-parallel-result-dropped.jsonl"
TD101 = DEFECTS / "TD101-history-trimmed-through-a-call.jsonl"
TD202 = DEFECTS / "TD202-write-file-arguments-cut-at-max-tokens.json"
ONCALL = bundled_samples()[0]  # the bundled TD303 sample
PARIS = {"city": "Paris", "unit": "celsius"}


def tool_uses(body):
    return [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_use"]


def tool_results(body):
    return [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_result"]


# -- the registry -----------------------------------------------------------------------------------

def test_every_rule_check_makes_has_a_repair_or_a_reason():
    codes = [c for c in RULES if not c.startswith("TD7")]  # TD7xx come from `diff`, not `check`
    assert [c for c in codes if c not in BY_CODE and c not in NO_REPAIR] == []
    assert set(BY_CODE) & set(NO_REPAIR) == set()
    assert all(reason.strip() for reason in NO_REPAIR.values())
    assert len({id(repair) for _, repair in REPAIRS}) == len(REPAIRS), "each repair registered once"


def test_repairs_are_pure():
    [loaded] = [load_file(TD201)]
    before = loaded.conversations[0]
    snapshot = repr(before)
    fixed = fix(loaded, before, target="anthropic")
    assert repr(loaded.conversations[0]) == snapshot and fixed.original is before
    assert fixed.conversation != before
    assert [type(r) for r in fixed.records] == [Repair]


# -- a repair that raises: one line for the user, a failing test in the suite ---------------------------

TD301 = DEFECTS / "TD301-tool-call-text-dropped-by-agent-framework.jsonl"


@pytest.fixture
def broken_td301(monkeypatch):
    """The TD301 repair raising, as a bug in it would on a user's log."""
    def broken(conv, log):
        raise TypeError("'NoneType' object is not iterable")

    table = tuple((codes, broken if codes == ("TD301",) else repair) for codes, repair in registry.REPAIRS)
    monkeypatch.setattr(registry, "REPAIRS", table)
    monkeypatch.delenv("TOOLDBG_DEBUG", raising=False)


def test_a_repair_that_raises_is_a_refusal_naming_it(capsys, broken_td301):
    code, out, err = run(capsys, "fix", str(TD301), "--dry-run")
    assert err == ""
    assert out.splitlines() == [
        "not repaired TD301 c1 conversation: the repair failed on this log and changed nothing: TypeError: "
        "'NoneType' object is not iterable (internal error in the TD301 repair, a bug in tooldbg)",
        "0 repairs, 1 not repaired; check on the result: 0 errors, 0 warnings, 0 info; nothing written "
        "(--dry-run)"]
    assert code == 0


def test_the_repair_tests_fail_when_a_repair_raises(capsys, broken_td301, monkeypatch):
    loaded = load_file(TD301)
    with pytest.raises(AssertionError, match="internal error in the TD301 repair"):
        fix(loaded, loaded.conversations[0])
    for argv in (["--dry-run"], ["--to", "anthropic", "--format", "json"], ["--to", "gemini"]):
        with pytest.raises(AssertionError, match="internal error in the TD301 repair"):
            run_fix(capsys, "fix", TD301, *argv)
    monkeypatch.setenv("TOOLDBG_DEBUG", "1")  # the debugging switch raises it, as for a rule
    with pytest.raises(TypeError):
        fix_conversation(loaded, loaded.conversations[0])


# -- TD201: the user story of the issue ---------------------------------------------------------------

def test_fix_decodes_double_encoded_arguments_for_anthropic(tmp_path, capsys):
    out = tmp_path / "fixed.json"
    code, stdout, err = run_fix(capsys, "fix", TD201, "--to", "anthropic", "-o", out)
    assert code == 0, stdout + err
    assert ('repair TD201 c1 turn 1 part 1: arguments of \'get_weather\' '
            '"{\\"city\\":\\"Paris\\",\\"unit\\":\\"celsius\\"}" (a JSON string) → '
            '{"city":"Paris","unit":"celsius"}') in stdout
    assert "0 errors" in stdout and f"wrote {out}" in stdout
    [use] = tool_uses(json.loads(out.read_text()))
    assert use["input"] == PARIS


def test_convert_stops_rather_than_write_empty_input(tmp_path, capsys):
    out = tmp_path / "out.json"
    code, stdout, err = run_fix(capsys, "convert", TD201, "--to", "anthropic", "-o", out)
    assert code == 1 and stdout == "" and not out.exists()
    assert "arguments of 'get_weather' are a JSON string holding an object; anthropic needs an object " \
           "and would get {}; repair TD201: decode them into the object" in err
    assert "run with --fix" in err
    for target in ("gemini", "bedrock"):
        code, stdout, err = run_fix(capsys, "convert", TD201, "--to", target)
        assert code == 1 and stdout == "" and "repair TD201" in err


def test_convert_fix_writes_the_recorded_arguments(tmp_path, capsys):
    code, stdout, err = run_fix(capsys, "convert", TD201, "--to", "anthropic", "--fix")
    assert code == 0, err
    assert "repair TD201 c1 turn 1 part 1:" in err
    [use] = tool_uses(json.loads(stdout))
    assert use["input"] == PARIS
    code, stdout, err = run_fix(capsys, "convert", TD201, "--to", "gemini", "--fix")
    calls = [p["functionCall"] for c in json.loads(stdout)["contents"] for p in c["parts"] if "functionCall" in p]
    assert code == 0 and calls[0]["args"] == PARIS


def test_openai_chat_keeps_the_defect_as_recorded_unless_fixed(capsys):
    code, stdout, err = run_fix(capsys, "convert", TD201, "--to", "openai-chat")
    assert code == 0
    assert "note: c1 turn 1 part 1: arguments of 'get_weather' are JSON-encoded twice, written as recorded; " \
           "--fix decodes them (TD201)" in err
    args = json.loads(stdout)["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(json.loads(args)) == PARIS  # double-encoded, as the log has it
    code, stdout, _ = run_fix(capsys, "convert", TD201, "--to", "openai-chat", "--fix")
    args = json.loads(stdout)["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert code == 0 and json.loads(args) == PARIS


# -- other repairs, as the user sees them -------------------------------------------------------------

def test_the_failure_flag_comes_back_from_the_request_that_recorded_it(tmp_path, capsys):
    out = tmp_path / "oncall.anthropic.json"
    code, stdout, _ = run_fix(capsys, "fix", ONCALL, "--to", "anthropic", "-o", out)
    assert code == 0
    assert re.search(r"repair TD303 c1 turn 2 part 1: result 'toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze' without "
                     r"is_error → is_error: true, as exchange 1's request recorded it", stdout)
    failed = [r for r in tool_results(json.loads(out.read_text())) if r.get("is_error")]
    assert [r["tool_use_id"] for r in failed] == ["toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze"]


def test_an_unanswered_call_is_closed_not_dropped(capsys):
    code, _, err = run_fix(capsys, "convert", TD102, "--to", "anthropic")
    assert code == 1
    assert "call 'get_weather'" in err and "would be left out of the anthropic request; repair TD102: " \
           "close it with an error result saying no result was recorded" in err
    code, stdout, err = run_fix(capsys, "convert", TD102, "--to", "anthropic", "--fix")
    assert code == 0 and "repair TD102 c1 turn 2 part 1: call 'get_weather'" in err
    body = json.loads(stdout)
    assert len(tool_uses(body)) == 2
    closing = next(r for r in tool_results(body) if r["tool_use_id"] == "toolu_01Fa3JyW6uGe1PqD5sKr0MtV")
    assert closing["is_error"] is True and closing["content"] == NO_RESULT


def test_orphans_are_taken_out_or_kept_as_text(capsys):
    code, stdout, err = run_fix(capsys, "fix", TD101, "--conversation", "c2", "--to", "openai-chat")
    assert code == 0, err
    assert "repair TD101 c2 turn 0 part 0: result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F'" in err
    assert "(taken out: it answers no call in this conversation; --keep-orphans keeps it as text)" in err
    messages = json.loads(stdout)["messages"]
    assert [m["role"] for m in messages][:2] == ["system", "assistant"]
    code, stdout, err = run_fix(capsys, "fix", TD101, "--conversation", "c2", "--to", "openai-chat", "--keep-orphans")
    messages = json.loads(stdout)["messages"]
    assert code == 0 and messages[1]["role"] == "user"
    assert messages[1]["content"].startswith("[tool result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F', whose call is not "
                                             "in this conversation]\n{\"city\":\"Oslo\"")


def test_canonical_output_and_its_check(tmp_path, capsys):
    out = tmp_path / "fixed.canonical.json"
    code, stdout, _ = run_fix(capsys, "fix", TD102, "-o", out)
    assert code == 0 and "check on the result: 0 errors, 0 warnings, 0 info" in stdout
    conv = load_file(out).conversations[0]
    closing = [p for t in conv.turns for p in t.parts if isinstance(p, Result) and p.is_error]
    assert [c.content for c in closing] == [(Text(text=NO_RESULT),)]


def test_a_pairing_that_needs_a_guess_is_refused_with_the_reason(tmp_path, capsys):
    body = {"contents": [
        {"role": "user", "parts": [{"text": "Weather in Oslo and in Bergen?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
                                    {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 4}}},
                                   {"functionResponse": {"name": "get_weather", "response": {"temp_c": 7}}}]},
        {"role": "model", "parts": [{"text": "4 and 7 degrees."}]},
        {"role": "user", "parts": [{"text": "Thanks"}]}]}
    log = tmp_path / "gemini.json"
    log.write_text(json.dumps(body))
    code, stdout, _ = run_fix(capsys, "fix", log, "--dry-run")
    assert code == 0  # TD107 is a warning
    assert "not repaired TD107 c1 turn 2 part 0: 2 'get_weather' calls without ids: nothing in the results " \
           "says which call each answers, so pairing them is a guess (two equally likely pairings); no ids " \
           "given" in stdout
    assert "remains TD107 warning" in stdout
    assert run_fix(capsys, "fix", log, "--dry-run", "--fail-on", "warning")[0] == 1


def test_a_call_id_reused_before_its_first_call_is_answered_is_refused(tmp_path, capsys):
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    calls = [{"id": "call_0", "type": "function", "function": {"name": "f", "arguments": json.dumps({"n": n})}}
             for n in (1, 2)]
    body = {"model": "m", "tools": tools, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_0", "content": "one"},
        {"role": "tool", "tool_call_id": "call_0", "content": "two"},
        {"role": "user", "content": "and?"}]}
    log = tmp_path / "chat.json"
    log.write_text(json.dumps(body))
    code, stdout, _ = run_fix(capsys, "fix", log, "--dry-run", "--format", "json")
    refused = [r for r in json.loads(stdout)["refusals"] if r["code"] == "TD104"]
    assert refused and "which results answer which call is a guess" in refused[0]["reason"]


SHARED_ID = {"model": "gpt-4.1", "tools": [{"type": "function", "function": {
    "name": "get_weather", "parameters": {"type": "object"}}}], "messages": [
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": c})}}
        for c in ("Oslo", "Bergen")]},
    {"role": "tool", "tool_call_id": "call_1", "content": "4C"},
    {"role": "user", "content": "And tomorrow?"}]}


def fixed_twice(capsys, log, out, target):
    """`fix` of a log, then of what it wrote: (the first report, the second's repairs, check of the
    output with the target's rules)."""
    code, stdout, _ = run_fix(capsys, "fix", log, "--to", target, "-o", out, "--format", "json", "--fail-on", "never")
    report = json.loads(stdout)
    if report["blocked"]:  # nothing written: a call the target would lose, with no repair made for it
        assert code == 1 and not out.exists()
        return report, [], set()
    assert code == 0, stdout
    rules_target = None if target == "canonical" else target
    remaining = {f.code for f in run_checks(load_file(out), export_rules(rules_target), rules_target)}
    _, stdout, _ = run_fix(capsys, "fix", out, "--to", target, "--dry-run", "--format", "json", "--fail-on", "never")
    return report, json.loads(stdout)["repairs"], remaining


@pytest.mark.parametrize("target", ["canonical", "openai-chat", "anthropic", "gemini"])
def test_a_call_sharing_its_id_with_another_is_not_said_to_be_answered(tmp_path, capsys, target):
    """Two calls under one id, one result: which call it answers is a guess (TD104 refused), so an
    error result for "the other" would answer the same call again once written. Before: fix listed a
    TD102 repair, check of its output still found TD102 (plus a TD105 the repair made), and a second
    fix repaired again."""
    log = tmp_path / "shared.json"
    log.write_text(json.dumps(SHARED_ID))
    report, again, remaining = fixed_twice(capsys, log, tmp_path / "fixed.json", target)
    assert [r["code"] for r in report["repairs"]] == [] and again == []
    [refused] = [r for r in report["refusals"] if r["code"] == "TD102"]
    assert "shares its id 'call_1' with another call (TD104)" in refused["reason"]
    assert "TD105" not in remaining


def test_a_call_left_unanswered_for_its_shared_id_is_named_where_it_is(tmp_path, capsys):
    """The refusal names the call's own part (after the text the message opens with), as check does.
    Before: it gave the call's rank among the turn's calls (part 0, the text)."""
    said = {**SHARED_ID, "messages": [{**m, "content": "Checking both."} if m.get("tool_calls") else m
                                      for m in SHARED_ID["messages"]]}
    log = tmp_path / "shared.json"
    log.write_text(json.dumps(said))
    code, stdout, _ = run_fix(capsys, "fix", log, "--dry-run", "--format", "json", "--fail-on", "never")
    report = json.loads(stdout)
    refused = [(r["turn"], r["part"]) for r in report["refusals"] if r["code"] == "TD102"]
    assert refused == [(f["turn"], f["part"]) for f in report["findings"] if f["code"] == "TD102"] == [(1, 1)]


def test_what_writing_shows_is_repaired_too_so_a_second_fix_repairs_nothing(tmp_path, capsys):
    """A Bedrock stream capture whose `messageStart` came twice: two responses, the first with no
    content. In Chat Completions that is an empty assistant message (TD404), which only the written
    body shows. Before: the first fix left it, a second one took it out (found by the fix property)."""
    from tests.fuzz.mutate import encode_frame, string_header

    def frame(name, payload):
        return encode_frame([string_header(":event-type", name), string_header(":message-type", "event"),
                             string_header(":content-type", "application/json")], json.dumps(payload).encode())

    call = {"toolUse": {"name": "get_weather", "toolUseId": "tooluse_1"}}
    stream = tmp_path / "stream.bin"
    stream.write_bytes(b"".join([
        frame("messageStart", {"role": "assistant"}), frame("messageStart", {"role": "assistant"}),
        frame("contentBlockStart", {"contentBlockIndex": 0, "start": call}),
        frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"city":"Paris"}'}}}),
        frame("contentBlockStop", {"contentBlockIndex": 0}), frame("messageStop", {"stopReason": "tool_use"})]))
    report, again, remaining = fixed_twice(capsys, stream, tmp_path / "fixed.json", "openai-chat")
    assert [(r["code"], r["before"]) for r in report["repairs"]] == [("TD404", "an empty assistant turn")]
    assert again == [] and "TD404" not in remaining


def _weather_call(call_id: str, city: str) -> dict:
    return {"type": "function_call", "call_id": call_id, "name": "get_weather",
            "arguments": json.dumps({"city": city})}


#: A Responses history: text after a call (legal in Responses, rejected by Anthropic), and a later
#: call the user moved on from without its result (TD803 for every target).
TEXT_AFTER_CALL = {"model": "gpt-4.1", "tools": [{"type": "function", "name": "get_weather",
                                                  "parameters": {"type": "object"}}], "input": [
    {"type": "message", "role": "user", "content": "Weather in Oslo?"},
    _weather_call("call_a", "Oslo"),
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
    {"type": "function_call_output", "call_id": "call_a", "output": "4C"},
    {"type": "message", "role": "user", "content": "And Bergen?"},
    _weather_call("call_b", "Bergen"),
    {"type": "message", "role": "user", "content": "Well?"}]}


@pytest.mark.parametrize(("target", "moved"), [("openai-responses", False), ("anthropic", True)])
def test_text_after_a_call_moves_only_for_a_target_that_rejects_it(tmp_path, capsys, target, moved):
    """Before: a TD803 found anywhere (here the unanswered call) made fix move every text after a
    call and list it as a TD803 repair, also where the target takes it; found by the fix property,
    where the Responses writer had merged a text after the calls and check of the output still found
    TD803 (the unanswered call's), against the repair fix claimed."""
    log = tmp_path / "responses.json"
    log.write_text(json.dumps(TEXT_AFTER_CALL))
    code, stdout, _ = run_fix(capsys, "fix", log, "--to", target, "--dry-run", "--format", "json")
    report = json.loads(stdout)
    assert code == 0 and report["findings"] == []
    text_moves = [(r["code"], r["turn"], r["part"]) for r in report["repairs"] if "before the calls" in r["after"]]
    assert text_moves == ([("TD803", 1, 1)] if moved else [])


def test_a_call_id_used_three_times_gets_a_new_id_each_time_it_is_reused(tmp_path, capsys):
    """call_w answered, reused by a call the user moved on from, and reused again after: each reuse
    gets an id of its own. Before: the third call was compared with the second (already renumbered,
    unanswered) and refused as a guess; a second fix then renumbered it (found by the fix property)."""
    body = {"model": "gpt-4.1", "tools": TEXT_AFTER_CALL["tools"], "input": [
        {"type": "message", "role": "user", "content": "Weather in Oslo?"},
        _weather_call("call_w", "Oslo"),
        {"type": "function_call_output", "call_id": "call_w", "output": "4C"},
        {"type": "message", "role": "user", "content": "Again?"},
        _weather_call("call_w", "Oslo"),
        {"type": "message", "role": "user", "content": "Once more?"},
        _weather_call("call_w", "Oslo"),
        {"type": "function_call_output", "call_id": "call_w", "output": "5C"},
        {"type": "message", "role": "user", "content": "Thanks"}]}
    log = tmp_path / "responses.json"
    log.write_text(json.dumps(body))
    report, again, remaining = fixed_twice(capsys, log, tmp_path / "fixed.json", "openai-responses")
    renumbered = [(r["code"], r["after"]) for r in report["repairs"] if r["code"] == "TD104"]
    assert renumbered == [("TD104", "'call_w_2'"), ("TD104", "'call_w_3' and its result")]
    assert [r for r in report["refusals"] if r["code"] == "TD104"] == []
    assert again == [] and "TD104" not in remaining


def test_json_output_is_the_check_document_plus_repairs(capsys):
    code, stdout, _ = run_fix(capsys, "fix", TD201, "--to", "anthropic", "--format", "json")
    doc = json.loads(stdout)
    assert code == 0
    assert {"tooldbg", "inputs", "findings", "summary", "repairs", "refusals", "target", "conversations",
            "blocked", "output", "body"} <= set(doc)
    assert doc["repairs"] == [{"code": "TD201", "conversation": "c1", "turn": 1, "part": 1,
                               "before": doc["repairs"][0]["before"],
                               "after": '{"city":"Paris","unit":"celsius"}'}]
    assert tool_uses(doc["body"])[0]["input"] == PARIS
    assert doc["summary"] == {"error": 0, "warning": 1, "info": 0}  # TD304: a judgement, not a record
    assert [f["code"] for f in doc["findings"]] == ["TD304"]


def test_blocked_writes_nothing_and_says_why(tmp_path, capsys):
    out = tmp_path / "out.json"
    code, stdout, _ = run_fix(capsys, "fix", TD202, "--to", "anthropic", "-o", out)
    assert code == 1 and not out.exists()
    assert "not repaired TD202 c1 turn 1 part 0: the arguments are not valid JSON; completing or correcting " \
           "them would be a guess" in stdout
    assert "not written: c1 turn 1 part 0: arguments of 'write_file' are not valid JSON" in stdout
    # the canonical form keeps the raw string: written, the finding stays
    code, stdout, _ = run_fix(capsys, "fix", TD202, "-o", out)
    assert code == 1 and out.exists() and "remains TD202 error" in stdout


def test_dry_run_only_skip_and_usage_errors(tmp_path, capsys):
    out = tmp_path / "out.json"
    code, stdout, _ = run_fix(capsys, "fix", TD201, "--to", "anthropic", "--dry-run", "-o", out)
    assert code == 0 and not out.exists() and "nothing written (--dry-run)" in stdout
    code, stdout, _ = run_fix(capsys, "fix", TD201, "--to", "anthropic", "--skip", "TD2", "--dry-run")
    assert code == 1 and "repair TD201 c1" not in stdout and "not written:" in stdout
    code, stdout, _ = run_fix(capsys, "fix", TD201, "--to", "anthropic", "--only", "double-encoded-arguments",
                          "--dry-run")
    assert code == 0 and "repair TD201" in stdout
    code, _, err = run_fix(capsys, "fix", TD201, "--only", "TD999")
    assert code == 2 and err.startswith("tooldbg: --only TD999: no rule has this code or prefix")
    code, _, err = run_fix(capsys, "fix", TD101, "--to", "anthropic")
    assert code == 2 and "pick it with --conversation" in err


def test_writing_is_safe(tmp_path, capsys):
    copy = tmp_path / "in.jsonl"
    copy.write_bytes(TD201.read_bytes())
    code, _, err = run_fix(capsys, "fix", copy, "-o", copy, "--force")
    assert code == 2 and copy.read_bytes() == TD201.read_bytes()
    out = tmp_path / "out.json"
    out.write_text("old")
    code, _, err = run_fix(capsys, "fix", TD201, "-o", out)
    assert code == 2 and out.read_text() == "old"
    assert run_fix(capsys, "fix", TD201, "-o", out, "--force")[0] == 0 and out.read_text() != "old"


# -- each repair on a log made for it: the records in full, and what the conversation holds after ----------

def repaired(data, target=None, conversation=-1, **options):
    """The records `fix` makes for a conversation of a log (the last: a changed replay may be stitched
    apart), as `fix` prints them, and the conversation repaired."""
    loaded = load_bytes("run.jsonl", data)
    assert loaded.errors == [], loaded.errors
    fixed = fix(loaded, loaded.conversations[conversation], target=target, **options)
    return [record_line(r) for r in fixed.records], fixed.conversation


def parts(conv, t):
    return [type(p).__name__ for p in conv.turns[t].parts]


def test_a_call_renumbered_without_its_result_gets_its_id_back_and_its_result():
    """The replay renumbered the call and left its result under the id the model returned: with the
    id back, the result answers the call again (it is not taken out as an orphan, the call not closed)."""
    returned = chat_call("call_Vd8Kp2Xn6Tq1", "get_weather", {"city": "Oslo"})
    ask = {"role": "user", "content": "Oslo?"}

    def body(messages):
        return {"model": "gpt-4.1", "messages": messages, "tools": TOOLS}

    data = log(exchange(OPENAI, body([ask]), chat_completion({"content": None, "tool_calls": [returned]})),
               exchange(OPENAI, body([ask, {"role": "assistant", "content": None, "tool_calls": [
                   chat_call("call_1", "get_weather", {"city": "Oslo"})]},
                   {"role": "tool", "tool_call_id": "call_Vd8Kp2Xn6Tq1", "content": "4"},
                   {"role": "user", "content": "And?"}]), chat_answer()))
    lines, conv = repaired(data)
    assert lines == ["repair TD106 c1 turn 1 part 0: call 'get_weather' id 'call_1' → 'call_Vd8Kp2Xn6Tq1' (and its "
                     "result), as exchange 0's response returned it"]
    [call], [result] = conv.turns[1].parts, conv.turns[2].parts
    assert (result.invocation_id, result.wire_id, call.wire_id) == (call.id, "call_Vd8Kp2Xn6Tq1", "call_Vd8Kp2Xn6Tq1")


def test_reasoning_a_target_requires_comes_back_from_the_response_that_made_the_call(capsys):
    """TD805, when TD307 (the same reasoning, lost on replay) is not repaired first: Gemini's thought
    signature goes right before its call, a Responses reasoning item first in the turn."""
    for sample, target in (("TD307-gemini-3-thought-signature-dropped-rejected.jsonl", "gemini"),
                           ("TD307-responses-reasoning-replayed-by-id-under-store-false-rejected.jsonl",
                            "openai-responses")):
        _, out, _ = run_fix(capsys, "fix", DEFECTS / sample, "--to", target, "--skip", "TD307", "--dry-run")
        assert out.splitlines()[0] == (f"repair TD805 c1 turn 1 part 0: (missing) → {target} signed reasoning "
                                       "from the response that made the call")
        assert f"check --target {target} on the result: 0 errors" in out


def test_a_replay_carrying_another_signature_is_refused():
    lines, _ = repaired(anthropic_two([{**THINKING, "signature": "EqQBCgIYAhIMotherSIG"}, USE]))
    assert lines == ["not repaired TD307 c1 turn 1 part 1: the replay carries reasoning with another signature "
                     "than exchange 0's response: which one the provider accepts is a guess"]


def test_reasoning_goes_back_before_the_text_that_followed_it():
    said = [{"type": "text", "text": "Checking Oslo."}, {"type": "text", "text": "One moment."}]
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    data = log(exchange(ANTHROPIC, anthropic_request([A_ASK], **thinking),
                        anthropic_message([THINKING, *said, USE])),
               exchange(ANTHROPIC, anthropic_request([A_ASK, {"role": "assistant", "content": [*said, USE]},
                                                      {"role": "user", "content": [A_OK]}], **thinking),
                        anthropic_message([{"type": "text", "text": "4 °C."}], "end_turn")))
    lines, conv = repaired(data)
    assert lines == ["repair TD307 c1 turn 1 part 0: (missing) → anthropic signed reasoning \"Oslo: one call to "
                     "get_weathe… from exchange 0's response"]
    assert parts(conv, 1) == ["Reasoning", "Text", "Text", "Invocation"]


def test_only_the_call_replayed_with_other_arguments_gets_them_back():
    oslo = chat_call("call_Q3zb", "get_weather", {"city": "Oslo", "unit": "celsius"})
    first = {"content": "I'll check both cities.", "tool_calls": [oslo, CALLS[1]]}
    replayed = {"role": "assistant", "content": "I'll check both cities.",
                "tool_calls": [chat_call("call_Q3zb", "get_weather", {"city": "Oslo"}), CALLS[1]]}
    lines, conv = repaired(chat_loop(replayed, first=first))
    assert lines == ["repair TD306 c1 turn 1 part 1: arguments of 'get_weather' {\"city\":\"Oslo\"} → "
                     "{\"city\":\"Oslo\",\"unit\":\"celsius\"}, as exchange 0's response returned them"]
    assert [c.arguments for c in conv.turns[1].invocations()] == [{"city": "Oslo", "unit": "celsius"},
                                                                  {"city": "Bergen"}]


def test_an_image_the_replay_dropped_from_a_user_turn_comes_back():
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg"}}
    question = {"type": "text", "text": "Where is this?"}
    answer = {"role": "user", "content": [{**A_OK, "tool_use_id": "toolu_01A"}]}
    data = log(exchange(ANTHROPIC, anthropic_request([{"role": "user", "content": [question, image]}]),
                        anthropic_message([USE])),
               exchange(ANTHROPIC, anthropic_request([{"role": "user", "content": [question]},
                                                      {"role": "assistant", "content": [USE]}, answer]),
                        anthropic_message([{"type": "text", "text": "Oslo."}], "end_turn")))
    lines, conv = repaired(data)
    assert lines == ["repair TD305 c2 turn 0 part 1: (missing) → image (image/png) from exchange 0's request"]
    assert parts(conv, 0) == ["Text", "Media"]


def one_request(*messages):
    """An Anthropic log of one exchange whose request holds `messages` after the question."""
    return log(exchange(ANTHROPIC, anthropic_request([A_ASK, *messages]),
                        anthropic_message([{"type": "text", "text": "4 and 7."}], "end_turn")))


def uses(*ids):
    return [{"type": "tool_use", "id": i, "name": "get_weather", "input": {"city": city}}
            for city, i in zip(("Oslo", "Bergen"), ids, strict=False)]


def results(*ids):
    return [{"type": "tool_result", "tool_use_id": i, "content": "4"} for i in ids]


def test_a_damaged_id_close_to_two_calls_is_refused_and_one_close_to_one_is_bound():
    two = ("toolu_01HqZ5fWm3TkXb8YcN2pLr7V", "toolu_01HqZ5fWm3TkXb8YcN2pLr7W")
    lines, _ = repaired(one_request({"role": "assistant", "content": uses(*two)},
                                    {"role": "user", "content": results("toolu_01HqZ5fWm3TkXb8YcN2pLr7")}))
    assert lines[0] == ("not repaired TD103 c1 turn 2 part 0: the id 'toolu_01HqZ5fWm3TkXb8YcN2pLr7' is close to "
                        "the ids of 2 unanswered calls: which one it answers is a guess")
    lines, conv = repaired(one_request({"role": "assistant", "content": uses(two[0], "toolu_01Zz9")},
                                       {"role": "user", "content": results("toolu_01Zz9", two[0].lower())}))
    assert lines == ["repair TD103 c1 turn 2 part 1: result id 'toolu_01hqz5fwm3tkxb8ycn2plr7v' (re-cased) → "
                     "'toolu_01HqZ5fWm3TkXb8YcN2pLr7V', the id of call i1 'get_weather' in turn 1"]
    bound = conv.turns[2].parts[1]
    assert (bound.invocation_id, bound.wire_id, bound.name) == ("i1", two[0], "get_weather")


def gemini_log(*contents):
    return dumps({"contents": list(contents)})


def weather(city):
    return {"functionCall": {"name": "get_weather", "args": {"city": city}}}


def reading(text, **extra):
    return {"functionResponse": {"name": "get_weather", "response": {"result": text}, **extra}}


def said(role, *parts):
    return {"role": role, "parts": list(parts)}


def two_rounds(first, second):
    """Two rounds of two same-name Gemini calls without ids, answered by `first` and `second`."""
    return gemini_log(
        said("user", {"text": "Oslo and Bergen?"}), said("model", weather("Oslo"), weather("Bergen")),
        said("user", *first), said("model", {"text": "4 and 7."}),
        said("user", {"text": "Tromsø and Bodø?"}), said("model", weather("Tromsø"), weather("Bodø")),
        said("user", *second), said("model", {"text": "2 and -3."}), said("user", {"text": "Thanks"}))


def test_same_name_calls_are_paired_group_by_group():
    """The first group's results say nothing of their cities (refused), the second's do (repaired)."""
    lines, _ = repaired(two_rounds([reading("4 C"), reading("7 C")], [reading("Bodø: 2 C"), reading("Tromsø: -3 C")]))
    assert lines == [
        "not repaired TD107 c1 turn 2 part 0: 2 'get_weather' calls without ids: nothing in the results says which "
        "call each answers, so pairing them is a guess (two equally likely pairings); no ids given",
        "repair TD107 c1 turn 6 part 1: result of 'get_weather' \"{\\\"result\\\":\\\"Tromsø: -3 C\\\"}\" paired by "
        "position with i4 get_weather → answers i3 (it names 'Tromsø'), moved to turn 6 part 0; call and result id "
        "'call_i3'",
        "repair TD107 c1 turn 6 part 0: result of 'get_weather' \"{\\\"result\\\":\\\"Bodø: 2 C\\\"}\" paired by "
        "position with i3 get_weather → answers i4 (it names 'Bodø'), moved to turn 6 part 1; call and result id "
        "'call_i4'"]


def test_ids_given_to_same_name_calls_are_new():
    time = {"functionCall": {"name": "get_time", "args": {}, "id": "call_i2"}}
    lines, conv = repaired(gemini_log(
        said("user", {"text": "Oslo and Bergen?"}), said("model", time, weather("Oslo"), weather("Bergen")),
        said("user", {"functionResponse": {"name": "get_time", "id": "call_i2", "response": {"result": "12:00"}}},
             reading("Bergen: 7 C"), reading("Oslo: 4 C")),
        said("model", {"text": "ok"}), said("user", {"text": "Thanks"})))
    assert [line.rsplit("; ", 1)[1] for line in lines] == ["call and result id 'call_i2_1'",
                                                           "call and result id 'call_i3'"]
    assert [p.wire_id for p in conv.turns[1].parts] == ["call_i2", "call_i2_1", "call_i3"]


def test_ids_are_fitted_to_a_profile_as_its_writer_fits_them(capsys):
    """Mistral takes 9-character ids: one Chat Completions takes (40 characters at most) still does not
    fit, a certain rejection (TD801)."""
    _, out, _ = run_fix(capsys, "fix", DEFECTS / "TD802-openai-chat-responses-item-ids-as-call-ids.jsonl",
                        "--to", "mistral", "--dry-run")
    assert out.startswith("repair TD801 c1 turn 1 part 0: call 'get_weather' id "
                          "'fc_68b5e2a1c3d48190a7f2e6b9d1c04a5b0e3f7c92d8a61b45' → '")
    assert "check --target mistral on the result: 0 errors" in out


def canonical_log(*turns):
    return dumps({"format": "tooldbg.canonical/1", "conversations": [{"id": "c1", "turns": list(turns)}]})


def turn(role, *parts):
    return {"role": role, "parts": list(parts)}


def text(words):
    return {"type": "text", "text": words}


def call(own, city, wire_id=None):
    return {"type": "invocation", "id": own, "name": "get_weather", "arguments": {"city": city},
            **({"wire_id": wire_id} if wire_id else {})}


def answer(own, words, wire_id=None):
    return {"type": "result", "invocation_id": own, "content": [text(words)], **({"wire_id": wire_id} if wire_id else {})}


def test_an_id_fitted_for_the_target_keeps_the_name_a_call_without_id_would_be_given():
    """`call.b` becomes `call_b` for Anthropic; the call with no id does not take that name first (the
    writer gives it its own, `toolu_b`), and a call whose id fits is left as it is."""
    lines, _ = repaired(canonical_log(
        turn("user", text("Oslo, Bergen and Bodø?")),
        turn("assistant", call("c", "Bodø", "call_c"), call("a", "Oslo", "call.b"), call("b", "Bergen")),
        turn("tool", answer("c", "2", "call_c"), answer("a", "4", "call.b"), answer("b", "7")),
        turn("user", text("Thanks"))), "anthropic")
    assert lines == ["repair TD801 c1 turn 1 part 1: call 'get_weather' id 'call.b' → 'call_b' and its result, as "
                     "anthropic accepts it"]


def test_results_are_put_in_call_order_around_what_else_the_tool_turn_holds():
    lines, conv = repaired(canonical_log(
        turn("user", text("Oslo and Bergen?")),
        turn("assistant", call("a", "Oslo", "call_a"), call("b", "Bergen", "call_b")),
        turn("tool", answer("b", "7", "call_b"), text("(both took 2 s)"), answer("a", "4", "call_a")),
        turn("user", text("Thanks"))))
    assert lines == ["repair TD401 c1 turn 2 part 2: result 'call_a' \"4\" → turn 2 part 0: call order of turn 1",
                     "repair TD401 c1 turn 2 part 0: result 'call_b' \"7\" → turn 2 part 2: call order of turn 1"]
    assert [getattr(p, "wire_id", p.type) for p in conv.turns[2].parts] == ["call_a", "text", "call_b"]


def test_text_after_a_call_moves_before_it_but_not_before_a_call_made_by_code():
    by_code = {"type": "tool_use", "id": "toolu_01P", "name": "get_weather", "input": {"city": "Oslo"},
               "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_01X"}}
    bergen = uses("toolu_01A", "toolu_01B")[1]
    lines, conv = repaired(one_request(
        {"role": "assistant", "content": [by_code, {"type": "text", "text": "Now Bergen."}, bergen,
                                          {"type": "text", "text": "Checking."}]},
        {"role": "user", "content": results("toolu_01P", "toolu_01B")}))
    assert lines == ["repair TD405 c1 turn 1 part 3: text \"Checking.\" after the call 'get_weather' → turn 1 "
                     "part 2, before the calls"]
    assert [getattr(p, "text", getattr(p, "wire_id", None)) for p in conv.turns[1].parts] == [
        "toolu_01P", "Now Bergen.", "Checking.", "toolu_01B"]


def test_an_orphan_kept_as_text_says_where_it_was(capsys):
    _, out, _ = run_fix(capsys, "fix", TD101, "--conversation", "c2", "--keep-orphans", "--dry-run")
    assert out.splitlines()[0] == (
        "repair TD101 c2 turn 0 part 0: result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F' \"{\\\"city\\\":\\\"Oslo\\\",\\\"temp_c\\\":4,"
        "\\\"conditions\\\":\\\"overcast\\… → user text \"[tool result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F', whose call i…")
    loaded = load_file(TD101)
    conv = loaded.conversations[1]
    turn = fix(loaded, conv, keep_orphans=True).conversation.turns[0]
    assert isinstance(turn.parts[0], Text) and turn.parts[0].source == conv.turns[0].parts[0].source
    assert turn.source == conv.turns[0].source


def test_every_result_answers_its_call_under_its_id_after_fix():
    """Ids are repaired for a call and its results together (TD103, TD104, TD106, TD108, TD801, TD802)."""
    for path in SAMPLES:
        loaded = load_file(path)
        for conv in loaded.conversations:
            for target in _targets(path):
                fixed = fix(loaded, conv, target=target).conversation
                calls = {p.id: p for t in fixed.turns for p in t.invocations()}
                for result in (p for t in fixed.turns for p in t.parts if isinstance(p, Result)):
                    if result.invocation_id in calls:
                        assert result.wire_id == calls[result.invocation_id].wire_id, (path.name, target, result)


def returned(k: str, city: str) -> dict:
    """A Responses `function_call` item for the weather in `city`, call `call_{k}`."""
    return {"id": f"fc_{k}", "type": "function_call", "call_id": f"call_{k}", "name": "get_weather",
            "arguments": dumps_str({"city": city})}


def output(k: str, words: str) -> dict:
    """The `function_call_output` answering `call_{k}`."""
    return {"type": "function_call_output", "call_id": f"call_{k}", "output": words}


def two_cities(inputs: list) -> dict:
    """A Responses request (store false) asking for two cities, then `inputs`."""
    return {"model": "gpt-5", "store": False, "input": [{"role": "user", "content": "Oslo, then Bergen."}, *inputs]}


def test_reasoning_comes_back_from_the_response_that_made_each_call():
    """Two rounds of one tool, each response with its own reasoning item; the history keeps neither
    (store is false): each call's turn gets the item of the response that returned it."""
    def item(k):
        return {"id": f"rs_{k}", "type": "reasoning", "summary": [], "encrypted_content": f"gAAAAB{k}"}

    def response(*items):
        return {"id": "resp_1", "object": "response", "status": "completed", "output": list(items)}

    oslo, bergen = [returned("A", "Oslo"), output("A", "4")], [returned("B", "Bergen"), output("B", "7")]
    data = log(exchange(RESPONSES, two_cities([]), response(item("A"), {**returned("A", "Oslo"), "status": "completed"})),
               exchange(RESPONSES, two_cities(oslo), response(item("B"), {**returned("B", "Bergen"), "status": "completed"})),
               exchange(RESPONSES, two_cities([*oslo, *bergen]), response()))
    lines, conv = repaired(data, "openai-responses", skip=("TD307",))
    assert lines == [f"repair TD805 c1 turn {t} part 0: (missing) → openai-responses signed reasoning from the "
                     "response that made the call" for t in (1, 3)]
    assert [conv.turns[t].parts[0].signature for t in (1, 3)] == ["gAAAABA", "gAAAABB"]


def test_the_id_a_response_returned_is_not_given_back_when_other_calls_hold_it():
    """The backend answered every call with `call_0`; the client renumbered the third call only."""
    oslo, bergen = chat_call("call_0", "get_weather", {"city": "Oslo"}), chat_call("call_0", "get_weather",
                                                                                    {"city": "Bergen"})
    ask = {"role": "user", "content": "Oslo, Bergen, then Tromsø."}
    first = [ask, {"role": "assistant", "content": None, "tool_calls": [oslo, bergen]},
             {"role": "tool", "tool_call_id": "call_0", "content": "4"},
             {"role": "tool", "tool_call_id": "call_0", "content": "7"}]

    def body(messages):
        return {"model": "gpt-4.1", "messages": messages, "tools": TOOLS}

    tromso = chat_call("call_0", "get_weather", {"city": "Tromsø"})
    data = log(exchange(OPENAI, body([ask]), chat_completion({"content": None, "tool_calls": [oslo, bergen]})),
               exchange(OPENAI, body(first), chat_completion({"content": None, "tool_calls": [tromso]})),
               exchange(OPENAI, body([*first, {"role": "assistant", "content": None, "tool_calls": [
                   {**tromso, "id": "call_5"}]}, {"role": "tool", "tool_call_id": "call_5", "content": "-3"}]),
                   chat_answer()))
    lines, _ = repaired(data)
    assert lines[0] == ("not repaired TD106 c1 turn 3 part 0: the id 'call_0' exchange 1's response returned is "
                        "used by another call or result here")


def test_only_the_arguments_a_replay_changed_come_back_not_those_it_encoded_twice():
    oslo = chat_call("call_Q3zb", "get_weather", {"city": "Oslo", "unit": "celsius"})
    first = {"content": "I'll check both cities.", "tool_calls": [oslo, CALLS[1]]}
    twice = {**CALLS[1], "function": {"name": "get_weather", "arguments": dumps_str(CALLS[1]["function"]["arguments"])}}
    replayed = {"role": "assistant", "content": "I'll check both cities.",
                "tool_calls": [chat_call("call_Q3zb", "get_weather", {"city": "Oslo"}), twice]}
    lines, _ = repaired(chat_loop(replayed, first=first))
    assert lines == ["repair TD306 c1 turn 1 part 1: arguments of 'get_weather' {\"city\":\"Oslo\"} → "
                     "{\"city\":\"Oslo\",\"unit\":\"celsius\"}, as exchange 0's response returned them",
                     "repair TD201 c1 turn 1 part 2: arguments of 'get_weather' \"{\\\"city\\\": \\\"Bergen\\\"}\" (a "
                     "JSON string) → {\"city\":\"Bergen\"}"]


def test_a_group_whose_result_names_several_calls_is_refused():
    lines, _ = repaired(two_rounds([reading("Bergen: 7 C"), reading("Oslo: 4 C")],
                                   [reading("Tromsø -3 C, Bodø 2 C"), reading("done")]))
    assert lines[2] == ("not repaired TD107 c1 turn 6 part 0: 2 'get_weather' calls without ids: a result names "
                        "arguments of several of these calls, so pairing them is a guess (two equally likely "
                        "pairings); no ids given")


def test_responses_announced_by_will_continue_are_kept_and_a_repeat_after_them_is_not():
    def build(words, **extra):
        return {"functionResponse": {"name": "watch_build", "id": "fc_1", "response": {"output": words}, **extra}}

    lines, conv = repaired(gemini_log(
        said("user", {"text": "Watch the build."}),
        said("model", {"functionCall": {"name": "watch_build", "id": "fc_1", "args": {"job": "web"}}}),
        said("user", build("running", willContinue=True), build("passed"), build("passed")),
        said("model", {"text": "Passed."}), said("user", {"text": "Thanks"})))
    assert lines == ["repair TD105 c1 turn 2 part 2: result 'fc_1' \"passed\" → (taken out: the call's first result, "
                     "turn 2 part 0, is kept)"]
    assert len(conv.turns[2].parts) == 2


def test_each_reused_id_is_judged_on_its_own():
    """Turn 3 reuses two ids: `call_1`, whose call is answered only after it (refused), and `call_0`,
    answered before (given an id of its own)."""
    lines, conv = repaired(canonical_log(
        turn("user", text("Go.")),
        turn("assistant", call("a", "Oslo", "call_0"), call("b", "Bergen", "call_1")),
        turn("tool", answer("a", "4", "call_0")),
        turn("assistant", call("c", "Tromsø", "call_1"), call("d", "Bodø", "call_0")),
        turn("tool", answer("b", "7", "call_1"), answer("c", "-3", "call_1"), answer("d", "2", "call_0")),
        turn("user", text("Thanks"))))
    assert lines[:2] == [
        "not repaired TD104 c1 turn 3 part 0: call b 'get_weather' with the same id 'call_1' is not answered before "
        "this call is made: which results answer which call is a guess",
        "repair TD104 c1 turn 3 part 1: call d 'get_weather' id 'call_0' (the id of call a in turn 1) → 'call_0_2' "
        "and its result"]


def test_an_id_reused_again_and_again_gets_a_new_id_each_time():
    lines, conv = repaired(canonical_log(
        turn("user", text("Go.")),
        turn("assistant", call("a", "Oslo", "call_0")), turn("tool", answer("a", "4", "call_0")),
        turn("assistant", call("b", "Bergen", "call_0")), turn("tool", answer("b", "7", "call_0")),
        turn("assistant", call("c", "Bodø", "call_0")), turn("tool", answer("c", "2", "call_0")),
        turn("user", text("Thanks"))))
    assert [line.rsplit(" → ", 1)[1] for line in lines] == ["'call_0_2' and its result", "'call_0_3' and its result"]
    assert [t.parts[0].wire_id for t in conv.turns[1:7]] == ["call_0", "call_0", "call_0_2", "call_0_2", "call_0_3",
                                                            "call_0_3"]


def test_arguments_sent_as_a_string_where_an_object_belongs_are_decoded():
    """Gemini `args` given as a JSON string: TD204's (no TD201 here), decoded into the object."""
    lines, conv = repaired(gemini_log(
        said("user", {"text": "Oslo?"}),
        said("model", {"functionCall": {"name": "get_weather", "args": dumps_str({"city": "Oslo"})}}),
        said("user", {"functionResponse": {"name": "get_weather", "response": {"temp_c": 4}}}),
        said("model", {"text": "4 C."}), said("user", {"text": "Thanks"})))
    assert lines == ["repair TD204 c1 turn 1 part 0: arguments of 'get_weather' \"{\\\"city\\\":\\\"Oslo\\\"}\" (a JSON "
                     "string) → {\"city\":\"Oslo\"}"]
    assert conv.turns[1].parts[0].arguments == {"city": "Oslo"}


def test_ids_made_for_same_name_calls_are_made_unique_among_themselves():
    """Call `a` cannot be `call_a` (another call has it): `call_a_1`, which then is not call `a_1`'s."""
    def weather(own, city):
        return {"type": "invocation", "id": own, "name": "get_weather", "arguments": {"city": city}}

    def reading(own, words):
        return {"type": "result", "invocation_id": own, "name": "get_weather", "content": [text(words)]}

    lines, _ = repaired(canonical_log(
        turn("user", text("Oslo and Bergen?")),
        turn("assistant", {"type": "invocation", "id": "t", "name": "get_time", "arguments": {}, "wire_id": "call_a"},
             weather("a", "Oslo"), weather("a_1", "Bergen")),
        turn("tool", {"type": "result", "invocation_id": "t", "wire_id": "call_a", "content": [text("12:00")]},
             reading("a", "Bergen: 7 C"), reading("a_1", "Oslo: 4 C")),
        turn("user", text("Thanks"))))
    assert [line.rsplit("; ", 1)[1] for line in lines] == ["call and result id 'call_a_1'",
                                                           "call and result id 'call_a_1_1'"]


def test_arguments_a_replay_garbled_come_back_and_say_what_they_were():
    first = {"content": "x", "tool_calls": [chat_call("call_Q3zb", "get_weather", {"city": "Oslo"}), CALLS[1]]}
    garbled = {"id": "call_Q3zb", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Osl'}}
    lines, _ = repaired(chat_loop({"role": "assistant", "content": "x", "tool_calls": [garbled, CALLS[1]]}, first=first))
    assert lines[0] == ("repair TD306 c1 turn 1 part 1: arguments of 'get_weather' \"{\\\"city\\\": \\\"Osl\" → "
                        "{\"city\":\"Oslo\"}, as exchange 0's response returned them")


def test_arguments_come_back_for_a_call_after_one_the_replay_dropped():
    bergen = chat_call("call_J7cV", "get_weather", {"city": "Bergen", "unit": "celsius"})
    first = {"content": "I'll check both cities.", "tool_calls": [CALLS[0], bergen]}
    lines, _ = repaired(chat_loop({"role": "assistant", "content": "I'll check both cities.", "tool_calls": [CALLS[1]]},
                                  follow=[RESULTS[1]], first=first))
    assert lines == ["repair TD306 c1 turn 1 part 1: arguments of 'get_weather' {\"city\":\"Bergen\"} → "
                     "{\"city\":\"Bergen\",\"unit\":\"celsius\"}, as exchange 0's response returned them"]


def test_reasoning_put_back_for_a_call_whose_arguments_came_back_too():
    """Store false: the replay dropped the reasoning item and an argument. TD307 puts the item back,
    TD306 the argument; the target's TD805 is then met."""
    item = {"id": "rs_A", "type": "reasoning", "summary": [], "encrypted_content": "gAAAABA"}

    def returned(arguments):
        return {"id": "fc_A", "type": "function_call", "call_id": "call_A", "name": "get_weather",
                "arguments": dumps_str(arguments)}

    def body(inputs):
        return {"model": "gpt-5", "store": False, "input": [{"role": "user", "content": "Oslo?"}, *inputs]}

    data = log(exchange(RESPONSES, body([]), {"id": "resp_1", "object": "response", "status": "completed", "output": [
        item, {**returned({"city": "Oslo", "unit": "celsius"}), "status": "completed"}]}),
        exchange(RESPONSES, body([returned({"city": "Oslo"}), {"type": "function_call_output", "call_id": "call_A",
                                                               "output": "4"}]),
                 {"id": "resp_2", "object": "response", "status": "completed", "output": []}))
    lines, conv = repaired(data, "openai-responses")
    assert lines == ["repair TD307 c1 turn 1 part 0: (missing) → openai-responses signed reasoning from exchange 0's "
                     "response",
                     "repair TD306 c1 turn 1 part 1: arguments of 'get_weather' {\"city\":\"Oslo\"} → "
                     "{\"city\":\"Oslo\",\"unit\":\"celsius\"}, as exchange 0's response returned them"]
    assert parts(conv, 1) == ["Reasoning", "Invocation"]


def test_text_after_a_call_moves_in_every_turn_that_has_it():
    lines, _ = repaired(canonical_log(
        turn("user", text("Hi.")), turn("assistant", text("Hello.")), turn("user", text("Oslo?")),
        turn("assistant", call("a", "Oslo", "toolu_a"), text("Checking.")), turn("tool", answer("a", "4", "toolu_a")),
        turn("user", text("Thanks"))), "anthropic")
    assert lines == ["repair TD803 c1 turn 3 part 1: text \"Checking.\" after the call 'get_weather' → turn 3 part 0, "
                     "before the calls"]


def test_the_repairs_after_one_that_raised_still_run(monkeypatch):
    def broken(conv, log):
        raise TypeError("'NoneType' object is not iterable")

    table = tuple((codes, broken if codes == ("TD401", "TD107") else repair) for codes, repair in registry.REPAIRS)
    monkeypatch.setattr(registry, "REPAIRS", table)
    monkeypatch.delenv("TOOLDBG_DEBUG", raising=False)
    loaded = load_bytes("c.json", canonical_log(
        turn("user", text("Oslo and Bergen?")), turn("assistant", call("a", "Oslo", "call_a"), call("b", "Bergen", "call_b")),
        turn("tool", answer("b", "7", "call_b"), answer("a", "4", "call_a")), turn("assistant"),
        turn("user", text("Thanks"))))
    fixed = fix_conversation(loaded, loaded.conversations[0])
    assert [record_line(r) for r in fixed.records] == [
        "not repaired TD401 c1 conversation: the repair failed on this log and changed nothing: TypeError: 'NoneType' "
        "object is not iterable (internal error in the TD401 repair, a bug in tooldbg)",
        "repair TD404 c1 turn 3: an empty assistant turn → (taken out)"]


def test_a_target_reasoning_refused_for_one_call_is_still_restored_for_the_next():
    """The first call's response is not in the log (refused); the second's is (its item restored)."""
    item = {"id": "rs_B", "type": "reasoning", "summary": [], "encrypted_content": "gAAAABB"}
    oslo = [returned("A", "Oslo"), output("A", "4")]
    data = log(exchange(RESPONSES, two_cities(oslo), {"id": "resp_1", "object": "response", "status": "completed",
                                                "output": [item, {**returned("B", "Bergen"), "status": "completed"}]}),
               exchange(RESPONSES, two_cities([*oslo, returned("B", "Bergen"), output("B", "7")]),
                        {"id": "resp_2", "object": "response", "status": "completed", "output": []}))
    lines, _ = repaired(data, "openai-responses", skip=("TD307",))
    assert lines[-2:] == [
        "not repaired TD805 c1 turn 1 part 0: the log holds no reasoning item for the turn calling 'get_weather' (the "
        "response that produced it is not recorded, or had none), and openai-responses rejects the turn without it",
        "repair TD805 c1 turn 3 part 0: (missing) → openai-responses signed reasoning from the response that made "
        "the call"]


def test_a_call_renamed_on_replay_keeps_its_arguments():
    first = {"content": "x", "tool_calls": [chat_call("call_Q3zb", "get_weather", {"city": "Oslo", "unit": "c"}),
                                            CALLS[1]]}
    lines, _ = repaired(chat_loop({"role": "assistant", "content": "x", "tool_calls": [
        chat_call("call_Q3zb", "weather", {"city": "Oslo"}), CALLS[1]]}, first=first))
    assert lines[0] == ("not repaired TD306 c1 turn 1 part 1: the replay calls 'weather' where exchange 0's response "
                        "called 'get_weather': whether the tool was renamed on purpose is a guess")


def test_a_second_damaged_id_close_to_an_answered_call_is_bound_to_the_other():
    two = ("toolu_01HqZ5fWm3TkXb8YcN2pLr7V", "toolu_01HqZ5fWm3TkXb8YcN2pLr7W")
    lines, _ = repaired(one_request({"role": "assistant", "content": uses(*two)},
                                    {"role": "user", "content": results(two[0].lower(), "toolu_01HqZ5fWm3TkXb8YcN2pLr7")}))
    assert [line.split(" → ")[1] for line in lines] == [
        "'toolu_01HqZ5fWm3TkXb8YcN2pLr7V', the id of call i1 'get_weather' in turn 1",
        "'toolu_01HqZ5fWm3TkXb8YcN2pLr7W', the id of call i2 'get_weather' in turn 1"]


def test_a_forced_tool_is_renamed_with_its_declaration():
    data = log(exchange(OPENAI, {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Issue 7?"}],
                                 "tools": [{"type": "function", "function": {"name": "github.get_issue",
                                                                             "parameters": {"type": "object"}}}],
                                 "tool_choice": {"type": "function", "function": {"name": "github.get_issue"}}},
                        chat_answer()))
    lines, conv = repaired(data, "anthropic")
    assert lines[0] == "repair TD806 c1 conversation: tool name 'github.get_issue' → 'github_get_issue', as anthropic " \
                       "accepts it"
    assert (conv.tools[0].name, conv.tool_choice.name) == ("github_get_issue", "github_get_issue")


def test_a_block_whose_meaning_is_unknown_is_refused():
    data = log(exchange(OPENAI, {"model": "gpt-4.1", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "sparkle", "level": 3}]}]}, chat_answer()))
    lines, _ = repaired(data)
    assert lines == ["not repaired TD404 c1 turn 0 part 1: a block of type 'sparkle' in a user message: what it means "
                     "is not known, so it is written as recorded"]


def test_an_empty_turn_is_taken_out_but_a_final_empty_assistant_turn_is_kept(tmp_path, capsys):
    """Anthropic takes an empty final assistant message (a prefill), not an empty user message."""
    log = tmp_path / "anthropic.json"
    log.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
        {"role": "user", "content": "Go."}, {"role": "user", "content": []}, {"role": "user", "content": "Again."},
        {"role": "assistant", "content": []}]}))
    _, stdout, _ = run_fix(capsys, "fix", log, "--to", "anthropic", "--format", "json", "--fail-on", "never")
    doc = json.loads(stdout)
    assert [(r["code"], r["turn"], r["before"]) for r in doc["repairs"]] == [("TD404", 1, "an empty user turn")]
    assert [(m["role"], m["content"]) for m in doc["body"]["messages"]][1:] == [
        ("user", [{"type": "text", "text": "Again."}]), ("assistant", [])]


def test_a_request_ending_on_an_empty_assistant_message_keeps_it_in_the_canonical_document(tmp_path, capsys):
    """A Chat Completions request sending an empty assistant message last: a target's request leaves
    it out, the canonical document keeps it (and says so), and check of that document, a history
    shown to no model, finds nothing. Before: check of the canonical output still found TD404 after
    fix had claimed another TD404 repair (found by the fix property, seed 5 #702)."""
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]},
                                             {"role": "user", "content": []},
                                             {"role": "assistant", "content": ""}]}
    log = tmp_path / "chat.json"
    log.write_text(json.dumps(body))
    report, again, remaining = fixed_twice(capsys, log, tmp_path / "fixed.json", "canonical")
    assert [(r["code"], r["turn"]) for r in report["repairs"]] == [("TD404", 1)]
    assert [(r["code"], r["turn"]) for r in report["refusals"]] == [("TD404", 2)]
    assert again == [] and remaining == set()
    assert [t["role"] for t in json.loads((tmp_path / "fixed.json").read_text())["conversations"][0]["turns"]] \
        == ["user", "assistant"]


def test_a_final_empty_assistant_turn_found_in_the_written_request_is_taken_out(tmp_path, capsys):
    """A Gemini model turn holding only a thought signature: Chat Completions cannot carry it, so the
    written request ends on an empty assistant message, which check finds (TD404). Before: fix kept
    it without a word after claiming another TD404 repair (found by the fix property)."""
    body = {"contents": [
        {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
        {"role": "model", "parts": [{"thoughtSignature": "CqIBAdHtim8xK2pQ7vRz4Lw9"}]},
        {"role": "function", "parts": [{"functionResponse": {"name": "get_weather", "response": {"temp_c": 9}}}]}]}
    log = tmp_path / "gemini.json"
    log.write_text(json.dumps(body))
    report, again, remaining = fixed_twice(capsys, log, tmp_path / "fixed.json", "openai-chat")
    assert ("TD404", 1, "an empty assistant turn") in [(r["code"], r["turn"], r["before"]) for r in report["repairs"]]
    assert again == [] and "TD404" not in remaining
    assert [m["role"] for m in json.loads((tmp_path / "fixed.json").read_text())["messages"]] == ["user"]


#: A Gemini request whose first content has no parts (an empty user turn), then the model's call.
OPENS_EMPTY = {"contents": [
    {"role": "user", "parts": []},
    {"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": "4C"}}}]}]}


@pytest.mark.parametrize("target", ["bedrock", "gemini"])
def test_an_empty_first_turn_is_refused_when_taking_it_out_opens_the_history_with_the_model(tmp_path, capsys,
                                                                                          target):
    """Bedrock wants a user message first, Gemini a user turn before a function call turn: taken out,
    the empty user turn leaves the history opening with the model's call, which the target rejects as
    well. Before: fix listed the TD404 repair and check --target of its output found TD404 there
    (found by the fix property)."""
    log = tmp_path / "log.json"
    log.write_text(json.dumps(OPENS_EMPTY))
    report, again, remaining = fixed_twice(capsys, log, tmp_path / "fixed.json", target)
    assert [r["code"] for r in report["repairs"]] == [] and again == []
    [refused] = [r for r in report["refusals"] if r["code"] == "TD404"]
    assert (refused["turn"], refused["reason"]) == (0, f"an empty user turn: taken out, it would leave the history "
                                                    f"opening with the model's turn, which {target} rejects; "
                                                    "repairing it would mean inventing a turn")


def test_an_empty_first_turn_is_taken_out_for_a_target_that_takes_the_model_first():
    lines, conv = repaired(json.dumps(OPENS_EMPTY).encode(), "anthropic")
    assert lines == ["repair TD404 c1 turn 0: an empty user turn → (taken out)"]
    assert [t.role for t in conv.turns] == ["assistant", "tool"]


def test_an_empty_turn_is_taken_out():
    lines, conv = repaired(canonical_log(turn("user", text("Go.")), turn("assistant"), turn("user", text("Again.")),
                                         turn("assistant", text("Done."))))
    assert lines == ["repair TD404 c1 turn 1: an empty assistant turn → (taken out)"]
    assert [t.role for t in conv.turns] == ["user", "user", "assistant"]


def test_a_foreign_block_is_read_for_what_it_means_whatever_its_tool_is_called():
    data = log(exchange(OPENAI, {"model": "gpt-4.1", "messages": [
        {"role": "user", "content": "Where is my order?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01A", "name": "forwarded unconverted; look up",
                                       "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "shipped"}]}]},
        chat_answer()))
    lines, _ = repaired(data)
    assert lines == [
        "repair TD404 c1 turn 1 part 0: a block of type 'tool_use' in an assistant message → written in the "
        "target's own shape (read as the call i1 forwarded unconverted; look up)",
        "repair TD404 c1 turn 2 part 0: a block of type 'tool_result' in a user message → written in the target's "
        "own shape (read as the result for i1 forwarded unconverted; look up)"]


SCREENSHOT = {"type": "media", "kind": "image", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg"}


def test_an_image_a_tool_result_cannot_carry_moves_after_every_result():
    """Chat Completions: the image goes into a user message after the last tool turn of the block."""
    lines, conv = repaired(canonical_log(
        turn("user", text("Screenshots?")), turn("assistant", call("a", "Oslo", "call_a"), call("b", "Bergen", "call_b")),
        turn("tool", {**answer("a", "shot", "call_a"), "content": [text("shot"), SCREENSHOT]}),
        turn("tool", answer("b", "7", "call_b")), turn("user", text("Thanks"))), "openai-chat")
    assert lines == ["repair TD804 c1 turn 2 part 0: result 'call_a' holding image → image moved to a user message "
                     "(turn 4) after the results"]
    assert conv.turns[2].parts[0].content == (Text(text="shot"), Text(text="(image sent in the next message)"))
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool", "tool", "user", "user"]
    assert [getattr(p, "text", p.type) for p in conv.turns[4].parts] == ["The image returned by the tool (call_a):",
                                                                         "media"]


def test_an_image_moves_right_after_a_result_a_user_turn_holds():
    lines, conv = repaired(canonical_log(
        turn("user", text("Screenshot?")), turn("assistant", call("a", "Oslo", "call_a")),
        turn("user", {**answer("a", "shot", "call_a"), "content": [text("shot"), SCREENSHOT]}, text("And?")),
        turn("assistant", text("Oslo."))), "openai-chat")
    assert lines == ["repair TD804 c1 turn 2 part 0: result 'call_a' holding image → image moved to a user message "
                     "(turn 3) after the results"]
    assert [t.role for t in conv.turns] == ["user", "assistant", "user", "user", "assistant"]


def test_an_image_is_found_after_an_earlier_repair_took_a_part_out_of_its_turn():
    """TD101 takes the orphan out first: the result with the image is then the first part, not the
    second where check found it."""
    lines, conv = repaired(canonical_log(
        turn("user", text("Screenshot?")), turn("assistant", call("a", "Oslo", "call_a")),
        turn("tool", {"type": "result", "wire_id": "call_zz", "content": [text("stale")]},
             {**answer("a", "shot", "call_a"), "content": [text("shot"), SCREENSHOT]}),
        turn("user", text("Thanks"))), "openai-chat")
    assert lines[1] == ("repair TD804 c1 turn 2 part 0: result 'call_a' holding image → image moved to a user message "
                        "(turn 3) after the results")


def test_media_of_several_kinds_move_together():
    audio = {"type": "media", "kind": "audio", "media_type": "audio/wav", "data": "UklGRiQAAABXQVZF"}
    lines, conv = repaired(canonical_log(
        turn("user", text("Screenshot and recording?")), turn("assistant", call("a", "Oslo", "call_a")),
        turn("tool", {**answer("a", "shot", "call_a"), "content": [text("shot"), SCREENSHOT, audio]}),
        turn("user", text("Thanks"))), "openai-chat")
    assert lines == ["repair TD804 c1 turn 2 part 0: result 'call_a' holding audio, image → audio, image moved to a "
                     "user message (turn 3) after the results"]
    assert conv.turns[2].parts[0].content[-1] == Text(text="(audio, image sent in the next message)")


def test_an_image_moved_from_a_result_without_id_names_its_call():
    lines, conv = repaired(canonical_log(
        turn("user", text("Screenshot?")), turn("assistant", call("a", "Oslo")),
        turn("tool", {"type": "result", "invocation_id": "a", "content": [text("shot"), SCREENSHOT]}),
        turn("user", text("Thanks"))), "openai-chat")
    assert lines == ["repair TD804 c1 turn 2 part 0: result for call a holding image → image moved to a user "
                     "message (turn 3) after the results"]
    assert conv.turns[3].parts[0] == Text(text="The image returned by the tool (its result):")


def test_a_call_with_long_arguments_is_named_by_their_first_sixty_characters(capsys):
    log_ = canonical_log(turn("user", text("Go.")), turn("assistant", {**call("a", "Oslo", "call_a"), "arguments": {
        "city": "Oslo", "note": "x" * 80}}), turn("user", text("Again.")))
    loaded = load_bytes("c.json", log_)
    conv = loaded.conversations[0]
    [blank] = blanks(conv, "anthropic", export([conv], "anthropic", allow_blanks=True).origins)
    assert str(blank) == ("turn 1 part 0: call 'get_weather' {\"city\":\"Oslo\",\"note\":\"" + "x" * 36 + "… would "
                          "be left out of the anthropic request; repair TD102: close it with an error result saying no "
                          "result was recorded")


def test_the_pre_flight_an_export_leaves_to_its_caller_still_finds_a_dropped_call():
    """`export(allow_blanks=True)` runs the pre-flight when `Export.blanks` is first read: a call the
    writer leaves out is listed then, as `export` without it refuses the body; nothing dropped, none."""
    unanswered = load_bytes("c.json", canonical_log(
        turn("user", text("Go.")), turn("assistant", call("a", "Oslo", "call_a")),
        turn("user", text("Again.")))).conversations[0]
    shown = export([unanswered], "anthropic", allow_blanks=True)
    assert "call_a" not in dumps_str(shown.body)  # the writer left the call out
    assert [b.code for b in shown.blanks] == ["TD102"]
    with pytest.raises(NotWritten) as refused:
        export([unanswered], "anthropic")
    assert [b.code for b in refused.value.blanks] == ["TD102"]
    answered = load_bytes("c.json", canonical_log(
        turn("user", text("Go.")), turn("assistant", call("a", "Oslo", "call_a")),
        turn("tool", {"type": "result", "invocation_id": "a", "content": [text("Sunny")]}))).conversations[0]
    assert export([answered], "anthropic").blanks == ()


def test_a_custom_tool_call_goes_to_a_target_without_freeform_tools_as_a_function_of_its_text(tmp_path, capsys):
    path = tmp_path / "custom.jsonl"
    path.write_bytes(log(exchange(OPENAI, {"model": "gpt-5", "messages": [
        {"role": "user", "content": "Count users."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "custom", "custom": {"name": "run_sql", "input": "SELECT count(*) FROM users"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "42"}],
        "tools": [{"type": "custom", "custom": {"name": "run_sql"}}]}, chat_answer())))
    code, out, err = run_fix(capsys, "convert", path, "--to", "anthropic")
    assert code == 0 and json.loads(out)["messages"][1]["content"][0]["input"] == {
        "input": "SELECT count(*) FROM users"}  # (formats.freeform: as Codex's JSON apply_patch)
    assert "loss: c1 turn 1 part 0: the freeform input of custom tool 'run_sql' is written as the argument " \
           "`input` of a function (the format has no freeform tools)" in err.splitlines()


def test_json_output_lists_each_refusal_in_full(capsys):
    code, stdout, _ = run_fix(capsys, "fix", TD202, "--format", "json")
    assert json.loads(stdout)["refusals"] == [{"code": "TD202", "conversation": "c1", "turn": 1, "part": 0,
                                              "reason": NO_REPAIR["TD202"]}]


# -- exports never blank recorded data: clean samples are untouched -------------------------------------

CLEAN = sorted(p for p in paths.SAMPLES.rglob("*") if p.is_file() and p.name != "README.md"
               and "defects" not in p.parts)


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.relative_to(paths.SAMPLES).as_posix())
def test_clean_samples_need_no_repair_and_convert_as_before(path):
    from tooldbg.convert import export
    from tooldbg.guard import blanks

    loaded = load_file(path)
    for conv in loaded.conversations:
        assert fix(loaded, conv).records == ()
        for target in formats.WIRE_FORMATS:
            assert blanks(conv, target, export([conv], target).origins) == [], target


# -- every defect sample, every wire target -------------------------------------------------------------

SAMPLES = sorted(p for p in DEFECTS.iterdir() if p.is_file() and p.name != "README.md")

#: (sample name prefix, target) that `fix` cannot make acceptable: each is refused with its reason.
CANNOT = {
    **{(name, target): "the arguments were cut or garbled" for name in (
        "TD202-write-file", "TD502-anthropic-relay", "TD502-litellm-summary", "TD504-anthropic-connection")
       for target in formats.WIRE_FORMATS},
    **{("TD206-units", target): "the arguments do not fit the schema" for target in formats.WIRE_FORMATS},
    **{(name, target): "the tool is not declared" for name in ("TD207-gpt-oss", "TD503-gemini-vertex")
       for target in formats.WIRE_FORMATS},
    ("TD101-history-trimmed#c2", "bedrock"): "without its orphan it opens with the model's turn",
    ("TD805-deepseek", "deepseek"): "the reasoning_content is not in the log",
    ("TD805-kimi", "kimi"): "the reasoning_content is not in the log",
    ("TD805-openai-responses", "openai-responses"): "the encrypted_content is not in the log",
}


def _targets(path: Path) -> list[str]:
    """The five wire formats, and the profile a TD8xx sample names."""
    code, rest = path.name.split("-", 1)
    named = next((t for t in PROFILES if rest.startswith(t + "-")), None) if code.startswith("TD8") else None
    return [*formats.WIRE_FORMATS, *([named] if named else [])]


CASES = [(path, cid, target) for path in SAMPLES
         for cid in [c.id for c in load_file(path).conversations] for target in _targets(path)]


@pytest.mark.parametrize(("path", "cid", "target"), CASES,
                         ids=[f"{p.name.split('-', 1)[0]}-{p.name.split('-', 2)[1]}#{c}>{t}" for p, c, t in CASES])
def test_fix_makes_every_defect_sample_acceptable_or_says_why(tmp_path, capsys, path, cid, target):
    out = tmp_path / "fixed.json"
    code, stdout, _ = run_fix(capsys, "fix", path, "--to", target, "--conversation", cid, "-o", out,
                          "--format", "json")
    doc = json.loads(stdout)
    assert code in (0, 1)
    refusals = doc["refusals"]
    assert all(r["reason"].strip() for r in refusals)
    if doc["blocked"]:
        accepted, errors = False, set()
        assert code == 1 and not out.exists()
        assert all("no safe repair" in line for line in doc["blocked"])
    else:
        # as `fix` checks what it wrote: a history, so not judged as a request ending on the model's turn
        findings = run_checks(load_file(out), export_rules(target), target)
        errors = {f.code for f in findings if f.severity == "error"}
        accepted = not errors
        assert code == (0 if accepted else 1)
        # the written body is the one the json document describes
        assert {f["code"] for f in doc["findings"] if f["severity"] == "error"} == errors
    if not accepted:
        assert refusals, "not accepted, and no reason given"
        assert errors <= {r["code"] for r in refusals}, "an error remains that no refusal explains"
    expected = next((why for (name, t), why in CANNOT.items() if t == target
                     and path.name.startswith(name.split("#")[0]) and name.split("#")[1:] in ([], [cid])), None)
    assert accepted == (expected is None), f"{path.name} {cid} → {target}: {refusals}"


def test_a_repaired_body_reads_back_as_its_target(capsys):
    code, stdout, _ = run_fix(capsys, "fix", TD102, "--to", "bedrock", "--format", "json")
    body = json.dumps(json.loads(stdout)["body"]).encode()
    loaded = load_bytes("<bedrock>", body, "bedrock")
    assert code == 0 and loaded.errors == []
    results = [p for t in loaded.conversations[0].turns for p in t.parts if isinstance(p, Result)]
    assert [r.is_error for r in results] == [False, True]


def test_refusal_and_repair_records_name_their_place():
    loaded = load_file(TD202)
    fixed = fix(loaded, loaded.conversations[0], target="anthropic")
    assert fixed.records == (Refusal("TD202", "c1", 1, 0, NO_REPAIR["TD202"]),)


def test_a_tool_name_of_any_length_is_quoted_cut_in_the_lines_convert_and_fix_print(tmp_path, capsys):
    """A 100,000-character tool name (found by the crash fuzzer, seed 9 input 9267): the blank guard's
    and the repairs' lines quote it as the rules' messages do — its ends and an ellipsis — so each
    stays one readable line (it was printed whole, a 100 kB error line)."""
    name = "x" * 100_000
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": '{"city'}}
    body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Paris?"},
                                             {"role": "assistant", "content": None, "tool_calls": [call]},
                                             {"role": "tool", "tool_call_id": "call_1", "content": "18 C"}]}
    log = tmp_path / "long-name.json"
    log.write_text(json.dumps(body))
    code, _, err = run(capsys, "convert", str(log), "--to", "bedrock", "-o", str(tmp_path / "out.json"))
    assert code == 1 and err.count("\n") >= 1
    assert all(len(line) < 1000 for line in err.splitlines()), [len(line) for line in err.splitlines()]
    assert "arguments of 'xxxxxxxxxx" in err and "x…x" in err
    code, out, err = run(capsys, "fix", str(log), "--to", "anthropic", "--dry-run")
    assert all(len(line) < 1000 for line in (out + err).splitlines())
