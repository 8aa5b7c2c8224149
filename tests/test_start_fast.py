"""`check`, `show` and `convert` start fast because they import only what they use: never the TUI
framework (Textual is imported by `tooldbg open` and `tooldbg` alone), and `check --format json`
not even rich, which only drawing needs. Each command runs in a fresh interpreter that then lists
the modules it imported: the test is about what is imported, not about a time."""

from __future__ import annotations

import io
import json
import pkgutil
import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.padding import Padding
from rich.syntax import Syntax
from rich.text import Text

from tests import paths
from tooldbg.checks import RULES
from tooldbg.checks import rules as rules_package
from tooldbg.cli.output import PIPE_MAX_WIDTH, _plain
from tooldbg.jsonio import dumps_str
from tooldbg.render import Line, code, guard, safe_line

SAMPLE = str(paths.SAMPLES / "anthropic" / "request.json")
DEFECT = str(paths.SAMPLES / "defects" / "TD303-session-store-drops-is-error.jsonl")

RUN = """
import sys
from tooldbg.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("\\nMODULES " + " ".join(sorted(sys.modules)), file=sys.stderr)
"""


def run(*argv: str) -> tuple[set[str], str]:
    """The modules a command imported, and what it printed."""
    done = subprocess.run([sys.executable, "-c", RUN, *argv], capture_output=True, text=True, check=True,
                          timeout=120)
    line = done.stderr.rsplit("MODULES ", 1)[1]
    return set(line.split()), done.stdout


def imported(*argv: str) -> set[str]:
    return run(*argv)[0]


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


@pytest.mark.parametrize("ran, argv", [
    ("tooldbg.checks", ("check", DEFECT)),
    ("tooldbg.checks", ("check", str(paths.SAMPLES), "--format", "github")),
    ("tooldbg.show", ("show", SAMPLE)),
    ("tooldbg.formats.gemini.serialize", ("convert", SAMPLE, "--to", "gemini")),
])
def test_commands_that_print_never_import_textual(ran, argv):
    modules = imported(*argv)
    assert ran in modules  # the command did run
    assert "textual" not in top_level(modules)
    assert not any(m.startswith("tooldbg.tui") for m in modules)


def test_check_json_imports_neither_textual_nor_rich_nor_the_diff_engine():
    modules = imported("check", DEFECT, "--format", "json")
    assert "tooldbg.checks" in modules and "tooldbg.scan" in modules
    assert not top_level(modules) & {"textual", "rich", "pygments", "distributed", "dask"}
    assert "tooldbg.diff" not in modules and "tooldbg.report" not in modules


def format_modules(modules: set[str], kind: str) -> set[str]:
    """The formats' `stream` or `serialize` modules among `modules`."""
    return {m for m in modules if m.startswith("tooldbg.formats.") and m.endswith(f".{kind}")}


@pytest.mark.parametrize("argv", [("check", SAMPLE), ("check", DEFECT, "--format", "json"), ("show", SAMPLE)])
def test_a_body_read_loads_no_stream_assembler_nor_writer(argv):
    modules = imported(*argv)
    assert "tooldbg.formats.anthropic.read" in modules  # the body was read
    assert not format_modules(modules, "stream") and not format_modules(modules, "serialize")


@pytest.mark.parametrize("name, stream", [("anthropic", "stream.sse"), ("openai-chat", "stream.sse"),
                                          ("bedrock", "stream.jsonl")])
def test_a_stream_loads_the_assembler_of_its_format_and_still_reads(name, stream):
    modules, printed = run("check", str(paths.SAMPLES / name / stream), "--format", "json")
    package = f"tooldbg.formats.{name.replace('-', '_')}"
    assert f"{package}.stream" in format_modules(modules, "stream")
    assert not format_modules(modules, "serialize")
    [read] = json.loads(printed)["inputs"]
    assert (read["formats"], read["conversations"], read["errors"]) == ([name], 1, [])


def test_check_on_one_core_starts_no_process_pool():
    modules = imported("check", SAMPLE)
    assert "concurrent.futures.process" not in modules and "multiprocessing" not in top_level(modules)


