"""The `tooldbg` command: a thin click layer over the library.

Exit codes everywhere: 0 success, 1 findings, 2 usage error or unreadable input — always with one
line on stderr naming the file and location, never a traceback (set TOOLDBG_DEBUG=1 to see one).

Conversation ids: each file numbers its conversations `c1`, `c2`, … When several files are read
(a folder, or several FILE arguments) a conversation is named `FILE#c1`, FILE as printed in the
output; `--conversation` takes that, any trailing part of it that names one file (`run.har#c1`),
or the bare `c1` when only one file has a `c1`.

Output that is not a terminal is never hard-wrapped: each line is printed whole. Only the layouts
that need a width (the side-by-side tables of `show`) are laid out in `--width` columns (default:
$COLUMNS, else 120).
"""

from __future__ import annotations

import difflib
import io
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from . import __version__, formats
from .convert import TARGETS, check_writable, export, write_atomically
from .errors import InputError, ToolDbgError
from .jsonio import dumps
from .load import Loaded, load, load_bytes
from .model import CANONICAL_FORMAT, Conversation
from .render import clean, clean_json, guard, redaction
from .targets import PROFILES

if TYPE_CHECKING:
    from rich.console import RenderableType

    from .checks import Rule

INPUT_FORMATS = click.Choice(list(formats.WIRE_FORMATS))
#: How standard input is named in messages and reports (`-` on the command line).
STDIN = "<stdin>"
#: Width of the layouts that need one (`show`'s tables) when the output is not a terminal.
PIPE_WIDTH = 120
#: The widest line laid out for a pipe (a JSON excerpt wider than this wraps).
PIPE_MAX_WIDTH = 8192
#: An unknown first word shaped like this is a mistyped command, not a file to open.
_COMMAND_WORD = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
#: Ids listed at most in one error line.
_LISTED = 12


def bundled_samples() -> tuple[Path, Path]:
    """The logs shipped inside the package, opened when no file is given: an on-call agent whose
    failed tool result was replayed without its `is_error` flag (TD303), and a clean capture of the
    official anthropic client (two parallel calls, one failing)."""
    samples = files("tooldbg") / "samples"
    return (Path(str(samples / "oncall-agent-lost-is-error.jsonl")),
            Path(str(samples / "weather-agent.jsonl")))


def bundled_sample() -> Path:
    """The clean bundled capture (what `convert` examples and tests use)."""
    return bundled_samples()[1]


def fail(message: str) -> NoReturn:
    _echo(f"tooldbg: {message}", err=True)
    sys.exit(2)


# The output boundary: every line the CLI prints from data goes through `_echo` or `_json_text`
# (and every renderable through `_print`), which mask credentials unless the command was told
# `--no-redact` (`_redact`) and escape what could act on the terminal (`render`).

def _redact(enabled: bool) -> None:
    """Mask credentials in everything the current command prints (or not, with `--no-redact`)."""
    click.get_current_context().with_resource(redaction(enabled))


def _echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    click.echo(clean(text), err=err, nl=nl)


def _json_text(doc: Any) -> str:
    return clean_json(dumps(doc, indent=True).decode()) + "\n"


def _listing(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_LISTED])
    return shown + (f", … ({len(items) - _LISTED} more)" if len(items) > _LISTED else "")


class NoSuchCommand(click.UsageError):
    """A mistyped or unknown command: its message already says what there is."""


