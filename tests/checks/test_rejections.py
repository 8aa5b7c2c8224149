"""TD901 provider-rejected: every way each of the five formats says "no" — an error body, an SSE error
event, a Responses `response.failed`, an OpenAI Chat error chunk, a Bedrock exception (logged or in
binary frames), and an HTTP error status whose body is no provider's — is one finding at the
exchange and the error, quoting the provider and naming the rules that explain it."""

import base64
import json

import pytest

from tests.checks.helpers import run_rules
from tests.formats.test_eventstream import event as encode_event
from tests.formats.test_eventstream import frame, string_header
from tooldbg.checks import RULES, run_checks
from tooldbg.checks.rejections import KNOWN, explaining
from tooldbg.formats.providers import BY_KEY
from tooldbg.load import load_bytes

ANTHROPIC = "https://api.anthropic.com/v1/messages"
OPENAI = "https://api.openai.com/v1/chat/completions"
RESPONSES = "https://api.openai.com/v1/responses"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:generateContent"
GEMINI_SSE = ("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:"
              "streamGenerateContent?alt=sse")
BEDROCK = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5/converse"
BEDROCK_STREAM = BEDROCK + "-stream"

AN_REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 512, "messages": [
    {"role": "user", "content": "Weather in Oslo and Bergen?"},
    {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "12°C"}]}]}
OA_REQUEST = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Weather in Oslo?"}]}
RS_REQUEST = {"model": "gpt-5", "input": "Weather in Oslo?"}
GE_REQUEST = {"contents": [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]}]}
BR_REQUEST = {"messages": [{"role": "user", "content": [{"text": "Weather in Oslo?"}]}]}


def record(url, request, status, body, content_type="application/json"):
    return {"request": {"method": "POST", "url": url, "body": request},
            "response": {"status": status, "headers": {"content-type": content_type}, "body": body}}


def sse(*events):
    """SSE text: (name or None, payload) per event."""
    return "".join((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n" for name, data in events)


def check(*records):
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    loaded = load_bytes("log.jsonl", data)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return run_rules(loaded)


def rejection(findings):
    [found] = [f for f in findings if f.code == "TD901"]
    assert (found.name, found.severity) == ("provider-rejected", "error")
    return found


# ------------------------------------------------------------------------------- error bodies


def NONE_FOUND(codes, target_rule=None, target=None):  # noqa: N802 - reads as the message it builds
    """How TD901 ends when the request it answers shows none of the defects its words point to (these
    requests are minimal: the table's words are what is tested here)."""
    hint = f" ({target_rule} runs with --target {target})" if target else ""
    return f"no rule explains it on this request: its words point to {codes}, none of which found it here{hint}"


ERROR_BODIES = {
    "anthropic": (ANTHROPIC, AN_REQUEST, {"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
                   "toolu_01B. Each `tool_use` block must have a corresponding `tool_result` block in the "
                   "next message."}, "request_id": "req_011CX8LKNqFusFUVvygN5vEH"},
                  "(HTTP 400 invalid_request_error)", NONE_FOUND("TD102, TD405, TD803", "TD803", "anthropic"),
                  "/error"),
    "openai-chat": (OPENAI, OA_REQUEST, {"error": {
        "message": "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                   "with 'tool_calls'.", "type": "invalid_request_error", "param": "messages.[1].role",
        "code": None}}, "(HTTP 400 invalid_request_error)", NONE_FOUND("TD101, TD402"), "/error"),
    "openai-responses": (RESPONSES, RS_REQUEST, {"error": {
        "message": "No tool output found for function call call_Rk4mT9wQ2xV7nB1cL8pZ3sYd.",
        "type": "invalid_request_error", "param": "input", "code": None}},
                         "(HTTP 400 invalid_request_error)", NONE_FOUND("TD102, TD803", "TD803", "openai-responses"),
                         "/error"),
    "gemini": (GEMINI, GE_REQUEST, {"error": {
        "code": 400, "status": "INVALID_ARGUMENT",
        "message": "Function call is missing a thought_signature in functionCall parts. This is required for "
                   "tools to work correctly, and missing thought_signature may lead to degraded model "
                   "performance. Additional data, function call `default_api:get_weather` , position 2."}},
               "(HTTP 400 INVALID_ARGUMENT)", NONE_FOUND("TD307, TD805", "TD805", "gemini"), "/error"),
    "bedrock": (BEDROCK, BR_REQUEST, {"message": "The number of toolResult blocks at messages.2.content exceeds "
                                                 "the number of toolUse blocks of previous turn."},
                "(HTTP 400)", NONE_FOUND("TD101, TD105"), ""),
}


@pytest.mark.parametrize("fmt", list(ERROR_BODIES))
def test_an_error_body_of_each_format_is_a_finding_that_names_its_rules(fmt):
    url, request, body, kind, said, pointer = ERROR_BODIES[fmt]
    found = rejection(check(record(url, request, 400, body)))
    assert (found.exchange, found.conversation, found.turn, found.part, found.chunk) == (0, "c1", None, None, None)
    assert found.pointer == f"/response/body#{pointer}"
    error = body.get("error", body)
    assert found.message == (f"the provider rejected the request {kind}: “{error['message']}” — {said}")


def test_the_rejection_points_at_the_exchange_that_was_refused_in_its_conversation():
    answered = record(ANTHROPIC, {**AN_REQUEST, "messages": AN_REQUEST["messages"][:1]}, 200, {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}}]})
    refused = record(ANTHROPIC, AN_REQUEST, 529, {"type": "error", "error": {"type": "overloaded_error",
                                                                            "message": "Overloaded"}})
    found = rejection(check(answered, refused))
    assert (found.exchange, found.conversation, found.pointer) == (1, "c1", "line 2/response/body#/error")
    assert found.message == ("the provider rejected the request (HTTP 529 overloaded_error): “Overloaded” — not a "
                             "defect of the history (a rate limit, an overloaded or failing server, a "
                             "credential): tooldbg has no rule for this rejection")


