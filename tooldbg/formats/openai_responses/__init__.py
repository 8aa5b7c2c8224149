"""openai-responses: the OpenAI Responses API (`POST /v1/responses`), its bodies and its SSE events.

Responses has no turns, only a flat list of items (messages, `reasoning`, `function_call`,
`function_call_output`, hosted-tool items). Reading groups them as the canonical form needs:
consecutive model-side items make one assistant turn, consecutive outputs one tool turn, each user
message one user turn; leading system/developer messages join `instructions` in `Request.system`.

Item details a faithful rewrite needs (`id`, non-default `status`, `phase`, `caller`, `namespace`,
annotations, unknown keys) are kept in `meta["openai-responses"]`. One assistant turn gathers several
items, so an assistant message's own fields sit under the `"message"` key of each of its parts.

Custom (freeform) tools carry plain text, not JSON: `custom_tool_call.input` becomes
`Invocation(arguments=<the string>)` and its output a `Result`, both marked `{"custom": True}`.
Responses has no failure flag on outputs: `is_error` is always False on reading and folded into the
output text on writing.

Public sources: the types openai-python generates from OpenAI's OpenAPI spec
(`src/openai/types/responses/`: `response_create_params.py`, `response_input_param.py`,
`response.py`, `response_output_item.py`, `response_stream_event.py` and the per-event files), its
stream accumulator (`src/openai/lib/streaming/responses/_responses.py`), openai/codex for what a
client replays, and the GitHub issues, cited where the code relies on them, that quote the API's 400s.

`read` turns bodies into the canonical model, `stream` turns SSE events back into a body and
`serialize` (its function `write`) turns a conversation into a request; `common` holds what more than
one of them needs.
"""

from typing import TYPE_CHECKING

from ..base import Response, Written  # tests name these through the format, as they always could
from ..lazy import STREAM_AND_WRITE, on_first_use
from .common import FACTS, NAME, URL_HINTS
from .read import read_request, read_response, sniff

if TYPE_CHECKING:  # loaded on first use (`formats.lazy`): a body read needs neither
    from .serialize import write
    from .stream import assemble_stream, sniff_stream, split_streams

__getattr__ = on_first_use(__name__, STREAM_AND_WRITE)

__all__ = ["FACTS", "NAME", "URL_HINTS",
           "Response", "Written", "assemble_stream", "read_request", "read_response",
           "sniff", "sniff_stream", "split_streams", "write"]
