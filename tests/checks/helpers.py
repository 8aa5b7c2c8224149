"""What the rule tests share."""

from collections.abc import Iterable

from tooldbg.checks import run_checks
from tooldbg.checks.base import Finding, Rule
from tooldbg.load import Loaded


def run_rules(loaded: Loaded, rules: Iterable[Rule] | None = None, target: str | None = None) -> list[Finding]:
    """`run_checks`, failing the test when a rule raised: `run_checks` reports a rule's crash among
    the file's errors and carries on, so a crash would otherwise pass for "no finding"."""
    findings = run_checks(loaded, rules, target)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return findings
