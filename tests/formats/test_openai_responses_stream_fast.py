"""The Responses stream assembler gathers a run of deltas in pieces and joins them once, when an
event of their output reads or replaces the text (adding each delta to the string made a long output
take time in the square of its length). Against the assembler joining after every event — each
delta added to the text at once, as openai-python's accumulator does — it assembles the same body,
chunks and problems, on the usual streams and on streams with events dropped, repeated, moved, sent
again, or aimed at another output or part."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import DISORDERS, disorder
from tooldbg.formats.base import Assembled, StreamEvent
from tooldbg.formats.openai_responses.stream import _Assembler

_PIECES = st.sampled_from(["Oslo", " is ", "", '{"city": ', '"Oslo"}', "é", 7])
_KINDS = ("message", "reasoning", "function_call")


def _output(draw: st.DrawFn, oi: int, kind: str) -> list[dict[str, Any]]:
    """One output's events: added, its parts and deltas, each `.done` with the text the deltas make
    (or, drawn, another text or none), and the item done."""
    def deltas(event: str, extra: dict[str, Any], pieces: list[Any]) -> list[dict[str, Any]]:
        return [{"type": f"{event}.delta", "output_index": oi, **extra, "delta": p} for p in pieces]

    def done(event: str, extra: dict[str, Any], field: str, pieces: list[Any]) -> list[dict[str, Any]]:
        said = draw(st.sampled_from(["joined", "other", "empty", "none"]))
        if said == "none":
            return []
        text = {"joined": "".join(p for p in pieces if isinstance(p, str)), "other": "else", "empty": ""}[said]
        return [{"type": f"{event}.done", "output_index": oi, **extra, field: text}]

    if kind == "function_call":
        item = {"type": "function_call", "id": f"fc_{oi}", "call_id": f"call_{oi}", "name": "f", "arguments": ""}
        pieces = draw(st.lists(_PIECES, max_size=4))
        events = [{"type": "response.output_item.added", "output_index": oi, "item": dict(item)},
                  *deltas("response.function_call_arguments", {}, pieces),
                  *done("response.function_call_arguments", {}, "arguments", pieces)]
        final = {**item, "arguments": draw(st.sampled_from(["", '{"city": "Oslo"}']))}
        return [*events, {"type": "response.output_item.done", "output_index": oi, "item": final}]
    where, index, part_type, event = (
        ("content", "content_index", "output_text", "response.output_text") if kind == "message"
        else ("summary", "summary_index", "summary_text", "response.reasoning_summary_text"))
    opening = "response.content_part" if kind == "message" else "response.reasoning_summary_part"
    events = [{"type": "response.output_item.added", "output_index": oi,
               "item": {"type": kind, "id": f"it_{oi}", where: []}}]
    finals = []
    for n in range(draw(st.integers(0, 2))):
        pieces = draw(st.lists(_PIECES, max_size=4))
        events += [{"type": f"{opening}.added", "output_index": oi, index: n, "part": {"type": part_type, "text": ""}},
                   *deltas(event, {index: n}, pieces),
                   *done(event, {index: n}, "text", pieces),
                   {"type": f"{opening}.done", "output_index": oi, index: n,
                    "part": {"type": part_type, "text": draw(st.sampled_from(["", "final"]))}}]
        finals.append({"type": part_type, "text": ""})
    return [*events, {"type": "response.output_item.done", "output_index": oi,
                      "item": {"type": kind, "id": f"it_{oi}", where: finals}}]


@st.composite
def _streams(draw: st.DrawFn) -> list[StreamEvent]:
    events: list[Any] = [{"type": "response.created", "response": {"id": "resp_1", "output": []}}]
    for oi, kind in enumerate(draw(st.lists(st.sampled_from(_KINDS), max_size=3))):
        events += _output(draw, oi, kind)
    events.append({"type": "response.completed", "response": draw(st.sampled_from([
        {"id": "resp_1", "status": "completed"}, {"id": "resp_1", "status": "completed", "output": []}]))})
    for change in draw(st.lists(st.sampled_from([*DISORDERS, "aim"]), max_size=4)):
        at = draw(st.integers(0, len(events) - 1))
        if not disorder(draw, events, change, at) and isinstance(events[at], dict):  # aimed elsewhere
            key = draw(st.sampled_from(["output_index", "content_index", "summary_index"]))
            if key in events[at]:
                events[at] = {**events[at], key: draw(st.sampled_from([0, 1, 2, 5, None]))}
    return [StreamEvent(i, data, data.get("type")) for i, data in enumerate(events)]


class _JoiningEachEvent(_Assembler):
    """The assembler with every text joined after each event: each delta added to its text at once."""

    def feed(self, event: StreamEvent) -> None:
        super().feed(event)
        self._joined()


def _assembled(assembler: _Assembler, events: list[StreamEvent]) -> Assembled:
    for event in events:
        assembler.feed(event)
    return assembler.finish(events[-1].index)


@settings(max_examples=800, deadline=None)
@given(_streams())
def test_texts_joined_once_assemble_as_texts_added_at_each_delta(events: list[StreamEvent]) -> None:
    assert _assembled(_Assembler(), events) == _assembled(_JoiningEachEvent(), events)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.text(max_size=5), max_size=6), min_size=1, max_size=3), st.booleans())
def test_a_streamed_text_is_its_deltas_in_order(parts: list[list[str]], completed: bool) -> None:
    """A message's parts read as their deltas in order, whether or not the stream ended."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "content": []}}]
    for n, pieces in enumerate(parts):
        events.append({"type": "response.content_part.added", "output_index": 0, "content_index": n,
                       "part": {"type": "output_text", "text": ""}})
        events += [{"type": "response.output_text.delta", "output_index": 0, "content_index": n, "delta": p}
                   for p in pieces]
    if completed:
        events.append({"type": "response.completed", "response": {"id": "resp_1"}})
    body = _assembled(_Assembler(), [StreamEvent(i, e, e["type"]) for i, e in enumerate(events)]).body
    assert [part["text"] for part in body["output"][0]["content"]] == ["".join(pieces) for pieces in parts]
