"""How `diff` compares what it paired (step 4 of the package's docstring): each pair of units and of
tool declarations, each unit left unpaired, as TD701–TD705 findings and notes, in words that name
the parts.

Direction: a is upstream of b for a request (the client sent a, the relay sent b on) and b upstream
of a for a response (the provider answered b, the relay passed a back). A part one side lacks was
lost on the way when the side upstream has it (TD703), and added on the way when only the side
downstream has it (TD705): in a request, a part only b has was added by the relay; in a response, a
part only a has was added on the way back. What was added sets the severity (`_ADDED`), and the
sentinels relays add on purpose, documented by the provider (Gemini's dummy thought signatures), are
notes."""

from __future__ import annotations

import base64
import binascii
from collections import defaultdict
from typing import Any

from .. import formats
from ..checks import RULES
from ..checks.failures import failure_report
from ..checks.replay import first_difference, resolve_pointer, snippet
from ..jsonio import dumps_str
from ..model import Conversation, Invocation, Media, Reasoning, Result, Tool
from ..shorten import clip
from ..source import Source
from .align import _align, _pair_snapshots, _rows
from .results import Diff, Note, Pairing, Place, SidedFinding
from .units import FOLDED, _args_key, _payload, _prepare, _reads, _Snapshot, _snapshots, _Unit


