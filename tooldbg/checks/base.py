"""Rules, findings and the context a rule sees.

A rule is one module in `tooldbg/checks/rules/` (ruff's catalogue is the model): its docstring says
why the defect matters, and it defines

    CODE = "TD101"                  stable, never reused
    NAME = "orphan-result"          kebab-case
    SEVERITY = "error"              error | warning | info: the severity where the evidence is
                                    strongest (see HARM)
    HARM = "rejection"              what the defect harms, which says what sets the severity
                                    (`checks.evidence`): rejection | damage | symptom | target | verdict
    LOST = "the model …"            (rejection) what the model loses when the provider accepts it
    MESSAGE = "a result whose id matches no earlier call"   the one-line summary
    BAD = '''…'''  GOOD = '''…'''   a wire example showing the defect, and the same one mended
    TARGET = False                  True for TD8xx target pre-flight rules (run with --target)
    EXPORTS = True                  False for a rule that judges requests only, not the history an
                                    export writes (`convert`/`fix` report that in their losses)
    DIFF = False                    True for TD7xx rules: `tooldbg diff A B` reports them from two
                                    logs compared (`tooldbg/diff/`); their `check` finds nothing
    NEEDS = ()                      what the rule needs the log to carry (`tooldbg.lacking`): it is
                                    not run on a file whose format lacks it
    def check(ctx: Context) -> Iterable[Finding]

A rejection rule may define `refuses(ctx, target, conversation, turn) -> bool` (whether the provider
whose constraint table is `target` refuses that finding) and `REFUSED_BY` (who does, in words) when
the providers' error texts (`rejections.KNOWN`) cannot say it alone (TD307's reasoning).

Rules see the stitched conversations, each exchange's request and responses and the stream
fragments, through `Context`, and report with `ctx.at(...)`, which locates the finding from the
canonical node's source (file, exchange, JSON pointer, stream chunk) and judges its severity from
the evidence (`checks.evidence`), saying which in the message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import is_
from types import ModuleType
from typing import Any, TypeVar

from ..errors import InputError, unexpected
from ..load import Loaded
from ..model import Conversation, Part, Turn
from ..shorten import MESSAGE, one_line
from ..source import Side, Source
from ..timeline import ExchangeRead
from .evidence import HARMS, Refuses, described, judge

_T = TypeVar("_T")

SEVERITIES = ("info", "warning", "error")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


def same_start(before: Sequence[Turn], turns: Sequence[Turn]) -> int:
    """How many first turns of `turns` are the very objects `before` has at the same places: a
    request keeps the turn objects of the history it replays (`tooldbg.history`), so a rule walking
    each request can skip what the previous one showed it, at the cost of one identity check each."""
    same = list(map(is_, before, turns))
    return same.index(False) if False in same else len(same)


@dataclass(frozen=True, slots=True)
class Finding:
    """One defect a rule found, and where: the file, exchange, conversation, turn, part, pointer."""

    code: str
    name: str
    severity: str
    message: str
    path: str
    exchange: int | None = None
    conversation: str | None = None
    turn: int | None = None
    part: int | None = None
    pointer: str = ""
    chunk: int | None = None
    #: What set the severity (`checks.evidence`): rejected, target, provider, accepted, lenient,
    #: unknown, received, damaged or symptom.
    evidence: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "severity": self.severity,
                "message": self.message, "path": self.path, "exchange": self.exchange,
                "conversation": self.conversation, "turn": self.turn, "part": self.part,
                "pointer": self.pointer, "chunk": self.chunk, "evidence": self.evidence}

    def sort_key(self) -> tuple[Any, ...]:
        """Every field: two findings that differ only in exchange, pointer or chunk (a stream
        truncated in two exchanges) keep one order whatever order a set gave them in."""
        return (self.path, self.conversation or "", -1 if self.turn is None else self.turn,
                -1 if self.part is None else self.part, self.code, self.message,
                -1 if self.exchange is None else self.exchange, self.pointer,
                -1 if self.chunk is None else self.chunk, self.severity, self.name)


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule as its module declares it (`from_module`): its code, its words and its check."""

    code: str
    name: str
    severity: str
    message: str
    doc: str
    bad: str
    good: str
    check: Callable[[Context], Iterable[Finding]]
    harm: str
    target: bool = False
    diff: bool = False
    exports: bool = True
    needs: tuple[str, ...] = ()
    #: (harm "rejection") what the model loses when the provider accepts it anyway
    lost: str = ""
    refuses: Refuses | None = None
    refused_by: str = ""

    @classmethod
    def from_module(cls, module: ModuleType) -> Rule:
        harm = module.HARM
        if harm not in HARMS:
            raise ValueError(f"{module.CODE}: HARM {harm!r} is none of {', '.join(HARMS)}")
        return cls(code=module.CODE, name=module.NAME, severity=module.SEVERITY,
                   message=module.MESSAGE, doc=(module.__doc__ or "").strip(),
                   bad=module.BAD.strip("\n"), good=module.GOOD.strip("\n"), check=module.check,
                   harm=harm, target=getattr(module, "TARGET", False), diff=getattr(module, "DIFF", False),
                   exports=getattr(module, "EXPORTS", True), needs=tuple(getattr(module, "NEEDS", ())),
                   lost=getattr(module, "LOST", ""), refuses=getattr(module, "refuses", None),
                   refused_by=getattr(module, "REFUSED_BY", ""))


