"""Generated agent sessions for scripts/bench.py, logged the way real tools log them.

One coding-agent session (a system prompt, a task, then steps of text beside one to three parallel
tool calls and their results, some results long file reads) is written until the file reaches the
size asked for, in one of three captures:

* `jsonl`: an OpenAI Chat Completions proxy log, one `{"request", "response"}` record per call, as
  LiteLLM's proxy or a logging middleware writes it;
* `har`: Anthropic Messages calls in a HAR file as mitmproxy or a browser exports it (bodies are
  JSON strings in `postData.text` and `content.text`);
* `sse`: the same Anthropic session streamed: each record's response body is the server-sent event
  text (`message_start` … `message_stop`, tool input in `input_json_delta` fragments),
  https://docs.anthropic.com/en/docs/build-with-claude/streaming.

and two agents' own session logs, where each message is logged once, a line (so the same size
holds far more steps):

* `claude-code`: a Claude Code transcript (`~/.claude/projects/…/<session>.jsonl`): an assistant
  message a content block a line, each tool result its own user line (`tooldbg.logs.claude_code`);
* `codex`: a Codex rollout (`~/.codex/sessions/…/rollout-*.jsonl`): `{timestamp, type:
  response_item, payload}` lines of Responses items (`tooldbg.logs.codex`).

In the captures every request replays the whole history, so the file grows quadratically in steps. A
few defects a real client makes are planted at fixed steps and stay in every later replay: arguments
encoded as a JSON string by a gateway (TD201 in Chat Completions, TD204 in Anthropic), a result
whose call id a relay lower-cased (TD103), and a call whose result the client dropped (TD102).
Deterministic: the same size gives the same bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CAPTURES = ("jsonl", "har", "sse", "claude-code", "codex")
#: Captures that are an agent's own session log (`tooldbg.logs`): each message logged once, a line.
SESSION_LOGS = ("claude-code", "codex")
SYSTEM = (
    "You are a coding agent working in a Python repository. Use the tools to read, search and "
    "edit files and to run commands; explain each change in one sentence."
)
TASK = "The test suite fails on test_parse_dates; find the cause and fix it."
TOOLS = [
    ("read_file", "Read a file of the repository.", {"path": {"type": "string"}}),
    (
        "grep",
        "Search the repository with a regular expression.",
        {"pattern": {"type": "string"}, "path": {"type": "string"}},
    ),
    ("run", "Run a shell command and return its output.", {"command": {"type": "string"}}),
]
#: Steps at which a defect is planted (its first appearance; later replays repeat it).
DOUBLE_ENCODED, LOWERCASED_ID, DROPPED_RESULT = 3, 5, 8


@dataclass
class Call:
    id: str
    name: str
    arguments: dict[str, Any]
    result: str
    double_encoded: bool = False


@dataclass
class Step:
    text: str
    calls: list[Call]
    lowercased_result: bool = False
    dropped_result: bool = False


@dataclass
class Session:
    steps: list[Step] = field(default_factory=list)


def _source(rng: random.Random, lines: int) -> str:
    """Python-looking file contents, as a read_file tool returns them."""
    words = ["date", "parse", "value", "result", "fmt", "tz", "offset", "items", "row", "self"]
    out = []
    for n in range(1, lines + 1):
        indent = "    " * rng.randint(0, 2)
        a, b, c = rng.choice(words), rng.choice(words), rng.choice(words)
        out.append(f"{n:5}\t{indent}{a}_{b} = {c}({a}, {rng.randint(0, 999)})  # {b} {c}")
    return "\n".join(out)


def _step(rng: random.Random, k: int) -> Step:
    calls = []
    parallel = rng.choice((1, 1, 2, 3))
    if k == DROPPED_RESULT:
        parallel = max(parallel, 2)  # the dropped result is one of several
    for j in range(parallel):  # parallel calls, as agents issue independent reads
        name = ("read_file", "grep", "run")[(k + j) % 3]
        if name == "read_file":
            args: dict[str, Any] = {"path": f"src/dates/module_{k}_{j}.py"}
            # a long read every fourth step: the tool outputs that make real logs large
            result = _source(rng, rng.randint(150, 450) if k % 4 == 0 else rng.randint(10, 60))
        elif name == "grep":
            args = {"pattern": f"def parse_{k}", "path": "src/"}
            result = "\n".join(
                f"src/dates/module_{i}.py:{rng.randint(1, 400)}: def parse_{k}(value):"
                for i in range(rng.randint(1, 12))
            )
        else:
            args = {"command": f"python -m pytest -q tests/test_dates.py -k case_{k}"}
            result = f"F.{'.' * rng.randint(0, 40)}\nFAILED tests/test_dates.py::test_parse_dates[case_{k}]\n"
        call_id = "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(24)
        )
        calls.append(Call(call_id, name, args, result, double_encoded=(k == DOUBLE_ENCODED and j == 0)))
    return Step(
        f"Step {k}: checking {calls[0].arguments.get('path', 'the tests')} next.",
        calls,
        lowercased_result=(k == LOWERCASED_ID),
        dropped_result=(k == DROPPED_RESULT),
    )


# ------------------------------------------------------------------ OpenAI Chat Completions (JSONL)


def _chat_messages(steps: list[Step]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    for step in steps:
        calls = []
        for c in step.calls:
            arguments = json.dumps(c.arguments)
            calls.append(
                {
                    "id": f"call_{c.id}",
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": json.dumps(arguments) if c.double_encoded else arguments,
                    },
                }
            )
        messages.append({"role": "assistant", "content": step.text, "tool_calls": calls})
        for n, c in enumerate(step.calls):
            if step.dropped_result and n == len(step.calls) - 1 and n > 0:
                continue
            call_id = f"call_{c.id}".lower() if step.lowercased_result and n == 0 else f"call_{c.id}"
            messages.append({"role": "tool", "tool_call_id": call_id, "content": c.result})
    return messages


def _chat_tools() -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": n,
                "description": d,
                "parameters": {"type": "object", "properties": p, "required": list(p)},
            },
        }
        for n, d, p in TOOLS
    ]


def _chat_record(k: int, steps: list[Step], answer: Step) -> dict[str, Any]:
    body = {
        "model": "gpt-4.1-2025-04-14",
        "messages": _chat_messages(steps),
        "tools": _chat_tools(),
        "parallel_tool_calls": True,
    }
    message = _chat_messages([answer])[2]
    response = {
        "id": f"chatcmpl-BX{k:06d}q7mZ",
        "object": "chat.completion",
        "created": 1767600000 + k,
        "model": "gpt-4.1-2025-04-14",
        "choices": [
            {
                "index": 0,
                "message": {**message, "refusal": None},
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 1200 + 400 * k, "completion_tokens": 60, "total_tokens": 1260 + 400 * k},
    }
    return {
        "request": {
            "method": "POST",
            "url": "https://api.openai.com/v1/chat/completions",
            "headers": {"content-type": "application/json", "user-agent": "OpenAI/Python 1.99.1"},
            "body": body,
        },
        "response": {"status": 200, "headers": {"content-type": "application/json"}, "body": response},
    }


# ------------------------------------------------------------------ Anthropic Messages (HAR, SSE)


def _anthropic_messages(steps: list[Step]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for step in steps:
        messages.append({"role": "assistant", "content": _anthropic_content(step)})
        results = []
        for n, c in enumerate(step.calls):
            if step.dropped_result and n == len(step.calls) - 1 and n > 0:
                continue
            call_id = f"toolu_01{c.id}"
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": call_id.lower() if step.lowercased_result and n == 0 else call_id,
                    "content": c.result,
                }
            )
        messages.append({"role": "user", "content": results})
    return messages


def _anthropic_content(step: Step) -> list[dict[str, Any]]:
    return [{"type": "text", "text": step.text}] + [
        {
            "type": "tool_use",
            "id": f"toolu_01{c.id}",
            "name": c.name,
            "input": json.dumps(c.arguments) if c.double_encoded else c.arguments,
        }
        for c in step.calls
    ]


def _anthropic_body(steps: list[Step], stream: bool) -> dict[str, Any]:
    tools = [
        {
            "name": n,
            "description": d,
            "input_schema": {"type": "object", "properties": p, "required": list(p)},
        }
        for n, d, p in TOOLS
    ]
    body = {
        "model": "claude-sonnet-4-5-20250929",
        "max_tokens": 8192,
        "system": [{"type": "text", "text": SYSTEM}],
        "tools": tools,
        "messages": _anthropic_messages(steps),
    }
    return {**body, "stream": True} if stream else body


def _anthropic_response(k: int, answer: Step) -> dict[str, Any]:
    return {
        "id": f"msg_01Xq{k:06d}Lk9vZ",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": _anthropic_content(answer),
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1200 + 400 * k, "output_tokens": 60},
    }


def _sse(k: int, answer: Step) -> str:
    """The response as Anthropic streams it: text in deltas, each call's input in JSON fragments."""
    message = _anthropic_response(k, answer)
    events: list[tuple[str, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    **message,
                    "content": [],
                    "stop_reason": None,
                    "usage": {**message["usage"], "output_tokens": 1},
                },
            },
        )
    ]
    for i, block in enumerate(message["content"]):
        start = {"type": "text", "text": ""} if block["type"] == "text" else {**block, "input": {}}
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": i, "content_block": start})
        )
        if block["type"] == "text":
            deltas = [
                {"type": "text_delta", "text": block["text"][n : n + 12]}
                for n in range(0, len(block["text"]), 12)
            ]
        else:
            raw = json.dumps(block["input"])
            deltas = [
                {"type": "input_json_delta", "partial_json": raw[n : n + 16]} for n in range(0, len(raw), 16)
            ]
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d}) for d in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 60},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


