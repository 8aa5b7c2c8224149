"""Repairs from the log's own record (TD106, TD301, TD303, TD305, TD306, TD307, TD805).

An agent loop sends its whole history again with every request; what a replay dropped or changed is
still in the log, in the response the model returned or the request that sent it first. These
repairs put it back from there, using the replay pairing the TD3xx rules use (`checks.replay`): the
failure flag an earlier request carried, the text and the reasoning the response had beside its
calls, the media a result held, the arguments and the id the model returned. TD805 looks for the
reasoning a target requires in the response that produced the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any, TypeVar

from ..checks.failures import lost_flags
from ..checks.reasoning import losses
from ..checks.replay import (
    Pair,
    Placed,
    first_difference,
    media_identity,
    media_in,
    norm,
    origin,
    replays,
)
from ..checks.targeting import signed
from ..jsonio import try_loads
from ..model import Conversation, Invocation, Media, Part, Reasoning, Result, Text, Turn
from ..shorten import quote
from ..targets import table
from ..wording import describe, ident, show
from .base import Log, Outcome, Record, locate, rebind, with_part, with_parts


def _pairs(log: Log) -> Iterator[Pair]:
    """The replay pairs of this conversation (the ones whose replaying request it is stitched from)."""
    for replay in replays(log.context):
        if replay.conversation is not None and replay.conversation.id == log.id:
            yield from replay.pairs


def _find(conv: Conversation, hit: Placed) -> tuple[int, int] | None:
    return locate(conv, hit[2], (hit[0], hit[1]))


_P = TypeVar("_P", Invocation, Result)


def _replayed(conv: Conversation, hit: Placed, kind: type[_P]) -> tuple[int, int, _P] | None:
    """Where a replayed call or result stands in the conversation being repaired, and what it is
    there (earlier repairs may have changed it)."""
    where = _find(conv, hit)
    if where is None:
        return None
    t, p = where
    now = conv.turns[t].parts[p]
    return (t, p, now) if isinstance(now, kind) else None


def restore_flags(conv: Conversation, log: Log) -> Outcome:
    """TD303: a result flagged as a failure in one request and replayed unflagged in the next gets
    its flag back, as the earlier request recorded it."""
    records: list[Record] = []
    for pair, _, hit in lost_flags(log.context):
        if pair.replay.conversation is None or pair.replay.conversation.id != log.id:
            continue
        where = _find(conv, hit)
        if where is None:
            continue
        t, p = where
        part = conv.turns[t].parts[p]
        if not isinstance(part, Result) or part.is_error:
            continue
        conv = with_part(conv, t, p, replace(part, is_error=True))
        records.append(log.repair("TD303", t, p, f"result {ident(part)} without is_error",
                                  f"is_error: true, as {origin(pair)} recorded it"))
    return Outcome(conv, tuple(records))


def restore_text(conv: Conversation, log: Log) -> Outcome:
    """TD301: text the response had beside its calls, missing from the replay, goes back before the
    calls, as the response had it."""
    records: list[Record] = []
    for pair in _pairs(log):
        texts = [p for p in pair.original.parts if isinstance(p, Text) and p.text.strip()]
        if not pair.anchored or not texts or not any(pair.original.invocations()):
            continue
        kept = [(orig, hit) for orig, hit in pair.calls() if hit is not None]
        if not kept:
            continue
        near = pair.parts_near(hit for _, hit in kept)
        replayed = norm(" ".join(p.text for _, _, p in near if isinstance(p, Text)))
        dropped = [x for x in texts if norm(x.text) not in replayed]
        where = _find(conv, kept[0][1]) if dropped else None
        if where is None:
            continue
        t = where[0]
        parts = list(conv.turns[t].parts)
        first_call = next(k for k, q in enumerate(parts) if isinstance(q, Invocation))
        parts[first_call:first_call] = dropped
        conv = with_parts(conv, t, parts)
        for k, text in enumerate(dropped):
            records.append(log.repair("TD301", t, first_call + k, "(missing)",
                                      f"{describe(text)} from {origin(pair)}"))
    return Outcome(conv, tuple(records))


def restore_reasoning(conv: Conversation, log: Log) -> Outcome:
    """TD307: reasoning the response had before its calls (thinking blocks, thought signatures,
    reasoning items, `reasoning_content`), dropped on replay, goes back where the response had it;
    an edited thinking block or an id-only reasoning item is put back as the response gave it. A
    replay that carries another signature is left alone: which one the provider accepts is not known."""
    records: list[Record] = []
    for pair in _pairs(log):
        for lost in losses(pair):
            part = lost.part
            if lost.kind == "altered":
                where = _find(conv, lost.call)
                if where is not None:
                    records.append(log.refuse("TD307", *where, f"the replay carries reasoning with another "
                                              f"signature than {origin(pair)}: which one the provider "
                                              "accepts is a guess"))
                break
            if lost.kind == "unstored" and lost.twin is None:  # an item_reference, which nothing resolves
                where = _find(conv, lost.call)
                if where is not None:
                    records.append(log.refuse("TD307", *where, "an item_reference names the reasoning item "
                                              "while store is false: it must go, and the item be sent with "
                                              "its encrypted_content in its place"))
                continue
            if lost.twin is not None:  # edited, or an item replayed by id only: the original replaces it
                where = _find(conv, lost.twin)
                if where is None:
                    continue
                t, p = where
                records.append(log.repair("TD307", t, p, describe(conv.turns[t].parts[p]),
                                          f"{describe(part)} from {origin(pair)}"))
                conv = with_part(conv, t, p, part)
                continue
            anchor = _anchor(conv, pair.original.parts[lost.index + 1:], _calls(pair), lost.call)
            if anchor is None:
                continue
            t, p = anchor
            conv = with_parts(conv, t, (*conv.turns[t].parts[:p], part, *conv.turns[t].parts[p:]))
            records.append(log.repair("TD307", t, p, "(missing)", f"{describe(part)} from {origin(pair)}"))
    return Outcome(conv, tuple(records))


def _calls(pair: Pair) -> dict[int, Placed]:
    return {id(c): hit for c, hit in pair.calls() if hit is not None}


def _anchor(conv: Conversation, after: tuple[Part, ...], calls: dict[int, Placed],
            first: Placed) -> tuple[int, int] | None:
    """Where a part that came right before `after` in the original goes in `conv`: before the first
    part of `after` found there (a replayed call, or a text), else before the first replayed call."""
    call_turn = _find(conv, first)
    for q in after:
        if isinstance(q, Invocation) and id(q) in calls:
            found = _find(conv, calls[id(q)])
            if found is not None:
                return found
        elif isinstance(q, Text) and call_turn is not None:
            parts = conv.turns[call_turn[0]].parts
            k = next((k for k, x in enumerate(parts) if x == q), None)
            if k is not None:
                return call_turn[0], k
    return call_turn


def restore_media(conv: Conversation, log: Log) -> Outcome:
    """TD305: an image or file a result (or a turn) held, missing from its replay and from the whole
    replaying request, goes back into it."""
    records: list[Record] = []
    for pair in _pairs(log):
        replay = pair.replay
        for result, hit in pair.results():
            if hit is None:
                continue
            lost = _lost(list(media_in(result.content)), list(media_in(hit[2].content)), replay.media())
            placed = _replayed(conv, hit, Result) if lost else None
            if placed is None:
                continue
            t, p, now = placed
            same_rest = [c for c in now.content if not isinstance(c, Media)] == \
                [c for c in result.content if not isinstance(c, Media)]
            content = result.content if same_rest else (*now.content, *lost)
            conv = with_part(conv, t, p, replace(now, content=content))
            for media in lost:
                records.append(log.repair("TD305", t, p, f"result {ident(now)} without its {describe(media)}",
                                          f"{describe(media)} back, from {origin(pair)}"))
        if not pair.anchored or not pair.turns:
            continue
        own = [(k, p) for k, p in enumerate(pair.original.parts) if isinstance(p, Media)]
        kept = [p for _, turn in pair.turns for p in turn.parts if isinstance(p, Media)]
        lost_here = _lost([p for _, p in own], kept, replay.media())
        found = _turn(conv, pair.turns[0][1], pair.turns[0][0]) if lost_here else None
        if found is None:
            continue
        t = found
        parts = list(conv.turns[t].parts)
        for k, media in own:
            if media in lost_here:
                at = min(k, len(parts))
                parts.insert(at, media)
                records.append(log.repair("TD305", t, at, "(missing)",
                                          f"{describe(media)} from {origin(pair)}"))
        conv = with_parts(conv, t, parts)
    return Outcome(conv, tuple(records))


def _lost(before: list[Media], after: list[Media], everywhere: set[Any]) -> list[Media]:
    """Media of `before` that are nowhere in the replaying request, when `after` has fewer."""
    if len(after) >= len(before):
        return []
    return [m for m in before if media_identity(m) not in everywhere]


def _turn(conv: Conversation, turn: Turn, hint: int) -> int | None:
    if 0 <= hint < len(conv.turns) and (conv.turns[hint] is turn or conv.turns[hint] == turn):
        return hint
    return next((t for t, x in enumerate(conv.turns) if x == turn), None)


def restore_arguments(conv: Conversation, log: Log) -> Outcome:
    """TD306: a replayed call whose arguments differ from what the model returned gets the model's
    arguments back. A call replayed under another tool name is left alone: a renamed tool may be
    what the request declares now."""
    records: list[Record] = []
    for pair in _pairs(log):
        for call, hit in pair.calls():
            if hit is None or call.raw_arguments is not None:
                continue
            found = _replayed(conv, hit, Invocation)
            if found is None:
                continue
            t, p, now = found
            if now.name != call.name:
                records.append(log.refuse("TD306", t, p, f"the replay calls {quote(now.name)} where "
                                          f"{origin(pair)} called {quote(call.name)}: whether the tool was "
                                          "renamed on purpose is a guess"))
                continue
            was = {} if call.arguments is None else call.arguments
            if now.raw_arguments is None:
                if first_difference(was, {} if now.arguments is None else now.arguments) is None:
                    continue
                if isinstance(now.arguments, str) and not isinstance(was, str):
                    ok, value = try_loads(now.arguments)
                    if ok and first_difference(was, value) is None:
                        continue  # the same arguments encoded once more: TD201's
            before = now.raw_arguments if now.raw_arguments is not None else now.arguments
            conv = with_part(conv, t, p, replace(now, arguments=call.arguments, raw_arguments=None))
            records.append(log.repair("TD306", t, p, f"arguments of {quote(now.name)} {show(before)}",
                                      f"{show(call.arguments)}, as {origin(pair)} returned them"))
    return Outcome(conv, tuple(records))


def restore_ids(conv: Conversation, log: Log) -> Outcome:
    """TD106: a call replayed under another id than the one the model returned gets that id back,
    with every result that answers it."""
    records: list[Record] = []
    for pair in _pairs(log):
        if not pair.from_response:
            continue
        for call, hit in pair.calls():
            if hit is None or not call.wire_id or not hit[2].wire_id or call.wire_id == hit[2].wire_id:
                continue
            found = _replayed(conv, hit, Invocation)
            if found is None:
                continue
            t, p, now = found
            # a result answering no call under that id is this call's, left behind by a replay that
            # renumbered the call and not its result: it answers the call again once the id is back
            taken = any(isinstance(q, Invocation | Result) and q.wire_id == call.wire_id
                        and not (isinstance(q, Result) and q.invocation_id in (None, now.id))
                        for turn in conv.turns for q in turn.parts)
            if taken:
                records.append(log.refuse("TD106", t, p, f"the id {quote(call.wire_id)} {origin(pair)} "
                                          "returned is used by another call or result here"))
                continue
            conv = with_part(conv, t, p, replace(now, wire_id=call.wire_id))
            conv, answers = rebind(conv, now.id, adopt=call.wire_id, wire_id=call.wire_id)
            also = f" (and its result{'s' if len(answers) != 1 else ''})" if answers else ""
            records.append(log.repair("TD106", t, p, f"call {quote(now.name)} id {quote(now.wire_id)}",
                                      f"{quote(call.wire_id)}{also}, as {origin(pair)} returned it"))
    return Outcome(conv, tuple(records))


def restore_target_reasoning(conv: Conversation, log: Log) -> Outcome:
    """TD805: a tool turn without the reasoning the target requires gets it back from the response
    that produced its call, when the log holds that response; otherwise it is refused."""
    rule = (table(log.target) if log.target else None)
    reasoning = rule.reasoning if rule is not None else None
    if reasoning is None:
        return Outcome(conv)
    records: list[Record] = []
    for f in log.found("TD805"):
        named = log.found_at(f)
        call = named[1] if named is not None else None
        where = locate(conv, call, named[0]) if named is not None and isinstance(call, Invocation) else None
        if not isinstance(call, Invocation) or where is None:
            continue
        found = [p for p in _produced(log, call) if signed(p, reasoning.origin, False)]
        if not found:
            records.append(log.refuse("TD805", where[0], where[1], f"the log holds no {reasoning.what} for "
                                      f"the turn calling {quote(call.name)} (the response that produced it "
                                      f"is not recorded, or had none), and {log.target} rejects the turn "
                                      "without it"))
            continue
        t, p = where
        # TD307's repair, run first, may have put it back already: a second copy would be a duplicate
        # item (`rs_…` twice is rejected by the Responses API)
        restored = [q for q in found if q not in conv.turns[t].parts]
        if not restored:
            continue
        at = p if reasoning.origin == "gemini" else 0
        conv = with_parts(conv, t, (*conv.turns[t].parts[:at], *restored, *conv.turns[t].parts[at:]))
        for k, part in enumerate(restored):
            records.append(log.repair("TD805", t, at + k, "(missing)",
                                      f"{describe(part)} from the response that made the call"))
    return Outcome(conv, tuple(records))


def _produced(log: Log, call: Invocation) -> list[Reasoning]:
    """The reasoning before `call` in the response (in the log) that returned it."""
    for read in log.loaded.reads:
        for response in read.responses:
            turn = response.turn
            if turn is None:
                continue
            for k, part in enumerate(turn.parts):
                if isinstance(part, Invocation) and part.name == call.name and (
                        (call.wire_id is not None and part.wire_id == call.wire_id)
                        or (call.wire_id is None and part.arguments == call.arguments)):
                    return [p for p in turn.parts[:k] if isinstance(p, Reasoning)]
    return []
