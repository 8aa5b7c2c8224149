"""Blocks of another wire format, or of an agent framework, found inside a message of this one:
read for what they mean, so a log that forwarded them unconverted still pairs its calls and results
and keeps its media. TD404 reports the block (its `type` is not one the format defines,
`Facts.content_types`); a writer then writes the part in its own format's shape.

Recognised:

* Anthropic `tool_use` in an assistant message and `tool_result` in a user message (anthropic-sdk
  `ToolUseBlockParam`, `ToolResultBlockParam`) — a call and its result, paired by their ids (read so
  on the Chat endpoint and in Bedrock Converse);
* Anthropic `image` / `document` blocks with a `source` (`ImageBlockParam`, `DocumentBlockParam`);
* Chat Completions `image_url` parts (openai-python `ChatCompletionContentPartImageParam`);
* LangChain's standard data blocks — `{"type": "image", "base64": …, "mime_type": …}`, with `url`
  or `file_id` instead, and the older `source_type` form (langchain-core `messages/content.py`,
  `ImageContentBlock`, `FileContentBlock`…), which integrations have forwarded as they are
  (langchain-ai/langchain#37090, langchain-ai/langchain-google#1591).

Anything else stays an `Opaque` part of the host format, verbatim.
"""

from __future__ import annotations

from typing import Any

from ..model import Invocation, Media, Part, Result, Text
from ..source import Source
from .reading import media_kind, split_data_url

_DATA_KINDS = frozenset({"image", "audio", "video", "file"})


def foreign_part(block: dict[str, Any], source: Source, role: str) -> Part | None:
    """The canonical part a foreign block in a `role` message means, or None when it is not one
    this module recognises (or is malformed: it then stays verbatim)."""
    kind = block.get("type")
    if kind == "tool_use" and role == "assistant":
        name, wire_id = block.get("name"), block.get("id")
        if isinstance(name, str) and isinstance(wire_id, str | None):
            return Invocation(name=name, arguments=block.get("input"), wire_id=wire_id, source=source)
        return None
    if kind == "tool_result" and role == "user":
        wire_id, is_error = block.get("tool_use_id"), block.get("is_error", False)
        content = _result_content(block.get("content"), source.child("content"))
        if content is None or not isinstance(wire_id, str | None) or not isinstance(is_error, bool):
            return None
        return Result(wire_id=wire_id, content=content, is_error=is_error, source=source)
    return foreign_media(block, source)


def foreign_media(block: dict[str, Any], source: Source) -> Media | None:
    """An Anthropic media block, a Chat `image_url` part or a LangChain data block → Media."""
    kind = block.get("type")
    if not isinstance(kind, str):
        return None
    wire = block.get("source")
    if kind in ("image", "document") and isinstance(wire, dict):
        return _anthropic_media(kind, wire, source)
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if not isinstance(url, str):
            return None
        media_type, data = split_data_url(url)
        if data is not None:
            return Media(kind="image", media_type=media_type, data=data, source=source)
        return Media(kind="image", url=url, source=source)
    if kind in _DATA_KINDS:
        return _langchain_media(kind, block, source)
    return None


def _anthropic_media(kind: str, wire: dict[str, Any], source: Source) -> Media | None:
    media = "image" if kind == "image" else "document"
    values = {key: wire.get(key) for key in ("media_type", "data", "url", "file_id")}
    if not all(v is None or isinstance(v, str) for v in values.values()):
        return None
    if wire.get("type") == "base64" and values["data"] is not None:
        return Media(kind=media, media_type=values["media_type"], data=values["data"], source=source)
    if wire.get("type") == "url" and values["url"] is not None:
        return Media(kind=media, url=values["url"], source=source)
    if wire.get("type") == "file" and values["file_id"] is not None:
        return Media(kind=media, file_id=values["file_id"], source=source)
    return None


def _langchain_media(kind: str, block: dict[str, Any], source: Source) -> Media | None:
    """v1 `{"type": "image", "base64" | "url" | "file_id": …, "mime_type": …}`, or v0 with
    `source_type` (`base64`, `url`, `id`) and the value in `data`, `url` or `id`."""
    mime = block.get("mime_type")
    by = block.get("source_type")
    data = block.get("base64") if by is None else block.get("data") if by == "base64" else None
    url = block.get("url") if by in (None, "url") else None
    file_id = block.get("file_id") if by is None else block.get("id") if by == "id" else None
    values = (mime, data, url, file_id)
    if not all(v is None or isinstance(v, str) for v in values) or (data, url, file_id) == (None, None, None):
        return None
    inline_type, inline = split_data_url(url) if isinstance(url, str) else (None, None)
    if inline is not None:
        mime, data, url = inline_type or mime, inline, None
    media = kind if kind != "file" else media_kind(mime) if mime else "file"
    return Media(kind=media, media_type=mime, data=data, url=url, file_id=file_id, source=source)


def _result_content(content: Any, source: Source) -> tuple[Part, ...] | None:
    """A foreign tool result's content: a string, or text and media blocks (None: anything else)."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (Text(text=content, source=source),) if content else ()
    if not isinstance(content, list):
        return None
    parts: list[Part] = []
    for k, item in enumerate(content):
        at = source.child(k)
        if not isinstance(item, dict):
            return None
        if item.get("type") == "text" and isinstance(item.get("text"), str):
            parts.append(Text(text=item["text"], source=at))
            continue
        media = foreign_media(item, at)
        if media is None:
            return None
        parts.append(media)
    return tuple(parts)
