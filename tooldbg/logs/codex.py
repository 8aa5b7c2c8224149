"""OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl` (under
`$CODEX_HOME`), and `rollout-*.jsonl.zst` once Codex has compressed an old one (unpacked first:
`records.compressed`).

The format is the serde form of openai/codex `codex-rs/protocol/src/protocol.rs`: a line is a
`RolloutLine` `{timestamp, type, payload}`, `type` the `RolloutItem` variant (`session_meta`,
`response_item`, `compacted`, `turn_context`, `event_msg`, and newer ones, skipped). Rollouts written
before the envelope (to September 2025) hold the same items bare: a first line `{id, timestamp,
instructions, git}`, then each `ResponseItem` as it is, and `{"record_type": "state"}` markers.

A `response_item` is an OpenAI Responses item (`codex-rs/protocol/src/models.rs` `ResponseItem`:
`message`, `reasoning`, `function_call`, `function_call_output`, `custom_tool_call` and its output,
`local_shell_call`, `web_search_call`…), read by the Responses reader (`formats.openai_responses`):
the items the model output make its answer, the others the input of the next call. `event_msg` lines
repeat what the items say for the UI and are not turns; `session_meta` carries the base instructions
(the system prompt), `turn_context` the model.

A tool output has no failure flag (the `success` of `FunctionCallOutputPayload` is not serialized).
A result is marked failed only where the output's own metadata says the command failed: the
structured shell output `{"output", "metadata": {"exit_code", "duration_seconds"}}` or the freeform
one that begins `Exit code: N` (`codex-rs/core/src/tools/mod.rs`, `format_exec_output_for_model_*`),
with a non-zero code; the result's meta names that field (`is_error_from`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from operator import is_
from typing import Any

from ..errors import FormatError, InputError
from ..formats.meta import with_meta
from ..formats.openai_responses.common import NAME as RESPONSES
from ..formats.openai_responses.read import group_read, item_side, read_item
from ..jsonio import try_loads
from ..lacking import SYSTEM, TOOLS
from ..model import Json, Part, Result, Text, Turn
from ..records.lines import json_records
from ..source import Side, Source
from .base import Built, Peek
from .session import Branch, Line, Session

NAME = "codex"
TITLE = "Codex rollout"
LACKS = (TOOLS,)

#: `RolloutItem` variants (snake_case serde tags).
_ENVELOPED = ("session_meta", "response_item", "compacted", "turn_context", "event_msg")
#: An item, where it is, `read_item` of it, and the record (`Session.record`) it is in.
_Item = tuple[Any, Source, tuple[str, list[Part], dict[str, Any]], int]
#: Turns before the items grouped (their content unread): a system message among them is a turn.
_AFTER_START = (Turn(role="user"),)
#: The freeform shell output's header (`format_exec_output_for_model_freeform`).
_EXIT_HEADER = re.compile(r"Exit code: (-?\d+)\n")
#: How the structured shell output ends when the command exited 0: its last member `metadata`, an
#: object of these two members only (Codex writes them so, compact). Where an output that opens an
#: object ends so, parsing it tells no failure: if it is JSON, that `metadata` is the top level's last
#: member (every token from the end back to its key is outside a string: no quote in it is escaped),
#: and the last of duplicate keys is the one a parse keeps; if it is not, nothing is read from it.
_EXITED_0 = re.compile(r'[{,] ?"metadata": ?\{"exit_code": ?0, ?"duration_seconds": ?'
                       r'-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\}\}\Z')
#: How far from its end an output's `_EXITED_0` tail is looked for (the number may be long).
_TAIL = 128


def sniff(peek: Peek) -> bool:
    """An enveloped line (`{timestamp, type: session_meta|response_item|…, payload}`), or the bare
    layout's first line (`{id, timestamp, instructions}`) or state marker."""
    for record in peek.records:
        if not isinstance(record, dict):
            return False
        if record.get("type") in _ENVELOPED and "payload" in record and "timestamp" in record:
            return True
        if record.get("record_type") == "state" or (
                {"id", "timestamp", "instructions"} <= record.keys() and "type" not in record):
            return True
    return False


