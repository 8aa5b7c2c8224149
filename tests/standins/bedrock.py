"""Bedrock Converse, `POST /model/{modelId}/converse` and `/converse-stream`, with a Bedrock API key
(`Authorization: Bearer …`, the `AWS_BEARER_TOKEN_BEDROCK` the AWS SDKs read).

Validation (400, header `x-amzn-errortype: ValidationException`, body `{"message": …}`), in the API's
words as quoted in public issues (/work/shared/reference/formats.md §5.4):

* `toolUse`/`toolResult` blocks in a request without `toolConfig` — "The toolConfig field must be
  defined when using toolUse and toolResult content blocks." (langgenius/dify#16421);
* a `toolUse` not answered in the next message — "Expected toolResult blocks at messages.N.content
  for the following Ids: …" (zeroclaw-labs/zeroclaw#1476);
* an empty text block — "The text field in the ContentBlock object at messages.N.content.M is blank.
  Add text to the text field, and try again." (aws-samples/bedrock-engineer#8);
* a message with no content — "The content field in the Message object at messages.N is empty. Add
  a ContentBlock object to the content field and try again." (earendil-works/pi#3443).

A wrong key: 403 `{"Message":"Authentication failed: Please make sure your API Key is valid."}`
(anomalyco/opencode#47073). ConverseStream answers in AWS event-stream binary frames (§5.3): each
event's name in the `:event-type` header, its payload the bare event with a random-looking `p`
padding key: `messageStart`, a text block's `contentBlockDelta`s (no start for text), a call's
`contentBlockStart` and its input as JSON string fragments, `contentBlockStop`, `messageStop`, then
`metadata`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from tests.fuzz.mutate import encode_frame, string_header

from .model import Ask, Call, Reply, Result, Turn
from .wire import Auth, Failure, Route, bearer, halves, pieces, token

NAME = "bedrock"
_PATH = re.compile(r"/model/(?P<model>[^/]+)/(?P<method>converse|converse-stream)")
CONTENT_TYPE = "application/vnd.amazon.eventstream"


def route(path: str, query: dict[str, str]) -> Route | None:
    found = _PATH.fullmatch(path)
    if found is None:
        return None
    return Route(stream=found["method"] == "converse-stream", model=unquote(found["model"]))


def error(status: int, message: str, kind: str = "ValidationException") -> Failure:
    return Failure(status, {"message": message}, {"x-amzn-errortype": kind})


AUTH = Auth(credential=bearer, refuse=lambda key: Failure(
    403, {"Message": "Authentication failed: Please make sure your API Key is valid."},
    {"x-amzn-errortype": "AccessDeniedException"}))


def invalid(body: dict[str, Any]) -> Failure | None:
    messages = body.get("messages") or []
    blocks = [b for m in messages for b in m.get("content") or []]
    if "toolConfig" not in body and any("toolUse" in b or "toolResult" in b for b in blocks):
        return error(400, "The toolConfig field must be defined when using toolUse and toolResult content blocks.")
    for i, message in enumerate(messages):
        content = message.get("content") or []
        if not content:
            return error(400, f"The content field in the Message object at messages.{i} is empty. Add a "
                              "ContentBlock object to the content field and try again.")
        for j, block in enumerate(content):
            if "text" in block and not str(block["text"]).strip():
                return error(400, f"The text field in the ContentBlock object at messages.{i}.content.{j} is "
                                  "blank. Add text to the text field, and try again.")
        uses = [b["toolUse"].get("toolUseId") for b in content if "toolUse" in b]
        if uses and i + 1 < len(messages):
            answered = {b["toolResult"].get("toolUseId") for b in messages[i + 1].get("content") or []
                        if "toolResult" in b}
            missing = [u for u in uses if u not in answered]
            if missing:
                return error(400, f"Expected toolResult blocks at messages.{i + 1}.content for the following Ids: "
                                  + ", ".join(missing))
    return None


def ask(body: dict[str, Any]) -> Ask:
    turns = []
    for message in body.get("messages") or []:
        content = message.get("content") or []
        text = "".join(b["text"] for b in content if "text" in b)
        calls = tuple(Call(b["toolUse"]["name"], b["toolUse"].get("input"), b["toolUse"].get("toolUseId"))
                      for b in content if "toolUse" in b)
        results = tuple(Result(_said(b["toolResult"].get("content")), b["toolResult"].get("toolUseId"))
                        for b in content if "toolResult" in b)
        turns.append(Turn(message.get("role", "user"), text, calls, results))
    config = body.get("toolConfig") or {}
    tools = {t["toolSpec"]["name"]: (t["toolSpec"].get("inputSchema") or {}).get("json") or {}
             for t in config.get("tools") or [] if "toolSpec" in t}
    choice = config.get("toolChoice") or {"auto": {}}
    if "tool" in choice:
        return Ask(tuple(turns), tools, "tool", choice["tool"].get("name"))
    return Ask(tuple(turns), tools, "required" if "any" in choice else "auto")


def respond(body: dict[str, Any], reply: Reply, n: int, model: str | None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    for k, (name, arguments) in enumerate(reply.calls):
        content.append({"toolUse": {"toolUseId": f"tooluse_{token(n, k, 22)}", "name": name, "input": arguments}})
    return {"output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "tool_use" if reply.calls else "end_turn",
            "usage": {"inputTokens": 60 * n, "outputTokens": 20, "totalTokens": 60 * n + 20},
            "metrics": {"latencyMs": 120}}


def _double_encoded(response: dict[str, Any]) -> None:
    """Each `toolUse`'s `input` JSON-encoded: a string where the API sends an object (TD204)."""
    for block in response["output"]["message"]["content"]:
        if "toolUse" in block:
            block["toolUse"]["input"] = json.dumps(block["toolUse"]["input"])


def _tool_use_stop(response: dict[str, Any]) -> None:
    """`stopReason: "tool_use"` whatever the message holds: on a text answer, a reason with no call
    (TD602)."""
    response["stopReason"] = "tool_use"


#: The defects a test can plant in every answer (`standin(plant=…)`).
PLANTS = {"double-encoded-arguments": _double_encoded, "finish-reason-mismatch": _tool_use_stop}


def frame(name: str, payload: dict[str, Any]) -> bytes:
    """One event-stream frame as Bedrock sends it (`p`: the padding it adds to every payload)."""
    headers = [string_header(":event-type", name), string_header(":content-type", "application/json"),
               string_header(":message-type", "event")]
    return encode_frame(headers, json.dumps({**payload, "p": "abcdefghijklmnopqrstuvwxyz"[:len(name)]}).encode())


def stream(body: dict[str, Any], response: dict[str, Any]) -> Iterator[bytes]:
    yield frame("messageStart", {"role": "assistant"})
    for index, block in enumerate(response["output"]["message"]["content"]):
        if "text" in block:
            for piece in pieces(block["text"]):
                yield frame("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": piece}})
        else:
            use = block["toolUse"]
            yield frame("contentBlockStart", {"contentBlockIndex": index,
                                              "start": {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}})
            for piece in halves(json.dumps(use["input"])):
                yield frame("contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": piece}}})
        yield frame("contentBlockStop", {"contentBlockIndex": index})
    yield frame("messageStop", {"stopReason": response["stopReason"]})
    yield frame("metadata", {"usage": response["usage"], "metrics": response["metrics"]})


def _said(content: Any) -> str:
    out = []
    for block in content or []:
        if "text" in block:
            out.append(block["text"])
        elif "json" in block:
            out.append(json.dumps(block["json"]))
    return "".join(out)
