"""Repairs of pairing, order and structure (TD101, TD102, TD105, TD401–TD406, TD803, TD804).

Every result ends up in the tool turn right after the turn of its call, in call order; a call the
conversation moved on from without a result gets an explicit error result saying none was
recorded; a second result for one call, and a result for no call, are taken out (each listed; an
orphan can be kept as text with `keep_orphans`); text after a call moves before it; empty text
blocks and empty turns go.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from ..checks.evidence import undescribed
from ..checks.pairing import (
    continues_unseen,
    explained_orphans,
    extra_results,
    mismatches,
    results_by_call,
    will_continue,
)
from ..checks.rules.td404_malformed_turn import FORWARDED
from ..checks.structure import blank
from ..formats.profiles import wire_format
from ..model import Conversation, Invocation, Media, Part, Reasoning, Result, Text, Turn
from ..shorten import clip, quote
from ..targets import table
from ..wording import at, content_text, describe, ident
from .base import Log, Outcome, Record, locate, with_turns

#: What the error result closing an unanswered call says.
NO_RESULT = "No result was recorded for this call: the log holds no tool result for it."


def _remove(conv: Conversation, places: Iterable[tuple[int, int]]) -> Conversation:
    """`conv` without the parts at `places`, and without the turns that leaves empty."""
    gone: dict[int, set[int]] = {}
    for t, p in places:
        gone.setdefault(t, set()).add(p)
    turns = []
    for t, turn in enumerate(conv.turns):
        if t not in gone:
            turns.append(turn)
            continue
        parts = tuple(q for p, q in enumerate(turn.parts) if p not in gone[t])
        if parts:
            turns.append(replace(turn, parts=parts))
    return with_turns(conv, turns)


def dedupe_results(conv: Conversation, log: Log) -> Outcome:
    """TD105: of several results for one call, the first is kept; each other one is listed and taken
    out (a Gemini `willContinue` stream of responses is not a duplicate)."""
    records: list[Record] = []
    drop: list[tuple[int, int]] = []
    for found in results_by_call(conv).values():
        for previous, result in zip(found, found[1:], strict=False):
            if will_continue(previous.node):
                continue
            drop.append((result.turn, result.part))
            kept = at(found[0].turn, found[0].part)
            records.append(log.repair("TD105", result.turn, result.part, describe(result.node),
                                      f"(taken out: the call's first result, {kept}, is kept)"))
    for result, same in extra_results(conv)[0]:
        drop.append((result.turn, result.part))
        records.append(log.repair("TD105", result.turn, result.part, describe(result.node),
                                  f"(taken out: the {len(same)} {result.node.name} call(s) of turn "
                                  f"{same[0].turn} are already answered)"))
    return Outcome(_remove(conv, drop) if drop else conv, tuple(records))


def orphans(conv: Conversation, log: Log) -> Outcome:
    """TD101: a result that answers no call in the conversation is taken out — or, with
    `keep_orphans`, kept as user text that says what it was."""
    if continues_unseen(log.context, log.original):  # its calls were made before the log began
        return Outcome(conv)
    explained = explained_orphans(conv)
    found = [(t, p, part) for t, turn in enumerate(conv.turns) for p, part in enumerate(turn.parts)
             if isinstance(part, Result) and part.invocation_id is None and (t, p) not in explained]
    if not found:
        return Outcome(conv)
    records: list[Record] = []
    if not log.keep_orphans:
        for t, p, part in found:
            records.append(log.repair("TD101", t, p, describe(part),
                                      "(taken out: it answers no call in this conversation; --keep-orphans "
                                      "keeps it as text)"))
        return Outcome(_remove(conv, [(t, p) for t, p, _ in found]), tuple(records))
    texts: dict[int, list[Part]] = {}
    for t, p, part in found:
        assert isinstance(part, Result)
        wire = repr(part.wire_id) if part.wire_id else ""
        what = " ".join(x for x in (part.name, "tool result", wire) if x)
        text = Text(text=f"[{what}, whose call is not in this conversation]\n"
                         f"{content_text(part.content)}", source=part.source)
        texts.setdefault(t, []).append(text)
        records.append(log.repair("TD101", t, p, describe(part), f"user {describe(text)}"))
    turns: list[Turn] = []
    orphaned = {(t, p) for t, p, _ in found}
    for t, turn in enumerate(conv.turns):
        if t not in texts:
            turns.append(turn)
            continue
        rest = tuple(q for p, q in enumerate(turn.parts) if (t, p) not in orphaned)
        if rest:
            turns.append(replace(turn, parts=rest))
        turns.append(Turn(role="user", parts=tuple(texts[t]), source=turn.source))
    return Outcome(with_turns(conv, turns), tuple(records))


def _code(log: Log, part: Part, choices: tuple[str, ...]) -> str:
    """The code a change to `part` answers: the first of `choices` found at it, else the first
    found in the conversation at all."""
    here = log.codes_at(part)
    return next((c for c in choices if c in here), None) or \
        next((c for c in choices if log.found(c)), choices[0])


def _call_turns(conv: Conversation) -> list[int]:
    return [t for t, turn in enumerate(conv.turns)
            if turn.role == "assistant" and any(isinstance(p, Invocation) for p in turn.parts)]


def _block(conv: Conversation, c: int) -> range:
    """The tool turns right after turn `c`."""
    j = c + 1
    while j < len(conv.turns) and conv.turns[j].role == "tool":
        j += 1
    return range(c + 1, j)


def adjacency(conv: Conversation, log: Log) -> Outcome:
    """TD402 / TD403 / TD803: results that are not in the tool turn right after their calls' turn
    (a user message came between, the text of their message came first) are moved there."""
    records: list[Record] = []
    c = 0
    while c < len(conv.turns):
        turn = conv.turns[c]
        ids = {p.id for p in turn.parts if isinstance(p, Invocation)} if turn.role == "assistant" else set()
        block = _block(conv, c)
        stray = [(t, p, part) for t in range(c + 1, len(conv.turns)) if t not in block
                 for p, part in enumerate(conv.turns[t].parts)
                 if isinstance(part, Result) and part.invocation_id in ids]
        if not stray:
            c += 1
            continue
        moved = [part for _, _, part in stray]
        rest = _remove(conv, [(t, p) for t, p, _ in stray])
        turns = list(rest.turns)
        if block:
            k0 = len(turns[c + 1].parts)
            turns[c + 1] = replace(turns[c + 1], parts=(*turns[c + 1].parts, *moved))
        else:
            k0 = 0
            turns.insert(c + 1, Turn(role="tool", parts=tuple(moved), source=moved[0].source))
        for k, (t, p, part) in enumerate(stray):
            code = _code(log, part, ("TD403", "TD402", "TD803"))
            records.append(log.repair(code, t, p, f"{describe(part)} at {at(t, p)}",
                                      f"{at(c + 1, k0 + k)}, right after its call in turn {c}"))
        conv = with_turns(conv, turns)
        c += 1
    return Outcome(conv, tuple(records))


def close_unanswered(conv: Conversation, log: Log) -> Outcome:
    """TD102 / TD803: a call the conversation moved on from without a result gets an error result,
    in the tool turn right after it and in call order, saying that no result was recorded."""
    records: list[Record] = []
    answered = set(results_by_call(conv))
    damaged = {m.call.node.id for m in mismatches(conv)}  # TD103's, when it refused to rebind
    # A wire id two calls share (TD104, when it refused to renumber): a result under it binds to the
    # latest call that has it, so one written for another of them would answer the wrong call.
    shared = Counter(p.wire_id for turn in conv.turns for p in turn.parts
                     if isinstance(p, Invocation) and p.wire_id is not None)
    last = len(conv.turns) - 1
    for c in reversed(_call_turns(conv)):
        if c == last:
            continue  # a history may end on calls: their results are not sent yet
        calls = [p for p in conv.turns[c].parts if isinstance(p, Invocation)]
        rank = {call.id: k for k, call in enumerate(calls)}
        missing = [call for call in calls if call.id not in answered and call.id not in damaged]
        for call in [m for m in missing if m.wire_id is not None and shared[m.wire_id] > 1]:
            missing.remove(call)
            code = _code(log, call, ("TD102", "TD803"))
            records.append(log.refuse(code, c, conv.turns[c].parts.index(call),
                                      f"call {quote(call.name)} shares its id {quote(call.wire_id)} with "
                                      "another call (TD104): a result written for it would answer that call"))
        if not missing:
            continue
        turns = list(conv.turns)
        if c + 1 < len(turns) and turns[c + 1].role == "tool":
            parts = list(turns[c + 1].parts)
        else:
            parts = []
            turns.insert(c + 1, Turn(role="tool", source=turns[c].source))
        for call in missing:
            closing = Result(invocation_id=call.id, wire_id=call.wire_id, name=call.name, is_error=True,
                             content=(Text(text=NO_RESULT),))
            k = 0
            for i, q in enumerate(parts):
                if isinstance(q, Result) and rank.get(q.invocation_id or "", len(rank)) < rank[call.id]:
                    k = i + 1
            parts.insert(k, closing)
            records.append(log.repair(_code(log, call, ("TD102", "TD803")), c + 1, k,
                                      f"call {quote(call.name)} ({call.wire_id or call.id}, turn {c}) "
                                      "without a result",
                                      f"error result {NO_RESULT!r}"))
        turns[c + 1] = replace(turns[c + 1], parts=tuple(parts))
        conv = with_turns(conv, turns)
    return Outcome(conv, tuple(records))


def result_order(conv: Conversation, log: Log) -> Outcome:
    """TD401: the results answering one turn's calls are put in the order of the calls."""
    records: list[Record] = []
    for c in _call_turns(conv):
        rank = {p.id: k for k, p in enumerate(q for q in conv.turns[c].parts if isinstance(q, Invocation))}
        places = [(t, p) for t in _block(conv, c) for p, part in enumerate(conv.turns[t].parts)
                  if isinstance(part, Result) and part.invocation_id in rank]
        now = [conv.turns[t].parts[p] for t, p in places]
        ordered = sorted(now, key=lambda r: rank[r.invocation_id])  # type: ignore[attr-defined]
        if all(a is b for a, b in zip(now, ordered, strict=True)):
            continue
        turns = list(conv.turns)
        for (t, p), part in zip(places, ordered, strict=True):
            parts = list(turns[t].parts)
            parts[p] = part
            turns[t] = replace(turns[t], parts=tuple(parts))
            old = next(k for k, x in enumerate(now) if x is part)
            if places[old] != (t, p):
                assert isinstance(part, Result)
                records.append(log.repair("TD401", *places[old], describe(part),
                                          f"{at(t, p)}: call order of turn {c}"))
        conv = with_turns(conv, turns)
    return Outcome(conv, tuple(records))


