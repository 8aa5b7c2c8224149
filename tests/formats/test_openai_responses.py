"""openai-responses: reading requests/responses, assembling SSE streams, writing replay requests."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import paths
from tests.strategies import assert_losses_explain, conversations
from tooldbg.errors import FormatError
from tooldbg.formats import openai_responses as fmt
from tooldbg.formats.base import ApiError, StreamEvent, StreamProblem
from tooldbg.model import (
    Conversation,
    Invocation,
    Json,
    Loss,
    Media,
    Opaque,
    Reasoning,
    Result,
    Text,
    Tool,
    ToolChoice,
    Turn,
    conversation_to_dict,
)
from tooldbg.records import sse
from tooldbg.source import Source

NAME = fmt.NAME
CORPUS = paths.CORPUS
SAMPLES = Path(__file__).resolve().parents[2] / "sample_transcripts" / "openai-responses"
SRC = Source(file="t.json", side="request")


def meta(**fields: Any) -> dict[str, Any]:
    return {NAME: fields}


def conv_of(body: Any) -> Conversation:
    """A request body read back as the conversation it replays."""
    r = fmt.read_request(body, SRC)
    return Conversation(
        model=r.model, system=r.system, tools=r.tools, tool_choice=r.tool_choice, turns=r.turns, meta=r.meta,
        settings=r.settings
    )


def as_dict(body: Any) -> dict[str, Any]:
    return conversation_to_dict(conv_of(body), sources=False)


def events_of(*payloads: Any) -> list[StreamEvent]:
    """SSE-like events: `name` is the `event:` field, as records.sse gives it."""
    return [
        StreamEvent(index=i, data=p, name=p.get("type") if isinstance(p, dict) else None)
        for i, p in enumerate(payloads)
    ]


def chunks_file(path: Path) -> list[StreamEvent]:
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    return [StreamEvent(index=i, data=json.loads(line)) for i, line in enumerate(lines)]


# ----------------------------------------------------------------------------- reading requests

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": True,
}


def test_request_round_trip_with_reasoning_text_beside_parallel_calls_and_a_failure():
    body = {
        "model": "gpt-5.5",
        "instructions": "Be terse.",
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "tools": [WEATHER],
        "input": [
            {"role": "developer", "content": "Use metric units."},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Oslo and Bergen?"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,iVBORw0KGgo=",
                        "detail": "low",
                    },
                ],
            },
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Two cities."}],
                "encrypted_content": "gAAAA-sig",
            },
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "phase": "commentary",
                "content": [{"type": "output_text", "text": "Checking both.", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_A",
                "name": "get_weather",
                "arguments": '{"city":"Oslo"}',
            },
            {
                "type": "function_call",
                "id": "fc_2",
                "call_id": "call_B",
                "name": "get_weather",
                "arguments": '{"city":"Bergen"}',
                "status": "in_progress",
            },
            {"type": "function_call_output", "call_id": "call_A", "output": '{"temp_c":4}'},
            {"type": "function_call_output", "call_id": "call_B", "output": "Error: timed out"},
            {
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Oslo 4 °C; Bergen failed."}],
                "phase": "final_answer",
            },
        ],
    }
    assert as_dict(body) == {
        "id": "c1",
        "model": "gpt-5.5",
        "system": [
            {"type": "text", "text": "Be terse."},
            {"type": "text", "text": "Use metric units.", "meta": meta(role="developer")},
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Current weather",
                "parameters": WEATHER["parameters"],
                "meta": meta(strict=True),
            }
        ],
        "turns": [
            {
                "role": "user",
                "parts": [
                    {"type": "text", "text": "Oslo and Bergen?"},
                    {
                        "type": "media",
                        "kind": "image",
                        "media_type": "image/png",
                        "data": "iVBORw0KGgo=",
                        "meta": meta(detail="low"),
                    },
                ],
            },
            {
                "role": "assistant",
                "parts": [
                    {
                        "type": "reasoning",
                        "text": "",
                        "summary": ["Two cities."],
                        "signature": "gAAAA-sig",
                        "origin": NAME,
                        "wire_id": "rs_1",
                    },
                    {
                        "type": "text",
                        "text": "Checking both.",
                        "meta": meta(message={"id": "msg_1", "phase": "commentary"}),
                    },
                    {
                        "type": "invocation",
                        "id": "i1",
                        "name": "get_weather",
                        "arguments": {"city": "Oslo"},
                        "wire_id": "call_A",
                        "meta": meta(id="fc_1"),
                    },
                    {
                        "type": "invocation",
                        "id": "i2",
                        "name": "get_weather",
                        "arguments": {"city": "Bergen"},
                        "wire_id": "call_B",
                        "meta": meta(id="fc_2", status="in_progress"),
                    },
                ],
            },
            {
                "role": "tool",
                "parts": [
                    {
                        "type": "result",
                        "invocation_id": "i1",
                        "wire_id": "call_A",
                        "name": "get_weather",
                        "is_error": False,
                        "content": [{"type": "text", "text": '{"temp_c":4}'}],
                    },
                    {
                        "type": "result",
                        "invocation_id": "i2",
                        "wire_id": "call_B",
                        "name": "get_weather",
                        "is_error": False,
                        "content": [{"type": "text", "text": "Error: timed out"}],
                    },
                ],
            },
            {
                "role": "assistant",
                "parts": [
                    {
                        "type": "text",
                        "text": "Oslo 4 °C; Bergen failed.",
                        "meta": meta(message={"phase": "final_answer"}),
                    }
                ],
            },
        ],
        "meta": meta(store=False, include=["reasoning.encrypted_content"]),
    }
    # Writing it back gives the same request, except content strings become part lists.
    written = fmt.write(conv_of(body))
    assert written.losses == ()
    assert written.body["input"][0] == {
        "role": "developer",
        "content": [{"type": "input_text", "text": "Use metric units."}],
    }
    assert written.body["input"][1:] == body["input"][1:]
    assert {k: v for k, v in written.body.items() if k != "input"} == {
        k: v for k, v in body.items() if k != "input"
    }


def test_request_input_string_content_variants_and_mid_conversation_system():
    assert as_dict({"model": "m", "input": "Hi"})["turns"] == [
        {"role": "user", "parts": [{"type": "text", "text": "Hi"}]}
    ]
    turns = as_dict(
        {
            "input": [
                {"role": "user", "content": None},
                {"type": "message", "role": "user", "content": "plain", "status": "incomplete"},
                {"role": "system", "content": [{"type": "input_text", "text": "Now be formal."}]},
                {"role": "developer", "content": "And brief."},
                {"role": "assistant", "content": "Sure."},
            ]
        }
    )["turns"]
    assert turns == [
        {"role": "user", "parts": []},
        {"role": "user", "parts": [{"type": "text", "text": "plain"}], "meta": meta(status="incomplete")},
        {"role": "system", "parts": [{"type": "text", "text": "Now be formal."}]},
        {"role": "system", "parts": [{"type": "text", "text": "And brief."}], "meta": meta(role="developer")},
        {"role": "assistant", "parts": [{"type": "text", "text": "Sure."}]},
    ]


def test_leading_system_messages_are_written_back_one_for_one():
    """Leading system and developer messages after `instructions` stay as many messages as they came
    (two of one role were sent back as one message of both texts, with no loss said)."""
    def message(role: str, *texts: str) -> dict[str, Any]:
        return {"role": role, "content": [{"type": "input_text", "text": t} for t in texts]}

    body = {"model": "m", "instructions": "Be terse.", "input": [
        message("system", "Use tools."), message("system", "Cite."),
        message("developer", "Ask.", "Then act."), message("developer", "Stop."), message("user", "hi")]}
    written = fmt.write(conv_of(body))
    assert (written.body, written.losses) == (body, ())


def test_request_unknown_keys_opaque_items_files_refusal_and_bad_arguments():
    web = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}}
    shell_out = {"type": "local_shell_call_output", "id": "lsh_1", "output": '{"stdout":"ok"}'}
    audio = {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}}
    body = {
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "See file", "x_trace": 7},
                    {
                        "type": "input_file",
                        "file_data": "data:application/pdf;base64,JVBERi0=",
                        "filename": "a.pdf",
                    },
                    {"type": "input_file", "file_id": "file-abc"},
                    audio,
                ],
            },
            {"type": "item_reference", "id": "msg_old"},
            web,
            {
                "type": "message",
                "role": "assistant",
                "id": "msg_2",
                "content": [{"type": "refusal", "refusal": "I can't."}],
            },
            {"type": "function_call", "call_id": "call_C", "name": "run_sql", "arguments": '{"sql": SELECT'},
            shell_out,
            {
                "type": "function_call_output",
                "call_id": "call_C",
                "output": [
                    {"type": "input_text", "text": "rows:"},
                    {"type": "input_image", "file_id": "file-img"},
                ],
            },
        ]
    }
    assert as_dict(body)["turns"] == [
        {
            "role": "user",
            "parts": [
                {"type": "text", "text": "See file", "meta": meta(x_trace=7)},
                {
                    "type": "media",
                    "kind": "document",
                    "media_type": "application/pdf",
                    "data": "JVBERi0=",
                    "meta": meta(filename="a.pdf"),
                },
                {"type": "media", "kind": "file", "file_id": "file-abc"},
                {"type": "opaque", "origin": NAME, "value": audio, "meta": meta(content=True)},
                {"type": "opaque", "origin": NAME, "value": {"type": "item_reference", "id": "msg_old"}},
            ],
        },
        {
            "role": "assistant",
            "parts": [
                {"type": "opaque", "origin": NAME, "value": web},
                {"type": "text", "text": "I can't.", "meta": meta(type="refusal", message={"id": "msg_2"})},
                {
                    "type": "invocation",
                    "id": "i1",
                    "name": "run_sql",
                    "arguments": None,
                    "raw_arguments": '{"sql": SELECT',
                    "wire_id": "call_C",
                },
            ],
        },
        {
            "role": "tool",
            "parts": [
                {"type": "opaque", "origin": NAME, "value": shell_out},
                {
                    "type": "result",
                    "invocation_id": "i1",
                    "wire_id": "call_C",
                    "name": "run_sql",
                    "is_error": False,
                    "content": [
                        {"type": "text", "text": "rows:"},
                        {"type": "media", "kind": "image", "file_id": "file-img"},
                    ],
                },
            ],
        },
    ]
    # Everything, opaque items included, is written back as it came; the msg_ id only goes back with
    # the reasoning item it belongs to.
    expected = [
        *body["input"][:3],
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I can't."}]},
        *body["input"][4:],
    ]
    assert fmt.write(conv_of(body)) == fmt.Written(
        body={"input": expected},
        losses=(
            Loss("model: none — missing: OpenAI Responses requires model in the request body and the "
                 "conversation names none (give one with --model)", None),
            Loss(
                "assistant message id 'msg_2' left out: only a message replayed with its msg_ id "
                "after its reasoning item carries them",
                1,
                1,
            ),
        ),
    )


def test_text_parts_of_the_other_side_s_type_keep_it():
    """A stored conversation item's `text` part, or an assistant message holding `input_text`, keeps
    its type: read into meta and written back as it came (not as the role's usual type)."""
    body = {"model": "m", "input": [
        {"type": "message", "role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "input_text", "text": "hello"}]},
    ]}
    assert as_dict(body)["turns"] == [
        {"role": "user", "parts": [{"type": "text", "text": "hi", "meta": meta(type="text")}]},
        {"role": "assistant", "parts": [{"type": "text", "text": "hello", "meta": meta(type="input_text")}]},
    ]
    assert fmt.write(conv_of(body)) == fmt.Written(body={"model": "m", "input": [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]}, body["input"][1]]})