def _anthropic_record(k: int, steps: list[Step], answer: Step, stream: bool) -> dict[str, Any]:
    headers = {
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        "user-agent": "Anthropic/Python 0.69.0",
    }
    request = {
        "method": "POST",
        "url": "https://api.anthropic.com/v1/messages",
        "headers": headers,
        "body": _anthropic_body(steps, stream),
    }
    kind, body = ("text/event-stream", _sse(k, answer)) if stream else \
        ("application/json", _anthropic_response(k, answer))
    return {"request": request, "response": {"status": 200, "headers": {"content-type": kind}, "body": body}}


def _har_entry(k: int, record: dict[str, Any]) -> dict[str, Any]:
    request, response = record["request"], record["response"]

    def headers(values: dict[str, str]) -> list[dict[str, str]]:
        return [{"name": n, "value": v} for n, v in values.items()]

    return {
        "startedDateTime": f"2026-01-05T11:{k // 60 % 60:02d}:{k % 60:02d}.112000+00:00",
        "time": 812.4,
        "request": {
            "method": "POST",
            "url": request["url"],
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": headers(request["headers"]),
            "queryString": [],
            "headersSize": -1,
            "bodySize": -1,
            "postData": {"mimeType": "application/json", "text": json.dumps(request["body"])},
        },
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": headers(response["headers"]),
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
            "content": {"mimeType": "application/json", "size": -1, "text": json.dumps(response["body"])},
        },
        "cache": {},
        "timings": {"send": 0.1, "wait": 800.0, "receive": 12.3},
    }


