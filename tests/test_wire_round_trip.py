"""Wire → canonical → wire, from generated wire requests: a well-formed request of a format, read
and written back by that format, is the request it was, with no loss.

The other round trips start from the canonical form (tests/test_properties.py), so they never meet
a wire shape the canonical form has no slot for — two system messages in a row came back as one
that way, with nothing said. These start from the wire: every shape a format's own request may
take for the parts tooldbg models (system and developer messages, string and array content, named
messages, parallel calls and their results, a tool message of an array, images), in any order a
provider accepts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import WIRE_FORMATS, assert_losses_explain
from tooldbg import formats
from tooldbg.model import Conversation, Text, Turn
from tooldbg.source import Source

_PATCH = "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
_TEXTS = st.sampled_from(["Be terse.", "Paris?", "It is 21 °C.", "ok", " spaced ", "line\nbreak"])
_NAMES = st.sampled_from(["get_weather", "run_sql"])
_ARGUMENTS = st.sampled_from(['{"city":"Paris"}', "{}", '{"q":"select 1","n":[1,2]}'])


def _as_parts(content: Any, kind: str = "text") -> Any:
    """A string content as the array of one text part it means: the writers choose one spelling
    (Chat a string for one plain text, Anthropic always an array), and the two are one request to
    the provider."""
    return [{"type": kind, "text": content}] if isinstance(content, str) else content


def _read(name: str, body: dict[str, Any]) -> Conversation:
    request = formats.get(name).read_request(body, Source(file="t.json", side="request"))
    return Conversation(model=request.model, system=request.system, tools=request.tools,
                        tool_choice=request.tool_choice, turns=request.turns, meta=request.meta,
                        settings=request.settings)


def _written_back(name: str, body: dict[str, Any]) -> tuple[dict[str, Any], tuple[Any, ...]]:
    written = formats.get(name).write(_read(name, body))
    return written.body, written.losses


# ------------------------------------------------------------------------- OpenAI Chat Completions


@st.composite
def _chat_text_content(draw: st.DrawFn) -> Any:
    """A string, or an array of text (and, for a user, image) parts."""
    if draw(st.booleans()):
        return draw(_TEXTS)
    return [{"type": "text", "text": draw(_TEXTS)} for _ in range(draw(st.integers(1, 2)))]


@st.composite
def chat_requests(draw: st.DrawFn) -> dict[str, Any]:
    """Leading system/developer messages (named or not), then user questions, assistant answers and
    parallel calls whose tool messages follow them, a system message in between at times."""
    messages: list[dict[str, Any]] = []
    custom = draw(st.integers(0, 4)) == 0  # (a freeform tool's calls, as Codex makes them)
    for _ in range(draw(st.integers(0, 3))):
        content = "" if draw(st.integers(0, 5)) == 0 else draw(_chat_text_content())  # (an empty prompt)
        message = {"role": draw(st.sampled_from(["system", "developer"])), "content": content}
        if draw(st.integers(0, 3)) == 0:
            message["name"] = "ops"
        messages.append(message)
    calls = 0
    for _ in range(draw(st.integers(1, 3))):
        user: dict[str, Any] = {"role": "user", "content": draw(_chat_text_content())}
        if isinstance(user["content"], list):
            user["content"].extend(draw(st.lists(st.sampled_from(_CHAT_MEDIA), max_size=2)))
        if draw(st.integers(0, 3)) == 0:
            user["name"] = "alice"
        messages.append(user)
        if draw(st.integers(0, 3)) == 0:
            messages.append({"role": "system", "content": draw(_TEXTS)})
        for _ in range(draw(st.integers(0, 2))):
            ids = [f"call_{calls + k}" for k in range(draw(st.integers(1, 3)))]
            calls += len(ids)
            assistant: dict[str, Any] = {"role": "assistant", "tool_calls": [
                {"id": i, "type": "custom", "custom": {"name": "apply_patch", "input": _PATCH}} if custom else
                {"id": i, "type": "function", "function": {"name": draw(_NAMES), "arguments": draw(_ARGUMENTS)}}
                for i in ids]}
            content = draw(st.sampled_from(["absent", None, "", "Looking.", [{"type": "text", "text": "Looking."}]]))
            if content != "absent":
                assistant["content"] = content
            if draw(st.integers(0, 3)) == 0:
                assistant["reasoning_content"] = "The user wants the weather."  # (DeepSeek's field)
            messages.append(assistant)
            messages.extend({"role": "tool", "tool_call_id": i, "content": draw(_chat_text_content())}
                            for i in ids)
        answer: dict[str, Any] = {"role": "assistant", "content": draw(_TEXTS)}
        if draw(st.integers(0, 5)) == 0:  # (the model refused: `refusal` beside a null content)
            answer = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
        messages.append(answer)
    body: dict[str, Any] = {"model": "gpt-4o", "messages": messages}
    if custom or draw(st.booleans()):
        body["tools"] = [{"type": "function", "function": {"name": n, "description": "d", "parameters": {
            "type": "object", "properties": {}}}} for n in ("get_weather", "run_sql")]
        if custom:
            body["tools"].append({"type": "custom", "custom": {"name": "apply_patch", "description": "Edit files"}})
        body["tool_choice"] = draw(st.sampled_from(["auto", "required", "none", {
            "type": "function", "function": {"name": "run_sql"}}]))
        if draw(st.booleans()):
            body["parallel_tool_calls"] = draw(st.booleans())
    body.update(draw(st.dictionaries(st.sampled_from(sorted(_CHAT_PARAMETERS)), st.just(None), max_size=4)))
    return {k: _CHAT_PARAMETERS[k] if k in _CHAT_PARAMETERS else v for k, v in body.items()}


#: A user message's media parts (the API reference's `ChatCompletionContentPart`s).
_CHAT_MEDIA = [
    {"type": "image_url", "image_url": {"url": "https://x.example/a.png"}},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO", "detail": "low"}},
    {"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}},
    {"type": "file", "file": {"file_id": "file-abc"}},
    {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
]

#: Request parameters a client sets (the API reference's names and values).
_CHAT_PARAMETERS: dict[str, Any] = {
    "temperature": 0.2, "top_p": 0.9, "max_completion_tokens": 512, "max_tokens": 256, "stop": ["END"],
    "stream": True, "stream_options": {"include_usage": True}, "seed": 7, "user": "u-1",
    "response_format": {"type": "json_object"}, "metadata": {"run": "1"}, "n": 1,
    "reasoning_effort": "low", "store": False}


def _chat_spelled(body: dict[str, Any]) -> dict[str, Any]:
    """A string content as its array of one text part. An assistant message of calls says it has no
    text as null, "" or no `content` at all, and the writer writes null: the canonical form has one
    turn for the three, so that a response's null and its replay's "" (the Vercel AI SDK's) stitch
    as the same turn."""
    def message(m: dict[str, Any]) -> dict[str, Any]:
        if m.get("tool_calls") and m.get("content") in ("", None):
            return {**m, "content": None}
        return {**m, "content": _as_parts(m["content"])} if m.get("content") is not None else m

    return {**body, "messages": list(map(message, body["messages"]))}


@st.composite
def chat_legacy_requests(draw: st.DrawFn) -> dict[str, Any]:
    """The functions API older clients still send: `functions`, an assistant's single
    `function_call`, its result in a `function` message."""
    messages: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(_TEXTS)})
        for _ in range(draw(st.integers(0, 2))):
            name = draw(_NAMES)
            messages.append({"role": "assistant", "content": None,
                             "function_call": {"name": name, "arguments": draw(_ARGUMENTS)}})
            messages.append({"role": "function", "name": name, "content": draw(_TEXTS)})
        messages.append({"role": "assistant", "content": draw(_TEXTS)})
    body: dict[str, Any] = {"model": "gpt-3.5-turbo-0613", "messages": messages,
                            "functions": [{"name": n, "parameters": {"type": "object"}}
                                          for n in ("get_weather", "run_sql")]}
    if draw(st.booleans()):
        body["function_call"] = draw(st.sampled_from(["auto", "none", {"name": "run_sql"}]))
    return body


# ------------------------------------------------------------------------------ Anthropic Messages

_INPUTS = st.sampled_from([{"city": "Paris"}, {}, {"q": "select 1", "n": [1, 2]}])
_CACHE = {"cache_control": {"type": "ephemeral"}}


@st.composite
def _anthropic_text(draw: st.DrawFn) -> dict[str, Any]:
    block = {"type": "text", "text": draw(_TEXTS)}
    return {**block, **_CACHE} if draw(st.integers(0, 4)) == 0 else block


@st.composite
def anthropic_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A system prompt (a string or blocks), then user and assistant messages in turn: thinking
    before calls, parallel calls answered by the next user message's `tool_result` blocks (first,
    then text at times), results of a string, of blocks, failing or not, images, cache points, a
    server tool's search and its result in the model's message."""
    messages: list[dict[str, Any]] = []
    searches = draw(st.integers(0, 4)) == 0
    calls = 0
    for _ in range(draw(st.integers(1, 3))):
        user: list[dict[str, Any]] = [draw(_anthropic_text())]
        user.extend(draw(st.lists(st.sampled_from(_ANTHROPIC_MEDIA), max_size=2)))
        messages.append({"role": "user", "content": draw(st.sampled_from([draw(_TEXTS), user]))})
        for _ in range(draw(st.integers(0, 2))):
            assistant: list[dict[str, Any]] = []
            if draw(st.booleans()):
                assistant.append({"type": "thinking", "thinking": draw(_TEXTS), "signature": "c2ln"})
            if draw(st.integers(0, 4)) == 0:
                assistant.append({"type": "redacted_thinking", "data": "RW5j"})
            if searches:
                assistant.extend(_web_search(f"srvtoolu_0{calls}"))
            if draw(st.booleans()):
                assistant.append(draw(_anthropic_text()))
            ids = [f"toolu_0{calls + k}" for k in range(draw(st.integers(1, 3)))]
            calls += len(ids)
            assistant.extend({"type": "tool_use", "id": i, "name": draw(_NAMES), "input": draw(_INPUTS)}
                             for i in ids)
            messages.append({"role": "assistant", "content": assistant})
            results: list[dict[str, Any]] = []
            for i in ids:
                result: dict[str, Any] = {"type": "tool_result", "tool_use_id": i, "content": draw(st.sampled_from(
                    [draw(_TEXTS), [draw(_anthropic_text())], [draw(_anthropic_text()), _ANTHROPIC_MEDIA[0]]]))}
                if draw(st.booleans()):
                    result["is_error"] = draw(st.booleans())
                results.append(result)
            if draw(st.booleans()):
                results.append(draw(_anthropic_text()))
            messages.append({"role": "user", "content": results})
        messages.append({"role": "assistant", "content": [draw(_anthropic_text())]})
    messages.append({"role": "user", "content": draw(_TEXTS)})  # (one ending on the model's is a prefill)
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages}
    if draw(st.booleans()):
        body["system"] = draw(st.sampled_from([draw(_TEXTS), [draw(_anthropic_text()) for _ in range(2)]]))
    if searches or draw(st.booleans()):
        body["tools"] = [{"name": n, "description": "d", "input_schema": {"type": "object", "properties": {}}}
                         for n in ("get_weather", "run_sql")]
        if searches:
            body["tools"].insert(0, {"type": "web_search_20250305", "name": "web_search", "max_uses": 3})
        body["tool_choice"] = draw(st.sampled_from([{"type": "auto"}, {"type": "any"},
                                                    {"type": "tool", "name": "run_sql"},
                                                    {"type": "auto", "disable_parallel_tool_use": True}]))
        if draw(st.booleans()):
            body["tools"][-1] = {**body["tools"][-1], **_CACHE}
    keys = draw(st.lists(st.sampled_from(sorted(_ANTHROPIC_PARAMETERS)), max_size=4, unique=True))
    return {**body, **{k: _ANTHROPIC_PARAMETERS[k] for k in keys}}


