"""Where a canonical node came from (`Source`): the file, the exchange, the side and the JSON
pointer of the wire node it was read from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Side = Literal["request", "response"]


class Source:
    """Where a node came from: the file, the exchange in it, and the JSON location.

    `location` addresses the body inside its container (`/log/entries/1/request/postData/text` in a
    HAR, `/interactions/0/response/body`, `line 3/request/body` in JSON Lines); `pointer` is the
    JSON pointer inside that body. A streamed response is assembled first: `chunk` is then the index
    of the stream event that opened the node.

    Immutable and compared by those six values, like a frozen dataclass. A reader makes one per node
    it reads, and most are never looked at (only a finding or a view asks where a node came from):
    `child` keeps only the parent and the tokens, and the place (file, exchange, side, location,
    chunk: the parent's) and the pointer string are worked out the first time they are read (a
    third of a conversion's reading was spent building pointer strings, and a child was a tenth).
    """

    __slots__ = ("_where", "_chunk", "_pointer", "_parent", "_tokens")

    # A child has its `_parent` and `_tokens`, and None for its place and pointer until they are read
    # (`_place`, `pointer`): a None tested, not an unset slot caught (an exception raised and caught
    # for each source a rule reads the place of was 2 % of checking a capture).
    _where: tuple[str, int | None, Side | None, str] | None  # (file, exchange, side, location)
    _chunk: int | None
    _pointer: str | None
    _parent: Source | None
    _tokens: str | int | tuple[str | int, ...]  # (one token alone, as most children have: no tuple)

    def __init__(self, file: str = "", exchange: int | None = None, side: Side | None = None,
                 location: str = "", pointer: str = "", chunk: int | None = None) -> None:
        self._where = (file, exchange, side, location)
        self._chunk = chunk
        self._pointer = pointer
        self._parent = None
        self._tokens = ()

    def _place(self) -> tuple[tuple[str, int | None, Side | None, str], int | None]:
        """(file, exchange, side, location) and the chunk: a child's are its parent's."""
        where = self._where
        if where is None:
            assert self._parent is not None
            self._where, self._chunk = place = self._parent._place()
            return place
        return where, self._chunk

    @property
    def file(self) -> str:
        return self._place()[0][0]

    @property
    def exchange(self) -> int | None:
        return self._place()[0][1]

    @property
    def side(self) -> Side | None:
        return self._place()[0][2]

    @property
    def location(self) -> str:
        return self._place()[0][3]

    @property
    def chunk(self) -> int | None:
        return self._place()[1]

    @property
    def pointer(self) -> str:
        pointer = self._pointer
        if pointer is None:
            assert self._parent is not None
            pointer = self._parent.pointer
            tokens = self._tokens
            if isinstance(tokens, tuple):
                for token in tokens:
                    pointer += "/" + escape_pointer(token)
            else:
                pointer += "/" + escape_pointer(tokens)
            self._pointer = pointer
        return pointer

    def at(self, pointer: str, chunk: int | None = None) -> Source:
        """The same body, another pointer (and optionally the chunk that carried it)."""
        (file, exchange, side, location), own = self._place()
        return Source(file, exchange, side, location, pointer, chunk if chunk is not None else own)

    def child(self, token: str | int, *more: str | int) -> Source:
        """A pointer below this one (`/messages` + 3 + `content` → `/messages/3/content`)."""
        child = _Below()
        child._where = child._pointer = None
        child._parent = self
        child._tokens = (token, *more) if more else token
        return child

    def rebased(self, body: Source) -> Source:
        """The same place (pointer and chunk) in another body: `body`'s file, exchange and location."""
        file, exchange, side, location = body._place()[0]
        return Source(file, exchange, side, location, self.pointer, self._place()[1])

    @property
    def address(self) -> str:
        """`location#pointer`, as the JSON output and error lines print it."""
        location = self.location
        return f"{location}#{self.pointer}" if location else self.pointer

    def _key(self) -> tuple[str, int | None, Side | None, str, str, int | None]:
        (file, exchange, side, location), chunk = self._place()
        return file, exchange, side, location, self.pointer, chunk

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        return self._key() == other._key() if isinstance(other, Source) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        file, exchange, side, location, pointer, chunk = self._key()
        return (f"Source(file={file!r}, exchange={exchange!r}, side={side!r}, location={location!r}, "
                f"pointer={pointer!r}, chunk={chunk!r})")

    def __reduce__(self) -> tuple[type[Source], tuple[Any, ...]]:
        return Source, self._key()

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in zip(_FIELDS, self._key(), strict=True) if v is not None and v != ""}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Source:
        return cls(file=data.get("file", ""), exchange=data.get("exchange"), side=data.get("side"),
                   location=data.get("location", ""), pointer=data.get("pointer", ""),
                   chunk=data.get("chunk"))

    def tokens(self) -> tuple[Source, list[str | int]]:
        """The source this one was made below (`child`), whose place is this one's, and the tokens
        below it, unescaped: `pointer` unprinted, for a walk into a body (`jsonio.descend`) that
        prints and parses nothing (`checks.arguments`)."""
        below: list[str | int] = []  # (the tokens from the last, reversed at the end)
        source = self
        while (parent := source._parent) is not None:
            tokens = source._tokens
            if isinstance(tokens, tuple):
                below.extend(reversed(tokens))
            else:
                below.append(tokens)
            source = parent
        below.reverse()
        return source, below


class _Below(Source):
    """A `Source` as `child` makes it: made by the class call, which skips `Source.__init__` here
    (`object.__new__(Source)` cost a third more, and a reader makes one source a node)."""

    __slots__ = ()
    __init__ = object.__init__


_FIELDS = ("file", "exchange", "side", "location", "pointer", "chunk")  # (the order of `_key`)


def escape_pointer(token: str | int) -> str:
    """One JSON-pointer reference token (RFC 6901)."""
    text = token if isinstance(token, str) else str(token)
    return text.replace("~", "~0").replace("/", "~1")


NO_SOURCE = Source()
