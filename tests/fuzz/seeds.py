"""The seed inputs: every log file of the samples and of the corpus (tests/paths.py), read once.
Without the third-party corpus the seeds are the project's own files only, and a seed number names
another input than with it."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tests import paths

#: What a folder walk would read (README and LICENSE files are documentation, not logs).
_SUFFIXES = {".json", ".jsonl", ".har", ".sse", ".txt", ".ndjson", ".log", ".bin"}


@dataclass(frozen=True, slots=True)
class Seed:
    name: str  # relative name, with the suffix the mutated input keeps
    data: bytes


@cache
def seeds() -> tuple[Seed, ...]:
    """Every seed, in a stable order (so a seed number means the same input everywhere)."""
    out: list[Seed] = []
    for file in sorted(paths.SAMPLES.rglob("*")):
        if file.is_file() and file.suffix.lower() in _SUFFIXES:
            out.append(Seed(f"samples/{file.relative_to(paths.SAMPLES)}", file.read_bytes()))
    for file in paths.corpus_files(_SUFFIXES):
        out.append(Seed(f"corpus/{paths.corpus_name(file)}", file.read_bytes()))
    out.extend(_raw_eventstreams(out))
    out.extend(_canonical(out))
    return tuple(out)


def _canonical(found: list[Seed]) -> list[Seed]:
    """The canonical documents tooldbg writes for the samples (users keep them: it reads them)."""
    from tooldbg.convert import export
    from tooldbg.load import load_bytes

    out = []
    for seed in found:
        if seed.name.startswith("samples/"):
            loaded = load_bytes(seed.name, seed.data)
            if loaded.conversations:
                text = export(loaded.conversations, "canonical").text()
                out.append(Seed(f"{Path(seed.name).with_suffix('')}.canonical.json", text.encode()))
    return out


def _raw_eventstreams(found: list[Seed]) -> list[Seed]:
    """The binary AWS event streams that recorder files hold base64-encoded, as files of their own
    (what a user saves from a ConverseStream response)."""
    out = []
    for seed in found:
        try:
            doc = json.loads(seed.data)
        except ValueError:
            continue
        for i, record in enumerate(doc.get("interactions", []) if isinstance(doc, dict) else []):
            body = (record.get("response") or {}).get("body") if isinstance(record, dict) else None
            if isinstance(body, str) and (record["response"].get("bodyEncoding") == "base64"
                                          or body.startswith("AAAA")):
                try:
                    raw = base64.b64decode(body, validate=True)
                except (binascii.Error, ValueError):
                    continue
                out.append(Seed(f"{Path(seed.name).with_suffix('')}-{i}.bin", raw))
    return out


@cache
def by_container() -> dict[str, tuple[Seed, ...]]:
    """The seeds grouped by container (har, interactions, json, jsonl, sse, eventstream), so a run
    draws each container as often as the others however many seeds each has."""
    from .mutate import classify

    groups: dict[str, list[Seed]] = {}
    for seed in seeds():
        kind = classify(seed.data)
        if seed.name.endswith(".har"):
            kind = "har"
        elif kind == "json" and b'"interactions"' in seed.data[:200]:
            kind = "interactions"
        elif seed.name.endswith(".canonical.json"):
            kind = "canonical"
        groups.setdefault(kind, []).append(seed)
    return {kind: tuple(group) for kind, group in sorted(groups.items())}


def by_name(name: str) -> Seed:
    return next(s for s in seeds() if s.name == name)