def _web_search(server_id: str) -> list[dict[str, Any]]:
    """A web search the server ran within the model's message (the Messages API's server tools)."""
    return [{"type": "server_tool_use", "id": server_id, "name": "web_search", "input": {"query": "Paris weather"}},
            {"type": "web_search_tool_result", "tool_use_id": server_id, "content": [
                {"type": "web_search_result", "url": "https://x.example/paris", "title": "Paris",
                 "encrypted_content": "RW5j", "page_age": "1 day"}]}]


#: Media blocks of a user message (the Messages API reference's image and document sources).
_ANTHROPIC_MEDIA = [
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
    {"type": "image", "source": {"type": "url", "url": "https://x.example/a.png"}},
    {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}},
    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Paris: 21 °C."},
     "title": "Forecast", "citations": {"enabled": True}},
]

#: Request parameters a client sets (the Messages API reference's names and values).
_ANTHROPIC_PARAMETERS: dict[str, Any] = {
    "temperature": 0.2, "top_p": 0.9, "top_k": 5, "stop_sequences": ["END"], "stream": True,
    "metadata": {"user_id": "u-1"}, "thinking": {"type": "enabled", "budget_tokens": 1024},
    "service_tier": "auto"}


def _anthropic_spelled(body: dict[str, Any]) -> dict[str, Any]:
    """A string content or system as its array of one text block; a `tool_result`'s content too.
(`is_error: false` is the flag's default, which the writer leaves out.)"""
    def message(m: dict[str, Any]) -> dict[str, Any]:
        return {**m, "content": [_anthropic_result(b) if b.get("type") == "tool_result" else b
                                 for b in _as_parts(m["content"])]}

    spelled = {**body, "messages": list(map(message, body["messages"]))}
    if "system" in body:
        spelled["system"] = _as_parts(body["system"])
    return spelled


