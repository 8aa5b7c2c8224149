"""The five APIs as the probe speaks them: where a request goes, how the key travels, and how a
request body is built from the probe's turns — each API's own shapes, as its reference and official
SDK define them (/work/shared/reference/formats.md; the sources are cited there and in
`tooldbg/formats/*`):

* OpenAI Chat Completions `POST {base}/chat/completions`, `Authorization: Bearer`; tools
  `{type: function, function: {name, description, parameters}}`, a forced tool
  `{type: function, function: {name}}`, results as `role: tool` messages.
* OpenAI Responses `POST {base}/responses`, stateless (`store: false`, the history replayed in
  `input`); flat function tools, results as `function_call_output` items.
* Anthropic Messages `POST {base}/v1/messages` (the SDK's base URL is the host; a base ending in
  `/v1` is taken as given), `x-api-key` and `anthropic-version: 2023-06-01`; `max_tokens` required;
  results as `tool_result` blocks opening a user message.
* Gemini `POST {base}/models/{model}:generateContent`, `:streamGenerateContent?alt=sse` (a base
  without an API version gets `/v1beta`), `x-goog-api-key`; the schema in `parametersJsonSchema`
  (full JSON Schema: a `pattern` and `additionalProperties` are not OpenAPI-subset keywords), a
  forced tool as mode `ANY` with that one name allowed, results as `functionResponse` parts.
* Bedrock Converse `POST {base}/model/{modelId}/converse`, `/converse-stream`, a Bedrock API key
  as `Authorization: Bearer`; tools in `toolConfig`, results as `toolResult` blocks.

An assistant turn is replayed as it arrived (`replay`) — reasoning items, thought signatures and
text kept, as an SDK appends the message it got — except that a call's arguments are put back in the
shape the API requires (a JSON string for OpenAI, an object elsewhere): a relay that returned them
in the wrong shape fails the arguments step, not every step after it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote as url_quote

from ..jsonio import dumps_str, try_loads

Choice = Literal["tool", "required", "auto"]
Framing = Literal["sse", "eventstream"]


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Reply:
    """A tool result to send: the call it answers (its wire id and name) and the text."""

    call_id: str | None
    name: str
    text: str


class Api:
    """One API's request shapes. Subclasses fill in the differences."""

    name: str
    key_env: str
    framing: Framing = "sse"
    #: The key of the request's message list.
    messages_key = "messages"

    def url(self, base: str, model: str, stream: bool) -> str:
        raise NotImplementedError

    def headers(self, key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {key}"}

    def user(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def results(self, replies: Sequence[Reply]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def replay(self, response: Any) -> list[dict[str, Any]]:
        """The assistant turn of a (non-streamed) response body, as the next request carries it."""
        raise NotImplementedError

    def body(self, model: str, system: str, tool: Tool, choice: Choice, history: list[dict[str, Any]],
             stream: bool) -> dict[str, Any]:
        raise NotImplementedError


def _string(arguments: Any) -> Any:
    """Arguments as OpenAI carries them: a JSON string (an object is encoded)."""
    return arguments if isinstance(arguments, str) else dumps_str(arguments)


def _object(arguments: Any) -> Any:
    """Arguments as the other APIs carry them: an object (a string holding one is decoded)."""
    if isinstance(arguments, str):
        ok, value = try_loads(arguments)
        return value if ok and isinstance(value, dict) else arguments
    return arguments


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


class OpenAIChat(Api):
    name, key_env = "openai-chat", "OPENAI_API_KEY"

    def url(self, base: str, model: str, stream: bool) -> str:
        return f"{base}/chat/completions"

    def results(self, replies: Sequence[Reply]) -> list[dict[str, Any]]:
        return [{"role": "tool", "tool_call_id": r.call_id, "content": r.text} for r in replies]

    def replay(self, response: Any) -> list[dict[str, Any]]:
        choices = _list(_dict(response).get("choices"))
        message = dict(_dict(_dict(choices[0] if choices else None).get("message")))
        message = {k: v for k, v in message.items() if k in ("role", "content", "tool_calls")}
        message["role"] = "assistant"
        calls = []
        for call in _list(message.get("tool_calls")):
            function = _dict(_dict(call).get("function"))
            arguments = _string(function.get("arguments", ""))
            calls.append({**_dict(call), "function": {**function, "arguments": arguments}})
        if calls:
            message["tool_calls"] = calls
        return [message]

    def body(self, model: str, system: str, tool: Tool, choice: Choice, history: list[dict[str, Any]],
             stream: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": model, "messages": [{"role": "system", "content": system}, *history],
            "tools": [{"type": "function", "function": {"name": tool.name, "description": tool.description,
                                                         "parameters": tool.schema}}],
            "tool_choice": {"type": "function", "function": {"name": tool.name}} if choice == "tool"
            else choice}
        if stream:
            out.update(stream=True, stream_options={"include_usage": True})
        return out


class OpenAIResponses(Api):
    name, key_env = "openai-responses", "OPENAI_API_KEY"
    messages_key = "input"

    def url(self, base: str, model: str, stream: bool) -> str:
        return f"{base}/responses"

    def results(self, replies: Sequence[Reply]) -> list[dict[str, Any]]:
        return [{"type": "function_call_output", "call_id": r.call_id, "output": r.text} for r in replies]

    def replay(self, response: Any) -> list[dict[str, Any]]:
        items = []
        for item in _list(_dict(response).get("output")):
            item = dict(_dict(item))
            if item.get("type") == "function_call":
                item["arguments"] = _string(item.get("arguments", ""))
            items.append(item)
        return items

    def body(self, model: str, system: str, tool: Tool, choice: Choice, history: list[dict[str, Any]],
             stream: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": model, "instructions": system, "input": history, "store": False,
            "tools": [{"type": "function", "name": tool.name, "description": tool.description,
                       "parameters": tool.schema, "strict": False}],
            "tool_choice": {"type": "function", "name": tool.name} if choice == "tool" else choice}
        if stream:
            out["stream"] = True
        return out


class Anthropic(Api):
    name, key_env = "anthropic", "ANTHROPIC_API_KEY"
    #: The `max_tokens` every request sets (the API requires one).
    MAX_TOKENS = 1024

    def url(self, base: str, model: str, stream: bool) -> str:
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key, "anthropic-version": "2023-06-01"}

    def results(self, replies: Sequence[Reply]) -> list[dict[str, Any]]:
        return [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": r.call_id, "content": r.text} for r in replies]}]

    def replay(self, response: Any) -> list[dict[str, Any]]:
        blocks = []
        for block in _list(_dict(response).get("content")):
            block = dict(_dict(block))
            if block.get("type") == "tool_use":
                block["input"] = _object(block.get("input"))
            blocks.append(block)
        return [{"role": "assistant", "content": blocks}]

    def body(self, model: str, system: str, tool: Tool, choice: Choice, history: list[dict[str, Any]],
             stream: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": model, "max_tokens": self.MAX_TOKENS, "system": system, "messages": history,
            "tools": [{"name": tool.name, "description": tool.description, "input_schema": tool.schema}],
            "tool_choice": {"tool": {"type": "tool", "name": tool.name}, "required": {"type": "any"},
                            "auto": {"type": "auto"}}[choice]}
        if stream:
            out["stream"] = True
        return out


class Gemini(Api):
    name, key_env = "gemini", "GEMINI_API_KEY"
    messages_key = "contents"
    _VERSIONED = re.compile(r"/v1(?:alpha|beta)?\d*$")

    def url(self, base: str, model: str, stream: bool) -> str:
        root = base if self._VERSIONED.search(base) else f"{base}/v1beta"
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"{root}/models/{url_quote(model, safe='')}:{method}"

    def headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def user(self, text: str) -> dict[str, Any]:
        return {"role": "user", "parts": [{"text": text}]}

    def results(self, replies: Sequence[Reply]) -> list[dict[str, Any]]:
        parts = []
        for r in replies:
            response: dict[str, Any] = {"name": r.name, "response": {"output": r.text}}
            if r.call_id is not None:  # echoed when the call had one (`FunctionResponse.id`)
                response["id"] = r.call_id
            parts.append({"functionResponse": response})
        return [{"role": "user", "parts": parts}]

    def replay(self, response: Any) -> list[dict[str, Any]]:
        candidates = _list(_dict(response).get("candidates"))
        content = _dict(_dict(candidates[0] if candidates else None).get("content"))
        parts = []
        for part in _list(content.get("parts")):
            part = dict(_dict(part))
            if "functionCall" in part:
                call = dict(_dict(part["functionCall"]))
                call["args"] = _object(call.get("args", {}))
                part["functionCall"] = call
            parts.append(part)
        return [{"role": "model", "parts": parts}]

    def body(self, model: str, system: str, tool: Tool, choice: Choice, history: list[dict[str, Any]],
             stream: bool) -> dict[str, Any]:
        config: dict[str, Any] = {"mode": "AUTO" if choice == "auto" else "ANY"}
        if choice == "tool":
            config["allowedFunctionNames"] = [tool.name]
        return {"systemInstruction": {"parts": [{"text": system}]}, "contents": history,
                "tools": [{"functionDeclarations": [{"name": tool.name, "description": tool.description,
                                                     "parametersJsonSchema": tool.schema}]}],
                "toolConfig": {"functionCallingConfig": config}}


class Bedrock(Api):
    name, key_env = "bedrock", "AWS_BEARER_TOKEN_BEDROCK"
    framing = "eventstream"
    MAX_TOKENS = 1024

    def url(self, base: str, model: str, stream: bool) -> str:
        return f"{base}/model/{url_quote(model, safe='')}/{'converse-stream' if stream else 'converse'}"

    def user(self, text: str) -> dict[str, Any]:
        return {"role": "user", "content": [{"text": text}]}

    def results(self, replies: Sequence[Reply]) -> list[dict[str, Any]]:
        return [{"role": "user", "content": [
            {"toolResult": {"toolUseId": r.call_id, "content": [{"text": r.text}]}} for r in replies]}]

    def replay(self, response: Any) -> list[dict[str, Any]]:
        message = _dict(_dict(_dict(response).get("output")).get("message"))
        blocks = []
        for block in _list(message.get("content")):
            block = dict(_dict(block))
            if "toolUse" in block:
                use = dict(_dict(block["toolUse"]))
                use["input"] = _object(use.get("input"))
                block["toolUse"] = use
            blocks.append(block)
        return [{"role": "assistant", "content": blocks}]

    def body(self, model: str, system: str, tool: Tool, choice: Choice, history: list[dict[str, Any]],
             stream: bool) -> dict[str, Any]:
        spec = {"toolSpec": {"name": tool.name, "description": tool.description,
                             "inputSchema": {"json": tool.schema}}}
        picked = {"tool": {"tool": {"name": tool.name}}, "required": {"any": {}},
                  "auto": {"auto": {}}}[choice]
        return {"system": [{"text": system}], "messages": history,
                "inferenceConfig": {"maxTokens": self.MAX_TOKENS},
                "toolConfig": {"tools": [spec], "toolChoice": picked}}


APIS: dict[str, Api] = {api.name: api for api in (OpenAIChat(), OpenAIResponses(), Anthropic(), Gemini(),
                                                   Bedrock())}
