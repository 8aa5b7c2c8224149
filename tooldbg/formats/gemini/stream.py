"""Gemini `streamGenerateContent` captures: one capture is one response, its chunks rebuilt into
the body a non-streamed call returns."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...jsonio import MAX_DEPTH, TooDeep, ensure_depth
from ...shorten import QUOTE, one_line, quote
from ...source import Source
from ..base import Assembled, StreamEvent, StreamProblem
from ..reading import Pieces, type_name
from .common import _SIGNATURE, _camel, _find, _get, _read_error

_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d{1,9})\]|\[(['\"])(.*?)\3\]")


def sniff_stream(events: list[StreamEvent]) -> bool:
    first = next((e.data for e in events if isinstance(e.data, dict)), None)
    return first is not None and (_get(first, "candidates") is not None
                                  or _get(first, "promptFeedback") is not None)


def split_streams(events: list[StreamEvent]) -> list[list[StreamEvent]]:
    """A Gemini stream has no start event to split on: one capture is one response."""
    return [events]


def assemble_stream(events: list[StreamEvent], source: Source) -> Assembled:
    """Rebuild the non-streamed response body. Follows Google ADK's `StreamingResponseAggregator`
    (google/adk-python `src/google/adk/utils/streaming_utils.py`, progressive SSE mode): runs of
    plain (or thought) text are joined, whole parts are kept in order, `partialArgs` fragments are
    set by JSON path with strings of one path concatenated, and the last usage reported wins. An
    empty `functionCall {}` closes a streamed call (vercel/ai `google-language-model.ts`)."""
    assembler = _Assembler()
    for event in events:
        assembler.feed(event)
    return assembler.result(events)


class _Assembler:
    """One response being put back together: the top-level fields of its chunks, each candidate
    (by its `index`), the first error event, and whether the prompt was blocked."""

    def __init__(self) -> None:
        self.top: dict[str, Any] = {}
        self.candidates: dict[int, _Candidate] = {}
        self.error: dict[str, Any] | None = None
        self.blocked = False
        self.problems: list[StreamProblem] = []

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def feed(self, event: StreamEvent) -> None:
        data = event.data
        if not isinstance(data, dict):
            self.problem("other", f"event is not a JSON object: {quote(data)}", event.index)
            return
        if "error" in data:
            message = _read_error(data["error"]).error
            self.problem("error", message.message if message else "error event", event.index)
            self.error = self.error or data
            return
        self.top.update((k, v) for k, v in data.items() if _camel(k) != "candidates" and v is not None)
        feedback = _get(data, "promptFeedback")
        self.blocked = (self.blocked or isinstance(feedback, dict)
                        and _get(feedback, "blockReason") is not None)
        raw = _get(data, "candidates")
        if raw is None:
            return
        if not isinstance(raw, list):
            self.problem("other", "candidates is not a list", event.index)
            return
        for item in raw:
            if not isinstance(item, dict):
                self.problem("other", "a candidate is not an object", event.index)
                continue
            number = _get(item, "index")
            number = number if isinstance(number, int) else 0
            state = self.candidates.setdefault(number, _Candidate(first=event.index))
            state.take(item, event.index, self.problems)

    def result(self, events: list[StreamEvent]) -> Assembled:
        chunks: dict[str, int] = {}
        assembled = []
        for n, state in enumerate(self.candidates.values()):
            state.end(self.problems)
            at = f"/candidates/{n}"
            chunks[at] = state.first
            chunks.update((f"{at}/content/parts/{j}", opened) for j, opened in enumerate(state.opened))
            if state.finish is not None:
                chunks[f"{at}/finishReason"] = state.finish
            content = {"parts": state.parts, **({"role": state.role} if state.role is not None else {})}
            assembled.append({"content": content, **state.fields})
        complete = (self.error is not None or self.blocked
                    or any(s.finish is not None for s in self.candidates.values()))
        if not complete:
            self.problem("truncated", "the stream ended without a finishReason",
                         events[-1].index if events else None)
        body = {"candidates": assembled, **self.top} if assembled or self.error is None else self.error
        return Assembled(body=body, chunks=chunks, problems=tuple(self.problems), complete=complete)


@dataclass
class _Call:
    """A call whose arguments are still arriving as `partialArgs`."""

    part: dict[str, Any]
    chunk: int
    continued: bool = False

    @property
    def name(self) -> str | None:
        return self.part["functionCall"].get("name")


@dataclass
class _Candidate:
    """One candidate being rebuilt: its parts, the event that opened each, and any open call."""

    first: int
    fields: dict[str, Any] = field(default_factory=dict)
    role: Any = None
    parts: list[dict[str, Any]] = field(default_factory=list)
    opened: list[int] = field(default_factory=list)
    finish: int | None = None
    call: _Call | None = None
    unterminated: _Call | None = None  # closed by its last fragment; `functionCall {}` still due
    # The text the last part is being continued with, in pieces: (its key, its text, then each
    # continuation), joined into it when a part follows or the stream ends (`_joined`). Adding
    # each continuation to the string copied the text so far every time: a long text took time in
    # the square of its length.
    joining: tuple[str, list[str]] | None = None
    #: Where the calls' arguments hold a string still growing (`Pieces`): (its object or list, key).
    growing: list[tuple[Any, str | int]] = field(default_factory=list)

    def take(self, item: dict[str, Any], index: int, problems: list[StreamProblem]) -> None:
        self.fields.update((k, v) for k, v in item.items() if _camel(k) != "content" and v is not None)
        if _get(item, "finishReason") is not None:
            self.finish = index
        content = _get(item, "content")
        if content is None:
            return
        parts = _get(content, "parts") if isinstance(content, dict) else None
        if not isinstance(content, dict) or not isinstance(parts, list | None):
            problems.append(StreamProblem("other", "content or its parts are malformed", index))
            return
        self.role = self.role if self.role is not None else _get(content, "role")
        for part in parts or ():
            self.add(part, index, problems)

    def add(self, part: Any, index: int, problems: list[StreamProblem]) -> None:
        if not isinstance(part, dict):
            problems.append(StreamProblem("other", "a part is not an object", index))
            return
        call = _get(part, "functionCall")
        if self.unterminated is not None and not _closes(call):
            self._missing_close(problems)
        if isinstance(call, dict) and (self.call is not None or _get(call, "partialArgs")
                                       or _get(call, "willContinue") or not _get(call, "name")):
            self._stream(part, call, index, problems)
            return
        if self.call is not None:
            problems.append(StreamProblem("truncated", f"call {self.call.name} was not closed before "
                                          "the next part arrived", index))
            self.call = None
        if self._join_text(part):
            return
        self._joined()
        self.parts.append(dict(part))
        self.opened.append(index)

    def _join_text(self, part: dict[str, Any]) -> bool:
        """Append a text continuation to the text part before it; True when nothing is left to add
        (an empty text without a signature is a no-op)."""
        text = _get(part, "text")
        if not isinstance(text, str) or _get(part, _SIGNATURE) or not _plain_text(part):
            return False
        last = self.parts[-1] if self.parts else None
        if last is not None and _plain_text(last) and isinstance(_get(last, "text"), str) \
                and bool(_get(last, "thought")) == bool(_get(part, "thought")):
            if self.joining is None:
                key = _find(last, "text")[0]
                self.joining = (key, [last[key]])
            self.joining[1].append(text)
            return True
        return text == ""

    def _joined(self) -> None:
        """The last part's text, if it is being continued, written into it."""
        if self.joining is not None:
            key, pieces = self.joining
            self.parts[-1][key] = "".join(pieces)
            self.joining = None

    def _stream(self, part: dict[str, Any], call: dict[str, Any], index: int,
                problems: list[StreamProblem]) -> None:
        name = _get(call, "name") if isinstance(_get(call, "name"), str) else None
        fragments = _get(call, "partialArgs")
        if _closes(call):
            self.call = self.unterminated = None
            return
        if name and self.call is not None and (name != self.call.name or not fragments):
            problems.append(StreamProblem("order", f"call {name} began before call "
                                          f"{self.call.name or '(unnamed)'} was closed", index))
            self.call = None
        if self.call is None:
            if not name:
                problems.append(StreamProblem("identity", "argument fragments with no call open "
                                              "(no function name)", index))
            self.call = self._open(part, call, name, index)
        else:
            self._same_call(part, call, index, problems)
        self._fill(fragments, index, problems)
        self.call.chunk = index
        if _get(call, "willContinue"):
            self.call.continued = True
        else:
            self.unterminated = self.call if self.call.continued else None
            self.call = None

    def _open(self, part: dict[str, Any], call: dict[str, Any], name: str | None, index: int) -> _Call:
        wire_id, args = _get(call, "id"), _get(call, "args")
        built = {**({"name": name} if name else {}),
                 **({"id": wire_id} if isinstance(wire_id, str) and wire_id else {}),
                 "args": dict(args) if isinstance(args, dict) else {}}
        new = {"functionCall": built, **{k: v for k, v in part.items() if _camel(k) != "functionCall"}}
        self._joined()
        self.parts.append(new)
        self.opened.append(index)
        return _Call(part=new, chunk=index)

    def _same_call(self, part: dict[str, Any], call: dict[str, Any], index: int,
                   problems: list[StreamProblem]) -> None:
        """A continuation: empty ids and names never overwrite; a different id is reported."""
        assert self.call is not None
        built = self.call.part["functionCall"]
        wire_id = _get(call, "id")
        if isinstance(wire_id, str) and wire_id:
            if built.get("id", wire_id) != wire_id:
                problems.append(StreamProblem("identity", f"call id changed from {built['id']} to "
                                              f"{wire_id} mid-call", index))
            else:
                built["id"] = wire_id
        signature = _get(part, _SIGNATURE)
        if signature and _get(self.call.part, _SIGNATURE) is None:
            self.call.part[_SIGNATURE] = signature

    def _fill(self, fragments: Any, index: int, problems: list[StreamProblem]) -> None:
        assert self.call is not None
        args = self.call.part["functionCall"]["args"]
        for fragment in fragments if isinstance(fragments, list) else ():
            path = _get(fragment, "jsonPath") if isinstance(fragment, dict) else None
            steps = _json_path(path) if isinstance(path, str) else None
            if steps is None:
                problems.append(StreamProblem("arguments",
                                              f"unreadable partialArgs entry {quote(fragment, 80)}", index))
                continue
            found = _fragment_value(fragment)
            if found is None:
                continue
            kind, value = found
            try:  # a path builds nesting the parser never saw: it is held to the same limit
                ensure_depth(value, "", ARGUMENT_DEPTH - len(steps))
            except TooDeep:
                message = (f"{one_line(str(path), QUOTE)}: nests the arguments deeper than {ARGUMENT_DEPTH} "
                           "levels, which tooldbg does not read")
                problems.append(StreamProblem("arguments", message, index))
                continue
            problem = _put(args, steps, value, self.growing,
                           append=kind == "stringValue" and isinstance(value, str))
            if problem:
                where = one_line(str(path), QUOTE)
                problems.append(StreamProblem(problem[0], f"{where}: {problem[1]}", index))
        if fragments is not None and not isinstance(fragments, list):
            problems.append(StreamProblem("arguments", "partialArgs is not a list", index))

    def _grown(self) -> None:
        """Each string argument still growing, joined into its place."""
        for node, step in self.growing:
            grown = _child(node, step)
            if isinstance(grown, Pieces):
                node[step] = "".join(grown.pieces)
        self.growing.clear()

    def _missing_close(self, problems: list[StreamProblem]) -> None:
        assert self.unterminated is not None
        problems.append(StreamProblem(
            "other", f"call {self.unterminated.name} ended on a fragment without willContinue; the "
            "closing empty functionCall {} never came", self.unterminated.chunk))
        self.unterminated = None

    def end(self, problems: list[StreamProblem]) -> None:
        self._joined()
        self._grown()
        if self.call is not None:
            problems.append(StreamProblem("truncated", f"call {self.call.name} was still receiving "
                                          "arguments when the stream ended", self.call.chunk))
            self.call = None
        if self.unterminated is not None:
            self._missing_close(problems)


