"""A pass-through relay for any of the five APIs, in front of a stand-in (`tests/standins`), with
the faults relays ("API transit stations") are known for, each switched on by name (`FAULTS`). The
client speaks the upstream's own API to it: same paths, same key (passed on), same bodies — but for
what a fault changes. Streamed answers are re-sent to the client an event (or an event-stream frame)
at a time.

    with standin("anthropic") as upstream, relaying("anthropic", upstream, {"drop-tools"}) as relay:
        ...  # relay.base_url is what the SDK is given

A fault that has nothing to act on in an API (Gemini streams carry no fragment index) is listed in
`NOT_IN`, with the reason."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from tests.relay.servers import Quiet, serving, url
from tests.standins.bedrock import frame
from tests.standins.provider import Provider
from tooldbg.records import eventstream

FAULTS = {
    "drop-tools": "the request goes upstream without its tools and tool choice",
    "strip-schema": "every tool's parameter schema goes upstream as a bare {\"type\": \"object\"}",
    "arguments-reshaped": "a call's arguments reach the client in the other shape: an object where OpenAI sends "
                          "a JSON string, a JSON string where Anthropic, Gemini and Bedrock send an object "
                          "(answers that are not streamed)",
    "reject-tool-results": "a request carrying tool results is refused with a 400 naming the result's role or block",
    "drop-tool-results": "tool results, and the calls they answer, are left out of the history sent upstream",
    "pair-by-position": "the i-th result sent upstream is given the i-th call's id, whatever id it had",
    "reindex-stream": "a streamed call's fragments carry an index one past the call's (the position of a "
                      "content block leaking into the call's index)",
    "truncate-stream": "a streamed answer is cut after its first argument fragment",
}
#: api → {fault: why it has nothing to act on there}
NOT_IN = {"gemini": {"reindex-stream": "Gemini streams each call whole in one chunk, with no fragment index"}}


# -- what each fault does to each API's bodies ---------------------------------------------------------

def _calls_and_results(api: str, body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The last turn of calls in the request and the results after it, as the dicts that hold each
    call's id and each result's: (calls, results), in order."""
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    if api == "openai-chat":
        for message in body.get("messages") or []:
            if message.get("tool_calls"):
                calls, results = list(message["tool_calls"]), []
            elif message.get("role") == "tool":
                results.append(message)
    elif api == "openai-responses":
        for item in body.get("input") or []:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "function_call":
                calls, results = ([], []) if results else (calls, results)
                calls.append(item)
            elif kind == "function_call_output":
                results.append(item)
    else:
        key, block_call, block_result = {"anthropic": ("content", "tool_use", "tool_result"),
                                         "gemini": ("parts", "functionCall", "functionResponse"),
                                         "bedrock": ("content", "toolUse", "toolResult")}[api]
        for message in body.get({"gemini": "contents"}.get(api, "messages")) or []:
            blocks = message.get(key) if isinstance(message.get(key), list) else []
            found_calls = [_block(api, b, block_call) for b in blocks if _is(api, b, block_call)]
            found_results = [_block(api, b, block_result) for b in blocks if _is(api, b, block_result)]
            if found_calls:
                calls, results = found_calls, []
            results.extend(found_results)
    return calls, results


def _is(api: str, block: dict[str, Any], kind: str) -> bool:
    return block.get("type") == kind if api == "anthropic" else kind in block


def _block(api: str, block: dict[str, Any], kind: str) -> dict[str, Any]:
    return block if api == "anthropic" else block[kind]


_ID_KEYS = {"openai-chat": ("id", "tool_call_id"), "openai-responses": ("call_id", "call_id"),
            "anthropic": ("id", "tool_use_id"), "gemini": ("id", "id"), "bedrock": ("toolUseId", "toolUseId")}


def pair_by_position(api: str, body: dict[str, Any]) -> None:
    calls, results = _calls_and_results(api, body)
    call_key, result_key = _ID_KEYS[api]
    for call, result in zip(calls, results, strict=False):
        result[result_key] = call.get(call_key)
        if api == "gemini":
            result["name"] = call.get("name")


def has_results(api: str, body: dict[str, Any]) -> bool:
    return bool(_calls_and_results(api, body)[1])


