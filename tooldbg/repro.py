"""`tooldbg repro`: a long failing log shrunk to a small file that still shows one finding.

A bug report needs the exchange that shows the defect, not the two hours of session around it,
and not the keys in its headers. The shrinking works on the file's own JSON, not on the canonical
form, so that what the wire carried (an `arguments` string encoded twice, a stream's events, a
relay's status) stays as it was, and the result opens in any tool that read the original:

* the file is a tree of JSON values — the records of a JSON Lines log, or one document (a HAR, a
  request body); a string that holds a JSON object or array (a HAR's `postData.text`, a logging
  payload's `messages`) is shrunk as the JSON it holds and written back as a string;
* each candidate is checked, on the file exactly as it would be written, by the rules `check` runs:
  it is kept when the rule asked for still reports one of the original's findings and no rule
  reports one the original did not — compared by message, numbers aside, so that what a finding
  names (the tool, the status, the text it quotes) is not shrunk into another finding, and the
  shrinking adds no defect of its own (a call whose id went) — and the file reads without more
  errors than the original. Removal is tried from the top down — records first (delta debugging,
  halves then smaller pieces), then the items of every list, the keys of every object, and each
  long string cut to its head — and the passes repeat until none removes anything, or the budget
  of checks is spent;
* credentials are masked in what is written (`secrets.redact_text`, which keeps JSON valid), and
  the masked file is checked once more.

The result is 1-minimal for what is tried (no single record, item or key can go), not the smallest
file there is; a finding about the whole session (a rule that needs two requests, a reply's stream)
keeps what it needs because the check says so. Delta debugging: Zeller and Hildebrandt, "Simplifying
and Isolating Failure-Inducing Input", IEEE TSE 28(2), 2002; applied to trees as in Misherghi and Su,
"HDD: Hierarchical Delta Debugging", ICSE 2006.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .checks import RULES, run_checks, select_rules
from .checks.base import Finding
from .errors import FormatError, ToolDbgError
from .jsonio import dumps_str, loads
from .load import load_bytes
from .records.compressed import unpack
from .secrets import redact_text

#: A string longer than this is tried cut to its first `_HEAD` characters and an ellipsis.
_LONG = 80
_HEAD = 40
#: The lengths of the runs of list items `Shrinker.items` removes together once single items cannot go.
_RUNS = (2, 3, 4)
_NUMBER = re.compile(r"\d+")


class ReproError(ToolDbgError):
    """The file cannot be shrunk for this rule (it does not show the finding, or is not JSON)."""


@dataclass(frozen=True)
class Shrunk:
    """What `shrink` made: the text to write, and the figures the command reports."""

    text: str
    records: int
    records_before: int
    size_before: int
    checks: int
    #: The budget of checks ran out: a smaller file may exist.
    exhausted: bool
    #: The file as written (credentials masked) still shows the finding.
    shown: bool


class _Embedded:
    """A string that holds JSON: shrunk as the value it holds, written back as a string — as it
    was, byte for byte, while nothing inside it changed."""

    __slots__ = ("value", "text", "_written")

    def __init__(self, value: Any, text: str) -> None:
        self.value, self.text = value, text
        self._written = dumps_str(_plain(value))

    def dumped(self) -> str:
        now = dumps_str(_plain(self.value))
        return self.text if now == self._written else now


class _Line:
    """A line of a JSON Lines log that is not JSON: kept as it is, or removed whole."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _plain(value: Any) -> Any:
    """`value` as JSON values alone: each `_Embedded` its string."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value.dumped() if isinstance(value, _Embedded) else value


def _embed(value: Any) -> Any:
    """`value` with each string that holds a JSON object or array made an `_Embedded`."""
    if isinstance(value, dict):
        return {key: _embed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_embed(item) for item in value]
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            held = loads(value)
        except FormatError:
            return value
        if isinstance(held, (dict, list)):
            return _Embedded(_embed(held), value)
    return value


class JsonFile:
    """The file as a tree of values, and how it is written: a JSON document (indented, or on one
    line as it came) or JSON Lines."""

    def __init__(self, name: str, data: bytes) -> None:
        text = unpack(name, data).decode("utf-8", errors="replace")
        self.lines = False
        self.one_line = "\n" not in text.strip()
        try:
            root = loads(text)
        except FormatError:
            root = None
        if isinstance(root, (dict, list)):
            self.root: Any = _embed(root)
        else:
            self.lines = True
            # JSON Lines end at "\n" only: `splitlines` also ends a line at U+2028 or U+0085,
            # which JSON strings may hold unescaped
            self.root = [self._line(line) for line in text.split("\n") if line.strip()]
            if not any(not isinstance(line, _Line) for line in self.root):
                raise ReproError(f"{name}: not JSON or JSON Lines: tooldbg shrinks the records of a "
                                 "JSON log (a .eval archive: open its log with `inspect log dump`)")

    @staticmethod
    def _line(line: str) -> Any:
        try:
            return _embed(loads(line))
        except FormatError:
            return _Line(line)

    def text(self) -> str:
        if self.lines:
            return "".join((line.text if isinstance(line, _Line) else dumps_str(_plain(line))) + "\n"
                           for line in self.root)
        return dumps_str(_plain(self.root), indent=not self.one_line) + "\n"

    def records(self) -> int:
        """Records: lines of a JSON Lines log, entries of a HAR, else the one document."""
        if self.lines:
            return len(self.root)
        log = self.root.get("log") if isinstance(self.root, dict) else None
        entries = log.get("entries") if isinstance(log, dict) else None
        return len(entries) if isinstance(entries, list) else 1


class Shrinker:
    """Tries removals on the tree in place, keeping each one `shows` accepts."""

    def __init__(self, file: JsonFile, shows: Callable[[str], bool], budget: int) -> None:
        self.file, self.shows, self.budget = file, shows, budget
        self.checks = 0
        self.changed = False
        #: The budget is spent: every removal tried from then on is undone, and nothing more tried.
        self.exhausted = False

    def kept(self) -> bool:
        """Whether the tree as it stands now still shows the finding (one check of the budget)."""
        if self.checks >= self.budget:
            self.exhausted = True
            return False
        self.checks += 1
        if self.shows(self.file.text()):
            self.changed = True
            return True
        return False

    def items(self, items: list[Any]) -> None:
        """Delta debugging over a list: remove chunks, halves first, down to single items; then runs
        of `_RUNS` items at every place, for what only goes together (a call and its results: the
        one without the others is a finding of its own) and which the halving cut apart."""
        chunks = 2
        while items and not self.exhausted:
            size = -(-len(items) // chunks)  # ceiling
            removed = self._runs(items, size, size)
            if removed:
                chunks = max(chunks - 1, 2)
            elif size == 1:
                break
            else:
                chunks = min(chunks * 2, len(items))
        for width in _RUNS:
            self._runs(items, width, 1)

    def _runs(self, items: list[Any], width: int, step: int) -> bool:
        """Try removing `width` items at every `step`-th place; whether any went."""
        removed, start = False, 0
        while start + (width if step == 1 else 1) <= len(items) and not self.exhausted:
            taken = items[start:start + width]
            del items[start:start + width]
            if self.kept():
                removed = True
            else:
                items[start:start] = taken
                start += step
        return removed

    def keys(self, node: dict[str, Any]) -> None:
        for key in list(node):
            order = list(node)
            value = node.pop(key)
            if not self.kept():
                node[key] = value
                for later in order[order.index(key) + 1:]:  # back in its place
                    node[later] = node.pop(later)
            if self.exhausted:
                return

    def visit(self, node: Any) -> None:
        """Remove what can go under `node`, then go down into what is left."""
        if isinstance(node, list):
            self.items(node)
        elif isinstance(node, dict):
            self.keys(node)
        for slot, child in _children(node):
            if self.exhausted:
                return
            if isinstance(child, _Embedded):
                self.visit(child.value)
            elif isinstance(child, (dict, list)):
                self.visit(child)
            elif isinstance(child, str) and len(child) > _LONG:
                node[slot] = child[:_HEAD] + "…"
                if not self.kept():
                    node[slot] = child

    def run(self) -> bool:
        """Shrink until a pass changes nothing; False when the budget ran out first."""
        root = self.file.root
        if isinstance(root, list):  # the records first: every later check reads less
            self.items(root)
        self.changed = True
        while self.changed and not self.exhausted:
            self.changed = False
            self.visit(root)
        return not self.exhausted


def _children(node: Any) -> list[tuple[Any, Any]]:
    """(key or index, value) of each child of `node`, listed before the caller changes any."""
    if isinstance(node, dict):
        return list(node.items())
    if isinstance(node, list):
        return list(enumerate(node))
    return []


def _said(findings: Iterable[Finding]) -> set[tuple[str, str]]:
    """What the findings say, numbers aside: the exchange, turn and line numbers move as records go;
    what a finding names (a tool, a status, the text it quotes) must not."""
    return {(f.code, _NUMBER.sub("#", f.message)) for f in findings}


def shrink(name: str, data: bytes, code: str, *, target: str | None = None,
           input_format: str | None = None, budget: int = 1000, mask: bool = True,
           keep: Finding | None = None) -> Shrunk:
    """`data` (the file `name`) shrunk while the rule `code` still reports a finding on it — `keep`
    itself when given (the debugger's chosen finding), else any of the file's — (see the module's
    docstring); `budget` caps the checks made, the first one (of the whole file) included. Raises
    ReproError when the file does not show the finding to begin with."""
    rules = select_rules(target=target)
    if RULES[code] not in rules:
        rules.append(RULES[code])
    original = load_bytes(name, data, input_format)
    allowed = len(original.errors)
    wanted = _said(run_checks(original, rules, target))
    chosen = _said([keep]) if keep is not None else set()

    def has_finding(found: set[tuple[str, str]]) -> bool:
        return chosen <= found if chosen else any(c == code for c, _ in found)

    def shows(text: str) -> bool:
        loaded = load_bytes(name, text.encode("utf-8"), input_format)
        if len(loaded.errors) > allowed:
            return False
        found = _said(run_checks(loaded, rules, target))
        return found <= wanted and has_finding(found)

    if not has_finding(wanted):
        raise ReproError(f"{name}: shows no {code} finding to reproduce (`tooldbg check {name}` "
                         "lists what it shows)")
    file = JsonFile(name, data)
    before = file.records()
    if not shows(file.text()):  # written back as JSON the finding is gone: nothing to shrink on
        raise ReproError(f"{name}: its {code} finding depends on how the file is laid out, which "
                         "tooldbg cannot keep while shrinking it")
    shrinker = Shrinker(file, shows, budget - 1)  # the check of the file as written is the first
    finished = shrinker.run()
    text = file.text()
    written = redact_text(text) if mask else text
    return Shrunk(text=written, records=file.records(), records_before=before, size_before=len(data),
                  checks=shrinker.checks + 1, exhausted=not finished,
                  shown=written == text or shows(written))
