"""Files → exchanges. A capture is one file: a single body, JSON Lines, recorded interactions, HAR 1.2,
an SSE capture or a binary AWS event stream. Each becomes a run of `Exchange`s, every body located
inside its container so a finding can name it (`/log/entries/1/request/postData/text`).

`open_capture` yields the exchanges one record at a time: a JSON Lines record is parsed when the
exchange before it has been read (`load` reads and stitches each before the next), and a HAR or a
recording lets go of each record once its exchange is made, so memory holds what was read, not the
file parsed twice. `read_capture` is the same, every exchange made at once.

One bad record does not hide the others: it becomes an `InputError` in `Capture.errors` (in file
order, as the exchanges are made) and the rest of the file is still read. Only a file that yields
nothing at all raises (`read_capture`; `open_capture` when its exchanges run out).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import FormatError, InputError
from ..formats.base import Request, Response, StreamEvent
from ..jsonio import (
    DOCUMENT_LEVELS,
    MAX_DEPTH,
    Printed,
    TooDeep,
    checked_lists,
    ensure_depth,
    loads,
    loads_listed,
    loads_within,
)
from ..model import is_canonical
from ..shorten import quote
from . import entries, eventstream, sse
from .entries import Reread, Split, Walked, begins_as_har, find_records, split_har
from .extending import Extending, Parse, printed_members
from .fields import header_map, kind, status_code, string_field
from .lines import BLANK, BOM, ExtendingLines, line_table, lines, parses, record_shaped, table_lines
from .sniff import is_api_text
from .text import check_utf8, utf8

#: Bodies larger than this are still read; the number only bounds error-message excerpts.
_EXCERPT = 60
#: A line not parsed yet (`jsonl_value`).
_UNPARSED: Any = object()


@dataclass(slots=True)
class Message:
    """One side of an exchange. `body` is the parsed JSON body (None for a stream or an unreadable
    body), `events` the stream events when the body was a stream, `text` the body text as captured
    (kept for streams and unparsable bodies, so the wire view can show what was really sent)."""

    location: str
    body: Any = None
    events: list[StreamEvent] | None = None
    text: str | None = None
    url: str = ""
    method: str = ""
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: Why no response came, as the capture tool wrote it (mitmproxy's failed flows).
    error: str | None = None
    #: The JSON bytes of the body's list members as the depth test printed them (`checked_lists`),
    #: by member name: `load` gives them to `history`, which would print the message list again,
    #: then lets them go.
    lists: dict[str, Printed] | None = None

    @property
    def is_stream(self) -> bool:
        return self.events is not None


@dataclass(frozen=True, slots=True)
class Preread:
    """An exchange its log reader read already: a log that keeps messages in its own shape (an
    OpenTelemetry span's GenAI attributes, an Inspect sample) reads them into canonical form itself,
    and `load` stitches them as it stitches what the wire readers read (`format` None: no wire format)."""

    request: Request | None = None
    responses: tuple[Response, ...] = ()
    format: str | None = None


@dataclass(slots=True)
class Exchange:
    """A request and its response (either may be missing: response-only fixtures exist). `read` is
    set when the log's own reader read it (`Preread`); the wire readers read the rest."""

    index: int
    request: Message | None = None
    response: Message | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    read: Preread | None = None
    #: The provider format a bare body was recognised as, to tell a request from a response (what
    #: `load` would find again).
    format: str | None = None


@dataclass(slots=True)
class Capture:
    """One file's exchanges (from `open_capture`: an iterator, read once), the errors of its records
    so far, and how many records it holds (what a progress bar counts: at most one exchange each)."""

    path: str
    container: str
    exchanges: Iterable[Exchange] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    canonical: Any = None  # a tooldbg.canonical/1 document, read as is
    records: int = 1
    #: The file parsed whole, when it is one JSON document (an agent log format may claim it:
    #: `tooldbg.logs`, before its exchanges are read).
    document: Any = None
    #: What the file's format does not carry (`tooldbg.lacking`), when its reader knows.
    lacks: list[str] = field(default_factory=list)


CONTAINERS = ("json", "jsonl", "interactions", "har", "sse", "eventstream", "canonical")


def read_capture(path: str, data: bytes) -> Capture:
    """Split one file's bytes into exchanges, all made now (`exchanges` is a list). Raises
    InputError when nothing can be read."""
    try:
        capture = open_capture(path, data)
        capture.exchanges = list(capture.exchanges)
    except Reread:
        capture = open_capture(path, data, whole=True)
        capture.exchanges = list(capture.exchanges)
    return capture


def open_capture(path: str, data: bytes, *, whole: bool = False,
                 parsed: dict[tuple[int, int], Any] | None = None) -> Capture:
    """Split one file's bytes into exchanges, made as `exchanges` is iterated. Raises InputError
    when the file cannot be read as a whole, and at the end of `exchanges` when no record could.
    A HAR's entries are found in its bytes (`entries.split_har`) unless `whole`; when they turn out
    not to parse one by one, iterating raises `Reread`: open the file again with `whole`. `parsed`:
    lines parsed already, by their span (`logs.peek`), taken from it rather than parsed again."""
    parsed = {} if parsed is None else parsed
    if BLANK.fullmatch(data):  # (not `data.strip()`: that copies the file)
        raise InputError(path, "", "empty file")
    if eventstream.looks_like_eventstream(data):
        return _single_stream(path, "eventstream", _eventstream(path, "", data))
    skip = len(BOM) if data.startswith(BOM) else 0
    # A HAR read entry by entry is UTF-8 wherever the parser reads it (each byte is in an entry, in
    # the document around the entries, or blank space and commas between them, and each of those
    # must parse, or it is read again whole): its file is checked only when it is read otherwise
    # (0.9 M instructions of 64 M checking a 1 MB HAR: the test of its bytes for ASCII alone).
    har = not whole and begins_as_har(data, skip)
    if not har:
        _check_utf8(path, data)
    # (a text that opens with a JSON bracket opens with no SSE field: told without decoding it)
    if data[skip:skip + 64].lstrip()[:1] not in (b"{", b"[") and \
            sse.looks_like_sse(data[skip:_HEAD].decode("utf-8", "ignore")):  # (utf-8-sig: a module to import)
        text = utf8(path, data)
        return _single_stream(path, "sse", sse.parse(text), text)
    found = lines(data, skip)
    first, second = next(found, None), next(found, None)
    jsonl = first is not None and second is not None and \
        data[first[1]:first[1] + 64].lstrip().startswith((b"{", b"["))
    if jsonl and first is not None and (first[1:] in parsed or parses(memoryview(data)[first[1]:first[2]])):
        # A whole first line and more: JSON Lines (read as one document it could only fail, and
        # orjson's error for that holds several copies of the file).
        if har:
            _check_utf8(path, data)
        return _jsonl(path, data, skip, parsed)
    split = split_har(data, skip) if har else None
    if split is not None:
        return _split_har(path, split)
    if har:
        _check_utf8(path, data)
    try:
        # Depth is checked per record below, so one deep record does not cost the file; a long
        # document, by the parser, whole (`_whole` is then spared printing a request body).
        value, within = loads_within(memoryview(data)[skip:])
    except TooDeep as too_deep:  # past the parser's own limit: a container's records found in the text
        walked = find_records(data, skip)
        items = list(walked.entries()) if walked is not None and not walked.path else None  # (an array's)
        if walked is None or is_canonical(walked.document) or items is not None and not _exchanges(items):
            raise InputError(path, too_deep.pointer, too_deep.message) from None
        return _json_document(path, walked.document if walked.path else items, walked)
    except FormatError as whole_err:
        if jsonl and record_shaped(data, skip):
            return _jsonl(path, data, skip, parsed)
        raise InputError(path, "", whole_err.message) from None
    return _json_document(path, value, within=within)


def _check_utf8(path: str, data: bytes) -> None:
    """Raise InputError where `data` stops being UTF-8. ASCII is UTF-8 (told at memory speed);
    anything else is decoded to be validated."""
    if not data.isascii():
        check_utf8(path, data)


#: Bytes that hold the first 4,096 characters of any UTF-8 text (`sse.looks_like_sse` reads those).
_HEAD = 4 * 4096
def _whole(path: str, value: Any, limit: int = MAX_DEPTH, within: bool = False) -> None:
    """A document read as one record: too deep is an error for the file, at the pointer (`within`:
    the parser found it nested at most MAX_DEPTH levels, `jsonio.loads_within`)."""
    if within:
        return
    try:
        ensure_depth(value, "", limit)
    except TooDeep as err:
        raise InputError(path, err.pointer, err.message) from None


def _record_ok(capture: Capture, record: Any, where: str) -> bool:
    """One record of a container, checked for depth: too deep, it is reported and skipped. So is a
    record that came as its error (`entries.Split.entries`, `entries.Walked.entries`: too deep to
    parse, or found in the text of a document too deep to parse whole and not JSON itself)."""
    if isinstance(record, FormatError):
        capture.errors.append(InputError(capture.path, where + record.pointer, record.message))
        return False
    try:
        ensure_depth(record, where)
    except TooDeep as err:
        capture.errors.append(InputError(capture.path, err.pointer, err.message))
        return False
    return True


def _json_document(path: str, value: Any, split: Walked | None = None, *, within: bool = False) -> Capture:
    """A JSON document's container. With `split` (`entries.find_records`), a document too deep to
    parse whole: a HAR's or a recording's records are in `split`, an array's items in `value`.
    `within`: known to nest at most MAX_DEPTH levels (`_whole`)."""
    if isinstance(value, dict):
        if is_canonical(value):  # what tooldbg wrote: values it read, a few levels down
            _whole(path, value, MAX_DEPTH + DOCUMENT_LEVELS, within)
            return Capture(path, "canonical", canonical=value)
        log = value.get("log")
        if isinstance(log, dict) and "entries" in log:
            return _har(path, log, split)
        if "interactions" in value:
            return _interactions(path, value, split)
        _whole(path, value, within=within)
        if is_exchange(value):
            capture = Capture(path, "json")
            capture.exchanges = [_exchange(capture, value, "", 0)]
            return capture
        return Capture(path, "json", [_bare_exchange(value)], document=value)
    if isinstance(value, list):
        if _exchanges(value):
            capture = Capture(path, "json", records=len(value))
            capture.exchanges = _exchange_list(capture, value)
            return capture
        # A JSON array of events: Gemini's streamGenerateContent without alt=sse.
        _whole(path, value, within=within)
        events = [StreamEvent(index=i, data=v) for i, v in enumerate(value)]
        capture = _single_stream(path, "json", events)
        capture.document = value
        return capture
    raise InputError(path, "", "expected a JSON object or array at the top level")


def _exchanges(items: list[Any]) -> bool:
    """Is a JSON array one of exchange records (each an exchange, or the error of an item too deep
    to parse: `entries.find_records`), rather than a stream's events?"""
    read = [v for v in items if not isinstance(v, FormatError)]
    return bool(read) and all(is_exchange(v) for v in read)


def _exchange_list(capture: Capture, records: list[Any]) -> Iterator[Exchange]:
    """A JSON array of exchange records, each let go once read. Raises at the end when none was.
    Exchanges are numbered in the order they are made (see `_har_exchanges`)."""
    made = 0
    for i, item in enumerate(_let_go(records)):
        if _record_ok(capture, item, f"/{i}"):
            yield _exchange(capture, item, f"/{i}", made)
            made += 1
    if not made:
        raise InputError(capture.path, capture.errors[0].location, capture.errors[0].message)


def _let_go(records: list[Any]) -> Iterator[Any]:
    """The items of a parsed list, each dropped from it when the next is asked for (the list is
    the container's own: what was made of an item is all that is held of it)."""
    for i, record in enumerate(records):
        records[i] = None
        yield record
        del record


def is_exchange(value: Any) -> bool:
    """`{"request": …, "response": …}`, and not a body or stream event that happens to have one of
    those keys (a Responses `response.created` event carries `"response"`)."""
    return isinstance(value, dict) and ("request" in value or "response" in value) and not (
        "type" in value or "messages" in value or "contents" in value or "input" in value)


def _bare_exchange(body: dict[str, Any]) -> Exchange:
    """A body on its own: a request or a response, told apart by its shape. Response shapes are
    tagged (`choices`, `candidates`, `output`, `type: message`, `object: response`) and a response
    may echo its request's fields (a Responses object carries `instructions`, `tools`,
    `previous_response_id`), so a body that reads as a response is one."""
    from ..formats import detect_body  # formats depend on records only through StreamEvent

    message = Message(location="", body=body)
    found = detect_body(body, "response")
    if found:
        return Exchange(0, response=message, format=found)
    found = detect_body(body, "request")
    return Exchange(0, request=message, format=found) if found else Exchange(0, response=message)


def _single_stream(path: str, container: str, events: list[StreamEvent],
                   text: str | None = None) -> Capture:
    return Capture(path, container, [Exchange(0, response=Message(location="", events=events,
                                                                 text=text))])


def _jsonl(path: str, data: bytes, skip: int, parsed: dict[tuple[int, int], Any]) -> Capture:
    """JSON Lines: exchanges (`{"request":…, "response":…}`), or the events of one stream."""
    found = line_table(data, skip)  # (the lines counted are the lines read)
    capture = Capture(path, "jsonl", records=len(found) // 3)
    capture.exchanges = _jsonl_exchanges(capture, data, table_lines(found), parsed)
    return capture


def _jsonl_exchanges(capture: Capture, data: bytes, found: Iterable[tuple[int, int, int]],
                     parsed: dict[tuple[int, int], Any]) -> Iterator[Exchange]:
    """Each line `found` (line number, start, end) parsed when the exchange before it has been
    taken, from a view into the file's bytes (no copy of the text), unless it is in `parsed` already
    (by its span: taken from there); lines that are not exchanges are the events of one stream, the
    last exchange. Raises at the end when no line was read."""
    path, count = capture.path, 0
    events: list[StreamEvent] = []
    view, extending = memoryview(data), ExtendingLines(data)
    for number, start, end in found:
        value = parsed.pop((start, end), _UNPARSED)
        try:
            read = extending.extended(start, end) if value is _UNPARSED else None
            value, lists = read or jsonl_value(path, view[start:end], number, value)
        except InputError as err:
            capture.errors.append(err)
            continue
        if read is None:
            extending.read(start, end, value)
        if is_exchange(value):
            count += 1
            yield exchange_record(capture, value, number, count - 1, lists)
        else:
            events.append(StreamEvent(index=len(events), data=value, offset=number))
    if events:
        count += 1
        yield Exchange(count - 1, response=Message(location="", events=events))
    if not count:
        raise InputError(path, "", capture.errors[0].message if capture.errors else "no records")


def jsonl_value(path: str, line: bytes | memoryview, number: int,
                value: Any = _UNPARSED) -> tuple[Any, dict[int, Printed]]:
    """One JSON Lines record parsed (unless its `value` is given: parsed already) and checked for
    depth, with the lists the check printed (`checked_lists`); raises InputError at `line N`."""
    try:
        if value is _UNPARSED:
            value = loads(line, check_depth=False)
        return value, checked_lists(value)  # (printing it: cheaper than counting a line's bytes)
    except FormatError as err:
        raise InputError(path, f"line {number}{err.pointer}", err.message) from None


def exchange_record(capture: Capture, record: dict[str, Any], number: int, index: int,
                    lists: dict[int, Printed] | None = None) -> Exchange:
    """The exchange of the JSON Lines record on line `number`, the `index`-th of its file (`lists`:
    what `jsonl_value` printed of it)."""
    return _exchange(capture, record, f"line {number}", index, lists)


def _exchange(capture: Capture, record: dict[str, Any], where: str, index: int,
              lists: dict[int, Printed] | None = None) -> Exchange:
    """An exchange record (`{request, response, …}`); an error of a side is the capture's."""
    exchange = Exchange(index, meta={k: v for k, v in record.items()
                                     if k not in ("request", "response")})
    for side in ("request", "response"):
        part = record.get(side)
        if part is None:
            continue
        location = f"{where}/{side}"
        try:
            message = _http_message(capture.path, part, location)
        except InputError as err:
            capture.errors.append(err)
            continue
        if lists and side == "request":
            _keep_lists(message, lists)
        setattr(exchange, side, message)
    return exchange


def _keep_lists(message: Message, lists: dict[int, Printed]) -> None:
    """Give `message` the JSON bytes printed of its body's list members (`Message.lists`)."""
    if isinstance(message.body, dict):
        message.lists = printed_members(message.body, lists)


def _message(path: str, side: dict[str, Any], location: str, body_at: str) -> Message:
    """A side's URL, method, headers and status, each checked at its pointer under `location`; its
    body, read by the caller, is at `body_at`. Capture tools name two of them otherwise: claude-trace
    writes `status_code` (badlogic/lemmy `apps/claude-trace/src/interceptor.ts`), claude-tap the
    request's `path` for its URL (liaohch3/claude-tap `claude_tap/proxy.py`, `_build_record`)."""
    headers = header_map(path, side.get("headers"), f"{location}/headers")
    status = "status" if "status" in side or "status_code" not in side else "status_code"
    url = "url" if "url" in side or "path" not in side else "path"
    return Message(location=body_at, url=string_field(path, side, url, location),
                   method=string_field(path, side, "method", location), headers=headers,
                   status=status_code(path, side.get(status), f"{location}/{status}"))


def _http_message(path: str, part: Any, location: str) -> Message:
    """`{method, url, headers, body, status, bodyEncoding?}` as recorders and JSON Lines write it."""
    if not isinstance(part, dict):
        raise InputError(path, location, f"expected an object with a body, not {kind(part)}")
    message = _message(path, part, location, f"{location}/body")
    if isinstance(part.get("sse_events"), list):  # claude-tap with --tap-store-stream-events: the
        # stream as it came (`[{event, data}]`), where `body` is only its reassembly
        message.location = f"{location}/sse_events"
        message.events = [StreamEvent(index=i, data=e.get("data"),
                                      name=e["event"] if isinstance(e.get("event"), str) else None)
                          for i, e in enumerate(part["sse_events"]) if isinstance(e, dict)]
        return message
    if "body" not in part and isinstance(part.get("body_raw"), str):  # claude-trace: a stream or
        # other text response, as it came
        message.location = f"{location}/body_raw"
        _fill_text(path, message, part["body_raw"], message.headers.get("content-type", ""), loads_listed)
        return message
    if "body" not in part:
        # A response logged without a body wrapper: the record itself is the body.
        if any(k in part for k in ("choices", "candidates", "output", "content", "messages",
                                   "contents", "input")):
            message.location, message.body = location, part
        return message
    _fill_body(path, message, part["body"], part.get("bodyEncoding"), message.headers.get("content-type", ""))
    return message


def _fill_body(path: str, message: Message, body: Any, encoding: Any, content_type: str,
               parse: Parse = loads_listed) -> None:
    if body is None or isinstance(body, dict | list):
        message.body = body
        return
    if not isinstance(body, str):
        raise InputError(path, message.location, f"body must be a string or JSON, not {kind(body)}")
    if encoding == "base64":
        try:
            raw = base64.b64decode(body, validate=False)
        except (binascii.Error, ValueError):
            raise InputError(path, message.location, "body is not valid base64") from None
        if eventstream.looks_like_eventstream(raw):
            message.events = _eventstream(path, message.location, raw)
            return
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputError(path, message.location, f"invalid UTF-8 at byte {err.start}") from None
    _fill_text(path, message, body, content_type, parse)


def _fill_text(path: str, message: Message, text: str, content_type: str, parse: Parse) -> None:
    message.text = text
    if not text or text.isspace():  # (no stripped copy of a body to learn it is blank)
        return
    if "event-stream" in content_type or sse.looks_like_sse(text):
        message.events = sse.parse(text)
        return
    if not is_api_text(text, content_type):  # a page, a script, an image: kept as text, not parsed
        return
    try:
        message.body, lists = parse(text)
        message.text = None
        if lists:
            _keep_lists(message, lists)
    except FormatError as err:
        if message.status is not None and message.status >= 400:
            return  # a gateway's HTML error page: kept as text, reported as the rejection it is
        where = f"{message.location}#{err.pointer}" if err.pointer else message.location
        raise InputError(path, where, err.message) from None


def _eventstream(path: str, location: str, data: bytes) -> list[StreamEvent]:
    try:
        return eventstream.parse(data)
    except FormatError as err:
        raise InputError(path, f"{location} {err.pointer}".strip(), err.message) from None


def _interactions(path: str, doc: dict[str, Any], split: Walked | None = None) -> Capture:
    """A recording's interactions: from the document parsed whole, or parsed one by one from the
    file's bytes when `split` found them there."""
    if split is not None:
        capture = Capture(path, "interactions", records=split.records)
        capture.exchanges = _interaction_exchanges(capture, split.entries())
        return capture
    interactions = doc.get("interactions")
    if not isinstance(interactions, list):
        raise InputError(path, "/interactions",
                         f"expected a list of interactions, not {kind(interactions)}")
    capture = Capture(path, "interactions", records=len(interactions))
    capture.exchanges = _interaction_exchanges(capture, _let_go(interactions))
    return capture


def _interaction_exchanges(capture: Capture, interactions: Iterator[Any]) -> Iterator[Exchange]:
    made = 0
    for i, record in enumerate(interactions):
        if not _record_ok(capture, record, f"/interactions/{i}"):
            continue
        if not isinstance(record, dict):
            capture.errors.append(InputError(capture.path, f"/interactions/{i}",
                                             f"expected an object, not {kind(record)}"))
            continue
        yield _exchange(capture, record, f"/interactions/{i}", made)
        made += 1


def _split_har(path: str, split: Split | Walked) -> Capture:
    """A HAR's entries parsed one by one from the file's bytes (`entries.split_har`, `find_records`)."""
    capture = Capture(path, "har", records=split.records)
    capture.exchanges = _har_exchanges(capture, split.entries())
    return capture


def _har(path: str, log: dict[str, Any], split: Walked | None = None) -> Capture:
    """A HAR's entries, taken from the document parsed whole, or from `split` (too deep to parse)."""
    if split is not None:
        return _split_har(path, split)
    entries = log.get("entries")
    if not isinstance(entries, list):
        raise InputError(path, "/log/entries", f"expected a list of entries, not {kind(entries)}")
    capture = Capture(path, "har", records=len(entries))
    capture.exchanges = _har_exchanges(capture, _let_go(entries))
    return capture


#: What an exchange keeps of its HAR entry besides the two sides: when it happened, and `_tooldbg` (a
#: custom field) where a capture tooldbg wrote marks its findings (`probe`: `{"focus": [codes]}`).
_HAR_META = ("startedDateTime", "time", "_tooldbg")


def _har_exchanges(capture: Capture, records: Iterator[Any]) -> Iterator[Exchange]:
    """Each entry's bodies parsed when the exchange before it has been taken; the entry (its body
    texts among it) is let go once its exchange is made, so the document is freed as it is read.
    Exchanges are numbered in the order they are made, as in JSON Lines: an entry that makes none
    (too deep, not an object) takes no number — an exchange's number is its place among the file's
    exchanges (`Loaded.reads`), whatever container holds them; its location names the entry."""
    path, made, requests = capture.path, 0, Extending()  # (a request: often the last one and more)
    for i, entry in enumerate(records):
        where = f"/log/entries/{i}"
        if not _record_ok(capture, entries.without_texts(entry), where):
            continue
        if not isinstance(entry, dict):
            capture.errors.append(InputError(path, where, f"expected an object, not {kind(entry)}"))
            continue
        exchange = Exchange(made, meta={k: entry[k] for k in _HAR_META if k in entry})
        made += 1
        for (side, key), parse in zip(entries.PAYLOADS, (requests.loads_listed, loads_listed), strict=True):
            try:
                setattr(exchange, side, _har_side(path, entry.get(side), f"{where}/{side}", key, parse))
            except InputError as err:
                capture.errors.append(err)
        del entry
        yield exchange


def _har_side(path: str, side: Any, location: str, payload_key: str, parse: Parse) -> Message | None:
    """One side of a HAR entry: the request with its `postData`, the response with its `content`
    (`text`, optionally base64 with `encoding`). A side or a payload of the wrong type is an error
    for that side; the other side is still read."""
    if side is None:
        return None
    if not isinstance(side, dict):
        raise InputError(path, location, f"expected an object, not {kind(side)}")
    message = _message(path, side, location, f"{location}/{payload_key}/text")
    failed = side.get("_error")
    if message.status == 0 and isinstance(failed, str):  # mitmproxy's failed flow: no response came
        message.error = failed  # (`addons/savehar.py`: status 0, `_error` the flow's error)
    payload = side.get(payload_key)
    if payload is None:
        return message
    if not isinstance(payload, dict):
        raise InputError(path, f"{location}/{payload_key}",
                         f"{payload_key} must be an object, not {kind(payload)}")
    text = payload.get("text")
    cut = entries.truncation(payload.get("comment"))
    if cut is not None and (text is None or not parses(memoryview(text.encode()))):
        raise InputError(path, message.location, f"body truncated by the exporter: {quote(cut)}")
    if text is None:
        return message
    if not isinstance(text, str):
        raise InputError(path, message.location, f"text must be a string, not {kind(text)}")
    mime = payload.get("mimeType")
    content_type = mime if isinstance(mime, str) and mime else message.headers.get("content-type", "")
    _fill_body(path, message, text, payload.get("encoding"), content_type, parse)
    return message
