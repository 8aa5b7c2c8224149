"""The same inner layout in every format, and modules a reader can hold in their head.

Every registered format (`tooldbg.formats.FORMATS`) is a package of four modules: `common` (the
names the others share), `read` (the reader), `stream` (the stream assembler) and `serialize` (the
writer). The writer is a class `_Writer(writer.Writer)` and the assembler a class `_Assembler` fed one
event at a time, so a change to one format's writer or assembler finds its counterpart in the others
under the same name.

No module of the package is over `MAX_LINES` lines: one that grows past it is split along the seams
it already has."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

import tooldbg
from tooldbg import formats
from tooldbg.formats.writer import Writer

SUBMODULES = ("common", "read", "stream", "serialize")
MAX_LINES = 600
PACKAGE = Path(tooldbg.__file__).resolve().parent


@pytest.mark.parametrize("name", list(formats.FORMATS))
def test_every_format_is_a_package_of_four_modules(name: str) -> None:
    module = formats.FORMATS[name]
    assert isinstance(module, type(formats)), f"{name} is not a module"
    assert hasattr(module, "__path__"), f"{name} ({module.__name__}) is a module, not a package"
    folder = Path(module.__file__ or "").parent
    for sub in SUBMODULES:
        assert (folder / f"{sub}.py").is_file(), f"{name} has no {sub}.py"
        importlib.import_module(f"{module.__name__}.{sub}")


@pytest.mark.parametrize("name", list(formats.FORMATS))
def test_every_writer_is_a_writer_class(name: str) -> None:
    write = importlib.import_module(f"{formats.FORMATS[name].__name__}.serialize")
    writer = getattr(write, "_Writer", None)
    assert inspect.isclass(writer), f"{write.__name__} defines no class _Writer"
    assert issubclass(writer, Writer), f"{write.__name__}._Writer is not a writer.Writer"
    assert writer.__module__ == write.__name__, f"{write.__name__}._Writer is imported, not defined there"


@pytest.mark.parametrize("name", list(formats.FORMATS))
def test_every_stream_has_an_assembler_fed_event_by_event(name: str) -> None:
    stream = importlib.import_module(f"{formats.FORMATS[name].__name__}.stream")
    assembler = getattr(stream, "_Assembler", None)
    assert inspect.isclass(assembler), f"{stream.__name__} defines no class _Assembler"
    assert assembler.__module__ == stream.__name__, f"{stream.__name__}._Assembler is imported"
    assert callable(getattr(assembler, "feed", None)), f"{stream.__name__}._Assembler has no feed(event)"


def _lines() -> dict[str, int]:
    return {path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
            for path in sorted(PACKAGE.rglob("*.py"))}


def test_no_module_is_over_the_limit() -> None:
    over = {path: count for path, count in _lines().items() if count > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them along their seams): {over}"