def _programmatic(call: Invocation) -> bool:
    """A call made by code the model ran (Anthropic `caller`, Responses `caller.type: program`)."""
    return any(isinstance(meta, dict) and meta.get("caller") for meta in call.meta.values())


def text_before_calls(conv: Conversation, log: Log) -> Outcome:
    """TD405 / TD803: text (or another block) after a call in its assistant turn moves before the
    turn's first call; the calls close the turn."""
    records: list[Record] = []
    turns = list(conv.turns)
    for t, turn in enumerate(turns):
        if turn.role != "assistant":
            continue
        first = next((k for k, p in enumerate(turn.parts)
                      if isinstance(p, Invocation) and not _programmatic(p)), None)
        if first is None:
            continue
        after = [k for k, p in enumerate(turn.parts) if k > first
                 and not isinstance(p, Invocation | Reasoning) and not blank(p)]
        # only a turn check found it in: where the target takes text after a call, a merge by the
        # writer that put it there is no finding, and moving it would claim a repair of nothing
        code = next((c for k in after for c in ("TD405", "TD803") if c in log.codes_at(turn.parts[k])), None)
        if code is None:
            continue
        moved = [turn.parts[k] for k in after]
        rest = [p for k, p in enumerate(turn.parts) if k >= first and k not in after]
        turns[t] = replace(turn, parts=(*turn.parts[:first], *moved, *rest))
        for n, k in enumerate(after):
            records.append(log.repair(code, t, k, f"{describe(turn.parts[k])} after the call "
                                      f"{quote(turn.parts[first].name)}",  # type: ignore[attr-defined]
                                      f"{at(t, first + n)}, before the calls"))
    return Outcome(with_turns(conv, turns) if records else conv, tuple(records))


