"""Cross-format conversion checked against request bodies written by hand from the providers'
documentation — not against what the writers print.

One conversation holds the key cases: a system prompt, a user turn with text and an image, an
assistant turn with text beside two parallel calls, and the results, the second one failed. It is
written as a request in each of the five wire formats (SOURCES), each read and converted to each
format; the whole body is compared with the documented body (dict keys in any order, every value
exact) and the losses with the exact list the writer must report.

Documentation (the official SDKs' request types and the providers' guides):
* OpenAI Chat Completions — assistant `tool_calls[]` with `function.arguments` a JSON *string*, one
  `role: "tool"` message per result bound by `tool_call_id`, no failure flag (`content` text only);
  user `image_url` parts. openai-python `types/chat/chat_completion_*_message_param.py`,
  https://platform.openai.com/docs/guides/function-calling
* OpenAI Responses — `function_call` / `function_call_output` items bound by `call_id`, `arguments` a
  JSON string, no failure flag; `instructions`; flat function tools; `input_image`.
  openai-python `types/responses/response_input_param.py`,
  https://platform.openai.com/docs/guides/function-calling?api-mode=responses
* Anthropic Messages — `tool_use` blocks (`input` an object) after the text of an assistant message,
  `tool_result` blocks opening the next user message, `is_error: true` on a failure; top-level
  `system`; `max_tokens` required. anthropic-sdk-python `types/tool_use_block_param.py`,
  `types/tool_result_block_param.py`, https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
* Gemini generateContent — `functionCall` parts (`args` an object, `id` optional) in a `model`
  content, `functionResponse` parts in the next `user` content, output under `response.output` and a
  failure under `response.error`; `systemInstruction`; `inlineData`. python-genai `types.py`
  (`FunctionCall`, `FunctionResponse`), https://ai.google.dev/gemini-api/docs/function-calling
* Bedrock Converse — `toolUse` / `toolResult` blocks bound by `toolUseId`, `status: "error"` on a
  failure, `json` or `text` result content; `system[]`, `toolConfig.tools[].toolSpec`; the model id
  is the URL path (`POST /model/{modelId}/converse`). botocore `bedrock-runtime` service-2.json,
  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html

Request settings travel too: the Anthropic source's required `max_tokens: 1024` is Chat's
`max_completion_tokens`, Responses' `max_output_tokens`, Gemini's `generationConfig.maxOutputTokens`
and Bedrock's `inferenceConfig.maxTokens` (https://platform.openai.com/docs/api-reference/chat/create,
https://platform.openai.com/docs/api-reference/responses/create, https://ai.google.dev/api/generate-content#generationconfig,
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html); a
source without it gets Anthropic's required `max_tokens` as a reported default. The three tests at the
end pin what the writers once got wrong.
"""

import json

import pytest

from tests.paths import SAMPLES
from tooldbg.convert import export
from tooldbg.load import load_bytes, load_file

FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
ASK = "Weather in Paris and Rome? Here is the view."
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
OK = '{"temp_c":22}'
FAIL = "upstream timeout"
#: The URL each request was sent to: Gemini and Bedrock name the model only there.
URLS = {
    "openai-chat": "https://api.openai.com/v1/chat/completions",
    "openai-responses": "https://api.openai.com/v1/responses",
    "anthropic": "https://api.anthropic.com/v1/messages",
    "gemini": "https://generativelanguage.googleapis.com/v1beta/models/test-model:generateContent",
    "bedrock": "https://bedrock-runtime.us-east-1.amazonaws.com/model/test-model/converse",
}


def chat_call(cid, city):
    return {"id": cid, "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": city}, separators=(",", ":"))}}


