"""The `tooldbg` command (pyproject's entry point) and `python -m tooldbg`: the CLI, whose modules are
imported with the cyclic garbage collector held off, then frozen.

Importing makes tens of thousands of objects (functions, classes, tables) that live as long as the
process and hold no garbage, yet the collector walks them: a young collection every few hundred new
objects during the imports, and every older collection after, each over all of them. Frozen
(`gc.freeze`: moved to the permanent generation, which collections skip), they are never walked
again; that walking was about a tenth of `check`'s start-up. The collector is back on before the
command runs. This is the way the `gc` docs give for a process that imports much before its work.

Before the imports, `dataclasses` is given the methods it compiled for the same classes in an
earlier run (`tooldbg.methodcache`): compiling them was a quarter of the start-up."""

from __future__ import annotations

import atexit
import gc
from typing import NoReturn


def main() -> NoReturn:
    collecting = gc.isenabled()
    gc.disable()
    from .methodcache import install

    save = install()
    if save is not None:
        atexit.register(save)
    from .cli import main as run

    if collecting:
        gc.freeze()
        gc.enable()
    run()


if __name__ == "__main__":
    main()
