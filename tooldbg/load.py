"""Paths → captures → exchanges read in their wire format → stitched conversations.

This is the library entry point: `load(paths)` returns everything the views and the checks need, and
never raises on a bad record — that becomes an `InputError` in the file's `errors` — only on a path
that cannot be read at all.

A file is read exchange by exchange, in log order, each exchange read and stitched before the next.
A request's message list goes through `history.History`: the history it replays byte for byte
keeps the turn objects of its conversation's previous request, and only the messages after it are
read (its docstring has the design). Before a request that kept turns is stitched, the stitcher is
asked which conversation it continues (`Stitcher.match`); when that is not the one the turns came
from, the request is read whole, so every conversation's turns point into its own exchanges. An
exchange's `request.turns` therefore hold, for replayed history, the objects (and sources) of the
exchange that first sent them — the objects its conversation's timeline holds too — and its own
only for what it sent new or changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from . import formats, logs
from .collector import held_off, thaw_after
from .errors import FormatError, InputError, unexpected
from .formats.base import ApiError, Assembled, Format, Request, Response
from .formats.reading import forget_links, stamp_chunks
from .history import History, Listed
from .jsonio import dumps_str, resolve
from .logs.base import LogFormat
from .model import Conversation, read_document
from .records.compressed import unpack
from .records.containers import Capture, Exchange, Message, open_capture
from .records.entries import Reread
from .records.sniff import HEAD, iter_files, looks_like_log
from .shorten import clip, plain, quote
from .source import Side, Source
from .stitch import Stitcher
from .timeline import ExchangeRead


@dataclass(slots=True, weakref_slot=True)  # (weakly referenced: `collector.thaw_after`)
class Loaded:
    """One input file, read."""

    path: str
    container: str
    reads: list[ExchangeRead] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    #: Entries of the capture no provider format recognizes (a browser's page loads and analytics
    #: in a HAR): left unread and counted, not reported as errors. They stay in `reads` (format None).
    skipped: int = 0
    #: What the file's format does not carry (`tooldbg.lacking`): said once by the views, and the
    #: rules that need it are not run on the file.
    lacks: tuple[str, ...] = ()
    #: conversation id → its index in `conversations`, and the list (its identity and length)
    #: the index was built from: `conversation()` is a dictionary probe, not a scan per call.
    _index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _indexed: tuple[int, int] = field(default=(0, -1), init=False, repr=False, compare=False)
    _reads_index: dict[str, list[ExchangeRead]] = field(default_factory=dict, init=False, repr=False,
                                                       compare=False)
    _reads_indexed: tuple[int, int] = field(default=(0, -1), init=False, repr=False, compare=False)

    @property
    def formats(self) -> list[str]:
        return sorted({r.format for r in self.reads if r.format})

    def conversation(self, conversation_id: str) -> Conversation | None:
        """The conversation with this id, in constant time. The index is rebuilt when the list was
        replaced or changed length, and a hit is verified, so an edited list is never misread."""
        conversations = self.conversations
        if self._indexed != (id(conversations), len(conversations)):
            self._reindex()
        at = self._index.get(conversation_id)
        if at is not None and conversations[at].id != conversation_id:  # an item replaced in place
            self._reindex()
            at = self._index.get(conversation_id)
        return conversations[at] if at is not None else None

    def reads_of(self, conversation_id: str) -> list[ExchangeRead]:
        """The exchanges stitched into a conversation, in log order (an index built once per
        list of reads, so asking for each conversation in turn stays linear)."""
        key = (id(self.reads), len(self.reads))
        if self._reads_indexed != key:
            by_conversation: dict[str, list[ExchangeRead]] = {}
            for read in self.reads:
                if read.conversation is not None:
                    by_conversation.setdefault(read.conversation, []).append(read)
            self._reads_index, self._reads_indexed = by_conversation, key
        return self._reads_index.get(conversation_id, [])

    def _reindex(self) -> None:
        index: dict[str, int] = {}
        for i, conv in enumerate(self.conversations):
            index.setdefault(conv.id, i)  # the first of equal ids, as a scan would find
        self._index = index
        self._indexed = (id(self.conversations), len(self.conversations))

    def wire_at(self, exchange: int | None, side: str | None, pointer: str, chunk: int | None = None) -> Any:
        """The wire JSON a node came from: in the request body, the response body, or for a stream
        the response assembled from it (when a capture held several back to back, the one `chunk`
        belongs to — any of its events, not only one that opened a node)."""
        if exchange is None or not 0 <= exchange < len(self.reads):
            return None
        read = self.reads[exchange]
        message = read.exchange.request if side == "request" else read.exchange.response
        if message is None:
            return None
        if message.body is not None:
            return resolve(message.body, pointer)
        if not read.streams:
            return None
        stream = read.streams[0]
        if chunk is not None and len(read.streams) > 1:
            # the last response that opened at or before the chunk (its chunks are event indices)
            for candidate in read.streams:
                if candidate.chunks and min(candidate.chunks.values()) <= chunk:
                    stream = candidate
        return resolve(stream.body, pointer)


#: Characters of an error body quoted when no format reader could read it (`http_error`).
EXCERPT = 300

#: Called as `progress(file, exchanges read, exchanges in the file)` while a file is read.
Progress = Callable[[str, int, int], None]


def load(paths: Iterable[str | Path], input_format: str | None = None,
         progress: Progress | None = None, skipped: list[str] | None = None) -> list[Loaded]:
    """Every file under `paths`; raises InputError only for a path that does not exist. A file of a
    folder that is not a log (`sniff.looks_like_log`) is left out, and its path added to `skipped`;
    a file named in `paths` is always read."""
    out = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise InputError(str(path), "", "no such file or folder")
        if not path.is_dir():
            out.append(load_file(path, input_format, progress))
            continue
        for file in iter_files(path):
            loaded = load_found(file, input_format, progress)
            if loaded is not None:
                out.append(loaded)
            elif skipped is not None:
                skipped.append(str(file))
    return out


def load_found(path: str | Path, input_format: str | None = None,
               progress: Progress | None = None) -> Loaded | None:
    """A file found in a folder: read as `load_file` does, or None when its content is not a log
    (told from its first bytes: a folder's video is not read whole to be skipped)."""
    name = str(path)
    try:
        with open(path, "rb") as file:
            head = file.read(HEAD)
            if not looks_like_log(name, head):
                return None
            data = head + file.read()
    except OSError as err:
        return Loaded(name, "unknown", errors=[InputError(name, "", err.strerror or str(err))])
    return load_bytes(name, data, input_format, progress)


def load_file(path: str | Path, input_format: str | None = None,
              progress: Progress | None = None) -> Loaded:
    """One file. An unreadable file comes back with its error and nothing else, so a folder or a
    list of files is still read in full."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        return Loaded(name, "unknown", errors=[InputError(name, "", err.strerror or str(err))])
    return load_bytes(name, data, input_format, progress)


def load_bytes(name: str, data: bytes, input_format: str | None = None,
               progress: Progress | None = None) -> Loaded:
    """One file's bytes; never raises (what cannot be read is in `errors`). Read with the cyclic
    collector held off, and what was read frozen out of its sight while it lives (`collector`)."""
    with held_off(freeze=True) as pause:
        try:
            loaded = _load_bytes(name, data, input_format, progress, whole=False)
        except Reread:  # a HAR whose entries did not parse one by one: read as one document
            loaded = _load_bytes(name, data, input_format, progress, whole=True)
    if pause.frozen:
        thaw_after(loaded)
    return loaded


def _load_bytes(name: str, data: bytes, input_format: str | None, progress: Progress | None,
                whole: bool) -> Loaded:
    """One file's bytes: uncompressed, read by the agent-log format they are (`tooldbg.logs`; named
    by `input_format`, else detected), else split into exchanges by their container."""
    log = logs.get(input_format) if input_format is not None else None
    parsed: dict[tuple[int, int], Any] = {}  # the first lines detection parsed, for the container
    try:
        data = unpack(name, data)
        if log is None and input_format is None:
            log = logs.detect(logs.peek(data, parsed))
        if log is not None:
            return _read_log(log, name, data, None, progress)
        capture = open_capture(name, data, whole=whole, parsed=parsed)
        if capture.document is not None and input_format is None:
            log = logs.detect_document(capture.document, data[:HEAD])
            if log is not None:
                return _read_log(log, name, data, capture.document, progress)
    except InputError as err:
        return Loaded(name, log.NAME if log is not None else "unknown", errors=[err])
    except Exception as err:  # noqa: BLE001 - the net under the containers: see errors.unexpected
        return Loaded(name, log.NAME if log is not None else "unknown",
                      errors=[InputError(name, "", unexpected(err))])
    if capture.container == "canonical":
        try:
            conversations = read_document(capture.canonical)
        except FormatError as err:
            return Loaded(name, "canonical", errors=[InputError(name, err.pointer, err.message)])
        except Exception as err:  # noqa: BLE001
            return Loaded(name, "canonical", errors=[InputError(name, "", unexpected(err))])
        return Loaded(name, "canonical", conversations=conversations)
    return _read_capture(capture, input_format, progress)


def _read_log(log: LogFormat, name: str, data: bytes, document: Any, progress: Progress | None) -> Loaded:
    """A file read by its agent-log format: conversations it built, or exchanges to read and stitch."""
    read = log.read(name, data, document)
    if isinstance(read, Capture):
        loaded = _read_capture(read, None, progress)
        loaded.lacks = tuple(dict.fromkeys((*log.LACKS, *read.lacks)))
        return loaded
    return Loaded(name, read.container, reads=read.reads, conversations=read.conversations,
                  errors=read.errors, lacks=read.lacks)


def _read_capture(capture: Capture, input_format: str | None, progress: Progress | None) -> Loaded:
    """Each exchange read and stitched in log order. A request's replayed history is recognised by
    `History` before it is read, and keeps the turn objects of the conversation's previous request
    — but only when the stitcher continues that conversation with it; otherwise it is read whole
    (see `tooldbg.history`)."""
    try:
        return _read_exchanges(capture, input_format, progress)
    finally:
        forget_links()


def _read_exchanges(capture: Capture, input_format: str | None, progress: Progress | None) -> Loaded:
    """The capture's exchanges, each made (its record parsed) when the one before is stitched. The
    errors of its records come first, in file order, then those of reading (as they came)."""
    reading = Reading(capture.path, capture.container, input_format)
    exchanges = iter(capture.exchanges)
    number = 0
    while True:
        try:
            exchange = next(exchanges, None)
        except Reread:
            raise
        except InputError as err:  # no record could be read
            return Loaded(capture.path, "unknown", errors=[err])
        except Exception as err:  # noqa: BLE001 - the net under the containers: see errors.unexpected
            return Loaded(capture.path, "unknown", errors=[InputError(capture.path, "", unexpected(err))])
        if exchange is None:
            break
        number += 1
        if progress is not None:
            progress(capture.path, number, max(number, capture.records))
        reading.add(exchange)
    loaded = reading.loaded
    loaded.conversations = reading.conversations()
    loaded.errors[:0] = capture.errors
    return loaded


class Reading:
    """One file read exchange by exchange: `add` each in log order, and `conversations()` are the
    file's conversations as stitched so far. `load` feeds it a capture's exchanges; `tooldbg.follow`
    the records a recording appends, as they are appended (nothing read is read again)."""

    def __init__(self, path: str, container: str, input_format: str | None = None) -> None:
        self.loaded = Loaded(path, container)
        self._input_format = input_format
        self._stitcher = Stitcher()
        self._history = History()

    def add(self, exchange: Exchange) -> ExchangeRead:
        """Read `exchange` and stitch it after those added before; it joins `loaded.reads`, and
        what cannot be read of it `loaded.errors`."""
        loaded, path = self.loaded, self.loaded.path
        read, kept_from, listed = _read_exchange(path, exchange, self._input_format, loaded.errors,
                                                 self._history)
        loaded.reads.append(read)
        if read.format is None and exchange.read is None:  # not an LLM exchange (one with neither
            # side is not counted)
            if exchange.request is not None or exchange.response is not None:
                loaded.skipped += 1
            return read
        if read.request is None and not read.responses:
            return read
        try:
            if kept_from is not None and read.request is not None:
                thread = self._stitcher.match(read.request, read.responses)
                if thread is None or thread.conversation.id != kept_from:
                    read.request = _read_request(read, path)  # another conversation's turns
            thread = self._stitcher.add(exchange.index, read.request, read.responses)
        except Exception as err:  # noqa: BLE001 - one exchange lost, not the file
            loaded.errors.append(InputError(path, _where(exchange), unexpected(err)))
            read.request, read.responses, read.streams = None, (), ()
            return read
        read.conversation = thread.conversation.id
        if thread.exchanges == [exchange.index]:  # (the conversation's first request)
            read.follows = thread.follows
        for index, branch in self._stitcher.branched().items():  # refused requests their retry left
            loaded.reads[index].conversation = branch
        if read.request is not None and read.format is not None and exchange.request is not None:
            self._history.remember(read.conversation, exchange.request.body, read.format, listed,
                                   read.request)
        read.request, read.stored = thread.request, thread.stored  # see tooldbg.chains
        return read

    def conversations(self) -> list[Conversation]:
        """The conversations stitched so far, in the order they began (a new list each call)."""
        return [t.conversation for t in self._stitcher.threads]


def _read_request(read: ExchangeRead, path: str) -> Request:
    """The request of an exchange read whole (its format read it once already, without error)."""
    assert read.format is not None and read.exchange.request is not None
    message = read.exchange.request
    request = formats.get(read.format).read_request(message.body,
                                                    _source(path, read.exchange, message, "request"))
    return _with_model(read, request)


def read_exchange(path: str, exchange: Exchange, input_format: str | None,
                  errors: list[InputError]) -> ExchangeRead:
    """Read both sides of one exchange in its format; a side that fails becomes an error (and an
    exception a reader should not raise is caught here too: `errors.unexpected`). An exchange in no
    provider's format is not an LLM exchange: it comes back with format None and no error (with
    `input_format`, one that holds no JSON body or stream to read)."""
    return _read_exchange(path, exchange, input_format, errors, None)[0]


def _read_exchange(path: str, exchange: Exchange, input_format: str | None, errors: list[InputError],
                   history: History | None) -> tuple[ExchangeRead, str | None, Listed | None]:
    """`read_exchange`, the request read against `history` when there is one: the read, the
    conversation whose history turns its request kept, and its message list as `history` knows it."""
    kept_from: str | None = None
    listed: Listed | None = None
    lists = None  # what the request's depth test printed, for `history` only (`Message.lists`)
    if exchange.request is not None:
        lists, exchange.request.lists = exchange.request.lists, None
    if exchange.response is not None:
        exchange.response.lists = None  # (a body the depth test printed: nothing asks for it)
    if exchange.read is not None:  # its log's own reader read it (`records.containers.Preread`)
        return ExchangeRead(exchange, format=exchange.read.format, request=exchange.read.request,
                            responses=exchange.read.responses), None, None
    try:
        detected = _detect(exchange) if input_format is None else \
            input_format if _has_payload(exchange) else None
    except Exception as err:  # noqa: BLE001
        errors.append(InputError(path, _where(exchange), unexpected(err)))
        return ExchangeRead(exchange), None, None
    read = ExchangeRead(exchange, format=detected)
    if read.format is None:
        return read, None, None
    module = formats.get(read.format)
    request, response = exchange.request, exchange.response
    failed = _failed(response)
    for message in (request, response):
        if message is response and failed:
            continue  # an error page: TD901 quotes it (`http_error`)
        if message is not None and message.body is None and message.events is None \
                and message.text and message.text.strip():
            errors.append(InputError(path, message.location or _where(exchange),
                                     f"body is not JSON: {quote(message.text.strip())}"))
    if request is not None and request.body is not None:
        source = _source(path, exchange, request, "request")
        try:
            if history is not None:
                read.request, kept_from, listed = history.read(read.format, module.read_request,
                                                            request.body, source, lists)
            else:
                read.request = module.read_request(request.body, source)
        except FormatError as err:
            errors.append(_error(path, request, err))
        except Exception as err:  # noqa: BLE001
            errors.append(_error(path, request, FormatError(unexpected(err))))
    if response is None:
        _name_model(read)
        return read, kept_from, listed
    source = _source(path, exchange, response, "response")
    try:
        if response.events is not None:
            streams = tuple(module.assemble_stream(events, source)
                            for events in module.split_streams(response.events) if events)
            read.streams = streams
            read.responses = tuple(_stream_response(module, s, source) for s in streams)
        elif response.body is not None:
            read.responses = (module.read_response(response.body, source),)
    except FormatError as err:
        if not failed:  # an error status is reported below, whatever its body
            errors.append(_error(path, response, err))
    except Exception as err:  # noqa: BLE001
        read.streams, read.responses = (), ()
        errors.append(_error(path, response, FormatError(unexpected(err))))
    if failed and not any(r.error is not None for r in read.responses):
        read.responses = (Response(error=http_error(response)),)
    _name_model(read)
    return read, kept_from, listed


def _failed(response: Message | None) -> bool:
    """An HTTP error status answered with a body, not a stream: the provider's rejection."""
    return response is not None and response.status is not None and response.status >= 400 \
        and response.events is None


