"""`tooldbg record`: start the recording, then serve until Ctrl-C, run the command given after
`--`, or show the debugger following the file (`--open`) — and stop so that nothing recorded is
lost (exchanges in flight are written marked incomplete)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..record.routes import is_loopback, parse_upstream
from ..record.session import Options, Recording
from .output import echo, fail

#: The exit code of a command that could not be started (as POSIX shells give it).
NOT_STARTED = 127
#: Where `record` listens without --listen and without a command (a port clients can be set to).
DEFAULT_LISTEN = "127.0.0.1:8788"


def record_session(output: Path, upstream: str | None, listen: str | None, allow_remote: bool,
                   open_tui: bool, keep_secrets: bool, append: bool, force: bool, timeout: float,
                   command: Sequence[str]) -> int:
    """`tooldbg record`, its options checked (a bad one: one line, exit 2): the exit code."""
    if upstream is not None:
        try:
            parse_upstream(upstream)
        except ValueError as err:
            fail(f"--upstream: {err}")
    check_output(output, force, append)
    address = parse_listen(listen or ("127.0.0.1:0" if command else DEFAULT_LISTEN), allow_remote)
    options = Options(output, address, upstream, append=append, keep_secrets=keep_secrets, timeout=timeout)
    recording = start(options, report=not open_tui)
    announce(recording, command)
    if open_tui:
        return follow_in_debugger(recording, command)
    return run_command(recording, command) if command else serve(recording)


def parse_listen(value: str, allow_remote: bool) -> tuple[str, int]:
    """`HOST:PORT`, `:PORT` or `PORT` (host 127.0.0.1); a host that is not loopback is refused
    unless `allow_remote` (the proxy forwards the keys of whoever reaches it)."""
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "", value
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        fail(f"--listen {value}: give HOST:PORT, e.g. 127.0.0.1:8788 (port 0: any free one)")
    if not allow_remote and not is_loopback(host):
        fail(f"--listen {value}: {host} is not a loopback address; the proxy forwards your API keys to "
             "whoever can reach it, so listening there needs --allow-remote")
    return host, int(port)


def check_output(output: Path, force: bool, append: bool) -> None:
    if force and append:
        fail("--force and --append: choose one")
    if output.is_dir():
        fail(f"{output}: is a folder; give the JSON Lines file to write")
    if output.exists() and not (force or append):
        fail(f"{output}: exists; --append adds to it, --force replaces it")
    if not output.parent.exists():
        fail(f"{output.parent}: no such folder")


def start(options: Options, report: bool) -> Recording:
    try:
        recording = Recording(options, report=_report_line if report else None)
    except OSError as err:
        host, port = options.listen
        fail(f"--listen {host}:{port}: {err.strerror or err}")
    recording.start()
    return recording


def _report_line(line: str) -> None:
    echo(f"tooldbg record: {line}", err=True)


def announce(recording: Recording, command: Sequence[str]) -> None:
    echo(f"tooldbg record: listening on {recording.base_url}, writing {recording.options.output}", err=True)
    if not command:
        for name, value in recording.environment().items():
            echo(f"  export {name}={value}", err=True)
        echo("  (Ctrl-C stops the recording)", err=True)


def stopped(recording: Recording) -> None:
    incomplete = recording.stop()
    written = recording.journal.written
    note = f" ({incomplete} incomplete: still in flight when it stopped)" if incomplete else ""
    echo(f"tooldbg record: {written} exchange{'s' if written != 1 else ''} written to "
         f"{recording.options.output}{note}", err=True)


def serve(recording: Recording) -> int:
    """Until Ctrl-C (or SIGTERM)."""
    done = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        stopped(recording)
    return 0


def launch(recording: Recording, command: Sequence[str], **popen: Any) -> subprocess.Popen[bytes] | None:
    """Start `command` with the clients' base-URL variables pointing at the proxy; None (said on
    stderr) when it cannot be started."""
    env = {**os.environ, **recording.environment()}
    try:
        return subprocess.Popen(list(command), env=env, **popen)
    except OSError as err:
        echo(f"tooldbg record: {command[0]}: {err.strerror or err}", err=True)
        return None


def wait(process: subprocess.Popen[bytes]) -> int:
    """The command's exit code (128 + the signal when a signal ended it, as shells give it). Ctrl-C
    reaches the command too (it is in the terminal's process group): the recording waits for it."""
    while True:
        try:
            code = process.wait()
            break
        except KeyboardInterrupt:
            continue
    return code if code >= 0 else 128 - code


def run_command(recording: Recording, command: Sequence[str]) -> int:
    """`record -- COMMAND`: the command's exit code once it ended and the recording stopped."""
    process = launch(recording, command)
    code = wait(process) if process is not None else NOT_STARTED
    stopped(recording)
    return code


def follow_in_debugger(recording: Recording, command: Sequence[str]) -> int:
    """`record --open`: the debugger follows the file while the proxy records. A COMMAND runs
    beside it with its output in `OUTPUT.command.log` (the debugger has the terminal); its exit
    shows on the status line. Quitting the debugger ends the command and the recording; the exit
    code is the command's."""
    from ..tui.app import make_app

    output = recording.options.output
    app = make_app([str(output)], follow=True)
    process = None
    codes: list[int] = []
    if command:
        log = output.with_name(f"{output.name}.command.log")
        with open(log, "wb") as sink:
            process = launch(recording, command, stdin=subprocess.DEVNULL, stdout=sink,
                             stderr=subprocess.STDOUT)
        if process is None:
            stopped(recording)
            return NOT_STARTED

        def watch(process: subprocess.Popen[bytes]) -> None:
            codes.append(wait(process))
            try:
                app.call_from_thread(app.note_follow, f"{command[0]} exited with {codes[0]} (output: {log})")
            except RuntimeError:  # the debugger was closed first
                pass

        threading.Thread(target=watch, args=(process,), name="record-command", daemon=True).start()
    app.run()
    if process is not None and process.poll() is None:
        process.terminate()
        codes[:] = [wait(process)]
    stopped(recording)
    return codes[0] if codes else 0
