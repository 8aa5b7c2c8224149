"""The inputs of a command: files, folders or standard input read into logs, what could not be read,
and the conversation ids a user names them by (`c1`, or `FILE#c1` when several files are read)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import click

from .. import formats
from ..errors import InputError
from ..load import Loaded, load_bytes
from ..logs import LOGS
from ..model import Conversation
from ..scan import STDIN, note_empty, read_task, skipped_line, tasks
from .output import echo, fail, listing

#: What `--input-format` names: a wire format (each exchange read as it), or an agent log's format.
INPUT_FORMATS = click.Choice([*formats.WIRE_FORMATS, *LOGS])

# -- reading inputs ---------------------------------------------------------------------------------

def stdin_once(paths: Sequence[str]) -> None:
    """A usage error when standard input (`-`) is named more than once: it can be read only once."""
    if list(paths).count("-") > 1:
        fail("standard input (-) given more than once")


def read_inputs(paths: Sequence[str], input_format: str | None,
                skipped: list[str] | None = None) -> list[Loaded]:
    """Every input, `-` being standard input; a path that does not exist is an input with an error
    (so `check` still reports the others), and so is a file holding no LLM exchange. Files of a
    folder that are not logs are left out (their paths added to `skipped`)."""
    stdin_once(paths)
    out: list[Loaded] = []
    for task in tasks(paths):
        item = load_bytes(STDIN, sys.stdin.buffer.read(), input_format) if task.path == "-" else \
            read_task(task, input_format)
        if item is None:
            if skipped is not None:
                skipped.append(task.path)
            continue
        note_empty(item)
        out.append(item)
    return out


class _Read(Protocol):
    """An input as read (a `Loaded`), or as a worker reported it (a `scan.Report`)."""

    @property
    def errors(self) -> Sequence[InputError]: ...


def unreadable(loaded: Sequence[_Read]) -> str | None:
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


def load_inputs(paths: Sequence[str], input_format: str | None) -> list[Loaded]:
    """The inputs of `show` and `convert`: exit 2 when nothing at all could be read. What was
    skipped (files of a folder that are not logs, entries in no provider's format) is said on stderr."""
    skipped: list[str] = []
    loaded = read_inputs(paths, input_format, skipped)
    said = skipped_line(skipped, sum(item.skipped for item in loaded if item.conversations))
    if said:
        echo(f"tooldbg: {said}", err=True)
    if all(not item.conversations for item in loaded):
        fail(unreadable(loaded) or f"{', '.join(paths)}: no conversation found")
    return loaded


def report_errors(loaded: list[Loaded]) -> None:
    for item in loaded:
        for err in item.errors:
            echo(f"tooldbg: warning: {err}", err=True)


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


def choose(loaded: list[Loaded], label: str, wanted: str | None, target: str) -> list[Named]:
    """The conversations to export to `target`: the one `wanted` names, else every one — which must
    be one for a wire format (a request body holds one conversation)."""
    if wanted is not None:
        return [pick(loaded, wanted)]
    every = named(loaded)
    if target != "canonical" and len(every) > 1:
        fail(f"{label}: {len(every)} conversations ({listing([n.name for n in every])}); "
             f"{target} holds one: pick it with --conversation")
    return every


def pick(loaded: list[Loaded], wanted: str) -> Named:
    """The one conversation `wanted` names, or a usage error listing the valid ids."""
    every = named(loaded)
    found = [n for n in every if wanted in (n.name, n.conversation.id)] or \
        [n for n in every if _matches(n, wanted)]
    if len(found) == 1:
        return found[0]
    if found:
        fail(f"conversation '{wanted}' is in {len(found)} files; say which: "
             f"{listing([n.name for n in found])}")
    fail(f"no conversation '{wanted}'; the conversations are: {listing([n.name for n in every])}")
