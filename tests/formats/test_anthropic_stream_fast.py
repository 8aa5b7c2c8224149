"""The Anthropic stream assembler's fast paths, each against the general path it shortcuts:
`split_streams` of a capture with one `message_start` (or none) against `split_at` asking each
event, and `_Assembler.feed_all`, which hands the usual event straight to its step, against `feed`
fed each event. The streams are the usual ones with a change or two: an event dropped, repeated,
moved or sent again after the end, another index, a ping, an error, a payload that is not an
object, a `type` that is not a string. A streamed text is its block's deltas in order, though
gathered and joined once."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import DISORDERS, disorder
from tooldbg.formats.anthropic.stream import _Assembler, split_streams
from tooldbg.formats.base import Assembled, StreamEvent
from tooldbg.formats.reading import event_type, split_at

_BLOCKS = {"text": ({"type": "text", "text": ""}, "text_delta", "text"),
           "thinking": ({"type": "thinking", "thinking": ""}, "thinking_delta", "thinking"),
           "tool_use": ({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}, "input_json_delta",
                        "partial_json")}
_PIECES = st.sampled_from(['{"city": ', '"Oslo"}', "Step 1", "", 7])
_ODD = st.sampled_from([
    {"type": "ping"}, {"type": "error", "error": {"message": "Overloaded"}}, {"type": "message_stop"},
    {"type": "message_start", "message": {"content": []}}, {"type": "unknown"}, {"type": ""},
    {"type": None}, {"type": ["message_stop"]}, {"index": 0}, "[DONE]", 5, None,
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "s"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {}}},
    {"type": "content_block_delta", "index": 0, "delta": "x"},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn", "container": {"id": "c"}},
     "usage": {"output_tokens": 3, "server_tool_use": {"web_search_requests": 1}}}])
_INDICES = st.sampled_from([0, 1, 2, 5, -1, True, 1.0, "0", None, [0]])
_NAMES = st.sampled_from(["message_start", "message_stop", "ping", "", None])


@st.composite
def _streams(draw: st.DrawFn) -> list[StreamEvent]:
    events: list[Any] = [{"type": "message_start", "message": {
        "id": "msg_1", "content": [], "usage": {"input_tokens": 9, "output_tokens": 1}}}]
    for index, kind in enumerate(draw(st.lists(st.sampled_from(sorted(_BLOCKS)), max_size=3))):
        block, delta, key = _BLOCKS[kind]
        events.append({"type": "content_block_start", "index": index, "content_block": dict(block)})
        events += [{"type": "content_block_delta", "index": index, "delta": {"type": delta, key: piece}}
                   for piece in draw(st.lists(_PIECES, max_size=3))]
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 12}}, {"type": "message_stop"}]
    for change in draw(st.lists(st.sampled_from([*DISORDERS, "index", "odd"]), max_size=3)):
        at = draw(st.integers(0, len(events) - 1))
        if disorder(draw, events, change, at):
            continue
        if change == "index" and isinstance(events[at], dict) and "index" in events[at]:
            events[at] = {**events[at], "index": draw(_INDICES)}
        elif change == "odd":
            events.insert(at, draw(_ODD))
    return [StreamEvent(i, data, draw(_NAMES)) for i, data in enumerate(events)]


def _fed_one_by_one(events: list[StreamEvent]) -> Assembled:
    assembly = _Assembler()
    for event in events:
        assembly.feed(event)
    return assembly.finish()


def _fed_at_once(events: list[StreamEvent]) -> Assembled:
    assembly = _Assembler()
    assembly.feed_all(events)
    return assembly.finish()


@settings(max_examples=600, deadline=None)
@given(_streams())
def test_split_streams_is_split_at_each_start(events: list[StreamEvent]) -> None:
    assert split_streams(events) == split_at(events, lambda event: event_type(event) == "message_start")


@settings(max_examples=600, deadline=None)
@given(_streams())
def test_feed_all_is_feeding_each_event(events: list[StreamEvent]) -> None:
    assert _fed_at_once(events) == _fed_one_by_one(events)


@settings(max_examples=200, deadline=None)
@given(blocks=st.lists(st.tuples(st.sampled_from(["text", "thinking"]), st.lists(st.text(max_size=5), max_size=6),
                                 st.sampled_from(["stopped", "late delta", "never stopped"])),
                       min_size=1, max_size=3),
       ended=st.booleans())
def test_a_streamed_text_is_every_delta_of_its_block_in_order(blocks, ended):
    """The text and thinking deltas are gathered and joined once (`_Assembler.texts`): each block
    still reads as its pieces in order — a delta after the block's stop included, and a block or a
    stream cut short — as the SDK's accumulator, adding each delta to the string, reads it."""
    events: list[Any] = [{"type": "message_start", "message": {"id": "msg_1", "content": []}}]
    late = []
    for index, (kind, pieces, how) in enumerate(blocks):
        block, delta, key = _BLOCKS[kind]
        events.append({"type": "content_block_start", "index": index, "content_block": dict(block)})
        deltas = [{"type": "content_block_delta", "index": index, "delta": {"type": delta, key: p}}
                  for p in pieces]
        if how == "late delta" and deltas:
            late.append(deltas.pop())
        events += deltas
        if how != "never stopped":
            events.append({"type": "content_block_stop", "index": index})
    events += late
    if ended:
        events.append({"type": "message_stop"})
    assembly = _Assembler()
    assembly.feed_all([StreamEvent(i, event, event["type"]) for i, event in enumerate(events)])
    content = assembly.finish().body["content"]
    assert [block[kind] for block, (kind, _, _) in zip(content, blocks, strict=True)] == \
        ["".join(pieces) for _, pieces, _ in blocks]


def test_the_usual_events_find_their_block_without_asking_position(monkeypatch: Any) -> None:
    """A delta or a stop naming, as an `int`, the index its block opened under looks the block up
    in its own step: `_Assembler.position` (for what is not) is not called."""

    def asked(self: _Assembler, index: Any, data: dict[str, Any], at: int) -> int | None:
        raise AssertionError(f"position asked for {index!r}")

    monkeypatch.setattr(_Assembler, "position", asked)
    events = [StreamEvent(i, e) for i, e in enumerate([
        {"type": "message_start", "message": {"content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"}])]
    for feed in ("feed_all", "feed"):
        assembler = _Assembler()
        if feed == "feed_all":
            assembler.feed_all(events)
        else:
            for event in events:
                assembler.feed(event)
        assembled = assembler.finish()
        assert assembled.body["content"] == [{"type": "text", "text": "Hi"}]
        assert assembled.problems == () and assembled.complete
