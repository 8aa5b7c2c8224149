"""Text the model wrote beside a tool call disappeared when the turn was replayed.

The model said something before calling ("The map shows Oslo and Bergen; I'll check both") and the
client sent the call back without it. No provider complains — the request is valid — but the model
now reads a history in which it called tools without a word, loses the plan or the caveat it stated,
and answers from a conversation it never had. The usual causes are converters that keep only the
`tool_calls` of an assistant message, filters that drop "empty-looking" content next to calls, and
translators that put text and calls into separate messages and then lose one of them.
"""

from collections.abc import Iterator

from ...model import Invocation, Text, Turn
from ..base import Context, Finding
from ..replay import call_label, norm, origin, replays, snippet
from ..structure import blank

CODE = "TD301"
NAME = "dropped-text"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "text beside a tool call disappeared on replay"
BAD = """
response of exchange 0:
{"role": "assistant", "content": "I'll check both cities.", "tool_calls": [{"id": "call_Q3zb",
  "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
replayed in exchange 1's request:
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_Q3zb",
  "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""
GOOD = """
replayed in exchange 1's request:
{"role": "assistant", "content": "I'll check both cities.", "tool_calls": [{"id": "call_Q3zb",
  "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for replay in replays(ctx):
        for pair in replay.pairs:
            texts = [p for p in pair.original.parts if isinstance(p, Text) and not blank(p)]
            if not pair.anchored or not texts or not any(pair.original.invocations()) \
                    or _verbatim(texts, pair.turns):
                continue
            kept = [(orig, hit) for orig, hit in pair.calls() if hit is not None]
            if not kept:  # the call is gone too: not a replay of this turn with its text dropped
                continue
            near = pair.parts_near(hit for _, hit in kept)
            replayed = norm(" ".join(p.text for _, _, p in near if isinstance(p, Text)))
            dropped = [t for t in texts if norm(t.text) not in replayed]
            if not dropped:
                continue
            call: Invocation = kept[0][0]
            more = f" (and {len(dropped) - 1} more text blocks)" if len(dropped) > 1 else ""
            yield pair.finding(
                ctx, f"text {snippet(dropped[0].text)}{more} beside the call {call_label(call)} in "
                     f"{origin(pair)} is missing from its replay", kept[0][1][0])


def _verbatim(texts: list[Text], turns: tuple[tuple[int, Turn], ...]) -> bool:
    """Is each of `texts` the very text of a text part of `turns` (the replay)? Then none is missing
    from the text around the calls' replays, which holds those turns' texts: most replays keep the
    text as it was, and spacing it out to compare (`norm`) was most of the rule."""
    replayed = {p.text for _, turn in turns for p in turn.parts if isinstance(p, Text)}
    return all(t.text in replayed for t in texts)
