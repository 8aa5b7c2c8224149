"""Screenshots of the TUI for the README: SVG, and PNG where `rsvg-convert` is installed.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--no-png]

The app is the one `tooldbg` opens (through `make_app`, the factory the CLI and the tests share),
run headless at 120×36 on the bundled samples, put into a known state by key presses, and saved:

    main-defect.svg        the bundled on-call log: a failed tool result replayed without its
                           is_error flag, explained in the canonical view, its record in the wire view
    main-defect-light.svg  the same in the light theme
    format-switch.svg      `f` on the clean capture's failed tool result: the turn re-serialized as
                           OpenAI Chat, with the writer's loss (no is_error field there)
    export-dialog.svg      `e`: the export dialog, losses and pre-flight shown before writing
    fix-dialog.svg         `x`: the same dialog with its Repairs box ticked, the is_error flag put
                           back from the request that recorded it, listed before writing
    diff-screen.svg        `d` on both captures of a relay that dropped the second tool result
                           (docs/examples/relay-drops-second-result): the conversation side by side

`--only NAME` makes one of them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tooldbg.tui.app import make_app  # noqa: E402
from tooldbg.tui.session import Location  # noqa: E402

#: What `tooldbg` opens with no file: the log with a defect, then the clean capture. Relative to
#: ROOT, so the header shows the same path wherever the repository is.
DEMO = ("tooldbg/samples/oncall-agent-lost-is-error.jsonl", "tooldbg/samples/weather-agent.jsonl")
RELAY = ("docs/examples/relay-drops-second-result/client.har",
         "docs/examples/relay-drops-second-result/upstream.har")
SIZE = (120, 36)

#: name → (theme, where to go first (None: where the app opens, the first finding), keys, files)
SHOTS: dict[str, tuple[str, Location | None, tuple[str, ...], tuple[str, ...]]] = {
    "main-defect": ("textual-dark", None, (), DEMO),
    "main-defect-light": ("textual-light", None, (), DEMO),
    "format-switch": ("textual-dark", Location(1, "c1", 2), ("f",), DEMO),
    "export-dialog": ("textual-dark", None, ("e",), DEMO),
    "diff-screen": ("textual-dark", None, ("d",), RELAY),
    "fix-dialog": ("textual-dark", None, ("x",), DEMO),
}


async def shoot(name: str, theme: str, location: Location | None, keys: Sequence[str],
                out: Path, files: Sequence[str] = DEMO) -> Path:
    app = make_app(list(files))
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        while app.session is None:  # the load worker, then the session on screen
            await app.workers.wait_for_complete()
            await pilot.pause()
        if location is not None:
            app.screen.go_to(location)  # as search and the palette do
            await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await app.workers.wait_for_complete()  # e.g. the re-serialization behind `f`
            await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        return Path(app.save_screenshot(f"{name}.svg", str(out)))


def to_png(svg: Path) -> Path | None:
    """Convert with rsvg-convert. Rich writes spaces as no-break spaces, which rsvg collapses at
    the edge of a span unless told to preserve white space, so the conversion reads a copy that
    says so (the SVG itself is left as Textual wrote it)."""
    tool = shutil.which("rsvg-convert")
    if tool is None:
        return None
    png = svg.with_suffix(".png")
    text = svg.read_text(encoding="utf-8").replace("<svg ", '<svg xml:space="preserve" ', 1)
    with tempfile.NamedTemporaryFile("w", suffix=".svg", encoding="utf-8", delete=False) as tmp:
        tmp.write(text)
    try:
        subprocess.run([tool, tmp.name, "-o", str(png)], check=True)
    finally:
        Path(tmp.name).unlink(missing_ok=True)
    return png


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--no-png", action="store_true", help="write the SVGs only")
    parser.add_argument("--only", choices=list(SHOTS), help="make this screenshot only")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.chdir(ROOT)
    made_png = False
    for name, (theme, location, keys, files) in SHOTS.items():
        if args.only is not None and name != args.only:
            continue
        svg = asyncio.run(shoot(name, theme, location, keys, out, files))
        png = None if args.no_png else to_png(svg)
        made_png = made_png or png is not None
        shown = svg.relative_to(ROOT) if svg.is_relative_to(ROOT) else svg
        print(f"{shown} + {png.name}" if png else shown)
    if not args.no_png and not made_png:
        print("rsvg-convert not found (apt-get install librsvg2-bin): SVG only", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
