"""Responses streams: telling its SSE events apart, and assembling them into the response
object they stand for, with what went wrong on the way.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ...jsonio import try_loads
from ...shorten import quote
from ...source import Source
from ..base import Assembled, StreamEvent, StreamProblem
from ..reading import as_index, event_type, split_at

_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def sniff_stream(events: list[StreamEvent]) -> bool:
    return any((event_type(e) or "").startswith("response.") for e in events[:10])


# ------------------------------------------------------------------------------------ streams


def split_streams(events: list[StreamEvent]) -> list[list[StreamEvent]]:
    """A capture of several responses back to back → one list per `response.created`."""
    return split_at(events, lambda event: event_type(event) == "response.created")


def assemble_stream(events: list[StreamEvent], source: Source) -> Assembled:
    """Rebuild the response body as openai-python accumulates events
    (`src/openai/lib/streaming/responses/_responses.py`, `ResponseStreamState.accumulate_event`):
    items open at `output_item.added` and are found by `output_index` (never by `item_id`, which
    GitHub Copilot rotates on every event), deltas append, `.done` values win (but an empty string
    never overwrites a value), and `response.completed` — or `.failed`/`.incomplete` — is the final
    state; without `output` there, the finished items stand in for it, as in the SDK.

    Order problems are recorded once, at the event that caused them: an `output_index` opening out
    of turn (the SDK appends each added item and looks events up by `output[output_index]`, so a
    skipped index fails there), an event for an output after a later one was added while it is still
    open (interleaved outputs, once per output), a `sequence_number` going back (a gap it fills is
    then no gap), and the gaps no later event fills (events missing)."""
    state = _Assembler()
    for event in events:
        state.feed(event)
    return state.finish(events[-1].index if events else None)


#: event prefix → (where its target sits in the item, the field its deltas build, the part's type)
_FIELDS: dict[str, tuple[str, str, str | None]] = {
    "response.output_text": ("content", "text", "output_text"),
    "response.refusal": ("content", "refusal", "refusal"),
    "response.reasoning_text": ("content", "text", "reasoning_text"),
    "response.reasoning_summary_text": ("summary", "text", "summary_text"),
    "response.function_call_arguments": ("item", "arguments", None),
    "response.custom_tool_call_input": ("item", "input", None),
    "response.mcp_call_arguments": ("item", "arguments", None),
    "response.code_interpreter_call_code": ("item", "code", None),
    "response.apply_patch_call_operation_diff": ("operation", "diff", None),
}
_PARTS = {"response.content_part": "content", "response.reasoning_summary_part": "summary"}
_PART_INDEX = {"content": "content_index", "summary": "summary_index"}

_Key = tuple[int, str, int | None, str]


class _Assembler:
    """One response being put back together."""

    def __init__(self) -> None:
        self.base: dict[str, Any] | None = None
        self.first: int | None = None
        self.items: dict[int, dict[str, Any]] = {}  # output_index → item
        self.opened: dict[int, int] = {}  # output_index → event that opened it
        self.parts: dict[tuple[int, str, int], int] = {}  # (output_index, content|summary, index) → event
        self.fragments: dict[_Key, list[str]] = {}  # deltas not yet checked against a `.done` value
        # The text each run of deltas builds, in pieces: (the node, its text before the run, then
        # each delta), joined into the node when an event of its output reads or replaces it
        # (`_joined`). Adding each delta to the string copied the text so far at every delta:
        # a long output took time in the square of its length.
        self.building: dict[_Key, tuple[dict[str, Any], list[str]]] = {}
        self.terminal: dict[str, Any] | None = None
        self.terminal_at: int | None = None
        self.error: dict[str, Any] | None = None
        self.sequence: int | None = None  # the last event's sequence_number
        self.highest: int | None = None  # the highest sequence_number so far
        self.gaps: list[tuple[StreamProblem, int, int, set[int]]] = []  # (problem, from, to, filled since)
        self.closed: set[int] = set()  # outputs whose output_item.done came
        self.interleaved: set[int] = set()  # outputs reported as interleaved
        self.readded: set[int] = set()  # outputs added twice (the second item replaced the first)
        self.problems: list[StreamProblem] = []

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def feed(self, event: StreamEvent) -> None:
        data, at = event.data, event.index
        if not isinstance(data, dict):
            if not (isinstance(data, str) and data.strip() == "[DONE]"):
                self.problem("other", "an event that is not a JSON object", at)
            return
        kind = event_type(event)
        if self.first is None:
            self.first = at
            # A request refused before a response began is answered with one `error` event.
            if kind not in ("response.created", "error"):
                self.problem("order", f"the stream starts with {quote(kind)}, not response.created", at)
        self._check_sequence(data.get("sequence_number"), at)
        prefix, _, suffix = (kind or "").rpartition(".")
        if kind in ("response.created", "response.in_progress", "response.queued"):
            if self.base is None and isinstance(data.get("response"), dict):
                self.base = copy.deepcopy(data["response"])
        elif kind in _TERMINAL:
            self._terminal(kind, data, at)
        elif kind == "error":
            err = data.get("error")
            self.error = dict(err) if isinstance(err, dict) else {
                k: data[k] for k in ("code", "message", "param") if data.get(k) is not None}
            self.problem("error", f"error event: {self.error.get('message', self.error)}", at)
        elif kind == "response.output_item.added":
            self._added(data, at)
        elif kind == "response.output_item.done":
            self._done(data, at)
        elif kind is not None and prefix in _PARTS and suffix in ("added", "done"):
            self._part(kind, data, at, _PARTS[prefix], suffix == "added")
        elif kind is not None and prefix in _FIELDS and suffix in ("delta", "done"):
            self._field(kind, data, at, *_FIELDS[prefix], suffix == "delta")
        elif not isinstance(kind, str):
            self.problem("other", "an event without a type", at)
        # Other events (`*.in_progress`, `*.searching`, annotations, audio…) only report progress:
        # the item they describe arrives whole in `output_item.done`.

    def _check_sequence(self, number: Any, at: int) -> None:
        """A number going back is reported where it does; a jump ahead is reported as missing
        events until later events fill it (two swapped events are one problem, not three)."""
        if not isinstance(number, int) or isinstance(number, bool):
            return
        last, highest = self.sequence, self.highest
        if last is not None and number <= last:
            self.problem("order", f"sequence_number {number} after {last}: events repeated or reordered", at)
        if highest is not None and number > highest + 1:
            gap = StreamProblem("order", _missing(highest, number, number - highest - 1), at)
            self.problems.append(gap)
            self.gaps.append((gap, highest, number, set()))
        elif highest is not None and number < highest:
            self._fill(number)
        self.sequence = number
        self.highest = number if highest is None else max(highest, number)

    def _fill(self, number: int) -> None:
        """A late event arrived: the gap it belonged to lacks one event fewer (none: no gap)."""
        for k, (gap, start, end, filled) in enumerate(self.gaps):
            if not start < number < end or number in filled:
                continue
            filled.add(number)
            position = next(i for i, p in enumerate(self.problems) if p is gap)
            lacking = end - start - 1 - len(filled)
            if lacking:
                update = StreamProblem("order", _missing(start, end, lacking), gap.chunk)
                self.problems[position] = update
                self.gaps[k] = (update, start, end, filled)
            else:
                del self.problems[position]
                del self.gaps[k]
            return

    def _terminal(self, kind: str, data: dict[str, Any], at: int) -> None:
        if self.terminal is not None:  # a repeated terminal event changes nothing
            return
        response = data.get("response")
        self.terminal = copy.deepcopy(response) if isinstance(response, dict) else {}
        self.terminal_at = at
        if kind == "response.failed" and self.error is None:
            err = self.terminal.get("error")
            message = err.get("message") if isinstance(err, dict) else err
            self.problem("error", f"response failed: {message}", at)

    def _target(self, kind: str, data: dict[str, Any], at: int) -> tuple[int, dict[str, Any]] | None:
        index = as_index(data.get("output_index"))
        if index is None or index not in self.items:
            self.problem("order", f"{kind} for output {index} before its output_item.added", at)
            return None
        self._check_interleaved(kind, index, at)
        return index, self.items[index]

    def _check_interleaved(self, kind: str, index: int, at: int) -> None:
        """An event for an open output after a later output was added (once per output)."""
        latest = max(self.items)
        if index < latest and index not in self.closed and index not in self.interleaved:
            self.interleaved.add(index)
            self.problem("order", f"{kind} for output {index} after output {latest} was added "
                                  "(interleaved outputs)", at)

    def _check_opening(self, index: int, at: int) -> None:
        """A new output must take the next output_index: the SDK appends it and finds it again by
        `output[output_index]`, which a skipped index misses."""
        if self.gaps and self.gaps[-1][0].chunk == at:
            return  # events are missing right before this one: they may have held the outputs between
        expected = max(self.items) + 1 if self.items else 0
        if index not in self.items and index != expected:
            after = f"after output {expected - 1}" if self.items else "as the first output"
            self.problem("order", f"output_index {index} {after}: expected {expected} "
                                  "(output indices skipped or out of order)", at)

    def _added(self, data: dict[str, Any], at: int) -> None:
        index, item = as_index(data.get("output_index")), data.get("item")
        if not isinstance(item, dict):  # the SDK skips an added event without an item
            return
        if index is None:
            self.problem("other", "output_item.added without an output_index", at)
            return
        if index in self.items:
            self.problem("order", f"output {index} added twice", at)
            self.readded.add(index)
        self._check_opening(index, at)
        self.items[index] = copy.deepcopy(item)
        self.opened[index] = at
        self.closed.discard(index)

    def _done(self, data: dict[str, Any], at: int) -> None:
        index, item = as_index(data.get("output_index")), data.get("item")
        if not isinstance(item, dict) or index is None:
            self.problem("other", "output_item.done without an item or output_index", at)
            return
        current = self.items.get(index)
        if current is None:  # a whole item in one event
            self._check_opening(index, at)
            self.items[index] = copy.deepcopy(item)
            self.opened[index] = at
            self.closed.add(index)
            return
        self._check_interleaved("output_item.done", index, at)
        self.closed.add(index)
        self._joined(index)
        self._settle(index, lambda w, i, f: (_locate(item, w, i) or {}).get(f), "output_item.done", at)
        for key in ("call_id", "name"):
            before, after = current.get(key), item.get(key)
            if isinstance(before, str) and isinstance(after, str) and before and after and before != after:
                self.problem("identity", f"output {index}: {key} {quote(before)} became {quote(after)} at "
                                         "output_item.done", at)
        self.items[index] = _merge(current, item)

    def _part(self, kind: str, data: dict[str, Any], at: int, where: str, added: bool) -> None:
        target = self._target(kind, data, at)
        index, part = as_index(data.get(_PART_INDEX[where])), data.get("part")
        if target is None or index is None or not isinstance(part, dict):
            return
        oi, item = target
        self._joined(oi)
        parts = item.setdefault(where, [])
        if not isinstance(parts, list):
            self.problem("other", f"{kind}: output {oi} has no {where} list", at)
            return
        if not added:
            self._settle(oi, lambda w, i, f: part.get(f) if (w, i) == (where, index) else None, kind, at)
            if index < len(parts) and isinstance(parts[index], dict):
                parts[index] = _merge(parts[index], part)
                return
            self.problem("order", f"{kind}: {where} part {index} of output {oi} was never opened", at)
        elif index != len(parts):
            self.problem("order", f"{kind}: {where} part {index} of output {oi} opens at position "
                                  f"{len(parts)}", at)
        if index < len(parts):
            parts[index] = copy.deepcopy(part)
        else:
            parts.append(copy.deepcopy(part))
            index = len(parts) - 1
        self.parts[(oi, where, index)] = at

    def _field(self, kind: str, data: dict[str, Any], at: int, where: str, field: str,
               part_type: str | None, delta: bool) -> None:
        target = self._target(kind, data, at)
        if target is None:
            return
        oi, item = target
        index = as_index(data.get(_PART_INDEX[where])) if where in _PART_INDEX else None
        node = _locate(item, where, index)
        if node is None and part_type is not None and isinstance(item.setdefault(where, []), list) \
                and index == len(item[where]):
            # Text before its `content_part.added`: keep the text, say the opening event is missing.
            self.problem("order", f"{kind} before the {where} part {index} of output {oi} was opened", at)
            node = {"type": part_type, field: ""}
            item[where].append(node)
            self.parts[(oi, where, index)] = at
        if node is None:
            what = where if index is None else f"{where} part {index}"
            self.problem("order", f"{kind}: output {oi} has no {what}", at)
            return
        value = data.get("delta" if delta else field)
        if not isinstance(value, str):
            return
        key: _Key = (oi, where, index, field)
        if delta:
            building = self.building.get(key)
            if building is None or building[0] is not node:  # (not: an item added again replaced it)
                previous = node.get(field)
                building = self.building[key] = (node, [previous if isinstance(previous, str) else ""])
            building[1].append(value)
            self.fragments.setdefault(key, []).append(value)
            return
        self._joined(oi)
        previous = node.get(field)
        self._settle(oi, lambda w, i, f: value if (w, i, f) == (where, index, field) else None, kind, at)
        if value or previous in (None, ""):
            node[field] = value

    def _settle(self, oi: int, final: Callable[[str, int | None, str], Any], kind: str, at: int) -> None:
        """Check the fragments of output `oi` against the final values the event `kind` carries."""
        for key in [k for k in self.fragments if k[0] == oi]:
            value = final(*key[1:])
            if not isinstance(value, str):
                continue
            joined = "".join(self.fragments.pop(key))
            if value != joined:
                self.problem("order", f"the {key[3]} fragments of output {oi} add up to {_short(joined)} "
                                      f"but {kind} says {_short(value)}", at)

    def _joined(self, oi: int | None = None) -> None:
        """The texts deltas are building for output `oi` (None: every output) written into their nodes."""
        for key in [k for k in self.building if oi is None or k[0] == oi]:
            node, pieces = self.building.pop(key)
            node[key[3]] = "".join(pieces)

    def finish(self, last: int | None) -> Assembled:
        self._joined()
        keys = sorted(self.items)
        if self.terminal is not None:
            body = self.terminal
            if not isinstance(body.get("output"), list):
                body["output"] = [self.items[k] for k in keys]
        else:
            body = self.base if self.base is not None else {}
            body["output"] = [self.items[k] for k in keys]
            if self.error is not None and not body.get("error"):
                body["error"] = self.error
            self.problem("truncated", "the stream ended without response.completed, .failed or .incomplete",
                         last)
        chunks = {"": self.first} if self.first is not None else {}
        ids = {item.get("id"): k for k, item in self.items.items() if isinstance(item.get("id"), str)}
        for pos, item in enumerate(body["output"]):
            item_id = item.get("id") if isinstance(item, dict) else None
            key = ids.get(item_id) if isinstance(item_id, str) else None
            key = key if key is not None else (keys[pos] if pos < len(keys) else None)
            if key is not None:
                chunks[f"/output/{pos}"] = self.opened[key]
                chunks.update({f"/output/{pos}/{where}/{i}": c
                               for (oi, where, i), c in self.parts.items() if oi == key})
            if isinstance(item, dict):
                # an output added twice streamed two items: the final one answers for neither
                streamed = self.items.get(key) if key is not None and key not in self.readded else None
                self._check_call(item, pos, streamed,
                                 chunks.get(f"/output/{pos}", self.terminal_at))
        return Assembled(body=body, chunks={k: v for k, v in chunks.items() if v is not None},
                         problems=tuple(self.problems), complete=self.terminal is not None)

    def _check_call(self, item: dict[str, Any], pos: int, streamed: dict[str, Any] | None,
                    chunk: int | None) -> None:
        """A finished call has its id, its name and JSON arguments, as the stream said."""
        kind = item.get("type")
        if kind not in ("function_call", "custom_tool_call"):
            return
        for key in ("call_id", "name"):
            value = item.get(key)
            if not isinstance(value, str) or not value:
                self.problem("identity", f"output {pos}: the {kind} has no {key}", chunk)
            elif streamed is not None and streamed is not item and streamed.get(key) not in (None, "", value):
                self.problem("identity", f"output {pos}: the final response says {key} {quote(value)}, the "
                                         f"stream said {quote(streamed.get(key))}", self.terminal_at)
        arguments = item.get("arguments")
        if kind == "function_call" and not (isinstance(arguments, str) and try_loads(arguments)[0]):
            self.problem("arguments", f"output {pos}: arguments are not valid JSON: {_short(arguments)}",
                         chunk)


def _merge(current: dict[str, Any], final: dict[str, Any]) -> dict[str, Any]:
    """The `.done` copy wins, except that an empty value never overwrites one the stream gave."""
    return {**current, **{k: copy.deepcopy(v) for k, v in final.items()
                          if not (v in (None, "") and current.get(k) not in (None, ""))}}


def _locate(item: dict[str, Any], where: str, index: int | None) -> dict[str, Any] | None:
    """The node of an item a delta builds: the item, its `operation`, or one of its content/summary parts."""
    if where == "item":
        return item
    node = item.get(where)
    if where in _PART_INDEX:
        node = node[index] if isinstance(node, list) and index is not None and index < len(node) else None
    return node if isinstance(node, dict) else None


def _missing(last: int, number: int, count: int) -> str:
    return f"sequence_number jumps from {last} to {number}: {count} events missing"


def _short(value: Any) -> str:
    return quote(value)
