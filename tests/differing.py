"""What the `diff` pins compare: a result as lines — each finding (the differences, then each side's
own findings) with its side, code, message and its place on either side, each note, each pairing."""

from __future__ import annotations

from pathlib import Path

from tooldbg.diff.results import Diff, Place


def place(where: Place | None) -> str:
    """`FILE c1 exchange 1 turn 2 part 1 POINTER` (the file by its name); `-` where the side has no
    counterpart."""
    if where is None:
        return "-"
    words = [Path(where.path).name, where.conversation or "",
             f"exchange {where.exchange}" if where.exchange is not None else "",
             f"turn {where.turn}" if where.turn is not None else "",
             f"part {where.part}" if where.part is not None else "",
             f"chunk {where.chunk}" if where.chunk is not None else "", where.pointer]
    return " ".join(w for w in words if w)


def _pair(a: int | None, b: int | None) -> str:
    return f"{'-' if a is None else a}↔{'-' if b is None else b}"


def lines(result: Diff) -> list[str]:
    out = []
    for f in result.everything:
        out += [f"{f.side} {f.code}: {f.message}", f"    a: {place(f.a)}", f"    b: {place(f.b)}"]
    for note in result.notes:
        out.append(f"note: {note.message}")
        out += [f"    {side}: {place(where)}" for side, where in (("a", note.a), ("b", note.b)) if where]
    for p in result.pairings:
        out.append(f"paired {p.a}↔{p.b}: exchanges {' '.join(_pair(*x) for x in p.exchanges)}; turns "
                   f"{' '.join(_pair(*t) for t in p.turns)}")
    return out
