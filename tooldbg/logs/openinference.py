"""OpenInference spans (Arize-ai/openinference `spec/semantic_conventions.md`, `spec/llm_spans.md`,
`spec/tool_calling.md`), as Phoenix and the OpenInference instrumentors export them over OTLP.

An `LLM` span (`openinference.span.kind`) keeps the call twice: `input.value` / `output.value`
(`input.mime_type` `application/json`) hold the parameters the SDK was called with and the response
object it returned — the provider's request and response bodies, read by the wire readers, so the
wire view shows them — and the flattened `llm.input_messages.N.message.*` / `llm.output_messages.N.*`
(`message.role`, `message.content`, `message.tool_call_id`, `message.tool_calls.M.tool_call.id` /
`.function.name` / `.function.arguments`), read when the values are not such bodies; `llm.tools.N.
tool.json_schema` declares the tools. A failed `TOOL` span marks its result failed (`logs.otlp`).
"""

from __future__ import annotations

from typing import Any

from .. import formats
from ..model import Tool
from ..records.containers import Exchange, Message
from .base import decoded, schema, text
from .genai import chat_exchange, flat_chat, indexed, located, nested
from .spans import Span

_KIND = "openinference.span.kind"


def claims(span: Span) -> bool:
    """An OpenInference span (its kind, or its flattened messages)."""
    return span.get(_KIND) is not None or any(k.startswith(("llm.input_messages.", "llm.output_messages."))
                                               for k in span.attrs)


def exchange(path: str, span: Span, index: int) -> Exchange | None:
    """An `LLM` span's call: its raw bodies when `input.value` is one, else its flattened messages."""
    if span.get(_KIND) not in (None, "LLM"):
        return None
    sent = decoded(span.get("input.value"))
    if isinstance(sent, dict) and formats.detect_body(sent, "request") is not None:
        made = Exchange(index, request=Message(location=span.location + span.where("input.value"), body=sent))
        answer = decoded(span.get("output.value"))
        if isinstance(answer, dict) and formats.detect_body(answer, "response") is not None:
            made.response = Message(location=span.location + span.where("output.value"), body=answer)
        elif span.failed:
            made.response = Message(location=span.location + "/status", status=500,
                                    body={"error": {"message": span.status or "the call failed"}})
        return made
    inputs, outputs = indexed(span, "llm.input_messages"), indexed(span, "llm.output_messages")
    if not inputs and not outputs:
        return None
    keys = ("tool_call.id", "tool_call.function.name", "tool_call.function.arguments")

    def chat(group: dict[str, tuple[Any, str]], default: str) -> Any:
        return flat_chat(path, span, index, group, lambda key: group.get(f"message.{key}", (None, ""))[0],
                         nested(group, "message.tool_calls"), keys, "request", default)

    return chat_exchange(path, span, index, [chat(g, "user") for g in inputs],
                         [chat(g, "assistant") for g in outputs], span.location, _tools(path, span, index))


def _tools(path: str, span: Span, index: int) -> tuple[Tool, ...]:
    """`llm.tools.N.tool.json_schema`: a JSON string of the tool as the provider declares it."""
    out = []
    for group in indexed(span, "llm.tools"):
        raw, pointer = group.get("tool.json_schema", (None, ""))
        declared = decoded(raw)
        function = declared.get("function") if isinstance(declared, dict) and "function" in declared \
            else declared
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            out.append(Tool(name=function["name"], description=text(function.get("description")),
                            parameters=schema(function.get("parameters") or function.get("input_schema")),
                            source=located(path, index, "request", span.location).at(pointer)))
    return tuple(out)
