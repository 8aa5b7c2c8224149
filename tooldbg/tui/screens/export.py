"""Export (`e`) and fix (`x`): write the current conversation in another format — a wire format, a
provider profile or the canonical document — showing, before anything is written, what the writer
could not carry, whether the target would accept the body (the TD8xx pre-flight) and, with the
Repairs box ticked (`x` opens the dialog with it ticked), every repair `tooldbg fix` makes first and
every one it refuses, with the reason.

Nothing recorded is written empty: when the target would get `{}` for arguments, or lose a call or a
result the log holds, the dialog lists where and the repair that prevents it, and writes only once
the Repairs box is ticked (and only what then needs no guess).

The body and the reports are computed in a thread worker whenever the format or the box changes.
Writing goes through `convert.write_atomically`: never over an input, and over an existing file only
after the user confirms in the dialog. Secrets are masked unless the user unticks the box.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from ... import formats
from ...checks import preflight
from ...checks.base import Finding
from ...convert import Export, export
from ...errors import ToolDbgError
from ...formats.profiles import PROFILES, wire_format
from ...guard import Blank
from ...render import clean, safe, visible
from ...repair import Fixed, fix_conversation, write_fixed
from ...repair.base import Repair
from ...shorten import one_line
from ...wording import at
from ...writing import check_writable, write_atomically
from ..session import Location, Session

#: What the dialog can write: the five wire formats, the canonical document, the provider profiles.
EXPORT_TARGETS: tuple[str, ...] = (*formats.TARGETS, *PROFILES)
#: Report lines shown at most per section (a 10,000-turn conversation can lose thousands of things).
SHOWN = 400

#: A computation's inputs: the target, whether repairs are made, the model written.
_Inputs = tuple[str, bool, str | None]

_SEVERITY_MARK = {"error": ("✗ ", "bold red"), "warning": ("! ", "bold yellow"), "info": ("i ", "cyan")}


def default_path(input_path: str, conversation: str, target: str, conversations: int = 1) -> Path:
    """`<input stem>.<target>.json` in the working folder (`.<conversation>` too when the input
    holds several): where the user started tooldbg, never beside the input, which may be a bundled
    sample inside the installed package or a folder of fixtures not to be written into. The path is
    shown in an input field, which draws what it holds as it is: a control or bidi character of the
    input's name is written escaped in the suggested name (`run\\x1b….json`)."""
    source = Path(input_path)
    stem = source.stem if source.suffix else source.name
    middle = f".{conversation}" if conversations > 1 else ""
    return Path(visible(f"{stem}{middle}.{target}.json"))


def default_target(source_formats: list[str]) -> str:
    """Another provider's format than the one the log speaks (what exporting is usually for)."""
    return next((t for t in formats.WIRE_FORMATS if t not in source_formats), "canonical")


def report(target: str, result: Export, findings: list[Finding], fixed: Fixed | None = None,
           blanked: list[Blank] | None = None) -> Group:
    """The losses, the pre-flight findings and the repairs (`fixed`: the Repairs box is ticked), as
    the dialog lists them; `blanked` are the places the target would get an empty value."""
    writer = "the canonical form" if target == "canonical" else f"the {wire_format(target)} writer"
    rows: list[Text] = []
    head = Text(f"Losses ({len(result.losses)})", "bold")
    head.append(f"  what {writer} cannot carry", "dim")
    rows.append(head)
    if not result.losses:
        rows.append(Text("  none: everything in the conversation is carried over", "green"))
    for loss in result.losses[:SHOWN]:
        line = Text("  ")
        line.append("conversation" if loss.turn is None else f"turn {loss.turn}", "bold")
        if loss.part is not None:
            line.append(f" part {loss.part}", "bold")
        line.append("  ")
        line.append_text(safe(loss.message))
        rows.append(line)
    if len(result.losses) > SHOWN:
        rows.append(Text(f"  … and {len(result.losses) - SHOWN} more", "dim"))
    rows.append(Text(""))
    if target == "canonical":
        rows.append(Text("Pre-flight  no provider reads this document: no TD8xx check", "bold"))
    else:
        errors = sum(f.severity == "error" for f in findings)
        head = Text(f"Pre-flight ({len(findings)})", "bold")
        head.append(f"  would {target} accept it? (TD8xx)", "dim")
        rows.append(head)
        if not findings:
            rows.append(Text(f"  ✓ every known {target} constraint holds", "green"))
        elif errors:
            rows.append(Text(f"  {target} would reject this body ({errors} error"
                             f"{'s' if errors != 1 else ''}); it is still written if you ask", "bold red"))
        for finding in findings[:SHOWN]:
            mark, style = _SEVERITY_MARK.get(finding.severity, ("  ", ""))
            line = Text("  ")
            line.append(mark, style)
            line.append(f"{finding.code} ", "bold")
            line.append(f"{finding.name}  ", style)
            line.append_text(safe(finding.message))
            if finding.pointer:
                line.append("  at ", "dim")
                line.append_text(safe(one_line(finding.pointer, 300), "dim"))
            rows.append(line)
        if len(findings) > SHOWN:
            rows.append(Text(f"  … and {len(findings) - SHOWN} more", "dim"))
    rows.append(Text(""))
    rows += repair_rows(fixed, blanked or [], target)
    return Group(*rows)


