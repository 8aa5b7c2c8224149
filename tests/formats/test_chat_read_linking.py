"""The OpenAI Chat reader links calls and results as it reads (`ReadLinker`): the turns are those
`link` gives the same parts read unlinked, whatever the messages hold — tool and legacy `function`
messages with or without ids and names, calls without ids, Anthropic blocks forwarded in a user or
assistant message, a read that starts after `prior` — and a completion's turn is linked the same."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tooldbg.formats.openai_chat.read import read_request, read_response
from tooldbg.formats.reading import link
from tooldbg.model import Invocation, Result, Turn
from tooldbg.source import Source

_IDS = st.sampled_from([None, "", " ", "call_a", "call_b", "call_c"])
_NAMES = st.sampled_from(["get_weather", "run_sql"])
_MAYBE_NAME = st.one_of(st.none(), _NAMES)


def _call(wire_id: str | None, name: str, custom: bool) -> dict[str, Any]:
    if custom:
        return {"type": "custom", "custom": {"name": name, "input": "x"}} | ({} if wire_id is None else {"id": wire_id})
    return {"type": "function", "function": {"name": name, "arguments": "{}"}} | (
        {} if wire_id is None else {"id": wire_id})


def _assistant(text: str | None, calls: list[dict[str, Any]], forwarded: list[tuple[str | None, str]],
               legacy: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if forwarded:  # Anthropic tool_use blocks in the content
        message["content"] = [{"type": "text", "text": text or "x"}] + [
            {"type": "tool_use", "name": name, "input": {}} | ({} if wire_id is None else {"id": wire_id})
            for wire_id, name in forwarded]
    if calls:
        message["tool_calls"] = calls
    if legacy is not None:
        message["function_call"] = {"name": legacy, "arguments": "{}"}
    return message


def _tool(wire_id: str | None, name: str | None, legacy: bool) -> dict[str, Any]:
    if legacy:
        return {"role": "function", "name": name or "run_sql", "content": "ok"}
    return {"role": "tool", "content": "ok"} | ({} if wire_id is None else {"tool_call_id": wire_id}) | (
        {} if name is None else {"name": name})


def _user(forwarded: list[str | None]) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": "hi"}] + [
        {"type": "tool_result", "content": "ok"} | ({} if wire_id is None else {"tool_use_id": wire_id})
        for wire_id in forwarded]}


_messages = st.one_of(
    st.builds(_assistant, st.one_of(st.none(), st.just("thinking")),
              st.lists(st.builds(_call, _IDS, _NAMES, st.booleans()), max_size=3),
              st.lists(st.tuples(_IDS, _NAMES), max_size=2), st.one_of(st.none(), _NAMES)),
    st.builds(_tool, _IDS, _MAYBE_NAME, st.booleans()),
    st.builds(_user, st.lists(_IDS, max_size=2)),
    st.just({"role": "system", "content": "be brief"}),
)


def _unlinked(turn: Turn, messages: list[dict[str, Any]]) -> Turn:
    """The turn as read before linking: calls without their own id, results bound to nothing and
    named only by their own message's `name`."""
    def own_name(result: Result) -> str | None:
        tokens = result.source.pointer.split("/")
        name = messages[int(tokens[2])].get("name") if len(tokens) == 3 else None  # (a tool message)
        return name if isinstance(name, str) else None

    return replace(turn, parts=tuple(replace(p, id="") if isinstance(p, Invocation)
                                     else replace(p, invocation_id=None, name=own_name(p))
                                     if isinstance(p, Result) else p for p in turn.parts))


def _same(read: tuple[Turn, ...], expected: tuple[Turn, ...]) -> None:
    assert read == expected
    assert [[p.source for p in t.parts] for t in read] == [[p.source for p in t.parts] for t in expected]


_CALL = _call(None, "run_sql", False)


@settings(max_examples=500, deadline=None)
@given(st.lists(_messages, max_size=8), st.integers(0, 8))
# (the calls of two messages in a row are two turns: a result without an id answers the later one)
@example([_assistant(None, [_CALL], [], None), _assistant(None, [_CALL], [], None),
          _tool(None, None, False), _tool(None, None, False)], 0)
# (a legacy function result answers the call of its name, not the first unanswered one)
@example([_assistant(None, [_call(None, "get_weather", False), _CALL], [], None),
          _tool(None, "run_sql", True)], 0)
def test_linking_while_reading_is_linking_after_reading(messages: list[dict[str, Any]], start: int) -> None:
    body = {"model": "gpt", "messages": messages}
    source = Source(file="log.jsonl", exchange=0, side="request", location="1")
    turns = read_request(body, source).turns
    _same(turns, link([_unlinked(t, messages) for t in turns]))
    # A read that starts at a message after `prior`, the turns of the messages before it.
    start = min(start, len(messages))
    prior = tuple(t for t in turns if int(t.source.pointer.split("/")[2]) < start)
    if all(int(t.source.pointer.split("/")[2]) >= start for t in turns[len(prior):]):
        later = read_request(body, source, start=start, prior=prior).turns
        _same(later, (*prior, *link([_unlinked(t, messages) for t in later[len(prior):]], prior)))


@settings(max_examples=200, deadline=None)
@given(st.builds(_assistant, st.one_of(st.none(), st.just("thinking")),
                 st.lists(st.builds(_call, _IDS, _NAMES, st.booleans()), max_size=3),
                 st.lists(st.tuples(_IDS, _NAMES), max_size=2), st.one_of(st.none(), _NAMES)))
def test_a_completion_turn_is_linked_as_link_links_it(message: dict[str, Any]) -> None:
    turn = read_response({"choices": [{"message": message}]}, Source(file="log.jsonl")).turn
    assert turn is not None
    _same((turn,), link([_unlinked(turn, [])]))