def drop_results(api: str, body: dict[str, Any]) -> None:
    """Every call and result out of the history (what is left may be no message at all)."""
    if api == "openai-chat":
        body["messages"] = [m for m in body["messages"] if m.get("role") != "tool" and not m.get("tool_calls")]
    elif api == "openai-responses":
        body["input"] = [i for i in body["input"] if not (isinstance(i, dict) and i.get("type") in
                                                          ("function_call", "function_call_output"))]
    else:
        key = {"gemini": "parts"}.get(api, "content")
        kinds = {"anthropic": ("tool_use", "tool_result"), "gemini": ("functionCall", "functionResponse"),
                 "bedrock": ("toolUse", "toolResult")}[api]
        listed = {"gemini": "contents"}.get(api, "messages")
        kept = []
        for message in body[listed]:
            blocks = message.get(key)
            if isinstance(blocks, list):
                blocks = [b for b in blocks if not any(_is(api, b, kind) for kind in kinds)]
                if not blocks:
                    continue
                message = {**message, key: blocks}
            kept.append(message)
        body[listed] = kept


def drop_tools(api: str, body: dict[str, Any]) -> None:
    for key in {"gemini": ("tools", "toolConfig"), "bedrock": ("toolConfig",)}.get(
            api, ("tools", "tool_choice", "parallel_tool_calls")):
        body.pop(key, None)


def strip_schema(api: str, body: dict[str, Any]) -> None:
    bare = {"type": "object"}
    for tool in body.get("tools") or []:
        if api == "openai-chat":
            tool["function"]["parameters"] = bare
        elif api == "openai-responses":
            tool["parameters"] = bare
        elif api == "anthropic":
            tool["input_schema"] = bare
        else:
            for declaration in tool.get("functionDeclarations") or []:
                declaration.pop("parameters", None)
                declaration["parametersJsonSchema"] = bare
    for tool in (body.get("toolConfig") or {}).get("tools") or [] if api == "bedrock" else []:
        tool["toolSpec"]["inputSchema"] = {"json": bare}


def _reshape(value: Any, to_string: bool) -> Any:
    if to_string:
        return value if isinstance(value, str) else json.dumps(value)
    return json.loads(value) if isinstance(value, str) else value


def reshape_arguments(api: str, response: dict[str, Any]) -> None:
    if api == "openai-chat":
        for choice in response.get("choices") or []:
            for call in choice["message"].get("tool_calls") or []:
                call["function"]["arguments"] = _reshape(call["function"]["arguments"], False)
    elif api == "openai-responses":
        for item in response.get("output") or []:
            if item.get("type") == "function_call":
                item["arguments"] = _reshape(item["arguments"], False)
    elif api == "anthropic":
        for block in response.get("content") or []:
            if block.get("type") == "tool_use":
                block["input"] = _reshape(block["input"], True)
    elif api == "gemini":
        for candidate in response.get("candidates") or []:
            for part in candidate["content"]["parts"]:
                if "functionCall" in part:
                    part["functionCall"]["args"] = _reshape(part["functionCall"]["args"], True)
    else:
        for block in response["output"]["message"]["content"]:
            if "toolUse" in block:
                block["toolUse"]["input"] = _reshape(block["toolUse"]["input"], True)


#: The relay's own refusal of tool results, in the API's error shape.
REFUSALS = {
    "openai-chat": (400, {"error": {"message": "Invalid value: 'tool'. Supported values are: 'system', 'assistant', "
                                               "and 'user'.", "type": "invalid_request_error",
                                    "param": "messages[2].role", "code": "invalid_value"}}),
    "openai-responses": (400, {"error": {"message": "Invalid value: 'function_call_output'. Supported values are: "
                                                    "'message' and 'function_call'.",
                                         "type": "invalid_request_error", "param": "input[2].type",
                                         "code": "invalid_value"}}),
    "anthropic": (400, {"type": "error", "error": {"type": "invalid_request_error", "message":
                                                   "messages.2.content.0: Input tag 'tool_result' found using "
                                                   "'type' does not match any of the expected tags: 'text', 'image'"}}),
    "gemini": (400, {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message":
                               "Invalid JSON payload received. Unknown name \"functionResponse\" at "
                               "'contents[2].parts[0]': Cannot find field."}}),
    "bedrock": (400, {"message": "This relay does not accept toolResult content blocks (messages.2.content.0)."}),
}


# -- streams -------------------------------------------------------------------------------------------

Event = tuple[str | None, Any]  # (SSE event name or Bedrock :event-type, parsed payload)


