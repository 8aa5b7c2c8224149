"""The oracle: one input through everything a user can make tooldbg do with it.

Library paths run in process (they are what the CLI and the TUI call): `load_bytes` must never
raise; checks, reports, `show`, the exports and their pre-flight may raise only tooldbg's own
documented errors (`ToolDbgError`), each a single line. Every error a file reports names the file
and is one line. The CLI commands run through click's `CliRunner`: exit codes are 0, 1 or 2, and
neither output holds "internal error" or "Traceback". The TUI's loader is the function its worker
runs (`tooldbg.tui.session.load_session`), and what the TUI computes for its views (the search
index, the wire lines of a turn as logged and re-serialized, stream fragments).

`exercise` returns the problems found (an empty list: the input is handled).
"""

from __future__ import annotations

import gc
import io
import os
import random
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from rich.console import Console

from tooldbg import formats
from tooldbg.checks import preflight, run_checks, select_rules
from tooldbg.cli import cli
from tooldbg.convert import export
from tooldbg.errors import BUG, ToolDbgError
from tooldbg.formats.profiles import PROFILES, wire_format
from tooldbg.jsonio import dumps
from tooldbg.load import Loaded, load_bytes
from tooldbg.report import github, text_report
from tooldbg.scan import Checked, to_json
from tooldbg.show import render_loaded

TARGETS = (*formats.WIRE_FORMATS, *PROFILES)
#: Longest error line accepted: messages quote values shortened, never whole.
MAX_ERROR = 1000
#: Longest finding message accepted (a finding quotes at most a few values).
MAX_MESSAGE = 2000


#: How many times each stage ran to its end (scripts/fuzz.py prints it: how far mutants reach).
REACHED: Counter[str] = Counter()


@dataclass(frozen=True, slots=True)
class Problem:
    stage: str
    kind: str  # the exception type, or the broken invariant
    message: str
    trace: str = ""

    @property
    def signature(self) -> str:
        """Stage, kind and the innermost tooldbg frame: one signature per distinct crash site."""
        where = ""
        for line in self.trace.splitlines():
            line = line.strip()
            if line.startswith('File "') and "/tooldbg/" in line and "/tests/" not in line:
                path, _, rest = line[6:].partition('", line ')
                where = f"{path.rsplit('/tooldbg/', 1)[-1]}:{rest.split(',')[0]}"
        return f"{self.stage}-{self.kind}-{where}".replace("/", ".")


class _Run:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def call(self, stage: str, fn: Callable[[], Any], *, documented: bool = False) -> tuple[bool, Any]:
        """`fn()`; an exception is a problem unless it is a documented ToolDbgError of one line."""
        try:
            value = fn()
            REACHED[stage.split("-")[0]] += 1
            return True, value
        except ToolDbgError as err:
            if not documented:
                self.problems.append(Problem(stage, type(err).__name__, _short(str(err)),
                                             traceback.format_exc()))
            else:
                self.error_line(stage, str(err))
            return False, None
        except Exception as err:  # noqa: BLE001 - what the fuzzer is looking for
            self.problems.append(Problem(stage, type(err).__name__, _short(str(err)),
                                         traceback.format_exc()))
            return False, None

    def error_line(self, stage: str, line: str, path: str | None = None) -> None:
        if BUG in line:
            self.problems.append(Problem(stage, "caught-by-the-net", _short(line)))
        elif "\n" in line or "\r" in line:
            self.problems.append(Problem(stage, "multi-line-error", _short(line)))
        elif len(line) > MAX_ERROR:
            self.problems.append(Problem(stage, "long-error", _short(line)))
        elif path is not None and not line.startswith(path):
            self.problems.append(Problem(stage, "error-without-file", _short(line)))


def _short(text: str) -> str:
    return text if len(text) < 300 else text[:300] + "…"


def _console() -> Console:
    return Console(file=io.StringIO(), width=100, force_terminal=True, color_system="standard",
                   highlight=False, soft_wrap=False)


