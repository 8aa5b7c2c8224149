"""openai-chat: OpenAI Chat Completions and every OpenAI-compatible dialect.

DeepSeek, xAI, Groq, Together, OpenRouter, Mistral, Qwen, Azure and Anthropic's compatibility
endpoint all speak this one wire shape and differ only in extras (`reasoning_content`, `x_groq`,
`native_finish_reason`, ids repeated or blanked in stream fragments), so one tolerant reader covers
them and one strict writer targets them. What the canonical model does not name is kept per node
in `meta["openai-chat"]` (message `name`, `developer` role, `strict`, image `detail`, Gemini-compat
`extra_content.google.thought_signature`, legacy `function_call`) so a rewrite is faithful.

The writer emits reasoning of this origin as `reasoning_content` (or `reasoning`, the field it was
read from): only DeepSeek/Kimi-style thinking endpoints and OpenRouter read it back (others ignore
it). OpenRouter's `reasoning_details` blocks are Reasoning parts too, written back as the array they
came in (`reasoning.py`); reasoning of another origin cannot be replayed here and is reported lost.
Tool messages carry text only and no error flag, so media in results is dropped and `is_error`
survives only as an "Error" prefix in the text, each reported as a loss. Tool messages bind by id
and (outside some dialects' optional `name`) carry no tool name: a bound result reads its call's
name (see `reading.link`), and the writer reports a result name only where it differs from its call's,
the one thing a rewrite cannot keep.

Public sources: the types openai-python generates from OpenAI's OpenAPI spec, under
`src/openai/types/chat/` (`completion_create_params.py`, `chat_completion_message_param.py` and the
per-role message params, `chat_completion_message_function_tool_call_param.py`, `chat_completion.py`,
`chat_completion_chunk.py`); its stream accumulator (`src/openai/lib/streaming/_deltas.py`,
`src/openai/lib/streaming/chat/_completions.py`); and the GitHub issues, cited where the code
relies on them, that quote the API's 400s and the dialects' stream defects.

`read` turns bodies into the canonical model, `stream` turns chunks back into a body and
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