def test_input_file_by_url_reads_as_media():
    """`input_file.file_url` is the file's address (an image's is `image_url`): a file given only by
    URL is media with that URL, not an unread block."""
    body = {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "Summarise"},
        {"type": "input_file", "file_url": "https://example.com/report.pdf"},
    ]}]}
    assert as_dict(body)["turns"] == [{"role": "user", "parts": [
        {"type": "text", "text": "Summarise"},
        {"type": "media", "kind": "file", "url": "https://example.com/report.pdf"},
    ]}]
    assert fmt.write(conv_of(body)) == fmt.Written(body=body)


def test_reasoning_content_of_several_texts_reads_as_their_lines():
    """Several `reasoning_text` parts read as one text, a line each; the parts stay in meta so the
    item is written back as it came."""
    content = [{"type": "reasoning_text", "text": "Two cities."},
               {"type": "reasoning_text", "text": "Oslo first."}]
    body = {"model": "m", "input": [
        {"role": "user", "content": "Oslo and Bergen?"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "content": content, "encrypted_content": "gAAA"},
        {"role": "assistant", "content": "Checking."},
    ]}
    assert as_dict(body)["turns"][1]["parts"][0] == {
        "type": "reasoning", "text": "Two cities.\nOslo first.", "signature": "gAAA", "origin": NAME,
        "wire_id": "rs_1", "meta": meta(content=content)}
    assert fmt.write(conv_of(body)).body["input"][1] == body["input"][1]


def test_an_output_s_own_name_is_its_result_s_name():
    """`function_call_output.name` (optional on the wire) names the result, even with no call to
    take a name from; it is not left as an unknown key."""
    body = {"model": "m", "input": [
        {"role": "user", "content": "go"},
        {"type": "function_call_output", "call_id": "call_Z", "name": "run_sql", "output": "3"},
    ]}
    assert as_dict(body)["turns"][1] == {"role": "tool", "parts": [{
        "type": "result", "invocation_id": None, "wire_id": "call_Z", "name": "run_sql", "is_error": False,
        "content": [{"type": "text", "text": "3"}]}]}


@pytest.mark.parametrize("value", ["a string", 3, [1], None])
def test_an_own_opaque_part_that_is_no_item_is_reported_lost_not_a_crash(value):
    """A canonical document may hold any JSON value in an opaque part of this origin; the writer puts
    back only items (objects) verbatim, and says it dropped the rest (an AttributeError before)."""
    conv = Conversation(model="gpt-5", turns=(
        Turn(role="user", parts=(Text(text="hi"), Opaque(origin=NAME, value=value))),
        Turn(role="assistant", parts=(Opaque(origin=NAME, value=value), Text(text="hello"))),
        Turn(role="user", parts=(Text(text="more"),)),
    ))
    written = fmt.write(conv)
    assert written.body["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "hello"}]},
        {"role": "user", "content": [{"type": "input_text", "text": "more"}]},
    ]
    dropped = "an opaque openai-responses value that is not an item (a JSON object) dropped"
    assert [(loss.turn, loss.part, loss.message) for loss in written.losses] == [(0, 1, dropped), (1, 0, dropped)]


def test_request_custom_tools_hosted_tools_and_tool_choice_forms():
    grammar = {
        "type": "custom",
        "name": "apply_diff",
        "description": "Apply a diff",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
    }
    search = {"type": "web_search", "search_context_size": "low"}
    mcp = {"type": "mcp", "server_label": "zip1", "server_url": "https://zip1.io/mcp"}
    body = {
        "model": "gpt-5.1",
        "tools": [WEATHER, grammar, search, mcp],
        "parallel_tool_calls": False,
        "tool_choice": {"type": "custom", "name": "apply_diff"},
        "input": [
            {"type": "custom_tool_call", "call_id": "call_D", "name": "apply_diff", "input": "*** patch"},
            {"type": "custom_tool_call_output", "call_id": "call_D", "output": "applied"},
        ],
    }
    conv = as_dict(body)
    assert conv["tools"][1:] == [
        {
            "name": "apply_diff",
            "description": "Apply a diff",
            "origin": NAME,
            "raw": grammar,
            "kind": "custom",
        },
        {"name": "web_search", "origin": NAME, "raw": search, "kind": "web_search"},
        {"name": "zip1", "origin": NAME, "raw": mcp, "kind": "mcp"},
    ]
    assert conv["tool_choice"] == {"mode": "tool", "name": "apply_diff", "parallel": False}
    assert conv["turns"] == [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "invocation",
                    "id": "i1",
                    "name": "apply_diff",
                    "arguments": "*** patch",
                    "wire_id": "call_D",
                    "meta": meta(custom=True),
                }
            ],
        },
        {
            "role": "tool",
            "parts": [
                {
                    "type": "result",
                    "invocation_id": "i1",
                    "wire_id": "call_D",
                    "name": "apply_diff",
                    "is_error": False,
                    "content": [{"type": "text", "text": "applied"}],
                    "meta": meta(custom=True),
                }
            ],
        },
    ]
    assert fmt.write(conv_of(body)) == fmt.Written(body=body)

    allowed = {
        "type": "allowed_tools",
        "mode": "required",
        "tools": [{"type": "function", "name": "get_weather"}],
    }
    for raw, expected in [
        ("none", ToolChoice(mode="none")),
        ("required", ToolChoice(mode="required")),
        ({"type": "function", "name": "get_weather"}, ToolChoice(mode="tool", name="get_weather")),
        (allowed, ToolChoice(mode="required")),
        ({"type": "web_search"}, ToolChoice(mode="tool", name="web_search")),
    ]:
        request = {"model": "m", "input": "x", "tools": [WEATHER, search], "tool_choice": raw}
        assert fmt.read_request(request, SRC).tool_choice == expected
        assert fmt.write(conv_of(request)).body["tool_choice"] == raw


