"""Untrusted text → what a terminal shows: the only way log content reaches a screen or a text output.

Text from a log or a file name (model output, tool results, ids, paths) is never parsed as markup:
it goes into a `Text` object. Before that, `clean` makes it harmless, in one pass:

* credentials are masked (`secrets.redact_text`) unless the user asked otherwise (`redaction`);
* characters that act on a terminal or hide what is shown are made visible as their escapes
  (`visible`): C0 controls but newline and tab, DEL, C1 controls (`\\x9b` is a CSI by itself),
  bidi overrides, embeddings, isolates and marks (`\\u202e`, `\\u2066`, `\\u200f`), zero-width and
  other invisible characters (`\\u200b`, `\\u2060`, `\\ufeff`, the soft hyphen, tag characters),
  line and paragraph separators and lone surrogates. `\\x1b` prints as the four characters `\\x1b`.

`safe` (a `Text`), `safe_line` (a report's `Line`) and `code` (highlighted JSON) are the entry
points; `guard` is the last pass over what a renderable draws, after layout, for the CLI's printed
output. JSON outputs keep the
data exact: `inert_json` only rewrites those characters as JSON `\\uXXXX` escapes. The CLI and the
TUI both describe parts through `part_line`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from .jsonio import dumps_str
from .model import Invocation, Json, Media, Opaque, Part, Reasoning, Result
from .model import Text as TextPart
from .secrets import redact_text
from .shorten import LINE, clip, one_line, shorten_lines

#: Characters of a name, id or type shown in a part's line (the rest is cut: see shorten.one_line).
LABEL = 200

if TYPE_CHECKING:  # rich is imported where it draws: `check --format json` never needs it
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.measure import Measurement
    from rich.syntax import Syntax
    from rich.text import Text

#: Emoji a zero-width joiner legitimately sits between (👩‍💻): that joiner is kept.
_EMOJI = "\u2600-\u27bf\ufe0f\U0001f000-\U0001faff"
#: What a terminal must never receive raw from a log: controls (newline and tab excepted), DEL and
#: C1, the soft hyphen, bidi marks, embeddings, overrides and isolates, zero-width and invisible
#: characters, line and paragraph separators, interlinear annotations, lone surrogates and tag
#: characters (invisible text some prompt injections hide in).
_INVISIBLE = ("\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
              "\u200b\u200c\u200e\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0e\ufeff\uffa0"
              "\ufff0-\ufffb\ud800-\udfff\U000e0000-\U000e0fff")
_CONTROL = re.compile(f"[{_INVISIBLE}\u200d]")  # one character class: a fast scan of a large body
_EMOJI_CHAR = f"[{_EMOJI}]"  # compiled where used: only beside a joiner

_REDACT: ContextVar[bool] = ContextVar("tooldbg_redact", default=True)


@contextmanager
def redaction(enabled: bool) -> Iterator[None]:
    """Mask credentials (the default) or not (`--no-redact`) in what is rendered inside the block."""
    token = _REDACT.set(enabled)
    try:
        yield
    finally:
        _REDACT.reset(token)


def redacting() -> bool:
    return _REDACT.get()


def visible(text: str) -> str:
    """Replace control, bidi and invisible characters with their escapes (newline and tab stay)."""
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text


def _joins_emoji(match: re.Match[str]) -> bool:
    """Is this a zero-width joiner between two emoji (👩‍💻), where it belongs?"""
    text, at = match.string, match.start()
    return (match.group() == "\u200d" and 0 < at < len(text) - 1
            and re.compile(_EMOJI_CHAR).match(text, at - 1) is not None
            and re.compile(_EMOJI_CHAR).match(text, at + 1) is not None)


def _escape(match: re.Match[str]) -> str:
    if _joins_emoji(match):
        return match.group()
    return match.group().encode("unicode_escape").decode("ascii")  # \x1b, \r, \u202e, \U000e0041


def clean(text: str) -> str:
    """Log text as it may be shown: credentials masked (unless redaction is off), then control,
    bidi and invisible characters escaped. Masking comes first: an escape written before a key
    (`\\u200bsk-…`) would hide where the key starts."""
    if len(text) < 6 and text.isascii() and text.isprintable():
        return text  # too short for a credential, no control character: most of what guard sees
    return visible(redact_text(text) if _REDACT.get() else text)


def safe(text: str, style: str = "") -> Text:
    """Log text as a rich `Text`: never markup, cleaned."""
    from rich.text import Text

    return Text(clean(text), style=style)


#: What rich's `Text` drops from the text it is given (`rich.control.STRIP_CONTROL_CODES`).
_DROPPED = dict.fromkeys((7, 8, 11, 12, 13))


class Line:
    """A line of a text report: runs of text, each with a rich style, built as a rich `Text` is
    (`append`, `append_text`). Rich draws it as that `Text` (`__rich__`); on a pipe the CLI prints
    its characters without loading rich (`cli.output`), so a short report costs no rich import.
    Log text enters through `safe_line`, cleaned."""

    __slots__ = ("runs",)

    def __init__(self, text: str = "", style: str = "") -> None:
        self.runs: list[tuple[str, str]] = []
        self.append(text, style)

    def append(self, text: str, style: str = "") -> Line:
        text = text.translate(_DROPPED)
        if text:
            self.runs.append((text, style))
        return self

    def append_text(self, other: Line) -> Line:
        self.runs.extend(other.runs)
        return self

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self.runs)

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text.assemble(*self.runs)


def safe_line(text: str, style: str = "") -> Line:
    """Log text as a report `Line`: never markup, cleaned (as `safe`)."""
    return Line(clean(text), style)


def code(text: str, *, lines: int | None = None, chars: int | None = None, width: int = LINE,
         **options: Any) -> JsonCode:
    """JSON text from a log, highlighted: cleaned first (JSON encoders leave C1, bidi and
    zero-width characters raw), then cut to `lines` lines and `chars` characters (cut after
    masking, so a cut never leaves the tail of a key unmasked)."""
    text = clean(text)
    if lines is not None:  # long lines cut in the middle too: a line of a megabyte costs what is shown
        text = shorten_lines(text, width, lines)
    if chars is not None:
        text = clip(text, chars)
    return JsonCode(text, options)


#: Rich's `Syntax` defaults that `JsonCode` draws by itself when nothing is coloured.
_TAB_SIZE = 4


class JsonCode:
    """JSON text drawn as rich's `Syntax(text, "json", **options)` draws it (theme `ansi_dark`:
    no background), highlighted by pygments only where colours are shown. On a console that prints
    no style (a pipe), the characters are the same either way: they are laid out here as `Syntax`
    lays them out (`_get_syntax` with `word_wrap`, no line numbers, no padding), so that `show`
    on a pipe never imports pygments (~30 ms of its ~160 ms start-up)."""

    __slots__ = ("code", "options")

    def __init__(self, code: str, options: dict[str, Any]) -> None:
        self.code = code
        self.options = options

    def syntax(self) -> Syntax:
        from rich.syntax import Syntax

        return Syntax(self.code, "json", **self.options)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        from rich.cells import cell_len
        from rich.measure import Measurement

        lines = self.code.splitlines()
        return Measurement(0, max(map(cell_len, lines)) if lines else 0)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if console.color_system is not None or not self.options.get("word_wrap"):
            yield self.syntax()
            return
        from rich.segment import Segment
        from rich.style import Style
        from rich.text import Text

        ends_on_nl = self.code.endswith("\n")
        processed = (self.code if ends_on_nl else self.code + "\n").expandtabs(_TAB_SIZE)
        text = Text(processed, justify="default", tab_size=_TAB_SIZE, no_wrap=False)
        wrap = options.update(height=None, justify="left")
        new_line = Segment("\n")
        for line in text.split("\n", allow_blank=ends_on_nl):
            for wrapped in console.render_lines(line, wrap, style=Style.null(), pad=False):
                yield from wrapped
                yield new_line


def clean_json(text: str) -> str:
    """JSON text as it may be printed or written: credentials masked (unless redaction is off),
    control, bidi and invisible characters as JSON escapes (`inert_json`)."""
    return inert_json(redact_text(text) if _REDACT.get() else text)


def inert_json(text: str) -> str:
    """JSON text with every character `visible` would escape written as a JSON escape (`\\u202e`):
    the same data, but no raw control, bidi or invisible character in the bytes. Such characters
    can only be inside strings in JSON text, where an escape means the same."""
    return _CONTROL.sub(_json_escape, text) if _CONTROL.search(text) else text


def _json_escape(match: re.Match[str]) -> str:
    if _joins_emoji(match):
        return match.group()
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xd800 + (code >> 10):04x}\\u{0xdc00 + (code & 0x3ff):04x}"


class _Guarded:
    """Draws `renderable`, then cleans the text of every segment it drew (see `guard`)."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment

        seen: dict[str, str] = {}  # borders, padding and indents repeat on every line
        for segment in console.render(self.renderable, options):
            text = segment.text
            if segment.control or not text:
                yield segment
                continue
            cleaned = seen.get(text)
            if cleaned is None:
                cleaned = clean(text)
                if len(seen) < 4096:
                    seen[text] = cleaned
            yield segment if cleaned == text else Segment(cleaned, segment.style)