def test_an_unknown_rejection_is_quoted_and_said_to_have_no_rule():
    body = {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                                 "'max_completion_tokens' instead.", "type": "invalid_request_error",
                      "param": "max_tokens", "code": "unsupported_parameter"}}
    found = rejection(check(record(OPENAI, OA_REQUEST, 400, body)))
    assert found.message.endswith("instead.” — tooldbg has no rule for this rejection")
    assert "(HTTP 400 invalid_request_error unsupported_parameter)" in found.message


def test_a_long_provider_message_is_quoted_short_on_one_line():
    body = {"error": {"message": "bad request\n\x1b[2J" + "x" * 5000, "type": "invalid_request_error"}}
    found = rejection(check(record(OPENAI, OA_REQUEST, 400, body)))
    assert "\n" not in found.message and "\x1b" not in found.message and "\\u001b[2J" in found.message
    assert len(found.message) < 600 and "…" in found.message


# ------------------------------------------------------------------------------------ streams


AN_START = ("message_start", {"type": "message_start", "message": {
    "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
    "stop_reason": None, "usage": {"input_tokens": 20, "output_tokens": 1}}})
OVERLOADED = ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
RS_CREATED = ("response.created", {"type": "response.created", "sequence_number": 0, "response": {
    "id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-5", "output": []}})

STREAMS = {
    "anthropic error event": (ANTHROPIC, AN_REQUEST, [OVERLOADED], 0, "(overloaded_error)", "Overloaded"),
    "anthropic error after message_start": (ANTHROPIC, AN_REQUEST, [
        AN_START,
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": "Let me"}}),
        OVERLOADED], 3, None, "Overloaded"),
    "openai-chat error chunk": (OPENAI, OA_REQUEST, [
        (None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-4.1", "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}),
        (None, {"error": {"message": "The server had an error while processing your request. Sorry about that!",
                          "type": "server_error", "param": None, "code": None}})],
        1, "(server_error)", "The server had an error while processing your request. Sorry about that!"),
    "openai-responses error event": (RESPONSES, RS_REQUEST, [
        ("error", {"type": "error", "sequence_number": 0, "code": "rate_limit_exceeded",
                   "message": "Rate limit reached for gpt-5 on tokens per min (TPM).", "param": None})],
        0, "(rate_limit_exceeded)", "Rate limit reached for gpt-5 on tokens per min (TPM)."),
    "openai-responses response.failed": (RESPONSES, RS_REQUEST, [
        RS_CREATED,
        ("response.failed", {"type": "response.failed", "sequence_number": 1, "response": {
            "id": "resp_1", "object": "response", "status": "failed", "model": "gpt-5", "output": [],
            "error": {"code": "server_error", "message": "The model failed to generate a response."}}})],
        1, "(server_error)", "The model failed to generate a response."),
    "gemini error chunk": (GEMINI_SSE, GE_REQUEST, [
        (None, {"error": {"code": 503, "message": "The model is overloaded. Please try again later.",
                          "status": "UNAVAILABLE"}})],
        0, "(HTTP 503 UNAVAILABLE)", "The model is overloaded. Please try again later."),
}


