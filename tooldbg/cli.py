"""The `tooldbg` command: a thin click layer over the library.

Exit codes everywhere: 0 success, 1 findings, 2 usage error or unreadable input — always with one
line on stderr naming the file and location, never a traceback (set TOOLDBG_DEBUG=1 to see one).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any, NoReturn

import click

from . import __version__, formats
from .convert import TARGETS, check_writable, export, write_atomically
from .errors import ToolDbgError
from .jsonio import dumps
from .load import Loaded, load
from .model import CANONICAL_FORMAT
from .render import clean, clean_json, guard, redaction
from .targets import PROFILES

INPUT_FORMATS = click.Choice(list(formats.WIRE_FORMATS))


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


class DefaultGroup(click.Group):
    """`tooldbg FILE…` means `tooldbg open FILE…`."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
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


def _load(paths: Sequence[str], input_format: str | None) -> list[Loaded]:
    loaded = load(paths, input_format)
    if all(not item.conversations for item in loaded):
        errors = [err for item in loaded for err in item.errors]
        fail(str(errors[0]) if errors else f"{', '.join(paths)}: no conversation found")
    return loaded


def _report_errors(loaded: list[Loaded]) -> None:
    for item in loaded:
        for err in item.errors:
            _echo(f"tooldbg: warning: {err}", err=True)


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
@click.option("--conversation", "conversation_id", help="Only this conversation (e.g. c1).")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--no-redact", is_flag=True, help="Show API keys and tokens unmasked.")
@click.option("--width", type=int, help="Output width (default: the terminal's).")
def show(files: tuple[str, ...], conversation_id: str | None, input_format: str | None,
         no_redact: bool, width: int | None) -> None:
    """Print each turn's canonical parts beside the wire JSON they came from."""
    _show(files or tuple(map(str, bundled_samples())), conversation_id, input_format, not no_redact,
          width)


def _show(paths: Sequence[str], conversation_id: str | None, input_format: str | None,
          redact: bool, width: int | None) -> None:
    from .show import render_loaded

    loaded = _load(paths, input_format)
    with redaction(redact):
        _print((r for item in loaded for r in render_loaded(item, conversation_id)), width)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("--to", "target", type=click.Choice([*TARGETS, *PROFILES]), required=True,
              help="Format to write (a profile such as mistral: its wire format, checked for its limits).")
@click.option("-o", "--output", type=click.Path(), help="Write here instead of stdout.")
@click.option("--conversation", "conversation_id", help="Which conversation, when there are several.")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="json: one document with the body and the losses.")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
@click.option("--no-redact", is_flag=True, help="Keep API keys and tokens unmasked.")
def convert(file: str, target: str, output: str | None, conversation_id: str | None,
            input_format: str | None, output_format: str, force: bool, no_redact: bool) -> None:
    """Re-serialize FILE: the canonical document, or the request body that replays one
    conversation in another provider's format. Losses go to stderr, one line each."""
    _redact(not no_redact)
    if output:
        check_writable(Path(output), inputs=[Path(file)], force=force)
    loaded = _load([file], input_format)
    _report_errors(loaded)
    conversations = [c for item in loaded for c in item.conversations]
    if conversation_id is not None:
        conversations = [c for c in conversations if c.id == conversation_id]
        if not conversations:
            fail(f"{file}: no conversation {conversation_id!r}")
    elif target != "canonical" and len(conversations) > 1:
        ids = ", ".join(c.id for c in conversations)
        fail(f"{file}: {len(conversations)} conversations ({ids}); pick one with --conversation")
    result = export(conversations, target)
    for loss in result.losses:
        _echo(f"loss: {conversations[0].id} {loss}", err=True)
    rejected = False
    if target != "canonical":
        from .checks import preflight

        for finding in preflight(result.body, target):
            rejected = rejected or finding.severity == "error"
            _echo(f"preflight: {finding.code} {finding.severity} {finding.name}: "
                  f"{finding.message} at {finding.pointer}", err=True)
    if output_format == "json":
        doc = {"tooldbg": __version__, "target": target,
               "conversations": [c.id for c in conversations],
               "losses": [loss.to_dict() for loss in result.losses], "body": result.body}
        text = _json_text(doc)
    else:
        text = result.text(redact=not no_redact)
    if output:
        write_atomically(Path(output), text, inputs=[Path(file)], force=force)
    else:
        click.echo(text, nl=False)
    if rejected:
        sys.exit(1)


