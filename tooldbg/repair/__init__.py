"""`tooldbg fix`: the safe repairs of a canonical conversation, each one listed.

    fixed = fix_conversation(loaded, conversation, target="anthropic")
    fixed.conversation   # the repaired conversation (the input is never changed)
    fixed.repairs        # Repair(code, conversation, turn, part, before, after), in the order made
    fixed.refusals       # Refusal(code, conversation, turn, part, reason): what needed a guess

`check` runs first (with the target's TD8xx rules when one is written); every finding whose code has
a repair (`registry.REPAIRS`, one function per repair, run in the table's order) gets it, using the
log as evidence; a finding whose code has none (`registry.NO_REPAIR`) is listed with the reason.
What is written can show what the conversation did not (a target's writer merges turns, fits ids):
`refix` repairs the result as read back, as `fix` would repair it if run on its own output, so
`fix` of `fix`'s output has nothing left to repair.
`guard.blanks` is what `convert` and the export dialog ask before writing: where the target would
get an empty value in place of recorded content, and the repair that prevents it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..checks import run_checks, select_rules
from ..checks.base import Context, Finding
from ..errors import unexpected
from ..load import Loaded
from ..model import Conversation
from .base import Log, Record, Refusal, Repair

if TYPE_CHECKING:
    from ..convert import Export
    from ..scan import Checked

__all__ = ["ROUNDS", "Fixed", "Rewritten", "after_writing", "fix_conversation", "refix", "wanted",
           "write_fixed"]

#: Said of a finding whose code no repair knows (a rule added after this table).
UNKNOWN = "no repair is known for this finding"


@dataclass(frozen=True, slots=True)
class Fixed:
    """One conversation repaired: as read, as repaired, and every record, in the order made.
    `errors` says which repairs raised (a bug in tooldbg; each is also a refusal the user sees), so
    the tests can fail on a crash that would otherwise read as "not repaired"."""

    name: str
    original: Conversation
    conversation: Conversation
    records: tuple[Record, ...] = ()
    errors: tuple[str, ...] = ()

    @property
    def repairs(self) -> list[Repair]:
        return [r for r in self.records if isinstance(r, Repair)]

    @property
    def refusals(self) -> list[Refusal]:
        return [r for r in self.records if isinstance(r, Refusal)]


def wanted(code: str, only: Sequence[str] = (), skip: Sequence[str] = ()) -> bool:
    """Is `code` repaired under `--only` / `--skip` (codes or prefixes)?"""
    return (not only or code.startswith(tuple(only))) and not (skip and code.startswith(tuple(skip)))


def _target(target: str | None) -> str | None:
    return None if target in (None, "canonical") else target


def fix_conversation(loaded: Loaded, conversation: Conversation, *, target: str | None = None,
                     findings: Iterable[Finding] | None = None, only: Sequence[str] = (),
                     skip: Sequence[str] = (), keep_orphans: bool = False, name: str | None = None,
                     context: Context | None = None) -> Fixed:
    """`conversation` (of `loaded`) with every safe repair made for the findings of `check` on it —
    `findings` when given (the file's; only this conversation's are used), else computed, with
    `target`'s TD8xx rules when it is a wire format or profile."""
    from .registry import BY_CODE, NO_REPAIR, REPAIRS  # every repair: loaded by the first fix

    target = _target(target)
    if findings is None:
        findings = run_checks(loaded, select_rules(target=target), target)
    own = tuple(f for f in findings if f.conversation == conversation.id)
    log = Log(loaded, conversation, own, target, keep_orphans, name or conversation.id,
              context if context is not None else Context(loaded, target=target))
    found = {f.code for f in own if wanted(f.code, only, skip)}
    conv = conversation
    records: list[Record] = []
    errors: list[str] = []
    for codes, repair in REPAIRS:
        if found.intersection(codes):
            try:
                outcome = repair(conv, log)
            except Exception as err:  # noqa: BLE001 - a bug in one repair leaves the conversation as it was
                for code in sorted(found.intersection(codes)):
                    reason = unexpected(err, "the repair failed on this log and changed nothing",
                                        f"the {code} repair")
                    records.append(log.refuse(code, None, None, reason))
                    errors.append(reason)
                continue
            conv = outcome.conversation
            records.extend(outcome.records)
    for f in own:
        if f.code in found and f.code not in BY_CODE:
            records.append(log.refuse(f.code, f.turn, f.part, NO_REPAIR.get(f.code, UNKNOWN)))
    return Fixed(log.name, conversation, conv, tuple(records), tuple(errors))


