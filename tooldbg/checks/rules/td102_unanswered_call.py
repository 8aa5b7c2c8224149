"""A tool call that never got its result, although the conversation went on past it.

Every provider that binds results by id rejects such a history. OpenAI: "An assistant message with
'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following
tool_call_ids did not have response messages: call_…"; Anthropic: "`tool_use` ids were found without
`tool_result` blocks immediately after: toolu_…"; Responses: "No tool output found for function call
call_…"; Bedrock: "Expected toolResult blocks at messages.N.content for the following Ids: …". A
lenient relay instead lets the model believe the tool ran and said nothing. The usual causes are an
agent that dropped a failed or cancelled call's result, parallel results collected only in part, or
history trimmed between a call and its answer.

A request sent with a history that ends on the model's calls asks the model to go on past calls it
has no results for: that request is a finding however the provider answered it (OpenAI Chat
messages ending on an assistant message with `tool_calls`, Anthropic on a `tool_use`, Gemini on a
`functionCall`, Bedrock on a `toolUse`, Responses `input` on a `function_call`). A log that ends on
the model's calls, though, is not a finding (the results were not sent yet), nor are the calls of
response-only captures, nor a body with no response that ends on calls (a history at rest: an export
of a conversation that ends on the model's calls, a fixture): only a call the client sent back in a
request, with turns after it or as the last turn of a request the provider answered, has provably
moved on without its result. For a Responses request chained by `previous_response_id`, the stored
response's calls are part of its history (`tooldbg.chains`): an output the next request does not send
is missing. A call whose result came back under a damaged id is reported once, as TD103.
"""

from collections.abc import Iterator

from ...chains import stored_key
from ...model import Conversation, Invocation
from ...shorten import plain
from ...timeline import ExchangeRead
from ..base import Context, Finding
from ..pairing import Located, paired, short

CODE = "TD102"
NAME = "unanswered-call"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model went on without the call's result"
MESSAGE = "a call with no result before the conversation moves on"
BAD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo and Bergen?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_A1", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}},
    {"id": "call_B2", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Bergen\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_A1", "content": "4°C, overcast"},
  {"role": "user", "content": "And tomorrow?"}]}
"""
GOOD = """
{"messages": [
  {"role": "user", "content": "Weather in Oslo and Bergen?"},
  {"role": "assistant", "content": null, "tool_calls": [
    {"id": "call_A1", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}},
    {"id": "call_B2", "type": "function",
     "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Bergen\\"}"}}]},
  {"role": "tool", "tool_call_id": "call_A1", "content": "4°C, overcast"},
  {"role": "tool", "tool_call_id": "call_B2", "content": "Error: weather service timed out"},
  {"role": "user", "content": "And tomorrow?"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for conv in ctx.conversations:
        exchanges = ctx.exchanges(conv)
        last = exchanges[-1] if exchanges else None
        if last is None:  # a canonical document: every turn was part of the history
            sent = len(conv.turns)
        else:
            sent = last.sent
        pairing = paired(ctx, conv)
        answered = pairing.results_by_call
        damaged = {m.call.node.id for m in pairing.mismatches}
        reported: set[tuple[int, int]] = set()
        for read, where, last_call in _requests_ending_on_calls(conv, exchanges):
            if where is not None:
                reported.add((where.turn, where.part))
            rejected = any(r.error is not None for r in read.responses)
            then = ("the provider rejected it" if rejected
                    else "the model is asked to go on without the result")
            yield ctx.at(f"call {last_call.id} {plain(last_call.name)} ({short(last_call.wire_id)}) has no "
                         f"result, but the request ends on it: {then}",
                         conversation=conv, turn=where.turn if where else None,
                         part=where.part if where else None, source=last_call.source)
        final = len(conv.turns) - 1
        for call in pairing.calls:
            node = call.node
            if node.id in answered or node.id in damaged or (call.turn, call.part) in reported:
                continue
            # Moved on: the call was sent back in a request and something followed it (a request
            # that ended on it was reported above; one with no response is a history at rest).
            if call.turn >= sent or call.turn == final:
                continue
            going_on = _continuing(exchanges, call.turn)
            after = (f"the conversation continues after turn {call.turn}" if going_on is None else
                     f"the request continuing it ({going_on[0]} {short(going_on[1])}) sends none")
            yield ctx.at(f"call {node.id} {plain(node.name)} ({short(node.wire_id)}) has no result, but {after}",
                         conversation=conv, turn=call.turn, part=call.part)


def _continuing(exchanges: list[ExchangeRead], turn: int) -> tuple[str, str] | None:
    """The stored state (`previous_response_id`, id) named by the first chained request whose stored
    history holds `turn`: the request that should have sent the call's output."""
    for read in exchanges:
        if read.stored > turn and read.request is not None:
            return stored_key(read.request)
    return None


def _requests_ending_on_calls(conv: Conversation, exchanges: list[ExchangeRead]
                              ) -> Iterator[tuple[ExchangeRead, Located | None, Invocation]]:
    """Each request the provider answered whose last turn holds calls it sends no result for: (the
    exchange, the call in the conversation's timeline when found there, the call as sent)."""
    for read in exchanges:
        request = read.request
        if request is None or not request.turns or not read.responses:
            continue
        final = request.turns[-1]
        calls = [(p, part) for p, part in enumerate(final.parts) if isinstance(part, Invocation)]
        if not calls:  # (most requests end on results or words: nothing to bind)
            continue
        bound = {r.invocation_id for r in final.results()}
        t = read.sent - 1  # its place in the timeline
        for p, part in calls:
            if part.id not in bound:
                yield read, _in_timeline(conv, t, p, part), part


def _in_timeline(conv: Conversation, t: int, p: int, call: Invocation) -> Located | None:
    """The request's call at the same place of the timeline (a request's turns are the timeline's
    after the stored ones while the history was replayed unchanged)."""
    if t < len(conv.turns) and p < len(conv.turns[t].parts):
        node = conv.turns[t].parts[p]
        if isinstance(node, Invocation) and (node.wire_id, node.name) == (call.wire_id, call.name):
            return Located(t, p, node)
    return None