def test_request_sources_point_at_the_exact_json_location():
    body = {
        "instructions": "sys",
        "input": [
            {
                "role": "user",
                "content": [{"type": "input_text", "text": "a"}, {"type": "input_image", "file_id": "f"}],
            },
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [{"type": "input_text", "text": "r"}],
            },
            {"type": "function_call_output", "call_id": "c1", "output": "plain"},
        ],
    }
    r = fmt.read_request(
        body, Source(file="log.har", exchange=2, location="/log/entries/2/request/postData/text")
    )
    assert r.system[0].source.pointer == "/instructions"
    user, assistant, tool = r.turns
    assert [user.source.pointer, assistant.source.pointer, tool.source.pointer] == [
        "/input/0",
        "/input/1",
        "/input/2",
    ]
    assert [p.source.pointer for p in user.parts] == ["/input/0/content/0", "/input/0/content/1"]
    assert assistant.parts[0].source.pointer == "/input/1"
    assert [p.source.pointer for p in tool.parts] == ["/input/2", "/input/3"]
    assert tool.parts[0].content[0].source.pointer == "/input/2/output/0"
    assert tool.parts[1].content[0].source.pointer == "/input/3/output"
    assert user.parts[1].source.address == "/log/entries/2/request/postData/text#/input/0/content/1"
    assert user.parts[1].source.exchange == 2


@pytest.mark.parametrize(
    "body, pointer",
    [
        ([], ""),
        ({"input": 3}, "/input"),
        ({"input": ["hi"]}, "/input/0"),
        ({"input": [{"role": "user", "content": 5}]}, "/input/0/content"),
        ({"input": [{"role": "user", "content": ["x"]}]}, "/input/0/content/0"),
        ({"input": [{"type": "function_call", "name": 1, "call_id": "c"}]}, "/input/0"),
        ({"instructions": ["a"]}, "/instructions"),
        ({"input": "x", "tools": [{"name": "f"}]}, "/tools/0"),
    ],
)
def test_malformed_requests_raise_format_error_with_pointer(body, pointer):
    with pytest.raises(FormatError) as err:
        fmt.read_request(body, Source())
    assert err.value.pointer == pointer


def test_a_reasoning_item_with_a_non_string_id_is_a_format_error_at_the_item():
    with pytest.raises(FormatError) as err:
        fmt.read_request({"input": [{"role": "user", "content": "hi"},
                                    {"type": "reasoning", "id": 7, "summary": []}]}, Source())
    assert (err.value.message, err.value.pointer) == (
        "reasoning id and encrypted_content must be strings", "/input/1")


def test_sniffing_and_url_hints():
    assert fmt.sniff({"model": "m", "input": "x"}, "request")
    assert not fmt.sniff({"model": "m", "messages": []}, "request")
    assert fmt.sniff({"object": "response", "output": []}, "response")
    assert not fmt.sniff({"output": {"message": {}}, "stopReason": "end_turn"}, "response")
    assert fmt.sniff_stream(events_of({"type": "response.created", "response": {}}))
    assert not fmt.sniff_stream(events_of({"type": "message_start"}))
    assert any(
        h in "https://x.openai.azure.com/openai/v1/responses?api-version=preview" for h in fmt.URL_HINTS
    )
    assert not any(h in "https://api.openai.com/v1/chat/completions" for h in fmt.URL_HINTS)


# ---------------------------------------------------------------------------- reading responses


def test_response_with_reasoning_text_and_call_and_usage():
    body = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "model": "gpt-5.5",
        "incomplete_details": None,
        "error": None,
        "usage": {"input_tokens": 67, "output_tokens": 18},
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
            {
                "id": "msg_1",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "On it.", "annotations": [], "logprobs": []}],
            },
            {
                "id": "fc_1",
                "type": "function_call",
                "status": "completed",
                "call_id": "call_X",
                "name": "get_weather",
                "arguments": '{"city":"Paris"}',
            },
        ],
    }
    r = fmt.read_response(body, Source())
    assert (r.finish_reason, r.model, r.usage, r.error, r.meta) == (
        "completed",
        "gpt-5.5",
        body["usage"],
        None,
        meta(id="resp_1"),
    )
    assert r.turn == Turn(
        role="assistant",
        parts=(
            Reasoning(signature="gAAA", origin=NAME, wire_id="rs_1"),
            Text(text="On it.", meta=meta(message={"id": "msg_1"})),
            Invocation(
                id="i1",
                name="get_weather",
                arguments={"city": "Paris"},
                wire_id="call_X",
                meta=meta(id="fc_1"),
            ),
        ),
    )
    assert r.turn.parts[2].source.pointer == "/output/2"


def test_response_incomplete_failed_and_error_bodies():
    incomplete = fmt.read_response(
        {
            "object": "response",
            "status": "incomplete",
            "output": [],
            "incomplete_details": {"reason": "max_output_tokens"},
        },
        Source(),
    )
    assert incomplete.finish_reason == "incomplete:max_output_tokens"
    assert incomplete.turn == Turn(role="assistant")
    failed = fmt.read_response(
        {
            "object": "response",
            "status": "failed",
            "output": [],
            "error": {"code": "server_error", "message": "boom"},
        },
        Source(),
    )
    assert (failed.turn, failed.error) == (None, ApiError(message="boom", code="server_error"))
    error = fmt.read_response(
        {
            "error": {
                "message": "Invalid 'input[3].call_id': string too long.",
                "type": "invalid_request_error",
                "param": "input[3].call_id",
                "code": "string_above_max_length",
            }
        },
        Source(),
    )
    assert error == fmt.Response(
        error=ApiError(
            message="Invalid 'input[3].call_id': string too long.",
            type="invalid_request_error",
            code="string_above_max_length",
            param="input[3].call_id",
        )
    )
    with pytest.raises(FormatError):
        fmt.read_response({"hello": 1}, Source())


@pytest.mark.parametrize("output", [{}, {"output": None}], ids=["missing", "null"])
def test_a_response_object_without_output_is_an_empty_turn(output):
    """`object: "response"` makes a response even before it has output (an in-progress snapshot):
    an empty assistant turn with its status and id, not an unreadable body."""
    body = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5.5", **output}
    assert fmt.read_response(body, Source()) == fmt.Response(
        turn=Turn(role="assistant"), finish_reason="in_progress", model="gpt-5.5", meta=meta(id="resp_1"))


def test_a_response_output_that_is_no_list_is_a_format_error_at_output():
    with pytest.raises(FormatError) as err:
        fmt.read_response({"object": "response", "status": "completed", "output": {"type": "message"}},
                          Source())
    assert (err.value.message, err.value.pointer) == ("output must be a list, not an object", "/output")


def test_an_error_object_without_a_message_is_shown_whole():
    """With no message to show, the error's message is the error object itself, as JSON."""
    r = fmt.read_response({"error": {"type": "server_error", "code": 500}}, Source())
    assert r == fmt.Response(error=ApiError(message='{"type":"server_error","code":500}', type="server_error",
                                            code="500"))


# ---------------------------------------------------------------------------------------- streams


def created(rid: str = "resp_1", **extra: Any) -> dict[str, Any]:
    return {
        "type": "response.created",
        "response": {"id": rid, "object": "response", "status": "in_progress", "output": [], **extra},
    }


def call_added(oi: int, fc: str, call_id: str, name: str) -> dict[str, Any]:
    return {
        "type": "response.output_item.added",
        "output_index": oi,
        "item": {
            "id": fc,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call_id,
            "name": name,
        },
    }


def args(oi: int, delta: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "output_index": oi,
        "item_id": "x",
        "delta": delta,
    }


