"""Gemini generateContent: reading, stream assembly, writing, corpus traffic and round-trip properties."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import paths
from tests.strategies import assert_losses_explain, conversations, json_values
from tooldbg.errors import FormatError
from tooldbg.formats import gemini
from tooldbg.formats.base import ApiError, StreamEvent, StreamProblem
from tooldbg.formats.reading import link
from tooldbg.jsonio import loads
from tooldbg.model import (
    Conversation,
    Invocation,
    Json,
    Loss,
    Media,
    Reasoning,
    Result,
    Text,
    Tool,
    ToolChoice,
    Turn,
    conversation_to_dict,
    turn_to_dict,
)
from tooldbg.records import sse
from tooldbg.source import Source

CORPUS = paths.CORPUS
SRC = Source(file="t.json", location="/body")
SIG = "CiQBDDnWx1Wa8wdQ"


def read(body: dict[str, Any]) -> dict[str, Any]:
    """A request body → its canonical conversation as a dict, without sources."""
    return conversation_to_dict(as_conversation(gemini.read_request(body, SRC)), sources=False)


def as_conversation(req: Any) -> Conversation:
    return Conversation(system=req.system, tools=req.tools, tool_choice=req.tool_choice,
                        turns=req.turns, meta=req.meta, settings=req.settings)


def events(*data: Any) -> list[StreamEvent]:
    return [StreamEvent(index=i, data=d) for i, d in enumerate(data)]


def chunk(*parts: dict[str, Any], finish: str | None = None, **top: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], **top}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def result(inv: str, content: list[dict[str, Any]], *, name: str = "get_weather", is_error: bool = False,
           **more: Any) -> dict[str, Any]:
    return {"type": "result", "invocation_id": inv, **({"content": content} if content else {}),
            "name": name, "is_error": is_error, **more}


# ------------------------------------------------------------------------------------- reading


def test_reads_a_tool_loop_with_text_parallel_calls_a_failure_and_an_image() -> None:
    body = {
        "systemInstruction": {"parts": [{"text": "Be terse."}]},
        "contents": [
            {"role": "user", "parts": [
                {"text": "Weather in Paris and Rome? Map attached."},
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
            {"role": "model", "parts": [
                {"text": "Checking both."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": SIG},
                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 22}}}},
                {"functionResponse": {"name": "get_weather", "response": {"error": "upstream timeout"}}}]},
        ],
        "tools": [{"functionDeclarations": [{
            "name": "get_weather", "description": "Current weather",
            "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        "generationConfig": {"temperature": 0},
    }
    assert read(body) == {
        "id": "c1",
        "system": [text("Be terse.")],
        "tools": [{"name": "get_weather", "description": "Current weather",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "tool_choice": {"mode": "auto"},
        "turns": [
            {"role": "user", "parts": [
                text("Weather in Paris and Rome? Map attached."),
                {"type": "media", "kind": "image", "media_type": "image/png", "data": "iVBORw0KGgo="}]},
            {"role": "assistant", "parts": [
                text("Checking both."),
                {"type": "reasoning", "text": "", "signature": SIG, "origin": "gemini"},
                {"type": "invocation", "id": "i1", "name": "get_weather", "arguments": {"city": "Paris"}},
                {"type": "invocation", "id": "i2", "name": "get_weather", "arguments": {"city": "Rome"}}]},
            {"role": "tool", "parts": [
                result("i1", [{"type": "json", "value": {"temp_c": 22}}]),
                result("i2", [text("upstream timeout")], is_error=True)]},
        ],
        "settings": {"temperature": 0},
    }


def test_sources_point_at_the_exact_json_locations() -> None:
    body = {"contents": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": SIG}]},
        {"role": "user", "parts": [
            {"text": "also"},
            {"functionResponse": {"name": "f", "response": {"output": "ok"},
                                  "parts": [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}}]},
    ]}
    turns = gemini.read_request(body, SRC).turns
    assert [t.source.pointer for t in turns] == ["/contents/0", "/contents/1", "/contents/2", "/contents/2"]
    assert [p.source.pointer for p in turns[1].parts] == [
        "/contents/1/parts/0/thoughtSignature", "/contents/1/parts/0"]
    res = turns[3].parts[0]
    assert isinstance(res, Result)
    assert res.source.pointer == "/contents/2/parts/1"
    assert [p.source.pointer for p in res.content] == [
        "/contents/2/parts/1/functionResponse/response/output",
        "/contents/2/parts/1/functionResponse/parts/0"]
    assert res.source.file == "t.json" and res.source.location == "/body"


def test_results_and_text_in_one_content_split_into_turns_in_wire_order() -> None:
    body = {"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}},
                                    {"functionCall": {"name": "b", "args": {}}}]},
        {"parts": [  # no role: user
            {"functionResponse": {"name": "a", "response": {"output": "A"}}},
            {"text": "and now?"},
            {"functionResponse": {"name": "b", "response": {"output": "B"}}}]},
    ]}
    turns = read(body)["turns"]
    assert [(t["role"], [p["type"] for p in t["parts"]]) for t in turns] == [
        ("user", ["text"]), ("assistant", ["invocation", "invocation"]),
        ("tool", ["result"]), ("user", ["text"]), ("tool", ["result"])]
    assert turns[2]["parts"][0]["invocation_id"] == "i1" and turns[4]["parts"][0]["invocation_id"] == "i2"


def test_same_name_calls_without_ids_pair_by_position_and_ids_pair_when_present() -> None:
    body = {"contents": [
        {"role": "model", "parts": [
            {"functionCall": {"id": "call_1", "name": "get_weather", "args": {"city": "Oslo"}}},
            {"functionCall": {"id": "call_2", "name": "get_weather", "args": {"city": "Bergen"}}}]},
        {"role": "user", "parts": [  # answered in completion order, bound by id
            {"functionResponse": {"id": "call_2", "name": "get_weather", "response": {"output": "rain"}}},
            {"functionResponse": {"id": "call_1", "name": "get_weather", "response": {"output": "sun"}}}]},
    ]}
    turns = gemini.read_request(body, SRC).turns
    calls = list(turns[0].invocations())
    assert [(c.id, c.wire_id) for c in calls] == [("i1", "call_1"), ("i2", "call_2")]
    assert [(r.invocation_id, r.wire_id) for r in turns[1].results()] == [("i2", "call_2"), ("i1", "call_1")]


@pytest.mark.parametrize(("response", "content", "is_error", "meta"), [
    ({"output": "sunny"}, [text("sunny")], False, None),
    ({"output": {"t": 1}}, [{"type": "json", "value": {"t": 1}}], False, None),
    ({"output": [1, 2]}, [{"type": "json", "value": [1, 2]}], False, None),
    ({"output": None}, [], False, None),
    ({"error": "boom"}, [text("boom")], True, None),
    ({"error": {"code": 5}}, [{"type": "json", "value": {"code": 5}}], True, None),
    # google-genai's automatic function calling answers {"result": …}: the whole object is the output
    ({"result": 42}, [{"type": "json", "value": {"result": 42}}], False, {"gemini": {"bare_response": True}}),
    ({"error": "x", "code": 3}, [{"type": "json", "value": {"error": "x", "code": 3}}], True,
     {"gemini": {"bare_response": True}}),
    ({}, [{"type": "json", "value": {}}], False, {"gemini": {"bare_response": True}}),
    ("not an object", [text("not an object")], False, None),
])
def test_function_response_conventions(response: Any, content: list[Any], is_error: bool, meta: Any) -> None:
    body = {"contents": [
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": response}}]}]}
    expected = result("i1", content, name="f", is_error=is_error, **({"meta": meta} if meta else {}))
    assert read(body)["turns"][1]["parts"] == [expected]


def test_snake_case_keys_from_python_logs_read_like_camel_case() -> None:
    camel = {
        "system_instruction": {"parts": [{"text": "sys"}]},
        "contents": [
            {"role": "user", "parts": [
                {"inline_data": {"mime_type": "image/jpeg", "data": "/9j/"}},
                {"file_data": {"file_uri": "files/abc", "mime_type": "application/pdf"}}]},
            {"role": "model", "parts": [{"function_call": {"name": "f", "args": {"x": 1}},
                                         "thought_signature": SIG}]},
            {"role": "user", "parts": [{"function_response": {"name": "f", "response": {"output": 1}}}]}],
        "tools": [{"function_declarations": [{"name": "f", "parameters_json_schema": {"type": "object"}}]}],
        "tool_config": {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["f"]}},
    }
    got = read(camel)
    assert got["system"] == [text("sys")]
    assert got["tools"] == [{"name": "f", "parameters": {"type": "object"}}]
    assert got["tool_choice"] == {"mode": "tool", "name": "f"}
    assert got["turns"][0]["parts"] == [
        {"type": "media", "kind": "image", "media_type": "image/jpeg", "data": "/9j/"},
        {"type": "media", "kind": "document", "media_type": "application/pdf", "url": "files/abc"}]
    assert got["turns"][1]["parts"] == [
        {"type": "reasoning", "text": "", "signature": SIG, "origin": "gemini"},
        {"type": "invocation", "id": "i1", "name": "f", "arguments": {"x": 1}}]
    assert got["turns"][2]["parts"] == [result("i1", [{"type": "json", "value": 1}], name="f")]
    assert "meta" not in got


def test_thoughts_signatures_opaque_blocks_and_unknown_keys() -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    body = {"contents": [{"role": "model", "futureField": 1, "parts": [
        {"text": "Let me think.", "thought": True, "thoughtSignature": "sig-a"},
        {"text": "", "thought": True},
        {"text": "Answer", "partMetadata": {"k": "v"}},
        {**code, "thoughtSignature": "sig-b"},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {"thoughtSignature": "sig-c"},
        {"functionCall": {"name": "f", "args": {}, "willContinue": False, "futureArg": 2}},
        {"fileData": {"fileUri": "gs://b/v.mp4", "mimeType": "video/mp4"}, "videoMetadata": {"fps": 1}},
    ]}]}
    assert read(body)["turns"] == [{"role": "assistant", "meta": {"gemini": {"extra": {"futureField": 1}}},
                                    "parts": [
        {"type": "reasoning", "text": "Let me think.", "signature": "sig-a", "origin": "gemini"},
        {"type": "reasoning", "text": "", "origin": "gemini", "meta": {"gemini": {"thought": True}}},
        {"type": "text", "text": "Answer", "meta": {"gemini": {"extra": {"partMetadata": {"k": "v"}}}}},
        {"type": "reasoning", "text": "", "signature": "sig-b", "origin": "gemini"},
        {"type": "opaque", "origin": "gemini", "value": code},
        {"type": "opaque", "origin": "gemini",
         "value": {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}}},
        {"type": "opaque", "origin": "gemini", "value": {"thoughtSignature": "sig-c"}},
        {"type": "invocation", "id": "i1", "name": "f", "arguments": {},
         "meta": {"gemini": {"extra": {"functionCall": {"futureArg": 2}}}}},
        {"type": "media", "kind": "video", "media_type": "video/mp4", "url": "gs://b/v.mp4",
         "meta": {"gemini": {"extra": {"videoMetadata": {"fps": 1}}}}},
    ]}]


def test_system_forms_and_legacy_function_role() -> None:
    body = {"systemInstruction": "plain string system", "contents": [
        {"role": "system", "parts": [{"text": "leading system content"}]},
        {"role": "user", "parts": [{"text": "q"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f"}}]},
        {"role": "function", "parts": [{"functionResponse": {"name": "f", "response": {"output": "r"}}}]},
        {"role": "system", "parts": [{"text": "late system"}]},
        {"role": "user"},
    ]}
    got = read(body)
    assert got["system"] == [text("plain string system"), text("leading system content")]
    assert [(t["role"], t["parts"]) for t in got["turns"]] == [
        ("user", [text("q")]),
        ("assistant", [{"type": "invocation", "id": "i1", "name": "f", "arguments": {}}]),
        ("tool", [result("i1", [text("r")], name="f")]),
        ("system", [text("late system")]),
        ("user", [])]


def test_tools_hosted_tools_and_tool_choice_modes() -> None:
    body = {"contents": [], "tools": [
        {"googleSearch": {}},
        {"functionDeclarations": [
            {"name": "a", "parameters": {"type": "OBJECT", "properties": {"q": {"type": "STRING"}}},
             "behavior": "NON_BLOCKING"},
            {"name": "b", "description": "B"}]},
        {"codeExecution": {}, "functionDeclarations": [{"name": "c", "parametersJsonSchema": {}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["a", "b"]}}}
    got = read(body)
    assert got["tools"] == [
        {"name": "googleSearch", "kind": "googleSearch", "origin": "gemini", "raw": {"googleSearch": {}}},
        {"name": "a", "parameters": {"type": "OBJECT", "properties": {"q": {"type": "STRING"}}},
         "meta": {"gemini": {"schema": "parameters", "extra": {"behavior": "NON_BLOCKING"}}}},
        {"name": "b", "description": "B"},
        {"name": "codeExecution", "kind": "codeExecution", "origin": "gemini", "raw": {"codeExecution": {}}},
        {"name": "c", "parameters": {}}]  # an empty schema, kept as declared (not read back as none)
    assert got["tool_choice"] == {"mode": "required"}
    assert got["meta"] == {
        "gemini": {"toolConfig": {"functionCallingConfig": {"allowedFunctionNames": ["a", "b"]}}}}


@pytest.mark.parametrize(("config", "choice", "meta"), [
    ({"mode": "AUTO"}, {"mode": "auto"}, None),
    ({"mode": "NONE"}, {"mode": "none"}, None),
    ({"mode": "any"}, {"mode": "required"}, None),
    ({"mode": "ANY", "allowedFunctionNames": ["f"]}, {"mode": "tool", "name": "f"}, None),
    ({"mode": "VALIDATED"}, {"mode": "auto"}, {"mode": "VALIDATED"}),
    ({}, None, None),
])
def test_tool_choice_modes(config: dict[str, Any], choice: Any, meta: Any) -> None:
    got = read({"contents": [], "toolConfig": {"functionCallingConfig": config}})
    assert got.get("tool_choice") == choice
    assert got.get("meta") == ({"gemini": {"toolConfig": {"functionCallingConfig": meta}}} if meta else None)


@pytest.mark.parametrize(("body", "pointer"), [
    ([], ""),
    ({"contents": {}}, "/contents"),
    ({"contents": [{"role": "assistant", "parts": []}]}, "/contents/0/role"),
    ({"contents": [{"parts": ["hi"]}]}, "/contents/0/parts/0"),
    ({"contents": [{"parts": [{"text": 5}]}]}, "/contents/0/parts/0/text"),
    ({"contents": [{"parts": [{"functionCall": {"name": 1}}]}]}, "/contents/0/parts/0/functionCall/name"),
    ({"contents": [], "tools": [{"functionDeclarations": [{}]}]}, "/tools/0/functionDeclarations/0"),
])
def test_malformed_requests_raise_format_error_with_pointer(body: Any, pointer: str) -> None:
    with pytest.raises(FormatError) as err:
        gemini.read_request(body, Source())
    assert err.value.pointer == pointer


@pytest.mark.parametrize(("body", "pointer", "message"), [
    ({"contents": {}}, "/contents", "contents must be a list, not an object"),
    ({"contents": ["x"]}, "/contents/0", "a content must be an object, not a string"),
    ({"contents": [], "systemInstruction": 5}, "/systemInstruction",
     "systemInstruction must be an object, not a number"),
    ({"contents": [{"parts": [{"text": "x", "thoughtSignature": 5}]}]}, "/contents/0/parts/0/thoughtSignature",
     "thoughtSignature must be a string"),
])
def test_malformed_requests_say_what_was_expected_where(body: Any, pointer: str, message: str) -> None:
    with pytest.raises(FormatError) as caught:
        gemini.read_request(body, SRC)
    assert (caught.value.pointer, caught.value.message) == (pointer, message)


def test_what_gemini_contents_cannot_carry_is_said_at_its_part() -> None:
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(Media(kind="document", data="AAAA"), Json(value={"a": 1}))),
        Turn(role="assistant", parts=(
            Reasoning(signature="A", origin="gemini"), Reasoning(signature="B", origin="gemini"),
            Text(text="hi"), Reasoning(text="t", redacted="R", origin="gemini"),
            Invocation(id="i1", name="f", arguments={}), Invocation(id="i2", name="f", arguments={}))),
        Turn(role="tool", parts=(Text(text="note"),)),
        Turn(role="tool", parts=(
            Result(invocation_id="i1", name="f", content=(Json(value=1), Json(value=2))),
            Result(invocation_id="i2", name="f", is_error=True, content=(Json(value={"error": "boom"}),),
                   meta={"gemini": {"bare_response": True}}))),
        Turn(role="user", parts=(Text(text="Thanks."),))))
    written = gemini.write(conv)
    assert written.body["contents"] == [
        {"role": "user", "parts": [{"inlineData": {"mimeType": "application/octet-stream", "data": "AAAA"}},
                                   {"text": '{"a":1}'}]},
        # (a signature rides on the part after it; one with none but another signature gets its own)
        {"role": "model", "parts": [{"text": "", "thought": True, "thoughtSignature": "A"},
                                    {"text": "hi", "thoughtSignature": "B"}, {"text": "t", "thought": True},
                                    {"functionCall": {"name": "f", "args": {}}},
                                    {"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": [1, 2]}}},
                                   {"functionResponse": {"name": "f", "response": {"error": {"error": "boom"}}}}]},
        {"role": "user", "parts": [{"text": "note"}]},
        {"role": "user", "parts": [{"text": "Thanks."}]}]
    assert sorted(str(loss) for loss in written.losses) == [
        "turn 0 part 0: inlineData needs a MIME type: wrote application/octet-stream",
        "turn 0 part 0: media kind document not carried: Gemini infers it from the MIME type",
        "turn 0 part 1: JSON content outside a tool result written as text",
        "turn 1 part 0: thought signature with no part after it to ride on: written on an empty thought part",
        "turn 1 part 3: Gemini thoughts have no redacted reasoning: dropped",
        "turn 2: Gemini has no tool turn inside contents: written as a user turn",
        "turn 3 part 0: 2 parts of a result written as one JSON array",
        "turn 3 part 0: result moved into the user content right after its call turn (Gemini wants all "
        "responses of a model turn there)",
        "turn 3 part 1: response object wrapped in {'error': …}",
        "turn 3 part 1: result moved into the user content right after its call turn (Gemini wants all "
        "responses of a model turn there)"]


def test_a_signature_before_a_thought_is_written_on_a_thought_of_its_own() -> None:
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(Text(text="q"),)),
        Turn(role="assistant", parts=(Reasoning(signature="A", origin="gemini"),
                                      Reasoning(text="think", origin="gemini"), Text(text="hi"))),
        Turn(role="user", parts=(Text(text="ok"),))))
    written = gemini.write(conv)
    assert written.body["contents"][1] == {"role": "model", "parts": [
        {"text": "", "thought": True, "thoughtSignature": "A"}, {"text": "think", "thought": True}, {"text": "hi"}]}
    assert [str(loss) for loss in written.losses] == [
        "turn 1 part 0: thought signature with no part after it to ride on: written on an empty thought part"]


def test_events_that_are_not_objects_are_problems_of_their_own() -> None:
    _, assembled = assemble("x", {"candidates": ["y"]})
    assert assembled.problems == (StreamProblem("other", "event is not a JSON object: 'x'", 0),
                                  StreamProblem("other", "a candidate is not an object", 1),
                                  StreamProblem("truncated", "the stream ended without a finishReason", 1))


def test_read_response_success_block_and_error() -> None:
    ok = gemini.read_response({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "Hi"}, {"functionCall": {"name": "f", "args": {"a": 1}}}]},
            "finishReason": "STOP", "index": 0, "finishMessage": "Model generated function call(s)."}],
        "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 5},
        "modelVersion": "gemini-2.5-flash", "responseId": "r1"}, SRC)
    assert turn_to_dict(ok.turn, sources=False) == {"role": "assistant", "parts": [
        text("Hi"), {"type": "invocation", "id": "i1", "name": "f", "arguments": {"a": 1}}]}
    assert (ok.finish_reason, ok.model, ok.usage) == (
        "STOP", "gemini-2.5-flash", {"promptTokenCount": 3, "totalTokenCount": 5})
    assert ok.meta == {"gemini": {"responseId": "r1", "finishMessage": "Model generated function call(s)."}}
    assert ok.turn.source.pointer == "/candidates/0/content"

    blocked = gemini.read_response({"promptFeedback": {"blockReason": "SAFETY"}}, SRC)
    assert (blocked.turn, blocked.finish_reason) == (None, "SAFETY")
    assert blocked.meta == {"gemini": {"promptFeedback": {"blockReason": "SAFETY"}}}

    error = gemini.read_response({"error": {"code": 400, "message": "Please ensure …",
                                            "status": "INVALID_ARGUMENT"}}, SRC)
    assert error.error == ApiError(message="Please ensure …", type="INVALID_ARGUMENT", code="400")

    malformed = gemini.read_response({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL"}]}, SRC)
    assert malformed.turn == Turn(role="assistant") and malformed.finish_reason == "MALFORMED_FUNCTION_CALL"


@pytest.mark.needs_corpus
def test_sniffing() -> None:
    assert gemini.sniff({"contents": []}, "request")
    assert not gemini.sniff({"messages": []}, "request")
    assert gemini.sniff({"candidates": []}, "response")
    assert gemini.sniff(loads((CORPUS / "vercel-ai-fixtures/google/google-429-retry-info.json").read_text()),
                        "response")
    assert not gemini.sniff({"error": {"type": "invalid_request_error", "message": "x"}}, "response")
    assert gemini.sniff_stream(events({"candidates": []}))
    assert not gemini.sniff_stream(events({"type": "message_start"}))
    assert gemini.URL_HINTS and any(h in "/v1beta/models/m:streamGenerateContent?alt=sse"
                                    for h in gemini.URL_HINTS)


# -------------------------------------------------------------------------------------- streams


def assemble(*data: Any) -> tuple[dict[str, Any], Any]:
    """Events → (assembled body, Assembled)."""
    out = gemini.assemble_stream(events(*data), SRC)
    return out.body, out


def test_stream_joins_text_runs_keeps_whole_calls_and_takes_the_last_usage() -> None:
    body, out = assemble(
        chunk({"text": "Let me "}, usageMetadata={"promptTokenCount": 5}, modelVersion="m", responseId="r"),
        chunk({"text": "check", "thought": True}),
        chunk({"text": " this.", "thought": True}),
        chunk({"text": "Checking "}),
        chunk({"text": "both."}, {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
                                  "thoughtSignature": SIG}),
        chunk({"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}),
        chunk({"text": ""}, finish="STOP", usageMetadata={"promptTokenCount": 5, "totalTokenCount": 9}),
        {"usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 10}},  # a usage-only chunk
        chunk(finish="STOP"),  # a duplicated finish chunk
    )
    assert body == {"candidates": [{"content": {"parts": [
        {"text": "Let me "},
        {"text": "check this.", "thought": True},
        {"text": "Checking both."},
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}, "thoughtSignature": SIG},
        {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}}}], "role": "model"},
        "index": 0, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 10},
        "modelVersion": "m", "responseId": "r"}
    assert out.problems == () and out.complete
    assert out.chunks == {"/candidates/0": 0, "/candidates/0/content/parts/0": 0,
                          "/candidates/0/content/parts/1": 1, "/candidates/0/content/parts/2": 3,
                          "/candidates/0/content/parts/3": 4, "/candidates/0/content/parts/4": 5,
                          "/candidates/0/finishReason": 8}
    response = gemini.read_response(body, SRC)
    assert [p.type for p in response.turn.parts] == ["text", "reasoning", "text", "reasoning", "invocation",
                                                     "invocation"]


def test_a_signature_starts_a_new_text_part() -> None:
    body, _ = assemble(chunk({"text": "Three r's."}),
                       chunk({"text": "", "thoughtSignature": SIG}, finish="STOP"))
    assert body["candidates"][0]["content"]["parts"] == [{"text": "Three r's."},
                                                         {"text": "", "thoughtSignature": SIG}]
    turn = gemini.read_response(body, SRC).turn
    assert turn.parts == (Text(text="Three r's."), Reasoning(signature=SIG, origin="gemini"), Text(text=""))


def test_stream_partial_args_build_nested_arguments() -> None:
    def fc(**call: Any) -> dict[str, Any]:
        return {"functionCall": call}

    def arg(path: str, **value: Any) -> dict[str, Any]:
        return {"jsonPath": path, **value}

    body, out = assemble(
        chunk({**fc(name="plan", id="call_7", willContinue=True), "thoughtSignature": SIG}),
        chunk(fc(partialArgs=[arg("$.steps[0].title", stringValue="Pre", willContinue=True)],
                 willContinue=True)),
        chunk(fc(name="", id="", partialArgs=[arg("$.steps[0].title", stringValue="heat")],
                 willContinue=True)),
        chunk(fc(partialArgs=[arg("$.steps[0].minutes", numberValue=10),
                              arg("$.steps[1]['odd.key']", boolValue=True),
                              arg("$.note", nullValue="NULL_VALUE")], willContinue=True)),
        chunk(fc(willContinue=True)),
        chunk(fc()),
        chunk(fc(name="done", partialArgs=[arg("$.ok", boolValue=True)])),  # a whole call in one fragment
        chunk({"text": ""}, finish="STOP"),
    )
    assert body["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"name": "plan", "id": "call_7", "args": {
            "steps": [{"title": "Preheat", "minutes": 10}, {"odd.key": True}], "note": None}},
         "thoughtSignature": SIG},
        {"functionCall": {"name": "done", "args": {"ok": True}}}]
    assert out.problems == () and out.complete
    calls = list(gemini.read_response(body, SRC).turn.invocations())
    assert [(c.name, c.wire_id) for c in calls] == [("plan", "call_7"), ("done", None)]


def test_truncated_stream() -> None:
    _, out = assemble(chunk({"text": "Hel"}), chunk({"text": "lo"}))
    assert not out.complete
    assert out.problems == (StreamProblem("truncated", "the stream ended without a finishReason", 1),)


def test_broken_streamed_calls_report_the_chunk_that_broke() -> None:
    body, out = assemble(
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.a", "stringValue": "x"}],
                                "willContinue": True}}),
        chunk({"functionCall": {"name": "first", "willContinue": True}}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.list[3]", "numberValue": 1},
                                                {"jsonPath": "nonsense", "stringValue": "y"}],
                                "willContinue": True}}),
        chunk({"functionCall": {"name": "second", "willContinue": True}}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.q", "stringValue": "abc"}],
                                "willContinue": True}}, finish="STOP"),
    )
    assert [(p.kind, p.chunk) for p in out.problems] == [
        ("identity", 0), ("order", 1), ("order", 2), ("arguments", 2), ("order", 3), ("truncated", 4)]
    assert out.problems[1].message == "call first began before call (unnamed) was closed"
    assert out.problems[2].message == "$.list[3]: index 3 arrived before index 0"
    assert out.complete  # the stream itself finished; the last call did not
    assert [p["functionCall"] for p in body["candidates"][0]["content"]["parts"]] == [
        {"args": {"a": "x"}}, {"name": "first", "args": {}}, {"name": "second", "args": {"q": "abc"}}]


def test_stream_error_event_and_error_only_stream() -> None:
    err = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    body, out = assemble(chunk({"text": "Hi"}), err)
    assert out.problems == (StreamProblem("error", "The model is overloaded.", 1),)
    assert body["candidates"][0]["content"]["parts"] == [{"text": "Hi"}]
    body, out = assemble(err)
    assert gemini.read_response(body, SRC).error == ApiError(message="The model is overloaded.",
                                                             type="UNAVAILABLE", code="503")
    assert gemini.split_streams(events(err, err)) == [events(err, err)]


def test_sse_capture_with_crlf_framing() -> None:
    capture = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in (
        chunk({"text": "a"}), chunk({"text": "b"}, finish="STOP")))
    body, out = assemble(*[e.data for e in sse.parse(capture)])
    assert body["candidates"][0]["content"]["parts"] == [{"text": "ab"}] and out.problems == ()


def read_chunks(name: str) -> list[StreamEvent]:
    lines = (CORPUS / "vercel-ai-fixtures/google" / name).read_text().splitlines()
    return [StreamEvent(index=i, data=loads(line))
            for i, line in enumerate(line for line in lines if line.strip())]


@pytest.mark.parametrize(("name", "calls", "problems"), [
    ("google-tool-call.chunks.txt", [("weather", {"location": "San Francisco"})], []),
    ("google-tool-call-gemini3.chunks.txt", [("weather", {"location": "San Francisco"})], []),
    ("google-stream-tool-call-arguments.chunks.txt",
     [("getWeather", {"location": "Boston"}), ("getWeather", {"location": "San Francisco"})], []),
    ("google-stream-no-args-tool-call.chunks.txt",
     [("read_theme", {}), ("read_screen", {"id": "A"}), ("read_screen", {"id": "B"}),
      ("read_screen", {"id": "C"})], []),
    ("google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
     [("writeItems", {"operations": [
         {"action": "add", "description": "Fresh red apple", "itemid": "apple_001", "price": 0.5},
         {"action": "add", "description": "Ripe yellow banana", "itemid": "banana_001", "price": 0.3}]})],
     [("other", 14)]),
    ("google-reasoning-gemini3.chunks.txt", [], []),
])
@pytest.mark.needs_corpus
def test_vercel_stream_fixtures(name: str, calls: list[Any], problems: list[Any]) -> None:
    out = gemini.assemble_stream(read_chunks(name), SRC)
    response = gemini.read_response(out.body, SRC)
    assert [(c.name, c.arguments) for c in response.turn.invocations()] == calls
    assert [(p.kind, p.chunk) for p in out.problems] == problems
    assert out.complete and response.finish_reason == "STOP"
    # every call keeps the signature of its first chunk, placed right before it
    first = next((i for i, p in enumerate(response.turn.parts) if isinstance(p, Invocation)), None)
    if first is not None and name != "google-stream-no-args-tool-call.chunks.txt":
        before = response.turn.parts[first - 1]
        assert isinstance(before, Reasoning) and before.signature


@pytest.mark.needs_corpus
def test_vercel_nested_partial_args_fixture() -> None:
    events_ = read_chunks("google-vertex-stream-tool-call-arguments-nested.1.chunks.txt")
    out = gemini.assemble_stream(events_, SRC)
    (call,) = gemini.read_response(out.body, SRC).turn.invocations()
    recipe = call.arguments["recipe"]
    assert call.name == "cookRecipe" and out.problems == ()
    assert recipe["name"] == "Lasagna" and len(recipe["ingredients"]) == 10 and len(recipe["steps"]) == 10
    assert recipe["ingredients"][0] == {"amount": "16 oz", "name": "Lasagna noodles"}
    assert recipe["steps"][1] == "Cook lasagna noodles according to package directions, drain and set aside."
    assert recipe["steps"][4] == "In a 9x13 baking dish, spread a thin layer of meat sauce."


@pytest.mark.needs_corpus
def test_vercel_reasoning_fixture_keeps_the_trailing_signature() -> None:
    out = gemini.assemble_stream(read_chunks("google-reasoning-gemini3.chunks.txt"), SRC)
    turn = gemini.read_response(out.body, SRC).turn
    assert [p.type for p in turn.parts] == ["text", "reasoning", "text"]
    assert turn.parts[0] == Text(text='There are **3** "r"s in strawberry.\n\nSt**r**awbe**rr**y')
    assert turn.parts[1].signature.startswith("EpAICo0IAb4") and turn.parts[2] == Text(text="")
    assert out.chunks["/candidates/0/content/parts/1"] == 2


# -------------------------------------------------------------------------------------- writing


def test_writes_a_whole_conversation_and_reports_what_it_cannot_carry() -> None:
    turns = (
        Turn(role="user", parts=(Text(text="Weather in Oslo and Bergen?"),
                                 Media(kind="image", media_type="image/png", data="iVBORw0KGgo="))),
        Turn(role="assistant", parts=(
            Reasoning(text="thinking", signature="sig-x", origin="anthropic"), Text(text="Checking."),
            Reasoning(signature="SIG1", origin="gemini"),
            Invocation(name="get_weather", arguments={"city": "Oslo"}, wire_id="call_1"),
            Invocation(name="get_weather", arguments={"city": "Bergen"}, wire_id="call_2"))),
        Turn(role="tool", parts=(  # completion order; the first has no name: link gives it its call's
            Result(wire_id="call_2", content=(Text(text="timeout"),), is_error=True),
            Result(wire_id="call_1", name="get_weather",
                   content=(Json(value={"temp_c": 4}),
                            Media(kind="image", media_type="image/png", data="AA==")),
                   meta={"anthropic": {"cache_control": {"type": "ephemeral"}}}))),
        Turn(role="assistant", parts=(Text(text="Oslo 4°C; Bergen failed."),)),
    )
    conv = Conversation(
        system=(Text(text="Be terse."),),
        tools=(Tool(name="get_weather", description="Weather", parameters={"type": "object"}),
               Tool(name="web_search", kind="web_search_20250305", origin="anthropic",
                    raw={"type": "web_search_20250305"})),
        tool_choice=ToolChoice(mode="required", parallel=False), turns=link(turns))
    written = gemini.write(conv)
    assert written.body == {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Oslo and Bergen?"},
                                       {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}]},
            {"role": "model", "parts": [
                {"text": "Checking."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_1"},
                 "thoughtSignature": "SIG1"},
                {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}, "id": "call_2"}}]},
            {"role": "user", "parts": [  # one content, in call order
                {"functionResponse": {"name": "get_weather", "id": "call_1",
                                      "response": {"output": {"temp_c": 4}},
                                      "parts": [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}},
                {"functionResponse": {"name": "get_weather", "id": "call_2",
                                      "response": {"error": "timeout"}}}]},
            {"role": "model", "parts": [{"text": "Oslo 4°C; Bergen failed."}]}],
        "systemInstruction": {"parts": [{"text": "Be terse."}]},
        "tools": [{"functionDeclarations": [
            {"name": "get_weather", "description": "Weather", "parametersJsonSchema": {"type": "object"}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
    }
    assert written.losses == (
        Loss("anthropic reasoning dropped: Gemini only accepts its own thoughts and thought signatures",
             1, 0),
        Loss("anthropic details not carried: cache_control", 2, 1),
        Loss("anthropic's hosted tool web_search (web_search_20250305) has no Gemini equivalent: dropped"),
        Loss("tool_choice.parallel: False — not carried: Gemini cannot forbid parallel calls explicitly"),
        Loss("Gemini rejects a history that ends on a model turn; append a user turn before sending"),
    )


def test_details_of_a_results_content_another_format_kept_are_said_not_carried() -> None:
    """A cache point on a tool result's text (Anthropic `cache_control`) was dropped with nothing
    said; the other writers said it."""
    turns = link((Turn(role="user", parts=(Text(text="look"),)),
                  Turn(role="assistant", parts=(Invocation(name="f", arguments={}, wire_id="toolu_1"),)),
                  Turn(role="tool", parts=(Result(wire_id="toolu_1", name="f", content=(
                      Text(text="ok", meta={"anthropic": {"cache_control": {"type": "ephemeral"}}}),)),)),
                  Turn(role="user", parts=(Text(text="go"),))))
    written = gemini.write(Conversation(turns=turns))
    assert written.body["contents"][2]["parts"] == [
        {"functionResponse": {"name": "f", "id": "toolu_1", "response": {"output": "ok"}}}]
    assert [str(x) for x in written.losses] == ["turn 2 part 0: anthropic details not carried: cache_control"]


def test_writer_reports_rule_breaks_and_repairs_nothing_silently() -> None:
    turns = link((
        Turn(role="assistant", parts=(Invocation(name="1st tool", arguments=None, raw_arguments='{"a":'),
                                      Invocation(name="lookup", arguments={"q": 1}))),
        Turn(role="tool", parts=(Result(name="1st tool", content=(Text(text="a"), Text(text="b"))),)),
        Turn(role="system", parts=(Text(text="Be careful."),)),
        Turn(role="user", parts=(Result(wire_id="call_zz", name="ghost", content=(Text(text="?"),)),
                                 Reasoning(signature="lonely", origin="gemini"),
                                 Media(kind="file", file_id="file-abc"))),
        Turn(role="user", parts=()),
    ))
    written = gemini.write(Conversation(tools=(Tool(name="1st tool"),), tool_choice=ToolChoice(mode="tool"),
                                        turns=turns))
    assert written.body == {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "_1st_tool", "args": {}}},
                                        {"functionCall": {"name": "lookup", "args": {"q": 1}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "_1st_tool", "response": {"output": "a\nb"}}}]},
            {"role": "user", "parts": [{"text": "Be careful."}]},
            {"role": "user", "parts": [{"text": "", "thought": True, "thoughtSignature": "lonely"}]}],
        "tools": [{"functionDeclarations": [{"name": "_1st_tool"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
    }
    bad_name = ("tool name '1st tool' does not fit gemini (starting with a letter or _, letters, digits, "
                "-, ., : and _, 1 to 64 characters); wrote '_1st_tool'")
    assert written.losses == (
        Loss(bad_name, 0, 0),
        Loss("arguments '{\"a\":' are not a JSON object, which Gemini requires: wrote {}", 0, 0),
        Loss(bad_name, 1, 0),
        Loss("2 text parts of a result joined into one response string", 1, 0),
        Loss("call lookup (turn 0, part 1) has no result: Gemini requires one functionResponse per "
             "functionCall in the next content"),
        Loss("Gemini has no system turn inside contents: written as a user turn", 2),
        Loss("result for ghost answers no call of the model turn before it: Gemini has nowhere to put it, "
             "dropped", 3, 0),
        Loss("file id file-abc has no Gemini equivalent (fileData needs a URI): media dropped", 3, 2),
        Loss("thought signature with no part after it to ride on: written on an empty thought part", 3, 1),
        Loss("empty turn omitted: Gemini rejects a content without parts", 4),
        Loss(bad_name),
        Loss("tool_choice: 'tool' — written as ANY (any tool): the forced choice names no tool"),
        Loss("the function call turn (turn 0) does not follow a user turn or a function response turn: "
             "Gemini rejects it"),
    )


def test_result_names_read_and_write_as_their_calls() -> None:
    """A response without a name takes its call's; a name unlike the call's is written as given and
    reported only where it breaks the pairing: when the call has no id, Gemini pairs by name."""
    body = {"contents": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}, "id": "fc1"}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "fc1", "response": {"output": 1}}}]}]}
    assert read(body)["turns"][2]["parts"] == [
        result("i1", [{"type": "json", "value": 1}], name="f", wire_id="fc1")]

    def conv(wire_id: str | None) -> Conversation:
        turns = link((
            Turn(role="user", parts=(Text(text="go"),)),
            Turn(role="assistant", parts=(Invocation(name="f", arguments={}, wire_id=wire_id),)),
            Turn(role="tool", parts=(Result(wire_id=wire_id, content=(Text(text="x"),)),)),
            Turn(role="user", parts=(Text(text="next"),))))
        renamed = replace(turns[2], parts=(replace(turns[2].parts[0], name="g"),))
        return Conversation(turns=(*turns[:2], renamed, turns[3]))

    with_ids, without_ids = gemini.write(conv("fc1")), gemini.write(conv(None))
    assert with_ids.body["contents"][2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "g", "id": "fc1", "response": {"output": "x"}}}]}
    assert with_ids.losses == ()
    assert as_conversation(gemini.read_request(with_ids.body, SRC)).turns[2].parts[0].invocation_id == "i1"
    assert without_ids.body["contents"][2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "g", "response": {"output": "x"}}}]}
    assert without_ids.losses == (
        Loss("functionResponse named 'g' answers a call of 'f': without ids Gemini pairs responses with "
             "calls by name, so it no longer answers its call", 2, 0),)
    assert gemini.read_request(without_ids.body, SRC).turns[2].parts[0].invocation_id is None
    # Only a conversation built without `link` can hold a bound result with no name.
    unlinked = conv(None)
    unlinked = replace(unlinked, turns=(*unlinked.turns[:2], replace(unlinked.turns[2], parts=(
        replace(unlinked.turns[2].parts[0], name=None),)), unlinked.turns[3]))
    assert gemini.write(unlinked).losses == (
        Loss("functionResponse needs the function name: wrote 'f', its call's", 2, 0),)


def test_own_details_round_trip_to_the_same_wire_body() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [
                {"text": "hi"},
                {"fileData": {"fileUri": "files/x", "mimeType": "video/mp4"},
                 "videoMetadata": {"startOffset": "1s"}}]},
            {"role": "model", "parts": [
                {"text": "", "thought": True, "thoughtSignature": "s0"},
                {"text": "plan", "thought": True},
                {"executableCode": {"language": "PYTHON", "code": "1"}, "thoughtSignature": "s1"},
                {"functionCall": {"name": "f", "args": {"a": [1]}, "id": "fc1"}, "thoughtSignature": "s2"}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "f", "id": "fc1", "response": {"result": 1},
                                      "scheduling": "SILENT"}}]},
            {"role": "user", "parts": [{"text": "next"}]}],
        "systemInstruction": {"role": "system", "parts": [{"text": "s"}]},
        "tools": [{"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT"}}]},
                  {"googleSearch": {}}],
        "toolConfig": {"functionCallingConfig": {"mode": "VALIDATED", "allowedFunctionNames": ["f"]}},
        "generationConfig": {"temperature": 0.2, "thinkingConfig": {"includeThoughts": True}},
        "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}],
    }
    written = gemini.write(as_conversation(gemini.read_request(body, SRC)))
    assert written.body == body and written.losses == ()


def test_genai_replay_rewrites_to_the_same_body() -> None:
    har = json.loads((paths.REAL_CLIENTS / "genai-generate.har").read_text())
    body = loads(har["log"]["entries"][1]["request"]["postData"]["text"])
    written = gemini.write(as_conversation(gemini.read_request(body, SRC)))
    assert written.losses == ()
    assert written.body == {k: v for k, v in body.items() if k != "generationConfig"}  # {} is the default


# --------------------------------------------------------------------------------------- corpus


def recordings() -> list[tuple[Path, int, dict[str, Any]]]:
    out = []
    for path in sorted((CORPUS / "opencode-recordings/gemini").glob("*.json")):
        for i, it in enumerate(json.loads(path.read_text())["interactions"]):
            out.append((path, i, it))
    return out


@pytest.mark.parametrize(("path", "i", "interaction"),
                         paths.corpus_params(recordings(), arity=3, ids=lambda r: f"{r[0].name}#{r[1]}"))
def test_opencode_recordings_read(path: Path, i: int, interaction: dict[str, Any]) -> None:
    name = path.name
    url = interaction["request"]["url"]
    assert any(hint in url for hint in gemini.URL_HINTS)
    body = loads(interaction["request"]["body"])
    assert gemini.sniff(body, "request")
    req = gemini.read_request(body, SRC)
    stream = sse.parse(interaction["response"]["body"])
    assert gemini.sniff_stream(stream)
    out = gemini.assemble_stream(stream, SRC)
    assert out.problems == () and out.complete
    response = gemini.read_response(out.body, SRC)
    assert response.finish_reason == "STOP" and response.model == "gemini-2.5-flash"
    assert req.settings.temperature == 0
    if name == "streams-tool-call.json":
        assert req.tool_choice == ToolChoice(mode="tool", name="get_weather")
        assert req.tools[0].meta == {"gemini": {"schema": "parameters"}}
        sig, call = response.turn.parts
        assert sig.signature.startswith("CiQBDDnWx1Wa8wdQ") and call.wire_id is None
        assert (call.name, call.arguments) == ("get_weather", {"city": "Paris"})
        assert response.meta["gemini"]["finishMessage"] == "Model generated function call(s)."
    elif name == "gemini-2-5-flash-image.json":
        image = req.turns[0].parts[1]
        assert isinstance(image, Media) and image.media_type == "image/png"
        assert image.data.startswith("iVBORw0KGgo")
        assert response.turn.parts == (Text(text="jiggling restroom prison"),)
        assert response.usage["thoughtsTokenCount"] == 106
    else:
        assert response.turn.parts == (Text(text="Hello!"),)
        assert req.system == (Text(text="You are concise."),)


@pytest.mark.parametrize("stream", [False, True])
def test_genai_har_captures(stream: bool) -> None:
    har = json.loads((paths.REAL_CLIENTS / f"genai-generate{'-stream' if stream else ''}.har").read_text())
    (first, second) = har["log"]["entries"]
    responses = []
    for entry in (first, second):
        text_body = entry["response"]["content"]["text"]
        if stream:
            out = gemini.assemble_stream(sse.parse(text_body), SRC)
            assert out.problems == ()
            responses.append(gemini.read_response(out.body, SRC))
        else:
            responses.append(gemini.read_response(loads(text_body), SRC))
    said = responses[0].turn
    assert [p.type for p in said.parts] == ["text", "reasoning", "invocation", "invocation"]
    assert [c.arguments for c in said.invocations()] == [{"city": "Oslo"}, {"city": "Bergen"}]
    replay = gemini.read_request(loads(second["request"]["postData"]["text"]), SRC)
    assert replay.tools[0].parameters["type"] == "OBJECT"  # upper-case OpenAPI types stay as given
    model, results = replay.turns[1], replay.turns[2]
    # google-genai re-encodes the signature as URL-safe base64 on replay: kept exactly as sent
    assert model.parts[1].signature != said.parts[1].signature
    assert model.parts[1].signature == said.parts[1].signature.replace("+", "-").replace("/", "_")
    assert [(r.invocation_id, r.is_error, r.content) for r in results.results()] == [
        ("i1", False, (Json(value={"temp_c": 4, "condition": "overcast"}),)),
        ("i2", True, (Text(text="weather service timed out for Bergen"),))]
    assert responses[1].turn.parts[0].text.startswith("Here is what I received")


@pytest.mark.needs_corpus
def test_vercel_response_bodies() -> None:
    base = CORPUS / "vercel-ai-fixtures/google"
    call = gemini.read_response(loads((base / "google-tool-call.json").read_text()), SRC)
    sig, inv = call.turn.parts
    assert (inv.name, inv.arguments, inv.wire_id) == ("weather", {"location": "San Francisco"}, None)
    assert sig.signature.startswith("EskgCsYgAb4") and call.model == "gemini-3-pro-preview"
    error = gemini.read_response(loads((base / "google-429-retry-info.json").read_text()), SRC)
    assert error.error == ApiError(message="You exceeded your current quota, please check your plan.",
                                   type="RESOURCE_EXHAUSTED", code="429")
    assert error.meta["gemini"]["details"][1]["retryDelay"] == "34.4s"


# ----------------------------------------------------------------------------------- properties

_PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def round_trip(conv: Conversation) -> tuple[Any, Conversation]:
    written = gemini.write(conv)
    back = as_conversation(gemini.read_request(written.body, SRC))
    return written, back


@_PROPS
@given(st.one_of(conversations(), conversations(reasoning_origin="gemini")))
def test_round_trip_loses_only_what_it_reports(conv: Conversation) -> None:
    written, back = round_trip(conv)
    assert_losses_explain(conv, back, written.losses)
    assert back.turns == conv.turns and back.tools == conv.tools and back.tool_choice == conv.tool_choice


@_PROPS
@given(conversations(reasoning_origin="anthropic"))
def test_foreign_reasoning_is_reported_lost(conv: Conversation) -> None:
    written, back = round_trip(conv)
    assert_losses_explain(conv, back, written.losses)
    foreign = {(k, i) for k, t in enumerate(conv.turns) for i, p in enumerate(t.parts)
               if isinstance(p, Reasoning)}
    assert foreign <= {(loss.turn, loss.part) for loss in written.losses}


@_PROPS
@given(conversations(reasoning_origin="gemini"))
def test_write_read_write_is_stable(conv: Conversation) -> None:
    written, back = round_trip(conv)
    assert gemini.write(back).body == written.body


_KEYS = ["contents", "parts", "role", "text", "thought", "thoughtSignature", "functionCall", "function_call",
         "functionResponse", "name", "args", "id", "response", "output", "error", "inlineData", "fileData",
         "mimeType", "data", "fileUri", "systemInstruction", "tools", "functionDeclarations", "parameters",
         "toolConfig", "functionCallingConfig", "mode", "allowedFunctionNames", "candidates", "content",
         "finishReason", "index", "usageMetadata", "modelVersion", "promptFeedback", "blockReason",
         "partialArgs", "jsonPath", "stringValue", "numberValue", "willContinue", "message", "status", "code"]
_JSON = st.recursive(
    st.one_of(json_values, st.sampled_from(["user", "model", "function", "ANY", "$.a[0].b", "$.a", "x"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(st.sampled_from(_KEYS), st.text(max_size=6)), inner,
                                            max_size=5)),
    max_leaves=25,
)


@_PROPS
@given(_JSON)
def test_readers_raise_only_format_error_on_arbitrary_json(value: Any) -> None:
    for reader in (gemini.read_request, gemini.read_response):
        try:
            reader(value, SRC)
        except FormatError:
            pass


@_PROPS
@given(st.lists(_JSON, max_size=6))
def test_assembly_never_raises_on_arbitrary_events(data: list[Any]) -> None:
    out = gemini.assemble_stream(events(*data), SRC)
    try:
        gemini.read_response(out.body, SRC)
    except FormatError:
        pass


# -------------------------------------------------------------------------------------- samples

SAMPLES = Path(__file__).resolve().parents[2] / "sample_transcripts/gemini"


def test_sample_jsonl_exchanges() -> None:
    lines = [json.loads(line) for line in (SAMPLES / "parallel-calls.jsonl").read_text().splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert any(h in line["request"]["url"] for h in gemini.URL_HINTS)
        assert gemini.sniff(line["request"]["body"], "request")
        assert gemini.sniff(line["response"]["body"], "response")
    said = gemini.read_response(lines[0]["response"]["body"], SRC).turn
    assert [p.type for p in said.parts] == ["text", "reasoning", "invocation", "invocation"]
    replay = gemini.read_request(lines[1]["request"]["body"], SRC)
    assert replay.turns[1] == said  # the history replays the model turn exactly
    assert replay.turns[0].parts[1].kind == "image"
    assert [(r.invocation_id, r.is_error) for r in replay.turns[2].results()] == [("i1", False), ("i2", True)]
    assert gemini.write(as_conversation(replay)).body == lines[1]["request"]["body"]


def test_sample_stream_and_bodies() -> None:
    out = gemini.assemble_stream(sse.parse((SAMPLES / "stream.sse").read_text()), SRC)
    assert out.problems == () and out.complete
    turn = gemini.read_response(out.body, SRC).turn
    assert turn.parts[0].text == "The map shows Oslo and Bergen. I'll check the current weather in both."
    assert [c.arguments["city"] for c in turn.invocations()] == ["Oslo", "Bergen"]
    request = loads((SAMPLES / "request.json").read_text())
    written = gemini.write(as_conversation(gemini.read_request(request, SRC)))
    assert written.body == request and written.losses == ()
    answer = gemini.read_response(loads((SAMPLES / "response.json").read_text()), SRC)
    assert answer.finish_reason == "STOP" and "107.42 EUR" in answer.turn.parts[0].text
