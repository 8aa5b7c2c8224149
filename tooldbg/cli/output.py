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
from ..render import clean, clean_json, guard, redaction

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
    """What rich prints for a `Text` on a pipe, without loading its console (a short report, such
    as `check` on a clean file, is only `Text`): its characters, cleaned in the runs rich draws as
    segments, as `guard` cleans them. None for what rich must lay out or colour: any other
    renderable, a tab (expanded to the next stop), a justified text, or colour forced on a pipe."""
    rich_text = sys.modules.get("rich.text")
    if rich_text is None or type(renderable) is not rich_text.Text or renderable.justify is not None \
            or renderable.end != "\n" or "\t" in renderable.plain \
            or os.environ.keys() & {"FORCE_COLOR", "TTY_COMPATIBLE"}:
        return None
    plain, spans = renderable.plain, renderable.spans
    # A segment ends where a style starts or ends; rich styles each line apart (`Text.join`): the
    # text's own style, and a span that crosses a newline, end there.
    cuts = {0, len(plain), *(min(max(at, 0), len(plain)) for span in spans for at in (span.start, span.end))}
    at = plain.find("\n")
    while at != -1:
        if renderable.style or any(span.start <= at < span.end for span in spans):
            cuts.update((at, at + 1))
        at = plain.find("\n", at + 1)
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
    if isinstance(renderable, Text):
        return layout  # soft-wrapped: printed whole whatever the width
    needed = Measurement.get(console, console.options, renderable).maximum
    return max(layout, min(needed, PIPE_MAX_WIDTH))


def _made_by(renderable: Any, module: str, name: str) -> bool:
    """`isinstance(renderable, module.name)` without importing the module: a class of a module
    nobody imported made nothing (so `check`, which draws no table, does not load rich.table)."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(renderable, getattr(loaded, name))
