"""Python's cyclic garbage collector held off while a file is read and checked.

Reading a log makes a great many small objects (a parsed record, and a frozen canonical object per
turn, part and source) that live as long as the file is open and form no reference cycles, so
reference counting frees them and the cyclic collector has nothing to find among them. It still
walks them: every full collection visits each object made so far, and a collection is due every
few hundred allocations. On a 100 MB session log that walking was half the time of reading and
checking it (README, Performance), and the walks went on after, once per full collection, while
the objects lived (`gc` docs, "generational garbage collection"; `gc.freeze`).

So reading runs with the collector off, and what it made is then frozen (`gc.freeze`: moved to the
permanent generation, which collections skip) when it was enough to cost a noticeable walk. The
checks run with the collector off too: the little they leave in cycles is young, and the next
young collection frees it. Nothing changes when the caller had switched the collector off itself.

What freezing costs: a frozen object that becomes part of an unreachable cycle is freed only after
`gc.unfreeze()` (objects freed by reference counting are freed as ever), and the freeze takes
every object the process holds at that moment, not only the file's. A command runs once and ends;
the TUI freezes its session the same way after loading (`tui.session.Session.load`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects made while the collector was held off above which they are frozen: past this, a walk
#: over them costs more than a few milliseconds (about a microsecond an object on a parsed log).
#: Below it (a small file, a request body `convert` checks) the next young collection walks them.
FREEZE_AT = 10_000


@contextmanager
def held_off(*, freeze: bool) -> Iterator[None]:
    """The collector off for the block, back on after it (if it was on before); with `freeze`,
    what the block made is frozen when it made more than `FREEZE_AT` objects the collector tracks."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # (the young generation's count goes on while the collector is off: the tracked objects
        # made since the last collection, less those freed)
        if freeze and gc.get_count()[0] > FREEZE_AT:
            gc.freeze()
        gc.enable()