def test_stream_interleaved_parallel_calls_and_text_rebuild_the_body():
    events = events_of(
        created(model="gpt-5.5"),
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {
                "id": "msg_1",
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            },
        },
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Check"},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "ing."},
        call_added(1, "fc_1", "call_A", "get_weather"),
        call_added(2, "fc_2", "call_B", "get_weather"),
        args(2, '{"city":'),
        args(1, '{"city":"Oslo"}'),
        args(2, '"Bergen"}'),
        {"type": "response.function_call_arguments.done", "output_index": 1, "arguments": '{"city":"Oslo"}'},
        {
            "type": "response.output_item.done",
            "output_index": 2,
            "item": {  # empty name must not overwrite
                "id": "fc_2",
                "type": "function_call",
                "status": "completed",
                "call_id": "",
                "name": "",
                "arguments": '{"city":"Bergen"}',
            },
        },
    )
    a = fmt.assemble_stream(events, Source())
    assert a.complete is False
    # Found by output_index, the interleaved pieces still rebuild the body; that they are
    # interleaved is reported once, where a delta for output 1 follows output 2's opening.
    assert a.problems == (
        StreamProblem("order", "response.function_call_arguments.delta for output 1 after output 2 was "
                               "added (interleaved outputs)", 8),
        StreamProblem("truncated", "the stream ended without response.completed, .failed or .incomplete", 11),
    )
    assert a.body == {
        "id": "resp_1",
        "object": "response",
        "status": "in_progress",
        "model": "gpt-5.5",
        "output": [
            {
                "id": "msg_1",
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
            },
            {
                "id": "fc_1",
                "type": "function_call",
                "status": "in_progress",
                "arguments": '{"city":"Oslo"}',
                "call_id": "call_A",
                "name": "get_weather",
            },
            {
                "id": "fc_2",
                "type": "function_call",
                "status": "completed",
                "arguments": '{"city":"Bergen"}',
                "call_id": "call_B",
                "name": "get_weather",
            },
        ],
    }
    assert a.chunks == {"": 0, "/output/0": 1, "/output/0/content/0": 2, "/output/1": 5, "/output/2": 6}
    turn = fmt.read_response(a.body, Source()).turn
    assert [(p.name, p.arguments, p.wire_id) for p in turn.invocations()] == [
        ("get_weather", {"city": "Oslo"}, "call_A"),
        ("get_weather", {"city": "Bergen"}, "call_B"),
    ]


def test_stream_completed_response_is_the_final_state_and_whole_items_in_one_event():
    final = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "FINAL"},
            {"id": "fc_1", "type": "function_call", "call_id": "call_A", "name": "f", "arguments": "{}"},
        ],
    }
    events = events_of(
        created(),
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "ADDED"},
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "DONE"},
        },
        {"type": "response.output_item.done", "output_index": 1, "item": final["output"][1]},
        {"type": "response.completed", "response": final},
        {"type": "response.completed", "response": {"id": "dup", "output": []}},
        "[DONE]",
    )
    a = fmt.assemble_stream(events, Source())
    assert (a.body, a.problems, a.complete) == (final, (), True)
    assert a.chunks == {"": 0, "/output/0": 1, "/output/1": 3}
    # Without `output` in the terminal event, the finished items stand in for it (as in the SDK).
    bare = fmt.assemble_stream(
        events_of(
            *[e.data for e in events[:4]], {"type": "response.completed", "response": {"id": "resp_1"}}
        ),
        Source(),
    )
    assert bare.body["output"][0]["encrypted_content"] == "DONE"
    assert bare.body["output"][1] == final["output"][1]


def test_stream_broken_fragments_identity_and_sequence_problems():
    events = events_of(
        {**created(), "sequence_number": 0},
        {**call_added(0, "fc_1", "call_A", "get_weather"), "sequence_number": 1},
        {**args(0, '{"city"'), "sequence_number": 2},
        {**args(0, '"Oslo"}'), "sequence_number": 5},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "sequence_number": 6,
            "item": {
                "id": "fc_1",
                "type": "function_call",
                "call_id": "call_Z",
                "name": "get_weather",
                "arguments": '{"city":"Oslo"}',
            },
        },
        {**args(3, "{}"), "sequence_number": 7},
        {"type": "response.completed", "sequence_number": 8, "response": {"status": "completed"}},
    )
    a = fmt.assemble_stream(events, Source())
    assert a.problems == (
        StreamProblem("order", "sequence_number jumps from 2 to 5: 2 events missing", 3),
        StreamProblem(
            "order",
            'the arguments fragments of output 0 add up to \'{"city""Oslo"}\' but '
            'output_item.done says \'{"city":"Oslo"}\'',
            4,
        ),
        StreamProblem("identity", "output 0: call_id 'call_A' became 'call_Z' at output_item.done", 4),
        StreamProblem(
            "order", "response.function_call_arguments.delta for output 3 before its output_item.added", 5
        ),
    )
    assert a.body["output"][0]["arguments"] == '{"city":"Oslo"}'


def call_done(oi: int, fc: str, call_id: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "response.output_item.done",
        "output_index": oi,
        "item": {"id": fc, "type": "function_call", "status": "completed", "call_id": call_id,
                 "name": "get_weather", "arguments": arguments},
    }


def numbered(*payloads: dict[str, Any], order: tuple[int, ...] | None = None) -> list[StreamEvent]:
    """Events numbered as sent, then delivered in `order` (positions in `payloads`)."""
    sent = [{**p, "sequence_number": n} for n, p in enumerate(payloads)]
    return events_of(*(sent[k] for k in order) if order is not None else sent)


COMPLETED = {"type": "response.completed", "response": {"status": "completed"}}


def test_stream_output_index_skipped_is_one_problem_where_it_opens():
    """openai-python appends each added item and finds it again by `output[output_index]`."""
    a = fmt.assemble_stream(numbered(
        created(), call_added(0, "fc_1", "call_A", "get_weather"), args(0, "{}"),
        call_done(0, "fc_1", "call_A", "{}"),
        call_added(2, "fc_2", "call_B", "get_weather"), args(2, "{}"),
        call_done(2, "fc_2", "call_B", "{}"),
        call_added(3, "fc_3", "call_C", "get_weather"), call_done(3, "fc_3", "call_C", "{}"),
        COMPLETED), Source())
    assert a.problems == (StreamProblem(
        "order", "output_index 2 after output 0: expected 1 (output indices skipped or out of order)", 4),)
    assert [o["call_id"] for o in a.body["output"]] == ["call_A", "call_B", "call_C"]
    first = fmt.assemble_stream(numbered(created(), call_added(1, "fc_1", "call_A", "get_weather"),
                                         call_done(1, "fc_1", "call_A", "{}"), COMPLETED), Source())
    assert first.problems == (StreamProblem(
        "order", "output_index 1 as the first output: expected 0 (output indices skipped or out of order)", 1),)


def test_stream_interleaved_outputs_are_one_problem_per_output():
    a = fmt.assemble_stream(numbered(
        created(), call_added(0, "fc_1", "call_A", "get_weather"), args(0, '{"city":'),
        call_added(1, "fc_2", "call_B", "get_weather"), args(0, '"Oslo"}'), args(1, "{}"),
        args(0, ""), call_done(0, "fc_1", "call_A", '{"city":"Oslo"}'), call_done(1, "fc_2", "call_B", "{}"),
        COMPLETED), Source())
    assert a.problems == (StreamProblem(
        "order", "response.function_call_arguments.delta for output 0 after output 1 was added "
                 "(interleaved outputs)", 4),)
    assert [o["arguments"] for o in a.body["output"]] == ['{"city":"Oslo"}', "{}"]


@pytest.mark.parametrize(("order", "problems"), [
    # two events swapped: one problem where the late one arrives, no gap
    ((0, 1, 3, 2, 4), [("sequence_number 2 after 3: events repeated or reordered", 3)]),
    # one event held back three places: the same
    ((0, 1, 3, 4, 2), [("sequence_number 2 after 4: events repeated or reordered", 4)]),
    # one event sent early: where the order goes back, once
    ((0, 3, 1, 2, 4), [("sequence_number 1 after 3: events repeated or reordered", 2)]),
    # a gap partly filled: the events still missing are counted at the jump
    ((0, 3, 1, 4), [("sequence_number jumps from 0 to 3: 1 events missing", 1),
                    ("sequence_number 1 after 3: events repeated or reordered", 2)]),
    # an event sent twice
    ((0, 1, 1, 2, 3, 4), [("sequence_number 1 after 1: events repeated or reordered", 2)]),
], ids=["swapped", "held-back", "sent-early", "partly-filled", "repeated"])
def test_stream_sequence_numbers_out_of_order_are_reported_once(order, problems):
    payloads = [created(), {"type": "response.in_progress", "response": {"status": "in_progress"}},
                {"type": "response.in_progress", "response": {"status": "in_progress"}},
                {"type": "response.in_progress", "response": {"status": "in_progress"}}, COMPLETED]
    a = fmt.assemble_stream(numbered(*payloads, order=order), Source())
    assert [(p.message, p.chunk) for p in a.problems if p.kind == "order"] == problems


