"""The model and the request settings survive conversion.

* The model is read from the URL where the wire puts it there — Gemini and Vertex AI
  (`…/models/{model}:generateContent`, https://ai.google.dev/api/generate-content,
  https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/projects.locations.publishers.models/generateContent),
  Claude on Vertex AI (`…/publishers/anthropic/models/{model}:rawPredict`, `:streamRawPredict`;
  https://docs.anthropic.com/en/api/claude-on-vertex-ai: "model is not passed in the request body"),
  Bedrock (`/model/{modelId}/converse`, `converse-stream`, `invoke`, `invoke-with-response-stream`;
  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html; the id may be a
  URL-encoded ARN), Azure OpenAI (`/openai/deployments/{deployment}/chat/completions?api-version=…`,
  https://learn.microsoft.com/azure/ai-services/openai/reference) — else from the response.
* `max_tokens`, `temperature`, `top_p`, stop sequences and the tool choice are written at each
  target's own field (`FIELDS`, from the API references cited in each format's `FACTS.settings`),
  and what a target has no field for is a loss line, never dropped silently; Anthropic's required
  `max_tokens` is a stated default when the source had none.
"""

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.command import run
from tooldbg import formats
from tooldbg.convert import NotWritten, export
from tooldbg.formats.reading import link
from tooldbg.load import load_bytes, url_model
from tooldbg.model import (
    Conversation,
    Invocation,
    Result,
    Settings,
    Text,
    Tool,
    ToolChoice,
    Turn,
    document,
    read_document,
)
from tooldbg.source import Source

FORMATS = formats.WIRE_FORMATS

# ------------------------------------------------------------------------------ the model in the URL

VERTEX = "https://us-east5-aiplatform.googleapis.com/v1/projects/my-proj/locations/us-east5/publishers"
BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model"
ARN = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-7-sonnet-20250219-v1:0"
ENCODED_ARN = ARN.replace(":", "%3A").replace("/", "%2F")
URLS = [
    ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
     "gemini-2.5-flash"),
    ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
     "gemini-2.5-flash"),
    (f"{VERTEX}/google/models/gemini-2.5-pro:generateContent", "gemini-2.5-pro"),
    (f"{VERTEX}/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse", "gemini-2.5-pro"),
    (f"{VERTEX}/anthropic/models/claude-sonnet-4-5@20250929:rawPredict", "claude-sonnet-4-5@20250929"),
    (f"{VERTEX}/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict", "claude-sonnet-4-5@20250929"),
    (f"{BEDROCK}/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
    (f"{BEDROCK}/us.anthropic.claude-sonnet-4-20250514-v1:0/converse-stream",
     "us.anthropic.claude-sonnet-4-20250514-v1:0"),
    (f"{BEDROCK}/meta.llama3-70b-instruct-v1%3A0/invoke", "meta.llama3-70b-instruct-v1:0"),
    (f"{BEDROCK}/{ENCODED_ARN}/invoke-with-response-stream", ARN),
    (f"{BEDROCK}/{ENCODED_ARN}/converse", ARN),
    ("https://my-resource.openai.azure.com/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21",
     "gpt4o-prod"),
]


@pytest.mark.parametrize(("url", "model"), URLS)
def test_each_url_shape_names_its_model(url, model):
    assert url_model(url) == model


@pytest.mark.parametrize("url", [
    "https://api.openai.com/v1/chat/completions",  # the model is in the body
    "https://api.anthropic.com/v1/messages",
    "https://proxy.example.com/gemini",  # a relay's own path names nothing
    f"{BEDROCK}/converse",  # no model segment
    f"{BEDROCK}/m/list",  # not a runtime operation
])
def test_urls_that_name_no_model(url):
    assert url_model(url) is None