def _anthropic_result(block: dict[str, Any]) -> dict[str, Any]:
    spelled = {k: v for k, v in block.items() if not (k == "is_error" and v is False)}
    return {**spelled, "content": _as_parts(block["content"])}


# --------------------------------------------------------------------------------- OpenAI Responses


@st.composite
def responses_requests(draw: st.DrawFn) -> dict[str, Any]:
    """Instructions, leading system and developer messages, user messages (a string or input parts),
    reasoning items before calls, parallel `function_call`s and their outputs, assistant answers."""
    def message(role: str, kind: str) -> dict[str, Any]:
        content = draw(st.sampled_from([draw(_TEXTS), [{"type": kind, "text": draw(_TEXTS)}
                                                       for _ in range(draw(st.integers(1, 2)))]]))
        return {"role": role, "content": content}

    items = [message(draw(st.sampled_from(["system", "developer"])), "input_text")
             for _ in range(draw(st.integers(0, 3)))]
    custom = draw(st.integers(0, 4)) == 0
    calls = 0
    for _ in range(draw(st.integers(1, 3))):
        items.append(message("user", "input_text"))
        for _ in range(draw(st.integers(0, 2))):
            if draw(st.booleans()):
                items.append({"type": "reasoning", "id": f"rs_{calls}", "summary": [
                    {"type": "summary_text", "text": draw(_TEXTS)}], "encrypted_content": "gAAA"})
            ids = [f"call_{calls + k}" for k in range(draw(st.integers(1, 3)))]
            calls += len(ids)
            if custom:
                items.extend({"type": "custom_tool_call", "call_id": i, "name": "apply_patch", "input": _PATCH}
                             for i in ids)
                items.extend({"type": "custom_tool_call_output", "call_id": i, "output": draw(_TEXTS)} for i in ids)
                continue
            items.extend({"type": "function_call", "call_id": i, "name": draw(_NAMES),
                          "arguments": draw(_ARGUMENTS)} for i in ids)
            items.extend({"type": "function_call_output", "call_id": i, "output": draw(_TEXTS)} for i in ids)
        if draw(st.integers(0, 4)) == 0:  # (a hosted tool's call, replayed as the API returned it)
            items.append({"type": "web_search_call", "id": f"ws_{calls}", "status": "completed",
                          "action": {"type": "search", "query": "Paris weather"}})
        if draw(st.integers(0, 5)) == 0:
            items.append({"type": "item_reference", "id": f"msg_{calls}"})
        items.append(message("assistant", "output_text"))
    items.append(message("user", "input_text"))
    body: dict[str, Any] = {"model": "gpt-5", "input": items}
    if draw(st.booleans()):
        body["instructions"] = draw(_TEXTS)
    if custom or draw(st.booleans()):
        body["tools"] = [{"type": "function", "name": n, "description": "d", "parameters": {
            "type": "object", "properties": {}}} for n in ("get_weather", "run_sql")]
        if custom:
            body["tools"].append({"type": "custom", "name": "apply_patch", "description": "Edit files"})
        body["tool_choice"] = draw(st.sampled_from(["auto", "required", "none", {"type": "function",
                                                                                  "name": "run_sql"}]))
        if draw(st.booleans()):
            body["parallel_tool_calls"] = draw(st.booleans())
    keys = draw(st.lists(st.sampled_from(sorted(_RESPONSES_PARAMETERS)), max_size=4, unique=True))
    return {**body, **{k: _RESPONSES_PARAMETERS[k] for k in keys}}


