"""Measure the TUI on a generated 10,000-turn conversation (run on demand, not in CI):

    .venv/bin/python scripts/measure_tui.py [--turns 10000] [--presses 50] [--file LOG] [--json]

* time to first paint: from creating the app (`make_app`, as `tooldbg FILE` does) to the first
  frame that shows a conversation (tree and canonical view filled; on a large log that is the
  start of it, shown while the rest loads), with the parts of it: reading + stitching + checking
  in the worker until the whole session is shown, and `show_session` on the UI thread;
* key-to-repaint latency: a `down` key delivered the way the terminal driver delivers it, to the
  first frame after which the terminal shows the next turn in the canonical view (its title,
  `turn 5001 assistant`), the tree and the screen on it;
  median and p95 over `--presses` presses, from the middle of the conversation; then the same
  with the wire view switched (`f`) to another format, re-serializing each turn;
* settle: from the same key to the last frame that changed what the terminal shows (the frames
  that follow the first one: a layout moving a pane, a scroll bar, a worker's result), with how
  many frames each press painted and how many of them changed no cell.

The app runs headless (`App.run_test`); a frame is timed when the compositor hands it to the
driver, and the script renders it to terminal bytes as a real driver would, so a frame's cost is
counted in full. The bytes are applied afterwards, off the clock, to a grid of cells standing for
the terminal (`Terminal`): a frame that writes what is already there is not a change. The screen
counts as settled once no frame has come for `Frames.QUIET` seconds and no worker runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import textual  # noqa: E402
from rich.cells import get_character_cell_size  # noqa: E402
from rich.console import Console  # noqa: E402
from textual import events  # noqa: E402

from tooldbg.tui.app import make_app  # noqa: E402
from tooldbg.tui.screens.main import MainScreen  # noqa: E402
from tooldbg.tui.session import Location  # noqa: E402
from tooldbg.tui.widgets.canonical_view import CanonicalView  # noqa: E402
from tooldbg.tui.widgets.turn_tree import TurnTree  # noqa: E402


def chat_body(turns: int) -> dict:
    """An OpenAI chat request replaying a `turns`-turn agent session (as tests/tui/conftest.py)."""
    messages: list[dict] = []
    k = 0
    while len(messages) < turns:
        call = f"call_{k:05d}"
        messages += [
            {"role": "user", "content": f"Question {k}: what is the weather in city {k}?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call, "type": "function",
                 "function": {"name": "get_weather", "arguments": json.dumps({"city": f"city {k}"})}}]},
            {"role": "tool", "tool_call_id": call, "content": json.dumps({"temp_c": k % 30})},
            {"role": "assistant", "content": f"It is {k % 30} degrees in city {k}."},
        ]
        k += 1
    parameters = {"type": "object", "properties": {"city": {"type": "string"}}}
    return {"model": "gpt-4o", "messages": messages[:turns],
            "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": parameters}}]}


#: A terminal sequence: CSI (cursor moves, SGR styles), or OSC (hyperlinks), in what a frame writes.
ESCAPE = re.compile(r"\x1b\[([0-9;]*)([A-Za-z])|\x1b\][^\x1b]*\x1b\\")


class Terminal:
    """The cells of a terminal that the frames are written to: each frame's bytes (as
    `render_segments` makes them for the driver) are applied, and the frame counts as a change
    only if some cell now shows another character or style. A frame that repaints what is already
    there (a layout that moved nothing, scroll bars drawn again) changes no cell."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.cells = [[(" ", "")] * width for _ in range(height)]

    def text(self) -> str:
        return "\n".join("".join(char for char, _ in row) for row in self.cells)

    def apply(self, sequence: str) -> bool:
        """Write `sequence`; True if any cell changed."""
        changed = False
        x = y = 0
        sgr = ""
        at = 0
        for match in [*ESCAPE.finditer(sequence), None]:
            text = sequence[at:match.start() if match else len(sequence)]
            for char in text:
                if char == "\n":
                    x, y = 0, y + 1
                    continue
                size = get_character_cell_size(char)
                if size == 0 or not (0 <= y < len(self.cells)):
                    continue
                row = self.cells[y]
                for cell in ((char, sgr), ("", sgr))[:size]:
                    if x < self.width and row[x] != cell:
                        row[x] = cell
                        changed = True
                    x += 1
            if match is None:
                break
            at = match.end()
            if match.group(2) == "H":
                row_, col = (match.group(1) or "1;1").split(";")
                x, y = int(col) - 1, int(row_) - 1
            elif match.group(2) == "m":
                sgr = "" if match.group(1) in ("", "0") else match.group(1)
        return changed


