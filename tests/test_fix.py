"""`tooldbg fix` and exports that never blank recorded data (issue 8): what the user sees — the repair
lines, the values in the written body, the exit codes — and, for every defect sample and every wire
target, a result the target's pre-flight accepts or a refusal that says why not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests import paths
from tooldbg import formats
from tooldbg.checks import RULES, export_rules, run_checks
from tooldbg.cli import bundled_samples, main
from tooldbg.formats.profiles import PROFILES
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Result, Text
from tooldbg.repair import fix_conversation
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


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, err
    return exit_info.value.code or 0, out, err


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
    fixed = fix_conversation(loaded, before, target="anthropic")
    assert repr(loaded.conversations[0]) == snapshot and fixed.original is before
    assert fixed.conversation != before
    assert [type(r) for r in fixed.records] == [Repair]


# -- TD201: the user story of the issue ---------------------------------------------------------------

def test_fix_decodes_double_encoded_arguments_for_anthropic(tmp_path, capsys):
    out = tmp_path / "fixed.json"
    code, stdout, err = run(capsys, "fix", TD201, "--to", "anthropic", "-o", out)
    assert code == 0, stdout + err
    assert ('repair TD201 c1 turn 1 part 1: arguments of \'get_weather\' '
            '"{\\"city\\":\\"Paris\\",\\"unit\\":\\"celsius\\"}" (a JSON string) → '
            '{"city":"Paris","unit":"celsius"}') in stdout
    assert "0 errors" in stdout and f"wrote {out}" in stdout
    [use] = tool_uses(json.loads(out.read_text()))
    assert use["input"] == PARIS


def test_convert_stops_rather_than_write_empty_input(tmp_path, capsys):
    out = tmp_path / "out.json"
    code, stdout, err = run(capsys, "convert", TD201, "--to", "anthropic", "-o", out)
    assert code == 1 and stdout == "" and not out.exists()
    assert "arguments of 'get_weather' are a JSON string holding an object; anthropic needs an object " \
           "and would get {}; repair TD201: decode them into the object" in err
    assert "run with --fix" in err
    for target in ("gemini", "bedrock"):
        code, stdout, err = run(capsys, "convert", TD201, "--to", target)
        assert code == 1 and stdout == "" and "repair TD201" in err


def test_convert_fix_writes_the_recorded_arguments(tmp_path, capsys):
    code, stdout, err = run(capsys, "convert", TD201, "--to", "anthropic", "--fix")
    assert code == 0, err
    assert "repair TD201 c1 turn 1 part 1:" in err
    [use] = tool_uses(json.loads(stdout))
    assert use["input"] == PARIS
    code, stdout, err = run(capsys, "convert", TD201, "--to", "gemini", "--fix")
    calls = [p["functionCall"] for c in json.loads(stdout)["contents"] for p in c["parts"] if "functionCall" in p]
    assert code == 0 and calls[0]["args"] == PARIS


def test_openai_chat_keeps_the_defect_as_recorded_unless_fixed(capsys):
    code, stdout, err = run(capsys, "convert", TD201, "--to", "openai-chat")
    assert code == 0
    assert "note: c1 turn 1 part 1: arguments of 'get_weather' are JSON-encoded twice, written as recorded; " \
           "--fix decodes them (TD201)" in err
    args = json.loads(stdout)["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(json.loads(args)) == PARIS  # double-encoded, as the log has it
    code, stdout, _ = run(capsys, "convert", TD201, "--to", "openai-chat", "--fix")
    args = json.loads(stdout)["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert code == 0 and json.loads(args) == PARIS


# -- other repairs, as the user sees them -------------------------------------------------------------

def test_the_failure_flag_comes_back_from_the_request_that_recorded_it(tmp_path, capsys):
    out = tmp_path / "oncall.anthropic.json"
    code, stdout, _ = run(capsys, "fix", ONCALL, "--to", "anthropic", "-o", out)
    assert code == 0
    assert re.search(r"repair TD303 c1 turn 2 part 1: result 'toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze' without "
                     r"is_error → is_error: true, as exchange 1's request recorded it", stdout)
    failed = [r for r in tool_results(json.loads(out.read_text())) if r.get("is_error")]
    assert [r["tool_use_id"] for r in failed] == ["toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze"]


def test_an_unanswered_call_is_closed_not_dropped(capsys):
    code, _, err = run(capsys, "convert", TD102, "--to", "anthropic")
    assert code == 1
    assert "call 'get_weather'" in err and "would be left out of the anthropic request; repair TD102: " \
           "close it with an error result saying no result was recorded" in err
    code, stdout, err = run(capsys, "convert", TD102, "--to", "anthropic", "--fix")
    assert code == 0 and "repair TD102 c1 turn 2 part 1: call 'get_weather'" in err
    body = json.loads(stdout)
    assert len(tool_uses(body)) == 2
    closing = next(r for r in tool_results(body) if r["tool_use_id"] == "toolu_01Fa3JyW6uGe1PqD5sKr0MtV")
    assert closing["is_error"] is True and closing["content"] == NO_RESULT


def test_orphans_are_taken_out_or_kept_as_text(capsys):
    code, stdout, err = run(capsys, "fix", TD101, "--conversation", "c2", "--to", "openai-chat")
    assert code == 0, err
    assert "repair TD101 c2 turn 0 part 0: result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F'" in err
    assert "(taken out: it answers no call in this conversation; --keep-orphans keeps it as text)" in err
    messages = json.loads(stdout)["messages"]
    assert [m["role"] for m in messages][:2] == ["system", "assistant"]
    code, stdout, err = run(capsys, "fix", TD101, "--conversation", "c2", "--to", "openai-chat", "--keep-orphans")
    messages = json.loads(stdout)["messages"]
    assert code == 0 and messages[1]["role"] == "user"
    assert messages[1]["content"].startswith("[tool result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F', whose call is not "
                                             "in this conversation]\n{\"city\":\"Oslo\"")


def test_canonical_output_and_its_check(tmp_path, capsys):
    out = tmp_path / "fixed.canonical.json"
    code, stdout, _ = run(capsys, "fix", TD102, "-o", out)
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
    code, stdout, _ = run(capsys, "fix", log, "--dry-run")
    assert code == 0  # TD107 is a warning
    assert "not repaired TD107 c1 turn 2 part 0: 2 'get_weather' calls without ids: nothing in the results " \
           "says which call each answers, so pairing them is a guess (two equally likely pairings); no ids " \
           "given" in stdout
    assert "remains TD107 warning" in stdout
    assert run(capsys, "fix", log, "--dry-run", "--fail-on", "warning")[0] == 1


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
    code, stdout, _ = run(capsys, "fix", log, "--dry-run", "--format", "json")
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
    code, stdout, _ = run(capsys, "fix", log, "--to", target, "-o", out, "--format", "json", "--fail-on", "never")
    report = json.loads(stdout)
    if report["blocked"]:  # nothing written: a call the target would lose, with no repair made for it
        assert code == 1 and not out.exists()
        return report, [], set()
    assert code == 0, stdout
    rules_target = None if target == "canonical" else target
    remaining = {f.code for f in run_checks(load_file(out), export_rules(rules_target), rules_target)}
    _, stdout, _ = run(capsys, "fix", out, "--to", target, "--dry-run", "--format", "json", "--fail-on", "never")
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


def test_json_output_is_the_check_document_plus_repairs(capsys):
    code, stdout, _ = run(capsys, "fix", TD201, "--to", "anthropic", "--format", "json")
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
    code, stdout, _ = run(capsys, "fix", TD202, "--to", "anthropic", "-o", out)
    assert code == 1 and not out.exists()
    assert "not repaired TD202 c1 turn 1 part 0: the arguments are not valid JSON; completing or correcting " \
           "them would be a guess" in stdout
    assert "not written: c1 turn 1 part 0: arguments of 'write_file' are not valid JSON" in stdout
    # the canonical form keeps the raw string: written, the finding stays
    code, stdout, _ = run(capsys, "fix", TD202, "-o", out)
    assert code == 1 and out.exists() and "remains TD202 error" in stdout


def test_dry_run_only_skip_and_usage_errors(tmp_path, capsys):
    out = tmp_path / "out.json"
    code, stdout, _ = run(capsys, "fix", TD201, "--to", "anthropic", "--dry-run", "-o", out)
    assert code == 0 and not out.exists() and "nothing written (--dry-run)" in stdout
    code, stdout, _ = run(capsys, "fix", TD201, "--to", "anthropic", "--skip", "TD2", "--dry-run")
    assert code == 1 and "repair TD201 c1" not in stdout and "not written:" in stdout
    code, stdout, _ = run(capsys, "fix", TD201, "--to", "anthropic", "--only", "double-encoded-arguments",
                          "--dry-run")
    assert code == 0 and "repair TD201" in stdout
    code, _, err = run(capsys, "fix", TD201, "--only", "TD999")
    assert code == 2 and err.startswith("tooldbg: --only TD999: no rule has this code or prefix")
    code, _, err = run(capsys, "fix", TD101, "--to", "anthropic")
    assert code == 2 and "pick it with --conversation" in err


def test_writing_is_safe(tmp_path, capsys):
    copy = tmp_path / "in.jsonl"
    copy.write_bytes(TD201.read_bytes())
    code, _, err = run(capsys, "fix", copy, "-o", copy, "--force")
    assert code == 2 and copy.read_bytes() == TD201.read_bytes()
    out = tmp_path / "out.json"
    out.write_text("old")
    code, _, err = run(capsys, "fix", TD201, "-o", out)
    assert code == 2 and out.read_text() == "old"
    assert run(capsys, "fix", TD201, "-o", out, "--force")[0] == 0 and out.read_text() != "old"


# -- exports never blank recorded data: clean samples are untouched -------------------------------------

CLEAN = sorted(p for p in paths.SAMPLES.rglob("*") if p.is_file() and p.name != "README.md"
               and "defects" not in p.parts)


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.relative_to(paths.SAMPLES).as_posix())
def test_clean_samples_need_no_repair_and_convert_as_before(path):
    from tooldbg.convert import export
    from tooldbg.repair.guard import blanks

    loaded = load_file(path)
    for conv in loaded.conversations:
        assert fix_conversation(loaded, conv).records == ()
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
    code, stdout, _ = run(capsys, "fix", path, "--to", target, "--conversation", cid, "-o", out,
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
    code, stdout, _ = run(capsys, "fix", TD102, "--to", "bedrock", "--format", "json")
    body = json.dumps(json.loads(stdout)["body"]).encode()
    loaded = load_bytes("<bedrock>", body, "bedrock")
    assert code == 0 and loaded.errors == []
    results = [p for t in loaded.conversations[0].turns for p in t.parts if isinstance(p, Result)]
    assert [r.is_error for r in results] == [False, True]


def test_refusal_and_repair_records_name_their_place():
    loaded = load_file(TD202)
    fixed = fix_conversation(loaded, loaded.conversations[0], target="anthropic")
    assert fixed.records == (Refusal("TD202", "c1", 1, 0, NO_REPAIR["TD202"]),)
