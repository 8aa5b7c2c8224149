"""What more than one of `read`, `stream` and `write` needs: the format's name and URL hints,
the content-part type names and the tool-choice reader.
"""

from __future__ import annotations

from typing import Any

from ...model import ToolChoice
from ..base import Facts
from ..meta import STARTS_MESSAGE

NAME = "openai-responses"
URL_HINTS: tuple[str, ...] = ("/responses",)

#: What the code outside this module needs to know about the OpenAI Responses API (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=2,
    messages_key="input",
    finish_pointer="/status",
    arguments="string",
    arguments_path=("arguments",),
    call_id_keys=("call_id", "call_id"),
    failure="text",
    failure_wording=None,
    reasoning="reasoning item",
    reasoning_replay="signature",
    # openai-python types/responses: `ResponseInputContentParam` (input_text, input_image, input_file,
    # input_audio), `ResponseOutputMessageParam` (output_text, refusal), `ResponseReasoningItemParam`
    # (reasoning_text, summary_text); a conversation's stored items (types/conversations/message.py)
    # add `text` and `computer_screenshot`, which a client replays as they came.
    content_types=("input_text", "input_image", "input_file", "input_audio", "output_text", "refusal",
                   "reasoning_text", "summary_text", "text", "computer_screenshot"),
    content_members=None,
    strict_pairing=False,
    merges_roles=False,
    calls_last=False,
    rejects_blank_text=False,
    title="OpenAI Responses",
    model_key="model",
    # https://platform.openai.com/docs/api-reference/responses/create: no stop sequences; temperature 0 to 2.
    settings={"max_tokens": (("max_output_tokens",),), "temperature": (("temperature",),),
              "top_p": (("top_p",),)},
    restated={STARTS_MESSAGE: True},
    setting_ranges={"temperature": (0, 2), "top_p": (0, 1)},
    max_tokens_default=None,
    stream_key="stream",
)

#: The tool choices Responses spells as a bare string.
_MODES = ("auto", "none", "required")


def _text_type(role: str) -> str:
    return "output_text" if role == "assistant" else "input_text"


def _media_type(kind: str) -> str | None:
    return {"image": "input_image", "document": "input_file", "file": "input_file"}.get(kind)


def _read_choice(raw: Any, parallel: bool | None) -> tuple[ToolChoice | None, Any]:
    """`tool_choice` → (ToolChoice, the wire value when ToolChoice cannot say all of it)."""
    if raw is None:
        return (None if parallel is None else ToolChoice(parallel=parallel)), None
    if raw in _MODES:
        return ToolChoice(mode=raw, parallel=parallel), None
    if isinstance(raw, dict):
        kind, name = raw.get("type"), raw.get("name")
        if kind in ("function", "custom") and isinstance(name, str) and len(raw) == 2:
            return ToolChoice(mode="tool", name=name, parallel=parallel), None
        if kind == "allowed_tools" and raw.get("mode") in ("auto", "required"):
            return ToolChoice(mode=raw["mode"], parallel=parallel), raw
        if isinstance(kind, str):  # a hosted-tool selector names the tool by its type
            name = name if isinstance(name, str) else kind
            return ToolChoice(mode="tool", name=name, parallel=parallel), raw
    return ToolChoice(parallel=parallel), raw
