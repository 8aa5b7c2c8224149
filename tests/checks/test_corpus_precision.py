"""Precision: real traffic must not light up. Every corpus file is checked, and its findings are
compared whole — code, severity, exchange, conversation, turn, part, pointer, chunk, and so their
count — with the list below, warnings and infos included: a clean file gives none at all, and each
finding a file does give was read against the traffic and judged real."""

import pytest

from tests import paths
from tests.checks.helpers import DAMAGED
from tooldbg.checks import run_checks
from tooldbg.load import load_file

FILES = paths.corpus_files()

#: file → every finding it must give: (code, severity, exchange, conversation, turn, part, pointer,
#: chunk, message). Every file not listed must give none.
EXPECTED: dict[str, list[tuple]] = {
    # vercel/ai trimmed the fixture's delta runs: `sequence_number` jumps 5 → 41 at chunk 6 and skips
    # 113 events in all. The reordering that follows is the recording's, not the stream's, and the
    # `.done` events carry every value whole: one info at the first gap, no error (see TD501's doc).
    "vercel-ai-fixtures/openai/openai-phase.1.chunks.txt": [
        ("TD501", "info", 0, "c1", 0, None, "", 6,
         "the capture lacks 113 events (sequence_number skips ahead from here on): 5 order problem(s) after "
         "it are the recording's, not the stream's — the .done events and response.completed carry every "
         "value whole — info: a sign the log shows, not a rejection"),
    ],
    # The OpenAI-compatible endpoint behind vercel/ai's fixture passes on Anthropic's content-block
    # index: the text block was 0, so the first (only) call arrives at index 1. openai-python's
    # accumulator would file it at position 0 and make its later fragments a second, nameless call
    # (vercel/ai keeps the fixture because its own client had to cope): a real TD501, at that chunk.
    "vercel-ai-fixtures/openai-compatible/anthropic-fallback-tool-call.sse": [
        ("TD501", "error", 0, "c1", 0, 1, "", 3,
         "the first tool call arrives at index 1, not 0: openai-python files it at position 0 and makes its "
         "later fragments a second call, with the arguments but no id or name (another format's block index "
         "passed on: Anthropic counts the text block before the call)" + DAMAGED),
    ],
    # Three vercel/ai fixtures are recordings of the provider refusing the request: TD901 is a true
    # finding on each (a log of a failed request must not look clean). Two are a quota, and say so;
    # the legacy-parameter 400 is a request defect no tooldbg rule covers, and says that.
    "vercel-ai-fixtures/google/google-429-retry-info.json": [
        ("TD901", "error", 0, "c1", None, None, "/error", None,
         "the provider rejected the request (HTTP 429 RESOURCE_EXHAUSTED): “You exceeded your current quota, "
         "please check your plan.” — not a defect of the history (a rate limit, an overloaded or failing "
         "server, a credential): tooldbg has no rule for this rejection"),
    ],
    # The `error` event (chunk 2) and the `response.failed` after it are one failure, reported once.
    "vercel-ai-fixtures/openai/openai-error.1.chunks.txt": [
        ("TD901", "error", 0, "c1", None, None, "", 2,
         "the provider rejected the request (insufficient_quota): “You exceeded your current quota, please "
         "check your plan and billing details. For more information on this error, read the docs: "
         "https://platform.openai.com/docs/guides/error-codes/api-errors.” — not a defect of the history "
         "(a rate limit, an overloaded or failing server, a credential): tooldbg has no rule for this "
         "rejection"),
    ],
    "vercel-ai-fixtures/openai/reasoning-model-legacy-parameter-error.json": [
        ("TD901", "error", 0, "c1", None, None, "/error", None,
         "the provider rejected the request (invalid_request_error unsupported_parameter): “Unsupported "
         "parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' "
         "instead.” — tooldbg has no rule for this rejection"),
    ],
}


def rel(path):
    return paths.corpus_name(path)


def whole(finding):
    return (finding.code, finding.severity, finding.exchange, finding.conversation, finding.turn,
            finding.part, finding.pointer, finding.chunk, finding.message)


@pytest.mark.needs_corpus
def test_every_expectation_names_a_corpus_file():
    assert set(EXPECTED) <= {rel(p) for p in FILES}


@pytest.mark.needs_corpus
def test_the_corpus_is_there_to_check():
    assert len(FILES) >= 50


@pytest.mark.parametrize("path", paths.corpus_params(FILES), ids=rel)
def test_corpus_file_has_only_the_findings_it_really_has(path):
    findings = run_checks(load_file(path))
    assert [whole(f) for f in findings] == EXPECTED.get(rel(path), []), \
        [f"{f.code} {f.severity} {f.message} at {f.pointer}" for f in findings]
