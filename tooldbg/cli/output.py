"""What the commands print: every line from data through `echo` or `json_text`, every renderable
through `emit`, which mask credentials unless the command was told `--no-redact` (`redact`) and
escape what could act on the terminal; piped output is printed in whole lines."""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ..jsonio import dumps
from ..render import Line, clean, clean_json, guard, redaction

if TYPE_CHECKING:
    from rich.console import RenderableType

#: Width of the layouts that need one (`show`'s tables) when the output is not a terminal.
PIPE_WIDTH = 120
#: The widest line laid out for a pipe (a JSON excerpt wider than this wraps).
PIPE_MAX_WIDTH = 8192
#: Ids listed at most in one error line.
_LISTED = 12

def fail(message: str) -> NoReturn:
    echo(f"tooldbg: {message}", err=True)
    sys.exit(2)


# The output boundary: every line the CLI prints from data goes through `_echo` or `_json_text`
# (and every renderable through `_print`), which mask credentials unless the command was told
# `--no-redact` (`_redact`) and escape what could act on the terminal (`render`).

def redact(enabled: bool) -> None:
    """Mask credentials in everything the current command prints (or not, with `--no-redact`)."""
    click.get_current_context().with_resource(redaction(enabled))


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    click.echo(clean(text), err=err, nl=nl)


def json_text(doc: Any) -> str:
    return clean_json(dumps(doc, indent=True).decode()) + "\n"


def listing(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_LISTED])
    return shown + (f", … ({len(items) - _LISTED} more)" if len(items) > _LISTED else "")



# -- printing ---------------------------------------------------------------------------------------

#: Spaces at the end of a line, before any closing style codes.
_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def emit(renderables: Iterable[RenderableType], width: int | None = None) -> None:
    """Print to a terminal as rich lays it out; to anything else with every line whole: text is
    never wrapped, JSON excerpts are as wide as their longest line, only tables and panels (the
    layouts that need a width) are `width` columns wide, and no line ends in padding. Rich's
    console loads with the first renderable that needs laying out (`_plain`)."""
    if sys.stdout.isatty():
        from rich.console import Console

        console = Console(width=width, highlight=False, soft_wrap=False)
        for renderable in renderables:
            console.print(guard(renderable))
        return
    layout = width or columns() or PIPE_WIDTH
    buffer = io.StringIO()
    piped: Any = None
    for renderable in renderables:
        text = _plain(renderable)
        if text is None:
            if piped is None:
                from rich.console import Console

                piped = Console(file=buffer, width=PIPE_MAX_WIDTH, highlight=False, soft_wrap=True)
            piped.print(guard(renderable), width=pipe_width(piped, renderable, layout))
            text = buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        sys.stdout.write(_TRAILING.sub(r"\1", text))
    sys.stdout.flush()


def _plain(renderable: Any) -> str | None:
    """What rich prints for a report `Line` on a pipe, without importing rich (a short report, such
    as `check` on a clean file, is only `Line`s): its characters, cleaned in the runs rich draws as
    segments, as `guard` cleans them. None for what rich must lay out or colour: any other
    renderable, a tab (expanded to the next stop), or colour forced on a pipe."""
    if not isinstance(renderable, Line):
        return None
    plain = renderable.plain
    if "\t" in plain or os.environ.keys() & {"FORCE_COLOR", "TTY_COMPATIBLE"}:
        return None
    # Rich draws a `Line` as `Text.assemble(*runs)`, a span per styled run, and each line of it apart
    # (`Text.wrap`, then `Text.join`): a segment ends where a styled run starts or ends within a line.
    styled, at = [], 0
    for text, style in renderable.runs:
        if style:
            styled.append((at, at + len(text)))
        at += len(text)
    cuts = {0, len(plain)}
    first = 0
    for last in [*(at for at, char in enumerate(plain) if char == "\n"), len(plain)]:
        for start, end in styled:
            if max(start, first) < min(end, last):
                cuts.update((max(start, first), min(end, last)))
        first = last + 1
    return "".join(clean(plain[start:end]) for start, end in pairwise(sorted(cuts))) + "\n"


def columns() -> int | None:
    value = os.environ.get("COLUMNS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def pipe_width(console: Any, renderable: Any, layout: int) -> int:
    from rich.measure import Measurement
    from rich.text import Text

    if _made_by(renderable, "rich.table", "Table") or _made_by(renderable, "rich.panel", "Panel"):
        return layout
    if _made_by(renderable, "rich.rule", "Rule"):
        title = renderable.title
        length = title.cell_len if isinstance(title, Text) else len(str(title))
        return max(layout, min(length + 8, PIPE_MAX_WIDTH))
    if isinstance(renderable, Line | Text):
        return layout  # soft-wrapped: printed whole whatever the width
    needed = Measurement.get(console, console.options, renderable).maximum
    return max(layout, min(needed, PIPE_MAX_WIDTH))


def _made_by(renderable: Any, module: str, name: str) -> bool:
    """`isinstance(renderable, module.name)` without importing the module: a class of a module
    nobody imported made nothing (so `check`, which draws no table, does not load rich.table)."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(renderable, getattr(loaded, name))
