"""Fast paths of reading a stream's events and stamping a streamed response's chunks onto its nodes,
each against the general path it shortcuts: `event_types` against `event_type` asked of each event,
and `chunk_for`'s exact hit against the longest pointer prefix; and `stamp_chunks` against the copy
of each node with its chunk that it stamps in place."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import conversations
from tooldbg.formats.base import StreamEvent
from tooldbg.formats.reading import chunk_for, event_type, event_types, stamp_chunks
from tooldbg.model import Conversation, Part, Turn
from tooldbg.source import Source

_PAYLOADS = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["message_start", "content_block_delta", "ping", "", None, 3,
                                                    ["ping"], {"a": 1}])}),
    st.sampled_from([{}, {"index": 0}, "[DONE]", "", 5, None, ["ping"]]))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.one_of(_PAYLOADS, _PAYLOADS.filter(lambda data: isinstance(data, dict))
                                    .map(lambda data: {**data, "type": "message_delta"})),
                          st.sampled_from(["message_start", "ping", "", None])), max_size=6))
def test_event_types_is_each_event_type(pairs: list[tuple[Any, str | None]]) -> None:
    events = [StreamEvent(i, data, name) for i, (data, name) in enumerate(pairs)]
    assert event_types(events) == [event_type(event) for event in events]


_BODY = Source("capture.jsonl", 3, "response", "line 4/response/body")


def _same(stamped: Part | Turn, copy: Part | Turn) -> None:
    assert type(stamped) is type(copy) and stamped.source == copy.source
    for f in fields(copy):  # (equality leaves `source` out: every other field, by identity)
        if f.name != "source":
            assert getattr(stamped, f.name) is getattr(copy, f.name), f.name


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


def _with_chunk(node: Part | Turn, chunks: dict[str, int]) -> Part | Turn:
    """The node copied with the chunk of its pointer (what `stamp_chunks` stamps in place)."""
    pointer = node.source.pointer
    return replace(node, source=node.source.at(pointer, _longest_prefix(chunks, pointer)))


@settings(max_examples=150, deadline=None)
@given(conversations(), st.dictionaries(_POINTERS, st.integers(0, 50), max_size=6))
def test_stamp_chunks_is_a_copy_with_each_chunk(conversation: Conversation, chunks: dict[str, int]) -> None:
    for turn in conversation.turns:
        # (the turn as a reader makes it of a response body: its parts at `/content/<i>`)
        parts = tuple(replace(p, source=_BODY.child("content", i)) for i, p in enumerate(turn.parts))
        fresh = replace(turn, parts=parts, source=_BODY)
        copies = [_with_chunk(p, chunks) for p in fresh.parts]
        copy = _with_chunk(fresh, chunks)
        stamp_chunks(fresh, chunks)
        assert fresh.parts is parts
        for stamped, copied in zip(fresh.parts, copies, strict=True):
            _same(stamped, copied)
        _same(fresh, copy)
