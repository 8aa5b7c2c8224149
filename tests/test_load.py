"""Loading: bytes in any container become stitched conversations, streams keep the chunk each part
came from, and bad records are reported beside the good ones."""

import json

from tests import paths
from tooldbg.load import load, load_bytes
from tooldbg.model import Invocation, Result


def test_gemini_stream_as_a_json_array_assembles_like_sse():
    chunks = [json.loads(line) for line in
              (paths.CORPUS / "vercel-ai-fixtures/google/google-tool-call.chunks.txt").read_text().splitlines()
              if line.strip()]
    loaded = load_bytes("array.json", json.dumps(chunks).encode())
    assert loaded.errors == [] and loaded.formats == ["gemini"]
    [conv] = loaded.conversations
    [call] = [p for p in conv.turns[-1].parts if isinstance(p, Invocation)]
    assert call.name == "weather" and call.source.chunk == 0
    assert conv.model == "gemini-3-pro-preview"


def test_streamed_parts_point_at_the_chunk_that_opened_them():
    loaded = load([paths.CORPUS / "opencode-recordings/openai-chat/streams-tool-call.json"])[0]
    [conv] = loaded.conversations
    [call] = [p for p in conv.turns[-1].parts if isinstance(p, Invocation)]
    assert call.source.side == "response" and call.source.chunk is not None
    events = loaded.reads[0].exchange.response.events
    first = events[call.source.chunk].data["choices"][0]["delta"]["tool_calls"][0]
    assert first["function"]["name"] == call.name


def test_a_bad_record_is_reported_and_the_good_ones_still_stitch(tmp_path):
    lines = (paths.SAMPLES / "anthropic" / "parallel-calls.jsonl").read_text().splitlines()
    broken = tmp_path / "log.jsonl"
    broken.write_text("\n".join([lines[0], '{"request": {"body": {"messages": [}}', *lines[1:]]) + "\n")
    [loaded] = load([broken])
    assert [(e.location, "invalid JSON" in e.message) for e in loaded.errors] == [("line 2", True)]
    [conv] = loaded.conversations
    assert any(isinstance(p, Result) for t in conv.turns for p in t.parts)


def test_an_error_response_is_kept_with_its_request(tmp_path):
    record = {"request": {"url": "https://api.anthropic.com/v1/messages",
                          "body": {"model": "claude-sonnet-4-5", "max_tokens": 64,
                                   "messages": [{"role": "user", "content": "hi"}]}},
              "response": {"status": 400, "body": {"type": "error", "error": {
                  "type": "invalid_request_error", "message": "max_tokens: too small"}}}}
    loaded = load_bytes("err.jsonl", (json.dumps(record) + "\n").encode())
    [conv] = loaded.conversations
    assert [t.role for t in conv.turns] == ["user"]
    [(exchange, error)] = loaded.api_errors[conv.id]
    assert exchange == 0 and error.message == "max_tokens: too small"


def test_a_folder_loads_every_file_and_an_unreadable_one_does_not_stop_it(tmp_path):
    (tmp_path / "a.json").write_bytes((paths.SAMPLES / "openai-chat" / "request.json").read_bytes())
    (tmp_path / "b.json").write_text("{")
    (tmp_path / ".hidden.json").write_text("{")
    (tmp_path / "README.md").write_text("# notes")
    loaded = load([tmp_path])
    assert [item.path.rsplit("/", 1)[-1] for item in loaded] == ["a.json", "b.json"]
    assert loaded[0].conversations and not loaded[0].errors
    assert not loaded[1].conversations and "invalid JSON" in loaded[1].errors[0].message


def _gemini_exchange(url, model_version=None):
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi."}]},
                                "finishReason": "STOP"}]}
    if model_version:
        response["modelVersion"] = model_version
    return {"request": {"url": url, "body": {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}},
            "response": {"status": 200, "body": response}}


def test_a_request_body_without_a_model_takes_the_one_its_url_names():
    """Gemini and Bedrock name the model in the URL only: the conversation still says which it was
    (a conversion to a format that needs a model must not report it missing)."""
    for url, expected in [
        ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
         "gemini-2.5-flash"),
        ("https://aiplatform.googleapis.com/v1/projects/p/locations/l/publishers/google/models/"
         "gemini-2.5-pro:streamGenerateContent?alt=sse", "gemini-2.5-pro"),
    ]:
        loaded = load_bytes("g.jsonl", (json.dumps(_gemini_exchange(url, "gemini-other")) + "\n").encode())
        assert [c.model for c in loaded.conversations] == [expected], url
    loaded = load([paths.SAMPLES / "bedrock" / "parallel-calls.jsonl"])[0]
    assert [c.model for c in loaded.conversations] == ["us.anthropic.claude-sonnet-4-5-20250929-v1:0"]


def test_without_a_model_in_body_or_url_the_response_names_it():
    loaded = load_bytes("g.jsonl", (json.dumps(_gemini_exchange("", "gemini-2.5-flash-001")) + "\n").encode())
    assert [c.model for c in loaded.conversations] == ["gemini-2.5-flash-001"]
    loaded = load_bytes("g.jsonl", (json.dumps(_gemini_exchange("")) + "\n").encode())
    assert [c.model for c in loaded.conversations] == [None]


def test_a_model_the_body_names_is_not_overridden():
    """OpenAI's response names the snapshot (`gpt-4.1-2025-04-14`); the conversation keeps what was asked."""
    [loaded] = load([paths.SAMPLES / "openai-chat" / "parallel-calls.jsonl"])
    assert loaded.reads[0].responses[0].model == "gpt-4.1-2025-04-14"
    assert [c.model for c in loaded.conversations] == ["gpt-4.1"]


def test_a_bare_responses_object_reads_as_a_response_though_it_echoes_request_fields():
    """A Responses response object repeats `instructions`, `tools` and `previous_response_id: null`:
    it is still the model's answer, not a request."""
    [loaded] = load([paths.SAMPLES / "openai-responses" / "response.json"])
    read = loaded.reads[0]
    assert read.exchange.request is None and read.request is None
    [conv] = loaded.conversations
    assert [t.role for t in conv.turns] == ["assistant"]
    assert [p.type for p in conv.turns[0].parts] == ["reasoning", "text", "invocation", "invocation"]