def test_stream_truncated_mid_arguments_reports_truncation_and_invalid_json_at_the_call():
    a = fmt.assemble_stream(
        events_of(created(), call_added(0, "fc_1", "call_A", "f"), args(0, '{"a":')), Source()
    )
    assert a.complete is False
    assert a.problems == (
        StreamProblem("truncated", "the stream ended without response.completed, .failed or .incomplete", 2),
        StreamProblem("arguments", "output 0: arguments are not valid JSON: '{\"a\":'", 1),
    )
    turn = fmt.read_response(a.body, Source()).turn
    assert turn.parts[0].raw_arguments == '{"a":'


def test_stream_error_event_and_missing_identity():
    events = events_of(
        created(),
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "function_call", "arguments": "{}", "call_id": "", "name": "f"},
        },
        {"type": "error", "code": "server_error", "message": "The server had an error", "param": None},
    )
    a = fmt.assemble_stream(events, Source())
    assert [(p.kind, p.chunk) for p in a.problems] == [("error", 2), ("truncated", 2), ("identity", 1)]
    r = fmt.read_response(a.body, Source())
    assert r.error == ApiError(message="The server had an error", code="server_error")


def test_stream_error_event_problem_quotes_its_message():
    """The problem line shows the error's message, whether the event carries it flat or in `error`."""
    error = {"type": "error", "code": "server_error", "message": "The server had an error", "param": None}
    flat = fmt.assemble_stream(events_of(created(), error), Source())
    nested = fmt.assemble_stream(events_of({"type": "error", "error": {
        "type": "invalid_request_error", "code": "context_length_exceeded",
        "message": "Your input exceeds the context window of this model."}}), Source())
    truncated = "the stream ended without response.completed, .failed or .incomplete"
    assert flat.problems == (StreamProblem("error", "error event: The server had an error", 1),
                             StreamProblem("truncated", truncated, 1))
    assert nested.problems == (
        StreamProblem("error", "error event: Your input exceeds the context window of this model.", 0),
        StreamProblem("truncated", truncated, 0))


def test_stream_an_event_that_is_not_json_is_another_problem():
    """A proxy's HTML error page among the events is reported where it is; `[DONE]` is not."""
    a = fmt.assemble_stream(events_of(created(), "<html>502 Bad Gateway</html>", COMPLETED, "[DONE]"),
                            Source())
    assert a.problems == (StreamProblem("other", "an event that is not a JSON object", 1),)


def test_stream_text_deltas_are_checked_against_content_part_done():
    """Deltas that do not add up to the text `content_part.done` gives are reported at that event,
    the first to say the final text; the final text wins."""
    done_part = {"type": "output_text", "text": "Hello!", "annotations": []}
    done_item = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
                 "content": [done_part]}
    a = fmt.assemble_stream(events_of(
        created(),
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant",
                  "content": []}},
        {"type": "response.content_part.added", "output_index": 0, "content_index": 0,
         "part": {"type": "output_text", "text": "", "annotations": []}},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hel"},
        {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "lo"},
        {"type": "response.content_part.done", "output_index": 0, "content_index": 0, "part": done_part},
        {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        COMPLETED,
    ), Source())
    assert a.problems == (StreamProblem(
        "order", "the text fragments of output 0 add up to 'Hello' but response.content_part.done says "
                 "'Hello!'", 5),)
    assert a.body["output"][0]["content"] == [done_part]


def test_stream_text_before_its_part_is_kept_and_reported():
    a = fmt.assemble_stream(
        events_of(
            created(),
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {"type": "message", "role": "assistant", "content": []},
            },
            {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Hi"},
            {"type": "response.completed", "response": {"status": "completed"}},
        ),
        Source(),
    )
    assert a.body["output"][0]["content"] == [{"type": "output_text", "text": "Hi"}]
    assert a.problems == (
        StreamProblem(
            "order", "response.output_text.delta before the content part 0 of output 0 was opened", 2
        ),
    )


def test_sse_capture_with_event_lines_and_split_streams():
    text = ": keep-alive\n\n" + "".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n"
        for e in [
            created("resp_a"),
            call_added(0, "fc_1", "call_A", "f"),
            args(0, "{}"),
            {"type": "response.completed", "response": {"id": "resp_a", "status": "completed"}},
            created("resp_b"),
            {"type": "response.completed", "response": {"id": "resp_b", "output": []}},
        ]
    )
    events = sse.parse(text)
    assert fmt.sniff_stream(events)
    groups = fmt.split_streams(events)
    assert [[e.index for e in g] for g in groups] == [[0, 1, 2, 3], [4, 5]]
    first, second = (fmt.assemble_stream(g, Source()) for g in groups)
    assert first.body["output"][0]["call_id"] == "call_A" and first.problems == ()
    assert second.chunks == {"": 4} and second.body["id"] == "resp_b"


# ---------------------------------------------------------------------------------------- corpus


def recordings() -> list[Path]:
    return sorted((CORPUS / "opencode-recordings").glob("openai-responses*/*.json"))


def vercel(pattern: str) -> list[Path]:
    skip = ("azure-model-router", "legacy-parameter-error")
    return [
        p
        for d in ("azure", "openai")
        for p in sorted((CORPUS / "vercel-ai-fixtures" / d).glob(pattern))
        if not any(s in p.name for s in skip)
    ]


@pytest.mark.parametrize("path", paths.corpus_params(recordings()), ids=lambda p: p.name)
def test_corpus_recordings_read_and_replay(path: Path):
    for i, interaction in enumerate(json.loads(path.read_text())["interactions"]):
        body = json.loads(interaction["request"]["body"])
        assert fmt.sniff(body, "request")
        conv = conv_of(body)
        written = fmt.write(conv)
        assert written.losses == ()
        assert conv_of(written.body) == conv
        events = sse.parse(interaction["response"]["body"])
        assert fmt.sniff_stream(events) and len(fmt.split_streams(events)) == 1
        assembled = fmt.assemble_stream(events, Source(exchange=i, side="response"))
        assert (assembled.problems, assembled.complete) == ((), True)
        response = fmt.read_response(assembled.body, Source())
        assert response.finish_reason == "completed" and response.turn is not None


@pytest.mark.needs_corpus
def test_corpus_phase_round_trip_facts():
    data = json.loads(
        (
            CORPUS / "opencode-recordings/openai-responses-phase/"
            "round-trips-commentary-into-a-final-answer.json"
        ).read_text()
    )
    first, second = data["interactions"]
    response = fmt.read_response(
        fmt.assemble_stream(sse.parse(first["response"]["body"]), Source()).body, Source()
    )
    text, call = response.turn.parts
    assert text == Text(
        text="I’ll check the current weather in Paris.",
        meta=meta(
            message={"id": "msg_052c6d37507e7013016a619d9764748196a39b36b9742b5e3f", "phase": "commentary"}
        ),
    )
    assert (call.name, call.arguments, call.wire_id) == (
        "get_weather",
        {"city": "Paris"},
        "call_bdu9qeUgWjXRk2HxYJy0RBFe",
    )
    replay = conv_of(json.loads(second["request"]["body"]))
    assert replay.system[0].meta == meta(role="system")
    user, assistant, tool = replay.turns
    assert assistant.parts[0].meta == meta(message={"phase": "commentary"})
    assert tool.parts[0] == Result(
        invocation_id="i1",
        wire_id="call_bdu9qeUgWjXRk2HxYJy0RBFe",
        name="get_weather",
        content=(Text(text='{"temperature":22,"condition":"sunny"}'),),
    )
    # The replay omits the fc_ id; the call is otherwise the one the model made.
    assert replay.turns[1].parts[1] == replace(call, meta={})


@pytest.mark.needs_corpus
def test_corpus_reasoning_encrypted_content_the_completed_copy_wins():
    data = json.loads(
        (CORPUS / "opencode-recordings/openai-responses/openai-responses-gpt-5-5-reasoning.json").read_text()
    )
    events = sse.parse(data["interactions"][0]["response"]["body"])
    copies = [
        e.data["item"]["encrypted_content"]
        for e in events
        if e.name in ("response.output_item.added", "response.output_item.done")
        and e.data["item"]["type"] == "reasoning"
    ]
    completed = events[-1].data["response"]["output"][0]["encrypted_content"]
    assert len({*copies, completed}) == 3
    reasoning = fmt.read_response(fmt.assemble_stream(events, Source()).body, Source()).turn.parts[0]
    assert reasoning.signature == completed and reasoning.wire_id.startswith("rs_")


