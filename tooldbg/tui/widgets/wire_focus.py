"""What the wire view looks at: a `WireFocus` names a record (file, exchange, side), the selected
turn's node in it and the selected finding's node; `focus_for` works it out for a location of the
session, following a finding to the record it names."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ...checks.base import Finding
from ...formats.base import StreamEvent
from ...load import Loaded
from ...model import Conversation
from ..session import Location, Session


@dataclass(frozen=True, slots=True)
class WireFocus:
    """Where the wire view looks: a record (file, exchange, side) and the nodes to mark in it.

    `pointer` / `chunk` locate the selected turn (a band); `mark` / `mark_chunk` the selected
    finding (the stronger band; the chunk is the stream event that broke assembly)."""

    loaded: Loaded
    file: int
    exchange: int | None
    side: str | None
    pointer: str = ""
    chunk: int | None = None
    conversation: Conversation | None = None
    turn: int | None = None
    mark: str | None = None
    mark_chunk: int | None = None
    finding: Finding | None = None

    @property
    def location(self) -> str:
        """The body's location in its file (`/log/entries/1/response/content/text`)."""
        message = self._message()
        return message.location if message is not None else ""

    @property
    def events(self) -> list[StreamEvent] | None:
        """The stream events of a streamed response (None: not streamed)."""
        message = self._message()
        return message.events if message is not None and self.side == "response" else None

    def record_key(self) -> tuple[Hashable, ...]:
        return (id(self.loaded), self.exchange, self.side, self._stream())

    def body(self) -> Any:
        """The record: the body, or for a stream the response assembled from it."""
        message = self._message()
        if message is None:
            return None
        if message.body is not None:
            return message.body
        streams = self.loaded.reads[self.exchange].streams  # type: ignore[index]
        return streams[self._stream()].body if streams else None

    def _message(self):  # noqa: ANN202
        reads = self.loaded.reads
        if self.exchange is None or not 0 <= self.exchange < len(reads):
            return None
        exchange = reads[self.exchange].exchange
        return exchange.request if self.side == "request" else exchange.response

    def _stream(self) -> int:
        """Which assembled stream holds the turn's event, when a capture held several back to back
        (the last one starting at or before it)."""
        if self.exchange is None or not 0 <= self.exchange < len(self.loaded.reads):
            return 0
        streams = self.loaded.reads[self.exchange].streams
        chunk = self.chunk if self.chunk is not None else self.mark_chunk
        if chunk is None or len(streams) < 2:
            return 0
        starts = [min(s.chunks.values(), default=0) for s in streams]
        return max((i for i, start in enumerate(starts) if start <= chunk), default=0)


def focus_for(session: Session, location: Location, finding: Finding | None = None) -> WireFocus | None:
    """The wire view's focus for a location, marking `finding` when it is about that location.

    A finding names its record by exchange and `location#pointer`; when it is about another
    record than the turn's (a replay in a later exchange) that record is shown. A finding about a
    whole stream has an empty pointer: its part's node is marked instead."""
    if not 0 <= location.file < len(session.files):
        return None
    loaded = session.files[location.file]
    conversation, turn = session.conversation(location), session.turn(location)
    if finding is not None:
        at = session.location_of(finding)
        if (at.file, at.conversation, at.turn) != (location.file, location.conversation, location.turn):
            finding = None
    if turn is None:
        if finding is None or finding.exchange is None:
            return None
        side, pointer = _finding_record(loaded, finding, None)
        return WireFocus(loaded, location.file, finding.exchange, side, pointer, finding.chunk,
                         conversation, None, pointer, finding.chunk, finding)
    source = turn.source
    focus = WireFocus(loaded, location.file, source.exchange, source.side, source.pointer, source.chunk,
                      conversation, location.turn)
    if finding is None:
        return focus
    exchange = finding.exchange if finding.exchange is not None else source.exchange
    side, pointer = _finding_record(loaded, finding, source.side if exchange == source.exchange else None)
    part = turn.parts[finding.part] if finding.part is not None and 0 <= finding.part < len(turn.parts) \
        else None
    same = exchange == source.exchange and side == source.side
    if not pointer and part is not None and same:
        pointer = part.source.pointer
    if same:
        chunk = part.source.chunk if part is not None and part.source.chunk is not None else source.chunk
        return WireFocus(loaded, location.file, exchange, side, source.pointer, chunk, conversation,
                         location.turn, pointer, finding.chunk, finding)
    return WireFocus(loaded, location.file, exchange, side, pointer, finding.chunk, conversation,
                     location.turn, pointer, finding.chunk, finding)


def _finding_record(loaded: Loaded, finding: Finding, default_side: str | None) -> tuple[str | None, str]:
    """(side, pointer) of the record a finding names by `location#pointer`."""
    where, sep, pointer = finding.pointer.partition("#")
    if not sep:
        where, pointer = "", finding.pointer
    side = default_side
    if finding.exchange is not None and 0 <= finding.exchange < len(loaded.reads):
        exchange = loaded.reads[finding.exchange].exchange
        if exchange.request is not None and where and exchange.request.location == where:
            side = "request"
        elif exchange.response is not None and where and exchange.response.location == where:
            side = "response"
        elif side is None:
            side = "request" if exchange.request is not None and exchange.request.body is not None \
                else "response"
    return side, pointer
