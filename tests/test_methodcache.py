"""The methods `@dataclass` writes, compiled once (`tooldbg.methodcache`): a class made from the
cache is the class made without it, a second run compiles none of them, and a cache that cannot
be read or written changes nothing but the time."""

from __future__ import annotations

import dataclasses
import inspect
import marshal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import FrozenInstanceError, dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests import paths
from tooldbg import methodcache


@pytest.fixture(autouse=True)
def plain_dataclasses(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test installs the cache itself, and leaves `dataclasses` as it found it (in a Python
    that writes bytecode, whatever runs the tests)."""
    assert "exec" not in vars(dataclasses)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    yield
    vars(dataclasses).pop("exec", None)


def made() -> type:
    """A class with what each generated method reads: a default, a factory, a frozen hash."""

    @dataclass(frozen=True, slots=True)
    class Call:
        name: str
        arguments: tuple[str, ...] = field(default_factory=tuple)
        id: str | None = None

    return Call


def behaviour(cls: type) -> tuple[Any, ...]:
    """What a user of the class sees of each generated method."""
    call = cls("read_file", ("path",))
    with pytest.raises(FrozenInstanceError):
        call.name = "other"
    with pytest.raises(FrozenInstanceError):
        del call.name
    same = cls(name="read_file", arguments=("path",))
    return (repr(call), call == same, call != cls("read_file"), hash(cls("x")) == hash(cls("x")),
            cls("x").arguments, str(inspect.signature(cls)), vars(cls)["__init__"].__annotations__,
            [f.name for f in dataclasses.fields(cls)])


def uninstall() -> None:
    del vars(dataclasses)["exec"]


def installed(cache: Path) -> Callable[[], None]:
    """The cache installed (it is not already), and its writer."""
    save = methodcache.install(cache)
    assert save is not None
    return save


def kept_once(cache: Path) -> None:
    """A run that makes the class and keeps its methods in `cache`, then ends."""
    save = installed(cache)
    made()
    save()
    uninstall()


def test_a_class_made_from_the_cache_is_the_class_made_without(tmp_path: Path) -> None:
    cache = tmp_path / "methods.marshal"
    plain = behaviour(made())
    save = installed(cache)
    compiled = behaviour(made())
    save()
    uninstall()
    installed(cache)
    cached = behaviour(made())
    # (annotations as `dataclasses` compiles them: no `from __future__ import annotations` of the
    # module that compiles them now, which would leave the names `_type_name`… as strings)
    assert plain == compiled == cached
    assert plain[-2] == {"name": "str", "arguments": "tuple[str, ...]", "id": "str | None", "return": None}


def test_a_second_run_compiles_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "methods.marshal"
    kept_once(cache)
    monkeypatch.setattr(methodcache, "compile", _no_compile, raising=False)
    save = installed(cache)
    assert behaviour(made())[0] == "made.<locals>.Call(name='read_file', arguments=('path',), id=None)"
    before = cache.read_bytes()
    save()  # nothing new: the file is left as it was
    assert cache.read_bytes() == before


def _no_compile(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("compiled again")


@pytest.mark.parametrize("content", [
    b"not marshal data",
    marshal.dumps((b"\x00\x00\r\n", {})),  # another Python's bytecode
    marshal.dumps((methodcache.MAGIC_NUMBER, [])),
    marshal.dumps(42),
], ids=["damaged", "another-python", "not-a-dict", "not-a-pair"])
def test_a_cache_this_python_did_not_write_is_compiled_anew(tmp_path: Path, content: bytes) -> None:
    cache = tmp_path / "methods.marshal"
    cache.write_bytes(content)
    save = installed(cache)
    assert behaviour(made())[1]
    save()
    magic, known = marshal.loads(cache.read_bytes())
    assert magic == methodcache.MAGIC_NUMBER
    assert len(known) == 6  # __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__


def test_nothing_is_written_when_python_writes_no_bytecode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = tmp_path / "methods.marshal"
    save = installed(cache)
    made()
    save()
    assert not cache.exists()


def test_a_folder_it_cannot_write_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    cache = tmp_path / "file" / "__pycache__" / "methods.marshal"  # (its folder cannot be made)
    save = installed(cache)
    assert behaviour(made())[1]
    save()
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]


def test_a_kept_method_that_is_not_code_is_compiled_anew(tmp_path: Path) -> None:
    cache = tmp_path / "methods.marshal"
    plain = behaviour(made())
    kept_once(cache)
    magic, known = marshal.loads(cache.read_bytes())
    first, second, *_ = known
    damaged = {**known, first: b"\xff", second: marshal.dumps("text")}
    cache.write_bytes(marshal.dumps((magic, damaged)))
    save = installed(cache)
    assert behaviour(made()) == plain
    save()
    assert marshal.loads(cache.read_bytes())[1] == known  # (the two made again)


def test_the_texts_used_last_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file holds at most LIMIT texts: those a run used or compiled last, not the oldest."""
    cache = tmp_path / "methods.marshal"
    kept_once(cache)
    magic, first = marshal.loads(cache.read_bytes())
    old = {f"def __create_fn__():\n return {n}": marshal.dumps(compile(str(n), "<string>", "eval"))
           for n in range(10)}
    cache.write_bytes(marshal.dumps((magic, {**first, **old})))  # (the class's texts the oldest)
    monkeypatch.setattr(methodcache, "LIMIT", 12)
    save = installed(cache)
    made()  # (its six texts used again)

    @dataclass(frozen=True, slots=True)
    class Other:  # (six texts compiled anew)
        label: str

    save()
    kept = marshal.loads(cache.read_bytes())[1]
    assert len(kept) == 12 and set(first) < set(kept) and not set(old) & set(kept)


def test_installed_once(tmp_path: Path) -> None:
    assert methodcache.install(tmp_path / "a") is not None
    assert methodcache.install(tmp_path / "b") is None


def test_the_command_keeps_its_classes_methods(tmp_path: Path) -> None:
    """`tooldbg` (its entry point, `tooldbg.__main__`) writes the cache, and prints the same
    whether it compiled the methods or took them from there."""
    sample = str(paths.SAMPLES / "anthropic" / "request.json")
    command = [sys.executable, "-c", "from tooldbg.__main__ import main; main()", "check", sample]
    env = {"PATH": "", "HOME": str(tmp_path)}
    unwritten = subprocess.run([*command[:1], "-B", *command[1:]], capture_output=True, text=True,
                               env=env, timeout=120)
    first = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    second = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert unwritten.stdout == first.stdout == second.stdout and "TD" not in first.stdout
    assert unwritten.returncode == first.returncode == second.returncode == 0
    known = methodcache._read(methodcache.CACHE)
    assert sum(text.startswith("def __create_fn__") for text in known) >= 200
