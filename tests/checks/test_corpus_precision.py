"""Precision: real traffic must not light up. Every corpus file is checked; clean exchanges give no
error-level finding, and the files that do carry a real defect are listed with the judgement."""

import pytest

from tests import paths
from tooldbg.checks import run_checks
from tooldbg.load import load_file

FILES = sorted(p for p in paths.CORPUS.rglob("*") if p.is_file()
               and p.suffix in (".json", ".txt", ".sse", ".har", ".jsonl"))

#: file → the error-level codes it must produce, each a real defect in that traffic.
EXPECTED_ERRORS: dict[str, set[str]] = {
}


def rel(path):
    return path.relative_to(paths.CORPUS).as_posix()


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_corpus_file_has_only_the_errors_it_really_has(path):
    findings = run_checks(load_file(path))
    errors = {f.code for f in findings if f.severity == "error"}
    assert errors == EXPECTED_ERRORS.get(rel(path), set()), \
        [f"{f.code} {f.message} at {f.pointer}" for f in findings if f.severity == "error"]
