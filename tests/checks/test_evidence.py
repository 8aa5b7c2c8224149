"""Severity follows evidence (issue 18): every error-level finding over the samples and the corpus
stands on evidence — the provider's rejection of a request that sent it, a provider known to refuse
it (`--target`, the URL host, the model), a part the client received in a response, or data the
model received damaged — and none is on a request the log shows the provider accepted unless the
data itself is damaged. Every rejection whose words the table knows is accompanied by a finding of
a rule it names, on the request it answers. Each case of the issue has a sample that gives the new
finding and a clean counterpart that gives none."""

import re

import pytest

from tests import paths
from tests.checks.helpers import RECEIVED, run_rules
from tests.checks.test_registry import sample_target
from tooldbg.checks import RULES, select_rules
from tooldbg.checks.base import Context
from tooldbg.checks.evidence import on_request
from tooldbg.checks.rejections import explaining, not_the_history, rejections
from tooldbg.convert import export
from tooldbg.diff import diff
from tooldbg.jsonio import dumps, loads
from tooldbg.load import load_bytes, load_file

FILES = sorted(p for p in paths.SAMPLES.rglob("*") if p.is_file() and p.name != "README.md") + paths.corpus_files()

#: Why an error-level finding may stand, by its evidence.
WHY = {
    "rejected": "the log holds the provider's rejection of a request that sent it",
    "target": "the --target provider refuses it",
    "provider": "the provider (URL host, model) is known to refuse it",
    "received": "it came in the provider's response and no request sent it on",
    "damaged": "the data the model or the client received is damaged",
}

