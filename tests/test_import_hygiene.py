"""The core is a library: importing it must not pull in the TUI or CLI frameworks.

The core is every module of the package but the entry points that exist to drive the frameworks:
the TUI package and the CLI (and `python -m tooldbg`, which is the CLI). A new core module is covered
without editing this file.
"""

import ast
import os
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
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


#: An import of a format's `stream` or `serialize` module by its own name (`from .serialize import …`).
DIRECT = re.compile(r"^(?P<indent>[ \t]*)(?:from\s+\S*\.(?:serialize|stream)\s+import|import\s+\S*formats\.\w+\."
                    r"(?:serialize|stream)\b)", re.MULTILINE)


def test_a_formats_stream_assembler_and_writer_are_reached_through_its_package():
    # A format package loads its `stream` and `serialize` modules on first use (`formats.lazy`): a
    # body read needs neither. Importing one by its own name would load it with the importer, so
    # nothing does but the package itself, for the type checker (indented, under `if TYPE_CHECKING:`).
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
                                   for kind in ("serialize.write", "stream")]


# ------------------------------------------------------------------ one home per name, no circles


def _modules(root: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Dotted name → (file, is a package) for every module under `root` (the folder of `package`)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module a `from … import` names, resolved against the importing module."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports(modules: dict[str, tuple[Path, bool]]) -> dict[str, dict[str, int]]:
    """Module → {module of the package it imports: line}. Every import counts: at module level,
    under `if TYPE_CHECKING:` and inside functions (an import deferred for speed still ties the two
    modules together). `from a import b` imports `a.b` when that is a module, else `a`."""
    graph: dict[str, dict[str, int]] = {}
    for module, (path, is_package) in modules.items():
        edges = graph.setdefault(module, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        edges.setdefault(alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                target = _target(module, is_package, node)
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in modules or target in modules:
                        edges.setdefault(sub if sub in modules else target, node.lineno)
    return graph


def circles(root: Path, package: str) -> list[list[str]]:
    """Each import circle among the modules under `root`: a strongly connected group of two or more
    modules (Tarjan's algorithm, iterative), as `module:line -> …` steps around one of its cycles."""
    graph = _imports(_modules(root, package))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(group)
    return [_cycle(graph, group) for group in groups]


def _cycle(graph: dict[str, dict[str, int]], group: set[str]) -> list[str]:
    """One cycle through `group`, from its first module back to it (breadth-first, so the shortest)."""
    first = min(group)
    came: dict[str, str] = {}
    queue = [first]
    while queue:
        node = queue.pop(0)
        for nxt in graph[node]:
            if nxt == first:
                path = [node]
                while path[-1] != first:
                    path.append(came[path[-1]])
                steps = [*reversed(path), first]
                return [f"{a}:{graph[a][b]} -> {b}" for a, b in zip(steps, steps[1:], strict=False)]
            if nxt in group and nxt not in came:
                came[nxt] = node
                queue.append(nxt)
    raise AssertionError(f"no cycle through {first}")


def reexported(roots: list[Path], modules: dict[str, tuple[Path, bool]]) -> list[str]:
    """`file:line: name from module` for each `from module import name`, in the files under `roots`,
    where `module` binds `name` only by importing it: the name has a home, and that is not it."""
    imported_only: dict[str, set[str]] = {}
    for module, (path, _) in modules.items():
        defined: set[str] = set()
        imports: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _top_level(tree.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.Import | ast.ImportFrom):
                imports |= {(a.asname or a.name).split(".")[0] for a in node.names}
        imported_only[module] = imports - defined
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            module = ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom):
                    continue
                target = _target(module, path.name == "__init__.py", node)
                for alias in node.names:
                    if f"{target}.{alias.name}" not in modules and alias.name in imported_only.get(target, ()):
                        found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {alias.name} from {target}")
    return found


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that bind a module's names: its body, into `if` and `try` blocks."""
    for node in body:
        if isinstance(node, ast.If | ast.Try):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
            for handler in getattr(node, "handlers", ()):
                yield from _top_level(handler.body)
        else:
            yield node


PACKAGE_ROOT = Path(tooldbg.__file__).parent
REPO = PACKAGE_ROOT.parent


def test_the_package_has_no_import_circle():
    assert circles(PACKAGE_ROOT, "tooldbg") == []


def test_a_planted_circle_is_found_with_the_lines_that_make_it(tmp_path: Path):
    # A circle closed only by a type-only import, and one through a function's deferred import:
    # neither fails at run time, both tie two modules that should be in layers.
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name, source in {"__init__.py": "", "a.py": "from .b import B\n",
                         "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\nB = 1\n",
                         "sub/__init__.py": "", "sub/c.py": "def f():\n    from .. import d\n",
                         "d.py": "from .sub.c import f\n", "e.py": "from . import a\n"}.items():
        (package / name).write_text(source)
    assert sorted(circles(package, "pkg")) == [["pkg.a:1 -> pkg.b", "pkg.b:3 -> pkg.a"],
                                               ["pkg.d:1 -> pkg.sub.c", "pkg.sub.c:2 -> pkg.d"]]


def test_each_name_is_imported_from_the_module_that_defines_it():
    modules = _modules(PACKAGE_ROOT, "tooldbg")
    assert reexported([PACKAGE_ROOT, REPO / "tests", REPO / "scripts"], modules) == []


def test_a_planted_reexport_is_found(tmp_path: Path):
    package = tmp_path / "pkg"
    package.mkdir()
    for name, source in {"__init__.py": "from .home import Thing\n", "home.py": "class Thing: ...\n",
                         "facade.py": "from .home import Thing\nfrom .home import Thing as Alias\n",
                         "user.py": "from .facade import Thing\nfrom .home import Thing as T\n",
                         "other.py": "from . import Thing, home\nfrom .facade import Alias\n"}.items():
        (package / name).write_text(source)
    assert reexported([package], _modules(package, "pkg")) == [
        "pkg/other.py:1: Thing from pkg", "pkg/other.py:2: Alias from pkg.facade",
        "pkg/user.py:1: Thing from pkg.facade"]