#: The repair rounds `fix` makes at most: the conversation, then what check finds in what was written,
#: once more; what a further round would still repair is listed as not repaired (`after_writing`).
ROUNDS = 3


def refix(fixed: Sequence[Fixed], written: Loaded, findings: Iterable[Finding], *,
          target: str | None = None, only: Sequence[str] = (), skip: Sequence[str] = (),
          keep_orphans: bool = False) -> list[Fixed] | None:
    """Another round: each conversation of `written` (what `fixed` wrote, read back, in the same
    order) repaired for `findings` (check of it); each `Fixed` keeps the records of the rounds before,
    then this round's repairs and its refusals of codes not refused before. None when this round
    repairs nothing (or `written` does not hold one conversation for each)."""
    if len(written.conversations) != len(fixed):
        return None
    findings = list(findings)
    context = Context(written, target=_target(target))
    out, repaired = [], False
    for before, conversation in zip(fixed, written.conversations, strict=True):
        now = fix_conversation(written, conversation, target=target, findings=findings, only=only, skip=skip,
                               keep_orphans=keep_orphans, name=before.name, context=context)
        repaired = repaired or bool(now.repairs)
        refused = {r.code for r in before.refusals}
        records = (*before.records, *now.repairs, *(r for r in now.refusals if r.code not in refused))
        errors = (*before.errors, *now.errors)
        out.append(Fixed(before.name, before.original, now.conversation, records, errors))
    return out if repaired else None


@dataclass(frozen=True, slots=True)
class Rewritten:
    """What `write_fixed` wrote: the conversations as last repaired, the export and its text, and the
    check of that text read back (None when the export would blank recorded values: not checked)."""

    fixed: list[Fixed]
    export: Export
    text: str
    checked: Checked | None


def write_fixed(fixed: list[Fixed], target: str, where: str, *, redact: bool = True,
                only: Sequence[str] = (), skip: Sequence[str] = (), keep_orphans: bool = False) -> Rewritten:
    """What `fix`, `convert --fix` and the debugger's export with repairs write: the repaired
    conversations written for `target`, read back (named `where`) and checked with its rules — and
    repaired again while that finds what a repair mends (`refix`, `ROUNDS` at most)."""
    from ..checks import export_rules
    from ..convert import export
    from ..formats.profiles import wire_format
    from ..load import load_bytes
    from ..scan import Checked

    rule_target = _target(target)
    for round_ in range(1, ROUNDS + 1):
        result = export([replace(f.conversation, id=f.name) for f in fixed], target, allow_blanks=True,
                        origins=True)
        text = result.text(redact=redact)
        if target != "canonical" and result.blanks:
            return Rewritten(fixed, result, text, None)
        checked = load_bytes(where, text.encode(), None if rule_target is None else wire_format(target))
        found = run_checks(checked, export_rules(rule_target), rule_target)
        again = refix(fixed, checked, found, target=rule_target, only=only, skip=skip,
                      keep_orphans=keep_orphans) if round_ < ROUNDS else None
        if again is None:
            if rule_target is not None:  # the written body holds the one conversation chosen: its name
                found = [replace(f, conversation=fixed[0].name) if f.conversation else f for f in found]
            return Rewritten(fixed, result, text, Checked(checked, found))
        fixed = again
    raise AssertionError("unreachable: the last round returns")


def after_writing(finding: Finding, target: str, name: str) -> Refusal:
    """A finding `check` still makes on the written result, as a refusal saying why fix left it."""
    from .registry import NO_REPAIR  # (as `fix_conversation`)

    if finding.code in NO_REPAIR:
        reason = NO_REPAIR[finding.code]
    elif finding.code == "TD404":
        reason = (f"a turn {target} cannot carry; repairing it would mean inventing a turn or merging two")
    else:
        reason = "the repairs made do not remove it, and no other safe repair does"
    where = "written" if target == "canonical" else f"written for {target}"
    return Refusal(finding.code, name, finding.turn, finding.part, f"found once {where}: {reason}")
