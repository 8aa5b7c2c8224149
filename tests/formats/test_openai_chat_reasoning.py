"""openai-chat reasoning fields: `reasoning_content` (DeepSeek, Kimi, Qwen), `reasoning` (vLLM,
gpt-oss servers, OpenRouter) and OpenRouter's `reasoning_details` blocks are read into canonical
Reasoning parts and written back as they came; another format's writer reports them lost."""

from __future__ import annotations

import json

from tooldbg.formats import anthropic
from tooldbg.formats import openai_chat as oc
from tooldbg.model import Conversation, Opaque, Reasoning
from tooldbg.records import sse
from tooldbg.source import Source

SRC = Source()
CALL = {"id": "call_Kx9m", "type": "function", "function": {"name": "get_order_status",
                                                            "arguments": "{\"order_id\":\"88412-NO\"}"}}
SUMMARY = "**Looking up the order**\n\nCheck its status first."
DETAILS = [
    {"type": "reasoning.summary", "summary": SUMMARY, "format": "openai-responses-v1", "index": 0},
    {"type": "reasoning.encrypted", "data": "gAAAAABpqDi68TvIkGha", "id": "rs_0d4f6a8c", "format": "openai-responses-v1",
     "index": 1},
]
SIGNED = [{"type": "reasoning.text", "text": "The user wants the order status.", "signature": "EqQBCkYIBRgCKkA",
           "id": None, "format": "anthropic-claude-v1", "index": 0}]


def request(assistant):
    return {"model": "openai/gpt-5", "messages": [{"role": "user", "content": "Where is my order 88412-NO?"},
                                                  {"role": "assistant", "content": None, **assistant},
                                                  {"role": "tool", "tool_call_id": "call_Kx9m", "content": "in transit"}]}


def rewritten(body):
    read = oc.read_request(body, SRC)
    written = oc.write(Conversation(turns=read.turns, model=body["model"]))
    return read.turns[1], written


def test_reasoning_details_become_reasoning_parts_and_the_mirrored_string_is_not_read_twice():
    turn, _ = rewritten(request({"reasoning": SUMMARY, "reasoning_details": DETAILS, "tool_calls": [CALL]}))
    summary, encrypted, call = turn.parts
    assert isinstance(summary, Reasoning) and summary.summary == (SUMMARY,) and summary.origin == "openai-chat"
    assert isinstance(encrypted, Reasoning) and encrypted.redacted == "gAAAAABpqDi68TvIkGha"
    assert encrypted.wire_id == "rs_0d4f6a8c" and call.name == "get_order_status"
    assert summary.source.pointer == "/messages/1/reasoning_details/0"


def test_reasoning_details_round_trip_exactly_with_no_loss():
    for assistant in ({"reasoning": SUMMARY, "reasoning_details": DETAILS, "tool_calls": [CALL]},
                      {"reasoning": "The user wants the order status.", "reasoning_details": SIGNED,
                       "tool_calls": [CALL]},
                      {"reasoning_details": [*DETAILS, {"type": "reasoning.future", "blob": 1}], "tool_calls": [CALL]},
                      {"reasoning": "Another text.", "reasoning_details": SIGNED, "tool_calls": [CALL]}):
        body = request(assistant)
        _, written = rewritten(body)
        assert written.body["messages"] == body["messages"], assistant
        assert written.losses == ()


def test_a_signed_text_block_keeps_its_signature_and_an_unknown_entry_stays_verbatim():
    turn, _ = rewritten(request({"reasoning_details": [*SIGNED, {"type": "reasoning.future", "blob": 1}],
                                 "tool_calls": [CALL]}))
    text, unknown, _ = turn.parts
    assert isinstance(text, Reasoning) and (text.text, text.signature) == ("The user wants the order status.",
                                                                          "EqQBCkYIBRgCKkA")
    assert isinstance(unknown, Opaque) and unknown.value == {"type": "reasoning.future", "blob": 1}


def test_reasoning_content_and_reasoning_fields_round_trip():
    for field in ("reasoning_content", "reasoning"):
        body = request({field: "Check the order first.", "tool_calls": [CALL]})
        turn, written = rewritten(body)
        assert isinstance(turn.parts[0], Reasoning) and turn.parts[0].text == "Check the order first."
        assert written.body["messages"] == body["messages"] and written.losses == ()


def test_a_format_that_cannot_carry_chat_reasoning_reports_each_part_lost():
    read = oc.read_request(request({"reasoning": SUMMARY, "reasoning_details": DETAILS, "tool_calls": [CALL]}), SRC)
    written = anthropic.write(Conversation(turns=read.turns, model="claude-sonnet-4-5"))
    lost = [(loss.turn, loss.part) for loss in written.losses if "reasoning" in loss.message]
    assert lost == [(1, 0), (1, 1)]
    assert "thinking" not in json.dumps(written.body)


def test_streamed_reasoning_details_assemble_into_the_blocks():
    def chunk(delta, finish=None):
        return {"id": "gen-1", "object": "chat.completion.chunk", "created": 1, "model": "anthropic/claude-sonnet-4.5",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    head = {"type": "reasoning.text", "format": "anthropic-claude-v1", "index": 0}
    events = sse.parse("".join(f"data: {json.dumps(c)}\n\n" for c in (
        chunk({"role": "assistant", "reasoning": "The user wants ",
               "reasoning_details": [{**head, "text": "The user wants "}]}),
        chunk({"reasoning": "the order status.", "reasoning_details": [{**head, "text": "the order status."}]}),
        chunk({"reasoning_details": [{**head, "text": "", "signature": "EqQBCkYIBRgCKkA"}]}),
        chunk({"tool_calls": [{"index": 0, **CALL}]}),
        chunk({}, "tool_calls"),
    )) + "data: [DONE]\n\n")
    body = oc.assemble_stream(events, SRC).body
    text, call = oc.read_response(body, SRC).turn.parts
    assert isinstance(text, Reasoning) and text.text == "The user wants the order status."
    assert text.signature == "EqQBCkYIBRgCKkA" and call.name == "get_order_status"
