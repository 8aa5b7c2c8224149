"""A capture `tooldbg probe` wrote opens on the finding that failed its step, not merely the first."""

from __future__ import annotations

from tests.probe.test_matrix import relay
from tooldbg.jsonio import dumps
from tooldbg.probe.apis import APIS
from tooldbg.probe.steps import Probe
from tooldbg.tui.screens.main import MainScreen
from tooldbg.tui.widgets.findings_panel import FindingsPanel

from .conftest import opened


async def test_a_probe_capture_opens_on_the_failing_steps_finding(tmp_path):
    har = tmp_path / "probe.har"
    with relay("anthropic", {"truncate-stream"}) as relayed:
        outcome = Probe(APIS["anthropic"], relayed.base_url, "m", relayed.key, timeout=10).run(str(har))
    har.write_bytes(dumps(outcome.document(), indent=True))
    async with opened([str(har)]) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        panel = screen.query_one(FindingsPanel)
        # the reversed results' warning (provoked, in conversation c2) comes first in the panel; the
        # truncated stream failed the streamed step
        assert [f.code for f in panel.findings][:2] == ["TD401", "TD504"]
        assert panel.cursor_row == screen.finding_index == 1
        assert screen.location is not None and screen.location.conversation == panel.findings[1].conversation