def test_a_url_that_does_not_parse_names_no_model_and_its_log_still_reads():
    """Found by the long fuzz run (seed 39, input 9996): a request URL with an unclosed IPv6 bracket
    ended the load in a ValueError from `urlsplit` ("Invalid IPv6 URL")."""
    url = "https://[api.anthropic.com/v1/messages"
    assert url_model(url) is None
    formats, conv = _read(url, {"model": "claude-haiku-4-5", "max_tokens": 64,
                                "messages": [{"role": "user", "content": USER}]})
    assert formats == ["anthropic"] and conv.model == "claude-haiku-4-5"


def _read(url, body, response=None):
    record = {"request": {"url": url, "body": body}}
    if response is not None:
        record["response"] = {"status": 200, "body": response}
    loaded = load_bytes("log.jsonl", (json.dumps(record) + "\n").encode())
    assert loaded.errors == [], loaded.errors
    [conv] = loaded.conversations
    return loaded.formats, conv


USER = "Weather in Oslo?"
GEMINI_BODY = {"contents": [{"role": "user", "parts": [{"text": USER}]}]}
BEDROCK_BODY = {"messages": [{"role": "user", "content": [{"text": USER}]}]}
# Claude on Vertex AI and Bedrock InvokeModel: Messages bodies without `model`, with their version.
VERTEX_CLAUDE = {"anthropic_version": "vertex-2023-10-16", "max_tokens": 512,
                 "messages": [{"role": "user", "content": USER}]}
BEDROCK_CLAUDE = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": 512,
                  "messages": [{"role": "user", "content": USER}]}
AZURE_BODY = {"messages": [{"role": "user", "content": USER}]}
WHOLE_LOGS = [
    (URLS[0][0], GEMINI_BODY, "gemini", "gemini-2.5-flash"),
    (URLS[3][0], GEMINI_BODY, "gemini", "gemini-2.5-pro"),
    (URLS[4][0], VERTEX_CLAUDE, "anthropic", "claude-sonnet-4-5@20250929"),
    (URLS[5][0], VERTEX_CLAUDE, "anthropic", "claude-sonnet-4-5@20250929"),
    (URLS[6][0], BEDROCK_BODY, "bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
    (URLS[7][0], BEDROCK_BODY, "bedrock", "us.anthropic.claude-sonnet-4-20250514-v1:0"),
    (URLS[9][0], BEDROCK_CLAUDE, "anthropic", ARN),
    (URLS[11][0], AZURE_BODY, "openai-chat", "gpt4o-prod"),
]


@pytest.mark.parametrize(("url", "body", "fmt", "model"), WHOLE_LOGS)
def test_a_logged_request_takes_the_model_its_url_names(url, body, fmt, model):
    found, conv = _read(url, body)
    assert found == [fmt] and conv.model == model


def test_the_body_names_the_model_before_the_url():
    _, conv = _read(URLS[11][0], {**AZURE_BODY, "model": "gpt-4o"})
    assert conv.model == "gpt-4o"


def test_else_the_response_names_the_model():
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": "4 °C"}]},
                                "finishReason": "STOP"}], "modelVersion": "gemini-2.5-flash-001"}
    _, conv = _read("https://proxy.example.com/gemini", GEMINI_BODY, response)
    assert conv.model == "gemini-2.5-flash-001"


# --------------------------------------------------------------------------- settings, per target

SET = Settings(max_tokens=256, temperature=0.3, top_p=0.9, stop=("END",))
#: Where each target carries SET: the documented field of each setting (`stop` has none in Responses).
FIELDS = {
    "openai-chat": {"max_completion_tokens": 256, "temperature": 0.3, "top_p": 0.9, "stop": ["END"]},
    "openai-responses": {"max_output_tokens": 256, "temperature": 0.3, "top_p": 0.9},
    "anthropic": {"max_tokens": 256, "temperature": 0.3, "top_p": 0.9, "stop_sequences": ["END"]},
    "gemini": {"generationConfig": {"maxOutputTokens": 256, "temperature": 0.3, "topP": 0.9,
                                    "stopSequences": ["END"]}},
    "bedrock": {"inferenceConfig": {"maxTokens": 256, "temperature": 0.3, "topP": 0.9, "stopSequences": ["END"]}},
}
NOT_CARRIED = {"openai-responses": ["stop: ['END'] — not carried: OpenAI Responses has no field for it"]}
TOOL = Tool(name="get_weather", description="Weather for a city",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}})