@pytest.mark.parametrize("path", paths.corpus_params(vercel("*.json")), ids=lambda p: p.name)
def test_corpus_vercel_response_bodies(path: Path):
    r = fmt.read_response(json.loads(path.read_text()), Source())
    assert r.error is None and r.finish_reason == "completed" and r.turn is not None
    assert all(
        not isinstance(p, Opaque) or p.value.get("type") not in ("message", "function_call", "reasoning")
        for p in r.turn.parts
    )


@pytest.mark.needs_corpus
def test_corpus_vercel_response_facts():
    def turn(name: str) -> Turn:
        path = next(p for p in vercel("*.json") if p.name == name)
        return fmt.read_response(json.loads(path.read_text()), Source()).turn

    call = turn("azure-tool-call.1.json").parts[0]
    assert (call.name, call.arguments, call.wire_id) == (
        "weather",
        {"location": "San Francisco"},
        "call_YunNGbIwdVJ2i0y0Mybva4Pw",
    )
    program = turn("programmatic-tool-calling.1.json")
    assert [p.type for p in program.parts] == ["reasoning", "opaque", "invocation"]
    assert program.parts[2].meta[NAME]["caller"] == {
        "type": "program",
        "caller_id": "call_O2IvSLQcJ0bwIvJZ2ovGV69M",
    }
    assert program.parts[2].meta[NAME]["status"] == "in_progress"
    search = turn("openai-tool-search.1.json")
    assert [p.value["type"] for p in search.parts[:2]] == ["tool_search_call", "tool_search_output"]
    assert search.parts[2].meta[NAME]["namespace"] == "get_weather"
    reasoning = turn("openai-reasoning-encrypted-content.1.json").parts[0]
    assert reasoning.signature.startswith("gAAAAABpPMlc") and reasoning.summary[0].startswith("**Reporting")
    annotated = turn("openai-code-interpreter-tool.1.json").parts[-1]
    assert annotated.meta[NAME]["annotations"][0]["type"] == "container_file_citation"


@pytest.mark.parametrize("path", paths.corpus_params(vercel("*.chunks.txt")), ids=lambda p: p.name)
def test_corpus_vercel_streams_assemble(path: Path):
    events = chunks_file(path)
    assert fmt.sniff_stream(events)
    for group in fmt.split_streams(events):
        a = fmt.assemble_stream(group, Source())
        assert a.complete
        fmt.read_response(a.body, Source())


@pytest.mark.needs_corpus
def test_corpus_vercel_stream_facts():
    def assembled(name: str) -> list[Any]:
        path = next(p for p in vercel("*.chunks.txt") if p.name == name)
        return [fmt.assemble_stream(g, Source()) for g in fmt.split_streams(chunks_file(path))]

    steps = assembled("openai-reasoning-encrypted-content.1.chunks.txt")
    assert len(steps) == 4 and all(a.problems == () for a in steps)
    calls = [p for a in steps for p in fmt.read_response(a.body, Source()).turn.invocations()]
    assert [c.arguments for c in calls] == [
        {"a": 12, "b": 7, "op": "add"},
        {"a": 19, "b": 3, "op": "multiply"},
        {"a": 57, "b": 10, "op": "multiply"},
    ]
    assert steps[1].chunks["/output/0"] == 58  # indices count events in the whole capture

    (copilot,) = assembled("github-copilot-id-rotation.1.chunks.txt")
    assert copilot.problems == ()
    turn = fmt.read_response(copilot.body, Source()).turn
    assert turn.parts[0].summary == ("**Counting character occurrences**",)
    assert turn.parts[1].text.startswith("There are **3** letter")
    assert copilot.chunks["/output/1/content/0"] == 9

    (azure,) = assembled("azure-tool-call.1.chunks.txt")
    assert azure.problems == ()

    (error,) = assembled("openai-error.1.chunks.txt")
    assert [(p.kind, p.chunk) for p in error.problems] == [("error", 2)]
    assert fmt.read_response(error.body, Source()).error.code == "insufficient_quota"

    # The client tool search changes its call_id between output_item.added and .done.
    (search,) = assembled("openai-client-tool-search.1.chunks.txt")
    assert search.problems == (
        StreamProblem(
            "identity",
            "output 0: call_id 'call_NHis2zQiYcIaO6pf9nb5q1wY' became 'call_RWTIIVfxsJW9fecsg6fy23Dy' "
            "at output_item.done",
            3,
        ),
    )

    # The fixture lost events (sequence 6–40, 44–48, 53–125): the SDK would not notice, tooldbg does.
    (phase,) = assembled("openai-phase.1.chunks.txt")
    assert [(p.kind, p.chunk) for p in phase.problems] == [("order", 6)] * 2 + [("order", 9)] + [
        ("order", 13)
    ] * 2
    assert phase.problems[2].message == "sequence_number jumps from 43 to 49: 5 events missing"
    phases = [p.meta[NAME]["message"]["phase"] for p in fmt.read_response(phase.body, Source()).turn.parts]
    assert phases == ["commentary", "final_answer"]

    (patch,) = assembled("openai-apply-patch-tool.1.chunks.txt")
    assert patch.problems == () and patch.body["output"][0]["operation"]["diff"].endswith("Coffee\n")


# --------------------------------------------------------------------------------------- samples


def test_samples_read_replay_and_stream():
    exchanges = [json.loads(line) for line in (SAMPLES / "parallel-calls.jsonl").read_text().splitlines()]
    assert len(exchanges) >= 2
    for x in exchanges:
        assert fmt.write(conv_of(x["request"]["body"])).body == x["request"]["body"]
    second = conv_of(exchanges[-1]["request"]["body"])
    results = list(second.turns[2].results())
    assert [r.invocation_id for r in results] == ["i1", "i2"] and results[1].content[0].text.startswith(
        "Error"
    )
    assert isinstance(second.turns[0].parts[1], Media)
    assert json.loads((SAMPLES / "request.json").read_text()) == exchanges[-1]["request"]["body"]
    fmt.read_response(json.loads((SAMPLES / "response.json").read_text()), Source())
    a = fmt.assemble_stream(sse.parse((SAMPLES / "stream.sse").read_text()), Source())
    assert (a.problems, a.complete) == ((), True)
    assert len(list(fmt.read_response(a.body, Source()).turn.invocations())) == 2


# --------------------------------------------------------------------------------------- writing


