"""The rule catalogue: every rule of the contract exists with its doc, examples and severity, and
every rule has a defect sample in sample_transcripts/defects/ that produces exactly its findings —
compared whole (code, severity, exchange, conversation, turn, part, pointer, chunk, message, the
evidence that set the severity; so the count too), warnings and infos included; a sample whose log also holds the provider's 400 for its
defect gives TD901 beside its code, and that TD901 must name the sample's rule: a file `check` reads, or for the TD7xx rules `diff`
reports, a folder `TD701-<story>/` holding the two sides of one conversation, `client.*` and
`upstream.*`."""

import pkgutil
import re

import pytest

from tests import paths
from tooldbg.checks import RULES, Registry, rules, run_checks, select_rules
from tooldbg.diff import diff
from tooldbg.formats.profiles import PROFILES
from tooldbg.load import load_file

CATALOGUE = [
    "TD101", "TD102", "TD103", "TD104", "TD105", "TD106", "TD107", "TD108",
    "TD201", "TD202", "TD203", "TD204", "TD205", "TD206", "TD207",
    "TD301", "TD302", "TD303", "TD304", "TD305", "TD306", "TD307",
    "TD401", "TD402", "TD403", "TD404", "TD405", "TD406",
    "TD501", "TD502", "TD503", "TD504",
    "TD601", "TD602", "TD603",
    "TD701", "TD702", "TD703", "TD704", "TD705",
    "TD901",
]
DEFECTS = paths.SAMPLES / "defects"
SAMPLES = sorted(p for p in DEFECTS.iterdir() if p.is_file() and p.name != "README.md") \
    if DEFECTS.is_dir() else []
PAIRS = sorted(p for p in DEFECTS.iterdir() if p.is_dir()) if DEFECTS.is_dir() else []
#: Each rule's severity where its evidence is strongest (the provider's rejection, a provider or
#: target known to refuse it, damaged data). A downgrade (error → warning) lets a broken log pass
#: `--fail-on error`: changing one is a decision to write here, not a side effect. The evidence lowers
#: a rejection rule's to a warning on a request the provider accepted (`checks.evidence`), and a rule
#: may set its own: TD401 is an error where the wire pairs results by position, TD501 an info where
#: the capture lacks events, TD807 a warning where the model accepts a prefill.
SEVERITIES = {
    "TD101": "error", "TD102": "error", "TD103": "error", "TD104": "error", "TD105": "error",
    "TD106": "warning", "TD107": "warning", "TD108": "error",
    "TD201": "error", "TD202": "error", "TD203": "error", "TD204": "error", "TD205": "error",
    "TD206": "error", "TD207": "error",
    "TD301": "error", "TD302": "error", "TD303": "error", "TD304": "warning", "TD305": "error",
    "TD306": "error", "TD307": "error",
    "TD401": "warning", "TD402": "error", "TD403": "error", "TD404": "error", "TD405": "error",
    "TD406": "error",
    "TD501": "error", "TD502": "error", "TD503": "error", "TD504": "error",
    "TD601": "warning", "TD602": "error", "TD603": "warning",
    "TD701": "error", "TD702": "error", "TD703": "error", "TD704": "error", "TD705": "error",
    "TD801": "error", "TD802": "warning", "TD803": "error", "TD804": "error", "TD805": "error",
    "TD806": "error", "TD807": "error",
    "TD901": "error",
}
#: What each rule's defect harms, which says what sets its severity (`checks.evidence`, the README's
#: "Severity follows evidence" table): a rejection is an error only on evidence that the provider
#: refuses it; damaged data is an error whatever the provider said; a symptom is what the log
#: suggests; a target rule is the target's refusal; TD901 is the provider's own.
HARMS = {
    "TD101": "rejection", "TD102": "rejection", "TD103": "damage", "TD104": "rejection",
    "TD105": "rejection", "TD106": "symptom", "TD107": "symptom", "TD108": "rejection",
    "TD201": "damage", "TD202": "damage", "TD203": "rejection", "TD204": "rejection", "TD205": "damage",
    "TD206": "damage", "TD207": "damage",
    "TD301": "damage", "TD302": "damage", "TD303": "damage", "TD304": "symptom", "TD305": "damage",
    "TD306": "damage", "TD307": "rejection",
    "TD401": "symptom", "TD402": "rejection", "TD403": "rejection", "TD404": "rejection",
    "TD405": "rejection", "TD406": "rejection",
    "TD501": "damage", "TD502": "damage", "TD503": "damage", "TD504": "damage",
    "TD601": "symptom", "TD602": "damage", "TD603": "symptom",
    "TD701": "damage", "TD702": "damage", "TD703": "damage", "TD704": "damage", "TD705": "damage",
    "TD801": "target", "TD802": "target", "TD803": "target", "TD804": "target", "TD805": "target",
    "TD806": "target", "TD807": "target",
    "TD901": "verdict",
}
TARGETS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", *PROFILES)


def sample_target(path):
    """`TD801-anthropic-bad-id.json` is checked with --target anthropic; only TD8xx samples name a
    target (other samples may name the format they are written in)."""
    code, rest = path.name.split("-", 1)
    if not code.startswith("TD8"):
        return None
    return next((t for t in sorted(TARGETS, key=len, reverse=True) if rest.startswith(t + "-")), None)


@pytest.mark.parametrize("code", CATALOGUE)
def test_every_catalogue_rule_is_registered(code):
    assert code in RULES


def test_target_rules_are_td8xx():
    fresh = Registry()  # built by the test itself: RULES was filled when the tests were collected
    assert [r.code for r in fresh.values() if r.target] == [c for c in fresh if c.startswith("TD8")]
    assert any(c.startswith("TD8") for c in fresh)


