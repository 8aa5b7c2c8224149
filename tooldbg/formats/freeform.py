"""Freeform (custom) tools, written for a format that has none.

OpenAI's custom tools take plain text, not JSON: Chat Completions `{"type": "custom", "custom":
{"name", "input"}}`, Responses `custom_tool_call` with its `input` (platform.openai.com/docs/guides/
function-calling, "Custom tools"). Anthropic, Gemini and Bedrock declare functions only. Codex
declares its `apply_patch` both ways — freeform, and, for a model without freeform tools, as a
function whose one string parameter `input` holds the same text, its handler taking either
(openai/codex `codex-rs/core/src/tool_apply_patch.rs`: `create_apply_patch_freeform_tool`,
`create_apply_patch_json_tool`). A writer for a format without freeform tools writes a custom tool
and its calls that way (`Writer`, `as_functions`), and says so: the text travels whole, the tool's
grammar or format does not.

The two OpenAI formats declare the same custom tool in two shapes, and their grammars too: Chat
Completions `{"type": "custom", "custom": {"name", "description", "format": {"type": "grammar",
"grammar": {"definition", "syntax"}}}}` (openai-python `types/chat/chat_completion_custom_tool_param.py`),
Responses `{"type": "custom", "name", "description", "format": {"type": "grammar", "definition",
"syntax"}}` (`types/responses/custom_tool_param.py`, `types/shared_params/custom_tool_input_format.py`):
`chat_tool` and `responses_tool` turn one into the other, nothing lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from copy import deepcopy
from dataclasses import replace
from operator import attrgetter
from typing import Any

from ..model import Conversation, Invocation, Result, Tool, Turn

#: The one parameter a freeform tool is declared with as a function, as Codex names it.
INPUT = "input"
#: The parameters of a freeform tool declared as a function.
SCHEMA: dict[str, Any] = {"type": "object", "required": [INPUT], "properties": {
    INPUT: {"type": "string", "description": "The tool's freeform input, whole"}}}


def is_freeform(call: Invocation) -> bool:
    """A freeform (custom) tool call, whose input is plain text by design (its reader's mark)."""
    meta = call.meta
    if not meta:
        return False
    chat = meta.get("openai-chat")
    return (isinstance(chat, Mapping) and chat.get("type") == "custom") or \
        _marked(meta.get("openai-responses"))


def _marked(responses: Any) -> bool:
    """The Responses reader's mark of a custom tool call or of its output."""
    return isinstance(responses, Mapping) and responses.get("custom") is True


def as_functions(conv: Conversation, lose: Callable[[str, int | None, int | None], None]) -> Conversation:
    """`conv` with its custom tools declared as functions of one string, `INPUT`, and each freeform
    call's text as that argument, every change said through `lose`; `conv` itself when it has none."""
    tools = tuple(_declared(tool, lose) if tool.kind == "custom" else tool for tool in conv.tools)
    turns: list[Turn] | None = None
    for t, turn in enumerate(conv.turns):
        if not any(map(_meta, turn.parts)):  # (most turns: no reader marked a part; looked at in C)
            continue
        parts = None
        for p, part in enumerate(turn.parts):
            if not part.meta:
                continue
            if type(part) is Invocation and is_freeform(part) and isinstance(part.arguments, str):
                parts = parts if parts is not None else list(turn.parts)
                parts[p] = replace(part, arguments={INPUT: part.arguments}, meta=_unmarked(part.meta))
                lose(f"the freeform input of custom tool {part.name!r} is written as the argument "
                     f"`{INPUT}` of a function (the format has no freeform tools)", t, p)
            elif type(part) is Result and _marked(part.meta.get("openai-responses")):
                parts = parts if parts is not None else list(turn.parts)  # (its call's loss says it)
                parts[p] = replace(part, meta=_unmarked(part.meta))
        if parts is not None:
            turns = turns if turns is not None else list(conv.turns)
            turns[t] = replace(turn, parts=tuple(parts))
    if turns is None and tools == conv.tools:
        return conv
    return replace(conv, tools=tools, turns=tuple(turns) if turns is not None else conv.turns)


_meta = attrgetter("meta")


def _unmarked(meta: Mapping[str, Any]) -> dict[str, Any]:
    """`meta` without the reader's freeform mark (said by the loss instead): a format's details
    left empty are dropped."""
    out = dict(meta)
    for fmt, mark in (("openai-chat", "type"), ("openai-responses", "custom")):
        own = out.get(fmt)
        if isinstance(own, Mapping) and mark in own:
            rest = {k: v for k, v in own.items() if k != mark}
            if rest:
                out[fmt] = rest
            else:
                del out[fmt]
    return out


def _declared(tool: Tool, lose: Callable[[str, int | None, int | None], None]) -> Tool:
    lose(f"custom tool {tool.name!r} is declared as a function of one string, `{INPUT}`: its freeform "
         f"format is dropped (the format has no freeform tools)", None, None)
    # (a schema of its own: a body written from it may be changed by its reader)
    return replace(tool, kind="function", parameters=deepcopy(SCHEMA), origin=None, raw=None)


def chat_tool(declared: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A Responses custom tool declaration as Chat Completions declares it, named `name`."""
    custom = {k: v for k, v in declared.items() if k != "type"}
    custom["name"] = name
    if isinstance(custom.get("format"), Mapping) and custom["format"].get("type") == "grammar":
        form = custom["format"]
        custom["format"] = {"type": "grammar", "grammar": {k: v for k, v in form.items() if k != "type"}}
    return {"type": "custom", "custom": custom}


def responses_tool(declared: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A Chat Completions custom tool declaration as Responses declares it, named `name`."""
    custom = declared.get("custom")
    out: dict[str, Any] = {"type": "custom", **(custom if isinstance(custom, Mapping) else {}), "name": name}
    form = out.get("format")
    grammar = form.get("grammar") if isinstance(form, Mapping) and form.get("type") == "grammar" else None
    if isinstance(grammar, Mapping):
        out["format"] = {"type": "grammar", **grammar}
    return out