SOURCES = {
    # Chat: no failure flag, so the failed result says it in its text.
    "openai-chat": {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": [{"type": "text", "text": ASK},
                                         {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]},
            {"role": "assistant", "content": "Checking both.",
             "tool_calls": [chat_call("call_A1", "Paris"), chat_call("call_B2", "Rome")]},
            {"role": "tool", "tool_call_id": "call_A1", "content": OK},
            {"role": "tool", "tool_call_id": "call_B2", "content": f"Error: {FAIL}"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                                                    "parameters": SCHEMA}}]},
    "openai-responses": {
        "model": "test-model",
        "instructions": "Be terse.",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": ASK},
                                         {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}]},
            {"role": "assistant", "content": [{"type": "output_text", "text": "Checking both."}]},
            {"type": "function_call", "call_id": "call_A1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
            {"type": "function_call", "call_id": "call_B2", "name": "get_weather", "arguments": '{"city":"Rome"}'},
            {"type": "function_call_output", "call_id": "call_A1", "output": OK},
            {"type": "function_call_output", "call_id": "call_B2", "output": f"Error: {FAIL}"}],
        "tools": [{"type": "function", "name": "get_weather", "description": "Current weather",
                   "parameters": SCHEMA, "strict": None}]},
    "anthropic": {
        "model": "test-model",
        "max_tokens": 1024,
        "system": "Be terse.",
        "tools": [{"name": "get_weather", "description": "Current weather", "input_schema": SCHEMA}],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": ASK},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Rome"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01A", "content": OK},
                {"type": "tool_result", "tool_use_id": "toolu_01B", "content": [{"type": "text", "text": FAIL}],
                 "is_error": True}]}]},
    # Gemini: same-name parallel calls carry no id; the failure goes under `response.error`.
    "gemini": {
        "systemInstruction": {"parts": [{"text": "Be terse."}]},
        "contents": [
            {"role": "user", "parts": [{"text": ASK}, {"inlineData": {"mimeType": "image/png", "data": PNG}}]},
            {"role": "model", "parts": [
                {"text": "Checking both."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 22}}}},
                {"functionResponse": {"name": "get_weather", "response": {"error": FAIL}}}]}],
        "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Current weather",
                                             "parametersJsonSchema": SCHEMA}]}]},
    "bedrock": {
        "system": [{"text": "Be terse."}],
        "messages": [
            {"role": "user", "content": [{"text": ASK}, {"image": {"format": "png", "source": {"bytes": PNG}}}]},
            {"role": "assistant", "content": [
                {"text": "Checking both."},
                {"toolUse": {"toolUseId": "tooluse_A", "name": "get_weather", "input": {"city": "Paris"}}},
                {"toolUse": {"toolUseId": "tooluse_B", "name": "get_weather", "input": {"city": "Rome"}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "tooluse_A", "content": [{"json": {"temp_c": 22}}], "status": "success"}},
                {"toolResult": {"toolUseId": "tooluse_B", "content": [{"text": FAIL}], "status": "error"}}]}],
        "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "description": "Current weather",
                                               "inputSchema": {"json": SCHEMA}}}]}},
}

#: The call ids each source carries; Gemini's calls have none, and a target that needs one gets
#: the writer's `<prefix>i1`, `<prefix>i2` (a reported loss).
IDS = {"openai-chat": ("call_A1", "call_B2"), "openai-responses": ("call_A1", "call_B2"),
       "anthropic": ("toolu_01A", "toolu_01B"), "gemini": None, "bedrock": ("tooluse_A", "tooluse_B")}
INVENTED = {"openai-chat": "call_", "openai-responses": "call_", "anthropic": "toolu_", "bedrock": "tooluse_"}
#: Sources whose failed result carries a flag (is_error, response.error, status) rather than only text.
FLAGGED = {"anthropic", "gemini", "bedrock"}
#: Sources whose first result is a JSON object rather than text.
STRUCTURED = {"gemini", "bedrock"}