def drop_blank_text(conv: Conversation, log: Log) -> Outcome:
    """TD406: an empty or whitespace-only text block beside other content is taken out."""
    drop = [(t, p) for t, turn in enumerate(conv.turns) if any(not blank(q) for q in turn.parts)
            for p, part in enumerate(turn.parts) if blank(part)]
    records: list[Record] = [log.repair("TD406", t, p, describe(conv.turns[t].parts[p]), "(taken out)")
                             for t, p in drop]
    return Outcome(_remove(conv, drop) if drop else conv, tuple(records))


def malformed_turns(conv: Conversation, log: Log) -> Outcome:
    """TD404: an empty turn is taken out — the final assistant turn (a prefill) only when check finds
    it in a request for a target (the canonical document keeps it, saying so); a legacy Gemini
    `function` role is the tool turn the canonical form already has (written as `user`); a block of
    another format read for what it means is written in the target's own shape. What would need a
    turn invented or two merged (a history opening with the model, two messages of one role), or a
    foreign block whose meaning is unknown, is refused."""
    records: list[Record] = []
    last = len(conv.turns) - 1
    final = conv.turns[last] if conv.turns else None
    prefill = last if final is not None and final.role == "assistant" and not final.parts else None
    if final is not None and prefill is not None and _found_empty(log, final):
        if log.target is None:
            records.append(log.refuse("TD404", prefill, None, "the final assistant turn is empty: kept, as a "
                                      "prefill the request ends on; a target's request leaves it out"))
        else:
            prefill = None  # (taken out: the target is shown a turn in which the model said nothing)
    empty = [t for t, turn in enumerate(conv.turns) if not turn.parts and t != prefill]
    opening = next((turn for t, turn in enumerate(conv.turns) if t not in empty), None)
    if empty and empty[0] == 0 and opening is not None and _rejects_opening(opening, log.target):
        # (taken out, the empty turns before it would leave the history opening with the model)
        for t in _leading(empty):
            records.append(log.refuse("TD404", t, None, f"an empty {conv.turns[t].role} turn: taken out, it "
                                      f"would leave the history opening with the model's turn, which "
                                      f"{log.target} rejects; repairing it would mean inventing a turn"))
        empty = empty[len(_leading(empty)):]
    for t in empty:
        records.append(log.repair("TD404", t, None, f"an empty {conv.turns[t].role} turn", "(taken out)"))
    if empty:
        conv = with_turns(conv, [turn for t, turn in enumerate(conv.turns) if t not in empty])
    for f in log.found("TD404"):
        if "an empty" in f.message:
            continue
        if "legacy `function` role" in f.message:
            records.append(log.repair("TD404", f.turn, None, "role 'function'",
                                      "a tool turn (written as a 'user' content)"))
            continue
        what = clip(f.message.split(":", 1)[0], 80)
        if "has no such content type" in f.message:  # another format's block (formats/foreign.py)
            meaning = undescribed(f.message, f.severity).split(FORWARDED, 1)[-1]
            if meaning.startswith("read as "):
                records.append(log.repair("TD404", f.turn, f.part, what,
                                          f"written in the target's own shape ({meaning})"))
            else:
                records.append(log.refuse("TD404", f.turn, f.part, f"{what}: what it means is not known, so "
                                          "it is written as recorded"))
            continue
        records.append(log.refuse("TD404", f.turn, f.part, f"{what}: repairing it would mean inventing a "
                                  "turn or merging two"))
    return Outcome(conv, tuple(records))