# ------------------------------------------------------------------ files


def records(capture: str, seed: int = 1) -> Iterator[tuple[dict[str, Any], list[Step]]]:
    """(the record of call k, the steps its request replays), for k = 0, 1, … without end."""
    rng = random.Random(seed)
    steps: list[Step] = []
    for k in range(10**9):
        answer = _step(rng, k)
        if capture == "jsonl":
            record = _chat_record(k, steps, answer)
        else:
            record = _anthropic_record(k, steps, answer, stream=capture == "sse")
        yield record, steps
        steps.append(answer)


def _claude_code_lines(rng: random.Random) -> Iterator[dict[str, Any]]:
    """A Claude Code session, line after line, without end (the defects planted as in the HAR)."""
    envelope = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/dates",
        "sessionId": "b3f1",
        "version": "2.1.63",
    }
    parent: str | None = None
    n = 0

    def line(kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        nonlocal parent, n
        n += 1
        uuid = f"00000000-0000-4000-8000-{n:012d}"
        time = f"2026-01-05T11:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        record = {"parentUuid": parent, **envelope, "type": kind, "uuid": uuid, "timestamp": time}
        record.update(message=message, **extra)
        parent = uuid
        return record

    yield line("user", {"role": "user", "content": TASK})
    for k in range(10**9):
        step = _step(rng, k)
        mid = f"msg_01Xq{k:06d}Lk9vZ"
        for block in _anthropic_content(step):
            message = {"id": mid, "type": "message", "role": "assistant", "content": [block]}
            message.update(model="claude-sonnet-4-5-20250929", stop_reason=None, usage={"output_tokens": 60})
            yield line("assistant", message, requestId=f"req_{k:08d}")
        for result in _anthropic_messages([step])[2]["content"]:
            yield line("user", {"role": "user", "content": [result]}, toolUseResult={"stdout": ""})


def _codex_lines(rng: random.Random) -> Iterator[dict[str, Any]]:
    """A Codex rollout, line after line, without end (the defects planted as in the JSON Lines)."""
    def item(payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2026-01-05T11:00:00.000Z", "type": "response_item", "payload": payload}

    meta = {"id": "0199a1c2", "cwd": "/home/dev/dates", "base_instructions": {"text": SYSTEM}}
    yield {"timestamp": "2026-01-05T11:00:00.000Z", "type": "session_meta", "payload": meta}
    yield item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": TASK}]})
    for k in range(10**9):
        step = _step(rng, k)
        messages = _chat_messages([step])
        text = [{"type": "output_text", "text": step.text}]
        yield item({"type": "message", "role": "assistant", "content": text})
        for call in messages[2]["tool_calls"]:
            yield item({"type": "function_call", "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"], "call_id": call["id"]})
        for message in messages[3:]:
            metadata = {"exit_code": 0, "duration_seconds": 0.1}
            output = json.dumps({"output": message["content"], "metadata": metadata})
            yield item({"type": "function_call_output", "call_id": message["tool_call_id"], "output": output})


def _is_call(record: dict[str, Any]) -> bool:
    """A line of a session log that holds a tool call."""
    if record.get("type") == "assistant":
        return record["message"]["content"][0]["type"] == "tool_use"
    return record.get("payload", {}).get("type") == "function_call"


def write(capture: str, path: Path, size: int) -> int:
    """Write a session of at least `size` bytes; returns the number of calls (records) written."""
    written = count = 0
    if capture in SESSION_LOGS:
        lines = (_claude_code_lines if capture == "claude-code" else _codex_lines)(random.Random(1))
        with path.open("w", encoding="utf-8") as out:
            for record in lines:
                text = json.dumps(record)
                out.write(text + "\n")
                written += len(text) + 1
                count += _is_call(record)
                if written >= size:
                    break
        return count
    with path.open("w", encoding="utf-8") as out:
        if capture == "har":
            out.write(
                '{"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "11.0.2"}, '
                '"pages": [], "entries": [\n'
            )
        for k, (record, _) in enumerate(records(capture)):
            text = json.dumps(_har_entry(k, record)) if capture == "har" else json.dumps(record)
            out.write(("" if k == 0 else ",\n") + text if capture == "har" else text + "\n")
            written += len(text) + 2
            count += 1
            if written >= size:
                break
        if capture == "har":
            out.write("\n]}}\n")
    return count


def last_request(capture: str, path: Path) -> bytes:
    """The body of the file's last request, as its own JSON document: the whole conversation, the
    input `convert` and LiteLLM translate for the comparison."""
    if capture == "har":
        entries = json.loads(path.read_bytes())["log"]["entries"]
        return entries[-1]["request"]["postData"]["text"].encode()
    with path.open("rb") as f:
        last = b""
        for line in f:
            if line.strip():
                last = line
    return json.dumps(json.loads(last)["request"]["body"]).encode()
