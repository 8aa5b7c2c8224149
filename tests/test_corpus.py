"""Every file of real traffic in the corpus (tests/paths.py) loads, its calls and results pair up, and every
conversation in it converts to every format. A file that cannot pair is named here with the reason."""

from pathlib import Path

import pytest

from tests import paths
from tests.strategies import changed_regions
from tooldbg import formats
from tooldbg.convert import export
from tooldbg.load import load_file
from tooldbg.model import Conversation, Invocation, Result, Source

FILES = paths.corpus_files()

#: Files that are not LLM provider traffic, with the reason.
NOT_PROVIDER_TRAFFIC = {
    "opencode-recordings/record-replay/multi-step.json":
        "the recorder's self-test against https://example.test/echo",
}

#: Files whose calls legitimately stay unanswered or whose results have no call in the file.
#: A response ending on calls the client has not answered yet is what the last turn of any
#: response-only file looks like, and is not counted; only calls left behind mid-conversation are.
UNPAIRED = {
    "vercel-ai-fixtures/anthropic/anthropic-tool-search-regex.1.chunks.txt":
        "two responses back to back; the request answering get_temp_data was not captured",
    "vercel-ai-fixtures/openai/openai-reasoning-encrypted-content.1.chunks.txt":
        "four responses of one loop back to back; the requests carrying the results were not captured",
}

def rel(path: Path) -> str:
    return paths.corpus_name(path)


@pytest.mark.parametrize("path", paths.corpus_params(FILES), ids=rel)
def test_corpus_file_loads_without_errors(path):
    loaded = load_file(path)
    if rel(path) in NOT_PROVIDER_TRAFFIC:
        assert not loaded.conversations and not loaded.errors
        assert loaded.skipped == len(loaded.reads) > 0  # every entry counted as not an LLM exchange
        return
    assert loaded.errors == []
    assert loaded.conversations, "no conversation read"
    assert loaded.formats, "no format detected"


@pytest.mark.parametrize("path", paths.corpus_params(p for p in FILES if rel(p) not in NOT_PROVIDER_TRAFFIC),
                         ids=rel)
def test_corpus_calls_and_results_pair_up(path):
    for conv in load_file(path).conversations:
        calls = {p.id: p for t in conv.turns for p in t.parts if isinstance(p, Invocation)}
        answered = set()
        for index, turn in enumerate(conv.turns):
            for part in turn.parts:
                if isinstance(part, Result):
                    assert part.invocation_id in calls, (
                        f"{rel(path)} {conv.id} turn {index}: result {part.wire_id!r} answers no call")
                    answered.add(part.invocation_id)
        last_calls = {p.id for p in conv.turns[-1].invocations()} if conv.turns else set()
        unanswered = set(calls) - answered - last_calls
        assert not unanswered or rel(path) in UNPAIRED, (
            f"{rel(path)} {conv.id}: calls {sorted(unanswered)} have no result")


@pytest.mark.parametrize("path", paths.corpus_params(p for p in FILES if rel(p) not in NOT_PROVIDER_TRAFFIC),
                         ids=rel)
def test_corpus_converts_to_every_format(path):
    """Written in any format and read back, a conversation changes only in turns a loss names."""
    for conv in load_file(path).conversations:
        assert export([conv], "canonical").body["conversations"]
        for target in formats.WIRE_FORMATS:
            written = formats.get(target).write(conv)
            request = formats.get(target).read_request(written.body, Source())
            back = Conversation(system=request.system, tools=request.tools,
                                tool_choice=request.tool_choice, turns=request.turns)
            unexplained = [sorted(r) for r in changed_regions(conv, back)
                           if not r & {loss.turn for loss in written.losses}]
            assert not unexplained, (
                f"{target}: turns {unexplained} changed without a loss: "
                + "; ".join(map(str, written.losses)))
