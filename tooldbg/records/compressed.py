"""Compressed logs, told by their first bytes and unpacked before anything else is read.

* zstd (RFC 8878 §3.1.1: a frame starts with the magic number 0xFD2FB528, little-endian): Codex
  compresses old rollouts to `rollout-*.jsonl.zst` (openai/codex `codex-rs/rollout`), capture tools
  archive their logs so too. Python has no zstd before 3.14 (`compression.zstd`, PEP 784); older
  Pythons read it with the `zstandard` package (`pip install 'tooldbg[zstd]'`), and say so without it.
* zlib (RFC 1950 §2.2: CMF 0x78 for a 32 KiB window, and CMF·256 + FLG a multiple of 31): mitmproxy
  writes a HAR named `.zhar` as `zlib.compress(json, 9)` (mitmproxy `addons/savehar.py`, `done`).

A zip (an Inspect AI `.eval` log) is not unpacked here: it holds several files, which its reader
reads (`logs.inspect_ai`).
"""

from __future__ import annotations

import zlib
from typing import NoReturn

from ..errors import InputError

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZIP_MAGIC = b"PK\x03\x04"
#: What to install when a zstd file cannot be read.
ZSTD_HINT = "install 'tooldbg[zstd]' (the zstandard package), or use Python 3.14 or later"


def unpack(path: str, data: bytes) -> bytes:
    """The bytes of `data` uncompressed when they are zstd or zlib, else `data` itself."""
    if data.startswith(ZSTD_MAGIC):
        return _zstd(path, data)
    if is_zlib(data):
        try:
            return zlib.decompress(data)
        except zlib.error:
            return data  # two bytes that only looked like a zlib header: read as they are
    return data


def is_zlib(data: bytes) -> bool:
    """The two bytes of a zlib header (RFC 1950 §2.2)."""
    return len(data) >= 2 and data[0] == 0x78 and (data[0] * 256 + data[1]) % 31 == 0


def _missing(path: str) -> NoReturn:
    raise InputError(path, "", f"zstd-compressed: {ZSTD_HINT}")


def _zstd(path: str, data: bytes) -> bytes:
    try:
        from compression import zstd  # type: ignore[import-not-found]  # Python 3.14+
    except ImportError:
        zstd = None
    try:
        if zstd is not None:
            return bytes(zstd.decompress(data))
        try:
            import zstandard  # type: ignore[import-not-found, import-untyped, unused-ignore]
        except ImportError:
            _missing(path)
        # A frame written by streaming may not record its size: read it as a stream.
        return bytes(zstandard.ZstdDecompressor().decompressobj().decompress(data))
    except InputError:
        raise
    except Exception as err:  # noqa: BLE001 - each library has its own error class
        raise InputError(path, "", f"zstd-compressed, but it does not decompress: {err}") from None
