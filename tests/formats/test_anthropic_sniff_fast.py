"""Sniffing an Anthropic request gathers the messages' roles and blocks' types by C loops
(`_markers`), with a walk of each message and block for what those cannot read (`_markers_walked`):
it decides as the one walk it replaced did, whatever the body holds."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tooldbg.formats.anthropic.common import _CHOICE_MODES, _type
from tooldbg.formats.anthropic.read import (
    _ANTHROPIC_KEYS,
    _NO_TYPE,
    _OPENAI_KEYS,
    _OPENAI_MESSAGE_KEYS,
    _OPENAI_PARTS,
    _markers,
    _markers_walked,
    sniff,
)


def _sniff_before(body: Any) -> bool:
    """The request side of `sniff` as it was before `_markers`: one Python walk (the oracle)."""
    if not isinstance(body, dict):
        return False
    messages = body.get("messages")
    if not isinstance(messages, list) or _OPENAI_KEYS & body.keys():
        return False
    marked = bool(_ANTHROPIC_KEYS & body.keys())
    system_message = False
    for m in messages:
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        if role in ("tool", "developer", "function") or not _OPENAI_MESSAGE_KEYS.isdisjoint(m):
            return False
        system_message = system_message or role == "system"
        content = m.get("content")
        if isinstance(content, list):
            for b in content:
                if not isinstance(b, dict):
                    continue
                kind = b.get("type", _NO_TYPE)
                if isinstance(kind, str):
                    if kind in _OPENAI_PARTS:
                        return False
                    marked = marked or kind not in ("text", "image") or "source" in b
                elif kind is _NO_TYPE:
                    return False
                else:
                    marked = marked or "source" in b
    tools = [t for t in body["tools"] if isinstance(t, dict)] if isinstance(body.get("tools"), list) else []
    if any("function" in t or t.get("type") == "function" for t in tools):
        return False
    if marked or any("input_schema" in t for t in tools) or _type(body.get("tool_choice")) in _CHOICE_MODES:
        return True
    return "max_tokens" in body and not system_message


_ODD = st.sampled_from([None, 5, "x", ["text"], {"type": "text"}])
_KIND = st.sampled_from(["text", "image", "tool_use", "tool_result", "document", "image_url", "refusal",
                         "input_audio", None, 3, ["text"], "missing"])


@st.composite
def _block(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 12)) == 0:
        return draw(_ODD)  # (not a block)
    kind = draw(_KIND)
    block: dict[str, Any] = {} if kind == "missing" else {"type": kind}
    block["text"] = "hi"
    if draw(st.integers(0, 5)) == 0:
        block["source"] = {"type": "base64", "data": "AA"}
    return block


@st.composite
def _message(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 12)) == 0:
        return draw(_ODD)  # (not a message)
    message: dict[str, Any] = {"role": draw(st.sampled_from(["user", "assistant", "user", "assistant", "system",
                                                             "tool", "developer", "function", None, ["user"]]))}
    message["content"] = draw(st.one_of(st.lists(_block(), max_size=4), st.just("hi"), _ODD))
    if draw(st.integers(0, 8)) == 0:
        message[draw(st.sampled_from(sorted(_OPENAI_MESSAGE_KEYS)))] = []
    return message


_TOOLS = st.lists(st.sampled_from([{"name": "a", "input_schema": {}}, {"type": "function", "function": {}},
                                   {"name": "b"}, {"type": "web_search_20250305", "name": "web_search"}, 5]),
                  max_size=2)


@st.composite
def _body(draw: st.DrawFn) -> Any:
    body: dict[str, Any] = {"messages": draw(st.lists(_message(), max_size=5))}
    for key, value in (("max_tokens", 100), ("system", "Be brief."), ("tools", draw(_TOOLS)),
                       ("tool_choice", draw(st.sampled_from([{"type": "auto"}, "auto", {"type": "x"}]))),
                       ("max_completion_tokens", 100)):
        if draw(st.integers(0, 3)) == 0:
            body[key] = value
    return body


@settings(max_examples=600, deadline=None)
@given(_body())
# (a block without a type is Bedrock's, whatever else marks the body; a type not a string marks nothing)
@example({"messages": [{"role": "user", "content": [{"type": "tool_use"}, {"text": "hi"}]}]})
@example({"messages": [{"role": "user", "content": [{"type": 3, "text": "hi"}]}]})
def test_sniffing_decides_as_the_one_walk_did(body: dict[str, Any]) -> None:
    assert sniff(body, "request") is _sniff_before(body)
    try:
        gathered = _markers(body["messages"])
    except TypeError:
        return
    assert gathered == _markers_walked(body["messages"])


def test_the_usual_request_is_sniffed_by_the_c_loops_alone() -> None:
    """`_markers` itself answers for objects with hashable roles and types (the walk is for what is
    not): a request of text, calls and results is decided without `_markers_walked`."""
    messages = [{"role": "user", "content": "Weather in Oslo?"},
                {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                                  {"type": "tool_use", "id": "toolu_1", "name": "w", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "4"}]}]
    assert _markers(messages) is True
    assert _markers([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]) is False
    assert _markers([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]) is None
