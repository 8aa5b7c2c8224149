"""The rule catalogue: every rule of the contract exists with its doc, examples and severity, and
every rule has a defect sample in sample_transcripts/defects/ that produces exactly its findings —
compared whole (code, severity, exchange, conversation, turn, part, pointer, chunk; so the count
too), warnings and infos included."""

import re

import pytest

from tests import paths
from tooldbg.checks import RULES, run_checks, select_rules
from tooldbg.load import load_file
from tooldbg.targets import PROFILES

CATALOGUE = [
    "TD101", "TD102", "TD103", "TD104", "TD105", "TD106", "TD107", "TD108",
    "TD201", "TD202", "TD203", "TD204", "TD205", "TD206", "TD207",
    "TD301", "TD302", "TD303", "TD304", "TD305", "TD306", "TD307",
    "TD401", "TD402", "TD403", "TD404", "TD405", "TD406",
    "TD501", "TD502", "TD503", "TD504",
    "TD601", "TD602", "TD603",
]
DEFECTS = paths.SAMPLES / "defects"
SAMPLES = sorted(p for p in DEFECTS.iterdir() if p.is_file() and p.name != "README.md") \
    if DEFECTS.is_dir() else []
#: Each rule's severity. A downgrade (error → warning) lets a broken log pass `--fail-on error`:
#: changing one is a decision to write here, not a side effect. (A rule may raise its own: TD401 is an
#: error where the wire pairs results by position, TD501 an info where the capture lacks events.)
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
    "TD801": "error", "TD802": "warning", "TD803": "error", "TD804": "error", "TD805": "error",
    "TD806": "error",
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
    assert [r.code for r in RULES.values() if r.target] == [c for c in RULES if c.startswith("TD8")]
    assert any(c.startswith("TD8") for c in RULES)


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_rule_is_documented(rule):
    assert re.fullmatch(r"TD\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
    assert rule.severity in ("error", "warning", "info")
    assert rule.message and "\n" not in rule.message
    assert len(rule.doc.split()) >= 15, "the docstring must say why the defect matters"
    assert rule.bad.strip() and rule.good.strip() and rule.bad != rule.good


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_every_rule_has_a_defect_sample(rule):
    assert [p for p in SAMPLES if p.name.startswith(rule.code + "-")], (
        f"no sample_transcripts/defects/{rule.code}-*")


#: Every finding each defect sample gives, read against the sample's wire JSON and judged one by
#: one: (code, severity, exchange, conversation, turn, part, pointer, chunk).
EXPECTED = {
    "TD101-history-trimmed-through-a-call.jsonl": [
        ('TD101', 'error', 1, 'c2', 0, 0, 'line 2/request/body#/messages/1', None),
    ],
    "TD102-failed-parallel-result-dropped.jsonl": [
        ('TD102', 'error', 0, 'c1', 1, 2, 'line 1/response/body#/content/2', None),
    ],
    "TD103-tool-use-id-lowercased-by-relay.jsonl": [
        ('TD103', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/messages/2/content/0', None),
    ],
    "TD104-backend-reuses-call-0.jsonl": [
        ('TD104', 'error', 1, 'c1', 3, 0, 'line 2/response/body#/choices/0/message/tool_calls/0', None),
    ],
    "TD105-retried-booking-answered-twice.jsonl": [
        ('TD105', 'error', 1, 'c1', 2, 1, 'line 2/request/body#/messages/2/content/1', None),
    ],
    "TD106-client-renumbers-call-ids.jsonl": [
        ('TD106', 'warning', 1, 'c1', 1, 0, 'line 2/request/body#/messages/2/tool_calls/0', None),
    ],
    "TD107-same-name-calls-paired-by-position.jsonl": [
        ('TD107', 'warning', 1, 'c1', 2, 0, 'line 2/request/body#/contents/2/parts/0', None),
        ('TD107', 'warning', 1, 'c1', 2, 1, 'line 2/request/body#/contents/2/parts/1', None),
    ],
    "TD108-empty-tool-use-id.jsonl": [
        ('TD108', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1', None),
    ],
    "TD201-litellm-proxy-double-encodes-arguments.jsonl": [
        ('TD201', 'error', 0, 'c1', 1, 1, 'line 1/response/body#/choices/0/message/tool_calls/0/function/arguments', None),
    ],
    "TD202-write-file-arguments-cut-at-max-tokens.json": [
        ('TD202', 'error', 0, 'c1', 1, 0, '/response/body#/choices/0/message/tool_calls/0/function/arguments', None),
    ],
    "TD203-client-replays-arguments-as-object.har": [
        ('TD203', 'error', 1, 'c1', 1, 0, '/log/entries/1/request/postData/text#/messages/2/tool_calls/0/function/arguments', None),
    ],
    "TD204-gateway-sends-tool-input-as-string.jsonl": [
        ('TD204', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1/input', None),
    ],
    "TD205-parameterless-call-streams-empty-arguments.json": [
        ('TD205', 'error', 0, 'c1', 1, 1, '/interactions/0/response/body#/choices/0/message/tool_calls/0/function/arguments', 1),
    ],
    "TD206-units-outside-declared-enum.har": [
        ('TD206', 'error', 0, 'c1', 1, 1, '/log/entries/0/response/content/text#/candidates/0/content/parts/0/functionCall/args', None),
    ],
    "TD207-gpt-oss-calls-undeclared-tool.json": [
        ('TD207', 'error', 0, 'c1', 1, 1, '/response/body#/choices/0/message/tool_calls/0', None),
    ],
    "TD301-tool-call-text-dropped-by-agent-framework.jsonl": [
        ('TD301', 'error', 1, 'c1', 1, None, 'line 2/request/body#/messages/2', None),
    ],
    "TD302-tool-output-replayed-as-user-message.jsonl": [
        ('TD302', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/messages/3/content', None),
    ],
    "TD303-session-store-drops-is-error.jsonl": [
        ('TD303', 'error', 2, 'c1', 2, 1, 'line 3/request/body#/messages/2/content/1', None),
    ],
    "TD304-bedrock-traceback-returned-as-success.jsonl": [
        ('TD304', 'warning', 1, 'c1', 2, 0, 'line 2/request/body#/messages/2/content/0', None),
    ],
    "TD305-context-trimmer-strips-screenshot.jsonl": [
        ('TD305', 'error', 2, 'c1', 2, 0, 'line 3/request/body#/messages/2/content/0', None),
    ],
    "TD306-gateway-drops-unknown-argument-on-replay.jsonl": [
        ('TD306', 'error', 1, 'c1', 1, 1, 'line 2/request/body#/input/2', None),
    ],
    "TD307-gemini-3-thought-signature-dropped-rejected.jsonl": [
        ('TD307', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/contents/1/parts/0', None),
    ],
    "TD401-results-in-completion-order.jsonl": [
        ('TD401', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/contents/2/parts/0', None),
    ],
    "TD402-user-message-before-tool-results.jsonl": [
        ('TD402', 'error', 1, 'c1', 3, 0, 'line 2/request/body#/messages/4', None),
        ('TD402', 'error', 1, 'c1', 3, 1, 'line 2/request/body#/messages/5', None),
    ],
    "TD403-text-before-tool-results.jsonl": [
        ('TD403', 'error', 1, 'c1', 3, 0, 'line 2/request/body#/messages/2/content/1', None),
    ],
    "TD404-legacy-function-role.jsonl": [
        ('TD404', 'error', 1, 'c1', 2, None, 'line 2/request/body#/contents/2/role', None),
    ],
    "TD405-text-after-tool-use.jsonl": [
        ('TD405', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1', None),
    ],
    "TD406-empty-text-beside-tool-use.jsonl": [
        ('TD406', 'error', 1, 'c1', 1, 0, 'line 2/request/body#/messages/1/content/0', None),
    ],
    "TD501-bedrock-gateway-strips-reasoning-blocks.json": [
        ('TD501', 'error', 0, 'c1', 1, None, '/interactions/0/response/body#', 1),
    ],
    "TD501-litellm-proxy-repeats-call-id-on-every-fragment.jsonl": [
        ('TD501', 'error', 0, 'c1', 1, None, '/response/body#', 2),
    ],
    "TD501-openai-responses-relay-forwards-deltas-out-of-order.json": [
        ('TD501', 'error', 0, 'c1', 1, None, '/interactions/0/response/body#', 5),
        ('TD501', 'error', 0, 'c1', 1, None, '/interactions/0/response/body#', 7),
    ],
    "TD502-anthropic-relay-resends-input-delta.jsonl": [
        ('TD502', 'error', 0, 'c1', 1, 1, '/response/body#', 6),
    ],
    "TD502-litellm-summary-chunk-resends-arguments.har": [
        ('TD502', 'error', 0, 'c1', 1, 0, '/log/entries/0/response/content/text#', 4),
    ],
    "TD503-gemini-vertex-stream-loses-the-chunk-naming-the-call.jsonl": [
        ('TD503', 'error', 0, 'c1', 1, 0, '/response/body#', 0),
    ],
    "TD503-openai-compatible-server-changes-call-id-mid-call.jsonl": [
        ('TD503', 'error', 0, 'c1', 1, None, '/response/body#', 2),
    ],
    "TD504-anthropic-connection-drops-mid-tool-input.json": [
        ('TD504', 'error', 0, 'c1', None, None, '/interactions/0/response/body#', 4),
        ('TD504', 'error', 0, 'c1', None, None, '/interactions/0/response/body#', 8),
    ],
    "TD504-gemini-stream-ends-between-parallel-calls.har": [
        ('TD504', 'error', 0, 'c1', None, None, '/log/entries/0/response/content/text#', 0),
    ],
    "TD601-same-call-after-its-result.jsonl": [
        ('TD601', 'warning', 1, 'c1', 3, 0, 'line 2/response/body#/choices/0/message/tool_calls/0', None),
    ],
    "TD602-tool-calls-finish-without-calls.jsonl": [
        ('TD602', 'error', 0, 'c1', 1, None, '/response/body#/choices/0/finish_reason', None),
    ],
    "TD603-forced-tool-choice-answered-with-text.jsonl": [
        ('TD603', 'warning', 0, 'c1', 1, 0, '/response/body#/choices/0/message/content', None),
    ],
    "TD801-anthropic-session-from-kimi-keeps-its-call-ids.jsonl": [
        ('TD801', 'error', 0, 'c1', 1, 1, '/request/body#/messages/1/content/1', None),
        ('TD801', 'error', 0, 'c1', 1, 2, '/request/body#/messages/1/content/2', None),
    ],
    "TD802-openai-chat-responses-item-ids-as-call-ids.jsonl": [
        ('TD802', 'warning', 0, 'c1', 1, 0, '/request/body#/messages/2/tool_calls/0', None),
    ],
    "TD803-anthropic-responses-call-followed-by-text.jsonl": [
        ('TD803', 'error', 0, 'c1', 1, 1, 'line 1/response/body#/output/1/content/0', None),
    ],
    "TD804-openai-chat-browser-screenshot-in-tool-result.jsonl": [
        ('TD804', 'error', 1, 'c1', 2, 0, 'line 2/request/body#/messages/2/content/0', None),
    ],
    "TD805-deepseek-reasoner-tool-turn-without-reasoning-content.jsonl": [
        ('TD805', 'error', 0, 'c1', 1, 0, '/request/body#/messages/2/tool_calls/0', None),
    ],
    "TD806-openai-chat-gemini-mcp-tool-names-with-dots.jsonl": [
        ('TD806', 'error', 1, 'c1', None, None, 'line 2/request/body#/tools/0/functionDeclarations/1', None),
        ('TD806', 'error', 1, 'c1', None, None, 'line 2/request/body#/tools/0/functionDeclarations/0', None),
    ],
}


def whole(finding):
    return (finding.code, finding.severity, finding.exchange, finding.conversation, finding.turn,
            finding.part, finding.pointer, finding.chunk)


def test_every_rule_has_its_severity():
    assert {code: rule.severity for code, rule in RULES.items()} == SEVERITIES


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
    assert {f.code for f in findings} == {code}
    assert all(f.name == RULES[code].name and f.path == str(path) and f.message for f in findings)


def test_clean_samples_have_no_findings():
    for path in sorted(p for p in paths.SAMPLES.rglob("*") if p.is_file()
                       and "defects" not in p.parts and p.name != "README.md"):
        findings = run_checks(load_file(path))
        assert findings == [], f"{path.name}: {[f'{f.code} {f.message}' for f in findings]}"