def test_write_cross_format_conversation_with_exact_losses():
    conv = Conversation(
        model="gpt-5.5",
        system=(
            Text(text="Be terse."),
            Text(text="Cite sources.", meta={"anthropic": {"cache_control": {}}}),
        ),
        tools=(
            Tool(name="get_weather", parameters={"type": "object"}),
            Tool(name="web_search", kind="web_search_20250305", origin="anthropic", raw={"type": "x"}),
        ),
        tool_choice=ToolChoice(mode="tool", name="get_weather", parallel=False),
        turns=(
            Turn(
                role="user",
                parts=(Text(text="Paris?"), Media(kind="audio", media_type="audio/wav", data="UklG")),
            ),
            Turn(
                role="assistant",
                parts=(
                    Reasoning(text="hmm", signature="sig", origin="anthropic"),
                    Text(text="Looking."),
                    Invocation(id="i1", name="get_weather", arguments={"city": "Paris"}, wire_id="toolu_01"),
                    Invocation(id="i2", name="get_weather", arguments={"city": "Lyon"}),
                    Invocation(id="i3", name="get_weather", arguments={"city": "Nice"}, wire_id="x" * 70),
                    Opaque(origin="anthropic", value={"type": "server_tool_use", "id": "srvtoolu_1"}),
                ),
            ),
            Turn(
                role="tool",
                parts=(
                    Result(
                        invocation_id="i1",
                        wire_id="toolu_01",
                        name="get_weather",
                        content=(Json(value={"t": 21}),),
                    ),
                    Result(invocation_id="i2", content=(Text(text="not found"),), is_error=True),
                    Result(
                        invocation_id="i3",
                        wire_id="x" * 70,
                        content=(
                            Text(text="see map"),
                            Media(kind="image", media_type="image/png", data="iVBO"),
                        ),
                    ),
                ),
            ),
            Turn(role="assistant", parts=(Text(text="21 °C in Paris."),)),
        ),
    )
    written = fmt.write(conv)
    assert written.body == {
        "model": "gpt-5.5",
        "instructions": "Be terse.",
        "input": [
            {"role": "system", "content": [{"type": "input_text", "text": "Cite sources."}]},
            {"role": "user", "content": [{"type": "input_text", "text": "Paris?"}]},
            {"role": "assistant", "content": [{"type": "output_text", "text": "Looking."}]},
            {
                "type": "function_call",
                "call_id": "toolu_01",
                "name": "get_weather",
                "arguments": '{"city":"Paris"}',
            },
            {
                "type": "function_call",
                "call_id": "call_i2",
                "name": "get_weather",
                "arguments": '{"city":"Lyon"}',
            },
            {
                "type": "function_call",
                "call_id": "x" * 64,
                "name": "get_weather",
                "arguments": '{"city":"Nice"}',
            },
            {"type": "function_call_output", "call_id": "toolu_01", "output": '{"t":21}'},
            {"type": "function_call_output", "call_id": "call_i2", "output": "Error: not found"},
            {
                "type": "function_call_output",
                "call_id": "x" * 64,
                "output": [
                    {"type": "input_text", "text": "see map"},
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBO"},
                ],
            },
            {"role": "assistant", "content": [{"type": "output_text", "text": "21 °C in Paris."}]},
        ],
        "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "parallel_tool_calls": False,
    }
    assert written.losses == (
        Loss("anthropic details not carried: cache_control", None, 1),
        Loss("sent as a system message: instructions hold a single text", None, 1),
        Loss("audio dropped: Responses cannot carry it here", 0, 1),
        Loss("reasoning from anthropic dropped: only Responses reasoning items can be replayed", 1, 0),
        Loss("call had no id; wrote 'call_i2'", 1, 3),
        Loss(f"call id {'x' * 70!r} does not fit openai-responses (1 to 64 characters); wrote {'x' * 64!r}",
             1, 4),
        Loss("anthropic block 'server_tool_use' dropped: only anthropic can replay it", 1, 5),
        Loss("structured result content sent as JSON text", 2, 0),
        Loss("result had no id; wrote 'call_i2', its call's id", 2, 1),
        Loss("is_error folded into the output text: Responses has no failure flag", 2, 1),
        Loss(f"result id {'x' * 70!r} written as {'x' * 64!r}, its call's id", 2, 2),
        Loss(
            "tool 1 (anthropic web_search_20250305 'web_search') dropped: Responses cannot declare it", None
        ),
    )
    back = conv_of(written.body)
    assert_losses_explain(conv, back, written.losses)


def test_write_reports_a_result_name_only_when_it_is_not_its_calls():
    """An output names only its call_id and reads back with its call's name: a result named as its
    call loses nothing; another name (or a name on an output of no call) is reported."""
    calls = Turn(
        role="assistant",
        parts=(
            Invocation(id="i1", name="get_weather", arguments={}, wire_id="call_A"),
            Invocation(id="i2", name="get_weather", arguments={}, wire_id="call_B"),
        ),
    )
    conv = Conversation(
        model="m",
        turns=(
            Turn(role="user", parts=(Text(text="go"),)),
            calls,
            Turn(
                role="tool",
                parts=(
                    Result(
                        invocation_id="i1", wire_id="call_A", name="get_weather", content=(Text(text="1"),)
                    ),
                    Result(
                        invocation_id="i2", wire_id="call_B", name="get_forecast", content=(Text(text="2"),)
                    ),
                ),
            ),
            Turn(role="assistant", parts=(Text(text="ok"),)),
            Turn(role="tool", parts=(Result(wire_id="call_Z", name="run_sql", content=(Text(text="3"),)),)),
        ),
    )
    written = fmt.write(conv)
    assert written.losses == (
        Loss(
            "tool name 'get_forecast' not carried: function_call_output names only the call_id, "
            "and it reads back as its call's, 'get_weather'",
            2,
            1,
        ),
        Loss(
            "tool name 'run_sql' not carried: function_call_output names only the call_id, "
            "and it answers no call",
            4,
            0,
        ),
        Loss(
            "turn 4 part 0: the API rejects an output without its call "
            "(No tool call found for function call output with call_id call_Z.)",
            None,
        ),
    )
    back = conv_of(written.body)
    assert [[p.name for p in t.results()] for t in back.turns] == [
        [],
        [],
        ["get_weather", "get_weather"],
        [],
        [None],
    ]
    assert_losses_explain(conv, back, written.losses)


def test_write_keeps_item_ids_only_after_their_reasoning():
    call = Invocation(id="i1", name="f", arguments={}, wire_id="call_A", meta=meta(id="fc_1"))
    text = Text(text="ok", meta=meta(message={"id": "msg_1", "phase": "commentary"}))
    tail = (
        Turn(
            role="tool",
            parts=(Result(invocation_id="i1", wire_id="call_A", name="f", content=(Text(text="1"),)),),
        ),
    )
    with_reasoning = Conversation(
        model="m",
        turns=(
            Turn(role="user", parts=(Text(text="go"),)),
            Turn(
                role="assistant", parts=(Reasoning(signature="enc", origin=NAME, wire_id="rs_1"), text, call)
            ),
            *tail,
        ),
    )
    items = fmt.write(with_reasoning).body["input"]
    assert items[1:4] == [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "phase": "commentary",
            "content": [{"type": "output_text", "text": "ok", "annotations": []}],
        },
        {"type": "function_call", "id": "fc_1", "call_id": "call_A", "name": "f", "arguments": "{}"},
    ]
    alone = replace(
        with_reasoning,
        turns=(with_reasoning.turns[0], replace(with_reasoning.turns[1], parts=(text, call)), *tail),
    )
    written = fmt.write(alone)
    assert written.losses == (
        Loss(
            "assistant message id 'msg_1' left out: only a message replayed with its msg_ id "
            "after its reasoning item carries them",
            1,
            0,
        ),
        Loss("call item id 'fc_1' left out: the API rejects it without its reasoning item", 1, 1),
    )
    assert_losses_explain(alone, conv_of(written.body), written.losses)
    assert written.body["input"][1:3] == [
        {"role": "assistant", "content": [{"type": "output_text", "text": "ok"}], "phase": "commentary"},
        {"type": "function_call", "call_id": "call_A", "name": "f", "arguments": "{}"},
    ]


def test_write_reports_what_the_api_would_reject_without_inventing_turns():
    conv = Conversation(
        model="m",
        turns=(
            Turn(role="user", parts=(Text(text="hi"),)),
            Turn(role="tool", parts=(Result(wire_id="call_old", content=(Text(text="stale"),)),)),
            Turn(
                role="assistant",
                parts=(
                    Reasoning(signature="e", origin=NAME),
                    Invocation(id="i1", name="f", arguments={}, wire_id="call_A"),
                ),
            ),
            Turn(role="assistant", parts=(Reasoning(text="only", origin=NAME),)),
        ),
    )
    written = fmt.write(conv)
    assert written.losses == (
        Loss("reasoning dropped: the API rejects a reasoning item without the item that followed it", 3, 0),
        Loss("nothing in this turn can be carried", 3),
        Loss(
            "turn 1 part 0: the API rejects an output without its call "
            "(No tool call found for function call output with call_id call_old.)",
            None,
        ),
        Loss(
            "turn 2 part 1: the API rejects a call without its output "
            "(No tool output found for function call call_A.)",
            None,
        ),
    )
    assert [i.get("type", i.get("role")) for i in written.body["input"]] == [
        "user",
        "function_call_output",
        "reasoning",
        "function_call",
    ]


def test_write_reports_a_content_block_in_a_tool_turn():
    """An opaque content block (not an item) cannot stand in a tool turn: it is reported, not
    written as a message of role `tool`, which the API does not have."""
    audio = {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}}
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(Text(text="go"),)),
        Turn(role="assistant", parts=(Invocation(id="i1", name="f", arguments={}, wire_id="call_A"),)),
        Turn(role="tool", parts=(
            Result(invocation_id="i1", wire_id="call_A", name="f", content=(Text(text="1"),)),
            Opaque(origin=NAME, value=audio, meta=meta(content=True)))),
    ))
    assert fmt.write(conv) == fmt.Written(
        body={"model": "m", "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "function_call", "call_id": "call_A", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_A", "output": "1"}]},
        losses=(Loss("an opaque part cannot be carried in a tool turn", 2, 1),))


