"""Property test of `fix` on damaged conversations: well-formed conversations (tests/strategies.py)
broken the ways logs break — a result dropped, answered twice, orphaned or out of order, a user
message between calls and results, arguments encoded twice or empty, an empty call id — read back
as a canonical document and repaired for every wire target. Whatever the damage: fix never raises,
never loses a call, never writes recorded arguments as `{}`, and what a writer would still blank
is only what a refusal or a blank without a safe repair says."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixing import fix
from tests.strategies import conversations
from tooldbg import formats
from tooldbg.convert import export
from tooldbg.guard import blanks
from tooldbg.jsonio import dumps, dumps_str
from tooldbg.load import load_bytes
from tooldbg.model import Conversation, Invocation, Result, Text, Turn, document

DAMAGES = ("drop", "duplicate", "orphan", "swap", "interpose", "double-encode", "empty-arguments",
           "empty-id")


def damage(conv: Conversation, kind: str, pick: int) -> Conversation:
    turns = list(conv.turns)
    tools = [t for t, turn in enumerate(turns) if turn.role == "tool" and turn.parts]
    calls = [(t, p) for t, turn in enumerate(turns) for p, part in enumerate(turn.parts)
             if isinstance(part, Invocation)]
    if kind in ("drop", "duplicate", "orphan", "swap", "interpose") and tools:
        t = tools[pick % len(tools)]
        parts = list(turns[t].parts)
        p = pick % len(parts)
        if kind == "drop":
            del parts[p]
        elif kind == "duplicate":
            parts.insert(p + 1, parts[p])
        elif kind == "orphan":
            parts[p] = replace(parts[p], invocation_id=None, wire_id="call_nobody")  # type: ignore[arg-type]
        elif kind == "swap" and len(parts) > 1:
            parts.reverse()
        elif kind == "interpose":
            turns.insert(t, Turn(role="user", parts=(Text(text="and hurry"),)))
            t += 1
        turns[t] = replace(turns[t], parts=tuple(parts))
        turns = [turn for turn in turns if turn.parts]
    elif kind in ("double-encode", "empty-arguments", "empty-id") and calls:
        t, p = calls[pick % len(calls)]
        call = turns[t].parts[p]
        assert isinstance(call, Invocation)
        if kind == "double-encode":
            call = replace(call, arguments=dumps_str(call.arguments))
        elif kind == "empty-arguments":
            call = replace(call, arguments=None, raw_arguments="")
        else:
            call = replace(call, wire_id="")
            turns = [replace(turn, parts=tuple(replace(r, wire_id="") if isinstance(r, Result)
                                               and r.invocation_id == call.id else r for r in turn.parts))
                     for turn in turns]
        parts = list(turns[t].parts)
        parts[p] = call
        turns[t] = replace(turns[t], parts=tuple(parts))
    return replace(conv, turns=tuple(turns))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations(media=False), st.lists(st.tuples(st.sampled_from(DAMAGES), st.integers(0, 7)),
                                            min_size=1, max_size=3))
def test_fix_repairs_damage_without_losing_recorded_data(conv, damages):
    for kind, pick in damages:
        conv = damage(conv, kind, pick)
    loaded = load_bytes("damaged.json", dumps(document([conv])))
    assert loaded.errors == [], loaded.errors
    [damaged] = loaded.conversations
    calls = {p.id: p for t in damaged.turns for p in t.parts if isinstance(p, Invocation)}
    for target in formats.WIRE_FORMATS:
        fixed = fix(loaded, damaged, target=target)
        after = {p.id: p for t in fixed.conversation.turns for p in t.parts if isinstance(p, Invocation)}
        assert set(after) == set(calls), f"{target}: a call was lost"
        for own, call in calls.items():
            if isinstance(call.arguments, dict) and call.arguments:
                assert after[own].arguments == call.arguments, f"{target}: arguments changed"
        result = export([fixed.conversation], target, allow_blanks=True)  # blanks judged below
        refused = {r.code for r in fixed.refusals}
        for blank in blanks(fixed.conversation, target, result.origins):
            assert blank.code is None or blank.code in refused, f"{target}: {blank} ({fixed.records})"