def repair_rows(fixed: Fixed | None, blanked: list[Blank], target: str) -> list[Text]:
    """The Repairs section: each repair (before → after) and each refusal with its reason, or, with
    the box unticked, what the export would blank and the repair that prevents it."""
    rows: list[Text] = []
    if fixed is None:
        rows.append(Text.assemble(("Repairs", "bold"), ("  off: export writes the conversation as recorded "
                                                        "(tick Repairs, or press x, to make the safe "
                                                        "repairs first)", "dim")))
    else:
        repairs, refusals = fixed.repairs, fixed.refusals
        head = Text(f"Repairs ({len(repairs)})", "bold")
        head.append("  made before writing, each listed", "dim")
        rows.append(head)
        if not fixed.records:
            rows.append(Text("  none needed: no finding of this conversation has a repair", "green"))
        for record in fixed.records[:SHOWN]:
            line = Text("  ")
            line.append(record.code, "bold")
            line.append(f" {at(record.turn, record.part)}  ")
            if isinstance(record, Repair):
                line.append_text(safe(record.before))
                line.append(" → ", "bold green")
                line.append_text(safe(record.after))
            else:
                line.append("not repaired: ", "bold yellow")
                line.append_text(safe(record.reason))
            rows.append(line)
        if len(fixed.records) > SHOWN:
            rows.append(Text(f"  … and {len(fixed.records) - SHOWN} more", "dim"))
        if refusals:
            rows.append(Text(f"  {len(refusals)} not repaired: each needs a guess", "yellow"))
    if blanked:
        rows.append(Text(""))
        head = Text(f"Blocked ({len(blanked)})", "bold red")
        head.append(f"  {target} cannot carry these as recorded, and tooldbg writes no empty value in "
                    "their place", "dim")
        rows.append(head)
        for blank in blanked[:SHOWN]:
            line = Text("  ✗ ", "bold red")
            line.append_text(safe(str(blank)))
            rows.append(line)
        rows.append(Text("  tick Repairs to make the repairs named" if fixed is None else
                         "  not written: no safe repair exists for these", "bold red"))
    return rows


