"""A call the model returned under one id, replayed in the next request under another.

The provider issued the id; the client (or a relay between it and the provider) minted a new one
when it stored or converted the history. When the result follows the new id the provider accepts
the request, but the replay is no longer what the model produced: provider-side prompt caching
breaks at that turn, OpenAI Responses items and reasoning can no longer be matched to their call,
logs and traces on either side cannot be joined, and any tool executed under the old id reports to
a call the model never sees. When the result keeps the old id the request fails as an orphan
(TD101/TD102); this finding then names the cause.

Each response's calls are compared with the replay of that turn in the next request of the same
conversation (matched by position, else by the same calls with the same arguments). A call the
model returned without an id (Gemini) is not a finding when the client invents one on replay, which
the provider accepts; a replay that drops an id is left to the target checks.
"""

from collections.abc import Iterator
from typing import Any

from ...formats.base import Request
from ...lacking import IDS
from ...model import Conversation, Invocation, Turn
from ...shorten import plain
from ..base import Context, Finding
from ..pairing import short

CODE = "TD106"
NAME = "id-regenerated"
SEVERITY = "warning"
HARM = "symptom"
MESSAGE = "a call replayed in a later exchange under another id"
NEEDS = (IDS,)
BAD = """
response of exchange 0:
{"type": "tool_use", "id": "toolu_01Vd8Kp2Xn6Tq1Rb4Yw9Mz3L", "name": "get_weather", "input": {"city": "Oslo"}}
replayed in exchange 1's request, its result following the new id:
{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Oslo"}}
{"type": "tool_result", "tool_use_id": "call_1", "content": "4°C"}
"""
GOOD = """
response of exchange 0:
{"type": "tool_use", "id": "toolu_01Vd8Kp2Xn6Tq1Rb4Yw9Mz3L", "name": "get_weather", "input": {"city": "Oslo"}}
replayed in exchange 1's request as it came:
{"type": "tool_use", "id": "toolu_01Vd8Kp2Xn6Tq1Rb4Yw9Mz3L", "name": "get_weather", "input": {"city": "Oslo"}}
{"type": "tool_result", "tool_use_id": "toolu_01Vd8Kp2Xn6Tq1Rb4Yw9Mz3L", "content": "4°C"}
"""


Calls = list[tuple[int, Invocation]]  # (part index, call) of each call of a turn


def _calls(turn: Turn) -> Calls:
    """The turn's calls, with their places: one walk over its parts, kept for every use the rule
    makes of them (walking them again for each was a fifth of the rule)."""
    return [(p, part) for p, part in enumerate(turn.parts) if isinstance(part, Invocation)]


def _signature(calls: Calls) -> list[tuple[str, Any, str | None]]:
    """Each call as its name and arguments."""
    return [(c.name, c.arguments, c.raw_arguments) for _, c in calls]


def _replay(calls: Calls, position: int, request: Request,
            history: tuple[Turn, ...]) -> tuple[int, Turn, Calls] | None:
    """The turn of `request` that replays the turn of `calls`, with its index and its calls: at its
    position when the calls there are the same, else the latest turn with the same calls whose ids
    the earlier `history` did not already use."""
    wanted = _signature(calls)
    turns = request.turns
    if position < len(turns) and turns[position].role == "assistant":
        there = _calls(turns[position])
        if _signature(there) == wanted:
            return position, turns[position], there
    earlier_ids = {c.wire_id for t in history for c in t.invocations() if c.wire_id is not None}
    for index in range(len(turns) - 1, -1, -1):
        candidate = turns[index]
        if candidate.role != "assistant":
            continue
        there = _calls(candidate)
        if _signature(there) == wanted and not any(c.wire_id in earlier_ids for _, c in there):
            return index, candidate, there
    return None


def _locate(conv: Conversation, replay: Turn, hint: int) -> int | None:
    """The index of `replay` in the stitched conversation (the request's index when unchanged)."""
    if hint < len(conv.turns) and conv.turns[hint] is replay:
        return hint
    return next((i for i, t in enumerate(conv.turns) if t is replay), None)


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        reads = ctx.exchanges(conv)
        # Only a request that replays its history shows a call again (one chained on stored turns,
        # or an agent's own log, sends only what is new): those are searched for the replay.
        replaying = [(k, r.request) for k, r in enumerate(reads) if r.request is not None and not r.stored]
        later = 0  # the first of `replaying` after exchange k (both in log order)
        for k, read in enumerate(reads):
            while later < len(replaying) and replaying[later][0] <= k:
                later += 1
            answers = [r.turn for r in read.responses if r.turn is not None]
            made = [(offset, calls) for offset, answer in enumerate(answers) if (calls := _calls(answer))]
            if not made:
                continue
            history = read.request.turns if read.request is not None else ()
            following = next((request for _, request in replaying[later:]
                              if len(request.turns) > len(history)), None)
            if following is None:
                continue
            for offset, calls in made:
                found = _replay(calls, len(history) + offset, following, history)
                if found is None:
                    continue
                index, replay, new_calls = found
                changed = [(old, p, new) for (_, old), (p, new) in zip(calls, new_calls, strict=True)
                           if old.wire_id is not None and new.wire_id is not None and old.wire_id != new.wire_id]
                if not changed:
                    continue
                turn = _locate(conv, replay, index)
                nxt = next(r for r in reads[k + 1:] if r.request is following)  # (named in the message)
                for old, p, new in changed:
                    yield ctx.at(
                        f"call {new.id} {plain(new.name)} was returned as {short(old.wire_id)} in exchange "
                        f"{read.exchange.index} and replayed as {short(new.wire_id)} in exchange "
                        f"{nxt.exchange.index}",
                        conversation=conv, turn=turn, part=p if turn is not None else None,
                        source=new.source if turn is None else None)