def _conversation(settings_=SET, model="m", tool_choice=None):
    return Conversation(model=model, settings=settings_, tools=(TOOL,), tool_choice=tool_choice,
                        turns=link([Turn(role="user", parts=(Text(text=USER),))]))


@pytest.mark.parametrize("target", FORMATS)
def test_each_setting_is_written_at_the_targets_field(target):
    written = export([_conversation()], target)
    assert {k: v for k, v in written.body.items() if k in FIELDS[target]} == FIELDS[target]
    assert [loss.message for loss in written.losses] == NOT_CARRIED.get(target, [])
    assert "modelId" not in written.body  # Bedrock's model is the URL path


@pytest.mark.parametrize("source", FORMATS)
def test_each_format_reads_its_fields_into_the_settings(source):
    body = formats.get(source).write(_conversation()).body
    request = formats.get(source).read_request(body, Source())
    expected = SET if source != "openai-responses" else Settings(max_tokens=256, temperature=0.3, top_p=0.9)
    assert request.settings == expected
    assert not any(key in str(request.meta) for key in ("maxOutputTokens", "maxTokens", "max_output_tokens",
                                                         "stop_sequences", "stopSequences", "top_p", "topP"))


@pytest.mark.parametrize(("profile", "key"), [("openai-chat", "max_completion_tokens"),
                                              ("mistral", "max_tokens"), ("deepseek", "max_tokens"),
                                              ("kimi", "max_tokens")])
def test_chat_profiles_take_max_tokens_under_their_documented_key(profile, key):
    body = export([_conversation(Settings(max_tokens=64))], profile).body
    assert body.get(key) == 64 and {"max_tokens", "max_completion_tokens"} - {key} - body.keys()


def test_chats_older_max_tokens_is_written_back_under_its_own_name_and_carried_elsewhere():
    body = {"model": "gpt-4o", "max_tokens": 100, "messages": [{"role": "user", "content": USER}]}
    _, conv = _read("https://api.openai.com/v1/chat/completions", body)
    assert conv.settings == Settings(max_tokens=100)
    chat = export([conv], "openai-chat")
    assert chat.body["max_tokens"] == 100 and "max_completion_tokens" not in chat.body and not chat.losses
    anthropic = export([conv], "anthropic")
    assert anthropic.body["max_tokens"] == 100 and not anthropic.losses


@pytest.mark.parametrize("source", ["openai-chat", "anthropic", "openai-responses"])
def test_a_streamed_request_is_written_streaming_where_the_target_has_the_key(source):
    """`stream: true` is written back by the format that read it (Anthropic and Responses dropped it
    with nothing said), carried to the two others that take it in the body, and said not carried by
    Gemini and Bedrock, which stream by their URL (`:streamGenerateContent`, `/converse-stream`)."""
    body = formats.get(source).write(_conversation(Settings(max_tokens=64))).body
    conv = _read("https://api.example/v1", {**body, "stream": True})[1]
    for target in ("openai-chat", "anthropic", "openai-responses"):
        written = export([conv], target)
        assert written.body["stream"] is True and not any("stream" in str(x) for x in written.losses), target
    for target, title in (("gemini", "Gemini"), ("bedrock", "Bedrock Converse")):
        written = export([conv], target)
        assert "stream" not in written.body
        assert [str(x) for x in written.losses if "stream" in str(x)] == [
            f"conversation: stream: True — not carried: {title} streams by the URL the request is sent to, "
            "not by a body field"]
    assert "stream" not in export([_read("https://api.example/v1", body)[1]], source).body


