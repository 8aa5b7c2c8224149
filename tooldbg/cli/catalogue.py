"""`tooldbg rules` and `tooldbg formats`: what tooldbg checks, reads and writes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

from .. import formats
from ..model import CANONICAL_FORMAT
from .output import emit, fail

if TYPE_CHECKING:
    from ..checks.base import Rule


def code_ranges(rules: Iterable[Rule]) -> str:
    """`TD101-TD108, TD201-TD207, …`: the codes, one range per family."""
    families: dict[str, list[str]] = {}
    for rule in rules:
        families.setdefault(rule.code[:3], []).append(rule.code)
    return ", ".join(f"{c[0]}-{c[-1]}" if len(c) > 1 else c[0] for c in families.values())


@click.command("rules")
@click.argument("code", required=False)
def rules_command(code: str | None) -> None:
    """The rule catalogue, or one rule explained with a bad and a good example."""
    from ..checks import RULES
    from ..report import rule_doc, rule_list

    if code is None:
        emit(rule_list(list(RULES.values())))
        return
    rule = RULES.get(code.upper()) or next((r for r in RULES.values() if r.name == code.lower()), None)
    if rule is None:
        fail(f"no rule '{code}' (codes: {code_ranges(RULES.values())}; see `tooldbg rules`)")
    emit(rule_doc(rule))


@click.command("formats")
def formats_command() -> None:
    """List the formats and containers tooldbg reads and writes."""
    from ..records.containers import CONTAINERS

    for name in formats.WIRE_FORMATS:
        hints = ", ".join(formats.get(name).URL_HINTS)
        click.echo(f"{name:18} read+write  request, response, stream   endpoints: {hints}")
    click.echo(f"{'canonical':18} read+write  {CANONICAL_FORMAT}")
    click.echo(f"{'standard input':18} read        give - as FILE (check, show, convert)")
    click.echo(f"containers: {', '.join(CONTAINERS)}, folder")