def test_write_media_by_url_and_bare_file_data():
    """Only inline data travels as a data URL: an image by URL keeps its URL though its media type is
    known (the type, which no reference carries, is said lost), and a file's bare base64 (no media
    type) goes back bare."""
    body = {"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_file", "file_data": "JVBERi0=", "filename": "a.pdf"}]}]}
    assert fmt.write(conv_of(body)) == fmt.Written(body=body)
    conv = Conversation(model="m", turns=(Turn(role="user", parts=(
        Text(text="What is this?"),
        Media(kind="image", media_type="image/png", url="https://example.com/cat.png"),
    )),))
    assert fmt.write(conv) == fmt.Written(body={"model": "m", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": "https://example.com/cat.png"}]}]},
        losses=(Loss("media type image/png not carried by a reference", 0, 1),))


def test_write_reports_a_system_part_no_message_can_carry_at_its_system_index():
    conv = Conversation(model="m", system=(Text(text="Be terse."), Json(value={"units": "metric"})),
                        turns=(Turn(role="user", parts=(Text(text="hi"),)),))
    assert fmt.write(conv) == fmt.Written(
        body={"model": "m", "instructions": "Be terse.",
              "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]},
        losses=(Loss("sent as a system message: instructions hold a single text", None, 1),
                Loss("a json part cannot be carried in a message", None, 1)))


def test_write_a_failed_result_without_text_starts_with_an_error_text():
    """Responses has no failure flag: a failed result of an image alone gets an `Error` text first."""
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(Text(text="go"),)),
        Turn(role="assistant", parts=(Invocation(id="i1", name="snap", arguments={}, wire_id="call_A"),)),
        Turn(role="tool", parts=(Result(
            invocation_id="i1", wire_id="call_A", name="snap", is_error=True,
            content=(Media(kind="image", media_type="image/png", data="iVBO"),)),)),
    ))
    written = fmt.write(conv)
    assert written.body["input"][2] == {"type": "function_call_output", "call_id": "call_A", "output": [
        {"type": "input_text", "text": "Error"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBO"}]}
    assert written.losses == (
        Loss("is_error folded into the output text: Responses has no failure flag", 2, 0),)


def test_write_a_failed_result_without_content_is_said_once_as_what_is_sent():
    """A failed result with no content is sent as "Error": the loss says that, not that it is sent
    as an empty string (as it said beside the folding line)."""
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(Text(text="go"),)),
        Turn(role="assistant", parts=(Invocation(id="i1", name="f", arguments={}, wire_id="call_A"),)),
        Turn(role="tool", parts=(
            Result(invocation_id="i1", wire_id="call_A", name="f", is_error=True),
            Result(invocation_id="i1", wire_id="call_A", name="f"))),
    ))
    written = fmt.write(conv)
    assert [item.get("output") for item in written.body["input"][2:]] == ["Error", ""]
    assert written.losses == (
        Loss("is_error folded into the output text: Responses has no failure flag", 2, 0),
        Loss("a result without content is sent as an empty string", 2, 1))


def test_write_reports_redacted_reasoning_dropped():
    """Own reasoning is replayed, but its redacted form has no place in a Responses item."""
    conv = Conversation(model="m", turns=(
        Turn(role="user", parts=(Text(text="go"),)),
        Turn(role="assistant", parts=(
            Reasoning(signature="enc", origin=NAME, wire_id="rs_1", redacted="EqQB"), Text(text="ok"))),
    ))
    assert fmt.write(conv) == fmt.Written(
        body={"model": "m", "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
            {"role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}]},
        losses=(Loss("redacted reasoning dropped: Responses has no redacted form", 1, 0),))


def test_write_restores_request_params_but_not_stored_state():
    conv = conv_of(
        {
            "model": "m",
            "input": "x",
            "previous_response_id": "resp_0",
            "store": True,
            "temperature": 0.2,
            "stream": True,
        }
    )
    written = fmt.write(conv)
    assert written.body == {
        "model": "m",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "x"}]}],
        "store": True,
        "temperature": 0.2,
        "stream": True,
    }
    assert written.losses == (
        Loss("previous_response_id: 'resp_0' — not carried: the request replays the whole history", None),
    )


# ----------------------------------------------------------------------------------- properties

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_round_trip(conv: Conversation) -> None:
    written = fmt.write(conv)
    back = conv_of(written.body)
    assert_losses_explain(conv, back, written.losses)
    assert fmt.write(back).body == written.body  # write → read → write is stable


@PROPERTY
@given(conversations())
def test_property_round_trip(conv: Conversation):
    check_round_trip(conv)


@PROPERTY
@given(conversations(reasoning_origin=NAME))
def test_property_round_trip_own_reasoning(conv: Conversation):
    check_round_trip(conv)
    kept = [p for t in conv.turns for p in t.parts if isinstance(p, Reasoning)]
    assert len([i for i in fmt.write(conv).body["input"] if i.get("type") == "reasoning"]) == len(kept)


@PROPERTY
@given(conversations(reasoning_origin="anthropic"))
def test_property_round_trip_foreign_reasoning_is_reported(conv: Conversation):
    check_round_trip(conv)
    written = fmt.write(conv)
    dropped = {
        (t, p)
        for t, turn in enumerate(conv.turns)
        for p, part in enumerate(turn.parts)
        if isinstance(part, Reasoning)
    }
    assert dropped <= {(loss.turn, loss.part) for loss in written.losses if "reasoning" in loss.message}


KEYS = st.sampled_from(
    [
        "type",
        "role",
        "content",
        "input",
        "output",
        "text",
        "call_id",
        "name",
        "arguments",
        "id",
        "summary",
        "encrypted_content",
        "item",
        "output_index",
        "content_index",
        "delta",
        "part",
        "response",
        "sequence_number",
        "tools",
        "tool_choice",
        "instructions",
        "error",
        "status",
        "image_url",
        "file_data",
        "parameters",
        "incomplete_details",
    ]
)
WORDS = st.sampled_from(
    [
        "message",
        "user",
        "assistant",
        "system",
        "developer",
        "function_call",
        "reasoning",
        "function_call_output",
        "custom_tool_call",
        "input_text",
        "output_text",
        "input_image",
        "input_file",
        "refusal",
        "summary_text",
        "function",
        "custom",
        "allowed_tools",
        "response.created",
        "response.output_item.added",
        "response.output_item.done",
        "response.output_text.delta",
        "response.content_part.added",
        "response.completed",
        "response.function_call_arguments.delta",
        "error",
        "data:image/png;base64,AA",
    ]
)
JSON = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-2, 3), st.floats(allow_nan=False), st.text(max_size=4), WORDS
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.one_of(KEYS, st.text(max_size=3)), inner, max_size=5)
    ),
    max_leaves=30,
)


#: Items and stream events of the right shape with arbitrary JSON inside, so the fuzzing reaches the
#: item parsers and the stream accumulator, not only the top-level type checks.
ITEMS = st.builds(lambda t, rest: {**rest, "type": t}, WORDS, st.dictionaries(KEYS, JSON, max_size=6))
EVENTS = st.builds(
    lambda t, index, rest: {**rest, "type": t, "output_index": index},
    WORDS,
    st.integers(0, 2),
    st.dictionaries(KEYS, st.one_of(JSON, ITEMS), max_size=5),
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(JSON, st.lists(ITEMS, max_size=6), st.lists(EVENTS, max_size=10))
def test_property_readers_raise_only_format_error(value: Any, items: list[Any], stream: list[Any]):
    for body in (value, {"input": items}, {"output": items}, {"input": items, "tools": value}):
        for read in (fmt.read_request, fmt.read_response):
            try:
                read(body, Source())
            except FormatError:
                pass
    events = [StreamEvent(index=i, data=d) for i, d in enumerate([value, *items, *stream])]
    for group in fmt.split_streams(events):
        assembled = fmt.assemble_stream(group, Source())
        try:
            fmt.read_response(assembled.body, Source())
        except FormatError:
            pass


@pytest.mark.parametrize("role", ["system", "assistant"])
def test_message_fields_of_the_wrong_type_in_a_canonical_document_are_ignored(role):
    """A hand-edited canonical document may hold anything in a part's `message` meta (found by the
    fuzzer: a number there raised TypeError in the writer): it is not an object, so no message field
    is carried, and the text is still written."""
    part = Text(text="checking", meta={"openai-responses": {"message": 1.5}})
    conversation = Conversation(model="m", system=(part,) if role == "system" else (),
                                turns=(Turn(role="user", parts=(Text(text="hi"),)),)
                                + ((Turn(role="assistant", parts=(part,)),) if role == "assistant" else ()))
    body = fmt.write(conversation).body
    assert "checking" in json.dumps(body)
