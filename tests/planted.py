"""A log with secrets planted in every place a log can hold one, and with characters that act on a
terminal; the CLI and TUI tests run every output over it and scan the bytes.

Every secret contains `PLANT` after at most four characters of its own (`sk-a`, `AIza`, `PLAN`): a
mask keeps at most four, so `PLANT` in an output means a secret got through, masked or not.
"""

from __future__ import annotations

import json
from pathlib import Path

MARK = "PLANT"

SECRETS = {
    "openai key": "sk-PLANTopenaiKey0a1b2c3d4e5f6g7h8",
    "anthropic key": "sk-ant-api03-PLANTanthropicKey9z8y7x6w5v",
    "google key": "AIzaSyPLANTgoogleKey0123456789abcdefg",
    "aws key": "AKIAPLANTAWS0123456",
    "bearer token in text": "PLANTbearerInText0123456789xyz",
    "key after a newline": "sk-proj-PLANTafterNewline0123456789",
    "invalid-JSON arguments": "sk-PLANTinvalidArgs0123456789abc",
    "tool result": "sk-ant-api03-PLANTtoolResult0123456789",
    "streamed arguments": "AIzaSyPLANTstreamedArgs0123456789abcdef",
    "provider 401 error": "sk-proj-PLANTproviderError401xyz0123",
    "media URL ?key=": "PLANTmediaUrlKey0123456789",
    "Authorization header": "PLANTauthorizationHeader0123456789",
    "x-api-key header": "PLANTxApiKeyHeader0123456789",
    "request URL ?key=": "PLANTrequestUrlKey0123456789",
}

#: Characters that act on a terminal or hide text: an OSC 52 clipboard write, a screen clear, C1
#: CSI and OSC, bidi override and isolate, zero-width space, byte-order mark, bell.
HOSTILE = "\x1b]52;c;SGVsbG8=\x07\x1b[2J \x9b31m \x9d0;title\x07 \u202eevil \u2066iso \u200bzw \ufeffbom"
RAW = ("\x1b", "\x07", "\x9b", "\x9d", "\u202e", "\u2066", "\u200b", "\ufeff")
#: A file name carrying them (what `ls` in a hostile folder hands to `tooldbg check *`).
HOSTILE_NAME = "run\x1b]52;c;SGVsbG8=\x07\x1b[2J\x9b\x9d\u202e\u2066\u200b\ufeff.jsonl"


def _user_text(hostile: str) -> str:
    s = SECRETS
    return (f"Here are my keys {hostile}\n{s['openai key']}\n{s['anthropic key']}\n{s['google key']}\n"
            f"{s['aws key']}\ncurl -H 'Authorization: Bearer {s['bearer token in text']}' "
            f"https://api.example/\nand one more:\n{s['key after a newline']}")


def exchanges(hostile: str = "") -> list[dict]:
    """Two exchanges of one openai-chat conversation: the first rejected with a 401, the second
    answered by a stream whose tool call carries a key in its arguments."""
    s = SECRETS
    tools = [{"type": "function", "function": {
        "name": "fetch", "description": "Fetch a URL.",
        "parameters": {"type": "object", "properties": {"url": {"type": "string"}}}}}]
    invalid = '{"url": "https://x.example/", "token": "' + s["invalid-JSON arguments"] + f'{hostile}", "more": '
    messages = [
        {"role": "user", "content": [
            {"type": "text", "text": _user_text(hostile)},
            {"type": "image_url", "image_url": {
                "url": f"https://img.example/cat.png?key={s['media URL ?key=']}&w=1"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "fetch", "arguments": invalid}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": f"fetched {hostile} with the key {s['tool result']}"},
    ]
    headers = {"Authorization": f"Bearer {s['Authorization header']}",
               "x-api-key": s["x-api-key header"], "content-type": "application/json"}
    url = f"https://relay.example/v1/chat/completions?key={s['request URL ?key=']}"
    rejected = {
        "request": {"method": "POST", "url": url, "headers": headers,
                    "body": {"model": "gpt-4o", "tools": tools, "messages": messages}},
        "response": {"status": 401, "body": {"error": {
            "message": f"Incorrect API key provided: {s['provider 401 error']}. {hostile}",
            "type": "invalid_request_error", "code": "invalid_api_key"}}}}
    arguments = json.dumps({"url": "https://y.example/", "key": s["streamed arguments"] + hostile})
    chunks = [
        {"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o", "choices": [
            {"index": 0, "finish_reason": None, "delta": {"role": "assistant", "tool_calls": [
                {"index": 0, "id": "call_2", "type": "function",
                 "function": {"name": "fetch", "arguments": ""}}]}}]},
        {"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o", "choices": [
            {"index": 0, "finish_reason": None,
             "delta": {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}}]},
        {"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o", "choices": [
            {"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    stream = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    streamed = {
        "request": {"method": "POST", "url": url, "headers": headers,
                    "body": {"model": "gpt-4o", "tools": tools, "stream": True, "messages": messages}},
        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": stream}}
    return [rejected, streamed]


def write_log(path: Path, hostile: str = "") -> Path:
    path.write_text("\n".join(json.dumps(x) for x in exchanges(hostile)) + "\n", encoding="utf-8")
    return path


def leaks(data: bytes | str) -> list[str]:
    """The planted secrets whose characters beyond a mask's four are in `data`."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return [name for name, secret in SECRETS.items() if secret in text] + \
        (["(part of a secret)"] if MARK in text else [])


def raw_controls(data: bytes | str) -> list[str]:
    """The hostile characters present raw in `data`."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return [repr(c) for c in RAW if c in text]