class _Engine:
    def __init__(self, out: Diff) -> None:
        self.out = out
        self.findings: dict[tuple[Any, ...], SidedFinding] = {}
        #: (side, conversation) → (the other side's conversation, this side's turn → the other's).
        self.turn_maps: dict[tuple[str, str], tuple[str, dict[int, int]]] = {}
        # Per conversation pair: call ids a → b and back, tool names rewritten, failure flags said
        # in the text of a format without one.
        self.ids: dict[str, set[str]] = defaultdict(set)
        self.ids_back: dict[str, set[str]] = defaultdict(set)
        self.names: set[tuple[str, str]] = set()
        self.excused: set[tuple[str, str]] = set()
        self.paired: dict[str, str] = {}

    # -- a conversation pair

    def conversation(self, ca: Conversation, cb: Conversation) -> None:
        out = self.out
        whole = not _reads(out.a, ca) or not _reads(out.b, cb)
        sa = _prepare(_snapshots(out.a, ca, whole))
        sb = _prepare(_snapshots(out.b, cb, whole))
        pairing = Pairing(ca.id, cb.id)
        self.ids, self.ids_back = defaultdict(set), defaultdict(set)
        self.names, self.excused = set(), set()
        turn_pairs: set[tuple[int, int]] = set()
        for xa, xb in _pair_snapshots(sa, sb):
            pairing.exchanges.append((xa.exchange if xa else None, xb.exchange if xb else None))
            if xa is None or xb is None:
                present = xa or xb
                assert present is not None
                side = "a" if xa else "b"
                other = "b" if xa else "a"
                if present.read is not None:
                    out.notes.append(Note(f"{side}'s exchange {present.exchange} has no counterpart in "
                                          f"{other} (a retry, or an exchange the other side never saw)",
                                          **{side: Place(present.loaded.path, present.exchange,
                                                         present.conversation.id)}))
                continue
            turn_pairs |= self.exchange(xa, xb)
        pairing.turns = _rows(turn_pairs, len(ca.turns), len(cb.turns))
        out.pairings.append(pairing)
        forward = {ta: tb for ta, tb in pairing.turns if ta is not None and tb is not None}
        self.turn_maps[("a", ca.id)] = (cb.id, forward)
        self.turn_maps[("b", cb.id)] = (ca.id, {tb: ta for ta, tb in forward.items()})
        self._id_notes(ca, cb)
        if ca.model and cb.model and ca.model != cb.model:
            out.notes.append(Note(f"model {ca.model!r} on a is {cb.model!r} on b"))
        system_a = _payload(ca.system)
        system_b = _payload(cb.system)
        if system_a != system_b:
            out.notes.append(Note("the system prompt differs between a and b (not compared further)"))

    def _id_notes(self, ca: Conversation, cb: Conversation) -> None:
        if self.ids:
            consistent = all(len(v) == 1 for v in self.ids.values()) and \
                all(len(v) == 1 for v in self.ids_back.values())
            shown = ", ".join(f"{x} → {'/'.join(sorted(y))}" for x, y in list(self.ids.items())[:3])
            more = f", … ({len(self.ids) - 3} more)" if len(self.ids) > 3 else ""
            if consistent:
                self.out.notes.append(Note(f"call ids rewritten consistently between a's {ca.id} and b's "
                                           f"{cb.id} ({len(self.ids)}): {shown}{more}; every result "
                                           "still answers its call"))
            else:
                self.out.notes.append(Note(f"call ids rewritten between a's {ca.id} and b's {cb.id}, not "
                                           f"one for one: {shown}{more} (results are compared by the "
                                           "call they answer)"))
        for name_a, name_b in sorted(self.names):
            self.out.notes.append(Note(f"tool name {name_a!r} on a is {name_b!r} on b"))
        for what, fmt in sorted(self.excused):
            self.out.notes.append(Note(f"{what}: its failure flag is said in the text on the {fmt} side, "
                                       "which has no flag"))

    # -- an exchange pair

    def exchange(self, xa: _Snapshot, xb: _Snapshot) -> set[tuple[int, int]]:
        self.tools(xa, xb)
        pairs = _align(xa, xb)
        turn_pairs = {(ua.turn, ub.turn) for ua, ub in pairs if ua is not None and ub is not None}
        #: a's call → the b call paired with it (their own ids): a result answering the pair answers
        #: the same call, whatever its arguments became (a difference of the call's, reported there)
        self.paired = {ua.node.id: ub.node.id for ua, ub in pairs if ua is not None and ub is not None
                       and isinstance(ua.node, Invocation) and isinstance(ub.node, Invocation)}
        for ua, ub in pairs:
            if ua is not None and ub is not None:
                self.compare(xa, xb, ua, ub)
            elif ua is not None:
                self.missing("b", xa, xb, ua, turn_pairs)
            elif ub is not None:
                self.missing("a", xb, xa, ub, turn_pairs)
        return turn_pairs

    def compare(self, xa: _Snapshot, xb: _Snapshot, ua: _Unit, ub: _Unit) -> None:
        receiver = "a" if ua.direction == "response" else "b"
        na, nb = ua.node, ub.node
        if isinstance(na, Invocation) and isinstance(nb, Invocation):
            if na.wire_id and nb.wire_id and na.wire_id != nb.wire_id:
                self.ids[na.wire_id].add(nb.wire_id)
                self.ids_back[nb.wire_id].add(na.wire_id)
            if na.name != nb.name:
                self.names.add((na.name, nb.name))
            if _args_key(na) != _args_key(nb):
                self.report("TD704", receiver, xa, xb, ua, ub, _arguments_changed(na, nb))
            return
        if ua.sig == ub.sig and ua.kind == ub.kind:
            return
        if isinstance(na, Result) and isinstance(nb, Result):
            self.result(xa, xb, ua, ub, receiver)
        elif ua.kind == "text" and ub.kind == "text":
            if ua.joined or ub.joined:
                return  # texts merged into one on one side, split on the other (`_joined`)
            self.report("TD703", receiver, xa, xb, ua, ub,
                        f"{_what(ua)} differs: a {snippet(ua.text)}, b {snippet(ub.text)}")
        elif isinstance(na, Media) and isinstance(nb, Media):
            self.report("TD703", receiver, xa, xb, ua, ub,
                        f"{_what(ua)} is another {nb.kind} on {'b' if receiver == 'b' else 'a'}")
        elif ua.kind == "reasoning" and ub.kind == "reasoning":
            if ua.text and ub.text and ua.text != ub.text:
                self.report("TD703", receiver, xa, xb, ua, ub,
                            f"reasoning differs: a {snippet(ua.text)}, b {snippet(ub.text)}")

    def result(self, xa: _Snapshot, xb: _Snapshot, ua: _Unit, ub: _Unit, receiver: str) -> None:
        ra, rb = ua.node, ub.node
        assert isinstance(ra, Result) and isinstance(rb, Result)
        pa, pb = _payload(ra.content), _payload(rb.content)
        texts_a = [t for t in pa if isinstance(t, str)]
        texts_b = [t for t in pb if isinstance(t, str)]
        if ra.is_error != rb.is_error:
            lacking, flagged = ("b", ua) if ra.is_error else ("a", ub)
            snap, node = (xb, rb) if lacking == "b" else (xa, ra)
            mine, theirs = (texts_b, texts_a) if lacking == "b" else (texts_a, texts_b)
            said = failure_report(node.content)
            folded = _unfold(mine, theirs) and mine == theirs
            fmt = snap.format
            if fmt is not None and formats.facts(fmt).failure == "text" and said:
                self.excused.add((_what(flagged), fmt))
            elif lacking == "a":  # results ride in requests: a flag only b has, the relay added
                severity, means = _ADDED["flag"]
                self.report("TD705", "b", xa, xb, ua, ub,
                            f"{_what(flagged)} is marked as a failure (is_error) on b but not on a: added by "
                            f"the relay (b is downstream of a in a request) — {severity}: {means}",
                            severity=severity)
            else:
                other = "a" if lacking == "b" else "b"
                self.report("TD703", lacking, xa, xb, ua, ub,
                            f"{_what(flagged)} is marked as a failure (is_error) on {other} but not on "
                            f"{lacking}{', only said in its text' if folded else ''}: the model reads the "
                            "failure as the tool's answer")
        lost = [m for m in pa if isinstance(m, tuple) and m not in pb]
        gained = [m for m in pb if isinstance(m, tuple) and m not in pa]
        for media in lost:
            self.report("TD703", "b", xa, xb, ua, ub, f"the {media[1]} in {_what(ua)} is on a but not on b")
        for media in gained:  # results ride in requests: what only b has, the relay added
            severity, means = _ADDED["media"]
            self.report("TD705", "b", xa, xb, ua, ub,
                        f"the {media[1]} in {_what(ub)} is on b but not on a: added by the relay (b is "
                        f"downstream of a in a request) — {severity}: {means}", severity=severity)
        if texts_a != texts_b:
            shown_a, shown_b = " ".join(texts_a), " ".join(texts_b)
            if shown_a and not shown_b:
                self.report("TD703", "b", xa, xb, ua, ub,
                            f"the content of {_what(ua)} is on a but not on b (an empty result)")
            elif shown_b and not shown_a:
                self.report("TD703", "a", xa, xb, ua, ub,
                            f"the content of {_what(ub)} is on b but not on a (an empty result)")
            else:
                self.report("TD703", receiver, xa, xb, ua, ub,
                            f"the content of {_what(ua)} differs: a {snippet(shown_a)}, b {snippet(shown_b)}")
        if ua.call is not None and ub.call is not None and self.paired.get(ua.call.id) != ub.call.id and \
                (ua.call.name, _args_key(ua.call)) != (ub.call.name, _args_key(ub.call)):
            self.report("TD703", receiver, xa, xb, ua, ub,
                        f"{_what(ua)} answers {_call(ua.call)} on a but {_call(ub.call)} on b")

    def missing(self, side: str, present: _Snapshot, lacking: _Snapshot, unit: _Unit,
                turn_pairs: set[tuple[int, int]]) -> None:
        """`unit`, on the other side, has no counterpart on `side`: lost on the way when `side` is
        downstream (b for a request, a for a response), else added on the way (`added`)."""
        other = "b" if side == "a" else "a"
        # a canonical document has no wire, hence no direction: what it lacks was lost
        wired = present.read is not None and lacking.read is not None
        if wired and (unit.direction == "request") == (side == "a"):
            self.added(other, present, lacking, unit, turn_pairs)
            return
        where = f"{other}'s {unit.direction}"
        message = f"{_what(unit)} is in {where} but not in {side}'s"
        if unit.kind == "result":
            message += ": its call is left unanswered there"
        elif unit.kind == "call":
            message += ": the call is never made there"
        xa, xb = (present, lacking) if other == "a" else (lacking, present)
        ua, ub = (unit, None) if other == "a" else (None, unit)
        counterpart = _counterpart(unit.turn, other, turn_pairs)
        self.report("TD703", side, xa, xb, ua, ub, message, lacking_turn=counterpart)

    def added(self, side: str, present: _Snapshot, lacking: _Snapshot, unit: _Unit,
              turn_pairs: set[tuple[int, int]]) -> None:
        """`unit` is only on `side`, downstream of the other: added on the way, by the relay (a
        request) or on the way back (a response). A sentinel the provider documents is a note. The
        other side's place is the turn paired with the unit's, as for a loss."""
        how = "by the relay (b is downstream of a in a request)" if unit.direction == "request" else \
            "on the way back (a is downstream of b in a response)"
        where = Place(present.loaded.path, present.exchange, present.conversation.id, unit.turn, unit.part,
                      unit.node.source.address, unit.node.source.chunk)
        sentinel = _sentinel(unit.node)
        if sentinel is not None:
            self.out.notes.append(Note(f"{_what(unit)} on {side} is {sentinel}, added {how} on purpose",
                                       **{side: where}))
            return
        kind = "answer" if unit.kind == "text" and unit.direction == "response" else unit.kind
        severity, means = _ADDED.get(kind, _ADDED["text"])
        other = "a" if side == "b" else "b"
        xa, xb = (present, lacking) if side == "a" else (lacking, present)
        ua, ub = (unit, None) if side == "a" else (None, unit)
        self.report("TD705", side, xa, xb, ua, ub,
                    f"{_what(unit)} is in {side}'s {unit.direction} but not in {other}'s: added {how} — "
                    f"{severity}: {means}", lacking_turn=_counterpart(unit.turn, side, turn_pairs),
                    severity=severity)

    # -- tools

    def tools(self, xa: _Snapshot, xb: _Snapshot) -> None:
        if xa.read is not None and xa.read.request is None or xb.read is not None and xb.read.request is None:
            return  # a response-only capture says nothing about what was declared
        by_a = {t.name: t for t in xa.tools}
        by_b = {t.name: t for t in xb.tools}
        for name, tool in by_a.items():
            if name not in by_b:
                self.report_tool("TD701", "b", xa, xb, tool, None,
                                 f"tool {name!r} is declared in a's request but not in b's: the model "
                                 "cannot call it")
        for name, tool in by_b.items():
            if name not in by_a:
                self.report_tool("TD701", "a", xa, xb, None, tool,
                                 f"tool {name!r} is declared in b's request but not in a's")
        for name in [n for n in by_a if n in by_b]:
            ta, tb = by_a[name], by_b[name]
            for side, lost in (("b", _simplified(ta.parameters, tb.parameters)),
                               ("a", _simplified(tb.parameters, ta.parameters))):
                if lost:
                    other = "a" if side == "b" else "b"
                    self.report_tool("TD702", side, xa, xb, ta, tb,
                                     f"tool {name!r} has a simpler schema on {side} than on {other}: "
                                     + "; ".join(lost))
        forced = ("required", "tool")
        for side, mine, theirs in (("b", xa.tool_choice, xb.tool_choice),
                                   ("a", xb.tool_choice, xa.tool_choice)):
            if mine is not None and mine.mode in forced and (theirs is None or theirs.mode not in forced):
                other = "a" if side == "b" else "b"
                what = f"the tool {mine.name!r}" if mine.mode == "tool" and mine.name else "a tool call"
                self.report_tool("TD701", side, xa, xb, None, None,
                                 f"{other}'s request forces {what} (tool_choice), {side}'s does not: the "
                                 "model may answer with text")

    def report_tool(self, code: str, side: str, xa: _Snapshot, xb: _Snapshot, ta: Tool | None,
                    tb: Tool | None, message: str) -> None:
        places = []
        for snap, tool in ((xa, ta), (xb, tb)):
            source = tool.source if tool is not None and tool.source.exchange is not None else None
            places.append(Place(snap.loaded.path, snap.exchange, snap.conversation.id,
                                pointer=source.address if source else snap.request_body()))
        self._add(code, side, message, places[0], places[1], key=(code, side, message))

    # -- reporting

    def report(self, code: str, side: str, xa: _Snapshot, xb: _Snapshot, ua: _Unit | None,
               ub: _Unit | None, message: str, lacking_turn: int | None = None,
               severity: str | None = None) -> None:
        pa = _place(xa, ua, lacking_turn if ua is None else None)
        pb = _place(xb, ub, lacking_turn if ub is None else None)
        key = (code, side, message, pa.conversation, pa.turn, pa.part, pb.conversation, pb.turn, pb.part)
        self._add(code, side, message, pa, pb, key, severity)

    def _add(self, code: str, side: str, message: str, pa: Place, pb: Place, key: tuple[Any, ...],
             severity: str | None = None) -> None:
        if key in self.findings:
            return
        rule = RULES[code]
        here = pa if side == "a" else pb
        severity = severity or rule.severity
        if code != "TD705":  # an addition says what was added, and what that means, itself
            message += f" — {severity}: lost or changed on the way"
        self.findings[key] = SidedFinding(
            code, rule.name, severity, message, here.path, here.exchange, here.conversation,
            here.turn, here.part, here.pointer, here.chunk, evidence="damaged", side=side, a=pa, b=pb)