#: What only a command that writes a request body loads: the limit tables, the export, the repairs.
WRITING = {"tooldbg.targets", "tooldbg.fit", "tooldbg.convert", "tooldbg.writing", "tooldbg.repair"}
RULE_MODULES = sorted(f"tooldbg.checks.rules.{m.name}" for m in pkgutil.iter_modules(rules_package.__path__))


def rule_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith("tooldbg.checks.rules."))


@pytest.mark.parametrize("argv", [("check", DEFECT), ("check", SAMPLE, "--format", "json"), ("show", SAMPLE)])
def test_commands_that_write_nothing_load_neither_the_limit_tables_nor_the_export(argv):
    assert not imported(*argv) & WRITING


#: The rules a plain `check` never runs: `diff`'s TD7xx, and the TD8xx target rules (with --target only).
NOT_RUN_BY_CHECK = ("tooldbg.checks.rules.td7", "tooldbg.checks.rules.td8")


def test_check_loads_every_rule_it_runs_and_prints_a_clean_report_without_rich():
    modules = imported("check", SAMPLE)
    assert rule_modules(modules) == [m for m in RULE_MODULES if not m.startswith(NOT_RUN_BY_CHECK)]
    assert "tooldbg.report" in modules
    assert not top_level(modules) & {"rich", "pygments"} and "tooldbg.diff" not in modules


def test_check_with_a_target_or_a_selection_loads_the_rules_it_names():
    with_target = imported("check", SAMPLE, "--target", "gemini")
    assert rule_modules(with_target) == [m for m in RULE_MODULES if not m.startswith(NOT_RUN_BY_CHECK[0])]
    assert rule_modules(imported("check", SAMPLE, "--ignore", "TD3")) == RULE_MODULES  # names looked up


def test_check_with_findings_draws_their_json_with_rich_but_highlights_nothing_on_a_pipe():
    modules = imported("check", DEFECT)
    assert "rich.console" in modules
    assert "pygments" not in top_level(modules) and "rich.syntax" not in modules


def test_show_on_a_pipe_loads_no_highlighter():
    modules, printed = run("show", SAMPLE)
    assert '"role": "user"' in printed  # the wire JSON was drawn
    assert "pygments" not in top_level(modules) and "rich.syntax" not in modules


def test_show_loads_the_one_rule_it_runs():
    modules = imported("show", SAMPLE)
    assert rule_modules(modules) == ["tooldbg.checks.rules.td901_provider_rejected"]


def test_convert_loads_the_writers_and_the_target_rules_it_runs_not_every_rule_nor_rich():
    modules = imported("convert", SAMPLE, "--to", "mistral")
    assert {"tooldbg.targets", "tooldbg.convert", "tooldbg.formats.openai_chat.serialize"} <= modules
    target_rules = [m for m in RULE_MODULES if m.startswith("tooldbg.checks.rules.td8")]
    assert set(target_rules) <= modules and len(rule_modules(modules)) < len(RULE_MODULES)
    assert not top_level(modules) & {"rich", "pygments"}


#: The repairs `fix` (and `convert --fix`) make; `convert` alone asks only their guard what it would blank.
REPAIRS = {"tooldbg.repair.registry", "tooldbg.repair.ids", "tooldbg.repair.replay", "tooldbg.repair.structure"}


def test_convert_loads_the_repairs_guard_not_the_repairs_which_fix_still_loads():
    modules, body = run("convert", SAMPLE, "--to", "gemini")
    assert "tooldbg.guard" in modules and not modules & REPAIRS
    assert json.loads(body)["contents"]  # the body was written
    assert REPAIRS <= imported("convert", SAMPLE, "--to", "gemini", "--fix")
    assert REPAIRS <= imported("fix", DEFECT)


