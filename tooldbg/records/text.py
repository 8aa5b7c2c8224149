"""A file's bytes as text: UTF-8 validated a chunk at a time (no copy of the file's text is made to
tell), and decoded; an error names the byte where the text stops being UTF-8."""

from __future__ import annotations

import codecs

from ..errors import InputError
from .lines import BOM

#: Bytes decoded at a time to validate a file (a whole file's text could take 4 bytes a character).
_CHUNK = 1 << 20


def check_utf8(path: str, data: bytes) -> None:
    """Raise the error `utf8` raises when `data` is not UTF-8, decoding a chunk at a time: no
    text of the whole file is made (one emoji would make it four bytes a character)."""
    skip = len(BOM) if data.startswith(BOM) else 0
    decoder = codecs.getincrementaldecoder("utf-8")()
    for at in range(skip, len(data), _CHUNK):
        pending = len(decoder.getstate()[0])  # bytes of a character the last chunk cut
        try:
            decoder.decode(data[at:at + _CHUNK], final=at + _CHUNK >= len(data))
        except UnicodeDecodeError as err:
            raise InputError(path, f"byte {at - skip - pending + err.start}", "invalid UTF-8") from None


def utf8(path: str, data: bytes) -> str:
    """The text of a file (a byte-order mark left out)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(path, f"byte {err.start}", "invalid UTF-8") from None
