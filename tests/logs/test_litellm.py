"""LiteLLM's logs: StandardLoggingPayload records, spend logs (JSON strings; `"{}"` without stored
prompts), and the curl lines of its debug output (a Python literal, read with `ast.literal_eval`)."""

import json

from tests import paths
from tests.logs.helpers import codes, tally
from tooldbg.load import load_bytes, load_file

FOLDER = paths.SAMPLES / "litellm"


def test_logging_payloads_read_as_the_calls_litellm_made():
    loaded = load_file(FOLDER / "standard-logging-payloads.jsonl")
    assert loaded.errors == [] and loaded.container == "litellm" and loaded.formats == ["openai-chat"]
    [conv] = loaded.conversations
    assert [t.name for t in conv.tools] == ["lookup_order"]  # from `model_parameters`
    # each turn points at the record that first logged it, at its place among the payload's messages
    assert [(t.source.location, t.source.pointer) for t in conv.turns] == [
        ("line 1", "/messages/1"), ("line 1/response", "/choices/0/message"), ("line 2", "/messages/3"),
        ("line 2/response", "/choices/0/message")]
    assert tally(loaded) == (1, 1, 0) and codes(loaded) == []


def test_a_failed_call_is_the_providers_rejection_with_its_status():
    loaded = load_file(paths.SAMPLES / "defects" / "TD102-litellm-payload-client-drops-tool-message.jsonl")
    assert loaded.reads[1].exchange.response.status == 400
    assert codes(loaded) == ["TD901", "TD102"]


def test_spend_logs_read_the_clients_request_from_its_json_string():
    loaded = load_file(FOLDER / "spend-logs.json")
    assert loaded.errors == [] and loaded.container == "litellm"
    assert loaded.reads[0].exchange.request.location == "/0/proxy_server_request"
    assert tally(loaded) == (1, 1, 0) and codes(loaded) == []


def test_spend_logs_without_stored_prompts_say_so():
    row = json.loads((FOLDER / "spend-logs.json").read_text())[0]
    row.update(messages="{}", response="{}", proxy_server_request="{}")
    loaded = load_bytes("spend.json", json.dumps([row]).encode())
    assert loaded.lacks == ("prompts",) and loaded.conversations == []
    assert [e.message for e in loaded.errors] == []


def test_debug_output_reads_each_request_literal_and_its_raw_response():
    loaded = load_file(FOLDER / "proxy-debug.log")
    assert loaded.errors == [] and loaded.container == "litellm" and loaded.formats == ["anthropic"]
    first = loaded.reads[0].exchange
    assert first.request.url == "https://api.anthropic.com/v1/messages" and first.response is not None
    assert tally(loaded) == (1, 1, 1) and codes(loaded) == []


def test_a_debug_body_is_evaluated_as_a_literal_never_as_code():
    text = ("POST Request Sent from LiteLLM:\ncurl -X POST \\\nhttps://api.anthropic.com/v1/messages \\\n"
            "-d '__import__(\"os\").system(\"echo pwned\")'\n")
    loaded = load_bytes("debug.log", text.encode())
    assert [e.location for e in loaded.errors] == ["line 4"]
    assert "not a Python or JSON literal" in loaded.errors[0].message


def test_a_debug_body_is_read_as_the_json_it_writes_as():
    """A Python literal holds what JSON cannot — a lone surrogate (`'\\ud800'`), a tuple: the body is
    the JSON value it writes as, so the canonical document tooldbg writes reads back the same. Before:
    a key with a lone surrogate came back as another key (found by the canonical round-trip property)."""
    from tooldbg.convert import export

    text = ("POST Request Sent from LiteLLM:\ncurl -X POST \\\nhttps://api.anthropic.com/v1/messages \\\n"
            "-d '{'model': 'claude-haiku-4-5', 'max_tokens\\ud800': 1024, 'stop_sequences': ('END',), "
            "'messages': [{'role': 'user', 'content': 'hi \\ud800'}]}'\n")
    loaded = load_bytes("debug.log", text.encode())
    assert loaded.errors == []
    [conv] = loaded.conversations
    text = conv.turns[0].parts[0].text
    assert text.startswith("hi \ufffd") and "\ud800" not in text and conv.settings.stop == ("END",)
    document = export(loaded.conversations, "canonical").text(redact=False)
    assert load_bytes("back.json", document.encode()).conversations == loaded.conversations


def test_a_debug_block_without_its_url_line_reads_its_body():
    """Found by the long fuzz run (seed 34, input 34570): the line after `curl -X POST \\` holding
    only the continuation `\\` ended the read in an IndexError, and the whole log "could not be
    read". The request is read without its URL."""
    text = ("POST Request Sent from LiteLLM:\ncurl -X POST \\\n \\\n"
            "-d '{'model': 'claude-haiku-4-5', 'max_tokens': 64, 'messages': [{'role': 'user', 'content': 'hi'}]}'\n")
    loaded = load_bytes("debug.log", text.encode())
    assert loaded.errors == [] and loaded.reads[0].exchange.request.url == ""
    assert loaded.conversations[0].turns[0].parts[0].text == "hi"
