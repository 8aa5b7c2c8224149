"""The one exception family tooldbg raises on bad input.

    ToolDbgError              anything tooldbg reports to a user instead of a traceback
    ├── InputError            a file (or a record in it) that cannot be read: names file and location
    └── FormatError           a body whose shape a reader or writer cannot accept: names a JSON pointer

Readers and writers raise only these; the CLI turns them into one line on stderr and exit code 2.
"""

from __future__ import annotations

import os

from .shorten import describe_exception, one_line
from .shorten import message as one_message

#: A location longer than this (a JSON pointer 200 levels deep) is cut in the middle when printed.
_LOCATION = 160


def _short(location: str) -> str:
    return one_line(location, _LOCATION)  # a pointer is made of a log's keys: any characters


class ToolDbgError(Exception):
    """Base of every error tooldbg reports to a user."""

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as it is, fields and all (`check --jobs` and `--scheduler` bring a file's errors
        back from other processes): rebuilt without `__init__`, whose arguments differ per class."""
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: type[ToolDbgError], args: tuple[object, ...], state: dict[str, object]) -> ToolDbgError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class FormatError(ToolDbgError):
    """A body that does not have the shape its format requires, at `pointer` inside the body."""

    def __init__(self, message: str, pointer: str = "") -> None:
        message = one_message(message)  # one bounded line, whatever it quotes
        super().__init__(message)
        self.message = message
        self.pointer = pointer

    def __str__(self) -> str:
        return f"{_short(self.pointer) or '/'}: {self.message}"


class InputError(ToolDbgError):
    """Input that cannot be read, located as `path:location`."""

    def __init__(self, path: str, location: str, message: str) -> None:
        message = one_message(message)
        super().__init__(message)
        self.path = path
        self.location = location
        self.message = message

    def __str__(self) -> str:
        where = f"{self.path}:{_short(self.location)}" if self.location else self.path
        return f"{where}: {self.message}"


#: What every message about an unexpected exception says (the fuzzing suite looks for it).
BUG = "a bug in tooldbg"


def unexpected(err: BaseException, what: str = "could not be read", culprit: str = "") -> str:
    """The message for an exception tooldbg did not expect while reading or checking one record:
    the record is reported with it and skipped, and the rest of the file is still read. Readers
    raise only FormatError; this is the net under them, not a way to report bad input. `culprit`
    names the code that raised when the user could not tell (`the TD301 repair`). With
    TOOLDBG_DEBUG set (as the fuzzing suite sets it), the exception is raised again instead."""
    if os.environ.get("TOOLDBG_DEBUG"):
        raise err
    return f"{what}: {describe_exception(err)} ({f'internal error in {culprit}, ' if culprit else ''}{BUG})"
