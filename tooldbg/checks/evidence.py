"""What sets a finding's severity: the evidence the log holds, not a guess at the worst.

Each rule says what its defect harms (`HARM` in its module):

* `rejection` — the provider refuses such a request. The finding is an error when the log holds
  that refusal of a request that sent it (`rejected`), when the request goes to a provider known
  to refuse it (`target`: `--target`; `provider`: told from the URL's host or the model name,
  `tooldbg.formats.providers`, and known to refuse it: a row of `rejections.KNOWN` in its words, or for
  reasoning its table in `tooldbg.targets`), or when the part came in a response no request has
  sent on (`received`: the client got it so). When the log shows the provider accepted a request
  that sent it, it is at most a warning that says what the model lost (`accepted`); with the
  provider known but not known to refuse it, or unknown, a warning naming those that refuse it
  (`lenient`, `unknown`). A rule may find a form lenient itself (results paired by id across the
  Responses input, TD402): then it is a warning, not documented as refused there (`lenient`).
* `damage` — the data the model or the client received is damaged (arguments encoded twice, a
  result under the wrong id, a stream that does not assemble): the rule's severity, whatever the
  provider answered (`damaged`).
* `symptom` — what the log suggests rather than shows (a call repeated, ids renumbered): the rule's
  severity, a warning or an info (`symptom`).
* `target` — a TD8xx rule: the target named is the provider that refuses it (`target`).
* `verdict` — the provider's own rejection (TD901): it is the evidence (`rejected`).

The message of every finding ends with the evidence that set its severity (`— error: …`), and the
finding carries its kind (`Finding.evidence`). The requests that sent a part are found by identity:
a stitched request keeps the turn objects of the history it replays (`tooldbg.history`), so a turn
is sent by every request whose history holds that very object — in any conversation of the file, so
a rejected branch and its retry judge a shared turn alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..formats.providers import BY_KEY, Identity, by_target, claude, identify
from ..load import Loaded
from ..model import Conversation, Turn
from ..shorten import plain
from ..source import Source
from ..timeline import ExchangeRead
from .rejections import KNOWN, Rejection, explaining, not_the_history, rejections

_T = TypeVar("_T")

#: What a rule's defect harms (see the module docstring).
HARMS = ("rejection", "damage", "symptom", "target", "verdict")

#: A rule's own test of whether the provider whose constraint table is `target` (`tooldbg.targets`)
#: refuses the finding at (conversation, turn) in a request that sent `history` (the turns of the
#: timeline it carried): TD307's reasoning depends on the model and on the turn's place.
Refuses = Callable[[Any, str, Conversation | None, int | None, Sequence[Turn]], bool]


class Judging(Protocol):
    """What of a rule's context the judgement reads (`checks.base.Context`)."""

    loaded: Loaded
    target: str | None

    @property
    def reads(self) -> list[ExchangeRead]: ...

    def exchanges(self, conversation: Conversation) -> list[ExchangeRead]: ...

    def shared(self, key: str, compute: Callable[[], _T]) -> _T: ...


