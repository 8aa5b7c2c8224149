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
by reference counting are freed as ever). So the freeze lasts as long as the newest file read under
one (`thaw_after`): once it is let go, everything frozen goes back to the collector, and a process
that goes on reading files (a Dask worker, a test run) keeps collecting what it drops. Not "until
every such file is let go": a file dropped inside a cycle (an exception's traceback holding it)
that the next file's freeze took with everything else would then never be let go, and hold the
freeze, and every cycle frozen after, for the process's life. The TUI freezes its session itself
after loading (`tui.session.Session.load`), for the app's lifetime: its preview, read before the
session, is not the newest file, and letting it go ends nothing.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import count
from threading import RLock

#: Objects made while the collector was held off above which they are frozen. A young collection is
#: due every 700 allocations (`gc.get_threshold`), and the first one after the block walks all the
#: block made (and every reference they hold: 0.2–1.3 ms after reading a 1 MB capture, 0.3 ms after
#: a 915 kB request body), then the older collections again, where a freeze and its thaw cost a
#: few microseconds. Below it (a body of a few messages) no collection is due.
FREEZE_AT = 1_000


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


_alive: list[int] = []  # the files read under a freeze and not let go, oldest first (`thaw_after`)
_tokens = count()
_alive_lock = RLock()  # (re-entrant: a finalizer may run while it is held)


def thaw_after(owner: object) -> None:
    """End the freeze when `owner` is let go, unless a file read after it is still held."""
    token = next(_tokens)
    with _alive_lock:
        _alive.append(token)
    weakref.finalize(owner, _let_go, token)


def _let_go(token: int) -> None:
    with _alive_lock:
        newest = _alive[-1] == token
        _alive.remove(token)
        if newest:
            gc.unfreeze()
