"""Gemini API, `POST /v1beta/models/{model}:generateContent` and
`:streamGenerateContent?alt=sse`; the key in `x-goog-api-key` (or `?key=`).

Validation (400 `INVALID_ARGUMENT`), in the API's words as quoted in public issues
(/work/shared/reference/formats.md §4.6):

* a function-response turn not right after a function-call turn — "Please ensure that function
  response turn comes immediately after a function call turn." (langchain-ai/langchain#27799);
* a function-call turn not after a user turn or a function-response turn — "Please ensure that
  function call turn comes immediately after a user turn or after a function response turn."
  (google-gemini/gemini-cli#11814);
* fewer or more responses than calls — "Please ensure that the number of function response parts is
  equal to the number of function call parts of the function call turn." (cloudwego/eino-ext#571);
* ids present on both sides but different — "functionResponse.id does not match functionCall.id"
  (router-for-me/CLIProxyAPI#5199).

A wrong key is a 400 too: "API key not valid. Please pass a valid API key." with reason
`API_KEY_INVALID` (google-gemini/gemini-cli#4690 and others). Every answer ends with
`finishReason: "STOP"`, calls included (§4.3). Calls carry an `id` as the Gemini 3 models return it
(§4.4; `call_ids=False` on the server: none, as Gemini 2.5 answers), and results are then bound by
id, else by position. A stream (`alt=sse`) is `data:` chunks separated by CRLF CRLF (§4.7), each
with the new parts: text a piece at a time, each call whole in a chunk of its own, then a last chunk
with the finish reason and the usage."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .model import Ask, Call, Reply, Result, Turn
from .wire import Auth, Failure, Route, pieces, sse, token

NAME = "gemini"
_PATH = re.compile(r"/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)")


def route(path: str, query: dict[str, str]) -> Route | None:
    found = _PATH.fullmatch(path)
    stream = found is not None and found["method"] == "streamGenerateContent"
    if found is None or (stream and query.get("alt") != "sse"):  # (the JSON-array framing is not served)
        return None
    return Route(stream=stream, model=found["model"])


def error(status: int, message: str, kind: str = "INVALID_ARGUMENT", details: list[Any] | None = None) -> Failure:
    return Failure(status, {"error": {"code": status, "message": message, "status": kind,
                                      **({"details": details} if details else {})}})


def _credential(headers: dict[str, str], query: dict[str, str]) -> str | None:
    return headers.get("x-goog-api-key") or query.get("key")


AUTH = Auth(credential=_credential, refuse=lambda key: error(
    400, "API key not valid. Please pass a valid API key.",
    details=[{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
              "domain": "googleapis.com", "metadata": {"service": "generativelanguage.googleapis.com"}}]))


def _kinds(content: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    parts = content.get("parts") or []
    return ([p["functionCall"] for p in parts if "functionCall" in p],
            [p["functionResponse"] for p in parts if "functionResponse" in p])


def invalid(body: dict[str, Any]) -> Failure | None:
    contents = body.get("contents") or []
    for i, content in enumerate(contents):
        calls, responses = _kinds(content)
        before_calls, before_responses = _kinds(contents[i - 1]) if i else ([], [])
        if responses:
            if not before_calls:
                return error(400, "Please ensure that function response turn comes immediately after a function "
                                  "call turn.")
            if len(responses) != len(before_calls):
                return error(400, "Please ensure that the number of function response parts is equal to the "
                                  "number of function call parts of the function call turn.")
            ids = {c.get("id") for c in before_calls if c.get("id")}
            if any(r.get("id") and ids and r["id"] not in ids for r in responses):
                return error(400, "functionResponse.id does not match functionCall.id")
        if calls and i and contents[i - 1].get("role") == "model" and not before_responses:
            return error(400, "Please ensure that function call turn comes immediately after a user turn or "
                              "after a function response turn.")
    return None


def ask(body: dict[str, Any]) -> Ask:
    turns = []
    for content in body.get("contents") or []:
        parts = content.get("parts") or []
        calls, responses = _kinds(content)
        text = "".join(p.get("text", "") for p in parts if "text" in p)
        turns.append(Turn("assistant" if content.get("role") == "model" else "user", text,
                          tuple(Call(c["name"], c.get("args") or {}, c.get("id")) for c in calls),
                          tuple(Result(_said(r.get("response")), r.get("id"), r.get("name")) for r in responses)))
    tools: dict[str, Any] = {}
    for tool in body.get("tools") or []:
        for declaration in tool.get("functionDeclarations") or []:
            tools[declaration["name"]] = declaration.get("parametersJsonSchema") or declaration.get("parameters") or {}
    config = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
    mode = config.get("mode", "AUTO")
    allowed = config.get("allowedFunctionNames") or []
    if mode == "ANY" and len(allowed) == 1:
        return Ask(tuple(turns), tools, "tool", allowed[0])
    return Ask(tuple(turns), tools, {"ANY": "required", "NONE": "none"}.get(mode, "auto"))


def respond(body: dict[str, Any], reply: Reply, n: int, model: str | None, call_ids: bool = True) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
    for k, (name, arguments) in enumerate(reply.calls):
        call: dict[str, Any] = {"name": name, "args": arguments}
        if call_ids:
            call["id"] = f"call_{token(n, k, 8)}"
        parts.append({"functionCall": call})
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 60 * n, "candidatesTokenCount": 20, "totalTokenCount": 60 * n + 20},
            "modelVersion": model, "responseId": token(n, 0, 22)}


def _double_encoded(response: dict[str, Any]) -> None:
    """Each `functionCall`'s `args` JSON-encoded: a string where the API sends an object (TD204)."""
    for part in response["candidates"][0]["content"]["parts"]:
        if "functionCall" in part:
            part["functionCall"]["args"] = json.dumps(part["functionCall"]["args"])


#: The defects a test can plant in every answer (`standin(plant=…)`); Gemini's finish reason is
#: `STOP` with calls or without, so it has no call-finish reason to contradict.
PLANTS = {"double-encoded-arguments": _double_encoded}


def stream(body: dict[str, Any], response: dict[str, Any]) -> Iterator[bytes]:
    head = {k: response[k] for k in ("modelVersion", "responseId")}
    usage = response["usageMetadata"]

    def chunk(parts: list[dict[str, Any]], last: bool = False) -> bytes:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if last:
            candidate["finishReason"] = "STOP"
        counts = usage if last else {"promptTokenCount": usage["promptTokenCount"],
                                     "totalTokenCount": usage["promptTokenCount"]}
        return sse({"candidates": [candidate], "usageMetadata": counts, **head}, end="\r\n\r\n")

    for part in response["candidates"][0]["content"]["parts"]:
        if "text" in part:
            for piece in pieces(part["text"]):
                yield chunk([{"text": piece}])
        else:
            yield chunk([part])
    yield chunk([{"text": ""}], last=True)


def _said(response: Any) -> str:
    """What a function response says: its `output` (or `error`), else the whole object."""
    if isinstance(response, dict):
        for key in ("output", "result", "error"):
            if key in response:
                value = response[key]
                return value if isinstance(value, str) else repr(value)
    return repr(response)
