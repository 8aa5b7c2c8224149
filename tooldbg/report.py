"""`tooldbg check` output: text grouped by conversation and turn with the offending JSON, the
documented JSON document, and GitHub workflow annotations. `rules` and `diff` output live here too.

Log text reaches the text report only through `render.safe` and `render.code` (credentials masked
unless `render.redaction(False)`, control characters escaped); the JSON document and the
annotation lines are data, cleaned where they are printed (`render.clean_json`, `render.clean`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .checks.base import SEVERITIES, Finding, Rule
from .checks.rejections import rejections
from .jsonio import dumps_str
from .load import Loaded
from .render import Line, clean, code, safe_line
from .scan import Checked, Report, skipped_line, summary, to_json
from .shorten import one_line

if TYPE_CHECKING:  # annotations only: the diff engine and rich load where they are used
    from rich.console import RenderableType

    from .diff.results import Diff, Place, SidedFinding

#: Characters of a conversation id and of a location shown (the rest is cut: shorten.one_line).
LABEL, LOCATION = 200, 500

SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
#: Lines of offending JSON shown under a finding in text output.
EXCERPT_LINES = 12
#: Lines of each side's JSON shown under a difference.
DIFF_EXCERPT_LINES = 8


def github(results: Sequence[Report]) -> Iterator[str]:
    """One workflow command per finding: `::error file=…,title=TD303 lost-is-error::message`."""
    level = {"error": "error", "warning": "warning", "info": "notice"}
    for result in results:
        for err in result.errors:
            yield (f"::error file={_escape_property(err.path)},title=unreadable input::"
                   f"{_escape_data(str(err))}")
        for f in result.findings:
            where = f" ({f.conversation} turn {f.turn})" if f.turn is not None else ""
            yield (f"::{level[f.severity]} file={_escape_property(f.path)},"
                   f"title={f.code} {f.name}::{_escape_data(f.message + where + ' at ' + f.pointer)}")


def _escape_data(text: str) -> str:
    """Text as a workflow command's value: cleaned first (`render.clean`: credentials masked while
    they still have their shape — escaped, `%22sk-…` becomes `%2522sk-…`, where no key starts a
    word), then `%`, CR and LF escaped as GitHub reads them."""
    return clean(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def text_report(results: list[Checked], skipped: Sequence[str] = ()) -> Iterator[RenderableType]:
    """Findings grouped by file, conversation and turn, each with the JSON it points at; then what
    was skipped (files of a folder that are not logs, entries in no provider's format) and the
    counts."""
    for result in results:
        loaded = result.loaded
        yield safe_line(loaded.path, "bold underline")
        for err in loaded.errors:
            yield safe_line(f"  unreadable: {err}", "bold red")
        if loaded.skipped and loaded.conversations:  # else the error says it
            many = loaded.skipped != 1
            yield Line(f"  skipped {loaded.skipped} entr{'ies' if many else 'y'} that no provider format "
                       f"recognizes (not LLM exchange{'s' if many else ''})", "dim")
        group: tuple[Any, ...] | None = None
        for finding in result.findings:
            key = (finding.conversation, finding.turn)
            if key != group:
                group = key
                yield _group_header(loaded, finding)
            yield _finding(loaded, finding)
        if not result.findings and not loaded.errors:
            yield Line("  no findings", "green")
    said = skipped_line(skipped)
    if said:
        yield safe_line(said, "dim")
    counts = summary(results)
    line = Line()
    for i, (severity, count) in enumerate(counts.items()):
        line.append(", " if i else "")
        line.append(f"{count} {severity}{'s' if count != 1 and severity != 'info' else ''}",
                    SEVERITY_STYLES[severity] if count else "dim")
    yield line


def _group_header(loaded: Loaded, finding: Finding) -> Line:
    if finding.conversation is None:
        return Line(f"  exchange {finding.exchange}", "bold")
    header = safe_line(f"  {one_line(finding.conversation, LABEL)}", "bold")
    if finding.turn is not None:
        conv = loaded.conversation(finding.conversation)
        role = conv.turns[finding.turn].role if conv and finding.turn < len(conv.turns) else ""
        header.append_text(safe_line(f" turn {finding.turn} {role}", "bold"))
    return header


def _finding(loaded: Loaded, finding: Finding) -> RenderableType:
    line = Line("    ")
    line.append(finding.code, SEVERITY_STYLES[finding.severity])
    line.append(f" {finding.severity} ", SEVERITY_STYLES[finding.severity])
    line.append(f"{finding.name}: ", "bold")
    line.append_text(safe_line(finding.message))
    where = Line("      at ", "dim")
    where.append_text(safe_line(f"exchange {finding.exchange} {one_line(finding.pointer, LOCATION)}", "dim"))
    if finding.chunk is not None:
        where.append(f" chunk {finding.chunk}", "dim")
    from rich.console import Group  # here: a report of `Line`s alone is printed without rich

    value = _wire(loaded, finding)
    if value is None:
        return Group(line, where)
    excerpt = code(dumps_str(value, indent=True), lines=EXCERPT_LINES, chars=4000, theme="ansi_dark",
                   word_wrap=True)
    return Group(line, where, _indented(excerpt, 6))


def _indented(renderable: RenderableType, left: int) -> RenderableType:
    """`renderable` `left` columns in (rich's `Padding`, loaded with the first layout drawn)."""
    from rich.padding import Padding

    return Padding(renderable, (0, 0, 0, left))


def _wire(loaded: Loaded, finding: Finding) -> Any:
    return wire_value(loaded, finding.exchange, finding.pointer, finding.chunk)


def wire_value(loaded: Loaded, exchange_index: int | None, address: str, chunk: int | None) -> Any:
    """The wire JSON at `location#pointer` of an exchange (a stream event, for a stream chunk)."""
    if exchange_index is None or not 0 <= exchange_index < len(loaded.reads):
        return None
    location, _, pointer = address.rpartition("#") if "#" in address else ("", "", address)
    exchange = loaded.reads[exchange_index].exchange
    side = "request" if exchange.request is not None and exchange.request.location == location \
        else "response"
    if chunk is not None and not pointer and side == "response" and exchange.response \
            and exchange.response.events is not None:
        events = exchange.response.events
        return events[chunk].data if 0 <= chunk < len(events) else None
    return loaded.wire_at(exchange_index, side, pointer, chunk)


def rule_list(rules: list[Rule]) -> Iterator[RenderableType]:
    for rule in rules:
        line = Line()
        line.append(f"{rule.code} ", SEVERITY_STYLES[rule.severity])
        line.append(f"{rule.name:28}", "bold")
        line.append(f"{rule.severity:8}", SEVERITY_STYLES[rule.severity])
        line.append(rule.message)
        yield line


#: What sets the severity of a rule's findings, by what its defect harms (`checks.evidence`).
SEVERITY_FROM = {
    "rejection": "the providers that refuse this are named; a finding is an error where the log shows "
                 "the refusal, where --target or the request's provider (its URL or model) refuses it, or "
                 "where a response handed it to the client; a warning where the provider accepted it or "
                 "is not known to refuse it",
    "damage": "the data the model or the client received is damaged: the rule's severity, whatever the "
              "provider answered",
    "symptom": "what the log suggests rather than shows: the rule's severity, a warning or an info",
    "target": "the provider named by --target refuses it: an error for that target",
    "verdict": "the provider's own rejection, recorded in the log",
}


def rule_doc(rule: Rule) -> Iterator[RenderableType]:
    title = Line()
    title.append(f"{rule.code} {rule.name}", "bold")
    kind = ", target pre-flight" if rule.target else ", from `tooldbg diff A B`" if rule.diff else ""
    title.append(f"  ({rule.severity}{kind})", SEVERITY_STYLES[rule.severity])
    yield title
    yield Line(rule.message, "italic")
    yield Line("")
    yield Line(f"Severity: {SEVERITY_FROM[rule.harm]}")
    for paragraph in rule.doc.split("\n\n"):
        yield Line("")
        yield Line(" ".join(paragraph.split()))
    from rich.syntax import Syntax  # (the examples are the only highlighted part)

    for label, example in (("Bad", rule.bad), ("Good", rule.good)):
        yield Line("")
        yield Line(label, "bold red" if label == "Bad" else "bold green")
        yield _indented(Syntax(example, "json", theme="ansi_dark", word_wrap=True), 2)


# ------------------------------------------------------------------------------------------ diff


def diff_json(d: Diff) -> dict[str, Any]:
    """`diff --format json`: the `check` document (both inputs, every finding, the summary), each
    finding with its `side` and its place on each side (`a`, `b`: null where there is none), then
    the conversations and exchanges paired and the notes. Keys are only ever added."""
    from .diff.results import SIDES

    doc = to_json([Checked(d.a, [f for f in d.own if f.side == "a"]),
                   Checked(d.b, [f for f in d.own if f.side == "b"])])
    for entry, side, loaded in zip(doc["inputs"], SIDES, (d.a, d.b), strict=True):
        entry["side"] = side
        entry["rejections"] = [{"conversation": r.read.conversation, "exchange": r.exchange,
                                "message": r.error.message, "type": r.error.type, "code": r.error.code}
                               for r in rejections(loaded)]  # TD901's, with the provider's own fields
    findings = d.everything
    doc["findings"] = [f.to_dict() for f in findings]
    doc["summary"] = diff_counts(findings)
    doc["differences"] = len(d.findings)
    doc["pairs"] = [p.to_dict() for p in d.pairings]
    doc["notes"] = [n.to_dict() for n in d.notes]
    return doc


def diff_text(d: Diff) -> Iterator[RenderableType]:
    """Both inputs, the conversations paired, each difference under the turns it is about with the
    wire JSON of each side, the notes, then each file's own findings."""
    from .diff.results import SIDES

    for side, loaded in zip(SIDES, (d.a, d.b), strict=True):
        line = Line(f"{side}  ", "bold")
        line.append_text(safe_line(loaded.path, "bold underline"))
        exchanges = f"{len(loaded.reads)} exchange{'s' if len(loaded.reads) != 1 else ''}"
        line.append_text(safe_line(f"  ·  {loaded.container}  ·  {', '.join(loaded.formats) or 'no format'}"
                                   f"  ·  {exchanges}", "dim"))
        yield line
        for err in loaded.errors:
            yield safe_line(f"   unreadable: {err}", "bold red")
    for pairing in d.pairings:
        line = Line("paired: ", "dim")
        line.append_text(safe_line(f"a {pairing.a} ↔ b {pairing.b}", "bold"))
        shown = ", ".join(f"{'-' if x is None else x}↔{'-' if y is None else y}"
                          for x, y in pairing.exchanges)
        line.append(f"   exchanges {shown}", "dim")
        yield line
    yield Line("")
    if d.findings:
        yield Line(f"differences ({len(d.findings)})", "bold")
        group: Any = None
        for finding in d.findings:
            key = (_at(finding.a), _at(finding.b))
            if key != group:
                group = key
                yield _diff_header(d, finding)
            yield from _difference(d, finding)
    else:
        yield Line("no differences", "green")
    if d.notes:
        yield Line("")
        yield Line("notes", "bold")
        for note in d.notes:
            yield safe_line(f"  {note.message}")
    yield Line("")
    yield Line("each side's own findings (tooldbg check)", "bold")
    for side, loaded in zip(SIDES, (d.a, d.b), strict=True):
        own = [f for f in d.own if f.side == side]
        head = Line(f"  {side}  ", "bold")
        if not own:
            head.append("no findings", "green")
        else:
            head.append_text(safe_line(loaded.path, "bold"))
        yield head
        if not own:
            continue
        turn: Any = None
        for finding in own:
            at = (finding.conversation, finding.turn)
            if at != turn:
                turn = at
                yield _indented(_group_header(loaded, finding), 2)
            yield _indented(_finding(loaded, finding), 2)
    yield _diff_summary(d)


def diff_counts(findings: list[SidedFinding]) -> dict[str, int]:
    counts = dict.fromkeys(reversed(SEVERITIES), 0)
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def _at(place: Place | None) -> tuple[Any, ...]:
    return (None,) if place is None else (place.conversation, place.turn)


def _diff_header(d: Diff, finding: SidedFinding) -> Line:
    header = Line("  ")
    for i, (side, place, loaded) in enumerate((("a", finding.a, d.a), ("b", finding.b, d.b))):
        header.append("  ↔  " if i else "", "dim")
        if place is None or place.conversation is None:
            header.append(f"{side} -", "bold")
            continue
        header.append_text(safe_line(f"{side} {place.conversation}", "bold"))
        if place.turn is not None:
            conv = loaded.conversation(place.conversation)
            role = conv.turns[place.turn].role if conv and place.turn < len(conv.turns) else ""
            header.append_text(safe_line(f" turn {place.turn} {role}".rstrip(), "bold"))
        else:
            header.append(" (the request)", "bold")
    return header


def _difference(d: Diff, finding: SidedFinding) -> Iterator[RenderableType]:
    style = SEVERITY_STYLES[finding.severity]
    line = Line("    ")
    line.append(finding.code, style)
    line.append(f" {finding.severity} ", style)
    line.append(f"{finding.name} ", "bold")
    line.append(f"on {finding.side}: ", "bold")
    line.append_text(safe_line(finding.message))
    yield line
    for side, place, loaded in (("a", finding.a, d.a), ("b", finding.b, d.b)):
        if place is None:
            continue
        where = Line(f"      {side}  ", "dim")
        where.append_text(safe_line(f"exchange {place.exchange} {place.pointer}", "dim"))
        if place.chunk is not None:
            where.append(f" chunk {place.chunk}", "dim")
        yield where
        if place.part is None:
            continue
        value = wire_value(loaded, place.exchange, place.pointer, place.chunk)
        if value is not None:
            yield _indented(code(dumps_str(value, indent=True), lines=DIFF_EXCERPT_LINES, chars=2000,
                                 theme="ansi_dark", word_wrap=True), 9)


def _diff_summary(d: Diff) -> Line:
    from .diff.results import SIDES

    line = Line("")
    differences = len(d.findings)
    line.append(f"{differences} difference{'s' if differences != 1 else ''}",
                "bold red" if differences else "green")
    for side in SIDES:
        own = [f for f in d.own if f.side == side]
        line.append(f"  ·  {side}: ", "dim")
        counts = diff_counts(own)
        shown = [f"{n} {s}{'s' if n != 1 and s != 'info' else ''}" for s, n in counts.items() if n]
        line.append(", ".join(shown) or "no findings", "yellow" if shown else "green")
    return line
