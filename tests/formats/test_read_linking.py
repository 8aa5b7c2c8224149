"""A reader that links calls and results as it reads (`ReadLinker`, the Anthropic request reader)
gives the turns `link` gives the same parts read unlinked, whatever the messages hold: calls and
results in one message, ids missing, empty, repeated or unknown, a read that starts after `prior`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tooldbg.formats.anthropic.read import read_request
from tooldbg.formats.reading import link
from tooldbg.model import Invocation, Result, Turn
from tooldbg.source import Source

_IDS = st.sampled_from([None, "", " ", "toolu_a", "toolu_b", "toolu_c"])
_NAMES = st.sampled_from(["get_weather", "run_sql"])


def _block(kind: str, wire_id: str | None, name: str) -> dict[str, Any]:
    if kind == "text":
        return {"type": "text", "text": "hi"}
    if kind == "tool_use":
        return {"type": "tool_use", "name": name, "input": {}} | ({} if wire_id is None else {"id": wire_id})
    return {"type": "tool_result", "content": "ok"} | ({} if wire_id is None else {"tool_use_id": wire_id})


_blocks = st.builds(_block, st.sampled_from(["text", "tool_use", "tool_result"]), _IDS, _NAMES)
_messages = st.builds(lambda role, blocks: {"role": role, "content": blocks},
                      st.sampled_from(["user", "assistant", "system"]), st.lists(_blocks, max_size=4))


def _unlinked(turn: Turn) -> Turn:
    return replace(turn, parts=tuple(replace(p, id="") if isinstance(p, Invocation)
                                     else replace(p, invocation_id=None, name=None) if isinstance(p, Result)
                                     else p for p in turn.parts))


def _same(read: tuple[Turn, ...], expected: tuple[Turn, ...]) -> None:
    assert read == expected
    assert [[p.source for p in t.parts] for t in read] == [[p.source for p in t.parts] for t in expected]


_CALL, _RESULT = _block("tool_use", None, "run_sql"), _block("tool_result", None, "")


@settings(max_examples=500, deadline=None)
@given(st.lists(_messages, max_size=8), st.integers(0, 8))
# (the calls of two messages in a row are two turns: a result without an id answers the later one)
@example([{"role": "assistant", "content": [_CALL]}, {"role": "assistant", "content": [_CALL]},
          {"role": "user", "content": [_RESULT, _RESULT]}], 0)
def test_linking_while_reading_is_linking_after_reading(messages: list[dict[str, Any]], start: int) -> None:
    body = {"model": "claude", "max_tokens": 10, "messages": messages}
    source = Source(file="log.har", exchange=0, side="request", location="/log/entries/0")
    turns = read_request(body, source).turns
    _same(turns, link([_unlinked(t) for t in turns]))
    # A read that starts at a message after `prior`, the turns of the messages before it.
    start = min(start, len(messages))
    prior = tuple(t for t in turns if int(t.source.pointer.split("/")[2]) < start)
    if all(int(t.source.pointer.split("/")[2]) >= start for t in turns[len(prior):]):
        later = read_request(body, source, start=start, prior=prior).turns
        _same(later, (*prior, *link([_unlinked(t) for t in later[len(prior):]], prior)))
