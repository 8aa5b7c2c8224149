"""The core is a library: importing it must not pull in the TUI or CLI frameworks.

The core is every module of the package but the entry points that exist to drive the frameworks:
the TUI package and the CLI (and `python -m tooldbg`, which is the CLI). A new core module is covered
without editing this file.
"""

import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import tooldbg
from tooldbg.formats import FORMATS

FRAMEWORKS = ("textual", "click")
ENTRY_POINTS = ("tooldbg.tui", "tooldbg.cli", "tooldbg.__main__")


def is_core(name: str) -> bool:
    return not any(name == entry or name.startswith(entry + ".") for entry in ENTRY_POINTS)


def _unwalkable(package: str) -> None:
    raise ImportError(f"{package} does not import, so the modules under it cannot be listed")


def core_modules() -> list[str]:
    # walk_packages imports packages (not modules) to find what is under them: done here, in the
    # test process, never in the interpreter that is checked. Without `onerror` a package that
    # fails to import would be skipped in silence, and its modules with it.
    found = [m.name for m in pkgutil.walk_packages(tooldbg.__path__, "tooldbg.", onerror=_unwalkable)]
    return ["tooldbg", *sorted(name for name in found if is_core(name))]


# Run in a fresh interpreter: imports each module in turn and reports every framework module that
# import brought in, with the chain of modules that were executing when the first one was asked for
# (the importer that caused it, not just the module being imported). The framework modules are then
# dropped from sys.modules, so the next module is judged on its own imports.
CHECKER = """
import importlib, sys

FRAMEWORKS = {frameworks!r}
chain = []

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in FRAMEWORKS and not chain:
            frame = sys._getframe(1)
            while frame is not None:
                if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") != "__main__":
                    chain.append(frame.f_globals.get("__name__", "?"))
                frame = frame.f_back
            chain.reverse()
            chain.append(name)
        return None

def loaded():
    return sorted(m for m in sys.modules if m.split(".")[0] in FRAMEWORKS)

sys.meta_path.insert(0, Watch())
assert not loaded(), loaded()
for module in sys.argv[1:]:
    importlib.import_module(module)
    leaked = loaded()
    if leaked:
        print(module, ",".join(sorted({{m.split(".")[0] for m in leaked}})), " -> ".join(chain), sep="\\t")
        for m in leaked:
            del sys.modules[m]
    chain.clear()
"""


def leaks(modules: list[str], path: Path | None = None) -> list[str]:
    """`module<TAB>frameworks<TAB>import chain` for each of `modules` that imports a framework."""
    code = CHECKER.format(frameworks=FRAMEWORKS)
    env = {**os.environ, "PYTHONPATH": str(path)} if path is not None else None
    out = subprocess.run([sys.executable, "-c", code, *modules], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_the_walk_finds_the_core_and_leaves_out_the_entry_points():
    core = core_modules()
    assert {"tooldbg.model", "tooldbg.formats.base", "tooldbg.checks.rules.td101_orphan_result",
            "tooldbg.records.sse"} <= set(core)
    assert not [m for m in core if m.startswith(("tooldbg.tui", "tooldbg.cli", "tooldbg.__main__"))]


def test_core_imports_neither_textual_nor_click():
    found = [line.split("\t") for line in leaks(core_modules())]
    assert not found, "core modules import a framework:\n" + "\n".join(
        f"  {module} imports {frameworks}: {chain}" for module, frameworks, chain in found)


def test_a_leak_is_reported_against_the_module_that_caused_it(tmp_path: Path):
    # The checker itself, on made-up modules: `b` leaks click through `c`; `d`, imported after it,
    # leaks textual on its own (the click `b` brought in does not hide it); `a` is clean, and `e`
    # only imports `b` again: the leak is `b`'s, reported once, with the import that caused it.
    for name, source in {"a": "import os\n", "b": "import c\n", "c": "import click\n",
                         "d": "import textual\n", "e": "import b\n"}.items():
        (tmp_path / f"{name}.py").write_text(source)
    assert leaks(["a", "b", "d", "e"], tmp_path) == ["b\tclick\tb -> c -> click",
                                                      "d\ttextual\td -> textual"]


def test_cli_module_does_not_import_textual_before_the_tui_opens():
    code = "import sys, tooldbg.cli\nprint('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_limit_tables_import_on_their_own():
    # `targets` names the profiles from `formats.profiles`, which loads the formats and their writers
    # first: a writer importing `targets` at module level (not where it writes) would find it half
    # made, an import cycle no other test meets, since they import the formats before the tables.
    for module in ("tooldbg.targets", "tooldbg.fit"):
        done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


#: An import of a format's `stream` or `write` module by its own name (`from .write import …`).
DIRECT = re.compile(r"^(?P<indent>[ \t]*)(?:from\s+\S*\.(?:write|stream)\s+import|import\s+\S*formats\.\w+\."
                    r"(?:write|stream)\b)", re.MULTILINE)


def test_a_formats_stream_assembler_and_writer_are_reached_through_its_package():
    # A format package loads its `stream` and `write` modules on first use (`formats.lazy`). Importing
    # `formats.<name>.write` by its own name first would bind the package's `write` to that module
    # (the import system names a loaded submodule on its package), not to the writer: so nothing
    # does, but the package itself for the type checker (indented, under `if TYPE_CHECKING:`).
    package = Path(tooldbg.__file__).parent
    formats = package / "formats"
    found = [f"{path.relative_to(package)}: {match.group().strip()}"
             for path in sorted(package.rglob("*.py")) for match in DIRECT.finditer(path.read_text())
             if path.parent.parent != formats or path.name != "__init__.py" or not match.group("indent")]
    assert found == []
    code = ("from tooldbg import formats\n"
            "print(' '.join(f'{m.write.__module__}.{m.write.__name__} {m.assemble_stream.__module__}'\n"
            "               for m in formats.FORMATS.values()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [f"{m.__name__}.{kind}" for m in FORMATS.values()
                                   for kind in ("write.write", "stream")]