def _place(snap: _Snapshot, unit: _Unit | None, turn: int | None) -> Place:
    if unit is not None:
        source = unit.node.source
        return Place(snap.loaded.path, source.exchange if source.exchange is not None else snap.exchange,
                     snap.conversation.id, unit.turn, unit.part, source.address, source.chunk)
    if turn is not None:
        node = next((t for i, t, _ in snap.turns if i == turn), None)
        source = node.source if node is not None else Source()
        return Place(snap.loaded.path, snap.exchange, snap.conversation.id, turn,
                     pointer=source.address or snap.request_body())
    return Place(snap.loaded.path, snap.exchange, snap.conversation.id, pointer=snap.request_body())


def _counterpart(turn: int, side: str, turn_pairs: set[tuple[int, int]]) -> int | None:
    """The turn on the other side paired with `side`'s `turn` (the first, when it was split)."""
    if side == "a":
        found = sorted(tb for ta, tb in turn_pairs if ta == turn)
    else:
        found = sorted(ta for ta, tb in turn_pairs if tb == turn)
    return found[0] if found else None


def _unfold(text: list[Any], other: list[Any]) -> bool:
    """Remove the `Error: ` (or a lone `Error` item) a translation put before a failed result's text
    in place of its flag; True when there was one."""
    if not text or not isinstance(text[0], str) or (other and text[0] == other[0]):
        return False
    unfolded = FOLDED.sub("", text[0], count=1)
    if unfolded == text[0]:
        return False
    if unfolded:
        text[0] = unfolded
    else:
        del text[0]
    return True


