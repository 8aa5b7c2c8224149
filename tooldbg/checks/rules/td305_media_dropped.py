"""An image or file in a tool result or a turn did not survive the replay.

A screenshot a computer-use tool returned, a PDF a fetch tool read, a photo the user attached: the
next request sends the result or the turn without it (a converter that keeps only text blocks, a
Chat Completions writer that cannot put images in a `tool` message and drops them instead of moving
them to a user message, a relay that strips `inlineData`). The provider accepts the request, and the
model answers about a picture it no longer has. A medium that moved elsewhere in the request (same
bytes, any base64 alphabet, inline or as a data URL) or was swapped for another reference to it is
not a loss.
"""

from collections.abc import Iterator

from ...model import Media
from ...shorten import plain, quote
from ..base import Context, Finding
from ..replay import Replay, media_identity, media_in, origin, replays

CODE = "TD305"
NAME = "media-dropped"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "an image or file in a result or turn did not survive the replay"
BAD = """
exchange 1's request:
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01S", "content": [
  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo…"}}]}]}
exchange 2's request replays it as:
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01S", "content": "[image]"}]}
"""
GOOD = """
exchange 2's request replays it as:
{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01S", "content": [
  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo…"}}]}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for replay in replays(ctx):
        for pair in replay.pairs:
            for result, hit in pair.results():
                if hit is None:
                    continue  # the result itself is gone: another defect
                lost = _lost(list(media_in(result.content)), list(media_in(hit[2].content)), replay)
                if lost:
                    ident = quote(result.wire_id) if result.wire_id else f"of {quote(result.name)}"
                    yield pair.finding(ctx, f"{_what(lost)} in result {ident} of {origin(pair)} is missing "
                                            f"from its replay", hit[0], hit[1])
            if not pair.anchored or not pair.turns:
                continue
            own = [p for p in pair.original.parts if isinstance(p, Media)]
            if not own:  # (most turns: no medium to lose, the replay's not listed)
                continue
            kept = [p for _, t in pair.turns for p in t.parts if isinstance(p, Media)]
            lost = _lost(own, kept, replay)
            if lost:
                yield pair.finding(ctx, f"{_what(lost)} in the {pair.original.role} turn of {origin(pair)} "
                                        f"is missing from its replay", pair.turns[0][0])


def _lost(before: list[Media], after: list[Media], replay: Replay) -> list[Media]:
    """Media of `before` that are nowhere in the replaying request, when `after` has fewer."""
    if len(after) >= len(before):
        return []
    return [m for m in before if media_identity(m) not in replay.media()]


def _what(lost: list[Media]) -> str:
    first = lost[0]
    kind = f"{plain(first.kind)} ({plain(first.media_type)})" if first.media_type else first.kind
    return f"{kind}" + (f" and {len(lost) - 1} more" if len(lost) > 1 else "")
