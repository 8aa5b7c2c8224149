"""`tooldbg fix` and `convert --fix`: the chosen conversations repaired, each repair as one line, and
the refusal to write an empty value in place of recorded data."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .output import echo

if TYPE_CHECKING:
    from ..checks.base import Finding
    from ..convert import Export
    from ..repair import Fixed
    from ..repair.base import Record
    from ..scan import Checked
    from .inputs import Named

def fix_chosen(chosen: Sequence[Named], target: str, *, only: Sequence[str] = (), skip: Sequence[str] = (),
         keep_orphans: bool = False) -> list[Fixed]:
    """The chosen conversations repaired (check runs once per file)."""
    from ..checks import run_checks, select_rules
    from ..checks.base import Context
    from ..repair import fix_conversation

    rule_target = None if target == "canonical" else target
    per_file: dict[int, tuple[list[Finding], Context]] = {}
    out = []
    for n in chosen:
        if id(n.loaded) not in per_file:
            per_file[id(n.loaded)] = (run_checks(n.loaded, select_rules(target=rule_target), rule_target),
                                      Context(n.loaded, target=rule_target))
        findings, context = per_file[id(n.loaded)]
        out.append(fix_conversation(n.loaded, n.conversation, target=rule_target, findings=findings,
                                    only=only, skip=skip, keep_orphans=keep_orphans, name=n.name,
                                    context=context))
    return out


def fix_written(fixed: list[Fixed], target: str, where: str, *, redact: bool, only: Sequence[str] = (),
                skip: Sequence[str] = (), keep_orphans: bool = False) \
        -> tuple[list[Fixed], Export, str, list[str], list[Checked]]:
    """What `fix` writes (`repair.write_fixed`): the conversations as last repaired, the export, its
    text, the lines of what it would blank (nothing checked then), the check of the result."""
    from ..repair import write_fixed

    out = write_fixed(fixed, target, where, redact=redact, only=only, skip=skip, keep_orphans=keep_orphans)
    blocked = [] if target == "canonical" else blank_lines(fixed[0].name, out.export)
    return out.fixed, out.export, out.text, blocked, [out.checked] if out.checked is not None else []


def at_place(turn: int | None, part: int | None) -> str:
    from ..wording import at

    return at(turn, part)


def record_line(record: Record) -> str:
    """`repair TD201 c1 turn 1 part 1: before → after`, or `not repaired TD107 c1 turn 2 part 0: why`."""
    from ..repair.base import Repair

    where = f"{record.code} {record.conversation} {at_place(record.turn, record.part)}"
    if isinstance(record, Repair):
        return f"repair {where}: {record.before} → {record.after}"
    return f"not repaired {where}: {record.reason}"


def blank_lines(name: str, result: Export) -> list[str]:
    """What `export` found it would write empty (`Export.blanks`), one line each."""
    return [f"{name} {blank}" for blank in result.blanks]


def refuse_blanks(name: str, target: str, result: Export, *, fixed: bool) -> None:
    """Stop (exit 1, nothing written) when the body would hold an empty value in place of recorded
    content, naming the repair that prevents it."""
    lines = blank_lines(name, result)
    if not lines:
        return
    for line in lines:
        echo(f"tooldbg: {line}", err=True)
    hint = ("no safe repair exists for it" if fixed else
            "run with --fix (or `tooldbg fix`) to make the repairs named")
    echo(f"tooldbg: not written: {target} cannot carry {len(lines)} recorded value"
          f"{'s' if len(lines) != 1 else ''} as the log has {'them' if len(lines) != 1 else 'it'}, and "
          f"tooldbg never writes an empty value in its place; {hint}", err=True)
    sys.exit(1)
