"""The core is a library: importing it must not pull in the TUI or CLI frameworks."""

import subprocess
import sys

CORE = ["tooldbg.model", "tooldbg.formats", "tooldbg.records.containers", "tooldbg.stitch",
        "tooldbg.load", "tooldbg.convert", "tooldbg.jsonio", "tooldbg.wirejson", "tooldbg.reserialize",
        "tooldbg.checks", "tooldbg.report", "tooldbg.show"]


def test_core_imports_neither_textual_nor_click():
    code = (f"import sys\nfor m in {CORE!r}: __import__(m)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'click'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_module_does_not_import_textual_before_the_tui_opens():
    code = "import sys, tooldbg.cli\nprint('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