class DefaultGroup(click.Group):
    """`tooldbg FILE…` means `tooldbg open FILE…`; a word that is neither a command nor an existing
    path, and looks like a command name, is reported as an unknown command."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            word = args[0]
            if not os.path.lexists(word) and _COMMAND_WORD.fullmatch(word):
                close = difflib.get_close_matches(word, list(self.commands), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise NoSuchCommand(f"no such command '{word}'{hint} (commands: "
                                    f"{', '.join(self.commands)}; no file or folder '{word}' either)")
            args.insert(0, "open")
        return super().resolve_command(ctx, args)


@click.group(cls=DefaultGroup, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tooldbg")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Debug multi-turn LLM tool-call transcripts: read raw provider logs, see every turn in one
    canonical form beside its wire JSON, convert between provider formats with every loss stated."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(open_command, files=())


# -- reading inputs ---------------------------------------------------------------------------------

def _read(paths: Sequence[str], input_format: str | None) -> list[Loaded]:
    """Every input, `-` being standard input; a path that does not exist is an input with an error
    (so `check` still reports the others)."""
    if list(paths).count("-") > 1:
        fail("standard input (-) given more than once")
    out: list[Loaded] = []
    for path in paths:
        if path == "-":
            out.append(load_bytes(STDIN, sys.stdin.buffer.read(), input_format))
        elif not os.path.exists(path):
            out.append(Loaded(path, "unknown", errors=[InputError(path, "", "no such file or folder")]))
        else:
            out.extend(load([path], input_format))
    for item in out:
        if not item.errors and not item.conversations and not any(r.format for r in item.reads):
            item.errors.append(InputError(item.path, "", "no LLM exchange found"))
    return out


def _unreadable(loaded: list[Loaded]) -> str | None:
    """The one-line summary for exit code 2, or None when every input was read in full."""
    bad = [item for item in loaded if item.errors]
    if not bad:
        return None
    first = bad[0].errors[0]
    errors = sum(len(item.errors) for item in bad)
    if len(loaded) == 1 and errors == 1:
        return str(first)
    return (f"{len(bad)} of {len(loaded)} input{'s' if len(loaded) != 1 else ''} unreadable or without "
            f"an LLM exchange ({errors} error{'s' if errors != 1 else ''}); first: {first}")


def _load(paths: Sequence[str], input_format: str | None) -> list[Loaded]:
    """The inputs of `show` and `convert`: exit 2 when nothing at all could be read."""
    loaded = _read(paths, input_format)
    if all(not item.conversations for item in loaded):
        fail(_unreadable(loaded) or f"{', '.join(paths)}: no conversation found")
    return loaded


def _report_errors(loaded: list[Loaded]) -> None:
    for item in loaded:
        for err in item.errors:
            _echo(f"tooldbg: warning: {err}", err=True)


# -- conversation ids -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Named:
    """A conversation and the id it has on the command line (`c1`, or `FILE#c1` with several files)."""

    name: str
    loaded: Loaded
    conversation: Conversation


def named(loaded: list[Loaded]) -> list[Named]:
    qualify = len(loaded) > 1
    return [Named(f"{item.path}#{c.id}" if qualify else c.id, item, c)
            for item in loaded for c in item.conversations]


def _names_file(path: str, given: str) -> bool:
    """`given` is the file's path as printed, the same path spelled otherwise, or a trailing part of
    it made of whole names (`run.har`, `logs/run.har`)."""
    return path == given or path.endswith("/" + given) or \
        os.path.normpath(path) == os.path.normpath(given) or \
        os.path.abspath(path) == os.path.abspath(given)


def _matches(candidate: Named, wanted: str) -> bool:
    """`c1` matches every `…#c1`; `FILE#c1` matches when FILE names the candidate's file."""
    if "#" not in wanted:
        return candidate.name.endswith("#" + wanted)
    file, _, conversation = wanted.rpartition("#")
    for full in (candidate.name, f"{candidate.loaded.path}#{candidate.conversation.id}"):
        path, _, own = full.rpartition("#")
        if own == conversation and path and _names_file(path, file):
            return True
    return False


def pick(loaded: list[Loaded], wanted: str) -> Named:
    """The one conversation `wanted` names, or a usage error listing the valid ids."""
    every = named(loaded)
    found = [n for n in every if wanted in (n.name, n.conversation.id)] or \
        [n for n in every if _matches(n, wanted)]
    if len(found) == 1:
        return found[0]
    if found:
        fail(f"conversation '{wanted}' is in {len(found)} files; say which: "
             f"{_listing([n.name for n in found])}")
    fail(f"no conversation '{wanted}'; the conversations are: {_listing([n.name for n in every])}")


# -- commands ---------------------------------------------------------------------------------------

@cli.command("open")
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
def open_command(files: tuple[str, ...], input_format: str | None) -> None:
    """Open FILES (default: the bundled sample) in the interactive debugger."""
    from .tui.app import make_app

    paths = files or tuple(map(str, bundled_samples()))
    for path in paths:
        if not Path(path).exists():
            fail(f"{path}: no such file or folder")
    make_app(paths, input_format).run()


@cli.command()
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--conversation", "conversation_id",
              help="Only this conversation: c1, or FILE#c1 when several files are read.")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--no-redact", is_flag=True, help="Show API keys and tokens unmasked.")