#: An HTML page's markup, and the scripts and styles whose text is not what the page says.
_MARKUP = r"(?is)<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>"  # compiled where used (rarely)
#: Characters of an error body read for its excerpt (a gateway page can be long).
_EXCERPT_READ = 20_000


def http_error(message: Message) -> ApiError:
    """An HTTP error status whose body no format reader read as an error — a gateway's HTML 502, a
    proxy's `{"detail": …}`, an empty body: the body as a one-line excerpt (an HTML page by its
    text, without its markup), so the rejection is still reported and says what it can."""
    if message.body is not None:
        text = clip(dumps_str(message.body), _EXCERPT_READ)
    else:
        text = clip(message.text or "", _EXCERPT_READ)
        if text.lstrip()[:1] == "<":
            import html  # here: its entity table loads only for a gateway's HTML page

            text = html.unescape(re.compile(_MARKUP).sub(" ", text))
    return ApiError(message=plain(" ".join(text.split()), EXCERPT) or "(an empty body)",
                    code=str(message.status))


#: Where an endpoint URL names the model, for requests whose body does not (each matched against
#: the URL's path, still percent-encoded, so an ARN's own `/` and `:` arrive as `%2F`, `%3A`):
_URL_MODELS = (
    # Gemini API `/v1beta/models/{model}:generateContent` (https://ai.google.dev/api/generate-content)
    # and Vertex AI `/v1/projects/{p}/locations/{l}/publishers/{google|anthropic|…}/models/{model}:
    # {generateContent|streamGenerateContent|rawPredict|streamRawPredict}` (https://cloud.google.com/
    # vertex-ai/generative-ai/docs/reference/rest/v1/projects.locations.publishers.models/generateContent,
    # https://docs.anthropic.com/en/api/claude-on-vertex-ai: the model is in the URL, not the body).
    re.compile(r"/models/([^/:]+):[A-Za-z]+$"),
    # Bedrock `/model/{modelId}/converse`, `/converse-stream`, `/invoke`, `/invoke-with-response-stream`
    # (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html and its
    # ConverseStream, InvokeModel, InvokeModelWithResponseStream pages); a model id may be an ARN.
    re.compile(r"/model/(.+?)/(?:converse|converse-stream|invoke|invoke-with-response-stream)$"),
    # Azure OpenAI `/openai/deployments/{deployment}/chat/completions?api-version=…`
    # (https://learn.microsoft.com/azure/ai-services/openai/reference): the deployment is the model
    # as far as the wire says.
    re.compile(r"/openai/deployments/([^/]+)/"),
)


