"""Writing an export to a file: checked before any work, then atomic, durable and tidy.

`check_writable` is called before the input is read, so a bad `-o` costs nothing: it refuses an
input file, an existing file without `force`, anything that is not a regular file (a folder, a FIFO,
a device such as /dev/stdout — `force` never replaces those), a missing folder and one the user
cannot write in.

`write_atomically` writes a hidden temporary file beside the target, `fsync`s it, renames it over the
target and `fsync`s the folder, so the target holds the old bytes or the new ones, never half of
them. The new file gets the mode `open()` would give it: `0o666 & ~umask` for a new path, the
existing file's mode when it replaces one. The temporary file is removed on any error, on Ctrl-C and
on SIGTERM or SIGHUP (a handler installed for the write, the previous one restored after; the
signal is then delivered again, so the process still ends the way it would have). Only SIGKILL can
leave one behind: `.<name>.tooldbg-<random>.tmp`.
"""

from __future__ import annotations

import os
import signal
import stat
import threading
from contextlib import suppress
from pathlib import Path
from types import FrameType
from typing import Any

from .errors import InputError

#: Bytes per `os.write` call.
CHUNK = 1 << 20
#: Signals that remove the temporary file before the process ends.
SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _descriptor(path: Path) -> bool:
    """Whether `path` names an open file descriptor (/dev/stdout, /dev/fd/1, /proc/self/fd/1, or a
    link to one): it may lead to a regular file, but renaming over that file is not writing to the
    stream the user meant."""
    current = os.path.abspath(path)
    for _ in range(40):
        if current.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return False


def check_writable(path: Path, *, inputs: list[Path], force: bool = False) -> Path:
    """The file to write `path` to (symlinks followed, as `open()` follows them), or an InputError
    naming `path`: never an input, a regular file or a new path only, an existing file only with
    `force`, in a folder that exists and that the user may write in."""
    name = str(path)
    if _descriptor(path):
        raise InputError(name, "", "is a file descriptor (such as standard output), not a file: "
                                   "leave out -o to write to standard output")
    try:
        found: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        found = None
    except OSError as err:
        raise InputError(name, "", f"cannot write: {err.strerror or err}") from None
    target = Path(os.path.realpath(path))
    if found is not None:
        for source in inputs:
            with suppress(OSError, ValueError):
                if _same_file(found, os.stat(source)):
                    raise InputError(name, "", "refusing to overwrite an input file")
        if stat.S_ISDIR(found.st_mode):
            raise InputError(name, "", "is a folder: give the path of a file to write")
        if not stat.S_ISREG(found.st_mode):
            raise InputError(name, "", f"is {_kind(found.st_mode)}, not a regular file: tooldbg "
                                       "writes only regular files (leave out -o to write to "
                                       "standard output)")
        if not force:
            raise InputError(name, "", "file exists (use --force to overwrite)")
    elif any(target == Path(os.path.realpath(source)) for source in inputs):
        raise InputError(name, "", "refusing to overwrite an input file")
    folder = target.parent
    if not folder.is_dir():
        raise InputError(name, "", "no such folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(name, "", f"cannot write in folder {folder}: permission denied")
    return target


def write_atomically(path: Path, text: str, *, inputs: list[Path], force: bool = False) -> None:
    """Write `text` (UTF-8) to `path` through a temporary file and a rename (see the module doc).
    Raises InputError, naming `path`, for whatever stops the write."""
    target = check_writable(path, inputs=inputs, force=force)
    data = text.encode("utf-8")
    try:
        existing: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        existing = None
    with _Cleanup() as cleanup:
        try:
            fd, temporary = _create_temporary(target, cleanup)
            try:
                if existing is not None:
                    os.fchmod(fd, existing)
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, target)
            cleanup.temporary = None
            _fsync_folder(target.parent)
        except OSError as err:
            if cleanup.received is not None:
                raise InputError(str(path), "", "not written: interrupted by "
                                 f"{signal.Signals(cleanup.received).name}") from None
            raise InputError(str(path), "", f"cannot write: {err.strerror or err}") from None


def _create_temporary(target: Path, cleanup: _Cleanup) -> tuple[int, Path]:
    """A new hidden file beside `target`, opened for writing, mode 0o666 less the umask (the kernel
    applies it, as for any new file). `cleanup` knows its name before it exists."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = target.with_name(f".{target.name}.tooldbg-{os.urandom(4).hex()}.tmp")
        cleanup.temporary = temporary
        try:
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
    cleanup.temporary = None
    raise FileExistsError(f"no free temporary name beside {target}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:CHUNK])
        view = view[written:]


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable; a file system that cannot sync a folder is not an error."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class _Cleanup:
    """Removes `temporary` when the `with` body fails, and when SIGTERM or SIGHUP arrives during it:
    the handler removes the file, puts the previous handler back and sends the signal again, so the
    process ends as it would have (a previous Python handler that returns lets the write go on, and
    it fails: its file is gone). Outside the main thread, where Python cannot install handlers, and
    for a signal the process ignores (`nohup`), no handler is installed."""

    def __init__(self) -> None:
        self.temporary: Path | None = None
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    def remove(self) -> None:
        temporary, self.temporary = self.temporary, None
        if temporary is not None:
            with suppress(OSError):
                temporary.unlink()

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        self.received = signum
        self.remove()
        previous = self._previous.pop(signum, signal.SIG_DFL)
        signal.signal(signum, previous)
        signal.raise_signal(signum)

    def __enter__(self) -> _Cleanup:
        if threading.current_thread() is threading.main_thread():
            for signum in SIGNALS:
                current = signal.getsignal(signum)
                if current is not signal.SIG_IGN and current is not None:
                    self._previous[signum] = current
                    signal.signal(signum, self._handle)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.remove()
        for signum, handler in list(self._previous.items()):
            signal.signal(signum, handler)
            self._previous.pop(signum, None)
