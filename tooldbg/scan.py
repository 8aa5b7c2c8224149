"""`check` over many files, on one core, several, or a Dask cluster — always the same result.

`check_files(paths, map=...)` reads and checks each file on its own (a file is the unit of work: its
exchanges are stitched together, so it is never split) and gathers the results in input order, so
the document `document()` builds is byte for byte the serial run's whichever `map` ran the files:
the built-in `map` (one process), `processes(n)` (a local process pool) or `dask_map(address)` (the
workers of a Dask cluster; `pip install 'tooldbg[dask]'`). Every worker reads the files by path:
on a cluster, they must be readable at the same path on every worker (a shared filesystem).

The documented JSON document of `check --format json` (`document`) lives here too, so writing it
needs neither rich nor the text report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .errors import InputError
from .load import Loaded, load_bytes, load_file, load_found
from .records.sniff import iter_files, looks_like_log

if TYPE_CHECKING:
    from .checks.base import Finding

#: How standard input is named in messages and reports (`-` on the command line).
STDIN = "<stdin>"
#: What a file holding no LLM exchange is reported as.
NO_EXCHANGE = "no LLM exchange found"
#: What a file named on the command line that is text but no capture is reported as.
NOT_A_LOG = f"{NO_EXCHANGE}: not JSON, JSON Lines, server-sent events or an AWS event stream"

#: `map(function, items)`: any callable that applies `function` to each item and returns the results
#: in the items' order (the built-in `map`, `processes(n)`, `dask_map(address)`).
Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]


@dataclass(slots=True)
class Checked:
    """One input, read and checked."""

    loaded: Loaded
    findings: list[Finding] = field(default_factory=list)

    def report(self) -> Report:
        loaded = self.loaded
        entry = {"path": loaded.path, "container": loaded.container, "formats": loaded.formats,
                 "exchanges": len(loaded.reads), "conversations": len(loaded.conversations),
                 "errors": [{"location": e.location, "message": e.message} for e in loaded.errors],
                 "skipped": loaded.skipped, "lacks": list(loaded.lacks)}
        return Report(loaded.path, entry, tuple(self.findings), tuple(loaded.errors), loaded.skipped,
                      bool(loaded.conversations))


@dataclass(frozen=True, slots=True)
class Report:
    """What the JSON document and the annotations say of one input: its `inputs[]` entry, findings
    and errors. What a worker sends back unless the logs themselves are wanted (the text report
    quotes their JSON): a `Loaded` holds every parsed body, and costs more to send than to check."""

    path: str
    entry: dict[str, Any]
    findings: tuple[Finding, ...]
    errors: tuple[InputError, ...]
    skipped: int  # entries in no provider's format
    conversations: bool


@dataclass(slots=True)
class Scan:
    """What `check_files` found: each input's report in order (and with `logs=True` each input
    read and checked), and the files of folders left out because their content is not a log."""

    reports: list[Report] = field(default_factory=list)
    results: list[Checked] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def document(self) -> dict[str, Any]:
        return document(self.reports, self.skipped)


@dataclass(frozen=True, slots=True)
class Options:
    """What every worker needs to check a file: plain values, so they travel to other processes."""

    codes: tuple[str, ...] | None = None  # the rules to run (None: every rule for `target`)
    target: str | None = None
    input_format: str | None = None


@dataclass(frozen=True, slots=True)
class Task:
    """One file to check: `found` when a folder walk found it (then skipped if it is not a log)."""

    path: str
    found: bool = False


def tasks(paths: Sequence[str]) -> list[Task]:
    """The files `paths` name, in order: a file as given, a folder's files in name order."""
    out: list[Task] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            out.extend(Task(str(file), found=True) for file in iter_files(Path(path)))
        else:
            out.append(Task(path))
    return out


def check_files(paths: Sequence[str], options: Options = Options(), *, map: Mapper = map,
                stdin: bytes | None = None, logs: bool = False) -> Scan:
    """Read and check every file `paths` name (`-` is `stdin`, read here, not sent to a worker),
    `map` spreading the files over its workers; the result is the serial run's whatever `map` is.
    With `logs`, the workers send back each file as read (`Scan.results`), not only its report."""
    work = tasks(paths)
    remote = [task for task in work if task.path != "-"]
    done: Iterator[Checked | Report | None] = iter(list(map(partial(check_task, options, logs), remote)))
    scan = Scan()
    for task in work:
        if task.path == "-":
            result: Checked | Report | None = check_loaded(
                load_bytes(STDIN, stdin or b"", options.input_format), options)
        else:
            result = next(done)
        if result is None:
            scan.skipped.append(task.path)
        elif isinstance(result, Checked):
            scan.results.append(result)
            scan.reports.append(result.report())
        else:
            scan.reports.append(result)
    return scan


def check_task(options: Options, logs: bool, task: Task) -> Checked | Report | None:
    """One file read and checked, or only its report (None: a file of a folder that is not a log).
    Runs in a worker."""
    loaded = read_task(task, options.input_format)
    if loaded is None:
        return None
    checked = check_loaded(loaded, options)
    return checked if logs else checked.report()


