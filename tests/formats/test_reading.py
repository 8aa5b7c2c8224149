"""The readers' shared steps: a request's tools, read once while the requests declare the same ones,
still read as each request declares them."""

from __future__ import annotations

import copy
from typing import Any

from tooldbg.formats import openai_chat
from tooldbg.source import Source


def _chat(tools: list[Any]) -> dict[str, Any]:
    return {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}], "tools": tools}


def _function(strict: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": "read_file", "strict": strict,
                                             "parameters": {"type": "object"}}}


def _source(exchange: int) -> Source:
    return Source(file="log.jsonl", exchange=exchange, side="request",
                  location=f"line {exchange + 1}/request/body")


def test_equal_tools_point_into_the_request_that_declares_them() -> None:
    tools = [_function(True)]
    first = openai_chat.read_request(_chat(tools), _source(0)).tools
    for again in (tools, copy.deepcopy(tools)):  # the same list, and an equal one
        second = openai_chat.read_request(_chat(again), _source(1)).tools
        assert second == first
        assert [t.source for t in second] == [
            Source(file="log.jsonl", exchange=1, side="request", location="line 2/request/body",
                   pointer="/tools/0/function")]


def test_changed_tools_are_read_again() -> None:
    first = openai_chat.read_request(_chat([_function(True)]), _source(0)).tools
    # `1` equals `True` in Python: the wire value, not the Python one, decides
    changed = openai_chat.read_request(_chat([_function(1)]), _source(1)).tools
    assert first[0].meta["openai-chat"]["strict"] is True
    assert changed[0].meta["openai-chat"]["strict"] == 1
    assert changed[0].meta["openai-chat"]["strict"] is not True
