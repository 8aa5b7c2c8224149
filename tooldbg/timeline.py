"""What the loader, the stitcher and the Responses chains share: an exchange read into canonical
form, and a conversation being stitched from such exchanges. Apart from all three, so each imports
these types from below rather than from one another."""

from __future__ import annotations

from dataclasses import dataclass, field

from .formats.base import Assembled, Request, Response
from .model import Conversation, Turn
from .records.containers import Exchange


@dataclass(slots=True)
class ExchangeRead:
    """One exchange in canonical form: the request read, and each response (a stream capture may
    hold several back to back) with the stream it was assembled from."""

    exchange: Exchange
    format: str | None = None
    request: Request | None = None
    responses: tuple[Response, ...] = ()
    streams: tuple[Assembled, ...] = ()
    conversation: str | None = None
    #: Turns of the conversation before the request's own: those the provider prepended from stored
    #: state (a Responses request chained by `previous_response_id` or `conversation`), else 0.
    stored: int = 0
    #: The first request of a conversation that goes on from another's history, kept unchanged up
    #: to an answer: the exchange that answered there (`Thread.follows`), which the request continues.
    follows: int | None = None

    def history(self, conversation: Conversation) -> tuple[Turn, ...]:
        """The turns the provider saw with this request: the stored ones it prepended, then the
        request's own (none without a request)."""
        if self.request is None:
            return ()
        return (*conversation.turns[:self.stored], *self.request.turns)

    @property
    def sent(self) -> int:
        """How many turns of its conversation's timeline the request carried (`history`'s length)."""
        return self.stored + len(self.request.turns) if self.request is not None else 0


@dataclass(slots=True)
class Thread:
    """A conversation being stitched: its timeline and the exchanges that built it."""

    conversation: Conversation
    exchanges: list[int] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=list)
    #: How many turns of the timeline the last request of the conversation carried (a chained
    #: request: the stored ones and its own).
    requested: int = 0
    #: The last request, its turns linked as in the timeline, and how many turns of the timeline
    #: precede them: stored by the provider for a chained Responses request, else none.
    request: Request | None = None
    stored: int = 0
    #: The provider refused the last request (an error, no answer): a request that goes on from an
    #: earlier point is its retry, and the refused one is kept as a branch (`Stitcher`).
    refused: bool = False
    #: The exchange whose answer the conversation's first request replays unchanged, when that
    #: request goes on from another conversation's history (`Stitcher._follows`), else None.
    follows: int | None = None
