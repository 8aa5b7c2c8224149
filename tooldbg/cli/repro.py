"""`tooldbg repro`: the click layer over `tooldbg.repro` (the shrinking)."""

from __future__ import annotations

from pathlib import Path

import click

from .. import formats
from ..errors import InputError
from ..formats.profiles import PROFILES
from .catalogue import code_ranges
from .inputs import INPUT_FORMATS
from .output import echo, fail


@click.command("repro")
@click.argument("file", type=click.Path())
@click.option("--rule", "code", required=True, metavar="CODE", help="The finding to keep (TD303, …).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Write the shrunk log here (a new path, or an existing file with --force).")
@click.option("--target", type=click.Choice(list(formats.WIRE_FORMATS) + list(PROFILES)),
              help="For a TD8xx rule: the provider whose limits it checks.")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--max-checks", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Stop shrinking after this many checks of a candidate (the file so far is written).")
@click.option("--no-redact", is_flag=True, help="Keep API keys and tokens in OUTPUT unmasked.")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it is an existing file.")
def repro_command(file: str, code: str, output: Path, target: str | None, input_format: str | None,
                  max_checks: int, no_redact: bool, force: bool) -> None:
    """Shrink FILE to a small log that still shows the finding of rule CODE, credentials masked: a
    payload for a bug report. Records, list items and keys are removed and long strings cut while
    `check` still reports CODE; the result keeps FILE's format (JSON Lines, HAR, a JSON body).
    Exit 0 when written, 2 when FILE does not show CODE or cannot be read."""
    from ..checks import RULES
    from ..repro import shrink
    from ..writing import check_writable, write_atomically

    code = code.strip().upper()
    if code not in RULES:
        fail(f"--rule {code}: no rule has this code (codes: {code_ranges(RULES.values())}; "
             "see `tooldbg rules`)")
    rule = RULES[code]
    if rule.diff:
        fail(f"--rule {code}: TD7xx rules compare two logs; shrink each side with a rule `check` reports")
    if rule.target and target is None:
        fail(f"--rule {code}: target rules check a provider's limits and run only with --target FORMAT")
    source = Path(file)
    try:
        check_writable(output, inputs=[source], force=force)
        data = source.read_bytes()
    except InputError as err:
        fail(str(err))
    except OSError as err:
        fail(f"{file}: cannot be read ({err.strerror or err})")
    shrunk = shrink(file, data, code, target=target, input_format=input_format, budget=max_checks,
                    mask=not no_redact)
    write_atomically(output, shrunk.text, inputs=[source], force=force)
    size = len(shrunk.text.encode("utf-8"))
    line = (f"{code} reproduced in {output}: {shrunk.records} of {shrunk.records_before} record"
            f"{'s' if shrunk.records_before != 1 else ''}, {_size(size)} of {_size(shrunk.size_before)}, "
            f"{shrunk.checks} check{'s' if shrunk.checks != 1 else ''}")
    if shrunk.exhausted:
        line += f" (stopped at --max-checks {max_checks}: a smaller log may exist)"
    echo(line + ("" if no_redact else "; credentials masked"))
    if not shrunk.shown:
        echo(f"tooldbg: masking the credentials in {output} hid its {code} finding; "
             "--no-redact writes the log that shows it", err=True)


def _size(count: int) -> str:
    """Bytes as people read them: `812 bytes`, `4.1 kB`, `2.3 MB` (decimal units)."""
    if count < 1000:
        return f"{count} bytes"
    value = count / 1000
    for unit in ("kB", "MB"):
        if value < 1000:
            return f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"
