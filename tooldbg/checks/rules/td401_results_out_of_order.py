"""Parallel results replayed in an order other than the order of their calls.

An agent that runs parallel calls concurrently and appends each result as it completes replays them
in completion order. Where results carry ids this is legal for most providers (none of the five APIs
documents an order requirement when ids are present), but it is the mark of a replay that pairs by
arrival, and it becomes silent corruption where pairing is positional: Gemini without ids pairs
`functionResponse` parts to `functionCall` parts by position and name, and expects "responses in call
order, all in one Content" — two results swapped there are two answers given to the wrong questions,
and the model reads them without complaint. Error for Gemini results without ids, warning elsewhere.
"""

from collections.abc import Iterator

from ...model import Invocation, Result
from ..base import Context, Finding
from ..structure import label, views

CODE = "TD401"
NAME = "results-out-of-order"
SEVERITY = "warning"
HARM = "symptom"
MESSAGE = "parallel results not in the order of their calls"
BAD = """
{"contents": [
  {"role": "user", "parts": [{"text": "Weather in Oslo, and the time there?"}]},
  {"role": "model", "parts": [
    {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
    {"functionCall": {"name": "get_time", "args": {"city": "Oslo"}}}]},
  {"role": "user", "parts": [
    {"functionResponse": {"name": "get_time", "response": {"output": "14:05"}}},
    {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 4}}}}]}]}
"""
GOOD = """
{"contents": [
  {"role": "user", "parts": [{"text": "Weather in Oslo, and the time there?"}]},
  {"role": "model", "parts": [
    {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
    {"functionCall": {"name": "get_time", "args": {"city": "Oslo"}}}]},
  {"role": "user", "parts": [
    {"functionResponse": {"name": "get_weather", "response": {"output": {"temp_c": 4}}}},
    {"functionResponse": {"name": "get_time", "response": {"output": "14:05"}}}]}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for view in views(ctx):
        conv = view.conversation
        position: dict[str, tuple[int, int, Invocation]] = {}  # call → (its turn, its rank there)
        answered: set[str] = set()
        by_turn: dict[int, list[tuple[int, int, int, Result, Invocation]]] = {}
        for t, turn in enumerate(conv.turns):
            rank = 0
            for p, part in enumerate(turn.parts):
                if isinstance(part, Invocation):
                    position[part.id] = (t, rank, part)
                    rank += 1
                elif isinstance(part, Result) and part.invocation_id in position \
                        and part.invocation_id not in answered:
                    answered.add(part.invocation_id)
                    ct, k, call = position[part.invocation_id]
                    by_turn.setdefault(ct, []).append((k, t, p, part, call))
        for ct, got in by_turn.items():
            ranks = [g[0] for g in got]
            if ranks == sorted(ranks):
                continue
            expected = sorted(got, key=lambda g: g[0])
            first = next(i for i, g in enumerate(got) if g[0] != expected[i][0])
            _, t, p, _, _ = got[first]
            positional = view.format == "gemini" and any(
                g[3].wire_id is None or g[4].wire_id is None for g in got)
            message = (f"results for the calls of turn {ct} come in the order {_order(got)}; the calls "
                       f"were made in the order {_order(expected)}")
            if positional:
                message += (" — Gemini pairs results that carry no id by position and expects them in call "
                            "order")
            # results given to the wrong calls are damaged data; elsewhere the order is a sign
            yield ctx.at(message, conversation=conv, turn=t, part=p, source=view.source(t, p),
                         severity="error" if positional else SEVERITY, harm="damage" if positional else None)


def _order(answers: list[tuple[int, int, int, Result, Invocation]], shown: int = 6) -> str:
    names = [label(a[4]) for a in answers[:shown]]
    return ", ".join(names) + (f", … ({len(answers) - shown} more)" if len(answers) > shown else "")
