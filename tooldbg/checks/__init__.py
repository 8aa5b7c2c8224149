"""The defect engine: every rule registered once (one module each in `rules/`), run over loaded
files, findings in a stable order."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..collector import held_off
from ..errors import InputError, unexpected
from ..formats.profiles import wire_format
from ..jsonio import dumps
from ..load import Loaded, load_bytes
from . import rules as _rules_package
from .base import Context, Finding, Rule


class Registry(Mapping[str, Rule]):
    """Every rule, by code, in code order. The registry is the `rules` package: a module there is a
    rule, `tdNNN_<name>.py`. A rule's module is imported when the rule is first asked for: `show`
    asks for one (TD901), `convert` for the TD8xx rules (`starting`), `check` and the catalogue for
    them all."""

    def __init__(self) -> None:
        self._modules = sorted(info.name for info in pkgutil.iter_modules(_rules_package.__path__))
        self._loaded: dict[str, Rule] = {}  # by module name
        self._all: dict[str, Rule] | None = None
        #: `starting`'s answers, by prefixes: the rules are fixed once imported, and every check
        #: asks again (a `convert` its pre-flight rules for each request it writes).
        self._starting: dict[tuple[str, ...], tuple[Rule, ...]] = {}
        self._ranges = tuple(sorted({name[:3].upper() for name in self._modules}))

    def _rule(self, module_name: str) -> Rule:
        rule = self._loaded.get(module_name)
        if rule is None:
            module = importlib.import_module(f"{_rules_package.__name__}.{module_name}")
            rule = self._loaded[module_name] = Rule.from_module(module)
        return rule

    def _every(self) -> dict[str, Rule]:
        if self._all is None:
            found: dict[str, Rule] = {}
            for module_name in self._modules:
                rule = self._rule(module_name)
                if rule.code in found:
                    raise RuntimeError(f"two rules claim {rule.code}")
                found[rule.code] = rule
            self._all = dict(sorted(found.items()))
        return self._all

    def ranges(self) -> tuple[str, ...]:
        """The code ranges rules exist in (`TD1`, `TD2`, …), read from the module names alone."""
        return self._ranges

    def starting(self, prefixes: tuple[str, ...]) -> list[Rule]:
        """The rules whose code starts with one of `prefixes`, in code order, importing only the
        modules named so (`TD8` → `td8…`)."""
        found = self._starting.get(prefixes)
        if found is None:
            if self._all is not None:
                found = tuple(rule for code, rule in self._all.items() if code.startswith(prefixes))
            else:
                named = (self._rule(m) for m in self._modules if m.upper().startswith(prefixes))
                found = tuple(sorted((rule for rule in named if rule.code.startswith(prefixes)),
                                     key=lambda rule: rule.code))
            self._starting[prefixes] = found
        return list(found)

    def __getitem__(self, code: str) -> Rule:
        if self._all is None:  # the module named after the code alone
            for rule in self.starting((code,)):
                if rule.code == code:
                    return rule
        return self._every()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._every())

    def __len__(self) -> int:
        return len(self._every())


#: Every rule, by code (see `Registry`).
RULES = Registry()


#: The code ranges `select_rules` leaves out (by whether a target is given): only TD7xx rules are
#: `diff`'s and only TD8xx rules are target rules (tests/checks/test_registry.py).
_NEVER_RUN = {False: ("TD7",), True: ("TD7", "TD8")}


def select_rules(select: Iterable[str] = (), ignore: Iterable[str] = (),
                 target: str | None = None) -> list[Rule]:
    """Rules whose code starts with a selected prefix (all when none) and no ignored one; TD8xx
    target rules only when a target is given; never the TD7xx rules `diff` reports (they compare two
    logs: `tooldbg.diff`)."""
    select, ignore = tuple(select), tuple(ignore)
    if not select:  # the ranges that never run here are left unimported (test_registry pins them)
        select = tuple(r for r in RULES.ranges() if r not in _NEVER_RUN[target is None])
    return [r for r in RULES.starting(select)
            if not (ignore and r.code.startswith(ignore))
            and (target is not None or not r.target) and not r.diff]


def export_rules(target: str | None = None, select: Iterable[str] = ()) -> list[Rule]:
    """The rules `select_rules` gives that judge a written export: not those that judge requests only
    (a final assistant turn: an export is a history, and its writer says where one ends)."""
    return [rule for rule in select_rules(select, target=target) if rule.exports]


def run_checks(loaded: Loaded, rules: Iterable[Rule] | None = None,
               target: str | None = None) -> list[Finding]:
    """Every rule over one loaded file, but those that need what the file's format does not carry
    (`Rule.needs`, `Loaded.lacks`). A rule that raises (a bug: rules read only what the readers
    validated) is reported among the file's errors and the other rules still run. The rules run
    with the cyclic collector held off (`collector`): they make many objects and free them all."""
    with held_off(freeze=False):
        return _run_checks(loaded, rules, target)


def _run_checks(loaded: Loaded, rules: Iterable[Rule] | None, target: str | None) -> list[Finding]:
    ctx = Context(loaded, target=target, rules=RULES)
    findings: list[Finding] = []
    lacks = set(loaded.lacks)
    for rule in rules if rules is not None else select_rules(target=target):
        if lacks.intersection(rule.needs):
            continue
        ctx.rule = rule
        ctx.passing(rule.code)
        try:
            if rule.code not in ctx.found:  # the rule as given (TD901 may have run it already)
                ctx.found[rule.code] = list(rule.check(ctx))
            findings.extend(ctx.found[rule.code])
        except Exception as err:  # noqa: BLE001
            ctx.found[rule.code] = []  # reported once, here: TD901 does not run it again
            message = unexpected(err, f"rule {rule.code} could not run")
            loaded.errors.append(InputError(loaded.path, "", message))
    return _once(sorted(set(findings), key=Finding.sort_key))


def _once(findings: list[Finding]) -> list[Finding]:
    """Each finding once: conversations that share turns (a rejected request's branch and the retry
    that went on, two continuations of one stored response) report a defect of a shared turn alike,
    and it is kept in the first of them."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for f in findings:
        key = (f.code, f.severity, f.message, f.exchange, f.turn, f.part, f.pointer, f.chunk)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def preflight(body: dict[str, Any], target: str) -> list[Finding]:
    """The TD8xx target rules on a request body about to be written for `target` (a wire format or
    a profile such as `mistral`): what `convert` checks before it writes."""
    fmt = wire_format(target)
    loaded = load_bytes(f"<{target} request>", dumps(body), fmt)
    return run_checks(loaded, export_rules(target, ["TD8"]), target)


__all__ = ["RULES", "export_rules", "preflight", "run_checks", "select_rules"]