class ExportScreen(ModalScreen[Path | None]):
    """Dismissed with the written path (None when cancelled)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("q", "cancel", "Cancel", show=False),  # not quit; in the path field q is just typed
        Binding("ctrl+s", "write", "Write"),
    ]

    def __init__(self, session: Session, location: Location, *, repairs: bool = False) -> None:
        super().__init__()
        loaded = session.files[location.file]
        conversation = session.conversation(location) or \
            (loaded.conversations[0] if loaded.conversations else None)
        if conversation is None:
            raise ValueError(f"{loaded.path}: no conversation to export")
        self.loaded = loaded
        self.conversation = conversation
        #: Never written over: every file of the session.
        self.inputs = [Path(f.path) for f in session.files]
        self.target = default_target(loaded.formats)
        self.repairs = repairs
        self.result: Export | None = None
        self.findings: list[Finding] = []
        self.fixed: Fixed | None = None
        self.blanked: list[Blank] = []
        #: The model the export names (`convert --model`): the conversation's, unless edited. The
        #: field shows it on one line, control characters escaped (it comes from the log).
        self.model = conversation.model
        self._model_shown = one_line(conversation.model or "", 200)
        self._computed_for: _Inputs | None = None
        self._auto_path = str(self._default_path(self.target))
        self._confirmed: Path | None = None

    def _default_path(self, target: str) -> Path:
        return default_path(self.loaded.path, self.conversation.id, target, len(self.loaded.conversations))

    def compose(self) -> ComposeResult:
        conv = self.conversation
        with Vertical(id="export-dialog") as dialog:
            dialog.border_title = "Export conversation"
            dialog.border_subtitle = "ctrl+s write · esc cancel"
            with Horizontal(classes="export-row"):
                yield Label("Format", classes="export-label")
                yield Select([(t, t) for t in EXPORT_TARGETS], value=self.target, allow_blank=False,
                             id="export-format", compact=True)
            with Horizontal(classes="export-row"):
                yield Label("Conversation", classes="export-label")
                what = Text(f"{conv.id} ", "bold")
                what.append(f"{len(conv.turns)} turns ")
                what.append_text(safe(f"{conv.model or ''}  {self.loaded.path.rsplit('/', 1)[-1]}", "dim"))
                yield Static(what, id="export-conversation")
            with Horizontal(classes="export-row"):
                yield Label("Model", classes="export-label")
                yield Input(value=self._model_shown, placeholder="none named: OpenAI and Anthropic need one",
                            id="export-model", compact=True)
            with Horizontal(classes="export-row"):
                yield Label("Path", classes="export-label")
                yield Input(value=self._auto_path, id="export-path", compact=True)
            with Horizontal(id="export-boxes"):
                yield Checkbox("Mask secrets (API keys, tokens)", value=True, id="export-redact",
                               compact=True)
                yield Checkbox("Repairs (safe ones, each listed)", value=self.repairs, id="export-repairs",
                               compact=True)
            with VerticalScroll(id="export-report"):
                yield Static(Text("computing the losses…", "dim"), id="export-report-body")
            yield Static(id="export-status", classes="-empty")
            with Horizontal(id="export-buttons"):
                yield Button("Write", variant="primary", id="export-write", compact=True)
                yield Button("Cancel", id="export-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#export-format", Select).focus()
        self.call_after_refresh(self.compute, *self._inputs)  # paint the dialog first

    # ------------------------------------------------------------------------------------ state

    @on(Select.Changed, "#export-format")
    def _format_changed(self, event: Select.Changed) -> None:
        if not isinstance(event.value, str) or event.value == self.target:
            return
        self.target = event.value
        path_input = self.query_one("#export-path", Input)
        if path_input.value == self._auto_path:
            self._auto_path = str(self._default_path(self.target))
            path_input.value = self._auto_path
        self._recompute()

    @on(Checkbox.Changed, "#export-repairs")
    def _repairs_changed(self, event: Checkbox.Changed) -> None:
        if event.value == self.repairs:
            return
        self.repairs = event.value
        self._recompute()

    @on(Input.Changed, "#export-model")
    def _model_changed(self, event: Input.Changed) -> None:
        model = self.conversation.model if event.value == self._model_shown else event.value.strip() or None
        if model == self.model:
            return
        self.model = model
        self._recompute()

    @property
    def _inputs(self) -> _Inputs:
        """What the shown losses are computed from: the format, the repairs box, the model."""
        return self.target, self.repairs, self.model

    def _recompute(self) -> None:
        self.result = None
        self.query_one("#export-report-body", Static).update(Text("computing the losses…", "dim"))
        self._set_status(Text(""))
        self.compute(*self._inputs)

    @on(Input.Changed, "#export-path")
    def _path_changed(self, _event: Input.Changed) -> None:
        self._unconfirm()

    @on(Input.Submitted, "#export-path")
    def _path_submitted(self, _event: Input.Submitted) -> None:
        self.action_write()

    @on(Button.Pressed, "#export-write")
    def _write_pressed(self) -> None:
        self.action_write()

    @on(Button.Pressed, "#export-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def _unconfirm(self) -> None:
        if self._confirmed is not None:
            self._confirmed = None
            button = self.query_one("#export-write", Button)
            button.label, button.variant = "Write", "primary"
            self._set_status(Text(""))

    def _set_status(self, text: Text) -> None:
        status = self.query_one("#export-status", Static)
        status.update(text)
        status.set_class(not text.plain, "-empty")

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def compute(self, target: str, repairs: bool = False, model: str | None = None) -> None:
        """The body, the writer's losses, the pre-flight findings, the repairs (`repairs`) and what
        would be blanked, for `target`, off the UI thread."""
        try:
            conversation = replace(self.conversation, model=model)  # the Model field, emptied: none
            fixed = None
            if repairs:  # repaired, written, read back and repaired again, as `tooldbg fix` does
                rewritten = write_fixed([fix_conversation(self.loaded, conversation, target=target)],
                                        target, self.loaded.path)
                fixed, result = rewritten.fixed[0], rewritten.export
            else:
                # (blanks listed below; origins read by the pre-flight and the view)
                result = export([conversation], target, allow_blanks=True, origins=True)
            findings = preflight(result.body, target) if target != "canonical" else []
            blanked = list(result.blanks)
        except Exception as err:  # noqa: BLE001 - a writer failing on odd input is shown, not raised
            message = str(err) if isinstance(err, (ToolDbgError, ValueError)) else \
                f"internal error: {type(err).__name__}: {err}"
            self.app.call_from_thread(self._failed, target, message)
            return
        self.app.call_from_thread(self._computed, (target, repairs, model), result, findings, fixed, blanked)

    def _computed(self, inputs: _Inputs, result: Export, findings: list[Finding],
                  fixed: Fixed | None, blanked: list[Blank]) -> None:
        if inputs != self._inputs:
            return  # the user picked another format, flipped the box or edited the model meanwhile
        self.result, self.findings, self._computed_for = result, findings, inputs
        self.fixed, self.blanked = fixed, blanked
        shown = report(inputs[0], result, findings, fixed, blanked)
        self.query_one("#export-report-body", Static).update(shown)

    def _failed(self, target: str, message: str) -> None:
        if target == self.target:
            self.query_one("#export-report-body", Static).update(
                safe(f"cannot write {target}: {message}", "bold red"))

    # ----------------------------------------------------------------------------------- writing

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_write(self) -> None:
        if self.result is None or self._computed_for != self._inputs:
            self._set_status(Text("still computing the losses: write again in a moment", "yellow"))
            return
        if self.blanked:
            count = len(self.blanked)
            what = (f"not written: {self.target} would get an empty value in place of {count} recorded "
                    f"value{'s' if count != 1 else ''} (listed under Blocked); ")
            self._set_status(Text(what + ("tick Repairs to make the repairs named" if self.fixed is None
                                          else "no safe repair exists for them"), "bold red"))
            return
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            self._set_status(Text("give a path to write to", "bold red"))
            return
        path = Path(raw).expanduser()
        try:  # everything but "it exists", which the user may confirm: an input, a folder, a FIFO…
            check_writable(path, inputs=self.inputs, force=True)
        except ToolDbgError as err:
            self._set_status(safe(f"not written: {err}: choose another path", "bold red"))
            return
        force = self._confirmed is not None and self._confirmed == path.resolve()
        if path.exists() and not force:
            self._confirmed = path.resolve()
            button = self.query_one("#export-write", Button)
            button.label, button.variant = "Overwrite", "error"
            message = safe(str(path), "bold")
            message.append(" exists. Press Overwrite to replace it, or change the path.")
            self._set_status(message)
            button.focus()
            return
        redact = self.query_one("#export-redact", Checkbox).value
        try:
            write_atomically(path, self.result.text(redact=redact), inputs=self.inputs, force=force)
        except (ToolDbgError, OSError) as err:
            self._set_status(safe(f"not written: {err}", "bold red"))
            return
        losses = len(self.result.losses)
        errors = sum(f.severity == "error" for f in self.findings)
        detail = f"{losses} loss{'es' if losses != 1 else ''}"
        if self.fixed is not None:
            made = len(self.fixed.repairs)
            detail += f", {made} repair{'s' if made != 1 else ''}"
        if errors:
            detail += f", {errors} pre-flight error{'s' if errors != 1 else ''}"
        if self.result.missing:
            detail += f", no {' or '.join(self.result.missing)} ({self.target} requires one)"
        if not redact:
            detail += ", secrets NOT masked"
        self.app.notify(clean(f"wrote {path.resolve()} ({detail})"), title="export", markup=False,
                        severity="warning" if errors or not redact or self.result.missing else "information")
        self.dismiss(path)
