"""Hypothesis strategies for canonical conversations, and the round-trip comparison every format
uses: what a writer reports as lost must be exactly what differs after reading its output back."""

from __future__ import annotations

import difflib
from typing import Any

from hypothesis import strategies as st

from tooldbg import formats
from tooldbg.formats.reading import link
from tooldbg.jsonio import dumps_str
from tooldbg.model import (
    Conversation,
    Invocation,
    Json,
    Loss,
    Media,
    Part,
    Reasoning,
    Result,
    Text,
    Tool,
    ToolChoice,
    Turn,
    part_to_dict,
    tool_to_dict,
)

TOOL_NAMES = ("get_weather", "search_docs", "run_sql")
WIRE_FORMATS = formats.WIRE_FORMATS

# Printable text, including markup look-alikes and control characters a log may hold.
texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1, max_size=40,
).filter(lambda s: s.strip() != "")

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                         st.text(max_size=12))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=3)),
    max_leaves=6,
)


#: How a stream's events are put out of order (`disorder`): one dropped, one repeated, one moved
#: elsewhere, or the start of the stream (or all of it) sent again after it.
DISORDERS = ("drop", "repeat", "move", "again")


def disorder(draw: st.DrawFn, events: list[Any], change: str, at: int) -> bool:
    """Put `events` out of order at `at` as `change` (one of `DISORDERS`) says; False, with
    `events` left as they are, for any other change (the caller's own)."""
    if change == "drop":
        if len(events) > 1:
            events.pop(at)
    elif change == "repeat":
        events.insert(at, events[at])
    elif change == "move":
        events.insert(draw(st.integers(0, len(events))), events.pop(at))
    elif change == "again":
        events += events[:draw(st.integers(1, len(events)))]
    else:
        return False
    return True


def nested(levels: int) -> Any:
    """A string in `levels` lists, one inside the other: a value near or past the nesting limit."""
    value: Any = "deep"
    for _ in range(levels):
        value = [value]
    return value


arguments = st.dictionaries(st.sampled_from(["city", "query", "limit", "sql", "units"]),
                            json_values, max_size=3)
wire_ids = st.one_of(
    st.none(),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
            min_size=6, max_size=20).map(lambda s: "call_" + s),
)
images = st.builds(lambda data: Media(kind="image", media_type="image/png", data=data),
                   st.sampled_from(["iVBORw0KGgo=", "R0lGODlhAQABAAAAACw="]))


@st.composite
def conversations(draw: st.DrawFn, *, reasoning_origin: str | None = None,
                  media: bool = True) -> Conversation:
    """A well-formed conversation: user asks, the model calls tools (in parallel at times),
    results come back (some failing), and the model answers. Ids are linked as a reader links."""
    tools = tuple(Tool(name=n, description=f"The {n} tool",
                       parameters={"type": "object", "properties": {"city": {"type": "string"}}})
                  for n in draw(st.sets(st.sampled_from(TOOL_NAMES), min_size=1, max_size=3)))
    names = [t.name for t in tools]
    system = (Text(text=draw(texts)),) if draw(st.booleans()) else ()
    user_parts: list[Part] = [Text(text=draw(texts))]
    if media and draw(st.booleans()):
        user_parts.append(draw(images))
    turns: list[Turn] = [Turn(role="user", parts=tuple(user_parts))]
    for _ in range(draw(st.integers(0, 3))):
        parts: list[Part] = []
        if reasoning_origin and draw(st.booleans()):
            parts.append(Reasoning(text=draw(texts), signature="c2lnbmF0dXJl",
                                   origin=reasoning_origin))
        if draw(st.booleans()):
            parts.append(Text(text=draw(texts)))
        calls = [Invocation(name=draw(st.sampled_from(names)), arguments=draw(arguments),
                            wire_id=draw(wire_ids))
                 for _ in range(draw(st.integers(1, 3)))]
        # Wire ids are either all present or all absent in one turn, and unique.
        if any(c.wire_id is None for c in calls) or len({c.wire_id for c in calls}) < len(calls):
            calls = [Invocation(name=c.name, arguments=c.arguments, wire_id=None) for c in calls]
        turns.append(Turn(role="assistant", parts=(*parts, *calls)))
        results = []
        for c in calls:
            content: tuple[Part, ...] = ((Text(text=draw(texts)),) if draw(st.booleans())
                                         else (Json(value=draw(arguments)),))
            results.append(Result(wire_id=c.wire_id, name=c.name, content=content,
                                  is_error=draw(st.booleans())))
        turns.append(Turn(role="tool", parts=tuple(results)))
    turns.append(Turn(role="assistant", parts=(Text(text=draw(texts)),)))
    choice = draw(st.sampled_from([None, ToolChoice(mode="auto"), ToolChoice(mode="required")]))
    return Conversation(model="test-model", system=system, tools=tools, tool_choice=choice,
                        turns=link(turns))


# ------------------------------------------------------------- hostile ids and tool names

# Names and ids no provider accepts as they are, or that collide once made to fit: empty, too long
# (the same 64 first characters), dots, colons, spaces, a leading digit, letters outside ASCII, and
# distinct originals that fitting would make equal (`a.b`, `a_b`, `a:b`).
HOSTILE_NAMES = ("get_weather", "", "a.b", "a_b", "a:b", "mcp.github:create_issue", "get weather",
                 "Complete Session", "get_/whoami", "1password", "wetter_für_köln", "x" * 100,
                 "x" * 101, "x" * 64 + "y" * 70, "-dash", "_")
