"""Golden transcripts: every sample reads without error into the canonical document stored in
tests/golden/, and converts to every format — losslessly into its own.

The test run only reads the golden files; it never writes one. After an intended change, regenerate
them with `.venv/bin/python scripts/regen_golden.py` and review `git diff tests/golden/` like code:
each golden is the reading of its sample, checked by eye against the wire, not whatever the code
printed.
"""

from pathlib import Path

import pytest

from tooldbg.convert import TARGETS, export
from tooldbg.jsonio import dumps, loads
from tooldbg.load import load_file
from tooldbg.logs import LOGS
from tooldbg.model import document

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_transcripts"
GOLDEN = ROOT / "tests" / "golden"
FILES = sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.name != "README.md"
               and "defects" not in p.relative_to(SAMPLES).parts)


GEMINI_HISTORY_NOTE = "Gemini rejects a history that ends on a model turn"
#: What a writer notes about a conversation that ends on the model's answer or calls (a history, not
#: yet a request): the contract asks it to say so rather than invent a turn, so it is not a loss.
HISTORY_NOTES = (GEMINI_HISTORY_NOTE, "the conversation ends on this call with no result: a history")


def rel(path: Path) -> str:
    return path.relative_to(SAMPLES).as_posix()


def golden_path(path: Path) -> Path:
    return GOLDEN / (rel(path) + ".canonical.json")


def canonical_text(path: Path) -> str:
    loaded = load_file(path)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    doc = document(loaded.conversations)
    for conv in doc["conversations"]:  # golden files must not depend on where the repo lives
        _relativize(conv)
    return dumps(doc, indent=True).decode() + "\n"


def _relativize(node):
    if isinstance(node, dict):
        if "file" in node and isinstance(node["file"], str):
            node["file"] = Path(node["file"]).name
        for value in node.values():
            _relativize(value)
    elif isinstance(node, list):
        for value in node:
            _relativize(value)


def test_there_are_samples_for_every_format():
    dirs = {p.relative_to(SAMPLES).parts[0] for p in FILES}
    assert {"openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"} <= dirs


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_sample_matches_its_golden_canonical_file(path):
    golden = golden_path(path)
    assert golden.exists(), f"no golden file {golden.relative_to(ROOT)}: run scripts/regen_golden.py"
    assert loads(canonical_text(path)) == loads(golden.read_text())


def test_every_golden_file_has_its_sample():
    """A golden left behind by a renamed or deleted sample would pin nothing."""
    goldens = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.canonical.json")}
    assert goldens == {rel(p) + ".canonical.json" for p in FILES}


def test_the_test_run_writes_no_golden(monkeypatch, tmp_path):
    """The variable that once made the test rewrite its goldens is ignored: any value, `0` too."""
    path = SAMPLES / "openai-chat" / "request.json"
    before = golden_path(path).read_bytes()
    for value in ("1", "0", "yes"):
        monkeypatch.setenv("TOOLDBG_UPDATE_GOLDEN", value)
        test_sample_matches_its_golden_canonical_file(path)
    assert golden_path(path).read_bytes() == before


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_sample_converts_to_every_format(path):
    loaded = load_file(path)
    own = loaded.formats
    for conv in loaded.conversations:
        for target in TARGETS:
            result = export([conv], target)
            if target in own and any(r.request is not None for r in loaded.reads) \
                    and loaded.container not in LOGS:
                # Writing a sample in its own format loses nothing; a writer only notes, as the
                # contract asks, that its format rejects a history ending on the model's turn.
                # (An agent's own log is no request in the format of its messages: a Claude Code
                # session sets no max_tokens, a Codex rollout's failures are no Responses field.)
                lost = [str(x) for x in result.losses if not x.message.startswith(HISTORY_NOTES)]
                assert lost == [], f"{target} → {target} lost: {lost}"
