"""Gemini `generateContent` (v1beta and v1, and Vertex AI's identical body).

What makes this format more than a field mapping:

* Calls usually carry no id. A `functionResponse` answers the call with the same name at the same
  position in the model turn before it (`link` pairs them so), and all responses to one model turn
  go in one user `Content`, in call order, one for each call. A response is written under its own
  name (a result read without one has its call's, from `link`); one named unlike its call is
  reported when the call has no id, since pairing by name then no longer finds that call.
* There is no error flag. By convention a response object holds `{"output": …}` or `{"error": …}`.
  The reader maps `error` to `is_error` and the writer puts it back, so the flag survives a round trip.
* `thoughtSignature` can ride beside any part. It is read as a `Reasoning(signature=…)` placed right
  before the part that carried it (a `thought: true` text part is itself that Reasoning), and the
  writer puts it back on that part.
* Streams are not deltas of one object: each chunk adds parts. Text runs are joined, and Vertex
  `partialArgs` fragments (addressed by JSON path) are put back into `args`.
* Media in a tool result is written as `functionResponse.parts`, which only Gemini 3 and later
  accept (Gemini 2.x has no multimodal function responses).
* Keys arrive in lowerCamelCase (REST) or snake_case (logs from Python tooling). Both are read;
  camelCase is written. Wire keys tooldbg does not model are kept in `meta["gemini"]`
  (`extra`) and written back verbatim.

Public sources: the request and response types of googleapis/python-genai (`google/genai/types.py`:
`Content`, `Part`, `FunctionCall`, `FunctionResponse`, `FunctionDeclaration`,
`FunctionCallingConfig`, `GenerateContentResponse`; `google/genai/models.py` for the endpoints and
the camelCase REST keys), Google's thought-signature guide
(https://ai.google.dev/gemini-api/docs/thought-signatures), and google-gemini/gemini-cli#17068 for
media in function responses. The stream assembler names the client code it follows.

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
