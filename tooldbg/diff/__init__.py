"""`tooldbg diff A B`: two logs of one conversation, aligned in canonical form, each difference a
finding (TD701–TD704) with the side it is on.

A and B are two captures of the same traffic at two points — typically the client's side of a relay
(A) and the upstream side (B), in the same wire format or in two. Both are read into canonical
conversations as `check` reads them, so an Anthropic `tool_result` and an OpenAI `role: "tool"`
message compare equal when they say the same thing; only what was lost or changed is reported.

Alignment is by content, never by position (a relay may drop, merge, split or reorder turns):

1. Conversations: each of A's conversations is paired with the B conversation sharing the most
   content (a weighted Jaccard over its parts: texts, tool names, results); one each are paired
   whatever they share.
2. Exchanges: in log order, each A exchange of a conversation is paired with the B exchange, among
   the next few not yet paired, whose request and response share the most content — unless one of
   the next A exchanges shares more with it and has it for its own best match. A B exchange
   passed over is a retry or an extra call the relay made (a note); an A exchange without a
   partner never reached the other side (a note).
3. Parts: within a paired exchange, the request's turns followed by the response's are compared as
   one sequence. Runs of identical turns (the replayed history: nearly everything) are found with
   `difflib.SequenceMatcher` over turn signatures that ignore ids, metadata and part order inside a
   format's conventions; between runs, parts are paired in three passes — the same content, then
   the same key (a call by tool name, a result by the call it answers, media by kind), then the
   same kind — so a turn merged, split or reordered still pairs part by part.
4. Each pair is compared (arguments: TD704; a result's content, failure flag or binding, a text, a
   medium: TD703); a part left unpaired was lost on the way when the side upstream has it (TD703, on
   the side that lacks it) and added on the way when only the side downstream has it (TD705, on the
   side that has it; a documented sentinel is a note) — in a request a is upstream of b, in a
   response b is upstream of a (`compare`'s docstring). Each request's
   tool declarations are compared by name (TD701) and schema (TD702: parameters, required fields,
   enums removed). A difference repeated by every later request of the history is reported once,
   at the first exchange that shows it.

The side of a finding: for something lost, the side that lacks it; for something added, the side
that has it; for a value changed, the side that received it — B for what the client sent
(requests), A for what the model answered (responses): A is taken as the client's side. Call ids
rewritten consistently (a relay that issues its own ids), a tool name rewritten, a model or system
prompt changed are notes, not findings.

The package follows those steps: `units` (each exchange as a snapshot, its parts as units),
`align` (steps 1–3), `compare` (step 4) and `results` (what `diff` returns); `diff` below runs them.
"""

from __future__ import annotations

from typing import Any

from ..checks import run_checks
from ..checks.base import Finding
from ..load import Loaded
from .align import _pair_conversations
from .compare import _Engine
from .results import Diff, Place, SidedFinding

# ------------------------------------------------------------------------------------- the engine


def diff(a: Loaded, b: Loaded, *, own: bool = True) -> Diff:
    """Compare two loaded logs; `own` also runs each file's own checks."""
    out = Diff(a, b)
    engine = _Engine(out)
    for ca, cb in _pair_conversations(a, b, out):
        engine.conversation(ca, cb)
    out.findings = sorted(engine.findings.values(), key=_order)
    if own:
        turn_maps = engine.turn_maps
        for side, loaded in (("a", a), ("b", b)):
            other = b if side == "a" else a
            for f in run_checks(loaded):
                out.own.append(_sided(f, side, loaded, other, turn_maps))
    return out


def _order(f: SidedFinding) -> tuple[Any, ...]:
    a, b = f.a, f.b
    return (a.conversation or "" if a else "", -1 if a is None or a.turn is None else a.turn,
            -1 if b is None or b.turn is None else b.turn, f.code, f.side,
            -1 if a is None or a.part is None else a.part, a.pointer if a else "", f.message)


def _sided(f: Finding, side: str, loaded: Loaded, other: Loaded,
           turn_maps: dict[tuple[str, str], tuple[str, dict[int, int]]]) -> SidedFinding:
    here = Place(f.path, f.exchange, f.conversation, f.turn, f.part, f.pointer, f.chunk)
    there: Place | None = None
    mapped = turn_maps.get((side, f.conversation or ""))
    if mapped is not None:
        conversation, turns = mapped
        turn = turns.get(f.turn) if f.turn is not None else None
        node = other.conversation(conversation)
        source = node.turns[turn].source if node is not None and turn is not None \
            and turn < len(node.turns) else None
        there = Place(other.path, source.exchange if source else None, conversation, turn,
                      pointer=source.address if source else "")
    a, b = (here, there) if side == "a" else (there, here)
    return SidedFinding(f.code, f.name, f.severity, f.message, f.path, f.exchange, f.conversation,
                        f.turn, f.part, f.pointer, f.chunk, evidence=f.evidence, side=side, a=a, b=b)


__all__ = ["diff"]
