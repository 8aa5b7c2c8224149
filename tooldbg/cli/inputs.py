"""The inputs of a command: files, folders or standard input read into logs, what could not be read,
and the conversation ids a user names them by (`c1`, or `FILE#c1` when several files are read)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..load import Loaded, load, load_bytes
from ..model import Conversation
from .output import echo, fail, listing

#: How standard input is named in messages and reports (`-` on the command line).
STDIN = "<stdin>"

# -- reading inputs ---------------------------------------------------------------------------------

def read_inputs(paths: Sequence[str], input_format: str | None) -> list[Loaded]:
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


def unreadable(loaded: list[Loaded]) -> str | None:
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
    """The inputs of `show` and `convert`: exit 2 when nothing at all could be read."""
    loaded = read_inputs(paths, input_format)
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
