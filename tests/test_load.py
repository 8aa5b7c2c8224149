"""Loading: bytes in any container become stitched conversations, streams keep the chunk each part
came from, and bad records are reported beside the good ones."""

import json
import random

import pytest

from tests import paths
from tooldbg.errors import InputError
from tooldbg.jsonio import resolve
from tooldbg.load import load, load_bytes, load_file
from tooldbg.model import Invocation, Result
from tooldbg.scan import note_empty


@pytest.mark.needs_corpus
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


@pytest.mark.needs_corpus
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
    [read] = loaded.reads
    [response] = read.responses
    assert read.conversation == conv.id and response.error.message == "max_tokens: too small"


def test_a_folder_loads_every_file_and_an_unreadable_one_does_not_stop_it(tmp_path):
    (tmp_path / "a.json").write_bytes((paths.SAMPLES / "openai-chat" / "request.json").read_bytes())
    (tmp_path / "b.json").write_text("{")
    (tmp_path / ".hidden.json").write_text("{")
    (tmp_path / "README.md").write_text("# notes")
    (tmp_path / "c.txt").write_bytes(b"\xef\xbb\xbf \n" + (paths.SAMPLES / "openai-chat" / "request.json").read_bytes())
    loaded = load([tmp_path])  # (c.txt by its content: a byte-order mark, blank space, then JSON)
    assert [item.path.rsplit("/", 1)[-1] for item in loaded] == ["a.json", "b.json", "c.txt"]
    assert loaded[0].conversations and not loaded[0].errors
    assert not loaded[1].conversations and "invalid JSON" in loaded[1].errors[0].message
    assert loaded[2].conversations and not loaded[2].errors


def test_a_blank_file_in_a_folder_is_read_when_named_like_a_capture(tmp_path):
    """Nothing in it tells what it is: `.jsonl` says a capture (an empty one, said so), `.txt` does not."""
    (tmp_path / "session.jsonl").write_bytes(b"")
    (tmp_path / "notes.txt").write_bytes(b"")
    assert [(item.path.rsplit("/", 1)[-1], [e.message for e in item.errors]) for item in load([tmp_path])] == [
        ("session.jsonl", ["empty file"])]


def test_a_compressed_file_that_does_not_decompress_is_named():
    loaded = load_bytes("rollout.jsonl.zst", b"\x28\xb5\x2f\xfd" + b"not zstd at all")
    [error] = loaded.errors
    assert (error.path, error.location) == ("rollout.jsonl.zst", "")
    assert error.message.startswith("zstd-compressed, but it does not decompress: ")


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


