"""Repairs of call ids and tool names (TD103, TD104, TD107, TD108, TD801, TD802, TD806).

A call and every result answering it are changed together. Ids and names made to fit a target go
through the same planning the writers use (`formats.writer.Fitting`, over `targets.py`), so the
canonical conversation holds what the writer would write, and the writer then has nothing left to
rewrite. A pairing that is not certain (two calls a damaged id could belong to, results that could
answer either of two same-name calls) is refused with the reason.
"""

from __future__ import annotations

from dataclasses import replace

from ..checks.pairing import (
    Located,
    invalid_id,
    mismatches,
    missing_id,
    near_miss,
    result_text,
    results_by_call,
)
from ..checks.rules.td107_ambiguous_pairing import _groups, _tokens
from ..fit import broken
from ..formats.profiles import wire_format
from ..formats.writer import Fitting
from ..model import Conversation, Invocation, Loss, Result, ToolChoice
from ..shorten import quote
from ..targets import table
from ..wording import at, describe
from .base import Log, Outcome, Record, call_index, rebind, with_part, with_turns


def rebind_near_misses(conv: Conversation, log: Log) -> Outcome:
    """TD103: a result whose id is a damaged copy (re-cased, truncated, prefix rewritten…) of the id
    of exactly one unanswered call answers that call, under its id."""
    records: list[Record] = []
    answered = set(results_by_call(conv))
    for m in mismatches(conv):
        call: Invocation = m.call.node
        result: Result = m.result.node
        rivals = [c for c in conv.turns[m.call.turn].invocations()
                  if c.id != call.id and c.id not in answered and c.wire_id
                  and near_miss(result.wire_id or "", c.wire_id) is not None]
        if rivals:
            records.append(log.refuse("TD103", m.result.turn, m.result.part,
                                      f"the id {quote(result.wire_id)} is close to the ids of "
                                      f"{len(rivals) + 1} unanswered calls: which one it answers is a guess"))
            continue
        answered.add(call.id)
        conv = with_part(conv, m.result.turn, m.result.part,
                         replace(result, invocation_id=call.id, wire_id=call.wire_id,
                                 name=result.name if result.name is not None else call.name))
        records.append(log.repair("TD103", m.result.turn, m.result.part,
                                  f"result id {quote(result.wire_id)} ({m.how})",
                                  f"{quote(call.wire_id)}, the id of call {call.id} {quote(call.name)} in "
                                  f"turn {m.call.turn}"))
    return Outcome(conv, tuple(records))


def unique_call_ids(conv: Conversation, log: Log) -> Outcome:
    """TD104: a call that reuses an earlier call's id gets an id of its own, with its results — when
    the earlier call was answered before it was made, so which results answer which is certain."""
    records: list[Record] = []
    used = {p.wire_id for turn in conv.turns for p in turn.parts
            if isinstance(p, Invocation | Result) and p.wire_id is not None}
    latest: dict[str, tuple[int, Invocation]] = {}
    for t, turn in enumerate(conv.turns):
        for p, call in enumerate(turn.parts):
            if not isinstance(call, Invocation) or call.wire_id is None or invalid_id(call.wire_id):
                continue
            wire_id = call.wire_id
            before = latest.get(wire_id)
            if before is None:
                latest[wire_id] = (t, call)
                continue
            answers = results_by_call(conv).get(before[1].id, [])
            if before[0] == t or not answers or any(r.turn >= t for r in answers):
                records.append(log.refuse("TD104", t, p, f"call {before[1].id} {quote(before[1].name)} with "
                                          f"the same id {quote(wire_id)} is not answered before this call is "
                                          "made: which results answer which call is a guess"))
                latest[wire_id] = (t, call)
                continue
            n = 2
            while f"{wire_id}_{n}" in used:
                n += 1
            new = f"{wire_id}_{n}"
            used.add(new)
            conv = with_part(conv, t, p, replace(call, wire_id=new))
            conv, answers_now = rebind(conv, call.id, wire_id=new)
            also = f" and its result{'s' if len(answers_now) != 1 else ''}" if answers_now else ""
            records.append(log.repair("TD104", t, p, f"call {call.id} {quote(call.name)} id {quote(wire_id)} "
                                      f"(the id of call {before[1].id} in turn {before[0]})",
                                      f"{quote(new)}{also}"))
    return Outcome(conv, tuple(records))


