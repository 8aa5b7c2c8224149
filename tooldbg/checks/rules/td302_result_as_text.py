"""A tool result replayed as plain text: the words survive, the binding to the call does not.

A result is bound to its call by id (`tool_call_id`, `tool_use_id`, `call_id`, `toolUseId`) or, on
Gemini, by position and name. A history that turns results into user text ("Tool get_weather
returned: …") or drops the calls and narrates their outcome leaves calls unanswered — OpenAI then
refuses the request ("An assistant message with 'tool_calls' must be followed by tool messages
responding to each 'tool_call_id'") and Anthropic says "`tool_use` ids were found without
`tool_result` blocks immediately after" — or, through a lenient relay, the model reads its own tool
output as something the user typed and may call the tool again. Seen with frameworks that flatten
tool exchanges when switching providers or compacting history.

Found two ways: a result sent as a result in one request and, in the next, only as text inside a
user turn; and a call turn whose calls are not answered by results but by a user text that reports
on them (names the call's id, or its tool with "result", "output", "returned"…).
"""

import re
from collections.abc import Iterator

from ...model import Invocation, Text
from ...shorten import quote
from ..base import Context, Finding
from ..replay import Pair, call_label, origin, replays, results_as_text, snippet

CODE = "TD302"
NAME = "result-as-text"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a tool result replayed as plain text, its binding to the call lost"
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "call_Q3zb", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]},
  {"role": "user", "content": "Tool get_weather returned: {\\"temp_c\\": 4}"}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "call_Q3zb", "type": "function",
    "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_Q3zb", "content": "{\\"temp_c\\": 4}"}]}
"""

_REPORTS = r"(?i)\b(?:results?|output|outputs|returned|returns|response|observation)\b"  # compiled where used


def check(ctx: Context) -> Iterator[Finding]:
    for replay in replays(ctx):
        for pair in replay.pairs:
            if pair.from_response:
                yield from _narrated(ctx, pair)
            elif pair.original.role == "tool":
                yield from _flattened(ctx, pair)


def _flattened(ctx: Context, pair: Pair) -> Iterator[Finding]:
    """Results of a request turn found, in the next request, only inside user text."""
    lost = {id(r) for r, hit in pair.results() if hit is None}
    if not lost:
        return
    turns = pair.replay.request.turns
    near = [(i, turns[i]) for i in (pair.position, pair.position + 1) if i < len(turns)]
    for result, text in results_as_text(pair.original, [t for _, t in near]):
        if id(result) not in lost:
            continue
        ti, pi = next((i, k) for i, t in near for k, p in enumerate(t.parts) if p is text)
        ident = quote(result.wire_id) if result.wire_id else f"of {quote(result.name)}"
        yield pair.finding(ctx, f"result {ident} sent as a tool result in {origin(pair)} is replayed as "
                                f"user text: its binding to the call is lost", ti, pi)
        return


def _narrated(ctx: Context, pair: Pair) -> Iterator[Finding]:
    """A call turn replayed (or dropped) with its calls answered by user text instead of results."""
    if not any(pair.original.invocations()):
        return
    turns = pair.replay.request.turns
    j = pair.next_index
    if j >= len(turns) or turns[j].role != "user" or not any(isinstance(p, Text) for p in turns[j].parts):
        return
    calls = pair.calls()
    answered = {r.invocation_id for t in turns for r in t.results()}
    open_calls: list[tuple[Invocation, Invocation | None]] = [
        (c, hit[2] if hit is not None else None) for c, hit in calls
        if hit is None or hit[2].id not in answered]
    for pi, part in enumerate(turns[j].parts):
        if not isinstance(part, Text):
            continue
        for call, replayed in open_calls:
            if _reports_on(part.text, call, replayed):
                how = "dropped" if replayed is None else "left unanswered"
                yield pair.finding(
                    ctx, f"the call {call_label(call)} from {origin(pair)} is {how} and its outcome "
                         f"is replayed as user text {snippet(part.text, 50)}: no result binds it",
                    j, pi)
                return


def _reports_on(text: str, call: Invocation, replayed: Invocation | None) -> bool:
    ids = {c.wire_id for c in (call, replayed) if c is not None and c.wire_id and len(c.wire_id) >= 4}
    if any(_word(i, text) for i in ids):
        return True
    names = {c.name for c in (call, replayed) if c is not None and c.name}
    return any(_word(n, text) for n in names) and bool(re.compile(_REPORTS).search(text))


def _word(word: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None

