"""Signed reasoning was dropped (or its signature altered) when a tool-call turn was replayed.

Providers that reason before calling a tool hand back a token that must return with the call:
Anthropic `thinking` blocks with their `signature` ("When `thinking` is enabled, a final `assistant`
message must start with a thinking block (preceeding the lastmost set of `tool_use` and
`tool_result` blocks)"), Gemini `thoughtSignature` ("Function call is missing a thought_signature in
functionCall parts"), OpenAI Responses `reasoning` items ("Item 'fc_…' of type 'function_call' was
provided without its required 'reasoning' item"), Bedrock `reasoningContent` signatures. Dropped,
the request is refused; through a relay that strips it on the way, the model loses its chain of
thought mid-task. A signature re-encoded in the other base64 alphabet (google-genai writes
URL-safe base64 on replay) carries the same bytes and is not a loss: signatures are compared
decoded; Responses reasoning items also match by id.
"""

from collections.abc import Iterator

from ... import formats
from ...model import Invocation, Reasoning
from ...shorten import quote
from ..base import Context, Finding
from ..replay import Pair, Placed, origin, replays, signature_key

CODE = "TD307"
NAME = "reasoning-lost"
SEVERITY = "error"
MESSAGE = "thinking or a thought signature dropped from a replayed tool-call turn"
BAD = """
response of exchange 0:
{"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
  "thoughtSignature": "CogBASDP5+LyIWTrgR9L…"}]}
replayed in exchange 1's request:
{"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]}
"""
GOOD = """
replayed in exchange 1's request (the same bytes in URL-safe base64 are fine):
{"role": "model", "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
  "thoughtSignature": "CogBASDP5-LyIWTrgR9L…"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for replay in replays(ctx):
        for pair in replay.pairs:
            if not pair.from_response or not pair.anchored or not any(pair.original.invocations()):
                continue
            calls = {id(c): hit for c, hit in pair.calls() if hit is not None}
            if not calls:
                continue  # the calls are gone too: not a replayed tool-call turn
            yield from _lost(ctx, pair, calls)


def _lost(ctx: Context, pair: Pair, calls: dict[int, Placed]) -> Iterator[Finding]:
    replayed = [p for _, _, p in pair.parts_near(calls.values()) if isinstance(p, Reasoning)]
    keys = {signature_key(p) for p in replayed}
    ids = {p.wire_id for p in replayed if p.wire_id}
    parts = pair.original.parts
    originals = {signature_key(p) for p in parts if isinstance(p, Reasoning)}
    for k, part in enumerate(parts):
        if not isinstance(part, Reasoning):
            continue
        key = signature_key(part)
        if key is None or key in keys or (part.wire_id is not None and part.wire_id in ids):
            continue
        hit = next((calls[id(p)] for p in parts[k + 1:] if isinstance(p, Invocation) and id(p) in calls),
                   next(iter(calls.values())))
        altered = any(k2 not in originals for k2 in keys - {None})
        how = "replayed with a different signature" if altered else "dropped"
        name = hit[2].name
        kind = formats.facts(part.origin).reasoning if part.origin in formats.FORMATS else None
        if key[0] == "redacted":
            what = f"the redacted thinking before the call {quote(name)}"
        elif part.origin == "gemini":  # the signature rides on the call's own part
            what = f"the {kind} of the call {quote(name)}"
        else:
            what = f"the {kind or 'signed reasoning'} before the call {quote(name)}"
        yield pair.finding(ctx, f"{what} in {origin(pair)} was {how} on replay", hit[0], hit[1])
        return
