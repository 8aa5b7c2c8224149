"""Where the tests find their data.

The project's own: the samples (`sample_transcripts/`) and its captures of the official client
libraries (`tests/corpus/real-clients/`). Traffic recorded by other projects (the groups in
THIRD_PARTY_GROUPS; tests/corpus/README.md names their sources) is never committed: it is read from
the folder `TOOLDBG_CORPUS` names, else from `shared/corpus/` beside the repository. A test that needs
it is marked `needs_corpus`, or takes its parameters from `corpus_params`; when the folder is absent,
tests/conftest.py skips those tests with CORPUS_MISSING, and stops the run if `TOOLDBG_CORPUS` names a
folder without it.

Corpus files are named by their path inside the corpus, as the README's tables name them:
"real-clients/openai-chat.har", "opencode-recordings/openai-chat/streams-text.json"."""

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_transcripts"
#: The project's captures, and the README that describes the whole corpus.
CAPTURES = ROOT / "tests" / "corpus"
REAL_CLIENTS = CAPTURES / "real-clients"

CORPUS_ENV = "TOOLDBG_CORPUS"
#: The third-party corpus (an empty TOOLDBG_CORPUS counts as unset).
CORPUS = Path(os.environ.get(CORPUS_ENV) or ROOT.parent / "shared" / "corpus").absolute()
THIRD_PARTY_GROUPS = ("opencode-recordings", "vercel-ai-fixtures")
HAVE_CORPUS = all((CORPUS / group).is_dir() for group in THIRD_PARTY_GROUPS)
CORPUS_MISSING = f"third-party corpus not found: set {CORPUS_ENV}"

#: The suffixes of the corpus's log files (not its READMEs and licences).
LOG_SUFFIXES = (".json", ".txt", ".sse", ".har", ".jsonl")


def corpus_misnamed() -> str | None:
    """The error when `TOOLDBG_CORPUS` names a folder that holds no third-party corpus (a typo must
    not pass for a corpus that is simply not there), else None."""
    named = os.environ.get(CORPUS_ENV)
    if named and not HAVE_CORPUS:
        return (f"{CORPUS_ENV}={named}: no third-party corpus there (expected the folders "
                f"{', '.join(THIRD_PARTY_GROUPS)} in {CORPUS})")
    return None


def third_party_roots() -> list[Path]:
    """The folders of the third-party groups; none when the corpus is absent."""
    return [CORPUS / group for group in THIRD_PARTY_GROUPS] if HAVE_CORPUS else []


def corpus_files(suffixes: Iterable[str] = LOG_SUFFIXES) -> list[Path]:
    """The corpus files whose names end in one of `suffixes`: the project's captures, and the
    third-party groups' when they are there, in the order of their names."""
    suffixes = tuple(suffixes)
    found = [path for root in (REAL_CLIENTS, *third_party_roots()) for path in root.rglob("*")
             if path.is_file() and path.suffix.lower() in suffixes]
    return sorted(found, key=lambda path: Path(corpus_name(path)))


def corpus_name(path: Path) -> str:
    """A corpus file's name: its path inside the corpus."""
    root = CAPTURES if path.is_relative_to(CAPTURES) else CORPUS
    return path.relative_to(root).as_posix()


def corpus_path(name: str) -> Path:
    """The corpus file named `name` (see corpus_name), wherever its group is kept."""
    return (CORPUS if name.split("/", 1)[0] in THIRD_PARTY_GROUPS else CAPTURES) / name


def is_third_party(value: Any) -> bool:
    """Whether a test parameter comes from the third-party corpus: a path in it, a corpus name of
    it, or a tuple that starts with one."""
    if isinstance(value, tuple):
        return bool(value) and is_third_party(value[0])
    if isinstance(value, Path):
        return not value.is_relative_to(CAPTURES) and value.is_relative_to(CORPUS)
    return isinstance(value, str) and value.split("/", 1)[0] in THIRD_PARTY_GROUPS


def corpus_params(values: Iterable[Any], *, arity: int = 1,
                  ids: Callable[[Any], str] | None = None) -> list[Any]:
    """`values` as a test's parameters (tuples of `arity` values when `arity` > 1), those from the
    third-party corpus marked `needs_corpus`. When the corpus is absent and none of them comes from
    it (its files could not be listed), one marked parameter stands for them: the test is reported
    skipped with CORPUS_MISSING, not with pytest's "got empty parameter set"."""
    values = list(values)
    params = [pytest.param(*(value if arity > 1 else (value,)), id=ids(value) if ids else None,
                           marks=[pytest.mark.needs_corpus] if is_third_party(value) else [])
              for value in values]
    if not HAVE_CORPUS and not any(map(is_third_party, values)):
        params.append(pytest.param(*[None] * arity, id="third-party-corpus", marks=pytest.mark.needs_corpus))
    return params
