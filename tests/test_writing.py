"""`convert -o` and the export dialog's writes (`tooldbg.writing`): the mode a user's umask gives,
nothing but regular files replaced, the checks made before the input is read, fsync before the
rename, and no temporary file left behind by an error, Ctrl-C, SIGTERM or SIGHUP."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.paths import SAMPLES
from tests.test_cli import run
from tooldbg import writing
from tooldbg.errors import InputError
from tooldbg.writing import write_atomically

SAMPLE = SAMPLES / "anthropic" / "parallel-calls.jsonl"


def convert_to(capsys, output: Path | str, *extra: str, source: Path | str = SAMPLE):
    return run(capsys, "convert", str(source), "--to", "canonical", "-o", str(output), *extra)


def left_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def umask():
    """Set the process umask for one test (restored after)."""
    saved = os.umask(0o022)
    yield os.umask
    os.umask(saved)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600),
                                            (0o002, 0o664)])
def test_an_export_gets_the_mode_the_umask_gives(tmp_path, capsys, umask, mask, mode):
    umask(mask)
    out = tmp_path / "out.json"
    code, _, err = convert_to(capsys, out)
    assert code == 0, err
    assert stat.S_IMODE(os.stat(out).st_mode) == mode
    assert left_in(tmp_path) == ["out.json"]


def test_force_keeps_the_mode_of_the_file_it_replaces(tmp_path, capsys, umask):
    """As `open(path, "w")` would: a file the user made private stays private."""
    umask(0o022)
    out = tmp_path / "out.json"
    out.write_text("old")
    out.chmod(0o600)
    code, _, err = convert_to(capsys, out, "--force")
    assert code == 0, err
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600 and out.read_text() != "old"


def test_a_symlink_is_written_through_like_open_would(tmp_path, capsys):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert convert_to(capsys, link, "--force")[0] == 0
    assert link.is_symlink() and real.read_text().startswith("{")


def one_line_refusal(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("tooldbg: "), err
    assert "internal error" not in err and "Traceback" not in err
    for needle in needles:
        assert needle in err, err


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_fifo_is_never_replaced(tmp_path, capsys, force):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = convert_to(capsys, fifo, *force)
    one_line_refusal(code, err, str(fifo), "FIFO", "not a regular file")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and left_in(tmp_path) == ["pipe"]


def test_a_device_node_is_never_replaced(tmp_path, capsys):
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    code, _, err = convert_to(capsys, node, "--force")
    one_line_refusal(code, err, "character device", "not a regular file")
    assert stat.S_ISCHR(os.lstat(node).st_mode)


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_folder_as_output_is_refused_before_the_input_is_read(tmp_path, capsys, force):
    folder = tmp_path / "out"
    folder.mkdir()
    code, _, err = convert_to(capsys, folder, *force, source=tmp_path / "not-read-yet.json")
    one_line_refusal(code, err, f"{folder}: is a folder")
    assert left_in(folder) == []


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_standard_output_as_output_is_refused(tmp_path, force):
    """Run in a child whose standard output is a pipe (and a file): never renamed over."""
    captured = tmp_path / "captured"
    with captured.open("w") as file:
        for stdout in (subprocess.PIPE, file):
            done = subprocess.run([sys.executable, "-m", "tooldbg", "convert", str(SAMPLE), "--to",
                                   "canonical", "-o", "/dev/stdout", *force],
                                  stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
            one_line_refusal(done.returncode, done.stderr, "/dev/stdout: is a file descriptor",
                             "leave out -o")
    assert captured.read_text() == "" and left_in(tmp_path) == ["captured"]


def test_a_missing_folder_is_refused(tmp_path, capsys):
    code, _, err = convert_to(capsys, tmp_path / "nowhere" / "out.json")
    one_line_refusal(code, err, "no such folder")


def test_a_read_only_folder_is_refused_before_the_input_is_read(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):  # root: permission bits do not bind it; a user sees this
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, m, **kw: False if Path(p) == folder else real(p, m, **kw))
    try:
        code, _, err = convert_to(capsys, folder / "out.json", source=tmp_path / "not-read-yet.json")
    finally:
        folder.chmod(0o755)
    one_line_refusal(code, err, f"{folder / 'out.json'}: cannot write in folder", "permission denied")
    assert left_in(folder) == []


def test_a_failing_write_is_one_line_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.json"
    out.write_text("old")

    def full(_fd, _data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    code, _, err = convert_to(capsys, out, "--force")
    one_line_refusal(code, err, f"{out}: cannot write: No space left on device")
    assert left_in(tmp_path) == ["out.json"] and out.read_text() == "old"


def test_ctrl_c_during_the_write_leaves_nothing(tmp_path, monkeypatch):
    def interrupted(_fd, _data):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(tmp_path / "out.json", "{}", inputs=[])
    assert left_in(tmp_path) == []


def test_fsync_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    calls: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        calls.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(a, b):
        calls.append("rename")
        real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_atomically(tmp_path / "out.json", "{}\n", inputs=[])
    assert calls == ["fsync file", "rename", "fsync folder"]
    assert (tmp_path / "out.json").read_text() == "{}\n"


def test_the_previous_signal_handlers_are_restored(tmp_path):
    def mine(_signum, _frame):
        pass

    saved = signal.signal(signal.SIGTERM, mine)
    hangup = signal.getsignal(signal.SIGHUP)  # the default, or ignored under `nohup`
    try:
        write_atomically(tmp_path / "out.json", "{}", inputs=[])
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGHUP) is hangup
    finally:
        signal.signal(signal.SIGTERM, saved)


def test_the_input_is_never_the_output_even_through_a_link(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_bytes(SAMPLE.read_bytes())
    link = tmp_path / "alias.jsonl"
    link.symlink_to(source)
    code, _, err = convert_to(capsys, link, "--force", source=source)
    one_line_refusal(code, err, "refusing to overwrite an input file")
    assert source.read_bytes() == SAMPLE.read_bytes()


# -- a signal mid-write, sent to a real `tooldbg convert` process --------------------------------

#: Runs `tooldbg convert` with writes cut into 4 KiB chunks; after the first chunk it says so on
#: stdout and waits to be signalled (no timing involved: the parent signals once it has read that).
CHILD = textwrap.dedent("""
    import os, signal, sys, time
    from tooldbg import writing
    from tooldbg.cli import main

    # the signals as a terminal session has them, whatever the test run inherited (`nohup` ignores
    # SIGHUP, and a process that ignores it is rightly not ended by it)
    for signum in writing.SIGNALS:
        signal.signal(signum, signal.SIG_DFL)

    writing.CHUNK = 4096
    real_write = os.write
    def write(fd, data):
        written = real_write(fd, data)
        print("mid-write", flush=True)
        time.sleep(600)
        return written
    os.write = write
    main(sys.argv[1:])