@click.option("--width", type=click.IntRange(min=20),
              help="Width of the side-by-side layout (default: the terminal's; piped: $COLUMNS or 120).")
def show(files: tuple[str, ...], conversation_id: str | None, input_format: str | None,
         no_redact: bool, width: int | None) -> None:
    """Print each turn's canonical parts beside the wire JSON they came from. FILE may be - (standard
    input). Exit 2 when an input is unreadable (after printing the rest)."""
    from .show import render_loaded

    _redact(not no_redact)
    loaded = _load(files or tuple(map(str, bundled_samples())), input_format)
    labels = {(n.loaded.path, n.conversation.id): n.name for n in named(loaded)}
    if conversation_id is not None:
        chosen = pick(loaded, conversation_id)
        shown = render_loaded(chosen.loaded, chosen.conversation.id, labels=labels)
    else:
        shown = (r for item in loaded for r in render_loaded(item, None, labels=labels))
    _print(shown, width)
    problem = _unreadable(loaded)
    if problem is not None:
        fail(problem)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("--to", "target", type=click.Choice([*TARGETS, *PROFILES]), required=True,
              help="Format to write (a profile such as mistral: its wire format, checked for its limits).")
@click.option("-o", "--output", type=click.Path(),
              help="Write here (a new path or a regular file) instead of stdout.")
@click.option("--conversation", "conversation_id",
              help="Which conversation, when there are several: c1, or FILE#c1 for a folder.")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="json: one document with the body and the losses.")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it is an existing file.")
@click.option("--no-redact", is_flag=True, help="Keep API keys and tokens unmasked.")
def convert(file: str, target: str, output: str | None, conversation_id: str | None,
            input_format: str | None, output_format: str, force: bool, no_redact: bool) -> None:
    """Re-serialize FILE (- for standard input): the canonical document, or the request body that
    replays one conversation in another provider's format. Losses go to stderr, one line each."""
    _redact(not no_redact)
    inputs = [Path(file)] if file != "-" else []
    if output:
        check_writable(Path(output), inputs=inputs, force=force)
    loaded = _load([file], input_format)
    _report_errors(loaded)
    every = named(loaded)
    if conversation_id is not None:
        chosen = [pick(loaded, conversation_id)]
    elif target != "canonical" and len(every) > 1:
        fail(f"{file}: {len(every)} conversations ({_listing([n.name for n in every])}); "
             "pick one with --conversation")
    else:
        chosen = every
    # Ids written are the ones the user sees: FILE#c1 when a folder's files are merged.
    conversations = [replace(n.conversation, id=n.name) if n.name != n.conversation.id else n.conversation
                     for n in chosen]
    result = export(conversations, target)
    for loss in result.losses:
        _echo(f"loss: {chosen[0].name} {loss}", err=True)
    rejected = False
    if target != "canonical":
        from .checks import preflight

        for finding in preflight(result.body, target):
            rejected = rejected or finding.severity == "error"
            _echo(f"preflight: {finding.code} {finding.severity} {finding.name}: "
                  f"{finding.message} at {finding.pointer}", err=True)
    if output_format == "json":
        doc = {"tooldbg": __version__, "target": target,
               "conversations": [n.name for n in chosen],
               "losses": [loss.to_dict() for loss in result.losses], "body": result.body}
        text = _json_text(doc)
    else:
        text = result.text(redact=not no_redact)
    if output:
        write_atomically(Path(output), text, inputs=inputs, force=force)
    else:
        click.echo(text, nl=False)
    if rejected:
        sys.exit(1)


def _codes(values: tuple[str, ...]) -> list[str]:
    """`--select TD1,TD303 --select TD5` → ["TD1", "TD303", "TD5"], upper-cased."""
    return [c.strip().upper() for v in values for c in v.split(",") if c.strip()]


def _code_ranges(rules: Iterable[Rule]) -> str:
    """`TD101-TD108, TD201-TD207, …`: the codes, one range per family."""
    families: dict[str, list[str]] = {}
    for rule in rules:
        families.setdefault(rule.code[:3], []).append(rule.code)
    return ", ".join(f"{c[0]}-{c[-1]}" if len(c) > 1 else c[0] for c in families.values())