class Frames:
    """Wraps `App._display`: every frame the compositor hands to the driver is rendered to terminal
    bytes (as a real driver would) and timed; the bytes are applied to a `Terminal` later, off the
    clock, to tell the frames that changed what is on screen from those that did not."""

    QUIET = 0.1
    """How long no frame may follow the last one for the screen to count as settled."""

    def __init__(self, app, size: tuple[int, int]) -> None:  # noqa: ANN001
        self.console = Console(force_terminal=True, color_system="truecolor", file=open(os.devnull, "w"))
        self.times: list[float] = []
        self.changed: list[bool] = []
        """Per frame applied so far: did it change a cell?"""
        self.shown: list[str] = []
        """Per frame applied so far: the terminal's text after it."""
        self.pending: list[str] = []
        self.terminal = Terminal(*size)
        self.app = app
        display = app._display

        def timed(screen, renderable) -> None:  # noqa: ANN001
            display(screen, renderable)
            if renderable is not None and hasattr(renderable, "render_segments"):
                self.pending.append(renderable.render_segments(self.console))
                self.times.append(time.perf_counter())

        app._display = timed

    def _apply(self) -> None:
        while len(self.changed) < len(self.times):
            self.changed.append(self.terminal.apply(self.pending[len(self.changed)]))
            self.shown.append(self.terminal.text())

    async def settled(self, ready, since: float, timeout: float = 30.0,  # noqa: ANN001
                      loading: bool = False, shows: str | None = None) -> tuple[float, float, int, int]:
        """(the first frame painted after `ready()` came to hold, the last frame after `since` that
        changed a cell, frames painted after `since`, of which how many changed nothing): waits
        until `ready()` holds, no worker runs and no frame has followed for `QUIET` seconds. The
        first is when the new state reaches the terminal (with `shows`: the first frame after
        which the terminal shows that text); the last adds what follows from it (a worker's
        result, a layout moving things). With `loading`, the load worker may still run (the first
        conversation is shown before the rest)."""
        deadline = time.perf_counter() + timeout
        not_yet = since  # the state changed after this, so the frame showing it did too
        while True:
            now = time.perf_counter()
            if now > deadline:
                raise TimeoutError("the screen never showed the expected state")
            if not ready():
                not_yet = now
            elif (self.times and self.times[-1] > not_yet and now - self.times[-1] > self.QUIET
                  and not any(w.is_running and not (loading and w.group == "load")
                              for w in self.app.workers)):
                self._apply()
                first = next(t for t in self.times if t > not_yet)
                if shows is not None:
                    first = next(t for t, seen in zip(self.times, self.shown, strict=True)
                                 if t > since and shows in seen)
                after = [(t, c) for t, c in zip(self.times, self.changed, strict=True) if t > since]
                last = max((t for t, c in after if c), default=first)
                return first, max(first, last), len(after), sum(1 for _, c in after if not c)
            await asyncio.sleep(0.0005)


def title(screen: MainScreen, turn: int) -> str:
    """The first words of the canonical view on `turn` (`turn 5001 assistant`): a frame after which
    the terminal shows them has the next turn on screen."""
    assert screen.session is not None
    return f"turn {turn} {screen.session.files[0].conversations[0].turns[turn].role}"


def views_show(screen: MainScreen, turn: int):  # noqa: ANN201
    """The tree cursor, the canonical view and the screen's location are on `turn`."""
    tree = screen.query_one(TurnTree)
    canonical = screen.query_one(CanonicalView)

    def check() -> bool:
        node = tree.cursor_node
        return (screen.location is not None and screen.location.turn == turn
                and node is not None and node.data is not None and node.data.turn == turn
                and canonical.plain.startswith(f"turn {turn} "))
    return check


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(path: Path, turns: int, presses: int, size: tuple[int, int]) -> dict:
    started = time.perf_counter()
    app = make_app([path])
    frames = Frames(app, size)
    timings: dict = {}
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        while not isinstance(screen, MainScreen):
            await pilot.pause()
            screen = app.screen
        original_show = screen.show_session

        def show_session(session) -> None:  # noqa: ANN001 - the whole session, once loaded
            begun = time.perf_counter()
            timings["loaded"] = begun - started
            original_show(session)
            timings["show_session"] = time.perf_counter() - begun

        screen.show_session = show_session

        def shown() -> bool:
            return screen.location is not None and bool(screen.query_one(CanonicalView).rows)

        shown_at, settled_at, _, _ = await frames.settled(shown, started, timeout=600, loading=True)
        timings["first_frame"] = frames.times[0] - started
        timings["first_paint"] = shown_at - started
        timings["first_settled"] = settled_at - started
        await app.workers.wait_for_complete()
        await pilot.pause()
        if presses == 0:
            return timings

        # key-to-repaint, from the middle of the conversation
        start = turns // 2
        screen.go_to(Location(0, "c1", start))
        screen.query_one(TurnTree).focus()
        await app.workers.wait_for_complete()
        await pilot.pause()
        timings["latencies"] = await presses_down(app, frames, screen, start, presses)
        if "f" in app.active_bindings:
            app._driver.send_message(key_event(app, "f"))
            await frames.settled(views_show(screen, start + presses), time.perf_counter())
            timings["format_latencies"] = await presses_down(app, frames, screen, start + presses, presses)
    return timings