class RuleFacts(Protocol):
    """What of a rule the judgement reads (`checks.base.Rule`)."""

    @property
    def code(self) -> str: ...

    @property
    def lost(self) -> str: ...

    @property
    def refuses(self) -> Refuses | None: ...

    @property
    def refused_by(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Judged:
    """A finding's severity, the kind of evidence that set it, and the clause its message ends with."""

    severity: str
    evidence: str
    says: str


_RANK = {"info": 0, "warning": 1, "error": 2}


def _at_most(severity: str, cap: str) -> str:
    return severity if _RANK[severity] <= _RANK[cap] else cap


def judge(ctx: Judging, rule: RuleFacts, severity: str, harm: str, conversation: Conversation | None,
          turn: int | None, source: Source) -> Judged:
    """The severity of a finding of `rule` at (conversation, turn) or `source`; `severity` is what the
    rule gives it where the provider refuses it (a rule may lower it: a warning where a format
    pairs results loosely)."""
    if harm == "verdict":
        return Judged(severity, "rejected", "")
    if harm == "target":
        return Judged(severity, "target", "")
    if harm == "damage":
        return Judged(severity, "damaged", f"{severity}: the data received is damaged, whatever the "
                                           "provider answered")
    if harm == "symptom":
        return Judged(severity, "symptom", f"{severity}: a sign the log shows, not a rejection")
    return _rejection(ctx, rule, severity, conversation, turn, source)


def _rejection(ctx: Judging, rule: RuleFacts, severity: str, conversation: Conversation | None,
               turn: int | None, source: Source) -> Judged:
    sent = _senders(ctx, conversation, turn, source)
    outcomes = [(read, _outcome(ctx, read)) for read in sent or ()]
    for read, outcome in outcomes:
        if isinstance(outcome, Rejection) and _blames(outcome, rule.code):
            return Judged("error", "rejected",
                          f"error: the provider rejected exchange {read.exchange.index}, which sent it")
    if ctx.target is not None and severity == "error":
        identity = by_target(ctx.target)
        if identity is not None and _refuses(ctx, rule, identity, ctx.target, conversation, turn,
                                             _history(ctx, sent, conversation)):
            return Judged(severity, "target", f"{severity}: {ctx.target} rejects it (--target)")
    accepted = next((read for read, outcome in outcomes if outcome == "accepted"), None)
    if accepted is not None:
        lowered = _at_most("warning", severity)
        return Judged(lowered, "accepted", f"{lowered}: accepted by the provider (exchange "
                                           f"{accepted.exchange.index}); {rule.lost}")
    if sent is not None and not sent:
        return Judged(severity, "received", f"{severity}: it came in the provider's response, and no "
                                            "request in the log sends it on")
    fmt = sent[-1].format if sent else None
    if severity != "error":  # the rule itself finds this format does not refuse it (TD402 on Responses)
        return Judged(severity, "lenient", f"{severity}: not documented as refused"
                                           + (f" in {fmt}" if fmt else ""))
    identity = _identity(ctx, sent[-1] if sent else None, conversation)
    if identity is not None:
        target = identity.provider.target(fmt)
        if _refuses(ctx, rule, identity, target, conversation, turn, _history(ctx, sent, conversation)):
            return Judged(severity, "provider", f"{severity}: {identity.provider.name} rejects it "
                                                f"({identity.how})")
    lowered = _at_most("warning", severity)
    others, many = _refusing(rule, identity.provider.key if identity is not None else None)
    if identity is not None:
        named = f"{identity.provider.name} ({identity.how}) is not known to reject it"
        return Judged(lowered, "lenient", f"{lowered}: {named}"
                                          + (f"; {others} {'do' if many else 'does'}" if others else ""))
    if others:
        return Judged(lowered, "unknown", f"{lowered}: the provider is not known; {others} "
                                          f"{'reject' if many else 'rejects'} it")
    return Judged(lowered, "unknown", f"{lowered}: the provider is not known, nor one that rejects it")


def _senders(ctx: Judging, conversation: Conversation | None, turn: int | None,
             source: Source) -> list[ExchangeRead] | None:
    """The requests that sent the part, in log order; None for a history at rest (a canonical
    document: no exchange at all), [] for a part only a response holds. A turn is sent by a request
    of any conversation whose timeline holds that very turn there (a rejected branch shares its
    prefix with the conversation it left), the request carrying it unchanged."""
    if conversation is not None and not ctx.exchanges(conversation):
        return None
    if conversation is not None and turn is not None:
        node = conversation.turns[turn]
        sharing = [c for c in ctx.loaded.conversations if len(c.turns) > turn and c.turns[turn] is node]
        equal: dict[int, bool] = {}  # (requests that replay one history share its turn objects)
        found = {id(r): r for c in sharing for r in ctx.exchanges(c) if _sends(r, turn, node, equal)}
        return sorted(found.values(), key=lambda r: r.exchange.index)
    if source.side == "request" and source.exchange is not None and 0 <= source.exchange < len(ctx.reads):
        return [ctx.reads[source.exchange]]
    return []


def on_request(ctx: Judging, read: ExchangeRead, conversation: str | None, turn: int | None,
               exchange: int | None) -> bool:
    """Is a finding at (conversation, turn) about what `read`'s request sent? Without a turn, is it
    at that exchange?"""
    found = ctx.loaded.conversation(conversation) if conversation is not None else None
    if found is None or turn is None or turn >= len(found.turns):
        return exchange == read.exchange.index
    return any(r is read for r in _senders(ctx, found, turn, Source()) or ())


def _sends(read: ExchangeRead, t: int, node: Turn, equal: dict[int, bool]) -> bool:
    """Does the request send turn `t` of its conversation's timeline as `node` (stored by the
    provider before its own turns, or among them unchanged)? `equal`: by id, whether each turn
    object compared with `node` equals it. A turn that is `node` but for its identity (a response's
    turn, and its replay that every later request sends) is compared in full once, not once for
    each of those requests."""
    if read.request is None or t >= read.sent:
        return False
    if t < read.stored:
        return True
    mine = read.request.turns[t - read.stored]
    if mine is node:
        return True
    same = equal.get(id(mine))
    if same is None:
        same = equal[id(mine)] = mine == node
    return same


def _outcome(ctx: Judging, read: ExchangeRead) -> Rejection | str | None:
    """The provider's answer to a request: its rejection (not a rate limit or an outage), `accepted`
    (an answer came), or None (no answer in the log, or one that says nothing of the request)."""
    found = ctx.shared("evidence.rejections", lambda: _by_exchange(ctx))
    rejection = found.get(read.exchange.index)
    if rejection is not None:
        return None if not_the_history(rejection.error, rejection.status) else rejection
    return "accepted" if any(r.turn is not None and r.error is None for r in read.responses) else None


def _by_exchange(ctx: Judging) -> dict[int, Rejection]:
    return {r.exchange: r for r in reversed(list(rejections(ctx.loaded)))}


def _blames(rejection: Rejection, code: str) -> bool:
    """Does the rejection point at this rule, or at nothing tooldbg knows (then the defect found on
    the request it refused may well be why)?"""
    named = explaining(rejection.error.message)
    return not named or code in named


def _identity(ctx: Judging, read: ExchangeRead | None, conversation: Conversation | None) -> Identity | None:
    """The provider a request went to (its URL, its model); for a history at rest, its model."""
    if read is not None:
        message = read.exchange.request
        model = read.request.model if read.request is not None else None
        return identify(message.url if message is not None else None, model or _model(conversation))
    return identify(None, _model(conversation))


def _model(conversation: Conversation | None) -> str | None:
    return conversation.model if conversation is not None else None


def _history(ctx: Judging, sent: list[ExchangeRead] | None,
             conversation: Conversation | None) -> Sequence[Turn]:
    """The turns the latest request that sent the part carried (a history at rest: all of them)."""
    read = sent[-1] if sent else None
    own = ctx.loaded.conversation(read.conversation) if read is not None and read.conversation else None
    if read is not None and own is not None:
        return read.history(own)
    return conversation.turns if conversation is not None else ()


def _refuses(ctx: Judging, rule: RuleFacts, identity: Identity, target: str | None,
             conversation: Conversation | None, turn: int | None, history: Sequence[Turn]) -> bool:
    """Is the provider known to refuse what the rule found: by its own table (the rule's `refuses`),
    else by a row of its words that names the rule? Bedrock and Vertex AI answer for Claude models
    with Anthropic's words."""
    if rule.refuses is not None:
        return target is not None and rule.refuses(ctx, target, conversation, turn, history)
    keys = {identity.provider.key}
    if identity.provider.serves_claude and claude(_model(conversation)):
        keys.add("anthropic")
    return any(rule.code in known.codes and keys & set(known.providers) for known in KNOWN)


def _refusing(rule: RuleFacts, but: str | None) -> tuple[str, bool]:
    """The providers known to refuse what the rule finds, by name (`Anthropic, OpenAI and Amazon
    Bedrock`), but the one already named (`but`), and whether they are several."""
    if rule.refuses is not None:
        return rule.refused_by, True
    keys = dict.fromkeys(k for known in KNOWN if rule.code in known.codes
                         for k in known.providers if k != but)
    names = [BY_KEY[k].name for k in keys if k in BY_KEY]
    if len(names) > 1:
        return " and ".join((", ".join(names[:-1]), names[-1])), True
    return "".join(names), False


def described(clause: str) -> str:
    """The evidence clause as a message ends with it."""
    return f" — {plain(clause, 300)}" if clause else ""


def undescribed(message: str, severity: str) -> str:
    """A finding's `message` without the evidence clause `described` ended it with (the clause
    names the finding's `severity` first)."""
    at = message.rfind(f" — {severity}: ")
    return message[:at] if at >= 0 else message
