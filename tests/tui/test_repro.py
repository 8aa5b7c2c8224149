"""`r` in the debugger: the chosen finding's log shrunk to a small one that still shows it
(`tooldbg repro`), written to the working folder."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.test_repro import said
from tests.tui.test_dialogs import palette
from tooldbg.checks import run_checks
from tooldbg.load import load_file
from tooldbg.tui.app import make_app
from tooldbg.tui.screens.main import MainScreen, repro_path
from tooldbg.tui.widgets.findings_panel import FindingsPanel

SAMPLES = Path(__file__).resolve().parents[2] / "sample_transcripts"
TD303 = SAMPLES / "defects" / "TD303-session-store-drops-is-error.jsonl"


@pytest.fixture(autouse=True)
def in_tmp_path(at_repo_root: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `r` writes lands in the working folder: work in `tmp_path`."""
    monkeypatch.chdir(tmp_path)


def press_r(path: Path, choose: int | None = None, *, by_palette: bool = False) -> list[str]:
    """Open `path`, choose finding `choose` in the panel (None: leave the one the app chose), press
    r (or run the palette's command), wait for the worker; the notifications' messages."""
    async def main() -> list[str]:
        app = make_app([path])
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MainScreen) and app.session is not None
            if choose is not None:
                screen.query_one(FindingsPanel).select_index(choose)
                await settle(pilot)
            if by_palette:
                await palette(pilot, "reproduce", "Reproduce the chosen finding…")
            else:
                await pilot.press("r")
            await settle(pilot)
            return [n.message for n in app._notifications]

    return asyncio.run(main())


async def settle(pilot: Pilot) -> None:
    for _ in range(4):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def test_r_writes_the_chosen_finding_shrunk_to_the_working_folder(tmp_path: Path) -> None:
    log = tmp_path / "oncall.jsonl"
    shutil.copy(TD303, log)
    shown = press_r(log)
    written = tmp_path / "oncall.TD303.repro.jsonl"
    assert written.exists(), shown
    assert any(m.startswith(f"wrote {written}: TD303 in 2 of 3 records, ") and "credentials masked" in m
               for m in shown), shown
    findings = run_checks(load_file(written))
    assert [f.code for f in findings] == ["TD303"]
    assert written.stat().st_size < log.stat().st_size
    shown = press_r(log, by_palette=True)  # a second time, from the palette: a new name, nothing overwritten
    assert (tmp_path / "oncall.TD303.repro-2.jsonl").exists(), shown


def test_r_keeps_the_finding_chosen_not_another_of_its_rule(tmp_path: Path) -> None:
    """Two sessions in one log, each with its TD102: the small log shows the one chosen, not the
    other."""
    log = tmp_path / "two.jsonl"
    log.write_text("".join((SAMPLES / "defects" / name).read_text() for name in (
        "TD102-failed-parallel-result-dropped.jsonl", "TD102-request-ends-on-unanswered-call.jsonl")))
    unanswered = [(i, f) for i, f in enumerate(run_checks(load_file(log))) if f.code == "TD102"]
    assert len(unanswered) == 2 and unanswered[0][1].message != unanswered[1][1].message
    for n, (index, finding) in enumerate(unanswered, start=1):
        press_r(log, choose=index)
        written = tmp_path / f"two.TD102.repro{'' if n == 1 else f'-{n}'}.jsonl"
        shown = [said(f.message) for f in run_checks(load_file(written)) if f.code == "TD102"]
        assert shown == [said(finding.message)]


def test_r_without_a_finding_says_what_to_do(tmp_path: Path) -> None:
    log = tmp_path / "clean.jsonl"
    shutil.copy(SAMPLES / "anthropic" / "parallel-calls.jsonl", log)
    assert run_checks(load_file(log)) == []
    shown = press_r(log)
    assert "choose a finding first (n, or a row of the findings panel)" in shown
    assert list(tmp_path.glob("*.repro*")) == []


def test_repro_path_is_uncompressed_and_never_taken(tmp_path: Path) -> None:
    assert repro_path("logs/run.zhar", "TD101") == Path("run.TD101.repro.har")
    assert repro_path("/x/rollout-1.jsonl.zst", "TD102") == Path("rollout-1.TD102.repro.jsonl")
    Path("run.TD101.repro.har").write_text("taken")
    assert repro_path("logs/run.zhar", "TD101") == Path("run.TD101.repro-2.har")