def test_a_registry_asked_for_one_range_first_gives_it_in_code_order():
    """`convert` asks for the TD8xx rules alone (`starting`), before any other: the registry then
    imports their modules only, and gives the same rules in the same order as when it holds all."""
    fresh = Registry()
    assert [r.code for r in fresh.starting(("TD8",))] == [c for c in RULES if c.startswith("TD8")]
    assert fresh["TD102"].name == "unanswered-call"


def test_rule_names_are_their_module_names():
    """`tdNNN_<name>.py` defines NAME `<name>` (dashes for underscores): what `--select`-by-name,
    the catalogue and every finding's `name` show."""
    assert {code: rule.name for code, rule in Registry().items()} == {
        m.name[:5].upper(): m.name[6:].replace("_", "-") for m in pkgutil.iter_modules(rules.__path__)}


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_rule_is_documented(rule):
    assert re.fullmatch(r"TD\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
    assert rule.severity in ("error", "warning", "info")
    assert rule.message and "\n" not in rule.message
    assert len(rule.doc.split()) >= 15, "the docstring must say why the defect matters"
    assert rule.bad.strip() and rule.good.strip() and rule.bad != rule.good


def test_diff_rules_are_td7xx():
    fresh = Registry()
    assert [r.code for r in fresh.values() if r.diff] == [c for c in fresh if c.startswith("TD7")]
    assert not any(r.diff for r in select_rules()), "check never runs the rules diff reports"


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_every_rule_has_a_defect_sample(rule):
    samples = PAIRS if rule.diff else SAMPLES
    assert [p for p in samples if p.name.startswith(rule.code + "-")], (
        f"no sample_transcripts/defects/{rule.code}-*{'/ (client.*, upstream.*)' if rule.diff else ''}")


#: Every finding each defect sample gives, read against the sample's wire JSON and judged one by
#: one: (code, severity, exchange, conversation, turn, part, pointer, chunk, message, evidence).
#: Severities the evidence lowered (issue 18), each a request the log shows the provider answered:
#: TD102 (Ollama, vLLM, a Codex rollout and an OpenTelemetry trace whose model answered), TD104
#: (llama.cpp server), TD108 (Jan), TD307 (OpenRouter, vLLM) and TD404 (OpenRouter, a gateway) are
#: warnings that say what the model lost; the rejected ones stay errors.
EXPECTED = {
    'TD101-claude-trace-client-resends-a-stale-result.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Zz9Yy8Xx7Ww6Vv5Uu4Tt3S. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.” — see TD101', 'rejected'),
        ('TD101', 'error', 1, 'c1', 2, 1, 'line 2/request/body#/messages/2/content/1', None,
         "result 'toolu_01Zz9Yy8Xx7Ww6Vv5Uu4Tt3S' answers no earlier call — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD101-history-trimmed-through-a-call.jsonl': [
        ('TD901', 'error', 1, 'c2', None, None, 'line 2/response/body#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error): “Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.” — see TD101", 'rejected'),
        ('TD101', 'error', 1, 'c2', 0, 0, 'line 2/request/body#/messages/1', None,
         "result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F' answers no earlier call — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD101-mitmproxy-agent-rewrites-call-turn-as-text.zhar': [
        ('TD901', 'error', 1, 'c1', None, None, '/log/entries/1/response/content/text#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Rt5Yu8Io1Pa4Sd7Fg0Hj3K. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.” — see TD101', 'rejected'),
        ('TD101', 'error', 1, 'c1', 2, 0, '/log/entries/1/request/postData/text#/messages/2/content/0', None,
         "result 'toolu_01Rt5Yu8Io1Pa4Sd7Fg0Hj3K' answers no earlier call — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD101-stale-result-rejected-then-retried-without-it.jsonl': [
        ('TD901', 'error', 1, 'c2', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Hs4Jp7Wq2Nc9Xv6Bm3Lz8T. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.” — see TD101', 'rejected'),
        ('TD101', 'error', 1, 'c2', 2, 1, 'line 2/request/body#/messages/2/content/1', None,
         "result 'toolu_01Hs4Jp7Wq2Nc9Xv6Bm3Lz8T' answers no earlier call — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD102-claude-code-parallel-result-lost-then-new-prompt.jsonl': [
        ('TD901', 'error', 5, 'c1', None, None, 'line 6#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Pq4Rs7Tu0Vw3Xy6Za9Bc2D. Each `tool_use` block must have a corresponding `tool_result` block in the next message.” — see TD102', 'rejected'),
        ('TD102', 'error', 2, 'c1', 1, 1, 'line 3#/message/content/0', None,
         "call i2 Grep ('toolu_01Pq4Rs7Tu0Vw3Xy6Za9Bc2D') has no result, but the conversation continues after turn 1 — error: the provider rejected exchange 5, which sent it", 'rejected'),
    ],
    'TD102-codex-resumed-rollout-drops-shell-output.jsonl': [
        ('TD102', 'warning', 2, 'c1', 1, 0, 'line 4#/payload', None,
         "call i1 shell ('call_Wn5Eo8Rp1Tq4Yr7Ut0Iv3Ow') has no result, but the conversation continues after turn 1 — warning: accepted by the provider (exchange 4); the model went on without the call's result", 'accepted'),
    ],
    'TD102-failed-parallel-result-dropped.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Fa3JyW6uGe1PqD5sKr0MtV. Each `tool_use` block must have a corresponding `tool_result` block in the next message.” — see TD102', 'rejected'),
        ('TD102', 'error', 0, 'c1', 1, 2, 'line 1/response/body#/content/2', None,
         "call i2 get_weather ('toolu_01Fa3JyW6uGe1PqD5sKr0MtV') has no result, but the conversation continues after turn 1 — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD102-litellm-payload-client-drops-tool-message.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/error_information#/error', None,
         "the provider rejected the request (HTTP 400 BadRequestError): “An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_Lq8Wn2Ex5Rt1Yu4Io7Pa0Sd” — see TD102", 'rejected'),
        ('TD102', 'error', 0, 'c1', 1, 0, 'line 1/response#/choices/0/message/tool_calls/0', None,
         "call i1 lookup_order ('call_Lq8Wn2Ex5Rt1Yu4Io7Pa0Sd') has no result, but the conversation continues after turn 1 — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD102-otel-genai-agent-loses-tool-response.jsonl': [
        ('TD102', 'warning', 0, 'c1', 1, 0, 'line 1/resourceSpans/0/scopeSpans/0/spans/0/attributes/8/value/stringValue#/0/parts/0', None,
         "call i1 get_weather ('call_VxSn4lCq2LrF8aWkP0yDmT3e') has no result, but the conversation continues after turn 1 — warning: accepted by the provider (exchange 1); the model went on without the call's result", 'accepted'),
    ],
    'TD102-request-ends-on-unanswered-call.jsonl': [
        ('TD102', 'warning', 1, 'c1', 1, 0, 'line 2/request/body#/messages/2/tool_calls/0', None,
         "call i1 read_file ('call_x7k2m9qa') has no result, but the request ends on it: the model is asked to go on without the result — warning: accepted by the provider (exchange 1); the model went on without the call's result", 'accepted'),
    ],
    'TD102-responses-chain-drops-function-output.jsonl': [
        ('TD102', 'warning', 0, 'c1', 1, 2, 'line 1/response/body#/output/2', None,
         "call i2 get_weather ('call_7d2f8a1c4e6b4d9a0c3e5f7b9d1a8c64') has no result, but the request continuing it (previous_response_id 'resp_6b1f0e8d2c4a4e9b8f3d7a1c5e2b9d04') sends none — warning: accepted by the provider (exchange 1); the model went on without the call's result", 'accepted'),
    ],
    'TD103-tool-use-id-lowercased-by-relay.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01hqz5fwm3tkxb8ycn2plr7v. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.” — see TD103', 'rejected'),
        ('TD103', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/messages/2/content/0', None,
         "result id 'toolu_01hqz5fwm3tkxb8ycn2plr7v' does not match call i1 lookup_order 'toolu_01HqZ5fWm3TkXb8YcN2pLr7V' in turn 1: re-cased — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD104-backend-reuses-call-0.jsonl': [
        ('TD104', 'warning', 1, 'c1', 3, 0, 'line 2/response/body#/choices/0/message/tool_calls/0', None,
         "call i2 get_weather reuses id 'call_0' of call i1 get_weather in turn 1 — warning: accepted by the provider (exchange 2); the model cannot tell which result answers which of the calls", 'accepted'),
    ],
    'TD105-retried-booking-answered-twice.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.2.content.1: each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_01Rb6Nq3Xw8Kz2Tm5Yc7Lp4D” — see TD105', 'rejected'),
        ('TD105', 'error', 1, 'c1', 2, 1, 'line 2/request/body#/messages/2/content/1', None,
         "result #2 for call i1 book_ticket ('toolu_01Rb6Nq3Xw8Kz2Tm5Yc7Lp4D'), already answered at turn 2 part 0 — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD106-client-renumbers-call-ids.jsonl': [
        ('TD106', 'warning', 1, 'c1', 1, 0, 'line 2/request/body#/messages/2/tool_calls/0', None,
         "call i1 get_weather was returned as 'call_Vd8Kp2Xn6Tq1Rb4Yw9Mz3LcH' in exchange 0 and replayed as 'call_1' in exchange 1 — warning: a sign the log shows, not a rejection", 'symptom'),
    ],
    'TD107-same-name-calls-paired-by-position.jsonl': [
        ('TD107', 'warning', 1, 'c1', 2, 0, 'line 2/request/body#/contents/2/parts/0', None,
         'result paired by position with i1 get_weather({"city":"Oslo"}) mentions \'Bergen\', an argument of i2 get_weather({"city":"Bergen"}): results appended in completion order are mis-paired when calls have no ids — warning: a sign the log shows, not a rejection', 'symptom'),
        ('TD107', 'warning', 1, 'c1', 2, 1, 'line 2/request/body#/contents/2/parts/1', None,
         'result paired by position with i2 get_weather({"city":"Bergen"}) mentions \'Oslo\', an argument of i1 get_weather({"city":"Oslo"}): results appended in completion order are mis-paired when calls have no ids — warning: a sign the log shows, not a rejection', 'symptom'),
    ],
    'TD108-empty-tool-use-id.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error): “messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'” — see TD108", 'rejected'),
        ('TD108', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1', None,
         "call i1 get_weather has an id that is empty: '' — error: the provider rejected exchange 0, which sent it", 'rejected'),
    ],
    'TD108-jan-server-returns-calls-without-id.jsonl': [
        ('TD108', 'warning', 0, 'c1', 1, 0, 'line 1/response/body#/choices/0/message/tool_calls/0', None,
         "call i1 add has no id (openai-chat requires 'id'), so its result cannot name it — warning: accepted by the provider (exchange 1); the result cannot name its call: which result answers which call is a guess", 'accepted'),
    ],
    'TD201-claude-tap-client-replays-arguments-double-encoded.jsonl': [
        ('TD201', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/input/1/arguments', None,
         'arguments of \'get_weather\' are JSON-encoded twice: they decode to a string holding {"city":"Oslo"}, not to the object — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD201-inspect-ai-solver-replays-arguments-double-encoded.json': [
        ('TD201', 'error', 1, 'c1', 1, 0, '/samples/0/events/3/call/request#/messages/2/tool_calls/0/function/arguments', None,
         'arguments of \'read_file\' are JSON-encoded twice: they decode to a string holding {"path":"data/revenue.csv"}, not to the object — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD201-litellm-proxy-double-encodes-arguments.jsonl': [
        ('TD201', 'error', 0, 'c1', 1, 1, 'line 1/response/body#/choices/0/message/tool_calls/0/function/arguments', None,
         'arguments of \'get_weather\' are JSON-encoded twice: they decode to a string holding {"city":"Paris","unit":"celsius"}, not to the object — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD201-openinference-span-arguments-encoded-twice.jsonl': [
        ('TD201', 'error', 0, 'c1', 1, 0, '/resourceSpans/0/scopeSpans/0/spans/0#/attributes/5/value/stringValue', None,
         'arguments of \'lookup_invoice\' are JSON-encoded twice: they decode to a string holding {"number":"2026-118"}, not to the object — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD202-write-file-arguments-cut-at-max-tokens.json': [
        ('TD202', 'error', 0, 'c1', 1, 0, '/response/body#/choices/0/message/tool_calls/0/function/arguments', None,
         'arguments of \'write_file\' are not valid JSON (invalid JSON at line 1 column 329: unexpected end of data): "{\\"path\\": \\"scripts/summarize.py\\", \\"content\\": \\"import… — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD203-client-replays-arguments-as-object.har': [
        ('TD901', 'error', 1, 'c1', None, None, '/log/entries/1/response/content/text#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error invalid_type): “Invalid type for 'messages[2].tool_calls[0].function.arguments': expected a string, but got an object instead.” — see TD203", 'rejected'),
        ('TD203', 'error', 1, 'c1', 1, 0, '/log/entries/1/request/postData/text#/messages/2/tool_calls/0/function/arguments', None,
         'arguments of \'get_stock_level\' are an object ({"sku":"SKU-4471","warehouse":"BER"}); openai-chat requires a JSON string — error: the provider rejected exchange 1, which sent it', 'rejected'),
    ],
    'TD204-gateway-sends-tool-input-as-string.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.1.content.1.tool_use.input: Input should be a valid dictionary” — see TD204', 'rejected'),
        ('TD204', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1/input', None,
         'input of \'lookup_order\' is a JSON string ("{\\"order_id\\":\\"A-20417\\"}"); anthropic requires an object — error: the provider rejected exchange 0, which sent it', 'rejected'),
    ],
    'TD205-parameterless-call-streams-empty-arguments.json': [
        ('TD205', 'error', 0, 'c1', 1, 1, '/interactions/0/response/body#/choices/0/message/tool_calls/0/function/arguments', 1,
         'arguments of \'list_open_tickets\' are ""; a call without arguments sends "{}" — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD206-units-outside-declared-enum.har': [
        ('TD206', 'error', 0, 'c1', 1, 1, '/log/entries/0/response/content/text#/candidates/0/content/parts/0/functionCall/args', None,
         'arguments of \'get_weather\' do not fit its schema: $.units: "metric" is not one of "celsius", "fahrenheit" — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD207-gpt-oss-calls-undeclared-tool.json': [
        ('TD207', 'error', 0, 'c1', 1, 1, '/response/body#/choices/0/message/tool_calls/0', None,
         "call to 'repo_browser.print_tree', which the request does not declare (it declares list_directory, read_file) — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD301-tool-call-text-dropped-by-agent-framework.jsonl': [
        ('TD301', 'error', 1, 'c1', 1, None, 'line 2/request/body#/messages/2', None,
         "text 'Hardangervidda is Rv7, which often clos…forecast for Bergen.' beside the call 'road_status' (call_fX2mQ8rN4tVb7KcL1pYw3sHd) in exchange 0's response is missing from its replay — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD302-tool-output-replayed-as-user-message.jsonl': [
        ('TD302', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/messages/3/content', None,
         'the call \'lookup_booking\' (call_Vd3Kp9Xw2Qm7Tn1Rb6Zs4Lc8) from exchange 0\'s response is dropped and its outcome is replayed as user text \'[lookup_booking result] {"refere…T12:00:00+01:00"}\': no result binds it — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD303-session-store-drops-is-error.jsonl': [
        ('TD303', 'error', 2, 'c1', 2, 1, 'line 3/request/body#/messages/2/content/1', None,
         "result 'toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze' had is_error: true in exchange 1's request; its replay in exchange 2 is no longer marked as a failure — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD304-bedrock-traceback-returned-as-success.jsonl': [
        ('TD304', 'warning', 1, 'c1', 2, 0, 'line 2/request/body#/messages/2/content/0', None,
         'result \'tooluse_Xv4Rq8NmT1zKb6WcL3pYd9\' reports a failure (a Python traceback) but is sent without status: "error" — warning: a sign the log shows, not a rejection', 'symptom'),
    ],
    'TD304-gemini-adk-error-status-sent-as-output.jsonl': [
        ('TD304', 'warning', 1, 'c1', 2, 0, 'line 2/request/body#/contents/2/parts/0', None,
         'result of \'get_departures\' reports a failure ("error_message": "Entur journey planner returned HTTP 503 Service …) but is sent without an {"error": …} response — warning: a sign the log shows, not a rejection', 'symptom'),
    ],
    'TD305-context-trimmer-strips-screenshot.jsonl': [
        ('TD305', 'error', 2, 'c1', 2, 0, 'line 3/request/body#/messages/2/content/0', None,
         "image (image/png) in result 'toolu_01Sv6Nq3Xk8Wb1Lt4Rz7Hm2Pd' of exchange 1's request is missing from its replay — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD306-gateway-drops-unknown-argument-on-replay.jsonl': [
        ('TD306', 'error', 1, 'c1', 1, 1, 'line 2/request/body#/input/2', None,
         'call \'search_flights\' (call_Tq7Wm2Xk9Rb4Nv1Lc6Zs3Hd8) from exchange 0\'s response is replayed with other arguments at /cabin: "business" became (absent) — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD307-context-compactor-shortens-signed-thinking-rejected.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.” — see TD307', 'rejected'),
        ('TD307', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/messages/1/content/0', None,
         "the thinking block before the call 'read_file' in exchange 0's response was edited on replay, its signature kept: the text no longer matches the signature (Anthropic: “`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.”) — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD307-deepseek-agent-memory-drops-reasoning-content-rejected.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls” — see TD307', 'rejected'),
        ('TD307', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/messages/2/tool_calls/0', None,
         "the reasoning_content before the call 'get_exchange_rate' in exchange 0's response was dropped on replay — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD307-gemini-3-thought-signature-dropped-rejected.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 INVALID_ARGUMENT): “Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:spot_price` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.” — see TD307', 'rejected'),
        ('TD307', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/contents/1/parts/0', None,
         "the thoughtSignature of the call 'spot_price' in exchange 0's response was dropped on replay — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD307-openrouter-client-keeps-reasoning-drops-reasoning-details.jsonl': [
        ('TD307', 'warning', 1, 'c1', 1, 1, 'line 2/request/body#/messages/2/tool_calls/0', None,
         "the reasoning_details block reasoning.encrypted before the call 'get_order_status' in exchange 0's response was dropped on replay — warning: accepted by the provider (exchange 1); the model did not see its earlier reasoning", 'accepted'),
    ],
    'TD307-responses-function-call-replayed-without-its-reasoning-item-rejected.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error): “Item 'fc_0c4e8a2f6b1d39570068c2d5e2a4c6e8f0b2d4f6a8c1e3b5' of type 'function_call' was provided without its required 'reasoning' item: 'rs_0c4e8a2f6b1d39570068c2d5e1f3a7b9c0d2e4f6a8b1c3d5'.” — see TD307", 'rejected'),
        ('TD307', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/input/1', None,
         "the reasoning item rs_0c4e8a2f6b1d39570068c2d5e1f3a7b9c0d2e4f6a8b1c3d5 before the call 'get_order_status' in exchange 0's response was dropped on replay — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD307-responses-reasoning-replayed-by-id-under-store-false-rejected.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         "the provider rejected the request (HTTP 404 invalid_request_error): “Item with id 'rs_0a7c3e5f9b1d24680068e2f1c4a9b7d3e5f1a2c8b6d4e0f9a3' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.” — see TD307", 'rejected'),
        ('TD307', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/input/1', None,
         "the reasoning item rs_0a7c3e5f9b1d24680068e2f1c4a9b7d3e5f1a2c8b6d4e0f9a3 before the call 'run_sql' in exchange 0's response was replayed by id only, without its encrypted_content, while store is false: “Item with id 'rs_0a7c3e5f9b1d24680068e2f1c4a9b7d3e5f1a2c8b6d4e0f9a3' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.” — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD307-vllm-agent-memory-drops-reasoning-content-accepted.jsonl': [
        ('TD307', 'warning', 1, 'c1', 1, 0, 'line 2/request/body#/messages/2/tool_calls/0', None,
         "the reasoning_content before the call 'check_stock' in exchange 0's response was dropped on replay — warning: accepted by the provider (exchange 1); the model did not see its earlier reasoning", 'accepted'),
    ],
    'TD401-results-in-completion-order.jsonl': [
        ('TD401', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/contents/2/parts/0', None,
         "results for the calls of turn 1 come in the order 'get_local_time' (i2), 'get_weather' (i1); the calls were made in the order 'get_weather' (i1), 'get_local_time' (i2) — Gemini pairs results that carry no id by position and expects them in call order — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD402-user-message-before-tool-results.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error): “An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_hT4qzN8bW2cLx7RkV1mYp3Es, call_Z9fK2sDq6vJn0XaPe5TuL8wC” — see TD402", 'rejected'),
        ('TD402', 'error', 1, 'c1', 3, 0, 'line 2/request/body#/messages/4', None,
         "a user message (turn 2) comes between the call 'call_hT4qzN8bW2cLx7RkV1mYp3Es' (turn 1) and its result — error: the provider rejected exchange 1, which sent it", 'rejected'),
        ('TD402', 'error', 1, 'c1', 3, 1, 'line 2/request/body#/messages/5', None,
         "a user message (turn 2) comes between the call 'call_Z9fK2sDq6vJn0XaPe5TuL8wC' (turn 1) and its result — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD403-text-before-tool-results.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.” — see TD403', 'rejected'),
        ('TD403', 'error', 1, 'c1', 3, 0, 'line 2/request/body#/messages/2/content/1', None,
         "tool_result 'toolu_01Hq8vYbT3kZr5nWx2LcPd7F' comes after a text block (/messages/2/content/0); tool_result blocks must open the user message — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD404-anthropic-blocks-replayed-to-chat-endpoint.jsonl': [
        ('TD404', 'warning', 1, 'c1', 1, 1, 'line 2/request/body#/messages/2/content/1', None,
         "a block of type 'tool_use' in an assistant message: openai-chat has no such content type — another format's block (or an agent framework's) forwarded unconverted; read as the call i1 lookup_order — warning: accepted by the provider (exchange 1); the model was shown a turn its format does not define, and what it made of it is unknown", 'accepted'),
        ('TD404', 'warning', 1, 'c1', 2, 0, 'line 2/request/body#/messages/3/content/0', None,
         "a block of type 'tool_result' in a user message: openai-chat has no such content type — another format's block (or an agent framework's) forwarded unconverted; read as the result for i1 lookup_order — warning: accepted by the provider (exchange 1); the model was shown a turn its format does not define, and what it made of it is unknown", 'accepted'),
    ],
    'TD404-gateway-forwards-anthropic-blocks-to-bedrock-converse.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#', None,
         'the provider rejected the request (HTTP 400): “Expected toolResult blocks at messages.2.content for the following Ids: tooluse_Rk2wQ9vLxT4mZb7NcY1pEa” — see TD404', 'rejected'),
        ('TD404', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/messages/1/content/0', None,
         "a block of type 'text' in an assistant message: bedrock has no such content type — another format's block (or an agent framework's) forwarded unconverted; read as text — error: the provider rejected exchange 1, which sent it", 'rejected'),
        ('TD404', 'error', 1, 'c1', 1, 1, 'line 2/request/body#/messages/1/content/1', None,
         "a block of type 'tool_use' in an assistant message: bedrock has no such content type — another format's block (or an agent framework's) forwarded unconverted; read as the call i1 get_ci_status — error: the provider rejected exchange 1, which sent it", 'rejected'),
        ('TD404', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/messages/2/content/0', None,
         "a block of type 'tool_result' in a user message: bedrock has no such content type — another format's block (or an agent framework's) forwarded unconverted; read as the result for i1 get_ci_status — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD404-langchain-image-block-in-tool-message.jsonl': [
        ('TD404', 'warning', 1, 'c1', 2, 0, 'line 2/request/body#/messages/3/content/1', None,
         "a block of type 'image' in a tool message: openai-chat has no such content type — another format's block (or an agent framework's) forwarded unconverted; read as image (image/png) — warning: accepted by the provider (exchange 1); the model was shown a turn its format does not define, and what it made of it is unknown", 'accepted'),
    ],
    'TD404-legacy-function-role.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 INVALID_ARGUMENT): “Please use a valid role: user, model.” — see TD404', 'rejected'),
        ('TD404', 'error', 1, 'c1', 2, None, 'line 2/request/body#/contents/2/role', None,
         'contents[2] has the legacy `function` role (function responses go in a `user` content): Gemini answers "Please use a valid role: user, model." — error: the provider rejected exchange 1, which sent it', 'rejected'),
    ],
    'TD405-text-after-tool-use.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Hq8vYbT3kZr5nWx2LcPd7F. Each `tool_use` block must have a corresponding `tool_result` block in the next message.” — see TD405', 'rejected'),
        ('TD405', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1', None,
         "a text block after tool_use 'toolu_01Hq8vYbT3kZr5nWx2LcPd7F' in the same assistant message: Anthropic rejects it as if the call had no tool_result — error: the provider rejected exchange 0, which sent it", 'rejected'),
    ],
    'TD406-empty-text-beside-tool-use.jsonl': [
        ('TD901', 'error', 1, 'c1', None, None, 'line 2/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “messages: text content blocks must be non-empty” — see TD406', 'rejected'),
        ('TD406', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/messages/1/content/0', None,
         "an empty text block beside the call 'get_weather'; Anthropic: text content blocks must be non-empty — error: the provider rejected exchange 1, which sent it", 'rejected'),
    ],
    'TD501-bedrock-gateway-strips-reasoning-blocks.json': [
        ('TD501', 'error', 0, 'c1', 1, None, '/interactions/0/response/body#', 1,
         'block 1 opened, expected block 0 — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD501-litellm-proxy-passes-on-anthropic-block-index.jsonl': [
        ('TD501', 'error', 0, 'c1', 1, 1, '/response/body#', 1,
         "the first tool call arrives at index 1, not 0: openai-python files it at position 0 and makes its later fragments a second call, with the arguments but no id or name (another format's block index passed on: Anthropic counts the text block before the call) — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD501-litellm-proxy-repeats-call-id-on-every-fragment.jsonl': [
        ('TD501', 'error', 0, 'c1', 1, None, '/response/body#', 2,
         "tool call 0 repeats its id 'toolu_01HZq7VfT3kWc8rN2mYbL5xD' and its name 'get_weather' on a later fragment: assemblers that concatenate strings, as openai-python's does, glue them into 'toolu_01HZq7VfT3kWc8rN2mYbL5xDtoolu_01HZq7VfT3kWc8rN2mYbL5xD' — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD501-openai-responses-relay-forwards-deltas-out-of-order.json': [
        ('TD501', 'error', 0, 'c1', 1, None, '/interactions/0/response/body#', 5,
         'sequence_number 4 after 5: events repeated or reordered — error: the data received is damaged, whatever the provider answered', 'damaged'),
        ('TD501', 'error', 0, 'c1', 1, None, '/interactions/0/response/body#', 7,
         'the arguments fragments of output 0 add up to \'{"title":" every 10VPN drops minutes","priority":"high"}\' but response.function_call_arguments.done says \'{"title":"VPN drops every 10 minutes","priority":"high"}\' — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD502-anthropic-relay-resends-input-delta.jsonl': [
        ('TD502', 'error', 0, 'c1', 1, 1, '/response/body#', 6,
         'streamed tool input is not valid JSON: \'{"host": "web-03", "service": "ngi, "service": "nginx"}\' — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD502-litellm-summary-chunk-resends-arguments.har': [
        ('TD502', 'error', 0, 'c1', 1, 0, '/log/entries/0/response/content/text#', 4,
         "tool call 0: the assembled arguments are not valid JSON: 2 JSON values back to back (another call's fragments, or the arguments sent again, were appended) — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD503-gemini-vertex-stream-loses-the-chunk-naming-the-call.jsonl': [
        ('TD503', 'error', 0, 'c1', 1, 0, '/response/body#', 0,
         'argument fragments with no call open (no function name) — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD503-openai-compatible-server-changes-call-id-mid-call.jsonl': [
        ('TD503', 'error', 0, 'c1', 1, None, '/response/body#', 2,
         "tool call 0 changes id from 'call_7f3a9c2e41b84d55' to 'call_c08e5d1b9a6f4372' (the first value is kept) — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD504-anthropic-connection-drops-mid-tool-input.json': [
        ('TD504', 'error', 0, 'c1', None, None, '/interactions/0/response/body#', 4,
         'content block 1 was never stopped — error: the data received is damaged, whatever the provider answered', 'damaged'),
        ('TD504', 'error', 0, 'c1', None, None, '/interactions/0/response/body#', 8,
         'the stream ended without message_stop — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD504-gemini-stream-ends-between-parallel-calls.har': [
        ('TD504', 'error', 0, 'c1', None, None, '/log/entries/0/response/content/text#', 0,
         'the stream ended without a finishReason — error: the data received is damaged, whatever the provider answered', 'damaged'),
    ],
    'TD601-same-call-after-its-result.jsonl': [
        ('TD601', 'warning', 1, 'c1', 3, 0, 'line 2/response/body#/choices/0/message/tool_calls/0', None,
         "get_weather called again with the same arguments as 'call_Rk2mW8vQ4tXn7LbP1sY9cH3d', right after its result came back in turn 2: the model may not have seen that result — warning: a sign the log shows, not a rejection", 'symptom'),
    ],
    'TD602-tool-calls-finish-without-calls.jsonl': [
        ('TD602', 'error', 0, 'c1', 1, None, '/response/body#/choices/0/finish_reason', None,
         "finish reason 'tool_calls', but the message holds no tool call (nothing): the calls were lost before the log — error: the data received is damaged, whatever the provider answered", 'damaged'),
    ],
    'TD603-forced-tool-choice-answered-with-text.jsonl': [
        ('TD603', 'warning', 0, 'c1', 1, 0, '/response/body#/choices/0/message/content', None,
         "the request forced the tool 'get_weather', but the answer is text with no call: the tools were likely dropped on the way to the model — warning: a sign the log shows, not a rejection", 'symptom'),
    ],
    'TD801-anthropic-session-from-kimi-keeps-its-call-ids.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error): “messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'” — see TD801", 'rejected'),
        ('TD801', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1', None,
         "anthropic rejects call id 'functions.get_weather:0' (must match [a-zA-Z0-9_-]+): “messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'”", 'target'),
        ('TD801', 'error', 0, 'c1', 1, 2, '/request/body#/messages/1/content/2', None,
         "anthropic rejects call id 'functions.get_weather:1' (must match [a-zA-Z0-9_-]+): “messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'”", 'target'),
    ],
    'TD802-openai-chat-responses-item-ids-as-call-ids.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error string_above_max_length): “Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length 40, but got a string with length 51 instead.” — see TD802", 'rejected'),
        ('TD802', 'warning', 0, 'c1', 1, 0, '/request/body#/messages/2/tool_calls/0', None,
         "call id 'fc_68b5e2a1c3d48190a7f2e6b9d1c04a5b0e3f7c92d8a61b45' is 51 characters; openai-chat has rejected ids over 40 before (not reliably since): “Invalid 'messages[N].tool_calls[M].id': string too long. Expected a string with maximum length 40, but got a string with length 51 instead.”", 'target'),
    ],
    'TD803-anthropic-responses-call-followed-by-text.jsonl': [
        ('TD803', 'error', 0, 'c1', 1, 1, 'line 1/response/body#/output/1/content/0', None,
         "a text part follows call 'shell' in its turn: anthropic reads the call as unanswered, “messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: call_Hs8Kd2Lm5Qp9Wt3Xv7Nb1Rz4. Each `tool_use` block must have a corresponding `tool_result` block in the next message.”", 'target'),
    ],
    'TD804-openai-chat-browser-screenshot-in-tool-result.jsonl': [
        ('TD804', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/messages/2/content/0', None,
         'the result of \'browser_take_screenshot\' carries image (image/png), which openai-chat tool results cannot: “tool messages carry text only: `content` is a string or an array of text parts (ChatCompletionToolMessageParam); strict OpenAI-compatible servers answer 400 "Invalid \'messages\' in payload", lenient ones drop the image unseen”', 'target'),
    ],
    'TD805-deepseek-reasoner-tool-turn-without-reasoning-content.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls” — see TD805', 'rejected'),
        ('TD805', 'error', 0, 'c1', 1, 0, '/request/body#/messages/2/tool_calls/0', None,
         'the turn calling \'get_exchange_rate\' carries no reasoning_content (a tool turn needs it): deepseek rejects it, “Missing `reasoning_content` field in the assistant message at message index N. (newer models: "The `reasoning_content` in the thinking mode must be passed back to the API.")”', 'target'),
    ],
    'TD805-kimi-k2-thinking-history-saved-without-reasoning-content.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “thinking is enabled but reasoning_content is missing in assistant tool call message at index 2” — see TD805', 'rejected'),
        ('TD805', 'error', 0, 'c1', 1, 0, '/request/body#/messages/2/tool_calls/0', None,
         "the turn calling 'search_docs' carries no reasoning_content (a tool turn needs it): kimi rejects it, “thinking is enabled but reasoning_content is missing in assistant tool call message at index N”", 'target'),
    ],
    'TD805-openai-responses-stateless-history-names-reasoning-by-id.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         "the provider rejected the request (HTTP 404 invalid_request_error): “Item with id 'rs_07b1d3f5a9c2e4680068f3a2b1c5d7e9f0a4b6c8d2e1f3a5b7' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.” — see TD805", 'rejected'),
        ('TD805', 'error', 0, 'c1', 1, 1, '/request/body#/input/2', None,
         "the turn calling 'get_invoice' carries no reasoning item with its encrypted_content (store is false) (it must come before the call): openai-responses rejects it, “Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.”", 'target'),
    ],
    'TD806-openai-chat-gemini-mcp-tool-names-with-dots.jsonl': [
        ('TD806', 'error', 1, 'c1', None, None, 'line 2/request/body#/tools/0/functionDeclarations/1', None,
         "openai-chat rejects the declared tool name 'github.get_issue': “Invalid 'tools[N].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.”", 'target'),
        ('TD806', 'error', 1, 'c1', None, None, 'line 2/request/body#/tools/0/functionDeclarations/0', None,
         "openai-chat rejects the declared tool name 'github.list_issues': “Invalid 'tools[N].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.”", 'target'),
    ],
    'TD807-anthropic-memory-layer-prefills-with-tools-declared.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         'the provider rejected the request (HTTP 400 invalid_request_error): “Your API request included an `assistant` message in the final position, which would pre-fill the `assistant` response. When using tools, pre-filling the `assistant` response is not supported.” — see TD807', 'rejected'),
        ('TD807', 'error', 0, 'c1', 1, None, '/request/body#/messages/1', None,
         "the request ends on the assistant's turn (the assistant's own words): anthropic refuses a final assistant turn with tools declared, “Your API request included an `assistant` message in the final position, which would pre-fill the `assistant` response. When using tools, pre-filling the `assistant` response is not supported.”", 'target'),
    ],
    'TD901-gateway-answers-html-502-page.har': [
        ('TD901', 'error', 1, 'c1', None, None, '/log/entries/1/response/content/text#', None,
         'the provider rejected the request (HTTP 502): “502 Bad Gateway 502 Bad Gateway nginx/1.26.2” — not a defect of the history (a rate limit, an overloaded or failing server, a credential): tooldbg has no rule for this rejection', 'rejected'),
    ],
    'TD901-responses-history-saved-without-reasoning-items.jsonl': [
        ('TD901', 'error', 0, 'c1', None, None, '/response/body#/error', None,
         "the provider rejected the request (HTTP 400 invalid_request_error): “Item 'fc_0a7d3f91c2e4b6580069b3c4d6a9d48191b7e1c5a3f2d0e4' of type 'function_call' was provided without its required 'reasoning' item: 'rs_0a7d3f91c2e4b6580069b3c4d5e61f08b1a2c3d4e5f60718'.” — no rule explains it on this request: its words point to TD307, TD805, none of which found it here (TD805 runs with --target openai-responses)", 'rejected'),
    ],
}


def whole(finding):
    return (finding.code, finding.severity, finding.exchange, finding.conversation, finding.turn,
            finding.part, finding.pointer, finding.chunk, finding.message, finding.evidence)


def test_every_rule_has_its_severity():
    assert {code: rule.severity for code, rule in RULES.items()} == SEVERITIES


def test_every_rule_says_what_sets_its_severity():
    assert {code: rule.harm for code, rule in RULES.items()} == HARMS
    # a rejection accepted by the provider is a warning that says what the model lost
    assert all(rule.lost for rule in RULES.values() if rule.harm == "rejection")


def test_every_defect_sample_has_its_expected_findings():
    assert sorted(EXPECTED) == [p.name for p in SAMPLES]


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_defect_sample_produces_exactly_its_findings(path):
    code = path.name.split("-", 1)[0]
    assert code in RULES, f"{path.name} names no registered rule"
    loaded = load_file(path)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    target = sample_target(path)
    findings = run_checks(loaded, select_rules(target=target), target)
    assert [whole(f) for f in findings] == EXPECTED[path.name], [f"{f.code} {f.message}" for f in findings]
    assert {f.code for f in findings} - {"TD901"} == ({code} if code != "TD901" else set())
    if code != "TD901":  # the 400 its defect earned: the rejection names the sample's rule
        rejections = [f.message for f in findings if f.code == "TD901"]
        assert all(re.search(rf" — see (TD\d{{3}}, )*{code}\b", m) for m in rejections), rejections
    assert all(f.name == RULES[f.code].name and f.path == str(path) for f in findings)


def side(folder, name):
    [path] = folder.glob(f"{name}.*")
    loaded = load_file(path)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return loaded


@pytest.mark.parametrize("folder", PAIRS, ids=[p.name for p in PAIRS])
def test_diff_sample_produces_exactly_its_code(folder):
    """The two sides compared give that code and no other; neither side has a finding of its own
    (the defect shows only when the two are compared)."""
    code = folder.name.split("-", 1)[0]
    assert code in RULES and RULES[code].diff, f"{folder.name} names no diff rule"
    result = diff(side(folder, "client"), side(folder, "upstream"))
    assert {f.code for f in result.findings} == {code}, [f"{f.code} {f.message}" for f in result.findings]
    assert result.own == [], [f"{f.side} {f.code} {f.message}" for f in result.own]


def test_clean_samples_have_no_findings():
    for path in sorted(p for p in paths.SAMPLES.rglob("*") if p.is_file()
                       and "defects" not in p.parts and p.name != "README.md"):
        findings = run_checks(load_file(path))
        assert findings == [], f"{path.name}: {[f'{f.code} {f.message}' for f in findings]}"


def test_select_and_ignore_take_code_prefixes():
    codes = [r.code for r in select_rules(ignore=["TD1"])]
    assert codes == [c for c in RULES if not c.startswith(("TD1", "TD7", "TD8"))]  # TD7xx: diff only
    assert [r.code for r in select_rules(["TD7"])] == []
    assert [r.code for r in select_rules(["TD3"], ignore=["TD30"])] == []
    assert [r.code for r in select_rules(["TD10", "TD603"], ignore=["TD107"])] == [
        "TD101", "TD102", "TD103", "TD104", "TD105", "TD106", "TD108", "TD603"]
    assert [r.code for r in select_rules(["TD8"])] == []  # target rules only with a target
    assert [r.code for r in select_rules(["TD8"], target="anthropic")] == [c for c in RULES if c.startswith("TD8")]
