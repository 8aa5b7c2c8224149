"""Fast paths of stamping a streamed response's chunks onto its nodes (`reading.with_chunks`), each
against the general path it shortcuts: `with_source` against `dataclasses.replace`, and
`chunk_for`'s exact hit against the longest pointer prefix."""

from __future__ import annotations

from dataclasses import fields, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import conversations
from tooldbg.formats.reading import chunk_for, with_source
from tooldbg.model import Conversation, Part, Turn
from tooldbg.source import Source

_SOURCE = Source("capture.jsonl", 3, "response", "line 4/response/body", "/content/1", 7)


def _same(copy: Part | Turn, original: Part | Turn) -> None:
    assert type(copy) is type(original)
    for f in fields(original):  # (equality leaves `source` out: every field, by identity)
        assert getattr(copy, f.name) is getattr(original, f.name), f.name


@settings(max_examples=150, deadline=None)
@given(conversations())
def test_with_source_is_replace(conversation: Conversation) -> None:
    nodes: list[Part | Turn] = [*conversation.system]
    for turn in conversation.turns:
        nodes += [turn, *turn.parts]
        nodes += [inner for part in turn.parts for inner in getattr(part, "content", ())]
    for node in nodes:
        copy = with_source(node, _SOURCE)
        assert copy is not node and copy.source is _SOURCE
        _same(copy, replace(node, source=_SOURCE))


def _longest_prefix(chunks: dict[str, int], pointer: str) -> int | None:
    """The general rule: the chunk of the longest prefix of `pointer`, token by token."""
    found = [(len(p), i) for p, i in chunks.items() if pointer == p or pointer.startswith(p + "/")]
    return max(found)[1] if found else None


_POINTERS = st.lists(st.sampled_from(["content", "0", "1", "12", "input", "stop_reason", ""]),
                     max_size=4).map(lambda tokens: "".join("/" + t for t in tokens))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_POINTERS, st.integers(0, 50), max_size=6), _POINTERS)
def test_chunk_for_is_the_longest_prefix(chunks: dict[str, int], pointer: str) -> None:
    assert chunk_for(chunks, pointer) == _longest_prefix(chunks, pointer)