def test_a_max_tokens_that_is_no_integer_is_no_setting():
    """OpenAI takes a whole number of tokens: 512.5 is not the conversation's max_tokens (Anthropic
    would have been sent it), it stays the request's own parameter and is said not carried; a 256.0
    beside the newer spelling's 256 is another value, said so."""
    chat = "https://api.openai.com/v1/chat/completions"
    _, conv = _read(chat, {"model": "gpt-4o", "max_completion_tokens": 512.5,
                           "messages": [{"role": "user", "content": USER}]})
    written = export([conv], "anthropic")
    assert (conv.settings.max_tokens, written.body["max_tokens"]) == (None, 4096)
    assert "conversation: max_completion_tokens: 512.5 — not carried: Anthropic has no field for this " \
           "openai-chat parameter" in map(str, written.losses)
    _, conv = _read(chat, {"model": "gpt-4o", "max_completion_tokens": 256, "max_tokens": 256.0,
                           "messages": [{"role": "user", "content": USER}]})
    assert [str(x) for x in export([conv], "anthropic").losses] == [
        "conversation: max_tokens: 256.0 — not carried: the request carries another max_tokens"]


def test_each_formats_parameters_are_said_whatever_another_formats_meta_holds():
    """A canonical document whose meta holds something other than an object under one format's name
    still has the other formats' parameters reported."""
    conv = replace(_conversation(Settings()), meta={
        "anthropic": 5, "gemini": {"safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT"}]}})
    assert "conversation: safetySettings: [{'category': 'HARM_CATEGORY_HARASSMENT'}] — not carried: OpenAI " \
           "Chat Completions has no field for this gemini parameter" in map(str, export([conv], "openai-chat").losses)


def test_both_max_tokens_spellings_are_written_back_as_they_came():
    """OpenAI refuses a request that sets both ("Setting 'max_tokens' and 'max_completion_tokens' at
    the same time is not supported", langchain-ai/langgraph#5943); rewriting it kept max_tokens and
    dropped the other, with nothing said. The request is written back as it was; another format takes
    the newer one and says the other is not carried."""
    body = {"model": "gpt-4o", "max_completion_tokens": 512, "max_tokens": 256,
            "messages": [{"role": "user", "content": USER}]}
    _, conv = _read("https://api.openai.com/v1/chat/completions", body)
    chat = export([conv], "openai-chat")
    assert (chat.body["max_completion_tokens"], chat.body["max_tokens"], chat.losses) == (512, 256, ())
    anthropic = export([conv], "anthropic")
    assert anthropic.body["max_tokens"] == 512
    assert [str(loss) for loss in anthropic.losses] == [
        "conversation: max_tokens: 256 — not carried: the request carries another max_tokens"]


@pytest.mark.parametrize(("target", "wanted", "line"), [
    ("anthropic", Settings(temperature=1.5), "temperature: 1.5 — not carried: Anthropic accepts 0 to 1"),
    ("bedrock", Settings(temperature=1.5), "temperature: 1.5 — not carried: Bedrock Converse accepts 0 to 1"),
    ("openai-chat", Settings(stop=("a", "b", "c", "d", "e")),
     "stop: ['a', 'b', 'c', 'd', 'e'] — not carried: OpenAI Chat Completions takes 0 to 4 stop sequences"),
])
def test_a_value_the_target_does_not_accept_is_reported_not_written(target, wanted, line):
    """Anthropic's and Bedrock's temperature is 0 to 1 (https://docs.anthropic.com/en/api/messages,
    https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html),
    Chat takes up to 4 stop sequences (https://platform.openai.com/docs/api-reference/chat/create)."""
    written = export([_conversation(wanted)], target)
    assert line in [loss.message for loss in written.losses]
    back = formats.get(formats.facts(target).name).read_request(written.body, Source())
    assert back.settings.temperature is None and back.settings.stop is None
    assert export([_conversation(wanted)], "gemini").losses == ()  # Gemini takes 0 to 2, up to 5


