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
carry no request or response of their own (they belong to no conversation's exchanges). A record's
parsed value is not kept (`Record`): the turns keep what they read of it, and its line is parsed
again when the wire view or a rule asks for it. Nor are its exchange and message: a record is one
object (`RecordRead`) and its place in the file (`Lines`), its exchange made when asked for.

A log can branch — an edited prompt, a rewind — and then its later records go on from an earlier
record: `Branch.fork` starts a conversation that shares the turns up to there (the same objects, so
their sources and ids stay), as a Responses request continuing an older response does.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ..formats.base import ApiError, Request, Response
from ..formats.reading import Linker
from ..jsonio import loads
from ..model import NO_META, Conversation, Invocation, Part, Result, Turn
from ..records.containers import Exchange, Message
from ..source import Side, Source
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


class Record(Message):
    """A line of the log as the message of its exchange, its parsed value not kept: `body` parses
    the line again from the file's bytes each time it is asked for. A parsed record held its
    envelope (ids, timestamps, paths) and a dict for every object in it, besides the strings the
    turns keep: as much memory again as the file, for the few lines a view or a rule looks at."""

    __slots__ = ("_lines", "_index")

    # (the fields a line has no value for are the class's, not set on each record)
    events = text = status = error = None
    url = method = ""
    headers = NO_META

    def __init__(self, location: str, lines: Lines, index: int) -> None:
        self.location, self._lines, self._index = location, lines, index

    @property
    def body(self) -> Any:
        # (it parsed, to the same value, when the log was read: `records.lines.json_records`)
        start, end = self._lines.span(self._index)
        return loads(memoryview(self._lines.data)[start:end], check_depth=False)

    @body.setter
    def body(self, value: Any) -> None:
        if value is not None:  # (a record's body is its line)
            raise AttributeError("a log record's body is its line")

    def __reduce__(self) -> tuple[type[Record], tuple[str, Lines, int]]:
        # (a file read in another process comes back whole: `scan.check_files`; the file's bytes
        # and the records' places are pickled once however many records hold them)
        return Record, (self.location, self._lines, self._index)


class Lines:
    """The file's bytes and, for each record that gives turns, where its line is in them, the line's
    number, the side of an exchange the record is and, for a model call's record, the record that
    opened the call: record k's line is `data[offsets[2k]:offsets[2k + 1]]`, line `numbers[2k]`, the
    call's first record `numbers[2k + 1]` (-1: none), its side `sides[k]` (1: the response). Kept in
    arrays rather than on objects a record (an object each, past 256, was 60 bytes a line; a slot
    more on each record, 16 with the allocator's rounding)."""

    __slots__ = ("data", "offsets", "numbers", "sides", "_last", "_made")

    def __init__(self, data: bytes, offsets: array[int] | None = None, numbers: array[int] | None = None,
                 sides: bytearray | None = None) -> None:
        self.data = data
        self.offsets = array("q") if offsets is None else offsets
        # (32 bits: 2**31 lines are 2 GB of newlines, a file read whole into memory three times)
        self.numbers = array("i") if numbers is None else numbers
        self.sides = bytearray() if sides is None else sides
        self._last: Record | None = None
        self._made: _RecordExchange | None = None  # the last exchange asked for

    def span(self, index: int) -> tuple[int, int]:
        return self.offsets[2 * index], self.offsets[2 * index + 1]

    def side(self, index: int) -> Side:
        return "response" if self.sides[index] else "request"

    def number(self, index: int) -> int:
        return self.numbers[2 * index]

    def opened(self, index: int) -> int | None:
        """The record that opened the model call record `index` answers, if it answers one."""
        opened = self.numbers[2 * index + 1]
        return opened if opened >= 0 else None

    def record(self, index: int) -> Record:
        """Record `index` as a message; the same object while no other is asked for (a rule that
        asks for one message's body call after call parses its line once: `checks.arguments`)."""
        last = self._last
        if last is None or last._index != index:
            last = self._last = Record(f"line {self.number(index)}", self, index)
        return last

    def __reduce__(self) -> tuple[type[Lines], tuple[bytes, array[int], array[int], bytearray]]:
        return Lines, (self.data, self.offsets, self.numbers, self.sides)


class RecordRead(ExchangeRead):
    """A record of the log as an exchange read: its exchange (`Exchange`, its message a `Record`)
    made each time it is asked for, from the record's place in `Lines`, not kept: an exchange and a
    message held for every line were a fifth of a long log's size again, and few are looked at
    (the wire view's, a finding's)."""

    __slots__ = ("_lines", "_index")

    def __init__(self, lines: Lines, index: int) -> None:
        self._lines, self._index = lines, index
        self.format = self.request = self.conversation = self.follows = None
        self.responses = self.streams = ()
        self.stored = 0

    @property
    def exchange(self) -> Exchange:
        # (the same object while no other record's is asked for: rules ask a read for its exchange
        # again and again, and compare its messages by identity to parse each once)
        lines = self._lines
        made = lines._made
        if made is None or made._read is not self:
            made = lines._made = _RecordExchange(self)
        return made

    @exchange.setter
    def exchange(self, value: Exchange) -> None:
        raise AttributeError("a log record's exchange is made from its line")

    def __reduce__(self) -> tuple[Any, ...]:
        state = {f.name: getattr(self, f.name) for f in fields(ExchangeRead) if f.name != "exchange"}
        return RecordRead, (self._lines, self._index), state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)


