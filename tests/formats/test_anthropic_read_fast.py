"""The Anthropic reader's fast path for the usual block (a text, a call with an object input, a result
with a string content, read in `read_content`'s loop) gives what the general block readers (`_part`)
give: the same parts, sources, links and errors, whatever the blocks hold."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tooldbg.errors import FormatError
from tooldbg.formats.anthropic.read import (
    _RESULT_BLOCKS,
    _SYSTEM_BLOCKS,
    MESSAGE_BLOCKS,
    RESPONSE_BLOCKS,
    _any_tool,
    _part,
    _tool,
    read_content,
)
from tooldbg.formats.reading import ReadLinker
from tooldbg.model import Part, Result, Tool
from tooldbg.source import Source

# Values of every JSON type, the usual one of each field among them.
_VALUES = st.sampled_from([None, "", "toolu_1", "toolu_2", "get_weather", 3, True, False, {}, {"city": "Oslo"},
                           [], [{"type": "text", "text": "4 °C"}], '{"city": "Oslo"}', "not json"])
_KINDS = st.sampled_from(["text", "tool_use", "tool_result"] * 3 + ["image", "thinking", "image_url", 7, None])
_USUAL = {"text": {"text": "hi"},
          "tool_use": {"id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
          "tool_result": {"tool_use_id": "toolu_1", "content": "4 °C"}}
_CHANGES = st.sampled_from(["none", "missing", "other", "extra", "is_error"])


@st.composite
def _blocks(draw: st.DrawFn) -> Any:
    """Mostly the usual blocks, with a change or two each: a field missing or of another type, an
    extra key, an `is_error`."""
    if draw(st.integers(0, 30)) == 0:
        return draw(_VALUES)  # (not a block at all)
    kind = draw(_KINDS)
    usual = _USUAL.get(kind, {})  # type: ignore[call-overload]
    block: dict[str, Any] = {"type": kind, **usual}
    for change in draw(st.lists(_CHANGES, min_size=1, max_size=2)):
        key = draw(st.sampled_from(sorted(usual))) if usual else "text"
        if change == "missing":
            block.pop(key, None)
        elif change == "other":
            block[key] = draw(_VALUES)
        elif change == "extra":
            block[draw(st.sampled_from(["cache_control", "caller", "citations", "id"]))] = draw(
                st.sampled_from([{"type": "direct"}, {"type": "ephemeral"}, None, "x"]))
        elif change == "is_error":
            block["is_error"] = draw(st.sampled_from([None, True, False, 1, "yes"]))
    return block


def _read(read: Any) -> Any:
    try:
        return read()
    except FormatError as error:
        return [error.message, error.pointer]


def _described(parts: Any) -> Any:
    """The parts with what their equality leaves out: each part's and each result content's source."""
    if not isinstance(parts, tuple):
        return parts
    return [(part, part.source, [(c, c.source) for c in part.content] if isinstance(part, Result) else None)
            for part in parts]


_POSITIONS = st.sampled_from([MESSAGE_BLOCKS] * 3 + [RESPONSE_BLOCKS, _RESULT_BLOCKS, _SYSTEM_BLOCKS])
_SOURCE = Source(file="log.har", exchange=0, side="request", location="/log/entries/0").child("messages", 1)


def _compare(blocks: list[Any], allowed: frozenset[str], fast_linker: ReadLinker | None,
             general_linker: ReadLinker | None) -> None:
    def general() -> tuple[Part, ...]:
        at = _SOURCE.child("content")
        return tuple(_part(block, at.child(i), allowed, general_linker) for i, block in enumerate(blocks))

    fast = _read(lambda: read_content(blocks, _SOURCE.child("content"), allowed, fast_linker))
    assert _described(fast) == _described(_read(general))


@settings(max_examples=500, deadline=None)
@given(st.lists(_blocks(), max_size=4), _POSITIONS, st.booleans())
@example([{"type": "tool_result", "tool_use_id": 3, "content": "4 °C"}], MESSAGE_BLOCKS, False)
@example([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "4 °C", "is_error": "yes"}],
         MESSAGE_BLOCKS, False)
@example([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "4 °C", "is_error": True,
           "cache_control": {"type": "ephemeral"}}], MESSAGE_BLOCKS, False)
def test_the_usual_blocks_read_as_the_general_readers_read_them(blocks: list[Any], allowed: frozenset[str],
                                                                 linked: bool) -> None:
    for block in blocks:  # (each alone, and then all: a block that is an error hides the ones after it)
        _compare([block], allowed, None, None)
    fast_linker, general_linker = (ReadLinker(), ReadLinker()) if linked else (None, None)
    _compare(blocks, allowed, fast_linker, general_linker)
    if fast_linker is not None and general_linker is not None:
        assert fast_linker.calls == general_linker.calls
        # (what the linkers learnt: a result read after them binds the same)
        assert fast_linker.bind("toolu_1") == general_linker.bind("toolu_1")
        assert fast_linker.bind(None) == general_linker.bind(None)


_TOOL_VALUES = st.sampled_from([None, "", "get_weather", "Gets the weather.", 3, True, {}, {"type": "object"}, [],
                                "custom", "web_search_20250305"])


@st.composite
def _tools(draw: st.DrawFn) -> Any:
    """Mostly the usual client tool, with its fields missing, of another type, or another key beside."""
    if draw(st.integers(0, 20)) == 0:
        return draw(_TOOL_VALUES)  # (not a tool at all)
    tool: dict[str, Any] = {"name": "get_weather", "description": "Gets the weather.",
                            "input_schema": {"type": "object"}}
    for key in draw(st.lists(st.sampled_from(["name", "description", "input_schema", "type", "cache_control"]),
                             max_size=3)):
        if draw(st.booleans()):
            tool.pop(key, None)
        else:
            tool[key] = draw(_TOOL_VALUES)
    return tool


@settings(max_examples=500, deadline=None)
@given(_tools())
@example({"name": "get_weather", "description": None, "input_schema": None})
@example({"name": "get_weather", "type": None})
def test_the_usual_tool_reads_as_the_general_reader_reads_it(tool: Any) -> None:
    at = _SOURCE.child("tools", 0)

    def described(read: Any) -> Any:
        made = _read(read)
        return (made, made.source) if isinstance(made, Tool) else made

    assert described(lambda: _tool(tool, at)) == described(lambda: _any_tool(tool, at))


def test_the_usual_blocks_never_reach_the_general_readers(monkeypatch: Any) -> None:
    """A text, a call with an object input and a result with a string content (with or without
    `is_error`) are read in `read_content`'s own loop: the general readers are not called."""
    import tooldbg.formats.anthropic.read as read

    def general(*args: Any) -> Part:
        raise AssertionError(f"read by _part: {args[0]}")

    monkeypatch.setattr(read, "_part", general)
    blocks = [{"type": "text", "text": "Checking."},
              {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
              {"type": "tool_result", "tool_use_id": "toolu_1", "content": "4 °C"},
              {"type": "tool_result", "tool_use_id": "toolu_1", "content": "down", "is_error": True}]
    linker = ReadLinker()
    parts = read_content(blocks, _SOURCE.child("content"), MESSAGE_BLOCKS, linker)
    assert [type(p).__name__ for p in parts] == ["Text", "Invocation", "Result", "Result"]
    assert [p.wire_id for p in parts[1:]] == ["toolu_1"] * 3