""")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("existing", [False, True])
def test_a_signal_mid_write_leaves_no_temporary_file(tmp_path, signum, existing):
    out = tmp_path / "out.json"
    if existing:
        out.write_text("old")
    argv = ["convert", str(SAMPLE), "--to", "canonical", "-o", str(out), *(["--force"] if existing else [])]
    with subprocess.Popen([sys.executable, "-c", CHILD, *argv], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None and child.stdout.readline() == "mid-write\n"
            temporary = [p for p in tmp_path.iterdir() if p.name.startswith(".out.json.")]
            assert len(temporary) == 1 and temporary[0].stat().st_size == 4096  # the partial file
            child.send_signal(signum)
            child.wait(timeout=120)
        finally:
            child.kill()
            child.wait()
    assert child.returncode == -signum  # ended by the signal, as it would have without tooldbg
    assert left_in(tmp_path) == (["out.json"] if existing else [])
    if existing:
        assert out.read_text() == "old"


def test_writing_is_checked_first(tmp_path):
    """`check_writable` answers with the path to write to and changes nothing."""
    out = tmp_path / "new.json"
    assert writing.check_writable(out, inputs=[]) == out.resolve()
    with pytest.raises(InputError, match="file exists"):
        out.write_text("x")
        writing.check_writable(out, inputs=[])
    assert left_in(tmp_path) == ["new.json"]


def test_a_python_handler_that_returns_abandons_the_write(tmp_path, monkeypatch):
    """A handler of the caller's own that does not end the process still gets the signal, once;
    the write then stops with a one-line error and leaves nothing."""
    seen: list[int] = []

    def mine(signum, _frame):
        seen.append(signum)

    real_write = os.write

    calls: list[int] = []

    def write(fd, data):
        written = real_write(fd, data)
        calls.append(written)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGTERM)  # delivered in the middle of the write
        return written

    saved = signal.signal(signal.SIGTERM, mine)
    try:
        monkeypatch.setattr(writing, "CHUNK", 16)
        monkeypatch.setattr(os, "write", write)
        with pytest.raises(InputError, match="out.json: not written: interrupted by SIGTERM"):
            write_atomically(tmp_path / "out.json", "x" * 100, inputs=[])
        monkeypatch.undo()
        assert seen == [signal.SIGTERM] and signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, saved)
    assert left_in(tmp_path) == []


def test_writing_from_a_worker_thread_installs_no_handler(tmp_path):
    import threading

    before = signal.getsignal(signal.SIGTERM)
    failures: list[BaseException] = []

    def work():
        try:
            write_atomically(tmp_path / "out.json", "{}", inputs=[])
        except BaseException as err:  # noqa: BLE001
            failures.append(err)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert not failures and (tmp_path / "out.json").read_text() == "{}"
    assert signal.getsignal(signal.SIGTERM) is before