def url_model(url: str) -> str | None:
    """The model an endpoint URL names (decoded), or None when its shape names none (or it does not
    parse as a URL: `http://[…` with no closing bracket)."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return None
    for pattern in _URL_MODELS:
        found = pattern.search(path)
        if found and unquote(found.group(1)).strip():
            return unquote(found.group(1))
    return None


def _name_model(read: ExchangeRead) -> None:
    """A request whose body names no model (Gemini, Bedrock, Claude on Vertex AI, Azure OpenAI) takes
    the one its URL names, else the one its response names: the log says which model it talked to,
    so the conversation says it too."""
    if read.request is not None:
        read.request = _with_model(read, read.request)


def _with_model(read: ExchangeRead, request: Request) -> Request:
    if request.model is not None:
        return request
    message = read.exchange.request
    model = url_model(message.url) if message is not None and message.url else None
    if model is None:
        model = next((r.model for r in read.responses if r.model), None)
    return replace(request, model=model) if model else request


def _stream_response(module: Format, assembled: Assembled, source: Source) -> Response:
    response = module.read_response(assembled.body, source)
    if response.turn is not None:
        stamp_chunks(response.turn, assembled.chunks)
    return response


def _has_payload(exchange: Exchange) -> bool:
    """Either side holds a body or a stream a reader could read."""
    return any(m is not None and (m.body is not None or m.events is not None)
               for m in (exchange.request, exchange.response))


def _detect(exchange: Exchange) -> str | None:
    if exchange.format is not None:
        return exchange.format
    request, response = exchange.request, exchange.response
    for message in (request, response):
        if message is not None and message.url:
            found = formats.detect_url(message.url)
            if found:
                return found
    if request is not None and request.body is not None:
        found = formats.detect_body(request.body, "request")
        if found:
            return found
    if response is not None:
        if response.events is not None:
            return formats.detect_stream(response.events)
        if response.body is not None:
            return formats.detect_body(response.body, "response")
    return None


def _source(path: str, exchange: Exchange, message: Message, side: Side) -> Source:
    return Source(file=path, exchange=exchange.index, side=side, location=message.location)


def _error(path: str, message: Message, err: FormatError) -> InputError:
    where = f"{message.location}#{err.pointer}" if message.location else err.pointer or "/"
    return InputError(path, where, err.message)


def _where(exchange: Exchange) -> str:
    message = exchange.request or exchange.response
    return message.location if message and message.location else f"exchange {exchange.index}"
