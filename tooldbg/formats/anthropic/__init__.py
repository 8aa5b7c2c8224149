"""anthropic: the Anthropic Messages API (`POST /v1/messages`), bodies and SSE streams.

Anthropic puts a call (`tool_use`, `input` an object) inside an assistant message and its answer
(`tool_result`, with `is_error`) inside the next user message, bound by id, and signs `thinking`
blocks. It rejects histories that break its ordering rules — results open the user message, calls
close the assistant message, ids match `^[a-zA-Z0-9_-]+$` and are unique — so the writer enforces
each rule and reports what that changed.

Public sources: the types of anthropic-sdk-python (`src/anthropic/types/`: `message_create_params.py`,
`message_param.py`, `content_block_param.py` and the per-block params, `tool_param.py`,
`message.py`, `raw_message_stream_event.py`), its stream accumulator
(`src/anthropic/lib/streaming/_messages.py`), and the GitHub issues, cited where the writer enforces
each rule, that quote the API's 400s.

`read` turns bodies into the canonical model, `stream` turns SSE events back into a body and
`serialize` (its function `write`) turns a conversation into a request; `common` holds what more than
one of them needs.
"""

from typing import TYPE_CHECKING

from ..lazy import STREAM_AND_WRITE, on_first_use
from .common import FACTS, NAME, URL_HINTS
from .read import read_request, read_response, sniff

if TYPE_CHECKING:  # loaded on first use (`formats.lazy`): a body read needs neither
    from .serialize import write
    from .stream import assemble_stream, sniff_stream, split_streams

__getattr__ = on_first_use(__name__, STREAM_AND_WRITE)

__all__ = ["FACTS", "NAME", "URL_HINTS",
           "assemble_stream", "read_request", "read_response", "sniff", "sniff_stream",
           "split_streams", "write"]