@pytest.mark.parametrize("case", list(STREAMS))
def test_an_error_event_is_a_finding_at_its_chunk_and_not_a_truncated_stream(case):
    url, request, events, chunk, kind, said = STREAMS[case]
    findings = check(record(url, request, 200, sse(*events), "text/event-stream"))
    found = rejection(findings)
    assert (found.exchange, found.conversation, found.chunk, found.pointer) == (0, "c1", chunk, "/response/body#")
    assert found.message.startswith(f"the provider rejected the request{f' {kind}' if kind else ''}: “{said}”")
    assert "not a defect of the history" in found.message
    assert [f.code for f in findings] == ["TD901"], "the error ended the stream: no TD501/TD504 beside it"


def test_a_bedrock_exception_in_a_logged_event_stream():
    events = [{"messageStart": {"role": "assistant"}},
              {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Checking"}}},
              {"validationException": {"message": "The model returned the following errors: messages: text "
                                                  "content blocks must be non-empty"}}]
    loaded = load_bytes("stream.jsonl", "".join(json.dumps(e) + "\n" for e in events).encode())
    findings = run_rules(loaded)
    found = rejection(findings)
    assert (found.exchange, found.chunk) == (0, 2)
    # a response-only capture: no request in the log for TD406 to find the empty block in
    assert found.message == ("the provider rejected the request: “validationException: The model returned the "
                             "following errors: messages: text content blocks must be non-empty” — "
                             + NONE_FOUND("TD406"))
    assert [f.code for f in findings] == ["TD901"]


def test_a_bedrock_exception_frame_in_a_binary_event_stream():
    data = encode_event("messageStart", {"role": "assistant"}) + frame(
        b'{"message":"Too many tokens, please wait before trying again."}',
        string_header(":exception-type", "throttlingException"), string_header(":message-type", "exception"))
    doc = {"interactions": [{"request": {"method": "POST", "url": BEDROCK_STREAM, "body": json.dumps(BR_REQUEST)},
                             "response": {"status": 200,
                                          "headers": {"content-type": "application/vnd.amazon.eventstream"},
                                          "body": base64.b64encode(data).decode(), "bodyEncoding": "base64"}}]}
    loaded = load_bytes("recording.json", json.dumps(doc).encode())
    assert loaded.errors == []
    findings = run_rules(loaded)
    found = rejection(findings)
    assert (found.exchange, found.conversation, found.chunk) == (0, "c1", 1)
    assert found.pointer == "/interactions/0/response/body#"
    assert "“throttlingException: Too many tokens, please wait before trying again.” — not a defect" in found.message
    assert [f.code for f in findings] == ["TD901"]


# ------------------------------------------------------------------ an HTTP error, no provider body


NGINX_502 = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway"
             "</h1></center>\r\n<hr><center>nginx/1.26.2</center>\r\n<script>track('x')</script></body>\r\n"
             "</html>\r\n")


def test_an_html_error_page_is_reported_by_its_text_not_as_an_unreadable_body():
    findings = check(record(OPENAI, OA_REQUEST, 502, NGINX_502, "text/html"))
    found = rejection(findings)
    assert found.message == ("the provider rejected the request (HTTP 502): “502 Bad Gateway 502 Bad Gateway "
                             "nginx/1.26.2” — not a defect of the history (a rate limit, an overloaded or "
                             "failing server, a credential): tooldbg has no rule for this rejection")
    assert (found.exchange, found.conversation, found.pointer) == (0, "c1", "/response/body#")


