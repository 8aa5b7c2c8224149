"""Every value of every sample replaced, one at a time, by a value of another type — an array, an
object, a number, a string — including the values inside the JSON documents a HAR or a recording
keeps as strings and those of each server-sent event: loading and checking each never ends in an exception but tooldbg's own one-line
errors (under TOOLDBG_DEBUG=1, which raises what a user would see as "a bug in tooldbg"). The
random fuzzer (tests/fuzz) picks places at random; this sweep visits each place, and found what
60,000 random mutants had not (an OTel attribute array of the wrong shape made a trace unreadable)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests import paths
from tooldbg.checks import run_checks
from tooldbg.errors import ToolDbgError
from tooldbg.load import load_bytes

#: What each value is swapped for: the wrong-type confusions readers meet (`.get` on a list, a
#: number iterated, a container as a key, a string where an object was).
SWAPS: tuple[Any, ...] = (["x"], {"k": 1}, 5, "s")
#: A document kept as a string inside another (a HAR's bodies), expanded to be swapped inside too.
_EMBEDDED = "\x00embedded"


def _samples() -> list[Path]:
    return sorted(p for p in paths.SAMPLES.rglob("*") if p.suffix in (".json", ".jsonl", ".har", ".sse"))


def _documents(sample: Path) -> tuple[list[str], dict[int, Any]]:
    """The sample's lines, and the JSON value of each line that holds one (JSON Lines; an event's
    `data:` in server-sent events; a JSON document or a HAR is one value, its lines joined)."""
    text = sample.read_text(encoding="utf-8")
    if sample.suffix not in (".jsonl", ".sse"):
        return [text], {0: _expanded(orjson.loads(text))}
    lines = text.split("\n")
    prefix = "data:" if sample.suffix == ".sse" else ""
    return lines, {n: _expanded(orjson.loads(line.removeprefix(prefix))) for n, line in enumerate(lines)
                   if line.startswith(prefix) and line.strip() not in ("", "data: [DONE]")}


def _expanded(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _expanded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expanded(v) for v in value]
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return {_EMBEDDED: _expanded(orjson.loads(value))}
        except orjson.JSONDecodeError:
            return value
    return value


def _collapsed(value: Any) -> Any:
    if isinstance(value, dict):
        if value.keys() == {_EMBEDDED}:
            return orjson.dumps(_collapsed(value[_EMBEDDED])).decode()
        return {k: _collapsed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_collapsed(v) for v in value]
    return value


def _places(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value below the top (an embedded document's wrapper is not a place)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        if key != _EMBEDDED:
            yield (*at, key)
        yield from _places(child, (*at, key))


def _swapped(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    copy = orjson.loads(orjson.dumps(value))
    node = copy
    for key in at[:-1]:
        node = node[key]
    node[at[-1]] = orjson.loads(orjson.dumps(new))
    return copy


@pytest.mark.parametrize("sample", _samples(), ids=lambda p: str(p.relative_to(paths.SAMPLES)))
def test_a_value_of_another_type_anywhere_is_never_a_crash(sample: Path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLDBG_DEBUG", "1")
    lines, documents = _documents(sample)
    prefix = "data: " if sample.suffix == ".sse" else ""
    crashes = []
    for d, document in documents.items():
        for at in _places(document):
            for new in SWAPS:
                changed = list(lines)
                changed[d] = prefix + orjson.dumps(_collapsed(_swapped(document, at, new))).decode()
                data = "\n".join(changed).encode()
                try:
                    run_checks(load_bytes(sample.name, data))
                except ToolDbgError:
                    pass
                except Exception as err:  # noqa: BLE001 (any other exception is the failure reported)
                    crashes.append(f"line {d + 1}: {'/'.join(map(str, at))} = {new!r}: {type(err).__name__}: {err}")
    assert not crashes, f"{len(crashes)} crashes, first: " + "\n".join(crashes[:5])
