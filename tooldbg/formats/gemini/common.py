"""Gemini names the reader, the stream assembler and the writer share: the format's name and
URL hints, the two key spellings, the unmodelled-key bookkeeping, and the error body."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ...jsonio import dumps_str
from ..base import ApiError, Facts, Response
from ..meta import meta_for

NAME = "gemini"
URL_HINTS: tuple[str, ...] = (":generateContent", ":streamGenerateContent")

_UPPER = re.compile(r"[A-Z]")


def _snake(name: str) -> str:
    """The snake_case spelling of a lowerCamelCase field (`inlineData` → `inline_data`)."""
    return _UPPER.sub(lambda m: "_" + m.group(0).lower(), name)


#: The fields of a `Part` (https://ai.google.dev/api/caching#Part; google-genai `types.Part`), in the
#: lowerCamelCase the REST API documents and the snake_case it also accepts.
_PART_MEMBERS = tuple(spelling for member in (
    "text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode",
    "codeExecutionResult", "toolCall", "toolResponse", "thought", "thoughtSignature", "videoMetadata",
    "partMetadata", "mediaResolution")
    for spelling in dict.fromkeys((member, _snake(member))))

#: What the code outside this module needs to know about Gemini generateContent (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=4,
    messages_key="contents",
    finish_pointer="/candidates/0/finishReason",
    arguments="object",
    arguments_path=("functionCall", "args"),
    call_id_keys=None,
    failure="error-key",
    failure_wording='an {"error": …} response',
    reasoning="thoughtSignature",
    reasoning_replay="signature",
    content_types=None,
    content_members=_PART_MEMBERS,
    strict_pairing=True,
    merges_roles=False,
    calls_last=False,
    rejects_blank_text=False,
    title="Gemini",
    model_key=None,
    # https://ai.google.dev/api/generate-content#generationconfig: temperature 0 to 2, up to 5 stop sequences.
    settings={"max_tokens": (("generationConfig", "maxOutputTokens"),),
              "temperature": (("generationConfig", "temperature"),),
              "top_p": (("generationConfig", "topP"),), "stop": (("generationConfig", "stopSequences"),)},
    restated={},
    setting_ranges={"temperature": (0, 2), "top_p": (0, 1), "stop": (0, 5)},
    max_tokens_default=None,
    stream_key=None,
)

_SIGNATURE = "thoughtSignature"
_SNAKE = re.compile(r"(?<=[a-z0-9])_([a-z0-9])")

#: `_extra` specs: the keys a reader consumed (None: wholly; a mapping: these keys inside it).
_Spec = Mapping[str, Any]


def _camel(key: str) -> str:
    return _SNAKE.sub(lambda m: m.group(1).upper(), key)


def _find(obj: Mapping[str, Any], name: str) -> tuple[str, Any]:
    """(key, value) of the lowerCamelCase field `name`, also found under its snake_case spelling."""
    if name in obj:
        return name, obj[name]
    snake = _snake(name)
    return snake, obj.get(snake)


def _get(obj: Mapping[str, Any], name: str) -> Any:
    return _find(obj, name)[1]


def _extra(obj: Mapping[str, Any], used: _Spec) -> dict[str, Any]:
    """The keys of `obj` a reader did not consume, defaults (null, false, "", empty) left out. Consumed keys
    with a nested spec keep their unconsumed sub-keys, under the camelCase name the writer uses."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        name = _camel(key)
        if name in used:
            if used[name] is None or not isinstance(value, dict):
                continue
            key, value = name, _extra(value, used[name])
        if not (value is None or value is False or value in ("", {}, [])):
            out[key] = value
    return out


def _read_error(error: Any) -> Response:
    if not isinstance(error, dict):
        return Response(error=ApiError(message=error if isinstance(error, str) else dumps_str(error)))
    message, status, code = error.get("message"), error.get("status"), error.get("code")
    meta = _extra(error, {"message": None, "status": None, "code": None})
    return Response(error=ApiError(message=message if isinstance(message, str) else dumps_str(error),
                                   type=status if isinstance(status, str) else None,
                                   code=None if code is None else str(code)),
                    meta=meta_for(NAME, meta))