def expected_body(source, target):
    """The documented request body in `target` for the conversation as `source` recorded it."""
    ids = IDS[source] or ((f"{INVENTED[target]}i1", f"{INVENTED[target]}i2") if target != "gemini" else None)
    flagged, structured = source in FLAGGED, source in STRUCTURED
    failed_text = FAIL if flagged else f"Error: {FAIL}"
    if target == "openai-chat":
        body = {
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": [
                    {"type": "text", "text": ASK},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]},
                {"role": "assistant", "content": "Checking both.",
                 "tool_calls": [chat_call(ids[0], "Paris"), chat_call(ids[1], "Rome")]},
                {"role": "tool", "tool_call_id": ids[0], "content": OK},
                # no flag in Chat: a failure is said in the text (formats.md §1.2, §1.8)
                {"role": "tool", "tool_call_id": ids[1], "content": f"Error: {FAIL}"}],
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather",
                                                        "parameters": SCHEMA}}]}
        if source == "anthropic":
            body["max_completion_tokens"] = 1024
    elif target == "openai-responses":
        body = {
            "model": "test-model",
            "instructions": "Be terse.",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": ASK},
                                             {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}]},
                # an assistant message replayed in the easy form (formats.md §2.2)
                {"role": "assistant", "content": [{"type": "output_text", "text": "Checking both."}]},
                {"type": "function_call", "call_id": ids[0], "name": "get_weather", "arguments": '{"city":"Paris"}'},
                {"type": "function_call", "call_id": ids[1], "name": "get_weather", "arguments": '{"city":"Rome"}'},
                {"type": "function_call_output", "call_id": ids[0], "output": OK},
                {"type": "function_call_output", "call_id": ids[1], "output": f"Error: {FAIL}"}],
            "tools": [{"type": "function", "name": "get_weather", "description": "Current weather",
                       "parameters": SCHEMA}]}
        if source == "anthropic":
            body["max_output_tokens"] = 1024
    elif target == "anthropic":
        failed = {"type": "tool_result", "tool_use_id": ids[1], "content": failed_text}
        if flagged:
            failed["is_error"] = True
        body = {
            "model": "test-model",
            # Anthropic requires max_tokens: a source without one gets the reported default
            "max_tokens": 1024 if source == "anthropic" else 4096,
            "system": [{"type": "text", "text": "Be terse."}],
            "tools": [{"name": "get_weather", "description": "Current weather", "input_schema": SCHEMA}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": ASK},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Checking both."},
                    {"type": "tool_use", "id": ids[0], "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": ids[1], "name": "get_weather", "input": {"city": "Rome"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": ids[0], "content": OK}, failed]}]}
    elif target == "gemini":
        def with_id(node, n):
            return {**node, "id": ids[n]} if ids else node

        body = {
            "systemInstruction": {"parts": [{"text": "Be terse."}]},
            "contents": [
                {"role": "user", "parts": [{"text": ASK}, {"inlineData": {"mimeType": "image/png", "data": PNG}}]},
                {"role": "model", "parts": [
                    {"text": "Checking both."},
                    {"functionCall": with_id({"name": "get_weather", "args": {"city": "Paris"}}, 0)},
                    {"functionCall": with_id({"name": "get_weather", "args": {"city": "Rome"}}, 1)}]},
                {"role": "user", "parts": [
                    {"functionResponse": with_id({"name": "get_weather", "response": {
                        "output": {"temp_c": 22} if structured else OK}}, 0)},
                    {"functionResponse": with_id({"name": "get_weather", "response": (
                        {"error": FAIL} if flagged else {"output": f"Error: {FAIL}"})}, 1)}]}],
            "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Current weather",
                                                 "parametersJsonSchema": SCHEMA}]}]}
        if source == "anthropic":
            body["generationConfig"] = {"maxOutputTokens": 1024}
    else:
        first = {"toolUseId": ids[0], "content": [{"json": {"temp_c": 22}} if structured else {"text": OK}]}
        if source == "bedrock":
            first["status"] = "success"  # kept as recorded
        failed = {"toolUseId": ids[1], "content": [{"text": failed_text}]}
        if flagged:
            failed["status"] = "error"
        body = {
            "system": [{"text": "Be terse."}],
            "messages": [
                {"role": "user", "content": [{"text": ASK}, {"image": {"format": "png", "source": {"bytes": PNG}}}]},
                {"role": "assistant", "content": [
                    {"text": "Checking both."},
                    {"toolUse": {"toolUseId": ids[0], "name": "get_weather", "input": {"city": "Paris"}}},
                    {"toolUse": {"toolUseId": ids[1], "name": "get_weather", "input": {"city": "Rome"}}}]},
                {"role": "user", "content": [{"toolResult": first}, {"toolResult": failed}]}],
            "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "description": "Current weather",
                                                   "inputSchema": {"json": SCHEMA}}}]}}
        if source == "anthropic":
            body["inferenceConfig"] = {"maxTokens": 1024}
    return body


#: Every loss each conversion must report: (turn, part, message). Turn 1 is the assistant turn
#: (part 0 its text, parts 1-2 the calls), turn 2 the results (part 1 the failed one).
CONVERSATION = None
#: Anthropic requires max_tokens; a source without it gets a default, said so.
DEFAULT_MAX_TOKENS = (CONVERSATION, None,
                      "max_tokens: 4096 — a default: Anthropic requires max_tokens and the source had none")
LOSSES = {
    ("anthropic", "openai-chat"): [
        (2, 1, "is_error has no field here: folded into the text as an 'Error' prefix")],
    ("anthropic", "openai-responses"): [
        (2, 1, "is_error folded into the output text: Responses has no failure flag")],
    ("openai-chat", "anthropic"): [DEFAULT_MAX_TOKENS],
    ("openai-responses", "anthropic"): [DEFAULT_MAX_TOKENS],
    ("gemini", "openai-chat"): [
        (1, 1, "call had no id; wrote 'call_i1'"),
        (1, 2, "call had no id; wrote 'call_i2'"),
        (2, 0, "structured result content written as JSON text"),
        (2, 0, "result had no id; wrote 'call_i1', its call's id"),
        (2, 1, "is_error has no field here: folded into the text as an 'Error' prefix"),
        (2, 1, "result had no id; wrote 'call_i2', its call's id")],
    ("gemini", "openai-responses"): [
        (1, 1, "call had no id; wrote 'call_i1'"),
        (1, 2, "call had no id; wrote 'call_i2'"),
        (2, 0, "result had no id; wrote 'call_i1', its call's id"),
        (2, 0, "structured result content sent as JSON text"),
        (2, 1, "result had no id; wrote 'call_i2', its call's id"),
        (2, 1, "is_error folded into the output text: Responses has no failure flag")],
    ("gemini", "anthropic"): [
        DEFAULT_MAX_TOKENS,
        (1, 1, "call had no id; wrote 'toolu_i1'"),
        (1, 2, "call had no id; wrote 'toolu_i2'"),
        (2, 0, "result had no id; wrote 'toolu_i1', its call's id"),
        (2, 0, "structured content written as JSON text"),
        (2, 1, "result had no id; wrote 'toolu_i2', its call's id")],
    ("gemini", "bedrock"): [
        (1, 1, "call had no id; wrote 'tooluse_i1'"),
        (1, 2, "call had no id; wrote 'tooluse_i2'"),
        (2, 0, "result had no id; wrote 'tooluse_i1', its call's id"),
        (2, 1, "result had no id; wrote 'tooluse_i2', its call's id")],
    ("bedrock", "openai-chat"): [
        (2, 0, "structured result content written as JSON text"),
        (2, 1, "is_error has no field here: folded into the text as an 'Error' prefix")],
    ("bedrock", "openai-responses"): [
        (2, 0, "structured result content sent as JSON text"),
        (2, 1, "is_error folded into the output text: Responses has no failure flag")],
    ("bedrock", "anthropic"): [
        DEFAULT_MAX_TOKENS,
        (2, 0, "structured content written as JSON text")],
}