def test_anthropic_requires_max_tokens_and_a_default_is_stated():
    written = export([_conversation(Settings())], "anthropic")
    assert written.body["max_tokens"] == 4096
    assert [loss.message for loss in written.losses] == [
        "max_tokens: 4096 — a default: Anthropic requires max_tokens and the source had none"]
    for target in ("openai-chat", "openai-responses", "gemini", "bedrock"):  # nothing invented elsewhere
        body = export([_conversation(Settings())], target).body
        assert not {"max_tokens", "max_completion_tokens", "max_output_tokens", "generationConfig",
                    "inferenceConfig"} & body.keys()


def test_settings_in_an_older_documents_meta_are_carried():
    """Canonical documents written before `settings` kept them in the format's meta."""
    old = Conversation(model="m", meta={"anthropic": {"max_tokens": 1024, "top_k": 5}},
                       turns=link([Turn(role="user", parts=(Text(text=USER),))]))
    written = export([old], "gemini")
    assert written.body["generationConfig"] == {"maxOutputTokens": 1024}
    assert [loss.message for loss in written.losses] == [
        "top_k: 5 — not carried: Gemini has no field for this anthropic parameter"]


def test_settings_round_trip_through_the_canonical_document():
    conv = _conversation()
    doc = json.loads(json.dumps(document([conv])))
    assert doc["conversations"][0]["settings"] == {"max_tokens": 256, "temperature": 0.3, "top_p": 0.9,
                                                   "stop": ["END"]}
    assert read_document(doc)[0].settings == SET


# ---------------------------------------------- canonical → X → canonical keeps what X can carry

SETTINGS = st.builds(
    Settings,
    max_tokens=st.none() | st.integers(1, 200_000),
    temperature=st.none() | st.integers(0, 1) | st.floats(0, 2, allow_nan=False),
    top_p=st.none() | st.floats(0, 1, allow_nan=False),
    stop=st.none() | st.lists(st.text(min_size=1, max_size=8), max_size=6).map(tuple))
CHOICES = st.none() | st.builds(ToolChoice, mode=st.sampled_from(["auto", "none", "required"]),
                                parallel=st.none() | st.booleans()) \
    | st.builds(ToolChoice, mode=st.just("tool"), name=st.just(TOOL.name), parallel=st.none() | st.booleans())


@pytest.mark.parametrize("target", FORMATS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wanted=SETTINGS, choice=CHOICES)
def test_settings_and_tool_choice_survive_or_are_reported(target, wanted, choice):
    conv = _conversation(wanted, tool_choice=choice)
    written = export([conv], target)
    back = formats.get(target).read_request(written.body, Source())
    said = " ".join(loss.message for loss in written.losses)
    facts = formats.facts(target)
    for name, value in wanted.items():
        low, high = facts.setting_ranges.get(name, (float("-inf"), float("inf")))
        if name in facts.settings and low <= (len(value) if name == "stop" else value) <= high:
            assert getattr(back.settings, name) == value, (name, written.body)
        else:
            assert getattr(back.settings, name) is None and f"{name}: " in said and "not carried" in said
    for name in {"max_tokens", "temperature", "top_p", "stop"} - {n for n, _ in wanted.items()}:
        default = name == "max_tokens" and facts.max_tokens_default is not None
        assert getattr(back.settings, name) is None or default, f"{name} invented"
    if back.tool_choice != choice:
        assert "tool_choice" in said, (choice, back.tool_choice, said)
    for line in written.losses:  # every request-level line has the one wording
        assert " — " in line.message and line.message.split(":")[0] in {
            "max_tokens", "temperature", "top_p", "stop", "tool_choice", "tool_choice.parallel"}


# ------------------------------------------------------------------- the library refuses blanks


