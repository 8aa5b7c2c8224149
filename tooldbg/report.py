"""`tooldbg check` output: text grouped by conversation and turn with the offending JSON, the
documented JSON document, and GitHub workflow annotations. `rules` output lives here too."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.syntax import Syntax
from rich.text import Text

from . import __version__
from .checks import SEVERITIES, Finding, Rule
from .jsonio import dumps_str
from .load import Loaded
from .render import clip, safe
from .secrets import redact_text
from .shorten import one_line

#: Characters of a conversation id and of a location shown (the rest is cut: shorten.one_line).
LABEL, LOCATION = 200, 500

SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}
#: Lines of offending JSON shown under a finding in text output.
EXCERPT_LINES = 12


@dataclass(slots=True)
class Checked:
    loaded: Loaded
    findings: list[Finding] = field(default_factory=list)


def summary(results: list[Checked]) -> dict[str, int]:
    counts = dict.fromkeys(reversed(SEVERITIES), 0)
    for result in results:
        for finding in result.findings:
            counts[finding.severity] += 1
    return counts


def to_json(results: list[Checked]) -> dict[str, Any]:
    """The documented, versioned document of `check --format json` (keys are only ever added)."""
    return {
        "tooldbg": __version__,
        "inputs": [{"path": r.loaded.path, "container": r.loaded.container,
                    "formats": r.loaded.formats, "exchanges": len(r.loaded.reads),
                    "conversations": len(r.loaded.conversations),
                    "errors": [{"location": e.location, "message": e.message} for e in r.loaded.errors]}
                   for r in results],
        "findings": [f.to_dict() for r in results for f in r.findings],
        "summary": summary(results),
    }


def github(results: list[Checked]) -> Iterator[str]:
    """One workflow command per finding: `::error file=…,title=TD303 lost-is-error::message`."""
    level = {"error": "error", "warning": "warning", "info": "notice"}
    for result in results:
        for err in result.loaded.errors:
            yield (f"::error file={_escape_property(err.path)},title=unreadable input::"
                   f"{_escape_data(str(err))}")
        for f in result.findings:
            where = f" ({f.conversation} turn {f.turn})" if f.turn is not None else ""
            yield (f"::{level[f.severity]} file={_escape_property(f.path)},"
                   f"title={f.code} {f.name}::{_escape_data(f.message + where + ' at ' + f.pointer)}")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def text_report(results: list[Checked], redact: bool = True) -> Iterator[RenderableType]:
    """Findings grouped by file, conversation and turn, each with the JSON it points at."""
    for result in results:
        loaded = result.loaded
        yield safe(loaded.path, "bold underline")
        for err in loaded.errors:
            yield safe(f"  unreadable: {err}", "bold red")
        group: tuple[Any, ...] | None = None
        for finding in result.findings:
            key = (finding.conversation, finding.turn)
            if key != group:
                group = key
                yield _group_header(loaded, finding)
            yield _finding(loaded, finding, redact)
        if not result.findings and not loaded.errors:
            yield Text("  no findings", "green")
    counts = summary(results)
    line = Text()
    for i, (severity, count) in enumerate(counts.items()):
        line.append(", " if i else "")
        line.append(f"{count} {severity}{'s' if count != 1 and severity != 'info' else ''}",
                    SEVERITY_STYLES[severity] if count else "dim")
    yield line


def _group_header(loaded: Loaded, finding: Finding) -> Text:
    if finding.conversation is None:
        return Text(f"  exchange {finding.exchange}", "bold")
    header = safe(f"  {one_line(finding.conversation, LABEL)}", "bold")
    if finding.turn is not None:
        conv = loaded.conversation(finding.conversation)
        role = conv.turns[finding.turn].role if conv and finding.turn < len(conv.turns) else ""
        header.append(f" turn {finding.turn} {role}", "bold")
    return header


def _finding(loaded: Loaded, finding: Finding, redact: bool) -> RenderableType:
    line = Text("    ")
    line.append(finding.code, SEVERITY_STYLES[finding.severity])
    line.append(f" {finding.severity} ", SEVERITY_STYLES[finding.severity])
    line.append(f"{finding.name}: ", "bold")
    line.append_text(safe(finding.message))
    where = Text("      at ", "dim")
    where.append_text(safe(f"exchange {finding.exchange} {one_line(finding.pointer, LOCATION)}", "dim"))
    if finding.chunk is not None:
        where.append(f" chunk {finding.chunk}", "dim")
    value = _wire(loaded, finding)
    if value is None:
        return Group(line, where)
    text = dumps_str(value, indent=True)
    if redact:
        text = redact_text(text)
    lines = text.splitlines()
    if len(lines) > EXCERPT_LINES:
        text = "\n".join(lines[:EXCERPT_LINES]) + f"\n… {len(lines) - EXCERPT_LINES} more lines"
    return Group(line, where, Padding(Syntax(clip(text, 4000), "json", theme="ansi_dark",
                                             word_wrap=True), (0, 0, 0, 6)))


def _wire(loaded: Loaded, finding: Finding) -> Any:
    if finding.exchange is None or not 0 <= finding.exchange < len(loaded.reads):
        return None
    location, _, pointer = finding.pointer.rpartition("#") if "#" in finding.pointer \
        else ("", "", finding.pointer)
    exchange = loaded.reads[finding.exchange].exchange
    side = "request" if exchange.request is not None and exchange.request.location == location \
        else "response"
    if finding.chunk is not None and not pointer and side == "response" and exchange.response \
            and exchange.response.events is not None:
        events = exchange.response.events
        return events[finding.chunk].data if 0 <= finding.chunk < len(events) else None
    return loaded.wire_at(finding.exchange, side, pointer, finding.chunk)


def rule_list(rules: list[Rule]) -> Iterator[RenderableType]:
    for rule in rules:
        line = Text()
        line.append(f"{rule.code} ", SEVERITY_STYLES[rule.severity])
        line.append(f"{rule.name:28}", "bold")
        line.append(f"{rule.severity:8}", SEVERITY_STYLES[rule.severity])
        line.append(rule.message)
        yield line


def rule_doc(rule: Rule) -> Iterator[RenderableType]:
    title = Text()
    title.append(f"{rule.code} {rule.name}", "bold")
    title.append(f"  ({rule.severity}{', target pre-flight' if rule.target else ''})",
                 SEVERITY_STYLES[rule.severity])
    yield title
    yield Text(rule.message, "italic")
    for paragraph in rule.doc.split("\n\n"):
        yield Text("")
        yield Text(" ".join(paragraph.split()))
    for label, example in (("Bad", rule.bad), ("Good", rule.good)):
        yield Text("")
        yield Text(label, "bold red" if label == "Bad" else "bold green")
        yield Padding(Syntax(example, "json", theme="ansi_dark", word_wrap=True), (0, 0, 0, 2))