def _id_target(log: Log) -> str:
    """The target whose id limits a made-up id must pass: the one written, else the log's format."""
    if log.target is not None:
        return log.target
    return next(iter(log.loaded.formats), "openai-chat")


def replace_invalid_ids(conv: Conversation, log: Log) -> Outcome:
    """TD108: a call id that is empty, blank, padded or a placeholder, or missing where the wire
    requires one, is replaced (made), for the call and every result answering it, by an id made as
    the writers make one (`Fitting`)."""
    reads = log.loaded.reads
    bad = [(t, p, c) for t, turn in enumerate(conv.turns) for p, c in enumerate(turn.parts)
           if isinstance(c, Invocation) and (invalid_id(c.wire_id) is not None or missing_id(reads, c))]
    if not bad:
        return Outcome(conv)
    cleared = conv
    for t, p, call in bad:
        cleared = with_part(cleared, t, p, replace(call, wire_id=None))
    fit = Fitting(cleared, _id_target(log), [], id_prefix="call_", unique_ids=True)
    records: list[Record] = []
    for t, p, call in bad:
        new = fit.written_id(call.id)
        if new is None:
            records.append(log.refuse("TD108", t, p, f"no id for {_id_target(log)} could be made"))
            continue
        conv = with_part(conv, t, p, replace(call, wire_id=new))
        conv, answers = rebind(conv, call.id, wire_id=new)
        also = f" and its result{'s' if len(answers) != 1 else ''}" if answers else ""
        before = f"call {call.id} {quote(call.name)} " + (
            "without an id" if call.wire_id is None
            else f"id {quote(call.wire_id)} ({invalid_id(call.wire_id)})")
        records.append(log.repair("TD108", t, p, before, f"{quote(new)}{also}"))
    return Outcome(conv, tuple(records))


def fit_ids(conv: Conversation, log: Log) -> Outcome:
    """TD801 / TD802: call ids the target rejects (or has rejected) are rewritten as the writer
    rewrites them, for the call and its results together."""
    target = log.target
    if target is None:
        return Outcome(conv)
    fit = Fitting(conv, target, [], id_prefix=None)
    limits = (table(target) or table(wire_format(target))).call_id  # type: ignore[union-attr]
    records: list[Record] = []
    for own, (t, p, call) in call_index(conv).items():
        new = fit.written_id(own)
        if new is None or call.wire_id is None or new == call.wire_id:
            continue
        limit = broken(call.wire_id, limits)
        code = "TD801" if limit is None or limit.certain else "TD802"
        conv = with_part(conv, t, p, replace(call, wire_id=new))
        conv, answers = rebind(conv, own, wire_id=new)
        also = f" and its result{'s' if len(answers) != 1 else ''}" if answers else ""
        records.append(log.repair(code, t, p, f"call {quote(call.name)} id {quote(call.wire_id)}",
                                  f"{quote(new)}{also}, as {target} accepts it"))
    return Outcome(conv, tuple(records))


