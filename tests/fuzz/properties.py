"""Metamorphic properties: what must hold whatever the input, checked on generated inputs.

Each property draws an input from the `random.Random` it is given (so a seed and an index rebuild
it: `scripts/fuzz.py --properties NAME --seed N --start I --count 1`), transforms it in a way that
must not change what tooldbg reports, and returns a `Checked`: the input's files and the violations
found (none: the property holds for it). The properties (issue 17):

* `layout` — a file re-laid out (JSON compact or indented, a HAR on one line, pretty-printed or an
  entry a line, the documents a HAR or a recording keeps as strings re-laid out too, JSON Lines and
  SSE with CRLF) reads the same: exchanges, conversations with their sources, errors, findings —
  also with a record nested around the depth limits (200 levels, and the parser's 1,024);
* `containers` — the same exchanges as JSON Lines, recordings (bodies as JSON or as strings), HAR
  in each layout and a JSON array read the same (up to where each container locates a body);
* `fix` — `fix` of `fix`'s output repairs nothing, and no repair `fix` claims is still found by
  `check` (with the target's rules) in what it wrote;
* `diff` — `diff` of a log against each of its conversions finds only what the writer listed as lost;
* `canonical` — a canonical document reads back the same, and writes back the same bytes;
* `interleave` — sessions interleaved at random in one file (with and without call ids, the same
  first message included) read as each does alone: the same conversations, the same findings;
* `secrets` — secrets planted in every string of a log, and after URL percent-escapes, are never
  printed in part by any command;
* `hashseed` — every command prints the same bytes whatever PYTHONHASHSEED (two worker processes
  with different seeds, `workers.Workers`).
"""

from __future__ import annotations

import copy
import json
import random
import re
import string
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tooldbg import formats
from tooldbg.checks import run_checks
from tooldbg.cli import cli
from tooldbg.convert import export
from tooldbg.diff import diff
from tooldbg.formats.reading import link
from tooldbg.load import Loaded, load_bytes
from tooldbg.model import Invocation, Result, Text, Turn, conversation_to_dict, turn_to_dict

from .exercise import debugging
from .mutate import classify, deep, mutate
from .seeds import by_container, seeds
from .sessions import CONTAINERS, Session, container, exchange, har, session, text


@dataclass(slots=True)
class Checked:
    """An input (its files, by name) and the violations found on it."""

    files: dict[str, bytes] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            self.violations.append(what)


def _short(value: Any, width: int = 600) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= width else text[:width] + "…"


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON-like values first differ, for a violation's message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}/{key}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _first_difference(x, y, f"{path}/{i}")
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
    return f"{path}: {_short(a, 300)} vs {_short(b, 300)}"


# ------------------------------------------------------------------------------- reading a file


def read(loaded: Loaded, *, located: bool = True) -> dict[str, Any]:
    """Everything a user is shown of one file, as data: its container and formats, each exchange
    and conversation (turns with their sources), its errors and the findings of `check`. Not
    `located`: without what differs from one container to another (where a body is in the file)."""
    findings = run_checks(loaded)
    out = {"container": loaded.container, "formats": loaded.formats, "skipped": loaded.skipped,
           "conversations": [conversation_to_dict(c) for c in loaded.conversations],
           "exchanges": [[r.conversation, r.format, r.stored] for r in loaded.reads],
           "errors": [[e.location, e.message] for e in loaded.errors],
           "findings": [f.to_dict() for f in findings]}
    if not located:
        out.pop("container")
        out["errors"] = [message for _, message in out["errors"]]
        for finding in out["findings"]:
            finding["pointer"] = finding["pointer"].rpartition("#")[2]
            del finding["path"]
        _unlocate(out["conversations"])
    return out