def key_event(app, key: str) -> events.Key:  # noqa: ANN001
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    return event


async def presses_down(app, frames: Frames, screen: MainScreen, start: int,  # noqa: ANN001
                       presses: int) -> tuple[list[float], list[float], list[int], list[int]]:
    """(key → first frame showing the next turn, key → the last frame that changed the screen,
    frames painted, frames that changed nothing), one per press."""
    shown, settled, painted, idle = [], [], [], []
    for i in range(1, presses + 1):
        t0 = time.perf_counter()
        app._driver.send_message(key_event(app, "down"))
        first, last, count, unchanged = await frames.settled(views_show(screen, start + i), t0, timeout=10,
                                                             shows=title(screen, start + i))
        shown.append(first - t0)
        settled.append(last - t0)
        painted.append(count)
        idle.append(unchanged)
    return shown, settled, painted, idle


def frame_counts(painted: list[int], idle: list[int]) -> str:
    return (f"  frames per press                median {statistics.median(painted):6.1f}      "
            f"max {max(painted)}; changing nothing: median {statistics.median(idle):.1f}, max {max(idle)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--presses", type=int, default=50)
    parser.add_argument("--size", default="120x36", help="terminal size, WxH")
    parser.add_argument("--file", type=Path, help="open this log instead (first paint only with --presses 0)")
    parser.add_argument("--json", action="store_true", help="one JSON line of the figures (scripts/bench.py)")
    args = parser.parse_args(argv)
    width, height = (int(x) for x in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        path = args.file or Path(tmp) / f"{args.turns}-turns.json"
        if args.file is None:
            path.write_text(json.dumps(chat_body(args.turns)), encoding="utf-8")
        size = path.stat().st_size
        size_mb = size / 1e6
        t = asyncio.run(measure(path, args.turns, args.presses, (width, height)))
    if args.json:
        figures = {k: v for k, v in t.items() if not isinstance(v, tuple)}
        if "latencies" in t:
            shown, settled, _, _ = t["latencies"]
            figures |= {"key_median": statistics.median(shown), "key_p95": pct(shown, 0.95),
                        "settled_median": statistics.median(settled), "settled_p95": pct(settled, 0.95)}
        print(json.dumps({"turns": args.turns, "size": size, **figures}))
        return 0
    def line(label: str, seconds: list[float]) -> str:
        ms = [x * 1000 for x in seconds]
        return (f"  {label:<31} median {statistics.median(ms):6.1f} ms   p95 {pct(ms, 0.95):6.1f} ms"
                f"   max {max(ms):6.1f} ms")

    what = f"{args.file} ({size_mb:.1f} MB)" if args.file else \
        f"{args.turns:,} turns in one OpenAI chat request ({size_mb:.1f} MB)"
    print(f"tooldbg TUI, {what}, "
          f"{width}x{height}, Python {platform.python_version()}, Textual {textual.__version__}, "
          f"{os.cpu_count()} CPUs")
    print(f"  first frame (progress bar)      {t['first_frame'] * 1000:8.0f} ms")
    print(f"  session loaded (worker)         {t['loaded'] * 1000:8.0f} ms   read + stitch + check")
    print(f"  show_session (UI thread)        {t['show_session'] * 1000:8.0f} ms")
    print(f"  time to first paint             {t['first_paint'] * 1000:8.0f} ms   app start → session"
          f" on screen (settled {t['first_settled'] * 1000:.0f} ms)")
    if args.presses == 0:
        return 0
    shown, settled, painted, idle = t["latencies"]
    print(f"key-to-repaint, {args.presses} x down in the tree, from turn {args.turns // 2}:")
    print(line("first frame with the next turn", shown))
    print(line("screen settled", settled))
    print(frame_counts(painted, idle))
    if "format_latencies" in t:
        shown, settled, painted, idle = t["format_latencies"]
        print("the same with the wire view switched to another format (f): re-serialized per turn")
        print(line("first frame with the next turn", shown))
        print(line("screen settled (JSON shown)", settled))
        print(frame_counts(painted, idle))
    return 0


if __name__ == "__main__":
    sys.exit(main())
