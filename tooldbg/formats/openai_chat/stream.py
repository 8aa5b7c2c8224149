"""Chat Completions streams: telling chunks apart, and assembling them into the
`chat.completion` body they stand for, with what went wrong on the way.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ...errors import FormatError
from ...shorten import quote
from ...source import Source, escape_pointer
from ..base import Assembled, StreamEvent, StreamProblem
from ..reading import Pieces, joined, parse_arguments, type_name
from .common import _api_error


def sniff_stream(events: list[StreamEvent]) -> bool:
    """Any chunk that is a `chat.completion.chunk` or carries `choices[].delta`."""
    return any(_is_chunk(e.data) for e in events)


def _is_chunk(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    choices = data.get("choices")
    return data.get("object") == "chat.completion.chunk" or (
        isinstance(choices, list) and any(isinstance(c, dict) and "delta" in c for c in choices))


# -------------------------------------------------------------------------------- streams


def split_streams(events: list[StreamEvent]) -> list[list[StreamEvent]]:
    """A Chat Completions capture is one response: `[DONE]` ends it."""
    return [list(events)]


def assemble_stream(events: list[StreamEvent], source: Source) -> Assembled:
    """Chunks → the equivalent `chat.completion` body, as openai-python accumulates them
    (`src/openai/lib/streaming/_deltas.py` `accumulate_delta` and
    `src/openai/lib/streaming/chat/_completions.py` `ChatCompletionStreamState`): strings
    concatenate, dicts merge, list entries merge by their `index`, `finish_reason` keeps the last
    non-null value, chunks whose `object` is not `chat.completion.chunk` are skipped (Azure's
    content-filter chunk), an `{"error": …}` payload ends the stream, `[DONE]` terminates it.

    Deliberate departures where the SDK corrupts real dialects: identity fields (`id`, `name`,
    `type`, `role`, `index`) keep their first non-empty value instead of concatenating
    (OpenRouter/Together repeat `role`, Qwen sends `"id":""`, Mistral-format `"name":""`, LiteLLM
    repeats the id); tool calls are keyed by their `index` value, not list position (a relay may
    start them at index 1); numbers are replaced, not summed; usage keeps the last reported value
    rather than being reset by a later chunk without it.

    Where the SDK would corrupt the message, the chunk that does it is recorded, once: a fragment
    repeating its call's `id` or function `name` unchanged (the SDK glues `call_xcall_x`), a
    second call arriving on an index already used (servers that number every parallel call 0: the
    SDK runs the arguments together, `{"a":1}{"b":2}`), and a first call at an index other than 0
    (relays translating Anthropic streams pass on the content-block index, 1 after a text block,
    BerriAI/litellm#5231: `accumulate_delta`'s `acc_value.insert(index, …)` puts the call at
    position 0, and each later fragment, finding no entry at its index, goes to a second call with
    the arguments but no id or name) — all "order", since the fragments are right and their
    addressing is not. Empty continuation values (`"id":""`) repeat nothing.
    """
    assembler = _Assembler()
    try:
        for position, event in enumerate(events):
            if not assembler.feed(event):
                rest = [e.index for e in events[position + 1:] if e.data not in ("", None)]
                if rest and assembler.done:
                    assembler.problem("other", f"{len(rest)} events after [DONE] ignored", rest[0])
                break
    except RecursionError:
        raise FormatError("stream payload nested too deeply") from None
    return assembler.result(events)


@dataclass
class _Choice:
    """One choice being assembled, with the stream state its tool calls need."""

    index: int
    opened: int
    message: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    finish_reason: Any = None
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    chunks: dict[str, int] = field(default_factory=dict)  # relative pointer → event
    last_call: int | None = None
    last_arguments: dict[int, int] = field(default_factory=dict)
    reported: set[tuple[str, Any]] = field(default_factory=set)
    reused: set[int] = field(default_factory=set)  # indices a second call arrived on
    repeats: dict[int, tuple[int, set[str]]] = field(default_factory=dict)  # index → (first chunk, what)


class _Assembler:
    """Folds events one by one into per-choice state, collecting chunk pointers and problems."""

    def __init__(self) -> None:
        self.envelope: dict[str, Any] = {}
        self.choices: dict[int, _Choice] = {}
        self.chunks: dict[str, int] = {}
        self.problems: list[StreamProblem] = []
        self.usage: Any = None
        self.error: Any = None
        self.done = False
        self.finished = False

    def feed(self, event: StreamEvent) -> bool:
        """Fold one event in; False once the stream is over ([DONE] or an error)."""
        data = event.data
        if isinstance(data, str):
            if data.strip().startswith("[DONE]"):
                self.done = True
                return False
            if data.strip():
                self.problem("other", "a stream event that is not JSON", event.index)
            return True
        if not isinstance(data, dict):
            self.problem("other", f"a stream event that is {type_name(data)}, not an object", event.index)
            return True
        if data.get("error"):
            self.error = data["error"]
            self.chunks["/error"] = event.index
            message = _api_error(data["error"])
            self.problem("error", f"error event: {message.message if message else ''}", event.index)
            return False
        if "object" in data and data["object"] != "chat.completion.chunk":
            if data.get("choices"):
                self.problem("other", f"a chunk of object {quote(data['object'])} was skipped", event.index)
            return True
        self.chunks.setdefault("", event.index)
        for key, value in data.items():
            if key not in ("choices", "usage", "object", "obfuscation") and value not in (None, ""):
                self.envelope.setdefault(key, value)
        if isinstance(data.get("usage"), dict):
            self.usage = data["usage"]
            self.chunks["/usage"] = event.index
        choices = data.get("choices")
        if choices is not None and not isinstance(choices, list):
            self.problem("other", f"choices is {type_name(choices)}, not a list", event.index)
        for choice in choices if isinstance(choices, list) else ():
            self.feed_choice(choice, event.index)
        return True

    def feed_choice(self, choice: Any, at: int) -> None:
        if not isinstance(choice, dict):
            self.problem("other", f"a choice that is {type_name(choice)}, not an object", at)
            return
        index = choice.get("index", 0)
        if not _is_int(index):
            self.problem("order", "a choice without an integer index (taken as 0)", at)
            index = 0
        state = self.choices.get(index)
        if state is None:
            state = self.choices[index] = _Choice(index=index, opened=at)
        for key, value in choice.items():
            if key not in ("index", "delta", "finish_reason", "logprobs", "text") and value not in (None, ""):
                state.extras.setdefault(key, value)
        if choice.get("logprobs") is not None:
            _merge(state.extras, "logprobs", choice["logprobs"])
        delta = choice.get("delta")
        if delta is None and isinstance(choice.get("text"), str):
            delta = {"content": choice["text"]}  # a text-only chunk; Together sends both (no double count)
        if isinstance(delta, dict):
            for key, value in delta.items():
                if key == "tool_calls":
                    self.feed_calls(state, value, at)
                elif not _is_int(value):  # per-token counters (Together `token_id`) are no content
                    if value is not None and key not in state.message:
                        state.chunks.setdefault(f"/message/{escape_pointer(key)}", at)
                    _merge(state.message, key, value)
        elif delta is not None:
            self.problem("other", f"a delta that is {type_name(delta)}, not an object", at)
        if choice.get("finish_reason"):
            state.finish_reason = choice["finish_reason"]
            state.chunks.setdefault("/finish_reason", at)
            self.finished = True

    def feed_calls(self, state: _Choice, fragments: Any, at: int) -> None:
        if fragments is None:
            return
        if not isinstance(fragments, list):
            self.problem("other", f"tool_calls is {type_name(fragments)}, not a list", at)
            return
        for fragment in fragments:
            if not isinstance(fragment, dict):
                self.problem("other", f"a tool call fragment that is {type_name(fragment)}", at)
                continue
            reuse = self.reuses(state, fragment)
            index = self.call_index(state, fragment, at, reuse)
            call = state.calls.get(index)
            if call is None:
                call = state.calls[index] = {}
                state.chunks[f"/call/{index}"] = at
            elif reuse or index in state.reused:
                if index not in state.reused:
                    state.reused.add(index)
                    self.problem("order", f"tool call index {index} is reused by another call "
                                          f"({quote(fragment.get('id'))} after {quote(call.get('id'))}): its "
                                          "fragments merge into the first call, running the arguments "
                                          "together (parallel calls all sent at one index)", at)
            else:
                self.check_identity(state, index, call, fragment, at)
                if _is_int(fragment.get("index")):
                    self.check_repeat(state, index, call, fragment, at)
            for key, value in fragment.items():
                if key != "index":
                    _merge(call, key, value)
            fn = fragment.get("function")
            if isinstance(fn, dict) and fn.get("arguments") or isinstance(fragment.get("custom"), dict):
                state.last_arguments[index] = at
            state.last_call = index

    def reuses(self, state: _Choice, fragment: dict[str, Any]) -> bool:
        """Does this fragment open another call on an index a call already holds? It names another
        id, and the call there is whole (its arguments are JSON already) or it names another
        function; another id continuing unfinished arguments is the call changing its id."""
        index, new_id = fragment.get("index"), fragment.get("id")
        call = state.calls.get(index) if _is_int(index) else None
        if call is None or not isinstance(new_id, str) or not new_id or call.get("id") in (None, "", new_id):
            return False
        fn, known = fragment.get("function"), call.get("function")
        name = fn.get("name") if isinstance(fn, dict) else None
        known = known if isinstance(known, dict) else {}
        arguments = joined(known.get("arguments"))
        whole = isinstance(arguments, str) and bool(arguments.strip()) \
            and parse_arguments(arguments)[1] is None
        return whole or (isinstance(name, str) and bool(name) and known.get("name") not in (None, "", name))

    def call_index(self, state: _Choice, fragment: dict[str, Any], at: int, reuse: bool = False) -> int:
        """The fragment's `index`, checked for gaps and interleaving (a reused index is not
        interleaving: the caller reports it); guessed when missing."""
        index = fragment.get("index")
        if not _is_int(index):
            # Mistral sends whole calls without `index`: an id places the fragment unambiguously.
            new_id = fragment.get("id")
            by_id = {c.get("id"): i for i, c in state.calls.items() if c.get("id")}
            if isinstance(new_id, str) and new_id:
                return by_id.get(new_id, max(state.calls, default=-1) + 1)
            self.problem("order", "a tool call fragment has neither an integer index nor an id: "
                                  + ("taken as a new call" if state.last_call is None
                                     else f"appended to call {state.last_call}"), at)
            return max(state.calls, default=-1) + 1 if state.last_call is None else state.last_call
        if index not in state.calls and not state.calls and index != 0:
            self.problem("order", f"the first tool call arrives at index {index}, not 0: openai-python "
                                  "files it at position 0 and makes its later fragments a second call, "
                                  "with the arguments but no id or name (another format's block index "
                                  "passed on: Anthropic counts the text block before the call)", at)
        elif index not in state.calls and state.calls and index != max(state.calls) + 1:
            self.problem("order", f"tool call index {index} follows index {max(state.calls)}: "
                                  "indices are not contiguous", at)
        elif index in state.calls and index != state.last_call and not reuse:
            self.problem("order", f"a fragment of tool call {index} arrived after tool call "
                                  f"{state.last_call} had started (interleaved fragments)", at)
        return index

    def check_identity(self, state: _Choice, index: int, call: dict[str, Any],
                       fragment: dict[str, Any], at: int) -> None:
        """A later fragment naming another id or function than the call's first one."""
        fn, known = fragment.get("function"), call.get("function")
        pairs = [("id", fragment.get("id"), call.get("id")),
                 ("name", fn.get("name") if isinstance(fn, dict) else None,
                  known.get("name") if isinstance(known, dict) else None)]
        for what, new, old in pairs:
            if new not in (None, "") and old not in (None, "") and new != old \
                    and (what, index) not in state.reported:
                state.reported.add((what, index))
                self.problem("identity", f"tool call {index} changes {what} from {quote(old)} to "
                                         f"{quote(new)} (the first value is kept)", at)

    def check_repeat(self, state: _Choice, index: int, call: dict[str, Any],
                     fragment: dict[str, Any], at: int) -> None:
        """A later fragment repeating the call's id or function name unchanged (LiteLLM, Fireworks):
        noted at the first repeat; reported once per call when the choice is finished."""
        fn, known = fragment.get("function"), call.get("function")
        pairs = [("id", fragment.get("id"), call.get("id")),
                 ("name", fn.get("name") if isinstance(fn, dict) else None,
                  known.get("name") if isinstance(known, dict) else None)]
        same = {what for what, new, old in pairs if isinstance(new, str) and new and new == old}
        if same:
            first, seen = state.repeats.get(index, (at, set()))
            state.repeats[index] = (first, seen | same)

    def problem(self, kind: str, message: str, chunk: int | None) -> None:
        self.problems.append(StreamProblem(kind, message, chunk))

    def result(self, events: list[StreamEvent]) -> Assembled:
        choices = []
        for position, state in enumerate(sorted(self.choices.values(), key=lambda c: c.index)):
            choices.append(self.finish_choice(state, f"/choices/{position}"))
        complete = self.done or self.finished
        if not complete and self.error is None:
            self.problem("truncated", "the stream ends with no finish_reason and no [DONE]",
                         events[-1].index if events else None)
        if self.error is not None and not choices:
            return Assembled(body={"error": self.error}, chunks=self.chunks,
                             problems=tuple(self.problems), complete=complete)
        body: dict[str, Any] = {k: self.envelope[k] for k in ("id", "object", "created", "model")
                                if k in self.envelope}
        body["object"] = "chat.completion"
        body.update({k: v for k, v in self.envelope.items() if k not in body})
        body["choices"] = choices
        if self.usage is not None:
            body["usage"] = self.usage
        if self.error is not None:
            body["error"] = self.error
        return Assembled(body=body, chunks=self.chunks, problems=tuple(self.problems), complete=complete)

    def finish_choice(self, state: _Choice, at: str) -> dict[str, Any]:
        """The choice as a non-streamed body holds it; checks each assembled call."""
        message = joined(state.message)
        self.chunks[at] = self.chunks[at + "/message"] = state.opened
        for pointer, index in state.chunks.items():
            if not pointer.startswith("/call/"):
                self.chunks[at + pointer] = index
        if state.calls:
            message["tool_calls"] = []
            for position, index in enumerate(sorted(state.calls)):
                call = joined(state.calls[index])
                opened = state.chunks[f"/call/{index}"]
                self.chunks[f"{at}/message/tool_calls/{position}"] = opened
                if index in state.repeats:
                    self.report_repeat(index, call, *state.repeats[index])
                self.check_call(index, call, opened, state.last_arguments.get(index, opened),
                                merged=index in state.reused)
                message["tool_calls"].append(call)
        return {"index": state.index, "message": message, "finish_reason": state.finish_reason,
                **joined(state.extras)}

    def report_repeat(self, index: int, call: dict[str, Any], chunk: int, what: set[str]) -> None:
        fn = call.get("function")
        named = {"id": call.get("id"), "name": fn.get("name") if isinstance(fn, dict) else None}
        shown = " and ".join(f"its {k} {quote(named[k])}" for k in ("id", "name") if k in what)
        glue = str(named["id" if "id" in what else "name"])
        self.problem("order", f"tool call {index} repeats {shown} on a later fragment: assemblers that "
                              f"concatenate strings, as openai-python's does, glue them into "
                              f"{quote(glue + glue)}", chunk)

    def check_call(self, index: int, call: dict[str, Any], opened: int, last: int,
                   merged: bool = False) -> None:
        """A finished call has an id, a name and JSON arguments (a call merged with another one
        reusing its index is already reported: its arguments run together by that cause)."""
        if not call.get("id"):
            self.problem("identity", f"tool call {index} has no id", opened)
        if call.get("type", "function") != "function":
            return
        fn = call.get("function")
        if not isinstance(fn, dict) or not fn.get("name"):
            self.problem("identity", f"tool call {index} has no function name", opened)
        arguments = fn.get("arguments") if isinstance(fn, dict) else None
        # "" (an argument-less call never completed) is TD205's business, not a broken assembly.
        if isinstance(arguments, str) and arguments and not merged \
                and parse_arguments(arguments)[1] is not None:
            self.problem("arguments", f"tool call {index}: the assembled arguments are not valid JSON",
                         last)


_IDENTITY = frozenset({"id", "name", "type", "role", "index"})


def _merge(acc: dict[str, Any], key: str, value: Any) -> None:
    """Fold one delta value into `acc[key]` (see `assemble_stream` for the rules)."""
    old = acc.get(key)
    if value is None:
        acc.setdefault(key, None)
    elif old is None or (old == "" and key in _IDENTITY):
        acc[key] = copy.deepcopy(value)
    elif key in _IDENTITY:
        return
    elif isinstance(old, Pieces) and isinstance(value, str):
        old.pieces.append(value)
    elif isinstance(old, str) and isinstance(value, str):
        acc[key] = Pieces(old, value)
    elif isinstance(old, dict) and isinstance(value, dict):
        for k, v in value.items():
            _merge(old, k, v)
    elif isinstance(old, list) and isinstance(value, list):
        for entry in value:
            index = entry.get("index") if isinstance(entry, dict) else None
            target = next((e for e in old if _is_int(index) and isinstance(e, dict)
                           and e.get("index") == index), None)
            if target is None:
                old.append(copy.deepcopy(entry))
            else:
                for k, v in entry.items():
                    _merge(target, k, v)
    else:
        acc[key] = copy.deepcopy(value)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