# ------------------------------------------------------------------------------ what was added

#: A part added on the way, by its kind: the severity, and what it means for the model or client.
_ADDED: dict[str, tuple[str, str]] = {
    "result": ("error", "the model reads a result no tool produced for the client"),
    "call": ("error", "a call the model never made, which the client may run"),
    "text": ("warning", "words the model reads as the client's, which they are not"),
    "answer": ("warning", "words the client reads as the model's, which they are not"),
    "media": ("warning", "an image or file the client never sent"),
    "flag": ("error", "the model reads as a failure what the client sent as the tool's answer"),
    "reasoning": ("warning", "reasoning (or a signature) the model did not produce: the provider may "
                             "reject it or read it as its own"),
}

#: Values a provider documents for clients (and relays) to send on purpose in place of what they
#: cannot have: Gemini accepts these as a function call's thought signature when the history comes
#: from another model ("…you can set the following dummy signatures of either
#: "context_engineering_is_the_way_to_go" or "skip_thought_signature_validator"",
#: https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ; Vertex AI:
#: https://cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures).
SENTINELS = {"skip_thought_signature_validator": "Gemini's documented dummy thought signature",
             "context_engineering_is_the_way_to_go": "Gemini's documented dummy thought signature"}


def _sentinel(node: Any) -> str | None:
    """What a documented sentinel signature is (its name), or None: the value as written, or
    base64 of it (some relays encode it as they would a real signature)."""
    signature = node.signature if isinstance(node, Reasoning) else None
    if not signature:
        return None
    for value in (signature, _decoded(signature)):
        if value in SENTINELS:
            return f"{SENTINELS[value]} {value!r}"
    return None


