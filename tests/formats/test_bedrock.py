"""Bedrock Converse: reading requests and responses, assembling ConverseStream, writing requests,
the corpus, and the round-trip properties every format shares."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import paths
from tests.formats.test_eventstream import event as encode_event
from tests.formats.test_eventstream import frame, string_header
from tests.strategies import assert_losses_explain, conversations
from tooldbg.errors import FormatError
from tooldbg.formats import bedrock
from tooldbg.formats.base import ApiError, Request, StreamEvent, StreamProblem
from tooldbg.model import (
    Conversation,
    Invocation,
    Json,
    Loss,
    Media,
    Opaque,
    Reasoning,
    Result,
    Settings,
    Text,
    Tool,
    ToolChoice,
    Turn,
    conversation_to_dict,
    turn_to_dict,
)
from tooldbg.records import eventstream
from tooldbg.source import Source

CORPUS = paths.CORPUS
RECORDINGS = sorted((CORPUS / "opencode-recordings/bedrock-converse").glob("*.json"))
VERCEL = CORPUS / "vercel-ai-fixtures/amazon-bedrock"
SAMPLES = Path(__file__).parents[2] / "sample_transcripts/bedrock"
SRC = Source(file="t.json", pointer="")
B = "bedrock"


def as_conversation(req: Request) -> Conversation:
    return Conversation(model=req.model, system=req.system, tools=req.tools,
                        tool_choice=req.tool_choice, turns=req.turns, meta=req.meta,
                        settings=req.settings)


def canon(body: dict) -> dict:
    """A request body read back as the canonical JSON form, without sources."""
    return conversation_to_dict(as_conversation(bedrock.read_request(body, SRC)), sources=False)


def turns(body: dict) -> list[dict]:
    return canon(body)["turns"]


def events(*items: dict) -> list[StreamEvent]:
    """boto3-style wrapped events, one per line."""
    return [StreamEvent(index=i, data=d) for i, d in enumerate(items)]


def delta(index: int, **value: object) -> dict:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": value}}


def thinking(index: int, **value: object) -> dict:
    return delta(index, reasoningContent=value)


def start(index: int, **tool: object) -> dict:
    return {"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": tool}}}


def stop(index: int) -> dict:
    return {"contentBlockStop": {"contentBlockIndex": index}}


# ------------------------------------------------------------------------------ reading requests


ROUND_TRIP = {
    "modelId": "anthropic.claude-sonnet-4-5",
    "system": [{"text": "Be terse."}, {"cachePoint": {"type": "default"}}],
    "messages": [
        {"role": "user", "content": [{"text": "Weather in Oslo and Bergen?"},
                                     {"image": {"format": "jpeg", "source": {"bytes": "/9j/4AAQ"}}}]},
        {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "Two cities.",
                                                    "signature": "EqQBCkgIARABGAIiQ"}}},
            {"text": "Checking both."},
            {"toolUse": {"toolUseId": "tooluse_a1", "name": "get_weather", "input": {"city": "Oslo"}}},
            {"toolUse": {"toolUseId": "tooluse_b2", "name": "get_weather",
                         "input": {"city": "Bergen"}}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_a1", "content": [{"json": {"temp_c": 4}}],
                            "status": "success"}},
            {"toolResult": {"toolUseId": "tooluse_b2", "content": [{"text": "upstream timeout"}],
                            "status": "error"}},
            {"text": "Answer briefly."}]},
    ],
    "inferenceConfig": {"maxTokens": 512},
    "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "description": "Current weather",
                                           "inputSchema": {"json": {"type": "object"}}}},
                             {"cachePoint": {"type": "default"}}],
                   "toolChoice": {"auto": {}}},
}


def test_request_with_reasoning_parallel_calls_failure_and_image():
    """Text beside parallel calls, a signed reasoning block, a json result, a failed result and
    trailing user text: the user message splits into a tool turn and a user turn."""
    assert canon(ROUND_TRIP) == {
        "id": "c1", "model": "anthropic.claude-sonnet-4-5",
        "system": [{"type": "text", "text": "Be terse.",
                    "meta": {B: {"cachePoint": {"type": "default"}}}}],
        "tools": [{"name": "get_weather", "description": "Current weather",
                   "parameters": {"type": "object"},
                   "meta": {B: {"cachePoint": {"type": "default"}}}}],
        "tool_choice": {"mode": "auto"},
        "turns": [
            {"role": "user", "parts": [
                {"type": "text", "text": "Weather in Oslo and Bergen?"},
                {"type": "media", "kind": "image", "media_type": "image/jpeg", "data": "/9j/4AAQ"}]},
            {"role": "assistant", "parts": [
                {"type": "reasoning", "text": "Two cities.", "signature": "EqQBCkgIARABGAIiQ",
                 "origin": B},
                {"type": "text", "text": "Checking both."},
                {"type": "invocation", "id": "i1", "name": "get_weather",
                 "arguments": {"city": "Oslo"}, "wire_id": "tooluse_a1"},
                {"type": "invocation", "id": "i2", "name": "get_weather",
                 "arguments": {"city": "Bergen"}, "wire_id": "tooluse_b2"}]},
            {"role": "tool", "parts": [
                {"type": "result", "invocation_id": "i1", "wire_id": "tooluse_a1", "name": "get_weather",
                 "is_error": False,
                 "content": [{"type": "json", "value": {"temp_c": 4}}],
                 "meta": {B: {"status": "success"}}},
                {"type": "result", "invocation_id": "i2", "wire_id": "tooluse_b2", "name": "get_weather",
                 "is_error": True,
                 "content": [{"type": "text", "text": "upstream timeout"}]}]},
            {"role": "user", "parts": [{"type": "text", "text": "Answer briefly."}]},
        ],
        "settings": {"max_tokens": 512},
    }


def test_sources_point_at_each_block():
    req = bedrock.read_request(ROUND_TRIP, Source(file="t.json", location="/interactions/0/request/body"))
    assistant, tool, user = req.turns[1], req.turns[2], req.turns[3]
    assert assistant.source.pointer == "/messages/1"
    assert [p.source.pointer for p in assistant.parts] == [f"/messages/1/content/{j}" for j in range(4)]
    assert [p.source.pointer for p in tool.parts] == ["/messages/2/content/0", "/messages/2/content/1"]
    assert tool.parts[1].content[0].source.pointer == "/messages/2/content/1/toolResult/content/0"
    assert user.parts[0].source.pointer == "/messages/2/content/2"
    assert req.system[0].source.pointer == "/system/0"
    assert req.tools[0].source.pointer == "/toolConfig/tools/0"
    assert user.parts[0].source.address == "/interactions/0/request/body#/messages/2/content/2"


def test_content_variants_unknown_keys_and_opaque_blocks():
    """String and null content are tolerated, unknown keys ignored, unmodelled blocks kept verbatim,
    a leading cachePoint has nothing to attach to, and guard content stays opaque."""
    guard = {"guardContent": {"text": {"text": "check me", "qualifiers": ["query"]}}}
    cite = {"citationsContent": {"content": [{"text": "Oslo is cold."}], "citations": []}}
    server = {"toolUse": {"toolUseId": "srv_1", "name": "web_search", "input": {}, "type": "server_tool_use"}}
    body = {"messages": [
        {"role": "user", "content": "plain string", "x-trace": 7},
        {"role": "assistant", "content": None},
        {"role": "user", "content": [{"cachePoint": {"type": "default"}}, guard,
                                     {"text": "hi", "unknown": True}]},
        {"role": "assistant", "content": [cite, server,
                                          {"toolResult": {"toolUseId": "srv_1", "content": []}}]},
        {"role": "user", "content": []},
    ], "futureField": {"a": 1}}
    assert turns(body) == [
        {"role": "user", "parts": [{"type": "text", "text": "plain string"}]},
        {"role": "assistant", "parts": []},
        {"role": "user", "parts": [
            {"type": "opaque", "origin": B, "value": {"cachePoint": {"type": "default"}}},
            {"type": "opaque", "origin": B, "value": guard},
            {"type": "text", "text": "hi"}]},
        {"role": "assistant", "parts": [
            {"type": "opaque", "origin": B, "value": cite},
            {"type": "opaque", "origin": B, "value": server},
            {"type": "opaque", "origin": B,
             "value": {"toolResult": {"toolUseId": "srv_1", "content": []}}}]},
        {"role": "user", "parts": []},
    ]
    assert canon(body)["meta"] == {B: {"futureField": {"a": 1}}}


def test_media_sources_and_documents():
    body = {"messages": [{"role": "user", "content": [
        {"image": {"format": "png", "source": {"s3Location": {"uri": "s3://bkt/cat.png",
                                                              "bucketOwner": "111122223333"}}}},
        {"document": {"format": "pdf", "name": "report", "source": {"bytes": "JVBERi0x"}}},
        {"document": {"format": "txt", "name": "notes", "source": {"text": "inline text"}}},
        {"video": {"format": "mp4", "source": {"bytes": "AAAAGGZ0eXA="}}},
        {"image": {"format": "heic", "source": {"bytes": "AAAA"}}},
    ]}]}
    assert turns(body)[0]["parts"] == [
        {"type": "media", "kind": "image", "media_type": "image/png", "url": "s3://bkt/cat.png",
         "meta": {B: {"bucketOwner": "111122223333"}}},
        {"type": "media", "kind": "document", "media_type": "application/pdf", "data": "JVBERi0x",
         "meta": {B: {"name": "report"}}},
        {"type": "opaque", "origin": B,
         "value": {"document": {"format": "txt", "name": "notes", "source": {"text": "inline text"}}}},
        {"type": "media", "kind": "video", "media_type": "video/mp4", "data": "AAAAGGZ0eXA="},
        {"type": "media", "kind": "image", "media_type": "image/heic", "data": "AAAA"},
    ]


def test_result_content_variants_and_redacted_reasoning():
    body = {"messages": [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [
            {"reasoningContent": {"redactedContent": "RVJST1I="}},
            {"toolUse": {"toolUseId": "t1", "name": "shot", "input": {}}},
            {"toolUse": {"toolUseId": "t2", "name": "shot"}},
            {"toolUse": {"toolUseId": "t3", "name": "shot", "input": "{\"x\":1}"}}]},
        {"role": "user", "content": [
            {"toolResult": {"toolUseId": "t1", "content": "bare string"}},
            {"toolResult": {"toolUseId": "t2", "content": [
                {"image": {"format": "webp", "source": {"bytes": "UklGRg=="}}}, {"json": [1, 2]}]}},
            {"toolResult": {"toolUseId": "t3"}},
            {"toolResult": {"toolUseId": "nope", "content": [], "status": "error"}}]},
    ]}
    assistant, tool = turns(body)[1:]
    assert assistant["parts"] == [
        {"type": "reasoning", "text": "", "redacted": "RVJST1I=", "origin": B},
        {"type": "invocation", "id": "i1", "name": "shot", "arguments": {}, "wire_id": "t1"},
        {"type": "invocation", "id": "i2", "name": "shot", "arguments": None, "wire_id": "t2"},
        # A string input stays a string: the checks flag it (Bedrock wants an object).
        {"type": "invocation", "id": "i3", "name": "shot", "arguments": "{\"x\":1}", "wire_id": "t3"},
    ]
    # A toolResult names only its toolUseId: a bound result takes its call's name, an orphan has none.
    assert tool["parts"] == [
        {"type": "result", "invocation_id": "i1", "wire_id": "t1", "name": "shot", "is_error": False,
         "content": [{"type": "text", "text": "bare string"}]},
        {"type": "result", "invocation_id": "i2", "wire_id": "t2", "name": "shot", "is_error": False,
         "content": [{"type": "media", "kind": "image", "media_type": "image/webp", "data": "UklGRg=="},
                     {"type": "json", "value": [1, 2]}]},
        {"type": "result", "invocation_id": "i3", "wire_id": "t3", "name": "shot", "is_error": False},
        {"type": "result", "invocation_id": None, "wire_id": "nope", "is_error": True},
    ]


def test_tool_config_variants():
    system_tool = {"systemTool": {"name": "nova_grounding"}}
    body = {"messages": [{"role": "user", "content": [{"text": "x"}]}],
            "toolConfig": {"tools": [{"cachePoint": {"type": "default"}},
                                     {"toolSpec": {"name": "a", "inputSchema": {"json": {}},
                                                   "strict": True}},
                                     system_tool],
                           "toolChoice": {"tool": {"name": "a"}}}}
    req = bedrock.read_request(body, SRC)
    assert req.tools == (
        Tool(name="cachePoint", kind="cachePoint", origin=B, raw={"cachePoint": {"type": "default"}}),
        Tool(name="a", parameters={}, meta={B: {"strict": True}}),
        Tool(name="nova_grounding", kind="systemTool", origin=B, raw=system_tool))
    assert req.tool_choice == ToolChoice(mode="tool", name="a")
    any_choice = {**body, "toolConfig": {"tools": [], "toolChoice": {"any": {}}}}
    assert bedrock.read_request(any_choice, SRC).tool_choice == ToolChoice(mode="required")
    odd = {**body, "toolConfig": {"tools": [], "toolChoice": {"none": {}}}}
    req = bedrock.read_request(odd, SRC)
    assert req.tool_choice is None
    assert req.meta == {B: {"toolConfig": {"toolChoice": {"none": {}}}}}


def test_system_role_messages():
    body = {"messages": [{"role": "system", "content": [{"text": "lead"}]},
                         {"role": "user", "content": [{"text": "hi"}]},
                         {"role": "system", "content": [{"text": "mid"}]}]}
    data = canon(body)
    assert data["system"] == [{"type": "text", "text": "lead"}]
    assert [t["role"] for t in data["turns"]] == ["user", "system"]


@pytest.mark.parametrize(("body", "pointer"), [
    ([], ""),
    ({"messages": {}}, "/messages"),
    ({}, "/messages"),
    ({"messages": [{"role": "tool", "content": []}]}, "/messages/0/role"),
    ({"messages": [{"role": "user", "content": [{"text": 5}]}]}, "/messages/0/content/0/text"),
    ({"messages": [{"role": "user", "content": ["hi"]}]}, "/messages/0/content/0"),
    ({"messages": [{"role": "assistant", "content": [{"toolUse": {"name": "a", "toolUseId": 3}}]}]},
     "/messages/0/content/0/toolUse/toolUseId"),
    ({"messages": [], "toolConfig": {"tools": [{"toolSpec": {}}]}}, "/toolConfig/tools/0/toolSpec/name"),
])
def test_malformed_requests_raise_format_errors_with_pointers(body, pointer):
    with pytest.raises(FormatError) as err:
        bedrock.read_request(body, SRC)
    assert err.value.pointer == pointer


# ----------------------------------------------------------------------------- reading responses


@pytest.mark.parametrize(("body", "pointer", "message"), [
    ({"messages": [{"role": "user", "content": [{"toolResult": 5}]}]}, "/messages/0/content/0/toolResult",
     "toolResult must be an object, not a number"),
    ({"messages": [], "toolConfig": 5}, "/toolConfig", "toolConfig must be an object, not a number"),
    ({"messages": [], "toolConfig": {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": 5}}}]}},
     "/toolConfig/tools/0/toolSpec/inputSchema/json", "json must be an object, not a number"),
])
def test_malformed_requests_say_what_was_expected_where(body, pointer, message):
    with pytest.raises(FormatError) as caught:
        bedrock.read_request(body, SRC)
    assert (caught.value.pointer, caught.value.message) == (pointer, message)


def test_a_block_tooldbg_does_not_model_points_at_its_place():
    request = bedrock.read_request({"messages": [{"role": "user", "content": [
        {"text": "hi"}, {"futureBlock": {"x": 1}}]}]}, SRC)
    assert request.turns[0].parts[1] == Opaque(origin=B, value={"futureBlock": {"x": 1}})
    assert request.turns[0].parts[1].source.pointer == "/messages/0/content/1"


def test_a_request_read_after_its_history_is_the_whole_request():
    """`history` reads a request from its first new message on, after the turns kept from the
    request before (`start`, `prior`): the turns are those of reading it whole."""
    whole = bedrock.read_request(ROUND_TRIP, SRC)
    kept = whole.turns[:2]
    resumed = bedrock.read_request(ROUND_TRIP, SRC, start=2, prior=kept)
    assert resumed.turns[:2] == kept and resumed.turns == whole.turns
    assert [t.source for t in resumed.turns] == [t.source for t in whole.turns]


def test_what_one_bedrock_message_cannot_carry_is_said_at_its_turn_and_part():
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(Text(text="a"),)), Turn(role="user", parts=(Text(text="b"),)),
        Turn(role="user", parts=(Text(text="c"),)),
        Turn(role="assistant", parts=(Invocation(id="i1", name="f", arguments={}, wire_id="t1"),
                                      Reasoning(text="r", summary=("s",), origin=B))),
        Turn(role="user", parts=(Text(text="see"), Result(invocation_id="i1", wire_id="t1", name="f", content=(
            Media(kind="video", url="https://x/v.mp4"), Media(kind="audio", data="AAAA", media_type="audio/wav"))))),
    ))
    written = bedrock.write(conv)
    assert written.body["messages"] == [
        {"role": "user", "content": [{"text": "a"}, {"text": "b"}, {"text": "c"}]},
        {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "r"}}},
                                          {"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": []}}, {"text": "see"}]}]
    assert sorted(map(str, written.losses)) == [
        "conversation: no tools declared; wrote an empty-schema toolSpec for f (Bedrock needs toolConfig "
        "beside toolUse/toolResult blocks)",
        "turn 0: sent in one Bedrock message with turn 1, 2 (roles must alternate)",
        "turn 1: sent in one Bedrock message with turn 0, 2 (roles must alternate)",
        "turn 2: sent in one Bedrock message with turn 0, 1 (roles must alternate)",
        "turn 3 part 1: reasoning summary is not carried",
        "turn 3: content after a toolUse moved before it (Bedrock rejects it there)",
        "turn 4 part 1: audio media dropped (Bedrock cannot carry it in a tool result)",
        "turn 4 part 1: video of type unknown dropped (not a Bedrock video format)",
        "turn 4: its tool results and other content read back as separate turns",
        "turn 4: tool results moved before the other content of their message"]


@pytest.mark.parametrize(("summary", "wire_id", "said"), [
    (("s",), None, "reasoning summary is not carried"), ((), "rs_1", "reasoning id is not carried"),
    (("s",), "rs_1", "reasoning summary and id are not carried")])
def test_a_reasoning_loss_names_what_the_part_had(summary, wire_id, said):
    conv = Conversation(model="m", turns=(Turn(role="user", parts=(Text(text="q"),)), Turn(
        role="assistant", parts=(Reasoning(text="r", summary=summary, wire_id=wire_id, origin=B), Text(text="a")))))
    assert f"turn 1 part 0: {said}" in map(str, bedrock.write(conv).losses)


def test_a_stream_of_bare_block_events_and_a_tool_use_start_of_the_wrong_types():
    assert bedrock.sniff_stream(events({"contentBlockIndex": 0, "delta": {"text": "hi"}}))
    assembled = bedrock.assemble_stream(events(
        {"messageStart": {"role": "assistant"}}, start(0, toolUseId=5, name="f"), stop(0),
        {"messageStop": {"stopReason": "tool_use"}}), SRC)
    assert assembled.problems == (StreamProblem("identity", "block 0 toolUseId is a number", 1),
                                  StreamProblem("identity", "toolUse block 0 has no toolUseId", 1))


def test_response_with_text_and_call():
    body = {"output": {"message": {"role": "assistant", "content": [
        {"text": "Checking."},
        {"toolUse": {"toolUseId": "tooluse_a8nlf2bqGLcZvaSoBpQ1sH", "name": "get_weather",
                     "input": {"city": "Paris"}}}]}},
        "stopReason": "tool_use", "usage": {"inputTokens": 425, "outputTokens": 45, "totalTokens": 470},
        "metrics": {"latencyMs": 499}}
    res = bedrock.read_response(body, SRC)
    assert turn_to_dict(res.turn, sources=False) == {"role": "assistant", "parts": [
        {"type": "text", "text": "Checking."},
        {"type": "invocation", "id": "i1", "name": "get_weather", "arguments": {"city": "Paris"},
         "wire_id": "tooluse_a8nlf2bqGLcZvaSoBpQ1sH"}]}
    assert (res.finish_reason, res.usage, res.meta, res.error) == (
        "tool_use", {"inputTokens": 425, "outputTokens": 45, "totalTokens": 470},
        {B: {"metrics": {"latencyMs": 499}}}, None)
    assert res.turn.parts[1].source.pointer == "/output/message/content/1"


def test_error_body():
    body = {"message": "The toolConfig field must be defined when using toolUse and toolResult "
                       "content blocks."}
    assert bedrock.read_response(body, SRC).error == ApiError(message=body["message"])
    assert bedrock.sniff(body, "response")
    with pytest.raises(FormatError):
        bedrock.read_response({"stopReason": "end_turn"}, SRC)


def test_sniffing():
    assert bedrock.sniff(ROUND_TRIP, "request")
    assert bedrock.sniff({"messages": [{"role": "user", "content": [{"text": "hi"}]}]}, "request")
    assert not bedrock.sniff({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
                             "request")
    assert not bedrock.sniff({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]},
                             "request")
    assert not bedrock.sniff({"error": {"message": "x"}}, "response")
    assert bedrock.sniff({"output": {"message": {"content": []}}}, "response")


# ------------------------------------------------------------------------------------- streams


#: A hand-written ConverseStream as boto3 yields it, one dict per event (botocore ConverseStreamOutput):
#: a text block without contentBlockStart, then a toolUse whose input arrives as two string fragments.
BOTO3_STREAM = (
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Checking."}}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"contentBlockStart": {"contentBlockIndex": 1, "start": {"toolUse": {
        "toolUseId": "tooluse_abc", "name": "get_weather"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"city\":"}}}},
    {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "\"Paris\"}"}}}},
    {"contentBlockStop": {"contentBlockIndex": 1}},
    {"messageStop": {"stopReason": "tool_use"}},
    {"metadata": {"usage": {"inputTokens": 425, "outputTokens": 45, "totalTokens": 470},
                  "metrics": {"latencyMs": 499}}},
)
#: The Converse response that stream assembles into.
BOTO3_BODY = {
    "output": {"message": {"role": "assistant", "content": [
        {"text": "Checking."},
        {"toolUse": {"toolUseId": "tooluse_abc", "name": "get_weather", "input": {"city": "Paris"}}}]}},
    "stopReason": "tool_use",
    "usage": {"inputTokens": 425, "outputTokens": 45, "totalTokens": 470},
    "metrics": {"latencyMs": 499},
}


def test_wrapped_stream_assembles_like_the_non_streamed_body():
    result = bedrock.assemble_stream(events(*BOTO3_STREAM), SRC)
    assert result.body == BOTO3_BODY
    assert result.problems == () and result.complete
    assert result.chunks == {"/output/message": 0, "/output/message/content/0": 1,
                             "/output/message/content/1": 3, "/stopReason": 7, "/usage": 8,
                             "/metrics": 8}
    assert bedrock.sniff_stream(events(*BOTO3_STREAM))


def test_named_frames_with_padding_assemble_the_same():
    """Decoded binary frames: the name is the header, the payload is bare and padded with `p`."""
    data = b"".join(encode_event(name, {**payload, "p": "abcdefgh"})
                    for item in BOTO3_STREAM for name, payload in item.items())
    result = bedrock.assemble_stream(eventstream.parse(data), SRC)
    assert result.body == BOTO3_BODY and result.problems == ()


def test_bare_payloads_without_names():
    bare = [StreamEvent(index=i, data=payload)
            for i, item in enumerate(BOTO3_STREAM) for payload in item.values()]
    assert bedrock.assemble_stream(bare, SRC).body == BOTO3_BODY


def test_reasoning_citations_and_redacted_stream():
    result = bedrock.assemble_stream(events(
        {"messageStart": {"role": "assistant"}},
        thinking(0, text="Hm"), thinking(0, signature="Ep0"), thinking(0, signature="CkgI"), stop(0),
        thinking(1, redactedContent="AAEC"), thinking(1, redactedContent="AwQ="), stop(1),
        delta(2, text="Oslo is cold."), delta(2, citation={"title": "met.no"}), stop(2),
        delta(3, text=""), stop(3),
        {"messageStop": {"stopReason": "end_turn"}},
    ), SRC)
    assert result.body["output"]["message"]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "Hm", "signature": "Ep0CkgI"}}},
        {"reasoningContent": {"redactedContent": base64.b64encode(b"\x00\x01\x02\x03\x04").decode()}},
        {"citationsContent": {"citations": [{"title": "met.no"}], "content": [{"text": "Oslo is cold."}]}},
    ]
    assert result.problems == ()


def test_truncated_stream():
    result = bedrock.assemble_stream(events(*BOTO3_STREAM[:5]), SRC)
    assert not result.complete
    assert result.problems == (StreamProblem("truncated", "the stream ended before messageStop", 4),)
    assert result.body["output"]["message"]["content"][1] == {
        "toolUse": {"toolUseId": "tooluse_abc", "name": "get_weather", "input": "{\"city\":"}}
    # The half-received arguments are not JSON: that is not reported twice.
    assert [p.kind for p in bedrock.assemble_stream(events(*BOTO3_STREAM[:6]), SRC).problems] == [
        "truncated"]


def test_truncated_arguments_before_stop_are_reported_at_their_fragment():
    broken = list(BOTO3_STREAM)
    del broken[5]  # the closing fragment never arrived, but the block and message stopped
    result = bedrock.assemble_stream(events(*broken), SRC)
    assert result.complete
    assert result.problems == (
        StreamProblem("arguments", "toolUse input is not valid JSON: '{\"city\":'", 4),)
    turn = bedrock.read_response(result.body, SRC).turn
    assert turn.parts[1].arguments == "{\"city\":"


def test_broken_stream_problems_name_their_chunks():
    result = bedrock.assemble_stream(events(
        delta(0, text="Hi"),
        {"messageStart": {"role": "assistant"}},
        delta(2, toolUse={"input": "{}"}),
        delta(0, text=" again"),
        start(2, toolUseId="t9", name="a"),
        start(2, toolUseId="", name="b"),
        stop(2),
        delta(2, text="late"),
        {"throttlingException": {"message": "Too many tokens"}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"messageStop": {"stopReason": "tool_use"}},
    ), SRC)
    assert result.problems == (
        StreamProblem("order", "contentBlockDelta before messageStart", 0),
        StreamProblem("order", "block 2 opened, expected block 1", 2),
        StreamProblem("order", "block 2 opened while block 0 is open", 2),
        StreamProblem("order", "block 0 continues after block 2 began", 3),
        StreamProblem("order", "block 2 continues after block 0 began", 4),
        StreamProblem("identity", "block 2 name changed from 'a' to 'b'", 5),
        StreamProblem("order", "event for block 2 after its contentBlockStop", 7),
        StreamProblem("other", "text data in a toolUse block 2", 7),
        StreamProblem("error", "throttlingException: Too many tokens", 8),
        StreamProblem("other", "a second messageStop says 'tool_use'", 11),
        StreamProblem("order", "block 0 never got its contentBlockStop", 0),
    )
    assert result.body["output"]["message"]["content"] == [
        {"text": "Hi again"}, {"toolUse": {"toolUseId": "t9", "name": "a", "input": {}}}]


def test_one_skipped_block_index_is_one_problem():
    """Blocks 0, 2, 3: the gap is before block 2; block 3 follows block 2 as it should."""
    result = bedrock.assemble_stream(events(
        {"messageStart": {"role": "assistant"}},
        delta(0, text="Checking."), stop(0),
        start(2, toolUseId="t1", name="get_weather"), delta(2, toolUse={"input": "{}"}), stop(2),
        start(3, toolUseId="t2", name="get_weather"), delta(3, toolUse={"input": "{}"}), stop(3),
        {"messageStop": {"stopReason": "tool_use"}}), SRC)
    assert result.problems == (StreamProblem("order", "block 2 opened, expected block 1", 3),)
    assert [c.get("toolUse", {}).get("toolUseId") for c in result.body["output"]["message"]["content"]] == [
        None, "t1", "t2"]


def test_tool_block_without_start_lacks_identity():
    result = bedrock.assemble_stream(events(
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": "{\"q\":1}"}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}}), SRC)
    assert [(p.kind, p.chunk) for p in result.problems] == [("identity", 1), ("identity", 1)]
    turn = bedrock.read_response(result.body, SRC).turn
    assert turn.parts == (Invocation(id="i1", name="", arguments={"q": 1}),)


def test_error_frame_in_a_binary_stream():
    data = encode_event("messageStart", {"role": "assistant"}) + frame(
        b'{"message":"The model is busy"}', string_header(":exception-type", "modelStreamErrorException"),
        string_header(":message-type", "exception"))
    result = bedrock.assemble_stream(eventstream.parse(data), SRC)
    assert result.problems == (
        StreamProblem("error", "modelStreamErrorException: The model is busy", 1),
        StreamProblem("truncated", "the stream ended before messageStop", 1))


def test_split_streams_on_message_start():
    stream = events(*BOTO3_STREAM, *BOTO3_STREAM)
    parts = bedrock.split_streams(stream)
    assert [len(p) for p in parts] == [9, 9] and parts[1][0].index == 9
    assert bedrock.split_streams([]) == []


# ------------------------------------------------------------------------------------- writing


def test_writer_replays_a_clean_conversation_exactly():
    """A Bedrock conversation read and written back gives the same wire body, with no losses — but
    for `modelId`, which Converse takes in the URL path (`POST /model/{modelId}/converse`; botocore
    `ConverseRequest.modelId` has `location: uri`), never in the JSON body."""
    written = bedrock.write(as_conversation(bedrock.read_request(ROUND_TRIP, SRC)))
    assert written.body == {k: v for k, v in ROUND_TRIP.items() if k != "modelId"}
    assert written.losses == ()


NAMES = "letters, digits, - and _, 1 to 64 characters"  # Bedrock's tool-name rule, as a loss says it


def test_writer_from_another_format():
    """A conversation as another format reads it: ids not valid here, no tools declared, an error
    result without content, reasoning and blocks Bedrock cannot replay, an image by URL."""
    conv = Conversation(
        system=(Text(text="Be terse.", meta={"anthropic": {"cache_control": {"type": "ephemeral"}}}),),
        tool_choice=ToolChoice(mode="required", parallel=False),
        turns=(
            Turn(role="user", parts=(Text(text="Weather?"),
                                     Media(kind="image", media_type="image/png",
                                           url="https://x.test/a.png"))),
            Turn(role="assistant", parts=(
                Reasoning(text="think", signature="sig", origin="anthropic"),
                Invocation(id="i1", name="get weather", arguments={"city": "Oslo"},
                           wire_id="call 1"),
                Text(text="Let me check."),
                Invocation(id="i2", name="get weather", arguments=None, raw_arguments="{bad"),
                Opaque(origin="anthropic", value={"type": "server_tool_use"}))),
            Turn(role="tool", parts=(
                Result(invocation_id="i1", wire_id="call 1", name="get weather",
                       content=(Json(value=["sunny"]),)),
                Result(invocation_id="i2", name="lookup", is_error=True, content=(Text(text="  "),)))),
            Turn(role="user", parts=(Text(text="and then?"),)),
            Turn(role="user", parts=(Text(text="hello?"),)),
        ))
    written = bedrock.write(conv)
    assert written.body == {
        "messages": [
            {"role": "user", "content": [{"text": "Weather?"}]},
            {"role": "assistant", "content": [
                {"text": "Let me check."},
                {"toolUse": {"toolUseId": "call_1", "name": "get_weather", "input": {"city": "Oslo"}}},
                {"toolUse": {"toolUseId": "tooluse_i2", "name": "get_weather", "input": {}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "call_1", "content": [{"json": {"value": ["sunny"]}}]}},
                {"toolResult": {"toolUseId": "tooluse_i2", "content": [{"text": "error"}],
                                "status": "error"}},
                {"text": "and then?"}, {"text": "hello?"}]},
        ],
        "system": [{"text": "Be terse."}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {
            "json": {"type": "object", "properties": {}}}}}], "toolChoice": {"any": {}}},
    }
    assert written.losses == (
        Loss("image by URL or file id dropped (Bedrock needs bytes or an S3 location)", 0, 1),
        Loss("reasoning from anthropic dropped (Bedrock only replays its own signed reasoning)", 1, 0),
        Loss("call id 'call 1' does not fit bedrock (letters, digits, -, ., : and _, 1 to 64 characters); "
             "wrote 'call_1'", 1, 1),
        Loss(f"tool name 'get weather' does not fit bedrock ({NAMES}); wrote 'get_weather'", 1, 1),
        Loss("call had no id; wrote 'tooluse_i2'", 1, 3),
        Loss("arguments were not valid JSON; written as {}", 1, 3),
        Loss(f"tool name 'get weather' does not fit bedrock ({NAMES}); wrote 'get_weather'", 1, 3),
        Loss("a anthropic block dropped (only anthropic can read it)", 1, 4),
        Loss("content after a toolUse moved before it (Bedrock rejects it there)", 1),
        Loss("result id 'call 1' written as 'call_1', its call's id", 2, 0),
        Loss("a non-object JSON result is wrapped as {\"value\": …} (Bedrock needs an object)", 2, 0),
        Loss("result had no id; wrote 'tooluse_i2', its call's id", 2, 1),
        Loss("tool name 'lookup' on the result is not carried (Bedrock binds by toolUseId only)", 2, 1),
        Loss("blank text block in a tool result dropped (Bedrock rejects blank text)", 2, 1),
        Loss("failed result had no content; wrote text 'error' (Bedrock needs content with status "
             "error)", 2, 1),
        Loss("sent in one Bedrock message with turn 4 (roles must alternate)", 3),
        Loss("sent in one Bedrock message with turn 3 (roles must alternate)", 4),
        Loss("anthropic details of the text not carried: cache_control", None, 0),
        Loss("no tools declared; wrote an empty-schema toolSpec for get_weather (Bedrock needs "
             "toolConfig beside toolUse/toolResult blocks)"),
        Loss("tool_choice.parallel: False — not carried: Bedrock Converse has no such control"),
    )


def test_result_name_is_lost_only_when_it_differs_from_its_calls():
    """A toolResult carries no name: reading gives a bound result its call's name, so only a
    result naming another tool than its call loses something; an orphan is reported dropped."""
    conv = Conversation(
        tools=(Tool(name="a", parameters={"type": "object"}),),
        turns=(
            Turn(role="user", parts=(Text(text="go"),)),
            Turn(role="assistant", parts=(Invocation(id="i1", name="a", arguments={}, wire_id="t1"),
                                          Invocation(id="i2", name="a", arguments={}, wire_id="t2"),
                                          Invocation(id="i3", name="a", arguments={}, wire_id="t3"))),
            Turn(role="tool", parts=(
                Result(invocation_id="i1", wire_id="t1", name="a", content=(Text(text="same"),)),
                Result(invocation_id="i2", wire_id="t2", content=(Text(text="none"),)),
                Result(invocation_id="i3", wire_id="t3", name="b", content=(Text(text="other"),)),
                Result(wire_id="t9", name="a", content=(Text(text="orphan"),)))),
        ))
    written = bedrock.write(conv)
    assert written.body["messages"][2] == {"role": "user", "content": [
        {"toolResult": {"toolUseId": "t1", "content": [{"text": "same"}]}},
        {"toolResult": {"toolUseId": "t2", "content": [{"text": "none"}]}},
        {"toolResult": {"toolUseId": "t3", "content": [{"text": "other"}]}}]}
    assert written.losses == (
        Loss("tool name 'b' on the result is not carried (Bedrock binds by toolUseId only)", 2, 2),
        Loss("result for 't9' answers no toolUse of the previous assistant message; dropped", 2, 3),
    )
    assert [p.name for p in bedrock.read_request(written.body, SRC).turns[2].parts] == ["a", "a", "a"]


def test_writer_pairs_calls_with_the_next_message():
    """An unanswered call is dropped when the conversation goes on; results given before other
    user text move first; a history may end on calls."""
    conv = Conversation(
        tools=(Tool(name="a", parameters={"type": "object"}),),
        tool_choice=ToolChoice(mode="none"),
        turns=(
            Turn(role="user", parts=(Text(text="go"),)),
            Turn(role="assistant", parts=(Invocation(id="i1", name="a", arguments={}, wire_id="t1"),
                                          Invocation(id="i2", name="a", arguments={}, wire_id="t2"))),
            Turn(role="user", parts=(Text(text="only one came back"),)),
            Turn(role="tool", parts=(Result(invocation_id="i1", wire_id="t1", content=(Text(text="ok"),)),)),
            Turn(role="assistant", parts=(Invocation(id="i3", name="a", arguments={}, wire_id="t3"),)),
        ))
    written = bedrock.write(conv)
    assert written.body["messages"] == [
        {"role": "user", "content": [{"text": "go"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "a", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}},
                                     {"text": "only one came back"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t3", "name": "a", "input": {}}}]},
    ]
    assert written.body["toolConfig"] == {"tools": [{"toolSpec": {"name": "a", "inputSchema": {
        "json": {"type": "object"}}}}]}
    assert written.losses == (
        Loss("toolUse 't2' has no toolResult in the next message; dropped (Bedrock requires every "
             "toolUse answered there)", 1, 1),
        Loss("tool results moved before the other content of their message", 2),
        Loss("tool results moved before the other content of their message", 3),
        Loss("tool_choice: 'none' — not carried: Bedrock Converse has auto, any and tool"),
        Loss("the conversation ends on this call with no result: a history, which Bedrock Converse rejects as a "
             "request until a toolResult answers it", 4, 0),
    )


def test_writer_media_documents_and_own_meta():
    conv = Conversation(turns=(
        Turn(role="user", parts=(
            Media(kind="document", media_type="application/pdf", data="JVBERi0x"),
            Media(kind="image", url="data:image/gif;base64,R0lGOD"),
            Media(kind="image", media_type="image/png", url="s3://b/k.png",
                  meta={B: {"bucketOwner": "1", "cachePoint": {"type": "default"}}}),
            Media(kind="audio", media_type="audio/wav", data="UklGR"),
            Media(kind="file", media_type="application/zip", data="UEsD"),
            Json(value={"a": 1}),
            Reasoning(text="mine", origin=B),
        )),
        Turn(role="system", parts=(Text(text="late rule"),)),
    ))
    written = bedrock.write(conv)
    assert written.body["messages"] == [{"role": "user", "content": [
        {"document": {"format": "pdf", "name": "document-0-0", "source": {"bytes": "JVBERi0x"}}},
        {"image": {"format": "gif", "source": {"bytes": "R0lGOD"}}},
        {"image": {"format": "png", "source": {"s3Location": {"uri": "s3://b/k.png", "bucketOwner": "1"}}}},
        {"cachePoint": {"type": "default"}},
        {"audio": {"format": "wav", "source": {"bytes": "UklGR"}}},
        {"text": "{\"a\":1}"},
        {"reasoningContent": {"reasoningText": {"text": "mine"}}},
        {"text": "late rule"},
    ]}]
    assert [(loss.turn, loss.part, loss.message) for loss in written.losses] == [
        (0, 0, "document had no name; wrote 'document-0-0'"),
        (0, 1, "data URL sent as bytes"),
        (0, 4, "file media dropped (Bedrock cannot carry it)"),
        (0, 5, "structured content outside a tool result sent as JSON text"),
        (1, None, "a system turn after the conversation began is sent as user text (Converse has "
                  "only the top-level system)"),
        (0, None, "sent in one Bedrock message with turn 1 (roles must alternate)"),
        (1, None, "sent in one Bedrock message with turn 0 (roles must alternate)"),
    ]


def test_written_body_is_detected_as_bedrock():
    conv = Conversation(turns=(Turn(role="user", parts=(Text(text="hi"),)),))
    assert bedrock.write(conv).body == {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}
    assert bedrock.sniff(bedrock.write(conv).body, "request")


# --------------------------------------------------------------------------------------- corpus


@pytest.mark.parametrize("path", paths.corpus_params(RECORDINGS), ids=lambda p: p.name)
def test_corpus_recordings(path):
    """Every recorded request reads; every base64 event-stream response assembles cleanly."""
    for interaction in json.loads(path.read_text())["interactions"]:
        request = bedrock.read_request(json.loads(interaction["request"]["body"]), SRC)
        assert request.model == "us.amazon.nova-micro-v1:0"
        assert bedrock.sniff(json.loads(interaction["request"]["body"]), "request")
        data = base64.b64decode(interaction["response"]["body"])
        stream = eventstream.parse(data)
        assert bedrock.sniff_stream(stream)
        assembled = bedrock.assemble_stream(stream, SRC)
        assert assembled.problems == () and assembled.complete
        bedrock.read_response(assembled.body, SRC)


@pytest.mark.needs_corpus
def test_corpus_tool_call_stream_facts():
    path = CORPUS / "opencode-recordings/bedrock-converse/streams-a-tool-call.json"
    interaction = json.loads(path.read_text())["interactions"][0]
    request = bedrock.read_request(json.loads(interaction["request"]["body"]), SRC)
    assert request.tool_choice == ToolChoice(mode="tool", name="get_weather")
    assert request.meta == {}
    assert request.settings == Settings(max_tokens=80, temperature=0)
    assert request.tools[0].parameters["required"] == ["city"]
    assembled = bedrock.assemble_stream(
        eventstream.parse(base64.b64decode(interaction["response"]["body"])), SRC)
    response = bedrock.read_response(assembled.body, SRC)
    assert response.turn.parts == (Invocation(id="i1", name="get_weather", arguments={"city": "Paris"},
                                              wire_id="tooluse_sScCbyneRHZaBMXkndWblc"),)
    assert response.finish_reason == "tool_use"
    assert response.usage == {"inputTokens": 419, "outputTokens": 16, "serverToolUsage": {},
                              "totalTokens": 435}
    assert assembled.chunks["/output/message/content/0"] == 1


@pytest.mark.needs_corpus
def test_corpus_text_stream_skips_the_empty_delta():
    path = CORPUS / "opencode-recordings/bedrock-converse/streams-text.json"
    interaction = json.loads(path.read_text())["interactions"][0]
    assembled = bedrock.assemble_stream(
        eventstream.parse(base64.b64decode(interaction["response"]["body"])), SRC)
    assert assembled.body["output"]["message"]["content"] == [{"text": "Hello"}]
    assert assembled.body["stopReason"] == "end_turn"


@pytest.mark.needs_corpus
def test_vercel_reasoning_body_and_chunks():
    body = json.loads((VERCEL / "amazon-bedrock-reasoning.json").read_text())
    response = bedrock.read_response(body, SRC)
    reasoning, text = response.turn.parts
    assert isinstance(reasoning, Reasoning) and reasoning.origin == B
    assert reasoning.signature.startswith("EvYBCkgICxABGAIqQA9E9VC377")
    assert text == Text(text="There are **3** r's in \"strawberry\":\n\n1. st**r**awbe**r****r**y")
    assert response.usage["cacheReadInputTokens"] == 0

    lines = (VERCEL / "amazon-bedrock-reasoning.chunks.txt").read_text().splitlines()
    stream = [StreamEvent(index=i, data=json.loads(line)) for i, line in enumerate(lines)]
    assert bedrock.sniff_stream(stream)
    assembled = bedrock.assemble_stream(stream, SRC)
    assert assembled.problems == () and assembled.complete
    turn = bedrock.read_response(assembled.body, SRC).turn
    assert turn.parts[0].text.endswith("So there are 3 r's.")
    assert turn.parts[0].signature.startswith("Ep0CCkgICxABGAIqQOWPB6")
    assert turn.parts[1].text.startswith("There are **3** r's")
    assert assembled.body["additionalModelResponseFields"] == {"delta": {"stop_sequence": None}}
    assert assembled.chunks["/output/message/content/1"] == 14


# -------------------------------------------------------------------------------------- samples


def test_samples_read_and_assemble():
    """The sample exchanges read as Bedrock, replay their history, and both stream forms assemble
    to one body."""
    exchanges = [json.loads(line) for line in (SAMPLES / "parallel-calls.jsonl").read_text().splitlines()]
    first, second = (bedrock.read_request(e["request"]["body"], SRC) for e in exchanges)
    answer = bedrock.read_response(exchanges[0]["response"]["body"], SRC).turn
    assert second.turns[:2] == (*first.turns, answer)
    assert [r.is_error for r in second.turns[2].parts] == [False, True]
    assert bedrock.read_response(exchanges[1]["response"]["body"], SRC).finish_reason == "end_turn"
    assert bedrock.sniff(json.loads((SAMPLES / "request.json").read_text()), "request")
    assert bedrock.sniff(json.loads((SAMPLES / "response.json").read_text()), "response")

    lines = (SAMPLES / "stream.jsonl").read_text().splitlines()
    wrapped = bedrock.assemble_stream(
        [StreamEvent(index=i, data=json.loads(line)) for i, line in enumerate(lines)], SRC)
    recording = json.loads((SAMPLES / "stream-recording.json").read_text())["interactions"][0]
    framed = bedrock.assemble_stream(
        eventstream.parse(base64.b64decode(recording["response"]["body"])), SRC)
    assert wrapped.body == framed.body and wrapped.problems == framed.problems == ()
    assert bedrock.sniff(json.loads(recording["request"]["body"]), "request")


# ---------------------------------------------------------------------------------- properties


def _read_back(body: dict) -> Conversation:
    return as_conversation(bedrock.read_request(body, SRC))


PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY
@given(st.one_of(conversations(), conversations(reasoning_origin=B),
                 conversations(reasoning_origin="anthropic")))
def test_write_then_read_loses_only_what_is_reported(conv):
    written = bedrock.write(conv)
    back = _read_back(written.body)
    assert_losses_explain(conv, back, written.losses)
    assert back.model is None  # the model travels in the URL (`/model/{modelId}/converse`)


@PROPERTY
@given(conversations(reasoning_origin="gemini"))
def test_foreign_reasoning_is_reported(conv):
    losses = bedrock.write(conv).losses
    for t, turn in enumerate(conv.turns):
        for p, part in enumerate(turn.parts):
            if isinstance(part, Reasoning):
                assert Loss("reasoning from gemini dropped (Bedrock only replays its own signed "
                            "reasoning)", t, p) in losses


@PROPERTY
@given(st.one_of(conversations(), conversations(reasoning_origin=B)))
def test_write_read_write_is_stable(conv):
    first = bedrock.write(conv).body
    again = bedrock.write(_read_back(first))
    assert again.body == first
    assert again.losses == ()


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20)
VOCABULARY = ["messages", "role", "content", "text", "image", "document", "video", "audio", "format",
              "source", "bytes", "s3Location", "uri", "toolUse", "toolUseId", "name", "input",
              "toolResult", "status", "json", "reasoningContent", "reasoningText", "signature",
              "redactedContent", "cachePoint", "system", "toolConfig", "tools", "toolSpec",
              "inputSchema", "toolChoice", "tool", "auto", "any", "output", "message", "stopReason",
              "usage", "user", "assistant", "error", "png", "type", "server_tool_use",
              "contentBlockIndex", "delta", "start", "messageStart", "contentBlockStart",
              "contentBlockDelta", "contentBlockStop", "messageStop", "metadata", "citation"]
shaped_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from(VOCABULARY)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(VOCABULARY), inner, max_size=4)),
    max_leaves=30)
anything = st.one_of(json_values, shaped_values)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(anything)
def test_readers_raise_only_format_errors(value):
    for read in (bedrock.read_request, bedrock.read_response):
        try:
            read(value, SRC)
        except FormatError:
            pass
    bedrock.sniff(value, "request")
    bedrock.sniff(value, "response")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(VOCABULARY)), anything), max_size=8))
def test_assembly_never_raises(items):
    stream = [StreamEvent(index=i, data=data, name=name) for i, (name, data) in enumerate(items)]
    result = bedrock.assemble_stream(stream, SRC)
    bedrock.split_streams(stream)
    bedrock.sniff_stream(stream)
    try:
        bedrock.read_response(result.body, SRC)
    except FormatError:
        pass


def _paths(value, prefix=()):
    """Every location in a JSON value."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*prefix, key))


def _mutated(value, path, new):
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _mutated(copy[path[0]], path[1:], new)
    return copy


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(_paths(ROUND_TRIP))), st.sampled_from(list(_paths(BOTO3_BODY))),
       st.sampled_from(list(_paths(list(BOTO3_STREAM)))), anything)
def test_mutated_bodies_and_streams_raise_only_format_errors(request_at, response_at, stream_at, new):
    """One node of a valid request, response or stream replaced by arbitrary JSON."""
    for read, body, at in ((bedrock.read_request, ROUND_TRIP, request_at),
                           (bedrock.read_response, BOTO3_BODY, response_at)):
        try:
            read(_mutated(body, at, new), SRC)
        except FormatError:
            pass
    stream = _mutated(list(BOTO3_STREAM), stream_at, new)
    result = bedrock.assemble_stream(events(*stream) if isinstance(stream, list) else [], SRC)
    try:
        bedrock.read_response(result.body, SRC)
    except FormatError:
        pass