def _events(api: str, data: bytes) -> Iterator[Event]:
    if api == "bedrock":
        yield from ((e.name, e.data) for e in eventstream.parse(data))
        return
    for block in re.split(r"\r?\n\r?\n", data.decode()):
        name, lines = None, []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                lines.append(line[5:].strip())
        if lines:
            text = "\n".join(lines)
            yield name, text if text == "[DONE]" else json.loads(text)


def _encode(api: str, event: Event) -> bytes:
    name, data = event
    if api == "bedrock":
        return frame(name or "", data)
    text = data if isinstance(data, str) else json.dumps(data)
    end = "\r\n\r\n" if api == "gemini" else "\n\n"
    return ((f"event: {name}\n" if name else "") + f"data: {text}{end}").encode()


def _fragment(api: str, data: Any) -> dict[str, Any] | None:
    """The dict holding a call fragment's index (or the call, for Gemini) if this event is one."""
    if not isinstance(data, dict):
        return None
    if api == "openai-chat":
        for choice in data.get("choices") or []:
            for call in choice["delta"].get("tool_calls") or []:
                if (call.get("function") or {}).get("arguments"):
                    return call
    elif api == "openai-responses":
        if data.get("type") == "response.function_call_arguments.delta":
            return data
    elif api == "anthropic":
        delta = data.get("delta") or {}
        if data.get("type") == "content_block_delta" and delta.get("type") == "input_json_delta" \
                and delta.get("partial_json"):
            return data
    elif api == "gemini":
        parts = [p for c in data.get("candidates") or [] for p in (c.get("content") or {}).get("parts") or []]
        return next((p for p in parts if "functionCall" in p), None)
    elif "toolUse" in (data.get("delta") or {}):
        return data
    return None


_INDEX_KEYS = {"openai-chat": "index", "openai-responses": "output_index", "anthropic": "index",
               "bedrock": "contentBlockIndex"}


def relayed_stream(api: str, data: bytes, faults: set[str]) -> Iterator[bytes]:
    for event in _events(api, data):
        fragment = _fragment(api, event[1])
        if fragment is not None and "reindex-stream" in faults and api in _INDEX_KEYS:
            fragment[_INDEX_KEYS[api]] += 1
        yield _encode(api, event)
        if fragment is not None and "truncate-stream" in faults:
            return


# -- the relay -----------------------------------------------------------------------------------------

class FaultyRelay(Quiet):
    """`server.api` names the API, `server.upstream` is the stand-in's root URL, `server.faults` the
    `FAULTS` switched on."""

    server_version = "faulty-relay/1"

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        api: str = self.server.api  # type: ignore[attr-defined]
        faults: set[str] = self.server.faults  # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
        if "reject-tool-results" in faults and has_results(api, body):
            status, refusal = REFUSALS[api]
            self.answer(status, "application/json", [json.dumps(refusal).encode()])
            return
        for fault, change in (("drop-tools", drop_tools), ("strip-schema", strip_schema),
                              ("drop-tool-results", drop_results), ("pair-by-position", pair_by_position)):
            if fault in faults:
                change(api, body)
        status, kind, data = self.upstream(body)
        if status == 200 and "stream" in kind:
            self.answer(status, kind, relayed_stream(api, data, faults))
            return
        if status == 200 and "arguments-reshaped" in faults:
            answer = json.loads(data)
            reshape_arguments(api, answer)
            data = json.dumps(answer).encode()
        self.answer(status, kind, [data])

    def upstream(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        root = urlsplit(self.server.upstream)  # type: ignore[attr-defined]
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
        connection = http.client.HTTPConnection(root.hostname, root.port, timeout=10)
        try:
            connection.request("POST", self.path, json.dumps(body).encode(), headers)
            response = connection.getresponse()
            return response.status, response.getheader("content-type", ""), response.read()
        finally:
            connection.close()

    def answer(self, status: int, kind: str, pieces: Any) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("connection", "close")
        self.end_headers()
        for piece in pieces:
            self.wfile.write(piece)
            self.wfile.flush()


@contextmanager
def relaying(api: str, upstream: Provider, faults: set[str] = frozenset(), limit: int = 20) -> Iterator[Provider]:
    """The relay in front of `upstream`, as a `Provider` (its `base_url` is what the SDK is given)."""
    unknown = set(faults) - set(FAULTS)
    assert not unknown, f"no such fault: {sorted(unknown)}"
    with serving(FaultyRelay, limit=limit, api=api, upstream=upstream.url, faults=set(faults)) as server:
        yield Provider(api, url(server), upstream.key, upstream.requests)
