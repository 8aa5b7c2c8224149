"""What a format package loads on first use: its stream assembler and its writer.

A `check` or `show` of a request or response body reads it and neither assembles a stream nor
writes a body, so each package's `stream` and `serialize` modules (and what only they import) load
when a stream is read or a conversation written, not when tooldbg starts. A package still names them for
the type checker (`TYPE_CHECKING`), so `formats.Format` checks it as before. Other modules reach them
through the package (`formats.get(name).write`), never by importing `formats.<name>.serialize`: that
would load it with the package (tests/test_import_hygiene.py)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def on_first_use(package: str, modules: Mapping[str, str]) -> Callable[[str], object]:
    """The module `__getattr__` (PEP 562) of `package`: `name` is imported from the module
    `modules[name]` of that package, then kept on the package (the next look-up is plain)."""
    def __getattr__(name: str) -> object:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value
    return __getattr__


#: Where a format package's stream assembler and writer live (the same in every package).
STREAM_AND_WRITE: Mapping[str, str] = {"assemble_stream": "stream", "sniff_stream": "stream",
                                       "split_streams": "stream", "write": "serialize"}