def test_the_registry_loaded_rule_by_rule_still_finds_every_rule():
    # One rule first (as `show`), then the TD8xx (as `convert`), then all (as `check`), in a fresh
    # interpreter: the same rules in code order, and `checks.preflight` the function.
    code = ("from tooldbg import checks\n"
            "one, target = checks.RULES['TD901'], checks.select_rules(['TD8'], target='anthropic')\n"
            "every = list(checks.RULES.values())\n"
            "assert one in every and target == [r for r in every if r.target] and callable(checks.preflight)\n"
            "print(' '.join(r.code for r in every))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.split() == list(RULES)


def test_each_rule_module_is_named_after_its_code_and_name():
    # The registry finds a rule by its module's name (`RULES["TD901"]` imports `td901_…` alone).
    assert [f"tooldbg.checks.rules.{code.lower()}_{rule.name.replace('-', '_')}" for code, rule in RULES.items()] \
        == RULE_MODULES


# -- text printed without rich's console ------------------------------------------------------------

#: Pieces of log text: wide characters, an emoji a joiner belongs in, controls (rich's `Text` drops
#: `\r` and BEL), a bidi override, and parts of credentials a style may split.
_PIECES = ["a", "b c", " ", "  ", "\n", "漢字", "👩", "\u200d", "💻", "\u202e", "\x1b[31m", "\r", "\x07", "sk-",
           "abcdefgh1234", "password=", "hunter22", "Bearer ", "é", "", "\xa0", "\u3000", "x" * 50]


@st.composite
def report_lines(draw: st.DrawFn) -> Line:
    """Lines as the report builds them: runs plain and styled, log text through `safe_line`."""
    line = Line()
    for _ in range(draw(st.integers(0, 6))):
        text = "".join(draw(st.lists(st.sampled_from(_PIECES), max_size=4)))
        style = draw(st.sampled_from(["", "bold"]))
        if draw(st.booleans()):
            line.append_text(safe_line(text, style))
        else:
            line.append(text, style)
    return line


@settings(max_examples=300, deadline=None)
@given(report_lines())
@example(Line("Bearer\nabcdefghijkl1234", "bold"))
@example(Line("password=").append("\n", "bold").append("👩"))
@example(Line("password=").append("\r", "bold").append("a"))  # rich drops the \r: no run is left
def test_a_report_line_on_a_pipe_prints_as_rich_prints_it(line):
    # The report's `Line` is printed on a pipe without rich; rich draws it as the `Text` it stands for.
    drawn = io.StringIO()
    Console(file=drawn, width=PIPE_MAX_WIDTH, highlight=False, soft_wrap=True).print(guard(line), width=120)
    assert _plain(line) == drawn.getvalue()


def test_what_rich_must_lay_out_or_colour_goes_to_rich(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    assert _plain(Line("a\tb")) is None  # rich expands the tab to the next stop
    assert _plain(Text("a")) is None and _plain(Padding(Line("a"), (0, 0, 0, 2))) is None
    assert _plain(Line("a", "red")) == "a\n"
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich colours a pipe then
    assert _plain(Line("a", "red")) is None


# -- JSON excerpts drawn without pygments where nothing is coloured ----------------------------------

_STRINGS = st.lists(st.sampled_from(["a", " ", "\t", "漢字", "👩\u200d💻", "é", "x" * 70, "a b c " * 15, "\n"]),
                    max_size=6).map("".join)
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | _STRINGS,
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_STRINGS, inner, max_size=4),
                     max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.integers(20, 140), st.sampled_from([None, 3, 30]), st.sampled_from([None, 60, 4000]))
@example({"a": "👩\u200d💻" * 20}, 40, None, None)
@example([], 20, None, None)
def test_a_json_excerpt_on_a_pipe_is_drawn_as_rich_syntax_draws_it(value, width, lines, chars):
    # As `show` and `check` cut and draw a wire value: rich's `Syntax` highlights it with pygments.
    excerpt = code(dumps_str(value, indent=True), lines=lines, chars=chars, theme="ansi_dark", word_wrap=True)
    drawn = []
    for renderable in (excerpt, Syntax(excerpt.code, "json", theme="ansi_dark", word_wrap=True)):
        out = io.StringIO()
        console = Console(file=out, width=PIPE_MAX_WIDTH, highlight=False, soft_wrap=True)
        needed = console.measure(renderable)
        console.print(Padding(renderable, (0, 0, 0, 2)), width=width)
        console.print(renderable, width=needed.maximum)
        drawn.append((needed, out.getvalue()))
    assert drawn[0] == drawn[1]