def read_task(task: Task, input_format: str | None = None) -> Loaded | None:
    """One file read: None for a file of a folder whose content is not a log; a file named on the
    command line is always read, and one that is text but no capture says so."""
    if task.found:
        return load_found(task.path, input_format)
    try:
        data = Path(task.path).read_bytes()
    except FileNotFoundError:
        return Loaded(task.path, "unknown", errors=[InputError(task.path, "", "no such file or folder")])
    except OSError:
        return load_file(task.path, input_format)  # its own message (a folder, no permission…)
    if data.strip() and not looks_like_log(task.path, data) and _is_text(data):
        return Loaded(task.path, "unknown", errors=[InputError(task.path, "", NOT_A_LOG)])
    return load_bytes(task.path, data, input_format)


def _is_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False  # said as invalid UTF-8, with the byte, by the reader
    return True


def check_loaded(loaded: Loaded, options: Options) -> Checked:
    from .checks import RULES, run_checks, select_rules

    note_empty(loaded)
    rules = select_rules(target=options.target) if options.codes is None else \
        [RULES[code] for code in options.codes]
    return Checked(loaded, run_checks(loaded, rules, options.target))


def note_empty(loaded: Loaded) -> None:
    """A file read without error that holds no LLM exchange is reported as such (exit 2 in `check`):
    a gate must not pass a fixture it found nothing in."""
    if loaded.errors or loaded.conversations or any(r.format for r in loaded.reads):
        return
    detail = ""
    if loaded.skipped:
        many = loaded.skipped != 1
        detail = (f" ({loaded.skipped} entr{'ies' if many else 'y'} in no provider's format; "
                  f"--input-format reads {'them' if many else 'it'} as one)")
    loaded.errors.append(InputError(loaded.path, "", NO_EXCHANGE + detail))


# -- where the files are checked --------------------------------------------------------------------

def processes(jobs: int) -> Mapper:
    """A `map` over `jobs` local processes (in order; a few files per hand-off, so a folder of small
    logs does not pay one round trip per file)."""
    def run(function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        if jobs <= 1 or len(items) <= 1:
            return [function(item) for item in items]
        from concurrent.futures import ProcessPoolExecutor

        chunk = max(1, len(items) // (jobs * 8))
        with ProcessPoolExecutor(max_workers=min(jobs, len(items))) as pool:
            return list(pool.map(function, items, chunksize=chunk))
    return run


def dask_map(address: str) -> Mapper:
    """A `map` over the workers of the Dask cluster whose scheduler is at `address`
    (`tcp://host:8786`), gathered in order. Needs `pip install 'tooldbg[dask]'`."""
    try:
        from distributed import Client
        from distributed.comm import resolve_address
    except ImportError:
        raise InputError(address, "", "--scheduler needs Dask: pip install 'tooldbg[dask]'") from None
    try:  # before a client is made: one made for a malformed address never closes quietly
        resolve_address(address)
    except (ValueError, TypeError) as err:
        raise InputError(address, "", f"not a Dask scheduler address: {err}") from None

    def run(function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        try:
            client = Client(address, set_as_default=False)  # Dask's connect timeout (30 s; configurable)
        except OSError as err:  # nothing answers there
            raise InputError(address, "", f"cannot reach the Dask scheduler: {err}") from None
        with client:
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            # a few batches per worker: a task per file would cost more in scheduling than a small
            # log costs to check, and a few per worker still even out files of unequal size
            size = max(1, -(-len(items) // (workers * 4)))
            batches = [list(items[i:i + size]) for i in range(0, len(items), size)]
            done = client.gather(client.map(partial(_each, function), batches, pure=False))
            return [result for batch in done for result in batch]
    return run


def _each(function: Callable[[Any], Any], batch: list[Any]) -> list[Any]:
    """One Dask task: a batch of files, in order."""
    return [function(item) for item in batch]


# -- the document -----------------------------------------------------------------------------------

def summary(results: Sequence[Checked | Report]) -> dict[str, int]:
    """How many findings of each severity, most severe first."""
    from .checks.base import SEVERITIES

    counts = dict.fromkeys(reversed(SEVERITIES), 0)
    for result in results:
        for finding in result.findings:
            counts[finding.severity] += 1
    return counts


def to_json(results: Sequence[Checked], skipped: Sequence[str] = ()) -> dict[str, Any]:
    """The documented, versioned document of `check --format json` (keys are only ever added)."""
    return document([r.report() for r in results], skipped)


def document(reports: Sequence[Report], skipped: Sequence[str] = ()) -> dict[str, Any]:
    """`to_json` of the inputs' reports."""
    return {
        "tooldbg": __version__,
        "inputs": [r.entry for r in reports],
        "findings": [f.to_dict() for r in reports for f in r.findings],
        "summary": summary(reports),
        "skipped": {"files": len(skipped), "paths": list(skipped),
                    "entries": sum(r.skipped for r in reports)},
    }


def skipped_line(files: Sequence[str], entries: int = 0) -> str | None:
    """`skipped 3 files that are not logs (LICENSE, README.md, logo.png)`, and the entries of
    captures in no provider's format, on one line; None when nothing was skipped."""
    said = []
    if files:
        names = ", ".join(os.path.basename(p) for p in files[:5])
        more = f", … ({len(files) - 5} more)" if len(files) > 5 else ""
        many = len(files) != 1
        said.append(f"{len(files)} file{'s that are not logs' if many else ' that is not a log'} "
                    f"({names}{more})")
    if entries:
        said.append(f"{entries} entr{'ies' if entries != 1 else 'y'} that no provider format "
                    "recognizes (not LLM exchanges)")
    return "skipped " + " and ".join(said) if said else None