def _unlocate(value: Any) -> None:
    """Drop the file and body location from every `source` below `value` (the pointer inside the
    body, the exchange, the side and the chunk stay)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            source = node.get("source")
            if isinstance(source, dict):
                source.pop("file", None)
                source.pop("location", None)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def load(name: str, data: bytes) -> Loaded:
    return load_bytes(name, data)


# ---------------------------------------------------------------------------------------- inputs


def _sessions(rng: random.Random, count: int) -> list[Session]:
    return [session(rng, tag=string.ascii_uppercase[i]) for i in range(count)]


def _seed_file(rng: random.Random) -> tuple[str, bytes]:
    groups = by_container()
    kind = rng.choice(sorted(groups))
    seed = rng.choice(groups[kind])
    return Path(seed.name).name, seed.data


def _log(rng: random.Random) -> tuple[str, bytes]:
    """A log to transform: a generated session in some container, a sample or corpus file, or (one
    time in five) a mutant of either."""
    if rng.random() < 0.5:
        exchanges = [x for s in _sessions(rng, rng.choice((1, 1, 2))) for x in s.exchanges]
        name, data = container(exchanges, rng.choice(CONTAINERS))
    else:
        name, data = _seed_file(rng)
    if rng.random() < 0.2:
        data = mutate(data, rng, rounds=1)
    return name, data


#: Depths a record is nested to: around tooldbg's limit (200) and the parser's (1,024).
DEPTHS = (199, 200, 201, 1021, 1022, 1023, 1024, 1025, 1030)


def _deepen(record: dict[str, Any], rng: random.Random) -> None:
    """Hang a value nested around a depth limit in `record` (an exchange or a HAR entry): under a
    key of the record, or of a body inside it."""
    depth = rng.choice(DEPTHS)
    where = record
    for key in ("request", "body"):
        if rng.random() < 0.5 and isinstance(where.get(key), dict):
            where = where[key]
    where["_deep"] = deep(depth, rng, leaf=1)


# ------------------------------------------------------------------------------------ layouts


def _dumps(value: Any, indent: bool) -> str:
    """JSON text of any value the standard library parsed, the same value exactly (a lone surrogate
    escaped, a big integer whole): compact, or indented two spaces (past the standard library's
    depth, compact). A value holding NaN or an infinity raises ValueError: no JSON writes it back."""
    return text(value, indent=indent)


def _relaid_strings(value: Any, indent: bool) -> Any:
    """`value` with the bodies a HAR (`postData.text`, `content.text`) or a recording (`body`) keeps
    as JSON strings re-laid out as well."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for holder, key in (("postData", "text"), ("content", "text"), ("request", "body"), ("response", "body")):
                inner = node.get(holder)
                if isinstance(inner, dict) and isinstance(inner.get(key), str):
                    inner[key] = _relaid(inner[key], indent)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return value


def _relaid(text: str, indent: bool) -> str:
    try:
        inner = json.loads(text)
    except (ValueError, RecursionError):
        return text
    return _dumps(inner, indent) if isinstance(inner, dict | list) else text


