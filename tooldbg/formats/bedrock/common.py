"""Bedrock names the reader, the stream assembler and the writer share: the format's name and
URL hints, the media format tables, the request keys the format models, and union-member lookup."""

from __future__ import annotations

from typing import Any

from ..base import Facts

NAME = "bedrock"
URL_HINTS: tuple[str, ...] = ("/converse",)

#: What the code outside this module needs to know about Bedrock Converse (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=5,
    messages_key="messages",
    finish_pointer="/stopReason",
    arguments="object",
    arguments_path=("toolUse", "input"),
    call_id_keys=("toolUseId", "toolUseId"),
    failure="flag",
    failure_wording='status: "error"',
    reasoning="reasoningContent block",
    reasoning_replay="signed-text",
    content_types=None,
    # botocore bedrock-runtime service-2.json shapes `ContentBlock` and `ToolResultContentBlock`
    # (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html).
    content_members=("text", "image", "document", "video", "audio", "toolUse", "toolResult",
                     "guardContent", "cachePoint", "reasoningContent", "citationsContent",
                     "searchResult", "toolAddition", "toolRemoval", "json"),
    strict_pairing=True,
    merges_roles=False,
    calls_last=True,
    rejects_blank_text=True,
    title="Bedrock Converse",
    model_key=None,
    # https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html:
    # temperature and topP 0 to 1.
    settings={"max_tokens": (("inferenceConfig", "maxTokens"),),
              "temperature": (("inferenceConfig", "temperature"),),
              "top_p": (("inferenceConfig", "topP"),), "stop": (("inferenceConfig", "stopSequences"),)},
    restated={"status": "success"},
    setting_ranges={"temperature": (0, 1), "top_p": (0, 1)},
    max_tokens_default=None,
    stream_key=None,
)

# Media blocks: wire `format` → media type (botocore ImageFormat, DocumentFormat, VideoFormat,
# AudioFormat enums).
_FORMATS: dict[str, dict[str, str]] = {
    "image": {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"},
    "document": {
        "pdf": "application/pdf", "csv": "text/csv", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "html": "text/html", "txt": "text/plain", "md": "text/markdown",
    },
    "video": {
        "mkv": "video/x-matroska", "mov": "video/quicktime", "mp4": "video/mp4", "webm": "video/webm",
        "flv": "video/x-flv", "mpeg": "video/mpeg", "mpg": "video/mpg", "wmv": "video/x-ms-wmv",
        "three_gp": "video/3gpp",
    },
    "audio": {
        "mp3": "audio/mpeg", "opus": "audio/opus", "wav": "audio/wav", "aac": "audio/aac",
        "flac": "audio/flac", "mp4": "audio/mp4", "ogg": "audio/ogg", "mkv": "audio/x-matroska",
        "mka": "audio/x-matroska", "x-aac": "audio/x-aac", "m4a": "audio/x-m4a",
        "mpga": "audio/mpga", "pcm": "audio/pcm", "webm": "audio/webm",
    },
}

_OWN_KEYS = frozenset({"modelId", "messages", "system", "toolConfig"})


def _union_key(block: dict[str, Any], allowed: tuple[str, ...]) -> str | None:
    """The member a union block holds (the first allowed key: unknown neighbours are tolerated)."""
    return next((k for k in block if k in allowed), None)
