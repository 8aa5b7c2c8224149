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

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from pkgutil import resolve_name
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .. import __version__, formats
from ..errors import ToolDbgError
from ..formats.profiles import PROFILES, wire_format
from ..load import Loaded
from ..shorten import plain
from .catalogue import code_ranges
from .inputs import (
    INPUT_FORMATS,
    choose,
    load_inputs,
    named,
    pick,
    read_inputs,
    report_errors,
    stdin_once,
    unreadable,
)
from .output import echo, emit, fail, json_text, listing, redact
from .repairs import at_place, fix_chosen, fix_written, record_line, refuse_blanks

if TYPE_CHECKING:
    from ..checks.base import Rule
    from ..repair import Fixed
    from ..repair.base import Refusal
    from ..scan import Checked

#: An unknown first word shaped like this is a mistyped command, not a file to open.
_COMMAND_WORD = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def bundled_samples() -> tuple[Path, Path]:
    """The logs shipped inside the package, opened when no file is given: an on-call agent whose
    failed tool result was replayed without its `is_error` flag (TD303), and a clean capture of the
    official anthropic client (two parallel calls, one failing)."""
    from importlib.resources import files

    samples = files("tooldbg") / "samples"
    return (Path(str(samples / "oncall-agent-lost-is-error.jsonl")),
            Path(str(samples / "weather-agent.jsonl")))


def bundled_sample() -> Path:
    """The clean bundled capture (what `convert` examples and tests use)."""
    return bundled_samples()[1]


class NoSuchCommand(click.UsageError):
    """A mistyped or unknown command: its message already says what there is."""


class DefaultGroup(click.Group):
    """`tooldbg FILE…` means `tooldbg open FILE…`; a word that is neither a command nor an existing
    path, and looks like a command name, is reported as an unknown command. The commands in `LATER`
    (name → `module:attribute`) are listed after the others, and their module (with the tables their
    options name) is imported when one is asked for or listed by `--help`, not on every start-up."""
    LATER = {"probe": "tooldbg.cli.probe:probe_command", "repro": "tooldbg.cli.repro:repro_command",
             "rules": "tooldbg.cli.catalogue:rules_command",
             "formats": "tooldbg.cli.catalogue:formats_command"}

    def _names(self) -> list[str]:
        return [*self.commands, *(name for name in self.LATER if name not in self.commands)]

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._names())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LATER and cmd_name not in self.commands:
            self.add_command(resolve_name(self.LATER[cmd_name]), cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        names = self._names()
        if args and args[0] not in names and not args[0].startswith("-"):
            word = args[0]
            if not os.path.lexists(word) and _COMMAND_WORD.fullmatch(word):
                import difflib

                close = difflib.get_close_matches(word, names, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise NoSuchCommand(f"no such command '{word}'{hint} (commands: "
                                    f"{', '.join(names)}; no file or folder '{word}' either)")
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


# -- commands ---------------------------------------------------------------------------------------

@cli.command("open")
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--follow", is_flag=True,
              help="FILE is a JSON Lines recording another process appends to (tooldbg record): show "
                   "each exchange as it is appended.")
def open_command(files: tuple[str, ...], input_format: str | None, follow: bool) -> None:
    """Open FILES (default: the bundled sample) in the interactive debugger."""
    from ..tui.app import make_app

    if follow and len(files) != 1:
        fail("--follow: give the one file to follow")
    paths = files or tuple(map(str, bundled_samples()))
    for path in paths:
        if not Path(path).exists() and not follow:
            fail(f"{path}: no such file or folder")
        if follow and Path(path).is_dir():
            fail(f"{path}: --follow reads one JSON Lines file, not a folder")
    make_app(paths, input_format, follow=follow).run()


@cli.command(context_settings={"ignore_unknown_options": False, "allow_interspersed_args": False})
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="The JSON Lines file each exchange is appended to.")
@click.option("--upstream", metavar="URL",
              help="Forward every request here (the request's path is appended). Default: by path — "
                   "/v1/messages to Anthropic, /v1/chat/completions and /v1/responses to OpenAI, "
                   "/v1beta/models/… to Gemini.")
@click.option("--listen", metavar="HOST:PORT",
              help="Where to listen (default 127.0.0.1:8788; with a COMMAND, a free port).")