#: Request parameters a client sets (the Responses API reference's names and values).
_RESPONSES_PARAMETERS: dict[str, Any] = {
    "temperature": 0.2, "top_p": 0.9, "max_output_tokens": 512, "stream": True, "store": False,
    "reasoning": {"effort": "low", "summary": "auto"}, "include": ["reasoning.encrypted_content"],
    "text": {"verbosity": "low"}, "truncation": "auto", "metadata": {"run": "1"}}


def _responses_spelled(body: dict[str, Any]) -> dict[str, Any]:
    """A string content as its array of one input (or, from the model, output) text part."""
    def item(i: dict[str, Any]) -> dict[str, Any]:
        if "role" not in i:
            return i
        kind = "output_text" if i["role"] == "assistant" else "input_text"
        return {**i, "content": _as_parts(i["content"], kind)}

    return {**body, "input": list(map(item, body["input"]))}


# ----------------------------------------------------------------------------------------- Gemini


@st.composite
def gemini_requests(draw: st.DrawFn) -> dict[str, Any]:
    """A system instruction, user questions, model turns of text and parallel `functionCall`s (a
    thought signature on the first at times), answered by one user content of `functionResponse`s
    in the same order, model answers."""
    contents: list[dict[str, Any]] = []
    executes = draw(st.integers(0, 4)) == 0  # (the model ran code: the codeExecution tool)
    for _ in range(draw(st.integers(1, 3))):
        contents.append({"role": "user", "parts": [*({"text": draw(_TEXTS)} for _ in range(draw(st.integers(1, 2)))),
                                                   *draw(st.lists(st.sampled_from(_GEMINI_MEDIA), max_size=2))]})
        for _ in range(draw(st.integers(0, 2))):
            names = [draw(_NAMES) for _ in range(draw(st.integers(1, 3)))]
            calls = [{"functionCall": {"name": n, "args": draw(_INPUTS)}} for n in names]
            if draw(st.booleans()):
                calls[0]["thoughtSignature"] = "c2ln"
            text = [{"text": draw(_TEXTS)}] if draw(st.booleans()) else []
            if draw(st.integers(0, 3)) == 0:
                text.insert(0, {"text": "Planning.", "thought": True})
            if executes:
                text.extend([{"executableCode": {"language": "PYTHON", "code": "print(6 * 7)"}},
                             {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n"}}])
            contents.append({"role": "model", "parts": [*text, *calls]})
            contents.append({"role": "user", "parts": [
                {"functionResponse": {"name": n, "response": {"result": draw(_TEXTS)}}} for n in names]})
        contents.append({"role": "model", "parts": [{"text": draw(_TEXTS)}]})
    contents.append({"role": "user", "parts": [{"text": draw(_TEXTS)}]})
    body: dict[str, Any] = {"contents": contents}
    if draw(st.booleans()):
        body["systemInstruction"] = {"parts": [{"text": draw(_TEXTS)} for _ in range(draw(st.integers(1, 2)))]}
    if executes or draw(st.booleans()):
        body["tools"] = [{"functionDeclarations": [{"name": n, "description": "d", "parameters": {
            "type": "object", "properties": {}}} for n in ("get_weather", "run_sql")]}]
        if executes:
            body["tools"].append({"codeExecution": {}})
        body["toolConfig"] = {"functionCallingConfig": {"mode": draw(st.sampled_from(["AUTO", "ANY", "NONE"]))}}
    config = draw(st.dictionaries(st.sampled_from(sorted(_GEMINI_CONFIG)), st.none(), max_size=3))
    if config:
        body["generationConfig"] = {k: _GEMINI_CONFIG[k] for k in config}
    if draw(st.integers(0, 3)) == 0:
        body["safetySettings"] = [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]
    return body


#: A user content's media parts (the Gemini API reference's `Blob` and `FileData`).
_GEMINI_MEDIA = [{"inlineData": {"mimeType": "image/png", "data": "iVBO"}},
                 {"fileData": {"mimeType": "application/pdf",
                               "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}}]

#: `generationConfig` fields a client sets (the Gemini API reference's names and values).
_GEMINI_CONFIG: dict[str, Any] = {
    "temperature": 0.2, "topP": 0.9, "maxOutputTokens": 512, "stopSequences": ["END"], "topK": 5,
    "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": True}, "responseMimeType": "text/plain"}


# ---------------------------------------------------------------------------------- Bedrock Converse


@st.composite
def bedrock_requests(draw: st.DrawFn) -> dict[str, Any]:
    """System blocks (a cache point at times), user questions, assistant reasoning, text and parallel
    `toolUse`s answered by the next user message's `toolResult`s (text or JSON, a status or none)."""
    messages: list[dict[str, Any]] = []
    calls = 0
    for _ in range(draw(st.integers(1, 3))):
        user = [{"text": draw(_TEXTS)}, *draw(st.lists(st.sampled_from(_BEDROCK_MEDIA), max_size=2))]
        if draw(st.integers(0, 3)) == 0:
            user.append({"cachePoint": {"type": "default"}})
        messages.append({"role": "user", "content": user})
        for _ in range(draw(st.integers(0, 2))):
            assistant: list[dict[str, Any]] = []
            if draw(st.booleans()):
                assistant.append({"reasoningContent": {"reasoningText": {"text": draw(_TEXTS), "signature": "c2ln"}}})
            if draw(st.booleans()):
                assistant.append({"text": draw(_TEXTS)})
            ids = [f"tooluse_{calls + k}" for k in range(draw(st.integers(1, 3)))]
            calls += len(ids)
            assistant.extend({"toolUse": {"toolUseId": i, "name": draw(_NAMES), "input": draw(_INPUTS)}}
                             for i in ids)
            messages.append({"role": "assistant", "content": assistant})
            results = []
            for i in ids:
                result: dict[str, Any] = {"toolUseId": i, "content": [draw(st.sampled_from(
                    [{"text": draw(_TEXTS)}, {"json": draw(_INPUTS)}, _BEDROCK_MEDIA[0]]))]}
                if draw(st.booleans()):
                    result["status"] = draw(st.sampled_from(["success", "error"]))
                results.append({"toolResult": result})
            messages.append({"role": "user", "content": results})
        messages.append({"role": "assistant", "content": [{"text": draw(_TEXTS).strip()}]})
    messages.append({"role": "user", "content": [{"text": draw(_TEXTS)}]})
    body: dict[str, Any] = {"messages": messages}
    if draw(st.booleans()):
        system: list[dict[str, Any]] = [{"text": draw(_TEXTS)}]
        if draw(st.booleans()):
            system.append({"cachePoint": {"type": "default"}})
        body["system"] = system
    if calls or draw(st.booleans()):  # (Bedrock refuses toolUse blocks without a toolConfig)
        body["toolConfig"] = {"tools": [{"toolSpec": {"name": n, "description": "d", "inputSchema": {"json": {
            "type": "object", "properties": {}}}}} for n in ("get_weather", "run_sql")],
            "toolChoice": draw(st.sampled_from([{"auto": {}}, {"any": {}}, {"tool": {"name": "run_sql"}}]))}
    config = draw(st.dictionaries(st.sampled_from(sorted(_BEDROCK_CONFIG)), st.none(), max_size=3))
    if config:
        body["inferenceConfig"] = {k: _BEDROCK_CONFIG[k] for k in config}
    if draw(st.integers(0, 3)) == 0:
        body["additionalModelRequestFields"] = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    return body


#: A user message's media blocks (the Converse API reference's `ImageBlock`, `DocumentBlock`).
_BEDROCK_MEDIA = [
    {"image": {"format": "png", "source": {"bytes": "iVBO"}}},
    {"document": {"format": "pdf", "name": "report", "source": {"bytes": "JVBERi0="}}},
]

#: `inferenceConfig` fields (the Converse API reference's `InferenceConfiguration`).
_BEDROCK_CONFIG: dict[str, Any] = {"temperature": 0.2, "topP": 0.9, "maxTokens": 1024, "stopSequences": ["END"]}


# ------------------------------------------------------------------------------------ the properties

REQUESTS = {"openai-chat": st.one_of(chat_requests(), chat_legacy_requests()), "anthropic": anthropic_requests(),
            "openai-responses": responses_requests(), "gemini": gemini_requests(), "bedrock": bedrock_requests()}
#: Each format's spellings its writer chooses between, set equal (Gemini and Bedrock have none).
SPELLED = {"openai-chat": _chat_spelled, "anthropic": _anthropic_spelled, "openai-responses": _responses_spelled}


@pytest.mark.parametrize("name", WIRE_FORMATS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_request_is_written_back_as_it_came(name, data):
    body = data.draw(REQUESTS[name])
    written, losses = _written_back(name, body)
    assert losses == ()
    spelled = SPELLED.get(name, lambda body: body)
    assert spelled(written) == spelled(body)


@pytest.mark.parametrize("origin, via", [(f, g) for f in WIRE_FORMATS for g in WIRE_FORMATS if f != g])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_request_written_in_another_format_changes_only_where_a_loss_says(origin, via, data):
    """Read from a generated request of `origin`, written in `via` and read back: every turn that
    changed is named by a loss, and a change to the system prompt, tools or tool choice comes with
    a conversation-level one."""
    conv = _distinct(_read(origin, data.draw(REQUESTS[origin])))
    written = formats.get(via).write(conv)
    back = _read(via, written.body)
    if _declared(origin, back) == _declared(origin, conv):
        back = replace(back, tools=conv.tools)  # (a declaration keeps its own format's spelling: `raw`)
    assert_losses_explain(conv, back, written.losses)


def _declared(name: str, conv: Conversation) -> Any:
    """The conversation's tools as format `name` declares them (its body and losses)."""
    written = formats.get(name).write(Conversation(model="m", tools=conv.tools))
    return written.body, written.losses


def _distinct(conv: Conversation) -> Conversation:
    """The conversation with each turn's texts told apart (the generators draw from a few texts):
    turns that changed are found by aligning the turns before and after as a diff does, and equal
    turns elsewhere would take the place of the changed ones."""
    def told_apart(t: int, turn: Turn) -> Turn:
        return replace(turn, parts=tuple(replace(p, text=f"{p.text} ({t}.{k})") if type(p) is Text else p
                                         for k, p in enumerate(turn.parts)))

    return replace(conv, turns=tuple(told_apart(t, turn) for t, turn in enumerate(conv.turns)))
