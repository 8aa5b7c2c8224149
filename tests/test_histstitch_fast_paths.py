"""Where reading a log's replayed history takes a shorter way, it ends where the general one does:
`history` sharing a body's members by their printed bytes alone when both were printed, and the
Anthropic stream assembler finding a block by its `index` without asking `as_index` first."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import json_values
from tooldbg import history
from tooldbg.formats import anthropic
from tooldbg.formats.base import StreamEvent
from tooldbg.jsonio import dumps

#: Values that are equal in Python but print apart (1, 1.0, True), and any JSON.
_ALIKE = st.one_of(st.sampled_from([1, 1.0, True, 0, 0.0, False, "1", [1], [1.0], [True], {"a": 1},
                                    {"a": 1.0}, {"a": True}, []]), json_values)


def _in_lists(value: object, spare: int) -> tuple[bytes, int]:
    """`value`'s JSON bytes printed inside `spare` lists, as the depth test prints them."""
    return b"[" * spare + dumps(value) + b"]" * spare, spare


@settings(max_examples=300, deadline=None)
@given(theirs=st.dictionaries(st.sampled_from("abcdm"), _ALIKE, max_size=5),
       mine=st.dictionaries(st.sampled_from("abcdm"), _ALIKE, max_size=5),
       printed=st.sets(st.sampled_from("abcdm")), known=st.sets(st.sampled_from("abcdm")),
       spares=st.tuples(st.integers(0, 2), st.integers(0, 2)))
def test_a_member_is_shared_exactly_when_it_prints_as_the_earlier_one(theirs, mine, printed, known, spares):
    """A body's member (but its message list, `m`) becomes the earlier body's object exactly when
    the two are of one type and print the same (texts: are equal), whichever of them were printed
    already (inside as many lists as the depth test put them in, or other); every member keeps its
    value, and the bytes returned are the body's members printed."""
    body = copy.deepcopy(mine)
    sent = history.Sent("openai-chat", theirs, [], history.Listed(
        [], [], history.UNWRITTEN, {k: _in_lists(v, spares[0]) for k, v in theirs.items()
                                    if k in known and isinstance(v, list | dict)}),
        None, None)  # type: ignore[arg-type]  # (only the body and its printed members are read)
    lists = {k: _in_lists(v, spares[1]) for k, v in mine.items() if k in printed and isinstance(v, list)}
    written = history._share_members(body, "m", sent, lists)
    assert dumps(body) == dumps(mine)
    for name, value in mine.items():
        before = theirs.get(name)
        same = name != "m" and type(before) is type(value) and (
            before == value if isinstance(value, str) else
            isinstance(value, list | dict) and dumps(before) == dumps(value))
        assert (body[name] is before) is same or (before is value)
    assert all(text[spare:len(text) - spare] == dumps(body[name]) for name, (text, spare) in written.items())


_INDICES = st.one_of(st.integers(-1, 3), st.booleans(), st.sampled_from([0.0, 1.0, "1", None, [1]]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["content_block_start", "content_block_delta", "content_block_stop"]),
                          _INDICES, st.sampled_from(["text_delta", "input_json_delta", 7, ["x"]])),
                max_size=10))
def test_an_event_names_a_block_only_by_an_index(steps):
    """A delta or stop names its block by an integer ≥ 0 (not a boolean, a float, a string): one
    under which a block opened, else the block at that position. Any other `index` names none, and
    is reported as such — the same stream with that index left out assembles to the same body."""
    def stream(keep_index):
        events = [StreamEvent(0, {"type": "message_start", "message": {"role": "assistant", "content": []}})]
        for kind, index, delta in steps:
            data = {"type": kind}
            if keep_index(index):
                data["index"] = index
            if kind == "content_block_start":
                data["content_block"] = {"type": "text" if delta != "input_json_delta" else "tool_use",
                                         "text": "", "id": "t", "name": "f", "input": {}}
            elif kind == "content_block_delta":
                data["delta"] = {"type": delta, "text": "x", "partial_json": "[1"}
            events.append(StreamEvent(len(events), data))
        events.append(StreamEvent(len(events), {"type": "message_stop"}))
        return anthropic.assemble_stream(events)

    def is_index(value):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    named, unnamed = stream(lambda index: True), stream(is_index)
    assert named.body == unnamed.body and named.chunks == unnamed.chunks
    assert [(p.kind, p.chunk) for p in named.problems] == [(p.kind, p.chunk) for p in unnamed.problems]