#: How deep `partialArgs` paths may nest a call's arguments: the parser's limit, less the levels of
#: the response body around them (`candidates/0/content/parts/0/functionCall/args`).
ARGUMENT_DEPTH = MAX_DEPTH - 10


def _closes(call: Any) -> bool:
    """`functionCall {}`: the empty part that closes a call streamed with `partialArgs`."""
    return (isinstance(call, dict) and _get(call, "args") is None
            and not any(_get(call, k) for k in ("name", "partialArgs", "willContinue")))


def _plain_text(part: dict[str, Any]) -> bool:
    return all(_camel(k) in ("text", "thought", _SIGNATURE) for k in part)


def _fragment_value(fragment: dict[str, Any]) -> tuple[str, Any] | None:
    """(kind, value) of a `partialArgs` entry; only a `stringValue` continues what is there."""
    for name in ("stringValue", "numberValue", "boolValue", "nullValue"):
        key, value = _find(fragment, name)
        if key in fragment:
            return name, None if name == "nullValue" else value
    return None


def _json_path(path: str) -> list[str | int] | None:
    """`$.recipe.ingredients[0].amount` → ["recipe", "ingredients", 0, "amount"]."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        m = _PATH_STEP.match(path, pos)
        if m is None:
            return None
        steps.append(m.group(1) if m.group(1) is not None
                     else int(m.group(2)) if m.group(2) is not None else m.group(4))
        pos = m.end()
    return steps or None


def _put(root: dict[str, Any], steps: list[str | int], value: Any, growing: list[tuple[Any, str | int]], *,
         append: bool) -> tuple[str, str] | None:
    """Set `value` at `steps` below `root`, creating objects and arrays on the way; a string at a
    path that already holds one is appended (as a `Pieces`, noted in `growing`). Returns (problem
    kind, message) when it cannot."""
    node: Any = root
    for step, following in zip(steps, steps[1:], strict=False):
        child = _child(node, step)
        if child is None and isinstance(following, int) and following > 0:
            return "order", f"index {following} arrived before index 0"
        if child is None:
            child = [] if isinstance(following, int) else {}
            problem = _assign(node, step, child)
            if problem:
                return problem
        elif not isinstance(child, list if isinstance(following, int) else dict):
            return "arguments", f"{type_name(child)} where the path needs a container"
        node = child
    old = _child(node, steps[-1])
    if append and isinstance(old, Pieces):
        old.pieces.append(value)
        return None
    if append and isinstance(old, str):
        value = Pieces(old, value)
        growing.append((node, steps[-1]))
    elif append and old is not None:
        return "arguments", f"a string continues {type_name(old)}"
    return _assign(node, steps[-1], value)


def _child(node: Any, step: str | int) -> Any:
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(step)
    if isinstance(node, list) and isinstance(step, int) and step < len(node):
        return node[step]
    return None


def _assign(node: Any, step: str | int, value: Any) -> tuple[str, str] | None:
    if isinstance(node, dict) and isinstance(step, str):
        node[step] = value
    elif isinstance(node, list) and isinstance(step, int) and step <= len(node):
        node[step:step + 1] = [value]
    elif isinstance(node, list) and isinstance(step, int):
        return "order", f"index {step} arrived before index {len(node)}"
    else:
        return "arguments", f"path step {quote(step)} does not fit {type_name(node)}"
    return None