class _Reader:
    def __init__(self, path: str, data: bytes) -> None:
        self.session = Session(path, NAME, data)
        self.path = path
        self.errors: list[InputError] = []
        self.branch: Branch = self.session.branch(RESPONSES)
        self.instructions = False
        self.model: str | None = None
        #: the model's items waiting to become one answer: (item, where, read_item of it, record)
        self.output: list[_Item] = []
        #: the tools' outputs waiting to be sent, one turn (a parallel call's results, a line each)
        self.results: list[_Item] = []

    def line(self, line: Line, record: Any) -> None:
        if not isinstance(record, dict):
            self.errors.append(InputError(self.path, f"line {line[0]}", "a record must be an object"))
            return
        kind, payload = record.get("type"), record.get("payload")
        try:
            if kind in _ENVELOPED and isinstance(payload, dict):
                self._item(line, kind, payload, "/payload")
            elif "type" in record and "payload" not in record:  # the bare layout: an item a line
                self._item(line, "response_item", record, "")
            elif {"id", "timestamp"} <= record.keys():  # the bare layout's session line
                self._meta(line, record, "")
        except FormatError as err:
            self.errors.append(InputError(self.path, f"line {line[0]}#{err.pointer}", err.message))

    def _item(self, line: Line, kind: str, payload: dict[str, Any], at: str) -> None:
        if kind == "response_item":
            side: Side = "response" if item_side(payload) == "assistant" else "request"
            here = self.session.upcoming(side, line[0], at)
            parts = read_item(payload, here)
            item = (payload, here, parts, self.session.record(side, line))
            if parts[0] == "tool":  # (grouped with the outputs beside it: `_results`)
                self._answer()
                self.results.append(item)
                return
            self._results()
            if side == "response":
                self.output.append(item)
            else:
                self._answer()
                self._send([item])
            return
        self._results()
        if kind == "session_meta":
            self._meta(line, payload, at)
        elif kind == "turn_context":
            model = payload.get("model")
            self.model = model if isinstance(model, str) else self.model
        elif kind == "compacted":
            self._compacted(line, payload, at)

    def _meta(self, line: Line, payload: dict[str, Any], at: str) -> None:
        """The session's instructions: the system prompt of its requests (`instructions`, newer
        `base_instructions: {text}`)."""
        text, key = payload.get("instructions"), "instructions"
        self._results()
        base = payload.get("base_instructions")
        if isinstance(base, dict) and isinstance(base.get("text"), str):
            text, key = base["text"], "base_instructions/text"
        if isinstance(text, str) and text and not self.branch.turns:
            index = self.session.record("request", line)
            self.branch.system = (Text(text=text, source=self.session.source(index, f"{at}/{key}")),)
            self.instructions = True

    def _compacted(self, line: Line, payload: dict[str, Any], at: str) -> None:
        """History compacted: what follows goes on from the replacement history (or the summary
        alone) in a conversation of its own."""
        self._answer()
        system = self.branch.system
        self.branch = self.session.branch(RESPONSES, {NAME: {"compacted": True}})
        self.branch.system = system
        index = self.session.record("request", line)
        history = payload.get("replacement_history")
        if isinstance(history, list):
            self._send([(item, here, read_item(item, here), index) for i, item in enumerate(history)
                        if (here := self.session.source(index, f"{at}/replacement_history/{i}"))])
        elif isinstance(payload.get("message"), str):
            source = self.session.source(index, f"{at}/message")
            self.session.send(self.branch, [Turn(role="user", parts=(Text(text=payload["message"],
                                                                            source=source),), source=source)],
                              index)

    def _send(self, items: list[_Item]) -> None:
        if not items:
            return
        # (a prior turn: a system or developer message here is a turn, not the request's system)
        turns = [_exit_codes(t) for t in group_read((i[:3] for i in items), [], prior=_AFTER_START)]
        self.session.send(self.branch, turns, items[0][3])

    def _results(self) -> None:
        """The tools' outputs logged since the last other item, sent as one turn: what sending each
        and joining it to the one before gives (`Session.send`), read and linked once."""
        if self.results:
            items, self.results = self.results, []
            self._send(items)

    def _answer(self) -> None:
        """The model's items since the last input: one answer."""
        if not self.output:
            return
        items, self.output = self.output, []
        parts = tuple(p for t in group_read((i[:3] for i in items), [], prior=_AFTER_START) for p in t.parts)
        turn = Turn(role="assistant", parts=parts, source=items[0][1])
        self.session.answer(self.branch, items[0][3], turn, self.model)

    def built(self) -> Built:
        self._results()
        self._answer()
        built = self.session.built(LACKS if self.instructions else (*LACKS, SYSTEM))
        built.errors = self.errors
        return built


def _exit_codes(turn: Turn) -> Turn:
    """A tool turn with its results marked failed where their output says so (`_exit_code`); the
    same turn when none is."""
    if turn.role != "tool":
        return turn
    parts = tuple(_exit_code(p) for p in turn.parts)
    if all(map(is_, parts, turn.parts)):
        return turn
    return replace(turn, parts=parts)


def _exit_code(part: Part) -> Part:
    """A shell tool's result marked failed where its output's own metadata says the command exited
    non-zero; the result's meta names the field the flag came from."""
    if not isinstance(part, Result) or not part.content:
        return part
    body = part.content[0]
    code, field = None, ""
    if isinstance(body, Text):
        text = body.text
        if text.startswith("{") and _EXITED_0.search(text, max(0, len(text) - _TAIL)) is not None:
            return part  # (the output, as long as the rest of the record, not parsed a second time)
        ok, value = try_loads(text) if text.startswith("{") else (False, None)
        if ok and isinstance(value, dict) and isinstance(value.get("metadata"), dict):
            code, field = value["metadata"].get("exit_code"), "output.metadata.exit_code"
        elif (header := _EXIT_HEADER.match(body.text)) is not None:
            code, field = int(header.group(1)), "output: Exit code"
    elif isinstance(body, Json) and isinstance(body.value, dict) \
            and isinstance(body.value.get("metadata"), dict):
        code, field = body.value["metadata"].get("exit_code"), "output.metadata.exit_code"
    if not isinstance(code, int) or isinstance(code, bool) or code == 0:
        return part
    return with_meta(NAME, replace(part, is_error=True), {"is_error_from": field})


def read(path: str, data: bytes, document: Any) -> Built:
    """A rollout (either layout) read into its conversation (one more after each compaction)."""
    reader = _Reader(path, data)
    for number, start, end, record in json_records(path, data, reader.errors):
        reader.line((number, start, end), record)
    return reader.built()
