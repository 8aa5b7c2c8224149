"""The Gemini stream assembler gathers the texts that continue a part, and the `stringValue` pieces
that continue a string argument, and joins them once, when another part follows or the stream ends
(adding each to the string made a long text take time in the square of its length). Against the
assembler joining after every chunk — each piece added to its string at once — it assembles the
same body, chunks and problems, whatever parts the chunks hold: texts and thoughts, signatures,
whole calls, calls streamed with `partialArgs` (a string continued, replaced by a number, walked
through as if it were an object, in a list), other parts, snake case, several candidates."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldbg.formats.base import Assembled, StreamEvent
from tooldbg.formats.gemini.stream import _Assembler

_PARTS = st.sampled_from([  # (texts as often as all the rest: runs of them are what is joined)
    {"text": "Oslo"}, {"text": " is "}, {"text": ""}, {"text": "é"},
    {"text": "thinking", "thought": True}, {"text": "more", "thought": True}]) | st.sampled_from([
    {"text": 7}, {"text": "", "thoughtSignature": "c2ln"}, {"text": "signed", "thought_signature": "c2ln"},
    {"text": "x", "cached": True},
    {"functionCall": {"name": "f", "args": {"city": "Oslo"}}},
    {"functionCall": {"name": "f", "partialArgs": [{"jsonPath": "$.city", "stringValue": "Os"}],
                      "willContinue": True}},
    {"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "lo"}], "willContinue": True}},
    {"functionCall": {"partialArgs": [{"jsonPath": "$.city", "numberValue": 3}], "willContinue": True}},
    {"functionCall": {"partialArgs": [{"jsonPath": "$.city.name", "stringValue": "x"}], "willContinue": True}},
    {"functionCall": {"partialArgs": [{"jsonPath": "$.stops[0]", "stringValue": "a"},
                                      {"jsonPath": "$.stops[0]", "stringValue": "b"}], "willContinue": True}},
    {"functionCall": {}},
    {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}])


@st.composite
def _chunks(draw: st.DrawFn) -> list[StreamEvent]:
    chunks: list[Any] = []
    for _ in range(draw(st.integers(1, 8))):
        candidates = [{"index": draw(st.sampled_from([0, 0, 0, 1])),
                       "content": {"role": "model", "parts": draw(st.lists(_PARTS, max_size=3))},
                       **draw(st.sampled_from([{}, {}, {"finishReason": "STOP"}]))}]
        chunks.append(draw(st.sampled_from([{"candidates": candidates}, {"candidates": candidates},
                                            {"usageMetadata": {"totalTokenCount": 3}}, "[DONE]"])))
    return [StreamEvent(i, data) for i, data in enumerate(chunks)]


class _JoiningEachChunk(_Assembler):
    """The assembler with every continued text joined after each chunk: each added at once."""

    def feed(self, event: StreamEvent) -> None:
        super().feed(event)
        for candidate in self.candidates.values():
            candidate._joined()
            candidate._grown()


def _assembled(assembler: _Assembler, events: list[StreamEvent]) -> Assembled:
    for event in events:
        assembler.feed(event)
    return assembler.result(events)


@settings(max_examples=800, deadline=None)
@given(_chunks())
def test_texts_joined_once_assemble_as_texts_added_at_each_chunk(events: list[StreamEvent]) -> None:
    assert _assembled(_Assembler(), events) == _assembled(_JoiningEachChunk(), events)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=5), st.booleans()), min_size=1, max_size=12))
def test_a_streamed_text_is_its_pieces_in_order(pieces: list[tuple[str, bool]]) -> None:
    """Texts one after the other make one part per run of thought or answer, each its pieces in order."""
    events = [StreamEvent(i, {"candidates": [{"content": {"role": "model", "parts": [
        {"text": text, **({"thought": True} if thought else {})}]}}]}) for i, (text, thought) in enumerate(pieces)]
    runs: list[tuple[bool, str]] = []
    for text, thought in pieces:
        if runs and runs[-1][0] == thought:
            runs[-1] = (thought, runs[-1][1] + text)
        elif text:  # (an empty text opens no part)
            runs.append((thought, text))
    parts = _assembled(_Assembler(), events).body["candidates"][0]["content"]["parts"]
    assert [(bool(p.get("thought")), p["text"]) for p in parts] == runs


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=5), min_size=1, max_size=12))
def test_a_streamed_string_argument_is_its_pieces_in_order(pieces: list[str]) -> None:
    fragments = [{"functionCall": {"name": "write", "willContinue": True}}] + [
        {"functionCall": {"partialArgs": [{"jsonPath": "$.file.text", "stringValue": p}], "willContinue": True}}
        for p in pieces] + [{"functionCall": {}}]
    events = [StreamEvent(i, {"candidates": [{"content": {"role": "model", "parts": [part]}}]})
              for i, part in enumerate(fragments)]
    parts = _assembled(_Assembler(), events).body["candidates"][0]["content"]["parts"]
    assert parts == [{"functionCall": {"name": "write", "args": {"file": {"text": "".join(pieces)}}}}]


def test_a_path_through_a_streamed_string_names_it_a_string() -> None:
    def fragment(path: str, value: str, **call: Any) -> StreamEvent:
        part = {"functionCall": {**call, "partialArgs": [{"jsonPath": path, "stringValue": value}],
                                 "willContinue": True}}
        return StreamEvent(0, {"candidates": [{"content": {"role": "model", "parts": [part]}}]})

    events = [fragment("$.city", "Os", name="f"), fragment("$.city", "lo"), fragment("$.city.name", "x")]
    events = [StreamEvent(i, e.data) for i, e in enumerate(events)]
    problems = _assembled(_Assembler(), events).problems
    assert [p.message for p in problems if p.kind == "arguments"] == [
        "$.city.name: a string where the path needs a container"]