HOSTILE_IDS = ("", " ", "a.b", "a_b", "a:b", "call_0fypS1hVX", "functions.get_weather:0",
               "functions.get_weather:1", "fc_" + "0123456789abcdef" * 4, "toolu_01A", "abcDEF123",
               "id with space", "ünï", "x" * 100, "x" * 101, "9lives", "call_i1")

hostile_names = st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=130))
hostile_ids = st.one_of(st.sampled_from(HOSTILE_IDS), st.text(max_size=130))


@st.composite
def hostile_conversations(draw: st.DrawFn) -> Conversation:
    """A well-formed conversation whose tool names and call ids are hostile (see HOSTILE_NAMES and
    HOSTILE_IDS). Each call's arguments are `{"n": k}` and its result's text `rk`, so a test can
    tell after a round trip whether every result still answers its own call. In one turn, wire ids
    are all present or all absent and distinct (as a provider pairs them); across turns they may
    repeat."""
    names = draw(st.lists(hostile_names, min_size=1, max_size=4, unique=True))
    tools = tuple(Tool(name=n, description="a tool", parameters={"type": "object"}) for n in names)
    turns: list[Turn] = [Turn(role="user", parts=(Text(text="go"),))]
    k = 0
    for _ in range(draw(st.integers(1, 3))):
        count = draw(st.integers(1, 3))
        ids: list[str | None] = [None] * count
        if draw(st.booleans()):
            ids = list(draw(st.lists(hostile_ids, min_size=count, max_size=count, unique=True)))
        calls = []
        for wire_id in ids:
            k += 1
            calls.append(Invocation(name=draw(st.sampled_from(names)), arguments={"n": k}, wire_id=wire_id))
        turns.append(Turn(role="assistant", parts=tuple(calls)))
        turns.append(Turn(role="tool", parts=tuple(
            Result(wire_id=c.wire_id, name=c.name, content=(Text(text=f"r{c.arguments['n']}"),))
            for c in calls)))
    turns.append(Turn(role="assistant", parts=(Text(text="done"),)))
    choice = draw(st.one_of(st.none(), st.builds(lambda n: ToolChoice(mode="tool", name=n),
                                                 st.sampled_from(names))))
    return Conversation(model="test-model", tools=tools, tool_choice=choice, turns=link(turns))


def _turn_key(turn: Turn) -> Any:
    return _unrestated({"role": turn.role, "parts": [part_to_dict(p, sources=False) for p in turn.parts],
                        "meta": dict(turn.meta)})


def _unrestated(node: dict[str, Any]) -> dict[str, Any]:
    """A node's dict form (a turn, a part, a result's content parts) without the details its format
    keeps only to write them back as recorded (`Facts.restated`: Bedrock's `status: "success"`, an
    OpenAI system message's start), which no other writer carries or reports: they say nothing the
    canonical form does not. Values (a call's arguments, a JSON part's value) are left as they are."""
    out = {k: v for k, v in node.items() if k != "meta"}
    for nested in ("parts", "content"):
        if isinstance(node.get(nested), list) and (nested == "parts" or node.get("type") == "result"):
            out[nested] = [_unrestated(p) for p in node[nested]]
    meta = {}
    for origin, details in (node.get("meta") or {}).items():
        restated = formats.facts(origin).restated if origin in formats.WIRE_FORMATS else {}
        kept = {k: v for k, v in details.items() if restated.get(k, _NOT_RESTATED) != v} \
            if isinstance(details, dict) else details
        if kept:
            meta[origin] = kept
    return {**out, "meta": meta} if meta else out


_NOT_RESTATED = object()  # (no restated value equals it)


def changed_regions(before: Conversation, after: Conversation) -> list[set[int]]:
    """The runs of `before`'s turns that changed, aligned as a diff aligns lines: a turn a writer
    dropped, or two turns it merged, make one region, not a shift of every turn after them; turns
    that appeared from nowhere make a region at the turn they follow."""
    keys_before = [dumps_str(_turn_key(t), sort_keys=True) for t in before.turns]
    keys_after = [dumps_str(_turn_key(t), sort_keys=True) for t in after.turns]
    matcher = difflib.SequenceMatcher(None, keys_before, keys_after, autojunk=False)
    regions = []
    for op, i1, i2, _, _ in matcher.get_opcodes():
        if op in ("replace", "delete"):
            regions.append(set(range(i1, i2)))
        elif op == "insert":
            regions.append({max(0, i1 - 1)})
    return regions


def differences(before: Conversation, after: Conversation) -> tuple[set[int], set[str]]:
    """(indices of `before`'s turns that changed, names of conversation-level fields that differ)."""
    turns = set().union(*changed_regions(before, after))
    fields = set()
    if [_unrestated(part_to_dict(p, sources=False)) for p in before.system] != \
            [_unrestated(part_to_dict(p, sources=False)) for p in after.system]:
        fields.add("system")
    if [tool_to_dict(t) for t in before.tools] != [tool_to_dict(t) for t in after.tools]:
        fields.add("tools")
    if before.tool_choice != after.tool_choice:
        fields.add("tool_choice")
    return turns, fields


def assert_losses_explain(before: Conversation, after: Conversation, losses: tuple[Loss, ...]) -> None:
    """Every run of changed turns holds a turn the writer named, and a conversation-level change
    (system, tools, tool choice) comes with a conversation-level loss: nothing changes unreported."""
    regions = changed_regions(before, after)
    _, changed_fields = differences(before, after)
    reported = {loss.turn for loss in losses if loss.turn is not None}
    unexplained = [sorted(r) for r in regions if not r & reported]
    assert not unexplained, (f"turns {unexplained} changed without a loss: "
                             + "; ".join(map(str, losses)))
    if changed_fields:
        assert any(loss.turn is None for loss in losses), (
            f"{sorted(changed_fields)} changed with no conversation-level loss")
