"""Logs that record each turn once, as it happens — an agent's own session file — built into
conversations.

A wire capture holds requests that each replay the history; an agent's session file (a Claude Code
transcript, a Codex rollout) holds each message once, a record a line. So the conversation is built
as the log goes, the way `tooldbg.chains` stitches a Responses chain: each model call is an exchange
whose request holds only the turns sent since the previous answer, `stored` counting the turns
before them, and whose response is the answer. The rules then see what they see of a chained log:
`ExchangeRead.history` is the whole conversation up to the call, and nothing is copied per call.

Every record that gives a turn is an exchange of the file too (`Session.record`), its body the record
as the file has it, so each turn's source names its line and the JSON pointer in it, and the wire view
shows that line. The model calls are the exchanges of the records that hold the answers; the others
carry no request or response of their own (they belong to no conversation's exchanges).

A log can branch — an edited prompt, a rewind — and then its later records go on from an earlier
record: `Branch.fork` starts a conversation that shares the turns up to there (the same objects, so
their sources and ids stay), as a Responses request continuing an older response does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..formats.base import Request, Response
from ..formats.reading import Linker
from ..model import Conversation, Part, Side, Source, Turn
from ..records.containers import Exchange, Message
from ..timeline import ExchangeRead
from .base import Built


@dataclass(slots=True)
class Branch:
    """One conversation being built: its turns (linked), and the model call under way — where its
    input begins (`start`), the record that opened it, and the call it answers, if it answered."""

    id: str
    format: str | None
    turns: list[Turn] = field(default_factory=list)
    linker: Linker = field(default_factory=Linker)
    start: int = 0
    opened: int | None = None  # the record that sent the first input turn of the call under way
    answer: ExchangeRead | None = None  # the call whose answer is the last turn, while it grows
    meta: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    system: tuple[Part, ...] = ()

    @property
    def tail(self) -> int:
        return len(self.turns)


class Session:
    """The records of one log file and the conversations they build (see the module docstring)."""

    def __init__(self, path: str, container: str) -> None:
        self.path = path
        self.container = container
        self.reads: list[ExchangeRead] = []
        self.branches: list[Branch] = []

    # -- records ---------------------------------------------------------------------------------

    def record(self, side: Side, location: str, body: Any) -> int:
        """A record of the file that gives turns: its index, which its turns' sources name."""
        message = Message(location=location, body=body)
        exchange = Exchange(len(self.reads))
        if side == "request":
            exchange.request = message
        else:
            exchange.response = message
        self.reads.append(ExchangeRead(exchange))
        return exchange.index

    def upcoming(self, side: Side, location: str, pointer: str = "") -> Source:
        """Where a node is in the record `record` will add next (read before it is added)."""
        return Source(file=self.path, exchange=len(self.reads), side=side, location=location,
                      pointer=pointer)

    def source(self, record: int, pointer: str = "") -> Source:
        """Where in record `record` a node is."""
        exchange = self.reads[record].exchange
        side: Side = "request" if exchange.request is not None else "response"
        message = exchange.request if exchange.request is not None else exchange.response
        assert message is not None
        return Source(file=self.path, exchange=record, side=side, location=message.location,
                      pointer=pointer)

    # -- conversations ----------------------------------------------------------------------------

    def branch(self, format: str | None, meta: dict[str, Any] | None = None) -> Branch:
        """A new conversation, empty."""
        new = Branch(id=f"c{len(self.branches) + 1}", format=format, meta=dict(meta or {}))
        self.branches.append(new)
        return new

    def fork(self, parent: Branch, at: int) -> Branch:
        """A conversation that shares `parent`'s first `at` turns and goes on differently."""
        new = self.branch(parent.format, parent.meta)
        new.turns = parent.turns[:at]
        new.linker = Linker(new.turns)
        new.model, new.system = parent.model, parent.system
        if at >= parent.start:  # the fork is inside the call under way: its input is shared
            new.start, new.opened = parent.start, parent.opened
        else:
            new.start = at
        return new

    def send(self, branch: Branch, turns: Sequence[Turn], record: int) -> None:
        """Input turns (user messages, tool results) from `record`. A tool turn right after another
        of the same call joins it: the client sends the results of one call in one message."""
        if not turns:
            return
        if branch.opened is None or branch.answer is not None:  # a new call's first input
            branch.start, branch.opened, branch.answer = branch.tail, record, None
        for turn in branch.linker.link(turns):
            last = branch.turns[-1] if branch.turns else None
            if last is not None and last.role == turn.role == "tool" and branch.tail > branch.start:
                branch.turns[-1] = replace(last, parts=last.parts + turn.parts)
            else:
                branch.turns.append(turn)

    def answer(self, branch: Branch, response: Response, record: int) -> None:
        """The model's answer to the call under way, read from `record` (a response with an error
        and no turn: the provider rejected the call)."""
        read = self.reads[record]
        turn = branch.linker.link((response.turn,))[0] if response.turn is not None else None
        read.request = Request(turns=tuple(branch.turns[branch.start:]), model=response.model,
                               system=branch.system)
        read.stored, read.format, read.conversation = branch.start, branch.format, branch.id
        if branch.opened is not None:
            read.exchange.request = self.reads[branch.opened].exchange.request
        read.responses = (replace(response, turn=turn),)
        if turn is not None:
            branch.turns.append(turn)
            branch.answer = read
        branch.start, branch.opened = branch.tail, None
        branch.model = response.model or branch.model

    def extend(self, branch: Branch, parts: tuple[Part, ...], response: Response) -> None:
        """More of the answer the last turn holds (an agent that logs a message a block a line):
        its parts joined to it, `response`'s finish reason and usage the answer's from now on."""
        read = branch.answer
        assert read is not None and read.responses and read.responses[0].turn is not None
        linked = branch.linker.link((Turn(role="assistant", parts=parts),))[0]
        turn = replace(branch.turns[-1], parts=branch.turns[-1].parts + linked.parts)
        branch.turns[-1] = turn
        previous = read.responses[0]
        read.responses = (replace(previous, turn=turn,
                                  finish_reason=response.finish_reason or previous.finish_reason,
                                  usage=response.usage or previous.usage),)

    def built(self, lacks: tuple[str, ...] = ()) -> Built:
        """The file read. Input logged after the last answer (results of a call still running, a
        prompt) stays in the conversation but in no exchange: the log ends before a model call
        shows it was sent, so no rule judges it as a request."""
        conversations = [Conversation(id=b.id, model=b.model, system=b.system, turns=tuple(b.turns),
                                      meta=b.meta) for b in self.branches if b.turns]
        return Built(self.container, self.reads, conversations, lacks=lacks)
