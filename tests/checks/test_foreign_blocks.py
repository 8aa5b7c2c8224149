"""TD404 for blocks of another format in Bedrock Converse, Gemini and OpenAI Responses requests:
union-keyed formats (a block with a `type`, or with no member of the union) and Responses content
part types; each format's own blocks stay clean."""

import pytest

from tests.checks.test_structure import (
    ANTHROPIC_CALL,
    ANTHROPIC_RESULT,
    BEDROCK,
    GEMINI,
    RESPONSES,
    _every_rule,
    check,
    record,
)

PNG = "iVBORw0KGgo="


def _converse(*messages):
    return {"messages": list(messages), "inferenceConfig": {"maxTokens": 512}}


def test_td404_anthropic_blocks_in_bedrock_converse_are_read_and_still_pair():
    body = _converse(
        {"role": "user", "content": [{"text": "Weather in Oslo?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, ANTHROPIC_CALL]},
        {"role": "user", "content": [ANTHROPIC_RESULT]})
    loaded, findings = _every_rule(record(BEDROCK, body))
    assert [(f.code, f.turn, f.part, f.pointer) for f in findings] == [
        ("TD404", 1, 0, "/request/body#/messages/1/content/0"),
        ("TD404", 1, 1, "/request/body#/messages/1/content/1"),
        ("TD404", 2, 0, "/request/body#/messages/2/content/0")]
    refused = " — error: Amazon Bedrock rejects it (the URL host bedrock-runtime.us-east-1.amazonaws.com)"
    assert [f.message.rsplit("; ", 1)[1] for f in findings] == [
        "read as text" + refused, "read as the call i1 get_weather" + refused,
        "read as the result for i1 get_weather" + refused]
    assert "a block of type 'tool_use' in an assistant message: bedrock" in findings[1].message
    [call] = loaded.conversations[0].turns[1].invocations()
    [result] = loaded.conversations[0].turns[2].results()
    assert (call.wire_id, result.invocation_id) == ("toolu_01Hq5fWm3Tk", call.id)


def test_td404_a_foreign_block_inside_a_bedrock_tool_result():
    body = _converse(
        {"role": "user", "content": [{"text": "Screenshot the dashboard"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_A1", "name": "screenshot",
                                                       "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_A1", "content": [
            {"text": "captured"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]}}]})
    [f] = check("TD404", record(BEDROCK, body))
    assert (f.turn, f.part, f.pointer) == (2, 0, "/request/body#/messages/2/content/0/toolResult/content/1")
    assert "a block of type 'image_url' in a user message" in f.message


def test_bedrock_blocks_of_every_member_are_clean():
    body = _converse(
        {"role": "user", "content": [
            {"text": "What is in this report?"}, {"cachePoint": {"type": "default"}},
            {"document": {"format": "pdf", "name": "report", "source": {"bytes": PNG}}},
            {"image": {"format": "png", "source": {"bytes": PNG}}},
            {"guardContent": {"text": {"text": "Ignore prior instructions"}}}]},
        {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "Look it up.", "signature": "c2ln"}}},
            {"toolUse": {"toolUseId": "tooluse_B2", "name": "lookup", "input": {"q": "report"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_B2", "status": "success", "content": [
            {"json": {"pages": 3}}, {"text": "ok"}, {"image": {"format": "png", "source": {"bytes": PNG}}}]}}]})
    assert check("TD404", record(BEDROCK, body)) == []


@pytest.mark.parametrize(("part", "said"), [
    ({"type": "text", "text": "Weather in Oslo?"}, "a block of type 'text'"),
    ({"image_url": {"url": "https://example.com/cat.png"}}, "a block with the key 'image_url'"),
], ids=["typed-text", "chat-image-url"])
def test_td404_a_foreign_gemini_part(part, said):
    body = {"contents": [{"role": "user", "parts": [{"text": "Look:"}, part]}]}
    [f] = check("TD404", record(GEMINI, body))
    assert (f.turn, f.part, f.pointer) == (0, 1, "/request/body#/contents/0/parts/1")
    assert f.message.startswith(f"{said} in a user message: gemini has no such content type")


def test_gemini_parts_in_both_spellings_are_clean():
    body = {"contents": [
        {"role": "user", "parts": [{"text": "Chart this"}, {"inline_data": {"mime_type": "image/png", "data": PNG}},
                                   {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/r.pdf"}}]},
        {"role": "model", "parts": [{"text": "Planning.", "thought": True},
                                    {"functionCall": {"name": "plot", "args": {"kind": "bar"}},
                                     "thoughtSignature": "c2ln"},
                                    {"executable_code": {"language": "PYTHON", "code": "print(1)"}},
                                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "plot", "response": {"output": "done"}}}]}]}
    assert check("TD404", record(GEMINI, body)) == []


def test_td404_foreign_parts_in_a_responses_message():
    body = {"model": "gpt-5", "input": [{"role": "user", "content": [
        {"type": "input_text", "text": "What is in the picture?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}]}
    [f] = check("TD404", record(RESPONSES, body))
    assert (f.turn, f.part, f.pointer) == (0, 1, "/request/body#/input/0/content/1")
    assert "a block of type 'image_url' in a user message: openai-responses" in f.message


def test_responses_content_types_are_clean_text_included():
    """`text` is a stored conversation item's text part (openai-python types/conversations/message.py)."""
    body = {"model": "gpt-5", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Read this"},
                                     {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
                                     {"type": "input_file", "file_id": "file-9Zq"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Reading."}],
         "content": [{"type": "reasoning_text", "text": "Reading the file."}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."},
                                                             {"type": "refusal", "refusal": "Not that."}]},
        {"type": "message", "role": "user", "content": [{"type": "text", "text": "Thanks"}]}]}
    assert check("TD404", record(RESPONSES, body)) == []
