"""The methods `@dataclass` writes, compiled once and kept beside tooldbg's bytecode.

`@dataclass` writes the source of the methods it adds to a class (`__init__`, `__repr__`, `__eq__`,
`__hash__`, a frozen class's `__setattr__` and `__delattr__`) and runs it with `exec`, which
compiles it: on Python 3.11 and 3.12 each method apart. For the ~300 methods of the CLI's 65
classes that was 534 → 378 M instructions of `tooldbg check`'s start-up on a small file (29 %;
`convert` 33 %, `show` 21 %: callgrind), more than click's import. Python keeps a module's
bytecode in `__pycache__`, but not code compiled from a string. So the command (`tooldbg.__main__`,
never the library) gives the `dataclasses` module an `exec` of its own (a module's global is found
before the builtin) that takes the code compiled before from the same text out of a file in
tooldbg's `__pycache__`, and writes what it compiled anew at exit. The text is the key: the same
text compiles to the same code (compiled as `exec` compiles it, inheriting no `__future__` flag),
and any other text — another class, another version of a class — is compiled as ever. Where the
file cannot be read or written, or holds what this Python did not write, only the time changes.
"""
from __future__ import annotations

import builtins
import dataclasses
import marshal
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

#: Where the compiled methods are kept: Python's own cache folder, named for this Python (its
#: bytecode differs between versions, as the `.pyc` names say).
CACHE = Path(__file__).with_name("__pycache__") / f"dataclass-methods.{sys.implementation.cache_tag}.marshal"
#: At most this many texts are kept, the ones used last (the CLI's classes write ~350, the TUI's
#: ~250 more; each is ~1.2 kB of the file, which every start reads).
LIMIT = 1024


def install(cache: Path = CACHE) -> Callable[[], None] | None:
    """Have `dataclasses` take the code of the methods it writes from `cache`: the function that
    writes what it compiled anew there (for the caller to run at exit), or None when `dataclasses`
    has an `exec` of its own already."""
    if "exec" in vars(dataclasses):
        return None
    known = _read(cache)
    added: set[str] = set()  # the texts compiled anew (none: the file is left as it is)

    def compiled(text: str) -> CodeType:
        kept = known.pop(text, None)
        if kept is not None:  # (each unmarshalled when asked for: a run uses some of what is kept)
            known[text] = kept  # (moved to the end: the latest used are the ones `_write` keeps)
            with suppress(ValueError, EOFError, TypeError):
                code = marshal.loads(kept)
                if isinstance(code, CodeType):
                    return code
        code = compile(text, "<string>", "exec", dont_inherit=True)
        known[text] = marshal.dumps(code)
        added.add(text)
        return code

    def cached_exec(source: str | CodeType, globals: dict[str, Any] | None = None,
                    locals: dict[str, Any] | None = None, /) -> None:
        builtins.exec(compiled(source) if isinstance(source, str) else source, globals, locals)  # noqa: S102

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]  # (found before the builtin)
    return partial(_write, cache, known, added)


def _read(cache: Path) -> dict[str, bytes]:
    """Each text and its code, marshalled; none when the file is absent or was not written by a
    Python of this bytecode (its magic number, as a `.pyc` has it)."""
    try:
        magic, known = marshal.loads(cache.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    return known if magic == MAGIC_NUMBER and isinstance(known, dict) else {}


def _write(cache: Path, known: dict[str, bytes], added: set[str]) -> None:
    """Keep what was compiled anew, with the `LIMIT` texts used last (not when Python is told to write
    no bytecode: `-B`, `PYTHONDONTWRITEBYTECODE`)."""
    if not added or sys.dont_write_bytecode:
        return
    kept = dict(list(known.items())[-LIMIT:])
    part = cache.with_name(f"{cache.name}.{os.getpid()}")
    try:
        cache.parent.mkdir(exist_ok=True)
        part.write_bytes(marshal.dumps((MAGIC_NUMBER, kept)))
        os.replace(part, cache)  # (whole or not at all: another process may be reading it)
    except OSError:
        with suppress(OSError):  # (the folder may be what could not be written)
            part.unlink(missing_ok=True)
