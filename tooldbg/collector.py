"""Python's cyclic garbage collector held off while a file is read and checked.

Reading a log makes a great many small objects (a record, and a canonical object per turn, part and
source) that live as long as the file is open and form no reference cycles, so reference counting
frees them and the cyclic collector has nothing to find among them. It still walks them: every full
collection visits each object made so far, and a collection is due every few hundred allocations.
On a 100 MB session log that walking was half the time of reading and checking it (README,
Performance), and the walks went on after, once per full collection, while the objects lived (`gc`
docs, "generational garbage collection"; `gc.freeze`).

So reading runs with the collector off, and what it made is then frozen (`gc.freeze`: moved to the
permanent generation, which collections skip) when it was enough to cost a noticeable walk. The
checks run with the collector off too: the little they leave in cycles is young, and the next
young collection frees it. Nothing changes when the caller had switched the collector off itself.

A freeze takes every object the process holds at that moment, not only the file's, and a frozen
object that becomes part of an unreachable cycle is freed only after `gc.unfreeze()` (objects freed
by reference counting are freed as ever). So the freeze lasts as long as what was read: once the
last file read so is let go, everything frozen goes back to the collector (`thaw_after`), and a
process that goes on reading files (a Dask worker, a test run) keeps collecting what it drops. The
TUI freezes its session itself after loading (`tui.session.Session.load`), for the app's lifetime.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from threading import RLock

#: Objects made while the collector was held off above which they are frozen: past this, a walk
#: over them costs more than a few milliseconds (about a microsecond an object on a parsed log).
#: Below it (a small file, a request body `convert` checks) the next young collection walks them.
FREEZE_AT = 10_000


@dataclass(slots=True)
class Pause:
    """A block run with the collector held off: whether what it made was frozen at its end."""

    frozen: bool = False


@contextmanager
def held_off(*, freeze: bool) -> Iterator[Pause]:
    """The collector off for the block, back on after it (if it was on before); with `freeze`,
    what the block made is frozen when it made more than `FREEZE_AT` objects the collector tracks
    (then `thaw_after` the result, so that the freeze ends with it)."""
    pause = Pause()
    if not gc.isenabled():
        yield pause
        return
    gc.disable()
    try:
        yield pause
    finally:
        # (the young generation's count goes on while the collector is off: the tracked objects
        # made since the last collection, less those freed)
        if freeze and gc.get_count()[0] > FREEZE_AT:
            gc.freeze()
            pause.frozen = True
        gc.enable()


_owners = 0  # objects read under a freeze still alive (`thaw_after`)
_owners_lock = RLock()  # (re-entrant: a finalizer may run while it is held)


def thaw_after(owner: object) -> None:
    """End the freeze when `owner` — and every other object read under one — has been let go."""
    global _owners
    with _owners_lock:
        _owners += 1
    weakref.finalize(owner, _let_go)


def _let_go() -> None:
    global _owners
    with _owners_lock:
        _owners -= 1
        if _owners == 0:
            gc.unfreeze()
