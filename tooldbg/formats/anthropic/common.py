"""What more than one of `read`, `stream` and `write` needs: the format's name and URL hints,
the tool-choice types and the block-type helper.
"""

from __future__ import annotations

from typing import Any

from ..base import Facts

NAME = "anthropic"
URL_HINTS: tuple[str, ...] = ("/v1/messages",)

#: What the code outside this module needs to know about Anthropic Messages (see `base.Facts`).
FACTS = Facts(
    name=NAME,
    order=3,
    messages_key="messages",
    finish_pointer="/stop_reason",
    arguments="object",
    arguments_path=("input",),
    call_id_keys=("id", "tool_use_id"),
    failure="flag",
    failure_wording="is_error: true",
    reasoning="thinking block",
    reasoning_replay="signed-text",
    # anthropic-sdk `ContentBlockParam` (types/content_block_param.py) and the blocks a tool result
    # holds (`tool_reference` from tool search); server tools are `server_tool_use`, `mcp_tool_use`,
    # `web_search_tool_result`, `code_execution_tool_result`, …
    content_types=("text", "image", "document", "search_result", "thinking", "redacted_thinking",
                   "tool_use", "tool_result", "container_upload", "mid_conv_system", "tool_reference",
                   "*_tool_use", "*_tool_result"),
    content_members=None,
    strict_pairing=True,
    merges_roles=True,
    calls_last=True,
    rejects_blank_text=True,
    title="Anthropic",
    model_key="model",
    # https://docs.anthropic.com/en/api/messages: `max_tokens` is required; temperature, top_p 0 to 1.
    settings={"max_tokens": (("max_tokens",),), "temperature": (("temperature",),), "top_p": (("top_p",),),
              "stop": (("stop_sequences",),)},
    restated={},
    setting_ranges={"temperature": (0, 1), "top_p": (0, 1)},
    max_tokens_default=4096,
    stream_key="stream",
)

# `tool_choice.type` → the canonical mode.
_CHOICE_MODES = {"auto": "auto", "any": "required", "tool": "tool", "none": "none"}


def _type(obj: Any) -> str | None:
    """`obj["type"]` when `obj` is an object whose type is a string (safe for set lookups)."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) else None