def _rules(select: tuple[str, ...], ignore: tuple[str, ...], target: str | None) -> list[Rule]:
    """The rules `--select`/`--ignore` leave; a code, prefix or rule name that names no rule is a
    usage error listing the valid codes."""
    from .checks import RULES, select_rules

    by_name = {rule.name.upper(): rule.code for rule in RULES.values()}
    chosen: dict[str, list[str]] = {}
    for option, values in (("--select", select), ("--ignore", ignore)):
        codes = chosen[option] = [by_name.get(code, code) for code in _codes(values)]
        for code in codes:
            matching = [rule for rule in RULES.values() if rule.code.startswith(code)]
            if not matching:
                fail(f"{option} {code}: no rule has this code or prefix (codes: "
                     f"{_code_ranges(RULES.values())}; a prefix such as TD3, or a name; "
                     "see `tooldbg rules`)")
            if option == "--select" and target is None and all(rule.target for rule in matching):
                fail(f"--select {code}: target rules check a provider's limits and run only with "
                     "--target FORMAT")
            if option == "--select" and all(rule.diff for rule in matching):
                fail(f"--select {code}: TD7xx rules compare two logs; run `tooldbg diff A B`")
    return select_rules(chosen["--select"], chosen["--ignore"], target)


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github"]),
              default="text", help="text (grouped, with the offending JSON), json, or GitHub annotations.")
@click.option("--select", multiple=True, help="Only these codes, prefixes or names (TD1, TD303, …).")
@click.option("--ignore", multiple=True, help="Skip these codes, prefixes or names.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error",
              help="Exit 1 when a finding at or above this severity is found.")
@click.option("--target", type=click.Choice(list(formats.WIRE_FORMATS) + list(PROFILES)),
              help="Also check that this provider would accept the conversation (TD8xx).")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--no-redact", is_flag=True, help="Show API keys and tokens unmasked.")
def check(files: tuple[str, ...], output_format: str, select: tuple[str, ...], ignore: tuple[str, ...],
          fail_on: str, target: str | None, input_format: str | None, no_redact: bool) -> None:
    """Find tool-call defects in FILES (- for standard input). Exit 0 clean, 1 findings at or above
    --fail-on, 2 when an input is unreadable or holds no LLM exchange (after reporting the rest)."""
    _redact(not no_redact)
    from .checks import run_checks, severity_rank
    from .report import Checked, github, text_report, to_json

    rules = _rules(select, ignore, target)
    loaded = _read(files, input_format)
    results = [Checked(item, run_checks(item, rules, target)) for item in loaded]
    if output_format == "json":
        click.echo(_json_text(to_json(results)), nl=False)
    elif output_format == "github":
        for line in github(results):
            _echo(line)
    else:
        _print(text_report(results))
    problem = _unreadable(loaded)
    if problem is not None:
        fail(problem)
    threshold = None if fail_on == "never" else severity_rank(fail_on)
    found = [f for r in results for f in r.findings]
    if threshold is not None and any(severity_rank(f.severity) >= threshold for f in found):
        sys.exit(1)


@cli.command("diff")
@click.argument("a", type=click.Path())
@click.argument("b", type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="text (each difference with both sides' JSON), or the check document with sides.")
@click.option("--no-redact", is_flag=True, help="Show API keys and tokens unmasked.")
def diff_command(a: str, b: str, output_format: str, no_redact: bool) -> None:
    """Compare two logs of the same conversation: A the client's side, B the upstream side of a relay
    (any formats; either may be - for standard input). Each difference is reported with its code
    (TD701-TD704) and the side it is on, beside both files' own findings. Exit 0 when they agree, 1 on
    differences (or an error-severity finding of either file), 2 when an input is unreadable."""
    _redact(not no_redact)
    from .diff import diff
    from .report import diff_json, diff_text

    if a == "-" and b == "-":
        fail("standard input (-) given more than once")
    loaded = [_one_log(a), _one_log(b)]
    result = diff(*loaded)
    if output_format == "json":
        click.echo(_json_text(diff_json(result)), nl=False)
    else:
        _print(diff_text(result))
    problem = _unreadable(loaded)
    if problem is not None:
        fail(problem)
    if result.findings or any(f.severity == "error" for f in result.own):
        sys.exit(1)


def _one_log(path: str) -> Loaded:
    """One side of `diff`: a file, standard input, or a folder holding one log."""
    loaded = _read([path], None)
    if len(loaded) != 1:
        fail(f"{path}: diff compares two logs, and this folder holds {len(loaded)} "
             f"({_listing([item.path for item in loaded])}); give one file per side")
    return loaded[0]