def layouts(name: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    """The same file laid out otherwise: each (a label, the bytes)."""
    kind = classify(data)
    text = data.decode("utf-8", "surrogatepass") if kind not in ("eventstream", "bytes") else ""
    if kind == "json":
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return
        for indent in (False, True):
            yield f"json {'indented' if indent else 'compact'}", _dumps(value, indent).encode()
            relaid = _relaid_strings(json.loads(text), not indent)
            yield f"json {'indented' if indent else 'compact'}, bodies re-laid", _dumps(relaid, indent).encode()
        log = value.get("log") if isinstance(value, dict) else None
        if isinstance(log, dict) and isinstance(log.get("entries"), list) and log["entries"]:
            head = _dumps({**value, "log": {**log, "entries": []}}, False)
            cut = head.rindex('"entries":[]') + len('"entries":[')
            lines = ",\n".join("  " + _dumps(e, False) for e in log["entries"])
            yield "har an entry a line", (head[:cut] + "\n" + lines + "\n" + head[cut:]).encode()
    elif kind in ("jsonl", "sse"):
        yield "crlf", text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8", "surrogatepass")
        if kind == "jsonl":
            lines = []
            for line in text.split("\n"):
                lead = line[:len(line) - len(line.lstrip())]  # (where a line starts says what it is)
                try:
                    lines.append(lead + _dumps(json.loads(line), False) if line.strip() else line)
                except (ValueError, RecursionError):
                    lines.append(line)
            yield "jsonl compact records", "\n".join(lines).encode("utf-8", "surrogatepass")


def prop_layout(rng: random.Random) -> Checked:
    out = Checked()
    name, data = _log(rng)
    if rng.random() < 0.3:  # a record nested around a depth limit
        exchanges = [x for s in _sessions(rng, 1) for x in s.exchanges]
        kind = rng.choice(("har-one-line", "har-entry-a-line", "interactions", "json-array", "jsonl"))
        name, data = _deep_container(exchanges, kind, rng)
    out.files[name] = data
    want = _positionless(read(load(name, data)))
    try:
        relayouts = list(layouts(name, data))
    except ValueError:  # (NaN or an infinity, which the standard library reads and no JSON holds)
        return out
    for label, relaid in relayouts:
        got = _positionless(read(load(name, relaid)))
        if got != want:
            out.files[f"{label}{Path(name).suffix}"] = relaid
            out.violations.append(f"{label}: {_first_difference(want, got)}")
    return out


#: Where a syntax error is in a text: it moves with the layout, as it should.
_POSITION = re.compile(r"invalid JSON at line \d+ column \d+")


def _positionless(read_out: dict[str, Any]) -> dict[str, Any]:
    """`read`'s outcome with the line and column of each JSON syntax error left out."""
    read_out["errors"] = [[where, _POSITION.sub("invalid JSON", message)] for where, message in read_out["errors"]]
    return read_out


def _deep_container(exchanges: list[dict[str, Any]], kind: str, rng: random.Random) -> tuple[str, bytes]:
    """The exchanges in a container, one record nested around a depth limit (a HAR's entry, or
    an exchange)."""
    target = rng.randrange(len(exchanges))
    if kind.startswith("har"):
        entries = json.loads(container(exchanges, "har-one-line")[1])["log"]["entries"]
        _deepen(entries[target], rng)
        return har(entries, kind)
    exchanges = copy.deepcopy(exchanges)
    _deepen(exchanges[target], rng)
    return container(exchanges, kind)


# --------------------------------------------------------------------------- container equivalence


#: The containers that hold a body as JSON, not as a string: a record nested too deep is the same
#: record in each (in HAR it would be a body's string, read apart from its record).
INLINE = ("jsonl", "json-array", "interactions")


def prop_containers(rng: random.Random) -> Checked:
    out = Checked()
    exchanges = [x for s in _sessions(rng, rng.choice((1, 1, 2))) for x in s.exchanges]
    if rng.random() < 0.2:
        rng.shuffle(exchanges)
    kinds: tuple[str, ...] = CONTAINERS
    if rng.random() < 0.3:
        exchanges = copy.deepcopy(exchanges)
        _deepen(exchanges[rng.randrange(len(exchanges))], rng)
        kinds = INLINE
    results: dict[str, Any] = {}
    for kind in kinds:
        name, data = container(exchanges, kind)
        out.files[f"{kind}-{name}"] = data
        results[kind] = read(load(name, data), located=False)
    first, want = next(iter(results.items()))
    for kind, got in results.items():
        if got != want:
            out.violations.append(f"{first} vs {kind}: {_first_difference(want, got)}")
    return out


# ------------------------------------------------------------------------------------ the CLI


@contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="tooldbg-fuzz-") as name:
        yield Path(name)