@contextmanager
def debugging() -> Iterator[None]:
    """TOOLDBG_DEBUG=1: the nets that turn an unexpected exception into a reported record
    (`errors.unexpected`) raise it instead, so the fuzzer sees it with its traceback."""
    before = os.environ.get("TOOLDBG_DEBUG")
    os.environ["TOOLDBG_DEBUG"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["TOOLDBG_DEBUG"]
        else:
            os.environ["TOOLDBG_DEBUG"] = before


def exercise(name: str, data: bytes, rng: random.Random, *, show: bool = True, cli_commands: bool = False,
             tui: bool = False) -> list[Problem]:
    with debugging():
        return _exercise(name, data, rng, show=show, cli_commands=cli_commands, tui=tui)


def _exercise(name: str, data: bytes, rng: random.Random, *, show: bool, cli_commands: bool,
              tui: bool) -> list[Problem]:
    run = _Run()
    input_format = rng.choice(formats.WIRE_FORMATS) if rng.random() < 0.15 else None
    ok, loaded = run.call("load", lambda: load_bytes(name, data, input_format))
    if not ok:
        return run.problems
    assert isinstance(loaded, Loaded)
    REACHED["loaded a conversation"] += bool(loaded.conversations)
    REACHED["reported an error"] += bool(loaded.errors)
    for err in loaded.errors:
        run.error_line("load", str(err), name)
    target = rng.choice(TARGETS)
    ok, findings = run.call("check", lambda: run_checks(loaded))
    run.call("check-target", lambda: run_checks(loaded, select_rules(target=target), target))
    if ok:
        for finding in findings:
            if len(finding.message) > MAX_MESSAGE:
                run.problems.append(Problem("check", f"long-message-{finding.code}", _short(finding.message)))
        results = [Checked(loaded, findings)]
        run.call("report-json", lambda: dumps(to_json(results), indent=True))
        run.call("report-github", lambda: list(github([r.report() for r in results])))
        if show and rng.random() < 0.5:  # the text report draws what show draws: half the time
            run.call("report-text", lambda: _print(text_report(results)))
    if show:
        run.call("show", lambda: _print(render_loaded(loaded)))
    _convert(run, loaded, rng)
    if ok:
        run.call("tui-session", lambda: _session(loaded, findings))
        run.call("tui-views", lambda: _views(loaded, findings, rng))
    if tui or cli_commands:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / Path(name).name
            path.write_bytes(data)
            if tui:
                _tui_loader(run, path)
            if cli_commands:
                _cli(run, path, rng, input_format)
    return run.problems


def _print(renderables: Any) -> None:
    console = _console()
    for renderable in renderables:
        console.print(renderable)


def _convert(run: _Run, loaded: Loaded, rng: random.Random) -> None:
    conversations = loaded.conversations[:2]
    if not conversations:
        return
    ok, doc = run.call("convert-canonical", lambda: export(conversations, "canonical"))
    if ok:
        ok, text = run.call("convert-canonical-text", lambda: doc.text())
        if ok:
            ok, back = run.call("canonical-reload", lambda: load_bytes("back.json", text.encode()))
            if ok and back.errors:
                run.problems.append(Problem("canonical-reload", "unreadable-canonical",
                                            _short(str(back.errors[0]))))
    for conv in conversations:
        for target in rng.sample(TARGETS, 3):
            ok, result = run.call(f"convert-{target}",
                                  lambda conv=conv, target=target: export([conv], wire_format(target)),
                                  documented=True)
            if ok:
                run.call(f"convert-text-{target}", lambda result=result: result.text())
                run.call(f"preflight-{target}", lambda result=result, target=target:
                         preflight(result.body, target), documented=True)


def _session(loaded: Loaded, findings: list[Any]) -> None:
    from tooldbg.tui.session import Location, Session

    session = Session([loaded], findings)
    for conv in loaded.conversations:
        for turn in range(len(conv.turns)):
            session.turn(Location(0, conv.id, turn))
    for finding in findings:
        session.location_of(finding)


def _views(loaded: Loaded, findings: list[Any], rng: random.Random) -> None:
    """What the TUI computes off screen for what it shows: the search index, the wire lines of a
    few turns (source, a re-serialization, stream fragments)."""
    from tooldbg.reserialize import Reserializer
    from tooldbg.tui.screens.search import SearchIndex
    from tooldbg.tui.session import Session
    from tooldbg.tui.widgets.wire_lines import format_body, fragments_body, source_body

    SearchIndex.build(Session([loaded], findings)).find("a")
    target = rng.choice(formats.WIRE_FORMATS)
    for conv in loaded.conversations[:2]:
        for index, turn in enumerate(conv.turns[:4]):
            s = turn.source
            source_body(loaded.wire_at(s.exchange, s.side, s.pointer, s.chunk))
            format_body(Reserializer().turn(conv, index, target))
    for read in loaded.reads[:4]:
        if read.exchange.response is not None and read.exchange.response.events:
            fragments_body(read.exchange.response.events)


def _tui_loader(run: _Run, path: Path) -> None:
    from tooldbg.tui.session import load_session

    try:
        ok, outcome = run.call("tui-loader", lambda: load_session([str(path)], None, None))
    finally:
        gc.unfreeze()  # Session.load freezes the heap for the app's lifetime; here it ends at once
    if ok and outcome.error is not None:
        run.error_line("tui-loader", outcome.error)


def stderr_problems(stage: str, stderr: str) -> list[Problem]:
    """What a command's stderr says went wrong in tooldbg: its net's "internal error", or a traceback
    where Python prints one, at the start of a line — not the log's own text, which stdout shows and
    a line of stderr may quote (convert's list of what the target would lose quotes a tool result
    holding a traceback: seed 10, input 33690)."""
    problems = []
    if "tooldbg: internal error" in stderr:
        problems.append(Problem(stage, "error", _short(stderr)))
    if any(line.startswith("Traceback (most recent call last)") for line in stderr.splitlines()):
        problems.append(Problem(stage, "last)", _short(stderr)))
    return problems


def _cli(run: _Run, path: Path, rng: random.Random, input_format: str | None) -> None:
    commands = [["check", "--format", rng.choice(("text", "json", "github"))],
                ["check", "--target", rng.choice(TARGETS), "--format", "json"],
                ["show", "--width", "100"],
                ["convert", "--to", rng.choice((*TARGETS, "canonical"))]]
    runner = CliRunner()
    for command in commands:
        args = [*command, str(path)]
        if input_format is not None:
            args += ["--input-format", input_format]
        result = runner.invoke(cli, args, catch_exceptions=True)
        stage = "cli-" + command[0]
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            trace = "".join(traceback.format_exception(result.exception))
            run.problems.append(Problem(stage, type(result.exception).__name__,
                                        _short(str(result.exception)), trace))
            continue
        if result.exit_code not in (0, 1, 2):
            run.problems.append(Problem(stage, f"exit-{result.exit_code}", _short(result.output)))
        run.problems.extend(stderr_problems(stage, result.stderr))
        if result.exit_code == 2:
            lines = [ln for ln in result.stderr.splitlines() if ln.startswith("tooldbg: ")
                     and not ln.startswith("tooldbg: warning")]
            for line in lines:
                run.error_line(stage, line)