def fit_names(conv: Conversation, log: Log) -> Outcome:
    """TD806: tool names the target rejects are renamed as the writer renames them, everywhere the
    name appears (declaration, calls, results, tool choice)."""
    target = log.target
    if target is None:
        return Outcome(conv)
    losses: list[Loss] = []
    fit = Fitting(conv, target, losses)
    names = {t.name for t in conv.tools} | {p.name for turn in conv.turns for p in turn.parts
                                             if isinstance(p, Invocation | Result) and p.name is not None}
    if conv.tool_choice is not None and conv.tool_choice.name is not None:
        names.add(conv.tool_choice.name)
    renamed = {n: fit.written_name(n) for n in sorted(names)}
    renamed = {old: new for old, new in renamed.items() if new != old}
    records: list[Record] = []
    if "" in renamed:  # a name lost upstream (TD503): any name written for it is made up
        del renamed[""]
        records.append(log.refuse("TD806", None, None, f"a call's tool name is empty (lost before the log): "
                                  f"the name written for {target} would be made up, not repaired"))
    if not renamed:
        return Outcome(conv, tuple(records))
    tools = tuple(replace(t, name=renamed.get(t.name, t.name)) for t in conv.tools)
    turns = [replace(turn, parts=tuple(
        replace(p, name=renamed[p.name]) if isinstance(p, Invocation | Result) and p.name in renamed else p
        for p in turn.parts)) for turn in conv.turns]
    choice = conv.tool_choice
    if isinstance(choice, ToolChoice) and choice.name in renamed:
        choice = replace(choice, name=renamed[choice.name])
    conv = replace(with_turns(conv, turns), tools=tools, tool_choice=choice)
    records += [log.repair("TD806", None, None, f"tool name {quote(old)}",
                           f"{quote(new)}, as {target} accepts it")
                for old, new in renamed.items()]
    return Outcome(conv, tuple(records))


def pair_same_name(conv: Conversation, log: Log) -> Outcome:
    """TD107: same-name calls without ids, whose results each name an argument of exactly one call
    of the group (a city, a file name) and together one of each: the results answer the calls they
    name, put in call order, and calls and results get ids. When nothing (or too much) in the
    results tells them apart, the pairing by position is a guess and is left alone."""
    records: list[Record] = []
    bound = results_by_call(conv)
    used = {p.wire_id for turn in conv.turns for p in turn.parts
            if isinstance(p, Invocation | Result) and p.wire_id is not None}
    for group in list(_groups(conv)):
        tokens = _tokens(group)
        answers: list[tuple[Located, Invocation]] = [(r, c) for c in group for r in bound.get(c.id, [])]
        first = answers[0][0] if answers else None
        if first is None:
            continue
        named: dict[int, list[Invocation]] = {}
        for r, _ in answers:
            text = result_text(r.node.content).lower()
            named[id(r)] = [c for c in group if any(tok in text for tok in tokens[c.id])]
        chosen = [named[id(r)][0] for r, _ in answers if len(named[id(r)]) == 1]
        certain = (len(answers) == len(group) and len(chosen) == len(answers)
                   and len({c.id for c in chosen}) == len(group))
        if not certain:
            several = any(len(v) > 1 for v in named.values())
            why = ("a result names arguments of several of these calls" if several
                   else "nothing in the results says which call each answers")
            records.append(log.refuse("TD107", first.turn, first.part,
                                      f"{len(group)} {quote(group[0].name)} calls without ids: {why}, so "
                                      "pairing them is a guess (two equally likely pairings); no ids given"))
            continue
        rank = {c.id: k for k, c in enumerate(group)}
        places = sorted((r.turn, r.part) for r, _ in answers)
        ordered = sorted(answers, key=lambda a: rank[named[id(a[0])][0].id])
        ids: dict[str, str] = {}
        for c in group:
            n, new = 0, f"call_{c.id}"
            while new in used:
                n += 1
                new = f"call_{c.id}_{n}"
            used.add(new)
            ids[c.id] = new
        calls = call_index(conv)
        for c in group:
            t, p, now = calls[c.id]
            conv = with_part(conv, t, p, replace(now, wire_id=ids[c.id]))
        for (t, p), (r, was) in zip(places, ordered, strict=True):
            answer = named[id(r)][0]
            conv = with_part(conv, t, p, replace(r.node, invocation_id=answer.id, wire_id=ids[answer.id]))
            word = next(v for k, v in tokens[answer.id].items() if k in result_text(r.node.content).lower())
            moved = f", moved to {at(t, p)}" if (t, p) != (r.turn, r.part) else ""
            records.append(log.repair("TD107", r.turn, r.part,
                                      f"{describe(r.node)} paired by position with {was.id} {was.name}",
                                      f"answers {answer.id} (it names {quote(word)}){moved}; call and "
                                      f"result id {quote(ids[answer.id])}"))
    return Outcome(conv, tuple(records))
