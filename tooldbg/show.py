"""`tooldbg show`: every turn's canonical parts beside the wire JSON they came from, printed with
rich for pipes and tickets. All log content goes through `render` (`safe` and `code`: never
markup, credentials masked unless `render.redaction(False)`, control characters escaped)."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from .chains import unseen_note
from .checks import RULES, run_checks
from .checks.base import Finding
from .jsonio import dumps_str
from .lacking import describe
from .load import Loaded
from .model import Conversation, Source, Turn
from .render import ROLE_STYLES, code, part_line, redacting, safe
from .secrets import SECRET_HEADERS, redact_headers, redact_text
from .shorten import one_line
from .timeline import ExchangeRead

#: Wire JSON longer than this many lines is cut in the side-by-side view.
WIRE_LINES = 40
#: Characters of a one-line value shown (model, tool names, URL, headers); longer ones are cut in the
#: middle before rendering (`shorten.one_line`), so a 200,000-line URL costs what is shown.
LABEL = 200
URL = 500


def render_loaded(loaded: Loaded, conversation_id: str | None = None,
                  labels: dict[tuple[str, str], str] | None = None) -> Iterator[RenderableType]:
    """`labels` names conversations by (file, id) where the bare id is not unique (`FILE#c1`)."""
    yield Rule(safe(f"{loaded.path}  ·  {loaded.container}  ·  "
                    f"{', '.join(loaded.formats) or 'no format'}"), style="bold")
    if loaded.lacks:  # said once for the file, not as a finding per turn
        yield safe(f"this {loaded.container} log {describe(loaded.lacks)}", "dim")
    for err in loaded.errors:
        yield safe(f"error: {err}", "bold red")
    rejected = rejections(loaded)
    for conv in loaded.conversations:
        if conversation_id is None or conv.id == conversation_id:
            label = labels.get((loaded.path, conv.id)) if labels else None
            yield from render_conversation(loaded, conv, label=label, rejected=rejected.get(conv.id, []))


def rejections(loaded: Loaded) -> dict[str | None, list[Finding]]:
    """The provider's rejections in the file, as `check` reports them (TD901), by conversation."""
    by_conversation: dict[str | None, list[Finding]] = {}
    for finding in run_checks(loaded, [RULES["TD901"]]):
        by_conversation.setdefault(finding.conversation, []).append(finding)
    return by_conversation


def render_conversation(loaded: Loaded, conv: Conversation, label: str | None = None,
                        rejected: list[Finding] | None = None) -> Iterator[RenderableType]:
    """One conversation; `rejected` are its TD901 findings (found here when not given)."""
    reads = loaded.reads_of(conv.id)  # an index: a scan of every read per conversation is quadratic
    exchanges = [r.exchange.index for r in reads]
    head = Text()
    head.append("conversation ", "bold")
    head.append_text(safe(one_line(label or conv.id, LABEL), "bold"))
    if conv.model:
        head.append("  model ")
        head.append_text(safe(one_line(conv.model, LABEL), "bold"))
    head.append(f"  ·  {len(conv.turns)} turns  ·  exchanges {', '.join(map(str, exchanges)) or '-'}")
    yield head
    unseen = unseen_note(conv, reads)
    if unseen is not None:
        yield safe(unseen, "yellow")
    for read in reads:
        yield from _exchange_header(read)
    if conv.system:
        yield Group(*(Text("system ", "magenta") + part_line(p) for p in conv.system))
    if conv.tools:
        tools = Text("tools ", "dim")
        for i, tool in enumerate(conv.tools):
            tools.append(", " if i else "")
            tools.append_text(safe(one_line(tool.name, LABEL), "bold"))
            if tool.kind != "function":
                tools.append_text(safe(f" ({one_line(tool.kind, LABEL)})", "dim"))
        yield tools
    for index, turn in enumerate(conv.turns):
        yield _turn_table(loaded, index, turn)
    for finding in rejected if rejected is not None else rejections(loaded).get(conv.id, []):
        text = Text(f"exchange {finding.exchange}: {finding.code} {finding.name}: ", "bold red")
        text.append_text(safe(finding.message))
        yield text


def _exchange_header(read: ExchangeRead) -> Iterator[RenderableType]:
    request, response = read.exchange.request, read.exchange.response
    line = Text(f"  exchange {read.exchange.index}: ", "dim")
    if request is not None and request.url:
        url = redact_text(request.url) if redacting() else request.url  # masked before it is cut
        line.append_text(safe(f"{one_line(request.method, LABEL)} {one_line(url, URL)}"))
    elif response is not None and response.is_stream:
        line.append("response only")
    elif request is not None or response is not None:  # a record of an agent's log: its line
        line.append_text(safe(one_line((request or response).location, URL)))  # type: ignore[union-attr]
    if response is not None and response.error is not None:  # a flow that got no response
        line.append_text(safe(f"  → no response: {one_line(response.error, URL)}", "bold red"))
    elif response is not None and response.status is not None:
        line.append(f"  → {response.status}", "green" if response.status < 400 else "bold red")
    if response is not None and response.is_stream:
        line.append(f"  (stream, {len(response.events or [])} events)", "dim")
    yield line
    for stream in read.streams:
        for problem in stream.problems:
            where = f"chunk {problem.chunk}" if problem.chunk is not None else "stream"
            yield safe(f"    {where}: {problem.kind}: {one_line(problem.message, URL)}", "yellow")
    if request is None:
        return
    # Credentials are masked by name too: a header value need not look like a key.
    headers = redact_headers(request.headers) if redacting() else request.headers
    secret = [f"{k}: {one_line(v, LABEL)}" for k, v in headers.items() if k in SECRET_HEADERS and k not in
              ("cookie", "set-cookie")]
    if secret:
        yield safe("    " + "  ".join(secret), "dim")


def _turn_table(loaded: Loaded, index: int, turn: Turn) -> Table:
    title = Text()
    title.append(f"turn {index} ", "bold")
    title.append(turn.role, ROLE_STYLES.get(turn.role, ""))
    title.append_text(safe(f"   {one_line(_where(turn.source), URL)}", "dim"))
    table = Table(title=title, title_justify="left", expand=True, show_header=False,
                  show_lines=False, box=None, padding=(0, 1))
    table.add_column("canonical", ratio=1)
    table.add_column("wire", ratio=1)
    parts = Group(*(part_line(p) for p in turn.parts)) if turn.parts else Text("(no parts)", "dim")
    table.add_row(parts, _wire(loaded, turn.source))
    return table


def _where(source: Source) -> str:
    if source.exchange is None:
        return ""
    where = f"exchange {source.exchange} {source.side or ''} {source.address}"
    return where + (f" chunk {source.chunk}" if source.chunk is not None else "")


def _wire(loaded: Loaded, source: Source) -> RenderableType:
    value = loaded.wire_at(source.exchange, source.side, source.pointer, source.chunk)
    if value is None:
        return Text("(no wire record)", "dim")
    return Panel(code(dumps_str(value, indent=True), lines=WIRE_LINES, chars=20000, width=URL, word_wrap=True,
                      theme="ansi_dark"), padding=0, border_style="dim")