@dataclass(slots=True)
class Context:
    """What a rule sees of one input file. `rule` is set by the runner before each rule runs."""

    loaded: Loaded
    target: str | None = None
    rule: Rule | None = None
    #: Work several rules share (a replay pairing, a call index), computed once per run.
    memo: dict[str, Any] = field(default_factory=dict)
    #: The rules a rule may ask the findings of (`findings_of`), by code, and what each found.
    rules: Mapping[str, Rule] = field(default_factory=dict)
    found: dict[str, list[Finding]] = field(default_factory=dict)
    #: The last rule, by code, that asks for a memo entry (those `shared` was told of).
    _until: dict[str, str] = field(default_factory=dict)
    #: The first code of `_until`'s, if any: `passing` has nothing to let go until a rule after it.
    _soonest: str | None = None

    @property
    def conversations(self) -> list[Conversation]:
        return self.loaded.conversations

    @property
    def reads(self) -> list[ExchangeRead]:
        return self.loaded.reads

    def shared(self, key: str, compute: Callable[[], _T], until: str | None = None) -> _T:
        """`compute()` once per run for every rule that asks for `key` (with the same `compute`).
        `until`: the code of the last rule that asks; the entry is let go when the runner passes it
        (`passing`), so a long log's call index and pairing are not all held at once (a rule that
        asks later has it worked out again)."""
        if key not in self.memo:
            self.memo[key] = compute()
            if until is not None:
                self._until[key] = until
                if self._soonest is None or until < self._soonest:
                    self._soonest = until
        return self.memo[key]

    def passing(self, code: str) -> None:
        """The runner is about to run rule `code`: the memo entries of rules before it let go."""
        if self._soonest is None or self._soonest >= code:  # (most rules: none to let go)
            return
        for key in [k for k, last in self._until.items() if last < code]:
            del self.memo[key], self._until[key]
        self._soonest = min(self._until.values(), default=None)

    def findings_of(self, code: str) -> list[Finding]:
        """What rule `code` finds in this file: as the runner recorded it, or run now (TD901 asks for
        the rules a rejection names, whichever rules the user selected)."""
        if code not in self.found:
            rule = self.rules.get(code)
            if rule is None or set(self.loaded.lacks).intersection(rule.needs):
                return []  # (a rule the file's format cannot feed is not run: `Rule.needs`)
            running, self.rule = self.rule, rule
            try:
                self.found[code] = list(rule.check(self))
            except Exception as err:  # noqa: BLE001 - a rule's bug, reported as the runner reports one
                self.found[code] = []
                self.loaded.errors.append(InputError(self.loaded.path, "",
                                                     unexpected(err, f"rule {code} could not run")))
            finally:
                self.rule = running
        return self.found[code]

    def exchanges(self, conversation: Conversation) -> list[ExchangeRead]:
        """The exchanges stitched into `conversation`, in log order."""
        return self.loaded.reads_of(conversation.id)

    def parts(self, conversation: Conversation) -> Iterator[tuple[int, Turn, int, Part]]:
        """Every (turn index, turn, part index, part) of a conversation."""
        for t, turn in enumerate(conversation.turns):
            for p, part in enumerate(turn.parts):
                yield t, turn, p, part

    def at_exchange(self, read: ExchangeRead, message: str, *, side: Side = "response",
                    pointer: str = "", chunk: int | None = None, severity: str | None = None,
                    harm: str | None = None) -> Finding:
        """A finding about an exchange as a whole (a stream, a request body) rather than a turn."""
        wire = read.exchange.response if side == "response" else read.exchange.request
        source = Source(file=self.loaded.path, exchange=read.exchange.index, side=side,
                        location=wire.location if wire is not None else "", pointer=pointer)
        conversation = self.loaded.conversation(read.conversation) if read.conversation else None
        return self.at(message, conversation=conversation, source=source, chunk=chunk, severity=severity,
                       harm=harm)

    def at(self, message: str, *, conversation: Conversation | None = None, turn: int | None = None,
           part: int | None = None, source: Source | None = None, exchange: int | None = None,
           chunk: int | None = None, severity: str | None = None, harm: str | None = None) -> Finding:
        """A finding of the current rule, located by the canonical node it is about: `source`
        defaults to the part's (or the turn's) own source. Its severity is judged from the evidence
        (`checks.evidence`): `severity` is the rule's where the provider refuses it (its SEVERITY
        unless given), `harm` the rule's HARM unless given (TD401's misordered results are damage
        where the wire pairs them by position), and the message ends with what set it."""
        rule = self.rule
        assert rule is not None
        if source is None and conversation is not None and turn is not None:
            node = conversation.turns[turn]
            source = node.parts[part].source if part is not None else node.source
        source = source or Source()
        judged = judge(self, rule, severity or rule.severity, harm or rule.harm, conversation, turn, source)
        said = described(judged.says)
        return Finding(
            code=rule.code, name=rule.name, severity=judged.severity,
            # one bounded line, whatever it quotes, the evidence kept whole at its end
            message=one_line(message, MESSAGE - len(said)) + said,
            path=self.loaded.path, exchange=exchange if exchange is not None else source.exchange,
            conversation=conversation.id if conversation is not None else None, turn=turn, part=part,
            pointer=source.address, chunk=chunk if chunk is not None else source.chunk,
            evidence=judged.evidence)
