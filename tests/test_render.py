"""`render`: the one escaping function (`visible`), the one cleaning pass for shown text (`clean`:
masked, then escaped), its JSON counterpart (`inert_json`: the same data, no raw character that
acts on a terminal), the redaction switch and the after-layout guard of printed output."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from tooldbg.render import clean, clean_json, code, guard, inert_json, redacting, redaction, safe, visible

#: Characters that act on a terminal or hide what it shows, and how each is shown.
ESCAPED = {
    "\x00": "\\x00", "\x07": "\\x07", "\x08": "\\x08", "\r": "\\r", "\x1b": "\\x1b", "\x7f": "\\x7f",
    "\x85": "\\x85", "\x9b": "\\x9b", "\x9d": "\\x9d", "\xad": "\\xad", "\u061c": "\\u061c",
    "\u200b": "\\u200b", "\u200c": "\\u200c", "\u200e": "\\u200e", "\u200f": "\\u200f",
    "\u2028": "\\u2028", "\u2029": "\\u2029", "\u202a": "\\u202a", "\u202e": "\\u202e",
    "\u2060": "\\u2060", "\u2066": "\\u2066", "\u2069": "\\u2069", "\ufeff": "\\ufeff",
    "\ufff9": "\\ufff9", "\ud800": "\\ud800", "\U000e0041": "\\U000e0041",
}


@pytest.mark.parametrize("char, shown", ESCAPED.items())
def test_every_control_bidi_and_invisible_character_is_shown_escaped(char: str, shown: str):
    assert visible(f"a{char}b") == f"a{shown}b"


def test_ordinary_text_is_unchanged():
    text = "Oslo — 12°C, “cloudy”; naïve café 東京 שלום مرحبا 👩\u200d💻 ✌️ \t tab\nnew line"
    assert visible(text) == text


def test_a_zero_width_joiner_outside_an_emoji_sequence_is_escaped():
    assert visible("a\u200db") == "a\\u200db"
    assert visible("👩\u200d💻") == "👩\u200d💻"


def test_the_sequences_from_the_issue_are_shown_not_sent():
    text = "\x1b]52;c;SGVsbG8=\x07\x1b[2J"
    assert visible(text) == "\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J"


def test_clean_masks_then_escapes_and_the_switch_turns_masking_off():
    key = "sk-ant-api03-abcdefghijklmnop"
    text = f"\u200b{key}\x1b[2J"
    assert redacting()
    assert clean(text) == "\\u200bsk-a•••\\x1b[2J"
    with redaction(False):
        assert not redacting()
        assert clean(text) == f"\\u200b{key}\\x1b[2J"
        assert safe(text).plain == f"\\u200b{key}\\x1b[2J"
    assert redacting() and safe(text).plain == "\\u200bsk-a•••\\x1b[2J"


def test_safe_text_is_never_markup():
    assert safe("[bold red]x[/] [link=https://e.example]y[/link]").plain == \
        "[bold red]x[/] [link=https://e.example]y[/link]"


def test_inert_json_is_the_same_data_without_raw_characters():
    value = {"t": "".join(ESCAPED) + " 👩\u200d💻 é", "k\u202e": ["\U000e0041"]}
    text = json.dumps(value, ensure_ascii=False)
    out = inert_json(text)
    assert json.loads(out) == value
    assert not any(char in out for char in ESCAPED if char != "\r")
    assert "\\u202e" in out and "\\udb40\\udc41" in out


def test_clean_json_masks_and_stays_valid():
    text = json.dumps({"a": "x\nsk-proj-abcdefghijklmnop\u202e"}, ensure_ascii=False)
    out = clean_json(text)
    assert json.loads(out) == {"a": "x\nsk-p•••\u202e"} and "\u202e" not in out


def test_code_masks_before_cutting():
    key = "sk-proj-abcdefghijklmnopqrstuvwxyz"
    text = json.dumps({"k": key})
    cut = code(text, chars=len(text) - 8)  # a cut before masking would leave sk-proj-abcdefghij…
    assert "abcdefghij" not in cut.code and "sk-p•••" in cut.code
    long = "\n".join(f'"line {n}"' for n in range(30))
    assert code(long, lines=12).code.endswith("… 18 more lines")


def render(renderable, width: int = 40) -> str:  # noqa: ANN001
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, force_terminal=False).print(renderable)
    return out.getvalue()


def test_guard_cleans_whatever_a_renderable_draws():
    raw = Text("key sk-ant-api03-abcdefghijkl and \x1b]0;title\x07 and \u202eabc")  # not built with safe
    out = render(guard(Panel(Group(raw))), width=80)
    assert "abcdefghijkl" not in out and "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "sk-a•••" in out and "\\x1b]0;title" in out and "\\u202eabc" in out


def test_guard_leaves_safe_text_as_it_is():
    text = safe("a [b] \x1b[31m sk-ant-api03-abcdefghijkl")
    assert render(guard(text), width=80) == render(text, width=80)
