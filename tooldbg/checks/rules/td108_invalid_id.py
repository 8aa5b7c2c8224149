"""A call or result id that is not really an id: missing where the wire requires one, empty,
whitespace only, padded with whitespace, or a placeholder a program wrote where it had no id
(`"tool-use-id"`, `"undefined"`, `"None"`, `"{tool_call_id}"`).

Anthropic and Bedrock reject an empty or padded id ("messages.92.content.0.tool_use.id: String should
match pattern '^[a-zA-Z0-9_-]+$'"; Bedrock allows 1 to 64 characters); OpenAI-compatible backends
accept it, and the history then breaks the moment it is sent anywhere else. A padded id is also
silently re-bound by any layer that trims it; a placeholder is shared by every call that went through
the same code path, so the next parallel call collides with it. A counter reused in every response
(`call_0`) is a real id reused, reported as TD104; an invented but unique id the provider accepts
(`tool_0` on a Gemini replay) is fine. Provider-specific charset and length limits are the target
checks (TD8xx).

A call with no id at all is the same defect one step earlier: local OpenAI-compatible servers have
returned `tool_calls` without `id` (janhq/jan#4420, ggml-org/llama.cpp#11992), so the client has
nothing to put in `tool_call_id`, and every provider whose types require the id
(`Facts.call_id_keys`) rejects the replay; Gemini's ids are optional (pairing by name, TD107). The
legacy Chat `function_call` / `function` role never had ids. A streamed call that never got its id is
reported at its chunk (TD503); a response whose calls the client replayed under ids it made up is
reported at the response, since the history itself is then valid.

Each call's id is checked; a result's only when it differs from the id of the call it answers and
that call's own id is sound, so one bad id yields one finding, at its cause — a result that could not
name an id-less call is paired by position, not reported again (nor as TD101 / TD102).
"""

from collections.abc import Iterator

from ...lacking import IDS
from ...model import Invocation, Result
from ...shorten import plain, quote
from ...source import Source
from ..base import Context, Finding
from ..pairing import invalid_id, missing_id, paired, short

CODE = "TD108"
NAME = "invalid-id"
SEVERITY = "error"
HARM = "rejection"
LOST = "the result cannot name its call: which result answers which call is a guess"
MESSAGE = "a missing, empty, placeholder or whitespace-padded id"
NEEDS = (IDS,)
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "", "name": "get_weather", "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "", "content": "4°C"}]}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo?"},
  {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_01Lk8rVx2WqD4mZt6NpB9sHc", "name": "get_weather",
     "input": {"city": "Oslo"}}]},
  {"role": "user", "content": [
    {"type": "tool_result", "tool_use_id": "toolu_01Lk8rVx2WqD4mZt6NpB9sHc", "content": "4°C"}]}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        owners: dict[str, Invocation] = {}
        unsound: set[str] = set()  # calls reported here: their results are not reported again
        pairing = paired(ctx, conv)
        for call in pairing.calls:
            node = call.node
            owners[node.id] = node
            why = _why(ctx, node)
            if why is not None:
                unsound.add(node.id)
                unnamed = ", so its result cannot name it" if node.wire_id is None else ""
                yield ctx.at(f"call {node.id} {plain(node.name)} {why}{unnamed}",
                             conversation=conv, turn=call.turn, part=call.part)
        for result in pairing.results:
            node = result.node
            owner = owners.get(node.invocation_id or "")
            if owner is not None and (owner.wire_id == node.wire_id or owner.id in unsound):
                continue
            why = _why(ctx, node) if owner is not None or node.wire_id is not None else None
            if why is None:
                continue
            whose = f" for {owner.id} {plain(owner.name)}" if owner is not None else ""
            yield ctx.at(f"result{whose} {why}", conversation=conv, turn=result.turn,
                         part=result.part)
    yield from _answered_without_ids(ctx)


def _answered_without_ids(ctx: Context) -> Iterator[Finding]:
    """Calls of a response that the stitched conversation holds in their replayed form: a client
    that made up the id the server did not send (openai/openai-node#1946 falls back to the tool
    name) hides the server's defect from the history, so it is reported at the response."""
    held: set[Source] | None = None  # where the conversations' calls are (found if a call has no id)
    for read in ctx.reads:
        for response in read.responses:
            for call in response.turn.invocations() if response.turn is not None else ():
                if call.wire_id is not None:
                    continue
                if held is None:
                    held = {c.node.source for conv in ctx.conversations for c in paired(ctx, conv).calls}
                why = _why(ctx, call) if call.source not in held else None
                if why is not None:
                    yield ctx.at_exchange(read, f"call {plain(call.name)} {why} in the "
                                          "response: the id the history replays it under was made up "
                                          "by the client", pointer=call.source.pointer)


def _why(ctx: Context, node: Invocation | Result) -> str | None:
    """What is wrong with the id of a call or result, quoting it; None when it is fine."""
    why = invalid_id(node.wire_id)
    if why is not None:
        return f"has an id that is {why}: {short(node.wire_id)}"
    if node.wire_id is not None:  # (an id that is fine: where the node came from is not asked)
        return None
    missing = missing_id(ctx.reads, node) if node.source.chunk is None else None  # streamed: TD503's
    if missing is None:
        return None
    fmt, key = missing
    return f"has no id ({fmt} requires {quote(key)})"
