"""What the agent-log tests share: a log's calls, results and failures as canonical form counts them,
and files written from records."""

import json
from pathlib import Path

from tooldbg.checks import run_checks
from tooldbg.load import Loaded
from tooldbg.model import Invocation, Result


def jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def tally(loaded: Loaded) -> tuple[int, int, int]:
    """(calls, results, failed results) over every conversation, each part counted once (a branch
    shares the turns before it with the conversation it left)."""
    seen: set[int] = set()
    calls = results = failed = 0
    for conv in loaded.conversations:
        for turn in conv.turns:
            for part in turn.parts:
                if id(part) in seen:
                    continue
                seen.add(id(part))
                calls += isinstance(part, Invocation)
                results += isinstance(part, Result)
                failed += isinstance(part, Result) and part.is_error
    return calls, results, failed


def codes(loaded: Loaded) -> list[str]:
    return [f.code for f in run_checks(loaded)]


def shown_lines(loaded: Loaded, path: Path) -> list[tuple[str, bool]]:
    """For each part, turn and system part: (its location, whether the wire view shows, at its
    exchange, the very line of `path` its location names, parsed, and finds a node at its pointer)."""
    lines = path.read_text().splitlines()
    out = []
    for conv in loaded.conversations:
        nodes = [*conv.system, *conv.turns, *(p for t in conv.turns for p in t.parts)]
        for node in nodes:
            at = node.source
            line = json.loads(lines[int(at.location.removeprefix("line ")) - 1])
            out.append((at.location, loaded.wire_at(at.exchange, at.side, "") == line
                        and loaded.wire_at(at.exchange, at.side, at.pointer) is not None))
    return out