class _RecordExchange(Exchange):
    """A record's exchange (`RecordRead.exchange`), its messages made when asked for: most who ask
    want its index."""

    __slots__ = ("_read",)

    # (an exchange of a log record has no meta, no preread and no format of its own)
    meta = NO_META
    read = format = None

    def __init__(self, read: RecordRead) -> None:
        self._read, self.index = read, read._index

    @property
    def request(self) -> Message | None:
        read = self._read
        if read._lines.sides[read._index]:
            opened = read._lines.opened(read._index)
            return read._lines.record(opened) if opened is not None else None
        return read._lines.record(read._index)

    @request.setter
    def request(self, value: Message | None) -> None:
        raise AttributeError("a log record's exchange is made from its line")

    @property
    def response(self) -> Message | None:
        read = self._read
        return read._lines.record(read._index) if read._lines.sides[read._index] else None

    @response.setter
    def response(self, value: Message | None) -> None:
        raise AttributeError("a log record's exchange is made from its line")

    def __reduce__(self) -> tuple[Any, ...]:
        return _RecordExchange, (self._read,)


#: The fields `Session._shared` sets on the parts a reader has just made (through their slots).
_SET_CALL_NAME = vars(Invocation)["name"].__set__
_SET_RESULT_ID = vars(Result)["wire_id"].__set__


#: A line of the log: (its number, where it starts and ends in the file's bytes), as
#: `records.lines.json_records` gives it.
Line = tuple[int, int, int]


