"""Claude Code session transcripts: `~/.claude/projects/<project>/<session>.jsonl`, and the files of
the subagents it ran (`<session>/subagents/agent-<id>.jsonl`; older versions: `agent-<id>.jsonl`
beside the session, or sidechain lines in the session file itself).

Anthropic documents where sessions live and how long they are kept (`cleanupPeriodDays`,
https://docs.anthropic.com/en/docs/claude-code/settings) but calls the record format internal; the
fields read here are the ones public readers rely on: daaain/claude-code-log `claude_code_log/
models.py` (the Pydantic model of every record type) and `dag.py` (the `parentUuid` graph), and the
JSON Schema of oneryalcin/agent-schemas `claude-code/`. One JSON object a line:

* `type` `user` / `assistant`: `message` is an Anthropic Messages message (`role`, `content` blocks;
  an assistant message is the API's response object: `id`, `model`, `stop_reason`, `usage`). Newer
  versions write an assistant message a content block a line, each line repeating `message.id`:
  those lines are joined into one turn. A tool result that failed has `is_error`; the record's
  `toolUseResult` is the tool's own result (a string `Error: …` when the tool failed).
* `isApiErrorMessage: true` on an assistant record: a message the CLI wrote itself
  (`model: "<synthetic>"`) because the API call failed (`error`, `apiErrorStatus`): the provider's
  rejection of that call, not a turn.
* every record has `uuid` and `parentUuid`: a rewind or an edited prompt makes later records go on
  from an earlier one (a branch: a conversation of its own sharing the turns before it), a compaction
  starts a new root (`parentUuid` null), and a `parentUuid` may name a record that was never written
  (anthropics/claude-code#22526): that record starts a conversation of its own.
* `isSidechain: true` (and `agentId`): a subagent's conversation, its own conversation here, named by
  the `Task` call that started it when the file holds that call (the result's `toolUseResult.agentId`).
* every other type (`summary`, `system`, `progress`, `file-history-snapshot`, `queue-operation`,
  `attachment`, `ai-title`, …) gives no turn; those with a `uuid` still link their children.

A session keeps the messages but not the request that carried them: no tool declarations, no system
prompt, no sampling settings (`LACKS`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..errors import FormatError, InputError
from ..formats.anthropic.common import NAME as ANTHROPIC
from ..formats.anthropic.read import MESSAGE_BLOCKS, RESPONSE_BLOCKS, read_content
from ..formats.base import ApiError
from ..formats.meta import with_meta
from ..formats.reading import split_results
from ..jsonio import try_loads
from ..lacking import SYSTEM, TOOLS
from ..model import Part, Result, Turn
from ..records.lines import json_records
from ..shorten import plain
from ..source import Side, Source
from .base import Built, Peek
from .session import Branch, Line, Session

NAME = "claude-code"
TITLE = "Claude Code session"
LACKS = (TOOLS, SYSTEM)

#: The record types that carry a message.
_MESSAGES = ("user", "assistant")
#: Keys only Claude Code's records have beside `type` (detection needs two of them).
_ENVELOPE = ("parentUuid", "sessionId", "isSidechain", "userType", "leafUuid")
#: The tools that start a subagent (daaain/claude-code-log `dag.py` `_SPAWN_TOOL_NAMES`).
_SPAWNING = ("Task", "Agent")


def sniff(peek: Peek) -> bool:
    """A first line with a Claude Code record's envelope (`type`, and `parentUuid`, `sessionId`,
    `isSidechain`…), the session's bookkeeping lines (snapshots, summaries) allowed before it."""
    return any(isinstance(r, dict) and isinstance(r.get("type"), str)
               and sum(key in r for key in _ENVELOPE) >= 2 for r in peek.records)


#: Where a record left its conversation: the branch and how many turns it had after it (a tuple:
#: one a line).
_Place = tuple[Branch, int]


