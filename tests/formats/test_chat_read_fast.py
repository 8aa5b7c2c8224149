"""The Chat Completions reader's shortcuts for the usual request — the usual tool message and
assistant message read in `_read_messages`' loop, the usual call in `_tool_calls`, a tool and a
function declared with no key to keep — give what the general readers (`_result`,
`_assistant_turn`, `_tool_call`, `_extras`) give: the same request, sources, links and errors,
whatever the messages and tools hold.

Each shortcut is taken only when its object has no key but the ones it reads, which it counts
(`len`); read with a `len` that counts no wire object so, every object takes the general way."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tooldbg.errors import FormatError
from tooldbg.formats.openai_chat import read
from tooldbg.formats.reading import forget_links
from tooldbg.model import Result
from tooldbg.source import Source

# Values of every JSON type, the usual one of each field among them.
_VALUES = st.sampled_from([None, "", "call_1", "call_2", "run_sql", 3, True, {}, {"a": 1}, [],
                           [{"type": "text", "text": "ok"}], '{"a": 1}', "not json"])
_EXTRA = st.sampled_from(["name", "index", "refusal", "reasoning_content", "x_extra"])
_CHANGES = st.sampled_from(["none", "none", "missing", "other", "extra"])


def _changed(draw: st.DrawFn, usual: dict[str, Any]) -> dict[str, Any]:
    """`usual` with a change or two: a key missing or holding a value of another type, an extra key."""
    changed = dict(usual)
    for change in draw(st.lists(_CHANGES, min_size=1, max_size=2)):
        key = draw(st.sampled_from(sorted(usual)))
        if change == "missing":
            changed.pop(key, None)
        elif change == "other":
            changed[key] = draw(_VALUES)
        elif change == "extra":
            changed[draw(_EXTRA)] = draw(st.sampled_from([None, "x", 0, {"type": "ephemeral"}]))
    return changed


@st.composite
def _calls(draw: st.DrawFn) -> Any:
    function = _changed(draw, {"name": draw(st.sampled_from(["run_sql", "get_weather"])),
                               "arguments": draw(st.sampled_from(['{"a": 1}', "{}", "not json", ""]))})
    call = _changed(draw, {"id": draw(st.sampled_from(["call_1", "call_2", "call_3"])),
                           "type": draw(st.sampled_from(["function"] * 4 + ["custom", None])),
                           "function": function})
    if call.get("type") == "custom":
        call["custom"] = {"name": "run_sql", "input": "x"}
    return call


@st.composite
def _messages(draw: st.DrawFn) -> Any:
    """Mostly the usual tool and assistant messages, with a change or two each."""
    kind = draw(st.sampled_from(["tool", "tool", "assistant", "assistant", "user", "system", "other"]))
    if kind == "tool":
        return _changed(draw, {"role": draw(st.sampled_from(["tool"] * 4 + ["function"])),
                               "tool_call_id": draw(st.sampled_from(["call_1", "call_2", "call_9", ""])),
                               "content": draw(st.sampled_from(["ok", "", "done"]))})
    if kind == "assistant":
        return _changed(draw, {"role": "assistant", "content": draw(st.sampled_from(["calling", ""])),
                               "tool_calls": draw(st.lists(_calls(), max_size=3))})
    if kind == "user":
        return {"role": "user", "content": draw(st.sampled_from(["hi", [{"type": "text", "text": "hi"}]]))}
    if kind == "system":
        return {"role": "system", "content": "be brief"}
    return draw(_VALUES)  # (not a message at all)


@st.composite
def _tools(draw: st.DrawFn) -> Any:
    function = _changed(draw, {"name": draw(st.sampled_from(["run_sql", "get_weather"])),
                               "description": "d", "parameters": {"type": "object"}})
    return _changed(draw, {"type": draw(st.sampled_from(["function"] * 4 + [None])), "function": function})


_SOURCE = Source(file="log.jsonl", exchange=0, side="request", location="line 1/request/body")


def _read(body: dict[str, Any], start: int) -> Any:
    forget_links()  # (the tools read afresh each time, not taken from the read before)
    try:
        request = read.read_request(body, _SOURCE, start=start)
    except FormatError as error:
        return [error.message, error.pointer]
    return (request,
            [(t.source, [(p.source, [c.source for c in p.content] if isinstance(p, Result) else None)
                         for p in t.parts]) for t in request.turns],
            [p.source for p in request.system], [t.source for t in request.tools])


def _counts_no_object(value: Any) -> int:
    """`len`, but no dict has the keys a shortcut counts."""
    return -1 if type(value) is dict else len(value)


@settings(max_examples=700, deadline=None)
@given(st.lists(_messages(), max_size=6), st.lists(_tools(), max_size=2), st.integers(0, 2))
@example([{"role": "assistant", "content": "x", "tool_calls": [{"id": "call_1", "function": {"name": "a"}}]},
          {"role": "function", "tool_call_id": "call_1", "content": "ok"}], [], 0)
@example([{"role": "assistant", "content": "x", "tool_calls": [{"function": {"name": "a"}, "index": 0}]},
          {"role": "tool", "tool_call_id": 3, "content": "ok"}], [], 0)
def test_the_usual_request_reads_as_the_general_readers_read_it(messages: list[Any], tools: list[Any],
                                                                 start: int) -> None:
    body = {"model": "gpt", "messages": messages, "tools": tools}
    fast = _read(body, start)
    with patch.object(read, "len", _counts_no_object, create=True):
        general = _read(body, start)
    assert fast == general