class Session:
    """The records of one log file and the conversations they build (see the module docstring)."""

    def __init__(self, path: str, container: str, data: bytes) -> None:
        self.path = path
        self.container = container
        self.lines = Lines(data)
        self.reads: list[ExchangeRead] = []
        self.branches: list[Branch] = []
        self._location = (0, "")  # the last line named, and its name
        self._upcoming = 0
        self._strings: dict[str, str] = {}  # the calls' names and ids read so far, each once

    # -- records ---------------------------------------------------------------------------------

    def location(self, number: int) -> str:
        """`line N`: where record N is (one string for the sources read before it and the record)."""
        if self._location[0] != number:
            self._location = (number, f"line {number}")
        return self._location[1]

    def record(self, side: Side, line: Line) -> int:
        """A record of the file that gives turns: its index, which its turns' sources name."""
        index = len(self.reads)
        if index == self._upcoming:
            index = self._upcoming  # (the number object the sources read before it hold: `upcoming`)
        number, start, end = line
        lines = self.lines
        lines.offsets.extend((start, end))
        lines.numbers.extend((number, -1))
        lines.sides.append(side == "response")
        self.reads.append(RecordRead(lines, index))
        return index

    def upcoming(self, side: Side, number: int, pointer: str = "") -> Source:
        """Where a node is in the record `record` will add next, line `number` (read before it is
        added). Its index is one number object for the record and every source read before it (one
        each, past 256, was 28 bytes a line)."""
        if self._upcoming != len(self.reads):
            self._upcoming = len(self.reads)
        return Source(self.path, self._upcoming, side, self.location(number), pointer)

    def source(self, record: int, pointer: str = "") -> Source:
        """Where in record `record` a node is."""
        return Source(file=self.path, exchange=record, side=self.lines.side(record),
                      location=self.location(self.lines.number(record)), pointer=pointer)

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
        for turn in self._shared(branch.linker.link_read(turns)):
            last = branch.turns[-1] if branch.turns else None
            if last is not None and last.role == turn.role == "tool" and branch.tail > branch.start:
                branch.turns[-1] = _joined(last, turn.parts)
            else:
                branch.turns.append(turn)

    def answer(self, branch: Branch, record: int, turn: Turn | None, model: str | None, *,
               finish_reason: str | None = None, usage: dict[str, Any] | None = None,
               error: ApiError | None = None) -> None:
        """The model's answer to the call under way, read from `record`: its turn, or none and an
        error (the provider rejected the call)."""
        read = self.reads[record]
        if turn is not None:
            turn = self._shared(branch.linker.link_read((turn,)))[0]
        read.request = Request(turns=tuple(branch.turns[branch.start:]), model=model, system=branch.system,
                               meta=NO_META)
        read.stored, read.format, read.conversation = branch.start, branch.format, branch.id
        if branch.opened is not None:
            self.lines.numbers[2 * record + 1] = branch.opened
        read.responses = (Response(turn=turn, finish_reason=finish_reason, model=model, usage=usage,
                                   error=error, meta=NO_META),)
        if turn is not None:
            branch.turns.append(turn)
            branch.answer = read
        branch.start, branch.opened = branch.tail, None
        branch.model = model or branch.model

    def extend(self, branch: Branch, parts: tuple[Part, ...], finish_reason: str | None,
               usage: dict[str, Any] | None) -> None:
        """More of the answer the last turn holds (an agent that logs a message a block a line):
        its parts joined to it, and its finish reason and usage, when given, the answer's now."""
        read = branch.answer
        assert read is not None and read.responses and read.responses[0].turn is not None
        linked = self._shared(branch.linker.link_read((Turn(role="assistant", parts=parts),)))[0]
        turn = branch.turns[-1] = _joined(branch.turns[-1], linked.parts)
        previous = read.responses[0]
        read.responses = (Response(turn=turn, finish_reason=finish_reason or previous.finish_reason,
                                   model=previous.model, usage=usage or previous.usage,
                                   error=previous.error, meta=previous.meta),)

    def _shared(self, turns: tuple[Turn, ...]) -> tuple[Turn, ...]:
        """Turns just read and linked (nothing else holds their parts yet) with their calls' names
        and ids, and their results' call ids, the very strings the calls before held: each line's
        were read anew, a twentieth of a long log's size again."""
        strings = self._strings
        for turn in turns:
            for part in turn.parts:
                if type(part) is Invocation:
                    _SET_CALL_NAME(part, strings.setdefault(part.name, part.name))
                    if part.wire_id is not None:
                        strings.setdefault(part.wire_id, part.wire_id)
                elif type(part) is Result and part.wire_id is not None:
                    _SET_RESULT_ID(part, strings.get(part.wire_id, part.wire_id))
        return turns

    def built(self, lacks: tuple[str, ...] = ()) -> Built:
        """The file read. Input logged after the last answer (results of a call still running, a
        prompt) stays in the conversation but in no exchange: the log ends before a model call
        shows it was sent, so no rule judges it as a request."""
        conversations = [Conversation(id=b.id, model=b.model, system=b.system, turns=tuple(b.turns),
                                      meta=b.meta) for b in self.branches if b.turns]
        return Built(self.container, self.reads, conversations, lacks=lacks)


def _joined(turn: Turn, parts: tuple[Part, ...]) -> Turn:
    """`turn` with `parts` after its own (made directly: one turn a line of a long session)."""
    return Turn(role=turn.role, parts=turn.parts + parts, meta=turn.meta, source=turn.source)