def _found_empty(log: Log, turn: Turn) -> bool:
    """Does check find `turn` (a turn of the original conversation, or one equal to it) empty?"""
    return any("an empty" in f.message and f.turn is not None and f.turn < len(log.original.turns)
               and log.original.turns[f.turn] == turn for f in log.found("TD404"))


def _leading(turns: list[int]) -> list[int]:
    """The run of turn indices 0, 1, 2, … that `turns` (sorted) begins with."""
    return [t for k, t in enumerate(turns) if t == k]


def _rejects_opening(turn: Turn, target: str | None) -> bool:
    """Does `target` reject a history that opens with `turn`? (TD404: Bedrock wants a user message
    first, Gemini a user turn before a function call turn.)"""
    fmt = wire_format(target) if target is not None else None
    return turn.role == "assistant" and (
        fmt == "bedrock" or fmt == "gemini" and any(isinstance(p, Invocation) for p in turn.parts))


def move_result_media(conv: Conversation, log: Log) -> Outcome:
    """TD804: media a tool result cannot carry for the target (Chat Completions tool messages are
    text only) moves into a user message right after the results, the result saying where it went."""
    limits = table(log.target) if log.target else None
    rule = limits.result_media if limits is not None else None
    if rule is None:
        return Outcome(conv)
    records: list[Record] = []
    for f in log.found("TD804"):
        named = log.found_at(f)
        where = locate(conv, named[1], named[0]) if named is not None else None
        if where is None:
            continue
        t, p = where
        result = conv.turns[t].parts[p]
        if not isinstance(result, Result):
            continue
        media = [m for m in result.content if isinstance(m, Media) and m.kind not in rule.allowed]
        if not media:
            continue
        kinds = ", ".join(sorted({m.kind for m in media}))
        kept = [c for c in result.content if not (isinstance(c, Media) and c.kind not in rule.allowed)]
        note = Text(text=f"({kinds} sent in the next message)")
        turns = list(conv.turns)
        turns[t] = replace(turns[t], parts=tuple(
            replace(result, content=(*kept, note)) if k == p else q for k, q in enumerate(turns[t].parts)))
        end = _block(conv, t - 1).stop if turns[t].role == "tool" else t + 1
        carrier = Turn(role="user", parts=(Text(text=f"The {kinds} returned by {result.name or 'the tool'} "
                                                     f"({result.wire_id or 'its result'}):"), *media),
                       source=result.source)
        turns.insert(end, carrier)
        conv = with_turns(conv, turns)
        records.append(log.repair("TD804", t, p, f"result {ident(result)} holding {kinds}",
                                  f"{kinds} moved to a user message ({at(end, None)}) after the results"))
    return Outcome(conv, tuple(records))
