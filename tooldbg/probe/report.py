"""What `tooldbg probe` prints: the verdict table (step, layer, verdict, evidence) and the `check`
document with the probe's `steps`. Text from the wire (a provider's message in a reason) reaches the
table as `rich.text.Text`, never as markup."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..render import Line, safe, safe_line
from ..scan import Checked, to_json
from .steps import Outcome, Place, Verdict

if TYPE_CHECKING:
    from rich.console import RenderableType

VERDICT_STYLES = {"pass": "bold green", "fail": "bold red", "skip": "yellow"}


def json_document(outcome: Outcome, probe: dict[str, Any]) -> dict[str, Any]:
    """The `check --format json` document of the capture, plus `probe` (what was probed, where the
    capture is) and `steps` (each step's verdict, layer, codes, reason and evidence)."""
    doc = to_json([Checked(outcome.loaded, outcome.findings)])
    doc["probe"] = probe
    doc["steps"] = [v.to_dict() for v in outcome.verdicts]
    return doc


def place(p: Place) -> str:
    """`TD603 exchange 0 #/choices/0/message` (the JSON pointer inside the exchange's body)."""
    pointer = p.pointer.rpartition("#")[2] if "#" in p.pointer else p.pointer
    said = f"exchange {p.exchange}" if p.exchange is not None else "the capture"
    said += f" #{pointer}" if pointer else ""
    said += f" chunk {p.chunk}" if p.chunk is not None else ""
    return f"{p.code} {said}" if p.code else said


def text_report(outcome: Outcome, header: str, capture: str) -> Iterator[RenderableType]:
    from rich.table import Table

    yield safe_line(header, "bold")
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("step", "layer", "verdict", "evidence"):
        table.add_column(column, no_wrap=column != "evidence", overflow="fold")
    for verdict in outcome.verdicts:
        shown = safe(verdict.verdict.upper(), VERDICT_STYLES[verdict.verdict])
        table.add_row(verdict.step, verdict.layer, shown, _evidence(verdict))
    yield table
    counts = {kind: sum(1 for v in outcome.verdicts if v.verdict == kind)
              for kind in ("pass", "fail", "skip")}
    line = Line(f"{len(outcome.verdicts)} steps: ")
    line.append(", ".join(f"{n} {kind}" for kind, n in counts.items() if n),
                "bold red" if counts["fail"] else "green")
    yield line
    yield safe_line(f"capture: {capture} (open it: tooldbg {capture}; its findings: tooldbg check {capture})",
                    "dim")


def _evidence(verdict: Verdict) -> Any:
    from rich.text import Text

    cell = Text()
    if verdict.evidence:
        cell.append_text(safe(", ".join(place(p) for p in verdict.evidence), "dim"))
        cell.append("\n")
    cell.append_text(safe(verdict.reason))
    return cell
