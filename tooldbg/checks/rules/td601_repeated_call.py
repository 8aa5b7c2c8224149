"""The same call — same tool, equal arguments — made again right after its result came back.

When the model's very next action after receiving a result is to ask for exactly the same thing, it
almost always did not see the result: the replay dropped it, folded it into text it does not read as
an answer, bound it to the wrong id, or cut it off. The agent then loops, paying for the same call
each round, until a step limit ends the run. Only the first turn of calls after the result is
compared (re-reading a file after editing it is normal), a result that reported a failure makes a
retry legitimate, and a user message in between may ask for it again: so it is a warning, a strong
sign rather than a proof.
"""

from collections.abc import Iterator

from ...model import Invocation, Result
from ...shorten import plain
from ..base import Context, Finding
from ..structure import arguments_key, label, views

CODE = "TD601"
NAME = "repeated-call"
SEVERITY = "warning"
HARM = "symptom"
MESSAGE = "the same call made again right after its result was given"
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "4°C, overcast"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_2", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}}]}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_1", "content": "4°C, overcast"},
  {"role": "assistant", "content": "It is 4 °C and overcast in Oslo."}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for view in views(ctx):
        conv = view.conversation
        keys: dict[str, tuple[str, str]] = {}  # own call id → (name, arguments)
        calls: dict[str, Invocation] = {}
        # Calls answered since the last turn of calls: (name, arguments) → (result turn, the call).
        fresh: dict[tuple[str, str], tuple[int, Invocation]] = {}
        result_units: set[int] = set()
        for t, turn in enumerate(conv.turns):
            if turn.role == "user" and view.units[t] not in result_units:
                fresh.clear()  # the user spoke: asking again may be what they want
            made = False
            results: list[Result] = []  # (looked at after the turn's calls: one walk over its parts)
            for p, call in enumerate(turn.parts):
                if not isinstance(call, Invocation):
                    if isinstance(call, Result):
                        results.append(call)
                    continue
                made = True
                key = (call.name, arguments_key(call))
                earlier = fresh.get(key)
                if earlier is not None:
                    r, first = earlier
                    yield ctx.at(f"{plain(call.name)} called again with the same arguments as {label(first)}, "
                                 f"right after its result came back in turn {r}: the model may not have "
                                 f"seen that result", conversation=conv, turn=t, part=p)
                keys[call.id] = key
                calls[call.id] = call
            if made:
                fresh.clear()
            for part in results:
                if part.invocation_id in keys:
                    result_units.add(view.units[t])
                    if not part.is_error:
                        fresh.setdefault(keys[part.invocation_id], (t, calls[part.invocation_id]))