def read(source):
    record = {"request": {"url": URLS[source], "body": SOURCES[source]}}
    loaded = load_bytes(f"{source}.jsonl", (json.dumps(record) + "\n").encode())
    assert loaded.errors == [] and loaded.formats == [source]
    [conv] = loaded.conversations
    assert conv.model == "test-model"
    return conv


@pytest.mark.parametrize("target", FORMATS)
@pytest.mark.parametrize("source", FORMATS)
def test_conversion_writes_the_documented_body_and_reports_exactly_its_losses(source, target):
    written = export([read(source)], target)
    assert written.body == expected_body(source, target)
    assert [(x.turn, x.part, x.message) for x in written.losses] == LOSSES.get((source, target), [])


def test_each_source_is_the_documented_body_of_its_format():
    """Writing a source in its own format gives it back (as the documentation spells it: Anthropic's
    system as blocks, Chat's tool results one message each) — the sources themselves are sound."""
    for fmt in FORMATS:
        written = export([read(fmt)], fmt).body
        source = json.loads(json.dumps(SOURCES[fmt]))
        if fmt == "anthropic":
            source["system"] = [{"type": "text", "text": "Be terse."}]
            source["messages"][2]["content"][1]["content"] = FAIL
        if fmt == "openai-responses":
            del source["tools"][0]["strict"]  # null: unset
        assert written == source, fmt


# ------------------------------------------------ where the writers once departed from the documentation


@pytest.mark.parametrize("source", FORMATS)
def test_bedrock_writes_no_model_id_in_the_body(source):
    """Converse takes the model id in the URL path (`POST /model/{modelId}/converse`; botocore
    `ConverseRequest.modelId` has `location: uri`): the JSON body has no `modelId` member."""
    assert "modelId" not in export([read(source)], "bedrock").body


@pytest.mark.parametrize("source", [f for f in FORMATS if f != "anthropic"])
def test_anthropic_max_tokens_is_not_invented_unreported(source):
    """`max_tokens` is required by Anthropic and none of these sources set one: the contract's
    "request settings carried, never invented" asks that a value the writer chooses be reported."""
    written = export([read(source)], "anthropic")
    assert written.body.get("max_tokens") is None or any("max_tokens" in x.message for x in written.losses)


@pytest.mark.parametrize("target", [f for f in FORMATS if f != "bedrock"])
def test_a_success_status_is_not_a_loss(target):
    """`status: "success"` says what every target says by default (no error flag): nothing is lost."""
    written = export([read("bedrock")], target)
    assert not [x for x in written.losses if "status" in x.message]


@pytest.mark.parametrize(("target", "answer"), [("openai-chat", "Chat Completions rejects as a request until a tool "
                                                  "message answers it"),
                                                 ("anthropic", "Anthropic rejects as a request until a tool_result "
                                                  "answers it"),
                                                 ("bedrock", "Bedrock Converse rejects as a request until a toolResult "
                                                  "answers it")])
def test_a_history_that_ends_on_calls_says_so_in_the_loss_report(target, answer):
    """A conversation whose last turn is the model's calls is a history, not yet a request: every
    writer says so per call, rather than passing it in silence or inventing a result."""
    [conv] = load_file(SAMPLES / "openai-chat" / "ends-on-a-call.jsonl").conversations
    written = export([conv], target)
    last = len(conv.turns) - 1
    assert [(loss.turn, loss.part, loss.message) for loss in written.losses if "ends on this call" in loss.message] == [
        (last, 0, f"the conversation ends on this call with no result: a history, which {answer}")]