def _decoded(value: str) -> str | None:
    try:
        return base64.b64decode(value, validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


# --------------------------------------------------------------------------------- descriptions


def _call(call: Invocation) -> str:
    return f"the call to {call.name!r}" + (f" ({call.wire_id})" if call.wire_id else "")


def _what(unit: _Unit) -> str:
    node = unit.node
    if isinstance(node, Invocation):
        return f"{_call(node)} {snippet(_args_text(node), 50)}"
    if isinstance(node, Result):
        name = unit.call.name if unit.call is not None else node.name
        ident = f" ({node.wire_id})" if node.wire_id else ""
        text = " ".join(t for t in _payload(node.content) if isinstance(t, str))
        return f"the result of {name!r}{ident}" + (f" {snippet(text, 40)}" if text else "")
    if isinstance(node, Media):
        where = "the result" if unit.role == "tool" else f"the {unit.role} turn"
        return f"the {node.kind}{f' ({node.media_type})' if node.media_type else ''} in {where}"
    if isinstance(node, Reasoning):
        return "the reasoning" + (f" {snippet(unit.text, 40)}" if unit.text else "") + \
            (" (signed)" if node.signature else "")
    if unit.role == "assistant":
        return f"the assistant's text {snippet(unit.text, 50)}"
    return f"the {unit.role}'s text {snippet(unit.text, 50)}"


def _args_text(call: Invocation) -> str:
    return call.raw_arguments if call.raw_arguments is not None else dumps_str(call.arguments)


def _arguments_changed(a: Invocation, b: Invocation) -> str:
    what = _call(a) + (f" / {b.wire_id}" if b.wire_id and b.wire_id != a.wire_id else "")
    if a.raw_arguments is not None or b.raw_arguments is not None:
        return (f"the arguments of {what} differ: a {snippet(_args_text(a), 50)}, "
                f"b {snippet(_args_text(b), 50)}")
    pointer = first_difference(a.arguments, b.arguments) or ""
    va, vb = resolve_pointer(a.arguments, pointer), resolve_pointer(b.arguments, pointer)
    return (f"the arguments of {what} differ at {pointer or '/'}: a {_value(va)}, b {_value(vb)}")


def _value(value: Any) -> str:
    from ..checks.replay import MISSING

    if value is MISSING:
        return "(missing)"
    return clip(dumps_str(value), 60)


def _simplified(full: Any, other: Any, path: str = "") -> list[str]:
    """What `other` lacks of `full`, among the keywords that constrain a call: properties, required
    fields, enums (at any depth)."""
    if not isinstance(full, dict):
        return []
    other = other if isinstance(other, dict) else {}
    lost: list[str] = []
    props = full.get("properties")
    theirs = other.get("properties") if isinstance(other.get("properties"), dict) else {}
    if isinstance(props, dict):
        gone = [k for k in props if k not in theirs]
        if gone and not theirs and props:
            lost.append(f"every parameter removed ({', '.join(map(_name, gone))})" if not path
                        else f"the parameters of {_name(path)} removed ({', '.join(map(_name, gone))})")
        elif gone:
            lost.extend(f"parameter {_name(path + k)} removed" for k in gone)
        for k, sub in props.items():
            if k in theirs:
                lost.extend(_simplified(sub, theirs[k], f"{path}{k}."))
    required = full.get("required")
    if isinstance(required, list):
        kept = other.get("required") if isinstance(other.get("required"), list) else []
        gone_props = set(props) - set(theirs) if isinstance(props, dict) else set()
        lost.extend(f"required {_name(path + str(k))} removed" for k in required
                    if k not in kept and k not in gone_props)
    enum = full.get("enum")
    if isinstance(enum, list):
        kept = other.get("enum")
        where = _name(path.rstrip(".")) if path else "the arguments"
        if not isinstance(kept, list):
            lost.append(f"the enum of {where} removed ({', '.join(map(dumps_str, enum[:4]))})")
    items = full.get("items")
    if isinstance(items, dict):
        lost.extend(_simplified(items, other.get("items"), f"{path.rstrip('.')}[]."))
    return lost


def _name(path: str) -> str:
    return repr(path.rstrip("."))
