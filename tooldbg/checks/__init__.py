"""The defect engine: every rule registered once (one module each in `rules/`), run over loaded
files, findings in a stable order."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import Any

from ..errors import InputError, unexpected
from ..formats.profiles import wire_format
from ..jsonio import dumps
from ..load import Loaded, load_bytes
from . import rules as _rules_package
from .base import SEVERITIES, Context, Finding, Rule, severity_rank


def _discover() -> dict[str, Rule]:
    found = {}
    for info in sorted(pkgutil.iter_modules(_rules_package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{_rules_package.__name__}.{info.name}")
        rule = Rule.from_module(module)
        if rule.code in found:
            raise RuntimeError(f"two rules claim {rule.code}")
        found[rule.code] = rule
    return dict(sorted(found.items()))


#: Every rule, by code. The registry is the `rules` package: a module there is a rule.
RULES: dict[str, Rule] = _discover()


def select_rules(select: Iterable[str] = (), ignore: Iterable[str] = (),
                 target: str | None = None) -> list[Rule]:
    """Rules whose code starts with a selected prefix (all when none) and no ignored one; TD8xx
    target rules only when a target is given; never the TD7xx rules `diff` reports (they compare two
    logs: `tooldbg.diff`)."""
    select, ignore = tuple(select), tuple(ignore)
    return [r for r in RULES.values()
            if (not select or r.code.startswith(select)) and not (ignore and r.code.startswith(ignore))
            and (target is not None or not r.target) and not r.diff]


def run_checks(loaded: Loaded, rules: Iterable[Rule] | None = None,
               target: str | None = None) -> list[Finding]:
    """Every rule over one loaded file. A rule that raises (a bug: rules read only what the
    readers validated) is reported among the file's errors and the other rules still run."""
    ctx = Context(loaded, target=target)
    findings: list[Finding] = []
    for rule in rules if rules is not None else select_rules(target=target):
        ctx.rule = rule
        try:
            findings.extend(rule.check(ctx))
        except Exception as err:  # noqa: BLE001
            message = unexpected(err, f"rule {rule.code} could not run")
            loaded.errors.append(InputError(loaded.path, "", message))
    return sorted(set(findings), key=Finding.sort_key)


def preflight(body: dict[str, Any], target: str) -> list[Finding]:
    """The TD8xx target rules on a request body about to be written for `target` (a wire format or
    a profile such as `mistral`): what `convert` checks before it writes."""
    fmt = wire_format(target)
    loaded = load_bytes(f"<{target} request>", dumps(body), fmt)
    return run_checks(loaded, select_rules(["TD8"], target=target), target)


__all__ = ["RULES", "SEVERITIES", "Context", "Finding", "Rule", "preflight", "run_checks",
           "select_rules", "severity_rank"]
