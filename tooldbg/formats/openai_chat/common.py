"""What more than one of `read`, `stream` and `write` needs: the format's name and URL hints,
the error-body reader, the audio media types and the tool-choice reader.
"""

from __future__ import annotations

from typing import Any

from ...jsonio import dumps_str
from ...model import ToolChoice
from ..base import ApiError, Facts
from ..meta import STARTS_MESSAGE

NAME = "openai-chat"
URL_HINTS: tuple[str, ...] = ("/chat/completions",)

#: What the code outside this module needs to know about OpenAI Chat Completions (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=1,
    messages_key="messages",
    finish_pointer="/choices/0/finish_reason",
    arguments="string",
    arguments_path=("function", "arguments"),
    call_id_keys=("id", "tool_call_id"),
    failure="text",
    failure_wording=None,
    reasoning="reasoning_content",
    reasoning_replay="text",
    # openai-python `ChatCompletionContentPartParam` (text, image_url, input_audio, file) and, in
    # assistant messages, `ChatCompletionContentPartRefusalParam`
    content_types=("text", "image_url", "input_audio", "file", "refusal"),
    content_members=None,
    strict_pairing=True,
    merges_roles=False,
    calls_last=False,
    rejects_blank_text=False,
    title="OpenAI Chat Completions",
    model_key="model",
    # https://platform.openai.com/docs/api-reference/chat/create: `max_completion_tokens` (the older
    # `max_tokens` is deprecated for it, and rejected by reasoning models), `stop` (a string or up to 4),
    # temperature 0 to 2.
    settings={"max_tokens": (("max_completion_tokens",), ("max_tokens",)), "temperature": (("temperature",),),
              "top_p": (("top_p",),), "stop": (("stop",),)},
    restated={STARTS_MESSAGE: True},
    setting_ranges={"temperature": (0, 2), "top_p": (0, 1), "stop": (0, 4)},
    max_tokens_default=None,
    stream_key="stream",
)


def _api_error(error: Any) -> ApiError | None:
    """`{"error": {message, type, param, code}}`; a bare string or other value is the message."""
    if error is None:
        return None
    if not isinstance(error, dict):
        return ApiError(message=error if isinstance(error, str) else dumps_str(error))
    message = error.get("message")
    return ApiError(message=message if isinstance(message, str) else dumps_str(error),
                    type=_scalar(error.get("type")), code=_scalar(error.get("code")),
                    param=_scalar(error.get("param")))


def _scalar(value: Any) -> str | None:
    return None if value is None else value if isinstance(value, str) else dumps_str(value)


def _audio_type(fmt: str) -> str:
    return "audio/mpeg" if fmt == "mp3" else f"audio/{fmt}"


def _choice(value: Any) -> ToolChoice | None:
    """One wire tool choice → ToolChoice (None when absent or unknown)."""
    if isinstance(value, str):
        return ToolChoice(mode=value)
    if not isinstance(value, dict):
        return None
    kind = value.get("type", "function")  # legacy `function_call: {name}` has no type
    inner = value.get(kind) if kind in ("function", "custom") else None
    name = (inner if isinstance(inner, dict) else value).get("name")
    if kind in ("function", "custom") and isinstance(name, str):
        return ToolChoice(mode="tool", name=name)
    allowed = value.get("allowed_tools")
    if kind == "allowed_tools" and isinstance(allowed, dict) and isinstance(allowed.get("mode"), str):
        return ToolChoice(mode=allowed["mode"])
    return None
