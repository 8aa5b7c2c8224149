"""The debugger opens a folder of fixtures as `check` reads it: the files that are not logs are
left out and said in one notification."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests import paths
from tooldbg.tui.app import make_app

from .conftest import until_loaded


async def test_the_debugger_says_what_it_skipped(tmp_path: Path) -> None:
    shutil.copy(paths.SAMPLES / "anthropic" / "request.json", tmp_path / "request.json")
    shutil.copy(paths.ROOT / "LICENSE", tmp_path / "LICENSE")
    (tmp_path / "README.md").write_text("# fixtures\n")
    app = make_app([str(tmp_path)])
    async with app.run_test(size=(120, 36)) as pilot:
        await until_loaded(pilot)
        assert app.session is not None
        assert [Path(f.path).name for f in app.session.files] == ["request.json"]
        messages = [str(n.message) for n in app._notifications]
        assert messages == ["skipped 2 files that are not logs (LICENSE, README.md)"]
