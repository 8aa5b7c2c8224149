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


#: How a finding's message ends, by the evidence that set its severity (`tooldbg.checks.evidence`).
DAMAGED = " — error: the data received is damaged, whatever the provider answered"
SYMPTOM = " — warning: a sign the log shows, not a rejection"
RECEIVED = " — error: it came in the provider's response, and no request in the log sends it on"


def rejected(exchange: int) -> str:
    return f" — error: the provider rejected exchange {exchange}, which sent it"


def accepted(exchange: int, lost: str) -> str:
    return f" — warning: accepted by the provider (exchange {exchange}); {lost}"


def provider(name: str, how: str, severity: str = "error") -> str:
    return f" — {severity}: {name} rejects it ({how})"


def unknown(refusing: str, many: bool = True) -> str:
    return f" — warning: the provider is not known; {refusing} {'reject' if many else 'rejects'} it"
