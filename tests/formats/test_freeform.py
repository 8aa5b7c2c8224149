"""Freeform (custom) tools written for a format that has none (`formats.freeform`): declared as a
function of one string, `input`, each call's text as that argument — as Codex declares its
`apply_patch` for a model without freeform tools — and said in the losses; the formats that have
them keep them as they are."""

import json

import pytest

from tests import paths
from tests.command import run
from tooldbg import formats
from tooldbg.convert import export
from tooldbg.formats.freeform import INPUT, SCHEMA, as_functions
from tooldbg.load import load_bytes, load_file
from tooldbg.model import Invocation
from tooldbg.source import NO_SOURCE

PATCH = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
CHAT = {"request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions", "body": {
    "model": "gpt-5", "messages": [
        {"role": "user", "content": "Set x to 2."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_P4", "type": "custom", "custom": {"name": "apply_patch", "input": PATCH}}]},
        {"role": "tool", "tool_call_id": "call_P4", "content": "Done."},
        {"role": "user", "content": "Thanks; run the tests."}],
    "tools": [{"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files", "format": {
        "type": "grammar", "grammar": {"syntax": "lark", "definition": "start: /.+/"}}}}]}}}
SAMPLE = paths.SAMPLES / "codex" / "rollout-freeform-patch.jsonl"


def conversation():
    [conv] = load_bytes("custom.jsonl", json.dumps(CHAT).encode()).conversations
    return conv


#: Where each format without freeform tools holds a call's arguments and a tool's schema.
CALL_ARGUMENTS = {"anthropic": lambda body: body["messages"][1]["content"][0]["input"],
                  "gemini": lambda body: body["contents"][1]["parts"][0]["functionCall"]["args"],
                  "bedrock": lambda body: body["messages"][1]["content"][0]["toolUse"]["input"]}
TOOL_SCHEMA = {"anthropic": lambda body: body["tools"][0]["input_schema"],
               "gemini": lambda body: body["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"],
               "bedrock": lambda body: body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]}


@pytest.mark.parametrize("target", sorted(CALL_ARGUMENTS))
def test_a_freeform_call_is_written_as_a_function_of_its_text_and_said(target):
    written = export([conversation()], target)
    assert CALL_ARGUMENTS[target](written.body) == {INPUT: PATCH}  # the text whole, nothing guessed
    assert TOOL_SCHEMA[target](written.body) == SCHEMA
    said = [(loss.turn, loss.part, loss.message) for loss in written.losses]
    assert (1, 0, "the freeform input of custom tool 'apply_patch' is written as the argument `input` of a "
                  "function (the format has no freeform tools)") in said
    assert any(t is None and "custom tool 'apply_patch' is declared as a function of one string" in m
               and "freeform format is dropped" in m for t, _, m in said)
    assert not any("details not carried" in m for _, _, m in said)  # (the reader's mark: said above)
    [back] = formats.get(target).read_request(written.body, NO_SOURCE).turns[1].parts
    assert isinstance(back, Invocation) and back.arguments == {INPUT: PATCH}


#: Where each format with freeform tools holds a custom call's text.
CUSTOM_INPUT = {"openai-chat": lambda body: body["messages"][1]["tool_calls"][0]["custom"]["input"],
                "openai-responses": lambda body: [i["input"] for i in body["input"]
                                                  if i.get("type") == "custom_tool_call"][0]}


@pytest.mark.parametrize("target", sorted(CUSTOM_INPUT))
def test_a_format_with_freeform_tools_writes_the_call_as_one(target):
    written = export([conversation()], target)
    assert CUSTOM_INPUT[target](written.body) == PATCH
    assert not any("freeform" in loss.message for loss in written.losses)


#: The custom tool of `CHAT` as each OpenAI format declares it (openai-python
#: `chat_completion_custom_tool_param.py`; `responses/custom_tool_param.py`).
DECLARED = {"openai-chat": CHAT["request"]["body"]["tools"][0],
            "openai-responses": {"type": "custom", "name": "apply_patch", "description": "Edit files",
                                 "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"}}}


@pytest.mark.parametrize(("source", "target"), [("openai-chat", "openai-responses"),
                                                ("openai-responses", "openai-chat")])
def test_a_custom_tool_is_declared_in_the_other_openai_format_as_it_declares_one(source, target):
    conv = conversation()
    if source == "openai-responses":  # the same conversation, read from its Responses form
        body = {**export([conv], source).body, "tools": [DECLARED[source]]}
        [conv] = load_bytes("request.json", json.dumps(body).encode()).conversations
    written = export([conv], target)
    assert written.body["tools"] == [DECLARED[target]]
    assert not any("tool" in loss.message and "dropped" in loss.message for loss in written.losses)


def test_a_conversation_without_freeform_tools_is_written_as_it_is():
    [conv] = load_file(paths.SAMPLES / "codex" / "rollout.jsonl").conversations
    assert as_functions(conv, lambda *said: pytest.fail(f"said {said}")) is conv


def test_a_codex_rollout_with_freeform_patches_exports_as_an_anthropic_request_that_passes(capsys, tmp_path):
    body = tmp_path / "out.json"
    assert run(capsys, "fix", str(SAMPLE), "--to", "anthropic", "-o", str(body))[0] == 0
    assert run(capsys, "check", str(body), "--target", "anthropic")[0] == 0
    [call] = [b for m in json.loads(body.read_text())["messages"] if isinstance(m["content"], list)
              for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "apply_patch"]
    assert call["input"][INPUT].startswith("*** Begin Patch\n*** Update File: tests/test_book.py")