@cli.command()
@click.argument("code", required=False)
def rules(code: str | None) -> None:
    """The rule catalogue, or one rule explained with a bad and a good example."""
    from .checks import RULES
    from .report import rule_doc, rule_list

    if code is None:
        _print(rule_list(list(RULES.values())))
        return
    rule = RULES.get(code.upper()) or next((r for r in RULES.values() if r.name == code.lower()), None)
    if rule is None:
        fail(f"no rule '{code}' (codes: {_code_ranges(RULES.values())}; see `tooldbg rules`)")
    _print(rule_doc(rule))


# -- printing ---------------------------------------------------------------------------------------

#: Spaces at the end of a line, before any closing style codes.
_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def _print(renderables: Iterable[RenderableType], width: int | None = None) -> None:
    """Print to a terminal as rich lays it out; to anything else with every line whole: text is
    never wrapped, JSON excerpts are as wide as their longest line, only tables and panels (the
    layouts that need a width) are `width` columns wide, and no line ends in padding."""
    from rich.console import Console

    if sys.stdout.isatty():
        console = Console(width=width, highlight=False, soft_wrap=False)
        for renderable in renderables:
            console.print(guard(renderable))
        return
    layout = width or _columns() or PIPE_WIDTH
    buffer = io.StringIO()
    console = Console(file=buffer, width=PIPE_MAX_WIDTH, highlight=False, soft_wrap=True)
    for renderable in renderables:
        console.print(guard(renderable), width=_pipe_width(console, renderable, layout))
        sys.stdout.write(_TRAILING.sub(r"\1", buffer.getvalue()))
        buffer.seek(0)
        buffer.truncate()
    sys.stdout.flush()


def _columns() -> int | None:
    value = os.environ.get("COLUMNS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def _pipe_width(console: Any, renderable: Any, layout: int) -> int:
    from rich.measure import Measurement
    from rich.panel import Panel
    from rich.rule import Rule
    from rich.table import Table
    from rich.text import Text

    if isinstance(renderable, (Table, Panel)):
        return layout
    if isinstance(renderable, Rule):
        title = renderable.title
        length = title.cell_len if isinstance(title, Text) else len(str(title))
        return max(layout, min(length + 8, PIPE_MAX_WIDTH))
    if isinstance(renderable, Text):
        return layout  # soft-wrapped: printed whole whatever the width
    needed = Measurement.get(console, console.options, renderable).maximum
    return max(layout, min(needed, PIPE_MAX_WIDTH))


@cli.command("formats")
def formats_command() -> None:
    """List the formats and containers tooldbg reads and writes."""
    from .records.containers import CONTAINERS

    for name in formats.WIRE_FORMATS:
        hints = ", ".join(formats.get(name).URL_HINTS)
        click.echo(f"{name:18} read+write  request, response, stream   endpoints: {hints}")
    click.echo(f"{'canonical':18} read+write  {CANONICAL_FORMAT}")
    click.echo(f"{'standard input':18} read        give - as FILE (check, show, convert)")
    click.echo(f"containers: {', '.join(CONTAINERS)}, folder")


def main(argv: Sequence[str] | None = None) -> NoReturn:
    try:
        code = cli.main(args=list(argv) if argv is not None else None, prog_name="tooldbg",
                        standalone_mode=False)
    except NoSuchCommand as err:
        fail(err.format_message())
    except click.UsageError as err:
        where = err.ctx.command_path if err.ctx is not None else "tooldbg"
        fail(f"{_sentence(err.format_message())} (see `{where} --help`)")
    except click.ClickException as err:
        fail(_sentence(err.format_message()))
    except click.Abort:
        click.echo("tooldbg: interrupted", err=True)
        sys.exit(130)
    except ToolDbgError as err:
        fail(str(err))
    except Exception as err:  # noqa: BLE001 - the contract: never a traceback
        if os.environ.get("TOOLDBG_DEBUG"):
            raise
        fail(f"internal error: {type(err).__name__}: {err} (TOOLDBG_DEBUG=1 shows the traceback)")
    sys.exit(code if isinstance(code, int) else 0)


def _sentence(message: str) -> str:
    """click's message on one line, without its capital and full stop (ours have neither)."""
    message = " ".join(message.split())
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    return message.removesuffix(".")