def _anthropic_message(n, text, call_id=None):
    events = [
        {"type": "message_start", "message": {"id": f"msg_{n}", "type": "message", "role": "assistant",
                                              "model": "claude-sonnet-4-5", "content": [],
                                              "stop_reason": None, "usage": {"input_tokens": 9}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0}]
    if call_id:
        events += [
            {"type": "content_block_start", "index": 1, "content_block": {
                "type": "tool_use", "id": call_id, "name": "get_weather", "input": {}}},
            {"type": "content_block_delta", "index": 1, "delta": {
                "type": "input_json_delta", "partial_json": '{"city": "' + text + '"}'}},
            {"type": "content_block_stop", "index": 1}]
    events += [{"type": "message_delta", "delta": {"stop_reason": "tool_use" if call_id else "end_turn"},
                "usage": {"output_tokens": 5}},
               {"type": "message_stop"}]
    return events


def test_wire_at_quotes_the_response_of_a_multi_response_capture_that_holds_the_chunk():
    """A capture with three messages back to back (chunks 0-8, 9-17, 18-22): a part of the second
    or third response is quoted from that response, never from the first."""
    events = (_anthropic_message(1, "Oslo", "toolu_A") + _anthropic_message(2, "Bergen", "toolu_B")
              + _anthropic_message(3, "Done"))
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    loaded = load_bytes("three.sse", sse.encode())
    assert loaded.errors == [] and len(loaded.reads[0].streams) == 3
    [conv] = loaded.conversations
    parts = [p for t in conv.turns for p in t.parts]
    assert [(p.type, p.source.chunk) for p in parts] == [
        ("text", 1), ("invocation", 4), ("text", 10), ("invocation", 13), ("text", 19)]
    quoted = [loaded.wire_at(0, p.source.side, p.source.pointer, p.source.chunk) for p in parts]
    assert quoted == [
        {"type": "text", "text": "Oslo"},
        {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {"city": "Oslo"}},
        {"type": "text", "text": "Bergen"},
        {"type": "tool_use", "id": "toolu_B", "name": "get_weather", "input": {"city": "Bergen"}},
        {"type": "text", "text": "Done"}]
    # any event of a response belongs to it, a delta as much as the event that opened a block
    assert loaded.wire_at(0, "response", "/content/0/text", 11) == "Bergen"
    assert loaded.wire_at(0, "response", "/content/0/text", 22) == "Done"
    assert loaded.wire_at(0, "response", "/content/0/text", 8) == "Oslo"
    assert loaded.wire_at(0, "response", "/content/0/text", 9) == "Bergen"  # its message_start
    assert loaded.wire_at(0, "response", "/stop_reason", 16) == "tool_use"
    assert loaded.wire_at(0, "response", "/stop_reason", 21) == "end_turn"
    # without a chunk: the first response; no such exchange, or no request side: nothing
    assert loaded.wire_at(0, "response", "/content/0/text") == "Oslo"
    assert loaded.wire_at(1, "response", "") is None and loaded.wire_at(-1, "response", "") is None
    assert loaded.wire_at(0, "request", "") is None
    # two responses are as many as three
    events = _anthropic_message(1, "Oslo", "toolu_A") + _anthropic_message(2, "Bergen")
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    loaded = load_bytes("two.sse", sse.encode())
    assert loaded.wire_at(0, "response", "/content/0/text", 10) == "Bergen"


def test_wire_at_reads_request_and_response_bodies():
    [loaded] = load([paths.SAMPLES / "openai-chat" / "parallel-calls.jsonl"])
    assert loaded.wire_at(1, "request", "/messages/4/tool_call_id") == "call_J7cVn4TqE0aUx5GmRb8KyW3Z"
    assert loaded.wire_at(0, "response", "/choices/0/finish_reason") == "tool_calls"
    assert loaded.wire_at(0, "response", "/choices/0/finish_reason", 3) == "tool_calls"
    assert loaded.wire_at(2, "request", "") is None


# ---------------------------------------------------- what load returns on every path, whole


def where(loaded):
    return [(e.path, e.location, e.message) for e in loaded.errors]


def test_a_canonical_document_loads_as_canonical_and_a_broken_one_says_where():
    doc = {"format": "tooldbg.canonical/1", "conversations": [
        {"id": "c1", "turns": [{"role": "user", "parts": [{"type": "text", "text": "hi"}]}]}]}
    loaded = load_bytes("doc.json", json.dumps(doc).encode())
    assert (loaded.path, loaded.container, loaded.errors) == ("doc.json", "canonical", [])
    assert [c.id for c in loaded.conversations] == ["c1"]
    assert loaded.conversation("c1") is loaded.conversations[0] and loaded.conversation("c9") is None
    doc["conversations"][0]["turns"][0]["role"] = 7
    loaded = load_bytes("doc.json", json.dumps(doc).encode())
    assert (loaded.path, loaded.container, loaded.conversations) == ("doc.json", "canonical", [])
    [(path, location, message)] = where(loaded)
    assert path == "doc.json" and location.startswith("/conversations/0/turns/0") and message


def test_bytes_that_are_no_capture_and_a_file_that_cannot_be_read(tmp_path):
    loaded = load_bytes("x.json", b"{")
    assert (loaded.path, loaded.container, loaded.reads) == ("x.json", "unknown", [])
    assert len(loaded.errors) == 1 and "invalid JSON" in loaded.errors[0].message
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    loaded = load_file(folder)
    assert (loaded.path, loaded.container) == (str(folder), "unknown")
    assert where(loaded) == [(str(folder), "", "Is a directory")]
    with pytest.raises(InputError) as raised:
        load([tmp_path / "missing.jsonl"])
    assert (raised.value.path, raised.value.location, raised.value.message) == (
        str(tmp_path / "missing.jsonl"), "", "no such file or folder")


def test_progress_is_reported_per_exchange_and_the_input_format_is_obeyed(tmp_path):
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    record = json.dumps({"request": {"body": body}})
    path = tmp_path / "two.jsonl"
    path.write_text(f"{record}\n{record}\n")
    calls = []
    [loaded] = load([path], progress=lambda *args: calls.append(args))
    assert calls == [(str(path), 1, 2), (str(path), 2, 2)]
    assert loaded.formats == ["anthropic"]  # `max_tokens` and plain text: read as Anthropic
    [loaded] = load([path], input_format="openai-chat")
    assert loaded.formats == ["openai-chat"] and loaded.container == "jsonl"
    assert load_file(path, "openai-chat").formats == ["openai-chat"]
    assert load_bytes("two.jsonl", path.read_bytes(), "openai-chat").formats == ["openai-chat"]


def test_the_url_decides_the_format_before_the_body_does():
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    record = {"request": {"url": "https://api.openai.com/v1/chat/completions", "body": body}}
    assert load_bytes("x.jsonl", (json.dumps(record) + "\n").encode()).formats == ["openai-chat"]


def test_records_that_cannot_be_read_are_errors_at_their_place_and_the_rest_is_read():
    good = {"request": {"url": "https://api.openai.com/v1/chat/completions",
                        "body": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}}}
    unknown = {"request": {"body": {"prompt": "hi"}}}
    bad_request = {"request": {"url": "https://api.openai.com/v1/chat/completions",
                               "body": {"model": "m", "messages": "hi"}}}
    bad_response = {"request": good["request"],
                    "response": {"status": 200, "body": {"choices": "none"}}}
    empty = {"request": None, "response": None}
    lines = [empty, unknown, bad_request, bad_response, good]
    loaded = load_bytes("log.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode())
    assert [(e.path, e.location) for e in loaded.errors] == [
        ("log.jsonl", "line 3/request/body#/messages"),
        ("log.jsonl", "line 4/response/body#/choices")]
    assert all(e.message for e in loaded.errors)
    # the record in no provider's format is not an LLM exchange: skipped and counted, not an error;
    # the record with neither side is passed over; the others are read around the errors
    assert loaded.skipped == 1
    assert len(loaded.reads) == 5 and [r.conversation for r in loaded.reads] == [None, None, None, "c1", "c1"]


def test_a_body_in_no_providers_format_is_counted_and_the_file_said_to_hold_no_exchange():
    loaded = load_bytes("x.json", json.dumps({"prompt": "hi"}).encode())
    assert loaded.errors == [] and loaded.skipped == 1 and not loaded.conversations
    note_empty(loaded)
    assert where(loaded) == [("x.json", "", "no LLM exchange found (1 entry in no provider's format; "
                                            "--input-format reads it as one)")]
    forced = load_bytes("x.json", json.dumps({"prompt": "hi"}).encode(), "openai-chat")
    assert forced.skipped == 0 and forced.errors  # --input-format reads it: its own error


def test_streamed_parts_point_at_their_file_and_exchange():
    [loaded] = load([paths.SAMPLES / "anthropic" / "stream.sse"])
    [conv] = loaded.conversations
    assert {(p.source.file, p.source.exchange, p.source.side) for p in conv.turns[0].parts} == {
        (str(paths.SAMPLES / "anthropic" / "stream.sse"), 0, "response")}


def test_an_error_in_a_bare_body_is_located_by_its_pointer_alone():
    loaded = load_bytes("x.json", json.dumps({"messages": [{"role": "user", "content": "hi"}], "model": 5}).encode())
    assert where(loaded) == [("x.json", "/model", "model must be a string, not a number")]
    loaded = load_bytes("x.json", b'{"error": 5}', "openai-responses")  # wrong at the root
    assert where(loaded) == [("x.json", "/", "neither a response object nor an error body")]


def test_a_har_whose_entries_do_not_parse_one_by_one_is_read_again_whole():
    """The entries of a HAR are parsed one by one from its bytes; an entry that is no object (`null`
    on its own line) makes the file read again as one document: every other entry is still read, the
    bad one reported at its place."""
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    entry = {"request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                         "postData": {"mimeType": "application/json", "text": json.dumps(body)}}}
    data = json.dumps({"log": {"entries": [entry, None, entry]}}, indent=2).encode()
    calls = []
    loaded = load_bytes("run.har", data, progress=lambda *args: calls.append(args))
    assert loaded.container == "har" and [r.exchange.index for r in loaded.reads] == [0, 1]
    assert [r.exchange.request.location for r in loaded.reads] == \
        ["/log/entries/0/request/postData/text", "/log/entries/2/request/postData/text"]
    assert where(loaded) == [("run.har", "/log/entries/1", "expected an object, not null")]
    assert calls[-2:] == [("run.har", 1, 3), ("run.har", 2, 3)]


@pytest.mark.parametrize("kind", ["json-array", "interactions", "har-one-line", "jsonl"])
def test_a_record_that_makes_no_exchange_takes_no_number(kind):
    """Exchanges are numbered in the order they are made, in every container: a record skipped (here
    nested too deep) takes no number, and each turn's wire JSON is the one it came from. Before: a JSON
    array, a recording or a HAR numbered exchanges by record, so after a skipped record `show` drew
    the next exchange's JSON for a turn (and none for the last), and JSON Lines numbered otherwise."""
    from tests.fuzz.sessions import container, har, session

    exchanges = list(session(random.Random(3), "openai-chat", tag="A").exchanges)
    deep: object = 1
    for _ in range(300):
        deep = [deep]
    skipped = {**exchanges[0], "_x": deep}
    name, data = container([exchanges[0], skipped, *exchanges[1:]], kind)
    if kind.startswith("har"):  # (a HAR entry keeps only what HAR has: the deep value goes in itself)
        entries = json.loads(data)["log"]["entries"]
        entries[1]["_x"] = deep
        name, data = har(entries, kind)
    loaded = load_bytes(name, data)
    assert [r.exchange.index for r in loaded.reads] == list(range(len(exchanges)))
    [conv] = loaded.conversations
    for turn in conv.turns:
        s = turn.source
        body = exchanges[s.exchange][s.side]["body"]
        assert loaded.wire_at(s.exchange, s.side, s.pointer) == resolve(body, s.pointer)


def test_a_request_body_that_quotes_litellms_debug_marker_is_read_as_the_request_it_is():
    """LiteLLM's debug output is told by its marker line, but a JSON document that quotes the marker
    (a user asking what it means) is no debug output: it reads as the Anthropic request it is."""
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": "Answer briefly.",
            "messages": [{"role": "user", "content": "Why does my log say Request Sent from LiteLLM?"}]}
    loaded = load_bytes("request.json", json.dumps(body).encode())
    assert (loaded.container, loaded.formats, loaded.errors) == ("json", ["anthropic"], [])
    [conversation] = loaded.conversations
    assert conversation.system[0].text == "Answer briefly."  # (read as LiteLLM, the system was lost)