def guard(renderable: RenderableType) -> RenderableType:
    """The last pass over printed output, after layout: whatever a renderable draws is cleaned
    once more, so a string that reached it without `safe` (a label built from log data by
    mistake) still cannot act on the terminal or show a key whole. Text built with `safe` is
    unchanged by it (both passes are idempotent); a key is masked before layout by `safe`, since
    wrapping could split it across lines."""
    return _Guarded(renderable)


ROLE_STYLES = {"system": "magenta", "user": "green", "assistant": "cyan", "tool": "yellow"}


def part_line(part: Part, *, width: int = 400) -> Text:
    """One part as a labelled line: `call i1 get_weather {"city":"Oslo"}`, `result → i1 ERROR …`."""
    from rich.text import Text

    line = Text()
    if isinstance(part, TextPart):
        line.append("text ", "dim")
        line.append_text(safe(clip(part.text, width)))
    elif isinstance(part, Invocation):
        line.append("call ", "bold cyan")
        line.append(f"{part.id} ", "cyan")
        line.append_text(safe(one_line(part.name, LABEL), "bold"))
        args = part.raw_arguments if part.raw_arguments is not None else dumps_str(part.arguments)
        line.append(" ")
        line.append_text(safe(clip(args, width)))
        if part.raw_arguments is not None:
            line.append("  (not valid JSON)", "bold red")
        if part.wire_id is not None:
            line.append("  id ", "dim")
            line.append_text(safe(one_line(part.wire_id, LABEL), "dim"))
    elif isinstance(part, Result):
        line.append("result ", "bold yellow")
        line.append(f"→ {part.invocation_id or '?'} ", "yellow" if part.invocation_id else "bold red")
        if part.is_error:
            line.append("ERROR ", "bold red")
        body = " ".join(part_line(p, width=width).plain for p in part.content)
        line.append_text(safe(clip(body, width)))
        if part.wire_id is not None:
            line.append("  id ", "dim")
            line.append_text(safe(one_line(part.wire_id, LABEL), "dim"))
    elif isinstance(part, Reasoning):
        line.append("reasoning ", "italic magenta")
        text = part.text or " ".join(part.summary)
        line.append_text(safe(clip(text, width), "italic"))
        if part.signature:
            line.append(f"  [signed by {part.origin or '?'}]", "dim")
        if part.redacted:
            line.append("  [redacted]", "dim")
    elif isinstance(part, Media):
        line.append(f"{part.kind} ", "bold blue")
        line.append_text(safe(one_line(part.media_type or "", LABEL), "blue"))
        if part.url:
            line.append(" ")
            line.append_text(safe(clip(part.url, 80)))
        elif part.data:
            line.append(f" ({len(part.data)} base64 chars)", "dim")
    elif isinstance(part, Json):
        line.append("json ", "dim")
        line.append_text(safe(clip(dumps_str(part.value), width)))
    elif isinstance(part, Opaque):
        line.append(f"opaque {part.origin} ", "dim")
        kind = part.value.get("type") if isinstance(part.value, dict) else None
        line.append_text(safe(one_line(kind if isinstance(kind, str) and kind else type(part.value).__name__,
                                       LABEL)))
    return line
