"""The fixed work of loading a file made cheaper gives what the general path gives: the depth guard
that prints in ready-made lists."""

from __future__ import annotations

import threading

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldbg import jsonio
from tooldbg.jsonio import MAX_DEPTH, TooDeep

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3),
    max_leaves=12)


def _wrapped(value: object, lists: int) -> object:
    for _ in range(lists):
        value = [value]
    return value


@settings(max_examples=80, deadline=None)
@given(value=json_values, limit=st.integers(-3, 260))
def test_printing_in_ready_made_lists_gives_what_wrapping_anew_gives(value, limit):
    """`_printed` wraps in lists made once: the bytes (or the refusal) are those of the value
    wrapped in new lists, call after call (the lists it reuses hold nothing between calls)."""
    levels = jsonio._printed_levels()
    spare = levels - limit
    try:
        expected = orjson.dumps(_wrapped(value, spare)) if 0 <= spare <= levels else None
    except orjson.JSONEncodeError:
        expected = None
    assert jsonio._printed(value, limit) == expected
    assert jsonio._printed(value, limit) == expected


def test_a_value_orjson_refuses_leaves_the_lists_empty_for_the_next():
    # an integer wider than 64 bits: orjson does not print it, and the guard walks the value
    jsonio.ensure_depth({"n": [2**70]})
    assert jsonio._printed([1], MAX_DEPTH) == orjson.dumps(_wrapped([1], jsonio._printed_levels() - MAX_DEPTH))
    with pytest.raises(TooDeep):
        jsonio.ensure_depth(_wrapped(2**70, MAX_DEPTH + 1))
    assert all(not nest[0] for nest in jsonio._NESTS)


def test_threads_printing_at_once_each_get_their_own_value():
    values = [{"messages": [{"n": n, "text": "x" * n}]} for n in range(40)]
    failures: list[int] = []

    def guard(n: int) -> None:
        for _ in range(50):
            if jsonio.checked_lists(values[n]) != {id(values[n]["messages"]): jsonio.dumps(values[n]["messages"])}:
                failures.append(n)

    threads = [threading.Thread(target=guard, args=(n,)) for n in range(len(values))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