def test_a_body_no_format_knows_and_an_empty_body_at_an_error_status_are_rejections():
    proxy = rejection(check(record(OPENAI, OA_REQUEST, 404, {"detail": "Not Found"})))
    assert proxy.message.startswith('the provider rejected the request (HTTP 404): “{"detail":"Not Found"}”')
    empty = rejection(check(record(ANTHROPIC, AN_REQUEST, 500, "")))
    assert empty.message.startswith("the provider rejected the request (HTTP 500): “(an empty body)”")


def test_html_at_a_success_status_is_still_unreadable():
    data = (json.dumps(record(OPENAI, OA_REQUEST, 200, NGINX_502, "text/html")) + "\n").encode()
    loaded = load_bytes("log.jsonl", data)
    assert [e.location for e in loaded.errors] == ["/response/body"]
    assert [f.code for f in run_checks(loaded)] == []


def test_a_large_error_page_is_cut_before_it_is_read():
    page = "<html><body><p>" + "upstream timed out " * 200_000 + "</p></body></html>"
    found = rejection(check(record(OPENAI, OA_REQUEST, 504, page, "text/html")))
    assert found.message.startswith("the provider rejected the request (HTTP 504): “upstream timed out upstream")
    assert len(found.message) < 600


# ---------------------------------------------------------------------------------- the table


#: Each row's text as its cited source quotes it.
QUOTED = [
    ("messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01X. Each "
     "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
     ("TD101", "TD103", "TD402")),
    ("messages.43.content.2: `tool_use` ids must be unique", ("TD104",)),
    ("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When "
     "`thinking` is enabled, a final `assistant` message must start with a thinking block", ("TD307", "TD805")),
    ("Messages with role 'tool' must be a response to a preceding message with 'tool_calls'", ("TD101", "TD402")),
    ("An assistant message with 'tool_calls' must be followed by tool messages responding to each "
     "'tool_call_id'. The following tool_call_ids did not have response messages: call_1", ("TD102", "TD402", "TD803")),
    ("Invalid 'messages[10].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got "
     "a string with length 53 instead.", ("TD802",)),
    ("No tool call found for function call output with call_id call_9.", ("TD101",)),
    ("Please ensure that the number of function response parts is equal to the number of function call parts of "
     "the function call turn.", ("TD102", "TD105", "TD803")),
    ("Please ensure that function response turn comes immediately after a function call turn.", ("TD101", "TD402")),
    ("Expected toolResult blocks at messages.2.content for the following Ids: tooluse_1",
     ("TD102", "TD402", "TD803", "TD404")),
    ("The text field in the ContentBlock object at messages.15.content.0 is blank. Add text to the text field, and "
     "try again.", ("TD406",)),
    ("Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9.", ("TD801",)),
    ("messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
     "modified. These blocks must remain as they were in the original response.", ("TD307",)),
    ("Item with id 'rs_0a7c' not found. Items are not persisted when `store` is set to false. Try again with "
     "`store` set to true, or remove this item from your input.", ("TD307", "TD805")),
    ("The content field at messages.3.content.0.toolResult cannot be empty when status value is error.", ()),
    ("Your API request included an `assistant` message in the final position, which would pre-fill the "
     "`assistant` response. When using tools, pre-filling the `assistant` response is not supported.",
     ("TD807", "TD102")),
    ("This model does not support assistant message prefill. The conversation must end with a user message.",
     ("TD807",)),
    ("Invalid value: 'tool_result'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', "
     "and 'file'.", ("TD404",)),
]


def test_every_row_names_the_providers_that_answer_with_its_words():
    """The rows are also who refuses what (`checks.evidence`): each names providers of the table."""
    for known in KNOWN:
        assert known.providers and set(known.providers) <= set(BY_KEY), known


@pytest.mark.parametrize(("message", "codes"), QUOTED)
def test_the_providers_own_words_find_their_rules(message, codes):
    assert explaining(message) == codes


def test_every_rule_the_table_names_exists_and_every_row_cites_a_source():
    for known in KNOWN:
        assert known.codes and all(code in RULES for code in known.codes), known
        assert known.source.strip(), known
