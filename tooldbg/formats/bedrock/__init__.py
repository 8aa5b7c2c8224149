"""bedrock: AWS Bedrock Converse (`POST /model/{modelId}/converse`, `/converse-stream`).

Converse differs from the other formats in ways a reader and writer must get right: content blocks
are one-key unions with no `type` (`{"toolUse": {...}}`), results ride in user messages and flag a
failure only with `status: "error"`, `json` result content must be an object, and ConverseStream is
a binary AWS event stream (see `records.eventstream`) whose `toolUse.input` arrives as string
fragments although the body form is an object.

Public sources: the Bedrock Runtime service model in boto/botocore
(`botocore/data/bedrock-runtime/2023-09-30/service-2.json`). Its shapes `ConverseRequest`,
`Message`, `ContentBlock`, `SystemContentBlock`, `ToolResultBlock`, `ToolChoice`,
`ConverseResponse` and `ConverseStreamOutput` define the bodies and events read and written here.

Decisions, where those shapes leave a choice:

* `cachePoint` marks a cache breakpoint after the block before it, so it is read into that part's
  (or tool's) `meta["bedrock"]["cachePoint"]` and written back right after it; a `cachePoint` with
  no block before it stays an `Opaque` part.
* `guardContent`, `citationsContent`, `searchResult`, server-tool blocks (`toolUse` of type
  `server_tool_use`, a `toolResult` inside an assistant message), documents given as text and any
  unknown block are `Opaque`.
* A `toolResult` names only its `toolUseId`: a result is read without a name of its own, so `link`
  gives a bound result its call's name (an orphan keeps `name` None). The writer reports a lost
  name only when it differs from the name of the call it answers; a result that answers no call is
  dropped, and that loss is reported instead.
* The model id belongs to the URL path (`ConverseRequest` binds `modelId` to the URI); the writer
  still puts `modelId` in the body, as the AWS CLI `--cli-input-json` form and the opencode client
  do.

`common` holds the names the others share, `read` the reader, `stream` the stream assembler and
`serialize` the writer (the function `write`).
"""

from typing import TYPE_CHECKING

from ..lazy import STREAM_AND_WRITE, on_first_use
from .common import FACTS, NAME, URL_HINTS
from .read import read_request, read_response, sniff

if TYPE_CHECKING:  # loaded on first use (`formats.lazy`): a body read needs neither
    from .serialize import write
    from .stream import assemble_stream, sniff_stream, split_streams

__getattr__ = on_first_use(__name__, STREAM_AND_WRITE)

__all__ = ["FACTS", "NAME", "URL_HINTS", "assemble_stream", "read_request", "read_response", "sniff",
           "sniff_stream", "split_streams", "write"]