@click.option("--allow-remote", is_flag=True, help="Allow --listen on an address that is not loopback.")
@click.option("--open", "open_tui", is_flag=True, help="Show the session in the debugger as it is recorded.")
@click.option("--keep-secrets", is_flag=True,
              help="Write API keys and tokens unmasked (they are forwarded either way).")
@click.option("--append", is_flag=True, help="Add to an existing OUTPUT.")
@click.option("--force", is_flag=True, help="Replace an existing OUTPUT.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=600.0, show_default=True,
              help="Seconds to wait for the provider to connect or send more (then 502).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def record(output: Path, upstream: str | None, listen: str | None, allow_remote: bool, open_tui: bool,
           keep_secrets: bool, append: bool, force: bool, timeout: float, command: tuple[str, ...]) -> None:
    """Record an agent's LLM traffic: a reverse proxy on loopback forwards each request to its
    provider, passes streams on as they arrive, and appends each exchange to OUTPUT (JSON Lines,
    flushed to disk as it completes; keys masked). With `-- COMMAND ARG…`, run COMMAND with
    OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL (and the like) pointing at the proxy,
    and exit with its exit code. Without, serve until Ctrl-C, one line per exchange on stderr."""
    from .recording import record_session

    sys.exit(record_session(output, upstream, listen, allow_remote, open_tui, keep_secrets, append, force,
                            timeout, command))


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
    from ..show import render_loaded

    redact(not no_redact)
    loaded = load_inputs(files or tuple(map(str, bundled_samples())), input_format)
    labels = {(n.loaded.path, n.conversation.id): n.name for n in named(loaded)}
    if conversation_id is not None:
        chosen = pick(loaded, conversation_id)
        shown = render_loaded(chosen.loaded, chosen.conversation.id, labels=labels)
    else:
        shown = (r for item in loaded for r in render_loaded(item, None, labels=labels))
    emit(shown, width)
    problem = unreadable(loaded)
    if problem is not None:
        fail(problem)


@cli.command()
@click.argument("file", type=click.Path())
@click.option("--to", "target", type=click.Choice([*formats.TARGETS, *PROFILES]), required=True,
              help="Format to write (a profile such as mistral: its wire format, checked for its limits).")
@click.option("-o", "--output", type=click.Path(),
              help="Write here (a new path or a regular file) instead of stdout.")
@click.option("--conversation", "conversation_id",
              help="Which conversation, when there are several: c1, or FILE#c1 for a folder.")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="json: one document with the body and the losses.")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it is an existing file.")
@click.option("--fix", "repair", is_flag=True,
              help="Make the safe repairs first (as `tooldbg fix` does), each listed on stderr.")
@click.option("--keep-orphans", is_flag=True, help="With --fix: keep results that answer no call, as text.")
@click.option("--model", help="The model the export names (the log's otherwise; Gemini and Bedrock take it "
                              "in the URL, not the body).")