class _Reader:
    def __init__(self, path: str, data: bytes) -> None:
        self.session = Session(path, NAME, data)
        self.path = path
        self.places: dict[str, _Place] = {}
        self.errors: list[InputError] = []
        self.message_id: dict[str, str] = {}  # conversation → the message id its last turn came from
        self.agents: dict[str, str] = {}  # agent id → the Task call (tool_use id) that started it

    def line(self, line: Line, record: Any) -> None:
        number = line[0]
        if not isinstance(record, dict):
            self.errors.append(InputError(self.path, f"line {number}", "a record must be an object"))
            return
        parent = record.get("parentUuid")
        place = self.places.get(parent) if isinstance(parent, str) else None
        uuid = record.get("uuid")
        kind = record.get("type")
        message = record.get("message")
        if kind not in _MESSAGES or not isinstance(message, dict):
            if isinstance(uuid, str) and place is not None:  # a progress or system record: a link only
                self.places[uuid] = place
            return
        try:
            after = self._message(line, record, kind, message, place)
        except FormatError as err:
            self.errors.append(InputError(self.path, f"line {number}#{err.pointer}", err.message))
            return
        if isinstance(uuid, str) and after is not None:
            self.places[uuid] = after

    def _message(self, line: Line, record: dict[str, Any], kind: str, message: dict[str, Any],
                 place: _Place | None) -> _Place | None:
        branch = self._branch(record, place, kind, message)
        side: Side = "request" if kind == "user" else "response"
        at = self.session.upcoming(side, line[0], "/message")
        index = self.session.record(side, line)
        if kind == "user":
            self._user(branch, record, message, index, at)
        elif record.get("isApiErrorMessage") is True:
            self.session.answer(branch, index, None, None, error=_api_error(record, message))
        else:
            self._assistant(branch, message, index, at)
        return branch, branch.tail

    def _branch(self, record: dict[str, Any], place: _Place | None, kind: str,
                message: dict[str, Any]) -> Branch:
        """The conversation a message record goes on: its parent's, a fork of it when the parent is
        not where that conversation is now, or a new one for a root (or a parent never written)."""
        if place is None:
            meta = {}
            if record.get("isSidechain") is True:
                agent = record.get("agentId")
                meta = {NAME: {"sidechain": True, **({"agentId": agent} if isinstance(agent, str) else {})}}
            return self.session.branch(ANTHROPIC, meta)
        branch, at = place
        if at == branch.tail or self._continues(branch, kind, message):
            return branch
        if all(t.role == "tool" for t in branch.turns[at:]):
            # parallel tool results logged each after its own call's line: the same message
            return branch
        return self.session.fork(branch, at)

    def _continues(self, branch: Branch, kind: str, message: dict[str, Any]) -> bool:
        """Another block line of the answer the conversation's last turn holds."""
        return kind == "assistant" and branch.answer is not None and \
            message.get("id") is not None and self.message_id.get(branch.id) == message.get("id")

    def _user(self, branch: Branch, record: dict[str, Any], message: dict[str, Any], index: int,
              at: Any) -> None:
        parts = read_content(message.get("content"), at.child("content"), MESSAGE_BLOCKS)
        result = record.get("toolUseResult")  # the tool's own result, beside what the model was sent
        if isinstance(result, str) and result.startswith("Error"):
            parts = tuple(_failed(p) for p in parts)
        elif isinstance(result, dict) and isinstance(result.get("agentId"), str):
            call = next((p.wire_id for p in parts if isinstance(p, Result) and p.wire_id), None)
            if call is not None:
                self.agents[result["agentId"]] = call
        self.session.send(branch, split_results("user", parts, at), index)

    def _assistant(self, branch: Branch, message: dict[str, Any], index: int, at: Source) -> None:
        parts = read_content(message.get("content"), at.child("content"), RESPONSE_BLOCKS)
        usage = message.get("usage")
        usage = usage if isinstance(usage, dict) else None
        finish_reason = _string(message.get("stop_reason"))
        if self._continues(branch, "assistant", message):
            self.session.extend(branch, parts, finish_reason, usage)
            return
        self.session.answer(branch, index, Turn(role="assistant", parts=parts, source=at),
                            _string(message.get("model")), finish_reason=finish_reason, usage=usage)
        mid = message.get("id")
        if isinstance(mid, str):
            self.message_id[branch.id] = mid
        else:
            self.message_id.pop(branch.id, None)

    def built(self) -> Built:
        for branch in self.session.branches:  # a subagent named by the call that started it
            own = branch.meta.get(NAME)
            if isinstance(own, dict) and own.get("agentId") in self.agents:
                branch.meta = {NAME: {**own, "task": self.agents[own["agentId"]]}}
        built = self.session.built(LACKS)
        built.errors = self.errors
        return built


def _failed(part: Part) -> Part:
    """A tool result whose record says the tool failed (`toolUseResult: "Error: …"`) though its block
    carries no `is_error`: marked failed, and its meta says where the flag came from."""
    if not isinstance(part, Result) or part.is_error:
        return part
    return with_meta(NAME, replace(part, is_error=True), {"is_error_from": "toolUseResult"})


#: How Claude Code words a failed API call: `API Error: 400 {"type":"error","error":{…}}`, the
#: provider's error body after the status (the fixtures of daaain/claude-code-log show it).
_API_ERROR = re.compile(r"API Error: (\d{3}) (\{.*\})\s*$", re.S)


def _api_error(record: dict[str, Any], message: dict[str, Any]) -> ApiError:
    """The API failure a synthetic assistant record reports: the provider's error body it quotes
    when there is one, else its text; the error kind and the HTTP status."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"text": content}]
    text = " ".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))
    status = record.get("apiErrorStatus")
    code = str(status) if isinstance(status, int) else None
    kind = _string(record.get("error"))
    quoted = _API_ERROR.match(text)
    if quoted is not None:
        ok, body = try_loads(quoted.group(2))
        error = body.get("error") if ok and isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return ApiError(message=error["message"], type=_string(error.get("type")) or kind,
                            code=code or quoted.group(1))
    return ApiError(message=plain(text) or "API error", type=kind, code=code)


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def read(path: str, data: bytes, document: Any) -> Built:
    """A session file (or a subagent's) read into its conversations."""
    reader = _Reader(path, data)
    for number, start, end, record in json_records(path, data, reader.errors):
        reader.line((number, start, end), record)
    return reader.built()