def run(*argv: str) -> tuple[int, str, str]:
    """A tooldbg command, in process: (exit code, stdout, stderr)."""
    result = CliRunner().invoke(cli, list(argv), catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


TARGETS = (*formats.WIRE_FORMATS, "canonical")


# ----------------------------------------------------------------------------------------- fix


def _defect_log(rng: random.Random) -> tuple[str, bytes]:
    """A log with defects to repair: a defect sample, a generated session, or a mutant of one."""
    if rng.random() < 0.4:
        samples = [s for s in seeds() if "/defects/" in s.name and not s.name.endswith(".canonical.json")]
        seed = rng.choice(samples)
        name, data = Path(seed.name).name, seed.data
    else:
        name, data = _log(rng)
    if rng.random() < 0.4:
        data = mutate(data, rng, rounds=1)
    return name, data


def prop_fix(rng: random.Random) -> Checked:
    out = Checked()
    name, data = _defect_log(rng)
    out.files[name] = data
    target = rng.choice(TARGETS)
    with folder() as where:
        source = where / name
        source.write_bytes(data)
        first = where / "fixed.json"
        code, stdout, stderr = run("fix", str(source), "--to", target, "-o", str(first), "--format", "json",
                                   "--fail-on", "never")
        if code == 2 or not first.exists():
            return out  # unreadable, or several conversations, or nothing written: no output to fix again
        report = json.loads(stdout)
        out.files[f"fixed-{target}.json"] = first.read_bytes()
        remaining = {(f["conversation"], f["code"]) for f in report["findings"]}
        # refused by the repairs (some of a code repaired, some not), not found once written
        refused = {(r["conversation"], r["code"]) for r in report["refusals"]
                   if not r["reason"].startswith("found once written")}
        for repair in report["repairs"]:
            key = (repair["conversation"], repair["code"])
            out.expect(key in refused or key not in remaining,
                       f"--to {target}: fix claims {repair['code']} repaired ({_short(repair, 300)}) and check "
                       f"{'--target ' + target + ' ' if target != 'canonical' else ''}of its output still finds it")
        code, stdout, _ = run("fix", str(first), "--to", target, "--dry-run", "--format", "json",
                              "--fail-on", "never")
        again = json.loads(stdout) if code != 2 else {"repairs": []}
        out.expect(not again["repairs"], f"--to {target}: a second fix repairs "
                   + "; ".join(f"{r['code']} {_short(r, 200)}" for r in again["repairs"]))
    return out


# ---------------------------------------------------------------------------------------- diff


def prop_diff(rng: random.Random) -> Checked:
    out = Checked()
    if rng.random() < 0.7:
        name, data = container(list(_sessions(rng, 1)[0].exchanges), rng.choice(CONTAINERS))
    else:
        name, data = _seed_file(rng)
    out.files[name] = data
    log = load(name, data)
    if len(log.conversations) != 1 or log.errors:
        return out
    for target in rng.sample(formats.WIRE_FORMATS, 2) + ["canonical"]:
        try:
            written = export(log.conversations, target, allow_blanks=True)
        except Exception:  # noqa: BLE001 - a conversion the writer refuses has nothing to compare
            continue
        text = written.text(redact=False)
        converted = load(f"converted.{target}.json", text.encode())
        result = diff(log, converted, own=False)
        turns = {loss.turn for loss in written.losses}
        for f in result.findings:
            turn = f.a.turn if f.a is not None else None
            out.expect(turn in turns or turn is None and None in turns,
                       f"--to {target}: {f.code} on {f.side} at a's turn {turn} "
                       f"({_short(f.message, 300)}) is no listed loss: "
                       + "; ".join(str(loss) for loss in written.losses))
        if out.violations:
            out.files[f"converted.{target}.json"] = text.encode()
    return out


# ------------------------------------------------------------------------------------ canonical


def prop_canonical(rng: random.Random) -> Checked:
    out = Checked()
    name, data = _log(rng)
    out.files[name] = data
    loaded = load(name, data)
    if not loaded.conversations:
        return out
    first = export(loaded.conversations, "canonical").text(redact=False)
    back = load("back.json", first.encode())
    out.expect(not back.errors, f"tooldbg refuses its own canonical document: {[str(e) for e in back.errors]}")
    if back.errors:
        out.files["canonical.json"] = first.encode()
        return out
    out.expect(back.conversations == loaded.conversations,
               "the canonical document reads back as another conversation: " + _first_difference(
                   [conversation_to_dict(c) for c in loaded.conversations],
                   [conversation_to_dict(c) for c in back.conversations]))
    second = export(back.conversations, "canonical").text(redact=False)
    out.expect(second == first, "the canonical document read back writes other bytes: "
               + _first_difference(json.loads(first), json.loads(second)))
    return out


# ------------------------------------------------------------------------------------ interleave


def prop_interleave(rng: random.Random) -> Checked:
    out = Checked()
    count = rng.choice((2, 2, 3))
    first = rng.choice(("hi", "Weather in Oslo?")) if rng.random() < 0.6 else None
    sessions = [session(rng, first=first, tag=string.ascii_uppercase[i]) for i in range(count)]
    if rng.random() < 0.3 and len(sessions[0].conversation.turns) > 2 \
            and sessions[0].conversation.turns[1].parts[-1].type == "invocation":
        sessions[1] = _forked(sessions[0], rng)  # the same first exchange, then its own way
    kind = rng.choice(CONTAINERS)
    order = [i for i, s in enumerate(sessions) for _ in s.exchanges]
    rng.shuffle(order)
    queues = [list(s.exchanges) for s in sessions]
    mixed = [queues[i].pop(0) for i in order]
    name, data = container(mixed, kind)
    out.files[name] = data
    together = _conversations(load(name, data))
    alone = sorted(c for s in sessions for c in _conversations(load(*container(list(s.exchanges), kind))))
    out.expect(sorted(together) == alone, f"{count} sessions interleaved ({[s.format for s in sessions]}, "
               f"order {order}) read as {len(together)} conversations, alone as {len(alone)}: "
               + _first_difference(alone, sorted(together)))
    return out


def _forked(source: Session, rng: random.Random) -> Session:
    """A second session whose first exchange is `source`'s (the same question, the same calls — under
    ids of their own, as a provider issues them), that then goes its own way: other results, another
    answer."""
    other = session(rng, source.format, first=None, tag="Z")
    first = source.conversation.turns[1]
    calls = tuple(replace(p, wire_id=f"{p.wire_id}z") if isinstance(p, Invocation) and p.wire_id else p
                  for p in first.parts)
    turns = [source.conversation.turns[0], replace(first, parts=calls)]
    turns.append(Turn(role="tool", parts=tuple(
        Result(wire_id=c.wire_id, name=c.name, content=(Text(text=f"fork {k}"),))
        for k, c in enumerate(p for p in calls if isinstance(p, Invocation)))))
    turns.append(Turn(role="assistant", parts=(Text(text="the fork's answer"),)))
    conv = replace(source.conversation, turns=link(turns))
    exchanges = [exchange(source.format, replace(conv, turns=conv.turns[:k]), t, rng)
                 for k, t in enumerate(conv.turns) if t.role == "assistant"]
    return replace(other, conversation=conv, exchanges=tuple(exchanges))


def _conversations(loaded: Loaded) -> list[str]:
    """Each conversation's turns (without sources) and its findings (code, severity, turn, part)."""
    findings = run_checks(loaded)
    out = []
    for conv in loaded.conversations:
        mine = sorted((f.code, f.severity, f.turn or -1, f.part or -1) for f in findings
                      if f.conversation == conv.id)
        out.append(json.dumps({"turns": [turn_to_dict(t, sources=False) for t in conv.turns],
                               "findings": mine, "errors": len(loaded.errors)}, sort_keys=True))
    return out


# --------------------------------------------------------------------------------------- secrets

_ALNUM = string.ascii_letters + string.digits


def _token(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_ALNUM) for _ in range(n))