@click.option("--no-redact", is_flag=True, help="Keep API keys and tokens unmasked.")
def convert(file: str, target: str, output: str | None, conversation_id: str | None,
            input_format: str | None, output_format: str, force: bool, repair: bool, keep_orphans: bool,
            model: str | None, no_redact: bool) -> None:
    """Re-serialize FILE (- for standard input): the canonical document, or the request body that
    replays one conversation in another provider's format. Losses go to stderr, one line each.
    Nothing recorded is written empty: where the target cannot carry something as the log has it
    (arguments it would write as {}, a call or result it would leave out), convert stops (exit 1)
    naming the repair, which --fix makes. A body the target requires a model in (OpenAI, Anthropic)
    when the log names none and --model gives none is written with the loss line, and exit 1."""
    from ..convert import export  # the writers: only what writes loads them
    from ..writing import check_writable, write_atomically

    if model is not None and not model.strip():
        fail("--model: give a model name")
    redact(not no_redact)
    inputs = [Path(file)] if file != "-" else []
    if output:
        check_writable(Path(output), inputs=inputs, force=force)
    loaded = load_inputs([file], input_format)
    report_errors(loaded)
    chosen = choose(loaded, file, conversation_id, target)
    if repair:
        fixed = fix_chosen(chosen, target, keep_orphans=keep_orphans)
        for item in fixed:
            for record in item.records:
                echo(record_line(record), err=True)
        chosen = [replace(n, conversation=f.conversation) for n, f in zip(chosen, fixed, strict=True)]
    # Ids written are the ones the user sees: FILE#c1 when a folder's files are merged.
    conversations = [replace(n.conversation, id=n.name) if n.name != n.conversation.id else n.conversation
                     for n in chosen]
    result = export(conversations, target, model=model, allow_blanks=True, origins=True)
    if target != "canonical":  # before the losses: a body that is not written loses nothing
        refuse_blanks(chosen[0].name, target, result, fixed=repair)
    for loss in result.losses:
        echo(f"loss: {chosen[0].name} {loss}", err=True)
    if not repair:
        from ..guard import kept

        for line in kept(conversations[0], target):
            echo(f"note: {chosen[0].name} {line}", err=True)
    rejected = False
    if target != "canonical":
        from ..checks import preflight

        for finding in preflight(result.body, target):
            rejected = rejected or finding.severity == "error"
            echo(f"preflight: {finding.code} {finding.severity} {finding.name}: "
                  f"{finding.message} at {finding.pointer}", err=True)
    wire = formats.facts(wire_format(target)) if target != "canonical" else None
    if model is not None and wire is not None and wire.model_key is None:
        echo(f"note: {chosen[0].name} {wire.title} takes the model in the request URL, not the body: "
             f"{plain(model)}", err=True)
    if output_format == "json":
        doc = {"tooldbg": __version__, "target": target,
               "conversations": [n.name for n in chosen],
               "losses": [loss.to_dict() for loss in result.losses], "missing": list(result.missing),
               "body": result.body}
        text = json_text(doc)
    else:
        text = result.text(redact=not no_redact)
    if output:
        write_atomically(Path(output), text, inputs=inputs, force=force)
    else:
        click.echo(text, nl=False)
    if rejected or result.missing:
        sys.exit(1)


def _codes(values: tuple[str, ...]) -> list[str]:
    """`--select TD1,TD303 --select TD5` → ["TD1", "TD303", "TD5"], upper-cased."""
    return [c.strip().upper() for v in values for c in v.split(",") if c.strip()]