def _codes(values: tuple[str, ...]) -> list[str]:
    """`--select TD1,TD303 --select TD5` → ["TD1", "TD303", "TD5"], upper-cased."""
    return [c.strip().upper() for v in values for c in v.split(",") if c.strip()]


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["text", "json", "github"]),
              default="text", help="text (grouped, with the offending JSON), json, or GitHub annotations.")
@click.option("--select", multiple=True, help="Only these codes or prefixes (TD1, TD303, …).")
@click.option("--ignore", multiple=True, help="Skip these codes or prefixes.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error",
              help="Exit 1 when a finding at or above this severity is found.")
@click.option("--target", type=click.Choice(list(formats.WIRE_FORMATS) + list(PROFILES)),
              help="Also check that this provider would accept the conversation (TD8xx).")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--no-redact", is_flag=True, help="Show API keys and tokens unmasked.")
def check(files: tuple[str, ...], output_format: str, select: tuple[str, ...], ignore: tuple[str, ...],
          fail_on: str, target: str | None, input_format: str | None, no_redact: bool) -> None:
    """Find tool-call defects in FILES. Exit 0 clean, 1 findings at or above --fail-on, 2 unreadable."""
    _redact(not no_redact)
    from .checks import run_checks, select_rules, severity_rank
    from .report import Checked, github, text_report, to_json

    loaded = load(files, input_format)
    if all(not item.reads and not item.conversations for item in loaded):
        errors = [err for item in loaded for err in item.errors]
        fail(str(errors[0]) if errors else f"{', '.join(files)}: nothing to check")
    rules = select_rules(_codes(select), _codes(ignore), target)
    results = [Checked(item, run_checks(item, rules, target)) for item in loaded]
    if output_format == "json":
        click.echo(_json_text(to_json(results)), nl=False)
    elif output_format == "github":
        for line in github(results):
            _echo(line)
    else:
        _print(text_report(results))
    threshold = None if fail_on == "never" else severity_rank(fail_on)
    found = [f for r in results for f in r.findings]
    if threshold is not None and any(severity_rank(f.severity) >= threshold for f in found):
        sys.exit(1)


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
        fail(f"no rule {code!r} (see `tooldbg rules`)")
    _print(rule_doc(rule))


def _print(renderables: Any, width: int | None = None) -> None:
    from rich.console import Console

    console = Console(width=width, highlight=False, soft_wrap=False)
    for renderable in renderables:
        console.print(guard(renderable))


@cli.command("formats")
def formats_command() -> None:
    """List the formats and containers tooldbg reads and writes."""
    from .records.containers import CONTAINERS

    for name in formats.WIRE_FORMATS:
        hints = ", ".join(formats.get(name).URL_HINTS)
        click.echo(f"{name:18} read+write  request, response, stream   endpoints: {hints}")
    click.echo(f"{'canonical':18} read+write  {CANONICAL_FORMAT}")
    click.echo(f"containers: {', '.join(CONTAINERS)}, folder")


def main(argv: Sequence[str] | None = None) -> None:
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="tooldbg",
                 standalone_mode=True)
    except ToolDbgError as err:
        fail(str(err))
    except Exception as err:  # noqa: BLE001 - the contract: never a traceback
        if os.environ.get("TOOLDBG_DEBUG"):
            raise
        fail(f"internal error: {type(err).__name__}: {err} (TOOLDBG_DEBUG=1 shows the traceback)")
