"""The rule catalogue: every rule of the contract exists with its doc and examples, and every rule
has a defect sample in sample_transcripts/defects/ that produces exactly its code: a file `check`
reads, or for the TD7xx rules `diff` reports, a folder `TD701-<story>/` holding the two sides of one
conversation, `client.*` and `upstream.*`."""

import re

import pytest

from tests import paths
from tooldbg.checks import RULES, run_checks, select_rules
from tooldbg.diff import diff
from tooldbg.load import load_file
from tooldbg.targets import PROFILES

CATALOGUE = [
    "TD101", "TD102", "TD103", "TD104", "TD105", "TD106", "TD107", "TD108",
    "TD201", "TD202", "TD203", "TD204", "TD205", "TD206", "TD207",
    "TD301", "TD302", "TD303", "TD304", "TD305", "TD306", "TD307",
    "TD401", "TD402", "TD403", "TD404", "TD405", "TD406",
    "TD501", "TD502", "TD503", "TD504",
    "TD601", "TD602", "TD603",
    "TD701", "TD702", "TD703", "TD704",
]
DEFECTS = paths.SAMPLES / "defects"
SAMPLES = sorted(p for p in DEFECTS.iterdir() if p.is_file() and p.name != "README.md") \
    if DEFECTS.is_dir() else []
PAIRS = sorted(p for p in DEFECTS.iterdir() if p.is_dir()) if DEFECTS.is_dir() else []
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


def test_diff_rules_are_td7xx():
    assert [r.code for r in RULES.values() if r.diff] == [c for c in RULES if c.startswith("TD7")]
    assert not any(r.diff for r in select_rules()), "check never runs the rules diff reports"


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_every_rule_has_a_defect_sample(rule):
    samples = PAIRS if rule.diff else SAMPLES
    assert [p for p in samples if p.name.startswith(rule.code + "-")], (
        f"no sample_transcripts/defects/{rule.code}-*{'/ (client.*, upstream.*)' if rule.diff else ''}")


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_defect_sample_produces_exactly_its_code(path):
    code = path.name.split("-", 1)[0]
    assert code in RULES, f"{path.name} names no registered rule"
    loaded = load_file(path)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    target = sample_target(path)
    findings = run_checks(loaded, select_rules(target=target), target)
    assert {f.code for f in findings} == {code}, [f"{f.code} {f.message}" for f in findings]


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