def _rules(select: tuple[str, ...], ignore: tuple[str, ...], target: str | None) -> list[Rule]:
    """The rules `--select`/`--ignore` leave; a code, prefix or rule name that names no rule is a
    usage error listing the valid codes."""
    from ..checks import RULES, select_rules

    if not select and not ignore:  # nothing to resolve: no rule is loaded only to be named
        return select_rules(target=target)
    by_name = {rule.name.upper(): rule.code for rule in RULES.values()}
    chosen: dict[str, list[str]] = {}
    for option, values in (("--select", select), ("--ignore", ignore)):
        codes = chosen[option] = [by_name.get(code, code) for code in _codes(values)]
        for code in codes:
            matching = [rule for rule in RULES.values() if rule.code.startswith(code)]
            if not matching:
                fail(f"{option} {code}: no rule has this code or prefix (codes: "
                     f"{code_ranges(RULES.values())}; a prefix such as TD3, or a name; "
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
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Check the files over this many local processes (the same report as one).")
@click.option("--scheduler", metavar="ADDRESS",
              help="Check the files on a Dask cluster (tcp://host:8786; pip install 'tooldbg[dask]').")
def check(files: tuple[str, ...], output_format: str, select: tuple[str, ...], ignore: tuple[str, ...],
          fail_on: str, target: str | None, input_format: str | None, no_redact: bool, jobs: int,
          scheduler: str | None) -> None:
    """Find tool-call defects in FILES (- for standard input). Exit 0 clean, 1 findings at or above
    --fail-on, 2 when an input is unreadable or holds no LLM exchange (after reporting the rest).
    Files of a folder that are not logs (a README, an image) are skipped and counted."""
    redact(not no_redact)
    from ..checks.base import severity_rank
    from ..scan import Options, check_files, dask_map, processes, skipped_line

    stdin_once(files)
    if scheduler and jobs > 1:
        fail("--jobs and --scheduler: choose one (the cluster's workers are the jobs)")
    options = Options(tuple(rule.code for rule in _rules(select, ignore, target)), target, input_format)
    stdin = sys.stdin.buffer.read() if "-" in files else None
    scan = check_files(files, options, map=dask_map(scheduler) if scheduler else processes(jobs),
                       stdin=stdin, logs=output_format == "text")  # the text report quotes the logs
    if output_format == "json":
        click.echo(json_text(scan.document()), nl=False)
    elif output_format == "github":
        from ..report import github

        for line in github(scan.reports):
            echo(line)
        said = skipped_line(scan.skipped, sum(r.skipped for r in scan.reports if r.conversations))
        if said:
            echo(f"tooldbg: {said}", err=True)
    else:
        from ..report import text_report

        emit(text_report(scan.results, scan.skipped))
    problem = unreadable(scan.reports)
    if problem is not None:
        fail(problem)
    threshold = None if fail_on == "never" else severity_rank(fail_on)
    found = [f for r in scan.reports for f in r.findings]
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
    (TD701-TD705) and the side it is on, beside both files' own findings. Exit 0 when they agree, 1 on
    differences (or an error-severity finding of either file), 2 when an input is unreadable."""
    redact(not no_redact)
    from ..diff import diff
    from ..report import diff_json, diff_text

    if a == "-" and b == "-":
        fail("standard input (-) given more than once")
    loaded = [_one_log(a), _one_log(b)]
    result = diff(*loaded)
    if output_format == "json":
        click.echo(json_text(diff_json(result)), nl=False)
    else:
        emit(diff_text(result))
    problem = unreadable(loaded)
    if problem is not None:
        fail(problem)
    if result.findings or any(f.severity == "error" for f in result.own):
        sys.exit(1)


def _one_log(path: str) -> Loaded:
    """One side of `diff`: a file, standard input, or a folder holding one log."""
    loaded = read_inputs([path], None)
    if len(loaded) != 1:
        fail(f"{path}: diff compares two logs, and this folder holds {len(loaded)} "
             f"({listing([item.path for item in loaded])}); give one file per side")
    return loaded[0]


@cli.command("fix")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", type=click.Path(),
              help="Write the repaired conversation here (a new path, or an existing file with --force).")
@click.option("--to", "target", type=click.Choice([*formats.TARGETS, *PROFILES]), default="canonical",
              show_default=True, help="Format to write (a profile: its wire format, fitted to its limits).")
@click.option("--only", multiple=True, help="Only repair findings of these codes or prefixes (TD2, TD303…).")
@click.option("--skip", multiple=True, help="Do not repair findings of these codes or prefixes.")
@click.option("--keep-orphans", is_flag=True, help="Keep results that answer no call, as user text.")
@click.option("--dry-run", is_flag=True,
              help="List the repairs and what check says after them; write nothing.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              help="json: the check document of the result, plus its repairs and refusals.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "never"]), default="error",
              help="Exit 1 when a finding at or above this severity remains after the repairs.")
@click.option("--conversation", "conversation_id",
              help="Only this conversation: c1, or FILE#c1 when several files are read.")
@click.option("--input-format", type=INPUT_FORMATS, help="Skip detection: read as this format.")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it is an existing file.")
@click.option("--no-redact", is_flag=True, help="Keep API keys and tokens unmasked.")
def fix_command(files: tuple[str, ...], output: str | None, target: str, only: tuple[str, ...],
                skip: tuple[str, ...], keep_orphans: bool, dry_run: bool, output_format: str, fail_on: str,
                conversation_id: str | None, input_format: str | None, force: bool, no_redact: bool) -> None:
    """Make the safe repairs of FILES (- for standard input), list each one, and write the repaired
    conversation: the canonical document, or with --to the request body that replays it. A repair
    that needs a guess is not made: it is listed with the reason. check (with --target when a wire
    format is written) then runs on the result; exit 0 only when nothing at or above --fail-on
    remains, 1 otherwise (or when the result could not be written without blanking recorded data)."""
    redact(not no_redact)
    from ..checks.base import severity_rank
    from ..repair import after_writing
    from ..scan import to_json
    from ..writing import check_writable, write_atomically

    selected = {"--only": _repair_codes("--only", only), "--skip": _repair_codes("--skip", skip)}
    inputs = [Path(f) for f in files if f != "-"]
    if output and not dry_run:
        check_writable(Path(output), inputs=inputs, force=force)
    loaded = load_inputs(files, input_format)
    report_errors(loaded)
    chosen = choose(loaded, ", ".join(files), conversation_id, target)
    fixed = fix_chosen(chosen, target, only=selected["--only"], skip=selected["--skip"],
                       keep_orphans=keep_orphans)
    where = output if output and not dry_run else ("<dry-run>" if dry_run else "<stdout>")
    fixed, result, text, blocked, results = fix_written(fixed, target, where, redact=not no_redact,
                                                        only=selected["--only"], skip=selected["--skip"],
                                                        keep_orphans=keep_orphans)
    remaining = [f for r in results for f in r.findings]
    threshold = None if fail_on == "never" else severity_rank(fail_on)
    refused = {(r.conversation, r.code) for f in fixed for r in f.refusals}
    late = []  # what check still finds on the result, at or above --fail-on, that no refusal explains
    for finding in remaining:
        name = finding.conversation or fixed[0].name
        if threshold is not None and severity_rank(finding.severity) >= threshold \
                and (name, finding.code) not in refused:
            refused.add((name, finding.code))
            late.append(after_writing(finding, target, name))
    failed = bool(blocked) or (threshold is not None and any(severity_rank(f.severity) >= threshold
                                                               for f in remaining))
    written = bool(output) and not dry_run and not blocked
    if output_format == "json":
        doc = to_json(results) if results else to_json([])
        doc.update({"target": target, "conversations": [f.name for f in fixed],
                    "repairs": [r.to_dict() for f in fixed for r in f.repairs],
                    "refusals": [r.to_dict() for r in (*(x for f in fixed for x in f.refusals), *late)],
                    "blocked": blocked, "output": output if written else None})
        if not output and not dry_run and not blocked:
            doc["body"] = result.body
        click.echo(json_text(doc), nl=False)
    else:
        err = not output and not dry_run  # the body goes to stdout: the report to stderr
        for f in fixed:
            for record in f.records:
                echo(record_line(record), err=err)
        for refusal in late:
            echo(record_line(refusal), err=err)
        for line in blocked:
            echo(f"not written: {line}", err=err)
        for finding in remaining:
            place = " ".join(x for x in (finding.conversation or "", at_place(finding.turn, finding.part)
                                         if finding.turn is not None else "") if x)
            echo(f"remains {finding.code} {finding.severity} {finding.name}: {place}"
                  f"{': ' if place else ''}{finding.message}", err=err)
        echo(_fix_summary(fixed, late, results, target, blocked, written, output, dry_run), err=err)
    if written:
        write_atomically(Path(output), text, inputs=inputs, force=force)  # type: ignore[arg-type]
    elif not output and not dry_run and not blocked and output_format == "text":
        click.echo(text, nl=False)
    if failed:
        sys.exit(1)


def _fix_summary(fixed: Sequence[Fixed], late: Sequence[Refusal], results: Sequence[Checked], target: str,
                 blocked: Sequence[str], written: bool, output: str | None, dry_run: bool) -> str:
    from ..scan import summary

    repairs = sum(len(f.repairs) for f in fixed)
    refusals = sum(len(f.refusals) for f in fixed) + len(late)
    line = (f"{repairs} repair{'s' if repairs != 1 else ''}, {refusals} not repaired")
    if blocked:
        many = len(blocked) != 1
        return (line + f"; not written: {target} cannot carry {len(blocked)} recorded value"
                f"{'s' if many else ''} without blanking {'them' if many else 'it'}")
    counts = summary(list(results))
    how = "check" + ("" if target == "canonical" else f" --target {target}")
    line += f"; {how} on the result: " + ", ".join(
        f"{n} {s}{'s' if n != 1 and s != 'info' else ''}" for s, n in counts.items())
    if dry_run:
        return line + "; nothing written (--dry-run)"
    return line + (f"; wrote {output}" if written else "")


def _repair_codes(option: str, values: tuple[str, ...]) -> list[str]:
    """`--only`/`--skip` codes or prefixes; one that names no rule is a usage error."""
    from ..checks import RULES

    by_name = {rule.name.upper(): rule.code for rule in RULES.values()}
    codes = [by_name.get(code, code) for code in _codes(values)]
    for code in codes:
        if not any(rule.startswith(code) for rule in RULES):
            fail(f"{option} {code}: no rule has this code or prefix (codes: {code_ranges(RULES.values())}; "
                 "see `tooldbg rules`)")
    return codes


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