def planted_secret(rng: random.Random) -> tuple[str, str]:
    """(the secret, how it is written into a string): a key's shape on its own, a JWT, a bearer token,
    a named credential, a URL's `?key=`, a key after a percent-escape."""
    kind = rng.randrange(8)
    if kind == 0:
        secret = "sk-proj-" + _token(rng, 32)
    elif kind == 1:
        secret = "sk-ant-api03-" + _token(rng, 40)
    elif kind == 2:
        secret = "AIza" + _token(rng, 35)
    elif kind == 3:
        secret = "AKIA" + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))
    elif kind == 4:
        secret = "eyJ" + _token(rng, 20) + "." + _token(rng, 30) + "." + _token(rng, 25)
    else:
        secret = "sk-" + _token(rng, 36)
    form = rng.choice(["{}", "key {} here", "Authorization: Bearer {}", "api_key={}", '"api_key": "{}"',
                       "https://x.example/v1?key={}&q=1", "https://x.example/a?trace=%22{}",
                       "https://x.example/a?q=%3D{}%22"])
    if "Bearer" in form and not any(c.isdigit() for c in secret):
        secret += "7"
    return secret, form.format(secret)


def _plant(value: Any, rng: random.Random, planted: list[str], rate: float, keys: float = 0.0) -> Any:
    """`value` (a request or response, parsed) with secrets planted in its strings — replacing one, or
    appended to it, at `rate` — and in its objects' keys at `keys`."""
    if isinstance(value, dict):
        return {_plant(k, rng, planted, keys): _plant(v, rng, planted, rate, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [_plant(v, rng, planted, rate, keys) for v in value]
    if isinstance(value, str) and rng.random() < rate:
        secret, written = planted_secret(rng)
        planted.append(secret)
        return written if rng.random() < 0.5 else f"{value} {written}"
    return value


def pieces(secret: str) -> list[str]:
    """Eight characters of a secret after its first four (which a mask keeps): any of them in an
    output is a piece of the secret."""
    return [secret[i:i + 8] for i in range(4, len(secret) - 7)]


def prop_secrets(rng: random.Random) -> Checked:
    out = Checked()
    base = _sessions(rng, 1)[0]
    planted: list[str] = []
    exchanges = []
    rate = rng.choice((0.05, 0.2, 0.5))
    for x in base.exchanges:
        # every string of both sides, and the keys of headers and bodies
        sides = {side: {k: _plant(v, rng, planted, rate, rate / 10 if k in ("headers", "body") else 0.0)
                        for k, v in x[side].items()} for side in ("request", "response")}
        if rng.random() < 0.2:
            secret = _token(rng, 24)
            planted.append(secret)
            sides["request"]["url"] = f"{x['request']['url']}?key={secret}"
        exchanges.append(sides)
    if not planted:
        return out
    name, data = container(exchanges, rng.choice(CONTAINERS))
    out.files[name] = data
    with folder() as where:
        log = where / name
        log.write_bytes(data)
        target = rng.choice(formats.WIRE_FORMATS)
        runs = [["check", str(log)], ["check", str(log), "--format", rng.choice(("json", "github"))],
                ["check", str(log), "--target", target], ["show", str(log), "--width", rng.choice(("80", "400"))],
                ["convert", str(log), "--to", rng.choice(TARGETS)],
                ["convert", str(log), "--to", target, "--format", "json"],
                ["fix", str(log), "--to", target], ["diff", str(log), str(log)]]
        for argv in runs:
            _, stdout, stderr = run(*argv)
            shown = stdout + stderr
            for secret in planted:
                found = next((p for p in pieces(secret) if p in shown), None)
                out.expect(found is None, f"`{' '.join(argv[:1] + argv[2:])}` prints {found!r}, part of the "
                           f"planted secret {secret!r}")
            if out.violations:
                break
    return out


# -------------------------------------------------------------------------------------- hash seed


#: The commands run under two hash seeds: what a user sees of a file.
def _commands(path: Path, rng: random.Random) -> list[list[str]]:
    target = rng.choice(formats.WIRE_FORMATS)
    return [["check", str(path), "--format", "json"], ["check", str(path), "--target", target],
            ["show", str(path), "--width", "120"], ["convert", str(path), "--to", rng.choice(TARGETS)],
            ["fix", str(path), "--to", target, "--dry-run", "--format", "json"],
            ["diff", str(path), str(path), "--format", "json"]]


def prop_hashseed(rng: random.Random) -> Checked:
    from .workers import workers

    out = Checked()
    name, data = _log(rng) if rng.random() < 0.7 else _defect_log(rng)
    out.files[name] = data
    with folder() as where:
        path = where / name
        path.write_bytes(data)
        for argv in _commands(path, rng):
            first, second = workers().run(argv)
            out.expect(first["exception"] is None, f"`{' '.join(argv)}` raises {first['exception']}")
            out.expect(first == second, f"`{' '.join(argv)}` prints differently under two hash seeds: "
                       + _first_difference(first, second))
    return out


PROPERTIES: dict[str, Callable[[random.Random], Checked]] = {
    "layout": prop_layout, "containers": prop_containers, "fix": prop_fix, "diff": prop_diff,
    "canonical": prop_canonical, "interleave": prop_interleave, "secrets": prop_secrets,
    "hashseed": prop_hashseed,
}


def check_property(name: str, rng: random.Random) -> Checked:
    """One input through property `name`; an exception is a violation too (with its type) — also one
    that tooldbg would have turned into a line for the user (a record "could not be read", a repair
    "not repaired (internal error …)", the CLI's "internal error"): under TOOLDBG_DEBUG it is raised,
    so a crash is never taken for an input the property has nothing to say about."""
    try:
        with debugging():
            return PROPERTIES[name](rng)
    except Exception as err:  # noqa: BLE001 - a crash is a finding of the property run
        import traceback

        return Checked(violations=[f"crash {type(err).__name__}: {err}\n{traceback.format_exc()}"])