def test_the_library_export_refuses_to_write_an_empty_value_in_place_of_recorded_content():
    """Invalid JSON arguments: Anthropic needs an object and would get {} (the guard of the CLI and
    the dialog, guard.blanks, applies to `export` too)."""
    conv = Conversation(model="m", tools=(TOOL,), turns=link([
        Turn(role="user", parts=(Text(text=USER),)),
        Turn(role="assistant", parts=(Invocation(name="get_weather", raw_arguments='{"city": "Os',
                                                 wire_id="call_1"),)),
        Turn(role="tool", parts=(Result(wire_id="call_1", content=(Text(text="4 °C"),)),))]))
    with pytest.raises(NotWritten) as refused:
        export([conv], "anthropic")
    assert "not written: anthropic cannot carry 1 recorded value" in str(refused.value)
    assert refused.value.export.body["messages"][1]["content"][0]["input"] == {}
    assert [b.code for b in refused.value.blanks] == [None]  # completing the JSON would be a guess
    shown = export([conv], "anthropic", allow_blanks=True)  # a view that lists and refuses itself
    assert len(shown.blanks) == 1
    assert export([conv], "openai-chat").blanks == ()  # a string format carries it as recorded


# --------------------------------------------------------------------------------- the command


@pytest.fixture
def gemini_body(tmp_path):
    """A bare Gemini body: no URL, so no model."""
    path = tmp_path / "gemini.json"
    path.write_text(json.dumps({**GEMINI_BODY, "generationConfig": {"maxOutputTokens": 300}}))
    return path


@pytest.mark.parametrize("target", ["openai-chat", "openai-responses", "anthropic"])
def test_convert_without_a_model_the_target_requires_says_so_and_exits_1(capsys, gemini_body, target):
    code, out, err = run(capsys, "convert", str(gemini_body), "--to", target)
    assert code == 1
    assert "model" not in json.loads(out)  # written, the loss stated
    title = formats.facts(target).title
    assert (f"loss: c1 conversation: model: none — missing: {title} requires model in the request body and "
            "the conversation names none (give one with --model)") in err.splitlines()


def test_convert_model_sets_the_model_of_the_export(capsys, gemini_body, tmp_path):
    out_path = tmp_path / "claude.json"
    code, _, err = run(capsys, "convert", str(gemini_body), "--to", "anthropic", "--model", "claude-haiku-4-5",
                       "-o", str(out_path))
    assert code == 0, err
    body = json.loads(out_path.read_text())
    assert body["model"] == "claude-haiku-4-5" and body["max_tokens"] == 300
    assert "missing" not in err


def test_convert_model_for_a_url_format_says_where_the_model_goes(capsys, gemini_body):
    code, out, err = run(capsys, "convert", str(gemini_body), "--to", "bedrock", "--model", "amazon.nova-pro-v1:0",
                         "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["missing"] == [] and "modelId" not in doc["body"]
    assert doc["body"]["inferenceConfig"] == {"maxTokens": 300}
    assert "note: c1 Bedrock Converse takes the model in the request URL, not the body: amazon.nova-pro-v1:0" in err


def test_convert_json_names_what_is_missing(capsys, gemini_body):
    code, out, _ = run(capsys, "convert", str(gemini_body), "--to", "openai-chat", "--format", "json")
    assert code == 1 and json.loads(out)["missing"] == ["model"]


def test_convert_model_to_canonical(capsys, gemini_body):
    code, out, err = run(capsys, "convert", str(gemini_body), "--to", "canonical", "--model", "gemini-2.5-pro")
    assert code == 0, err
    [conv] = json.loads(out)["conversations"]
    assert conv["model"] == "gemini-2.5-pro" and conv["settings"] == {"max_tokens": 300}


def test_convert_model_must_name_one(capsys, gemini_body):
    code, _, err = run(capsys, "convert", str(gemini_body), "--to", "anthropic", "--model", " ")
    assert code == 2 and "--model" in err