#: Every error-level finding of the samples (each defect sample with the target it names) and the
#: corpus, as (code, the evidence that made it an error): the list the issue asks the test to give.
ERRORS = {
    'sample_transcripts/defects/TD101-claude-trace-client-resends-a-stale-result.jsonl':
        [('TD101', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD101-history-trimmed-through-a-call.jsonl':
        [('TD101', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD101-mitmproxy-agent-rewrites-call-turn-as-text.zhar':
        [('TD101', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD101-stale-result-rejected-then-retried-without-it.jsonl':
        [('TD101', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD102-claude-code-parallel-result-lost-then-new-prompt.jsonl':
        [('TD102', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD102-failed-parallel-result-dropped.jsonl':
        [('TD102', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD102-litellm-payload-client-drops-tool-message.jsonl':
        [('TD102', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD103-tool-use-id-lowercased-by-relay.jsonl':
        [('TD103', 'damaged'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD105-retried-booking-answered-twice.jsonl':
        [('TD105', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD108-empty-tool-use-id.jsonl':
        [('TD108', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD201-claude-tap-client-replays-arguments-double-encoded.jsonl':
        [('TD201', 'damaged')],
    'sample_transcripts/defects/TD201-inspect-ai-solver-replays-arguments-double-encoded.json':
        [('TD201', 'damaged')],
    'sample_transcripts/defects/TD201-litellm-proxy-double-encodes-arguments.jsonl': [('TD201', 'damaged')],
    'sample_transcripts/defects/TD201-openinference-span-arguments-encoded-twice.jsonl':
        [('TD201', 'damaged')],
    'sample_transcripts/defects/TD202-write-file-arguments-cut-at-max-tokens.json': [('TD202', 'damaged')],
    'sample_transcripts/defects/TD203-client-replays-arguments-as-object.har':
        [('TD203', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD204-gateway-sends-tool-input-as-string.jsonl':
        [('TD204', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD205-parameterless-call-streams-empty-arguments.json':
        [('TD205', 'damaged')],
    'sample_transcripts/defects/TD206-units-outside-declared-enum.har': [('TD206', 'damaged')],
    'sample_transcripts/defects/TD207-gpt-oss-calls-undeclared-tool.json': [('TD207', 'damaged')],
    'sample_transcripts/defects/TD301-tool-call-text-dropped-by-agent-framework.jsonl':
        [('TD301', 'damaged')],
    'sample_transcripts/defects/TD302-tool-output-replayed-as-user-message.jsonl': [('TD302', 'damaged')],
    'sample_transcripts/defects/TD303-session-store-drops-is-error.jsonl': [('TD303', 'damaged')],
    'sample_transcripts/defects/TD305-context-trimmer-strips-screenshot.jsonl': [('TD305', 'damaged')],
    'sample_transcripts/defects/TD306-gateway-drops-unknown-argument-on-replay.jsonl': [('TD306', 'damaged')],
    'sample_transcripts/defects/TD307-context-compactor-shortens-signed-thinking-rejected.jsonl':
        [('TD307', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD307-deepseek-agent-memory-drops-reasoning-content-rejected.jsonl':
        [('TD307', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD307-gemini-3-thought-signature-dropped-rejected.jsonl':
        [('TD307', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD307-responses-function-call-replayed-without-its-reasoning-item-rejected.jsonl':
        [('TD307', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD307-responses-reasoning-replayed-by-id-under-store-false-rejected.jsonl':
        [('TD307', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD401-results-in-completion-order.jsonl': [('TD401', 'damaged')],
    'sample_transcripts/defects/TD402-user-message-before-tool-results.jsonl':
        [('TD402', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD403-text-before-tool-results.jsonl':
        [('TD403', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD404-gateway-forwards-anthropic-blocks-to-bedrock-converse.jsonl':
        [('TD404', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD404-legacy-function-role.jsonl':
        [('TD404', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD405-text-after-tool-use.jsonl':
        [('TD405', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD406-empty-text-beside-tool-use.jsonl':
        [('TD406', 'rejected'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD501-bedrock-gateway-strips-reasoning-blocks.json': [('TD501', 'damaged')],
    'sample_transcripts/defects/TD501-litellm-proxy-passes-on-anthropic-block-index.jsonl':
        [('TD501', 'damaged')],
    'sample_transcripts/defects/TD501-litellm-proxy-repeats-call-id-on-every-fragment.jsonl':
        [('TD501', 'damaged')],
    'sample_transcripts/defects/TD501-openai-responses-relay-forwards-deltas-out-of-order.json':
        [('TD501', 'damaged')],
    'sample_transcripts/defects/TD502-anthropic-relay-resends-input-delta.jsonl': [('TD502', 'damaged')],
    'sample_transcripts/defects/TD502-litellm-summary-chunk-resends-arguments.har': [('TD502', 'damaged')],
    'sample_transcripts/defects/TD503-gemini-vertex-stream-loses-the-chunk-naming-the-call.jsonl':
        [('TD503', 'damaged')],
    'sample_transcripts/defects/TD503-openai-compatible-server-changes-call-id-mid-call.jsonl':
        [('TD503', 'damaged')],
    'sample_transcripts/defects/TD504-anthropic-connection-drops-mid-tool-input.json': [('TD504', 'damaged')],
    'sample_transcripts/defects/TD504-gemini-stream-ends-between-parallel-calls.har': [('TD504', 'damaged')],
    'sample_transcripts/defects/TD602-tool-calls-finish-without-calls.jsonl': [('TD602', 'damaged')],
    'sample_transcripts/defects/TD801-anthropic-session-from-kimi-keeps-its-call-ids.jsonl':
        [('TD801', 'target'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD802-openai-chat-responses-item-ids-as-call-ids.jsonl':
        [('TD901', 'rejected')],
    'sample_transcripts/defects/TD803-anthropic-responses-call-followed-by-text.jsonl': [('TD803', 'target')],
    'sample_transcripts/defects/TD804-openai-chat-browser-screenshot-in-tool-result.jsonl':
        [('TD804', 'target')],
    'sample_transcripts/defects/TD805-deepseek-reasoner-tool-turn-without-reasoning-content.jsonl':
        [('TD805', 'target'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD805-kimi-k2-thinking-history-saved-without-reasoning-content.jsonl':
        [('TD805', 'target'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD805-openai-responses-stateless-history-names-reasoning-by-id.jsonl':
        [('TD805', 'target'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD806-openai-chat-gemini-mcp-tool-names-with-dots.jsonl':
        [('TD806', 'target')],
    'sample_transcripts/defects/TD807-anthropic-memory-layer-prefills-with-tools-declared.jsonl':
        [('TD807', 'target'), ('TD901', 'rejected')],
    'sample_transcripts/defects/TD901-gateway-answers-html-502-page.har': [('TD901', 'rejected')],
    'sample_transcripts/defects/TD901-responses-history-saved-without-reasoning-items.jsonl':
        [('TD901', 'rejected')],
    'corpus/vercel-ai-fixtures/google/google-429-retry-info.json': [('TD901', 'rejected')],
    'corpus/vercel-ai-fixtures/openai/openai-error.1.chunks.txt': [('TD901', 'rejected')],
    'corpus/vercel-ai-fixtures/openai/reasoning-model-legacy-parameter-error.json': [('TD901', 'rejected')],
    'corpus/vercel-ai-fixtures/openai-compatible/anthropic-fallback-tool-call.sse': [('TD501', 'damaged')],
}


def rel(path):
    """A sample by its path in the repository, a corpus file as `corpus/` and its corpus name."""
    if path.is_relative_to(paths.SAMPLES):
        return path.relative_to(paths.ROOT).as_posix()
    return "corpus/" + paths.corpus_name(path)


def target_of(path):
    return sample_target(path) if path.parent.name == "defects" else None


def checked(path):
    loaded = load_file(path)
    target = target_of(path)
    return loaded, run_rules(loaded, select_rules(target=target), target)


def accepted(read):
    return any(r.turn is not None and r.error is None for r in read.responses)


@pytest.mark.parametrize("path", paths.corpus_params(FILES), ids=rel)
def test_every_error_stands_on_evidence(path):
    loaded, findings = checked(path)
    errors = [f for f in findings if f.severity == "error"]
    assert sorted({(f.code, f.evidence) for f in errors}) == ERRORS.get(rel(path), [])
    assert all(f.evidence in WHY for f in errors), [(f.code, f.evidence) for f in errors]
    ctx = Context(loaded)
    for f in errors:
        if f.code == "TD901" or f.evidence in ("damaged", "target"):
            continue
        senders = [r for r in loaded.reads if r.request is not None
                   and on_request(ctx, r, f.conversation, f.turn, f.exchange)]
        # an error that is not damaged data is never on a request the provider answered
        assert not any(accepted(r) for r in senders), (f.code, f.message)
        if f.evidence == "rejected":
            refused = {r.exchange for r in rejections(loaded)}
            assert any(r.exchange.index in refused for r in senders), (f.code, f.message)


@pytest.mark.needs_corpus
def test_the_listing_names_only_files_that_exist():
    assert set(ERRORS) <= {rel(p) for p in FILES}


def test_a_rejection_accepted_elsewhere_is_a_warning_that_says_what_the_model_lost():
    """Lowered by the evidence: each says the provider answered and what the model lost."""
    for path in FILES:
        for f in checked(path)[1]:
            if f.evidence == "accepted":
                assert f.severity == "warning" and RULES[f.code].harm == "rejection"
                assert re.search(r" — warning: accepted by the provider \(exchange \d+\); ", f.message)
                assert f.message.endswith(RULES[f.code].lost)


# ------------------------------------------------------------------ every rejection, explained


def _rejections_known():
    for path in FILES:  # (the corpus's, when it is there)
        loaded = load_file(path)
        for rejection in rejections(loaded):
            named = explaining(rejection.error.message)
            if named and not not_the_history(rejection.error, rejection.status):
                yield path, rejection.exchange, named


REJECTIONS = list(_rejections_known())


def test_the_samples_hold_rejections_of_every_kind_to_explain():
    assert len(REJECTIONS) >= 20


@pytest.mark.parametrize(("path", "exchange", "named"), paths.corpus_params(REJECTIONS, arity=3,
                                                                        ids=lambda r: f"{rel(r[0])}#{r[1]}"))
def test_every_rejection_the_table_knows_comes_with_a_finding_it_names(path, exchange, named):
    """On the request it answers, a rule the rejection's words name found something: checked as the
    log was sent (and, where the words name only target rules, with the target of the provider that
    answered, told from its URL or model); TD901 names exactly the rules that found it."""
    loaded, findings = checked(path)
    found = _found_on(loaded, findings, exchange, named)
    if not found and any(RULES[c].target for c in named) and target_of(path) is None:
        # the finding names the target whose rules would find it: checked with it, they do
        [said] = [f.message for f in findings if f.code == "TD901" and f.exchange == exchange]
        target = re.search(r" runs? with --target (\S+)\)$", said).group(1)
        loaded = load_file(path)
        findings = run_rules(loaded, select_rules(target=target), target)
        found = _found_on(loaded, findings, exchange, named)
    assert found, f"no finding of {', '.join(named)} on exchange {exchange}"
    [said] = [f.message for f in findings if f.code == "TD901" and f.exchange == exchange]
    assert said.endswith(f" — see {', '.join(c for c in named if c in found)}"), said


def _found_on(loaded, findings, exchange, named):
    ctx = Context(loaded)
    read = loaded.reads[exchange]
    return {f.code for f in findings if f.code in named and on_request(ctx, read, f.conversation, f.turn, f.exchange)}


def test_a_rejection_no_rule_explains_on_its_request_says_so_and_names_the_target_that_would():
    """The request alone, without a target: the words point to TD307 and TD805, neither found."""
    path = paths.SAMPLES / "defects" / "TD901-responses-history-saved-without-reasoning-items.jsonl"
    [finding] = run_rules(load_file(path))
    assert finding.message.endswith(
        " — no rule explains it on this request: its words point to TD307, TD805, none of which found it "
        "here (TD805 runs with --target openai-responses)")


# ------------------------------------------------------------ the cases, and their counterparts

DEFECTS = paths.SAMPLES / "defects"

CASES = [
    # an error on a request the provider answered: now a warning saying what the model lost
    ("TD307-vllm-agent-memory-drops-reasoning-content-accepted.jsonl", None,
     [("TD307", "warning", "accepted")], "openai-chat/vllm-reasoning-content-replayed.jsonl"),
    # a rejection whose cause is in the log: the refused request is a branch, and its defect is found
    ("TD101-stale-result-rejected-then-retried-without-it.jsonl", None,
     [("TD101", "error", "rejected"), ("TD901", "error", "rejected")], "anthropic/pipeline-check-tool-loop.jsonl"),
    # a Responses call replayed with its fc_ id but without its reasoning item
    ("TD307-responses-function-call-replayed-without-its-reasoning-item-rejected.jsonl", None,
     [("TD307", "error", "rejected"), ("TD901", "error", "rejected")],
     "openai-responses/reasoning-item-replayed-by-id.jsonl"),
    # a request that ends on the assistant's turn, tools declared
    ("TD807-anthropic-memory-layer-prefills-with-tools-declared.jsonl", "anthropic",
     [("TD807", "error", "target"), ("TD901", "error", "rejected")], "anthropic/memory-note-in-the-system-prompt.jsonl"),
]


@pytest.mark.parametrize(("sample", "target", "gives", "counterpart"), CASES, ids=[c[0] for c in CASES])
def test_each_case_gives_its_new_finding_and_its_counterpart_none(sample, target, gives, counterpart):
    findings = run_rules(load_file(DEFECTS / sample), select_rules(target=target), target)
    assert sorted((f.code, f.severity, f.evidence) for f in findings) == sorted(gives)
    assert run_rules(load_file(paths.SAMPLES / counterpart), select_rules(target=target), target) == []


def test_a_relay_that_adds_a_part_is_told_from_one_that_adds_a_documented_sentinel():
    """`diff` knows direction: an instruction only b's request has was added by the relay (TD705, a
    warning: text); Gemini's dummy thought signature added on purpose is a note, not a finding."""
    folder = DEFECTS / "TD705-relay-adds-an-instruction-the-client-never-sent"
    result = diff(load_file(folder / "client.jsonl"), load_file(folder / "upstream.jsonl"))
    assert [(f.code, f.severity, f.side) for f in result.findings] == [("TD705", "warning", "b")]
    assert "added by the relay (b is downstream of a in a request)" in result.findings[0].message
    clean = paths.SAMPLES / "relay" / "gemini-dummy-thought-signature"
    result = diff(load_file(clean / "client.jsonl"), load_file(clean / "upstream.jsonl"))
    assert result.findings == [] and result.own == []
    assert any("Gemini's documented dummy thought signature 'skip_thought_signature_validator', added by "
               "the relay" in n.message for n in result.notes)


# ------------------------------------------------------------------------ each kind of evidence

_ORPHAN = {"model": "qwen2.5-72b-instruct", "messages": [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "tool", "tool_call_id": "call_Q3zbX8mN1vRtY6kL", "content": "4°C"}]}
_ANSWER = {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1", "choices": [
    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "It is 4°C."}}]}
_REFUSED = {"error": {"message": "Invalid parameter: messages with role 'tool' must be a response to a "
                                 "preceeding message with 'tool_calls'.", "type": "invalid_request_error"}}

_REFUSED_FOR_INPUT = {"error": {"message": "messages.1.content.0.tool_use.input: Input should be a valid "
                                           "dictionary", "type": "invalid_request_error"}}


def _orphan(url, response=None, target=None):
    """The TD101 finding on one request with an orphan tool message, sent to `url`."""
    exchange = {"request": {"method": "POST", "url": url, "body": _ORPHAN}}
    if response is not None:
        exchange["response"] = response
    loaded = load_bytes("orphan.jsonl", dumps(exchange))
    return next(f for f in run_rules(loaded, select_rules(target=target), target) if f.code == "TD101")


@pytest.mark.parametrize(("url", "response", "target", "severity", "evidence", "says"), [
    ("https://api.openai.com/v1/chat/completions", {"status": 400, "body": _REFUSED}, None, "error", "rejected",
     "error: the provider rejected exchange 0, which sent it"),
    ("http://localhost:8000/v1/chat/completions", {"status": 200, "body": _ANSWER}, "anthropic", "error", "target",
     "error: anthropic rejects it (--target)"),
    # a target not known to refuse it is no evidence: the provider stays unknown
    ("http://relay.internal/v1/chat/completions", None, "mistral", "warning", "unknown",
     "warning: the provider is not known; Anthropic, OpenAI, DeepSeek, Google Gemini and Amazon Bedrock reject it"),
    # refused, but for what another rule explains (TD204's words): not this finding's evidence
    ("https://api.openai.com/v1/chat/completions", {"status": 400, "body": _REFUSED_FOR_INPUT}, None, "error",
     "provider", "error: OpenAI rejects it (the URL host api.openai.com)"),
    ("https://api.openai.com/v1/chat/completions", None, None, "error", "provider",
     "error: OpenAI rejects it (the URL host api.openai.com)"),
    ("https://api.deepseek.com/chat/completions", None, None, "error", "provider",
     "error: DeepSeek rejects it (the URL host api.deepseek.com)"),
    ("http://localhost:8000/v1/chat/completions", {"status": 200, "body": _ANSWER}, None, "warning", "accepted",
     "warning: accepted by the provider (exchange 0); the model sees a result for a call it was never shown"),
    ("http://localhost:8000/v1/chat/completions", None, None, "warning", "lenient",
     "warning: vLLM (port 8000, vLLM's default) is not known to reject it; Anthropic, OpenAI, DeepSeek, "
     "Google Gemini and Amazon Bedrock do"),
    ("http://relay.internal/v1/chat/completions", None, None, "warning", "unknown",
     "warning: the provider is not known; Anthropic, OpenAI, DeepSeek, Google Gemini and Amazon Bedrock reject it"),
])
def test_a_rejection_rule_is_as_severe_as_its_evidence(url, response, target, severity, evidence, says):
    finding = _orphan(url, response, target)
    assert (finding.severity, finding.evidence) == (severity, evidence)
    assert finding.message == "result 'call_Q3zbX8mN1vRtY6kL' answers no earlier call — " + says


def test_a_history_at_rest_is_judged_by_its_model():
    """A canonical document has no exchange and no URL: the provider is told by the model it names."""
    body = {**_ORPHAN, "model": "deepseek-chat"}
    sent = load_bytes("orphan.jsonl", dumps({"request": {"method": "POST", "url": "http://relay.internal/v1",
                                                         "body": body}}))
    at_rest = load_bytes("orphan.json", dumps(export(sent.conversations, "canonical").body))
    [finding] = run_rules(at_rest)
    assert (finding.code, finding.severity, finding.evidence) == ("TD101", "error", "provider")
    assert finding.message.endswith(" — error: DeepSeek rejects it (the model deepseek-chat)")


def test_a_part_the_client_received_in_a_response_no_request_sends_on_is_an_error():
    exchange = {"request": {"method": "POST", "url": "http://localhost:1337/v1/chat/completions",
                            "body": {"model": "m", "messages": [{"role": "user", "content": "1+2?"}]}},
                "response": {"status": 200, "body": {"id": "x", "object": "chat.completion", "model": "m", "choices": [
                    {"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
                     "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": "{}"}}]}}]}}}
    [finding] = run_rules(load_bytes("jan.jsonl", dumps(exchange)))
    assert (finding.code, finding.severity, finding.evidence) == ("TD108", "error", "received")
    assert finding.message.endswith(" — error: it came in the provider's response, and no request in the log "
                                    "sends it on")


def test_a_call_in_a_response_the_next_request_retried_past_is_found_where_it_came():
    """The request after the response sends the same history again (a retry): the conversation goes
    on without the response's turn, so its call is found at the response, not at a turn the
    conversation does not have (TD204 once crashed on "tuple index out of range" there)."""
    request = {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
               "body": {"model": "claude-sonnet-4-5", "max_tokens": 9,
                        "messages": [{"role": "user", "content": "Weather?"}]}}
    called = {"status": 200, "body": {"id": "msg_1", "type": "message", "role": "assistant",
                                      "model": "claude-sonnet-4-5", "stop_reason": "tool_use", "content": [
                                          {"type": "tool_use", "id": "toolu_00", "name": "get_weather",
                                           "input": '{"city": "Oslo"}'}]}}
    refused = {"status": 400, "body": {"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "messages.1.content.0.tool_use.input: Input should be a valid dictionary"}}}
    log = b"\n".join(dumps({"request": request, "response": response}) for response in (called, refused))
    findings = run_rules(load_bytes("retried.jsonl", log))
    [call] = [f for f in findings if f.code == "TD204"]
    assert (call.exchange, call.conversation, call.pointer) == (0, None, "line 1/response/body#/content/0/input")
    assert call.message.endswith(RECEIVED)


def test_damaged_data_is_an_error_whatever_the_provider_said():
    path = paths.SAMPLES / "defects" / "TD201-litellm-proxy-double-encodes-arguments.jsonl"
    [finding] = run_rules(load_file(path))
    assert all(read.responses and accepted(read) for read in load_file(path).reads)
    assert (finding.severity, finding.evidence) == ("error", "damaged")
    assert finding.message.endswith(" — error: the data received is damaged, whatever the provider answered")


@pytest.mark.parametrize(("url", "model", "severity", "evidence"), [
    ("https://api.deepseek.com/chat/completions", "deepseek-reasoner", "error", "provider"),  # thinking mode
    ("https://api.openai.com/v1/chat/completions", "gpt-4.1", "warning", "lenient"),  # Chat never asks it back
    ("http://relay.internal/v1/chat/completions", "some-model", "warning", "unknown"),
])
def test_reasoning_dropped_is_an_error_where_the_provider_requires_it_back(url, model, severity, evidence):
    """TD307 reads the provider's reasoning table: DeepSeek in thinking mode refuses a tool turn without
    its reasoning_content; OpenAI Chat never asks for it back (the request is valid there)."""
    path = DEFECTS / "TD307-vllm-agent-memory-drops-reasoning-content-accepted.jsonl"
    exchanges = [loads(line) for line in path.read_bytes().splitlines()]
    for exchange in exchanges:
        exchange["request"]["url"], exchange["request"]["body"]["model"] = url, model
    del exchanges[1]["response"]  # the request that dropped it, with no answer in the log
    loaded = load_bytes("reasoning.jsonl", b"".join(dumps(x) + b"\n" for x in exchanges))
    [finding] = run_rules(loaded)
    assert (finding.code, finding.severity, finding.evidence) == ("TD307", severity, evidence)
    if evidence == "unknown":
        assert finding.message.endswith(
            "the provider is not known; Anthropic (thinking on, the latest tool turn), Google Gemini (Gemini 3), "
            "OpenAI (Responses, a call sent with its fc_ item id), DeepSeek and Kimi (thinking mode) reject it")
