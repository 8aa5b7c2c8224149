"""A finish reason that announces tool calls for a message that holds none.

`finish_reason: "tool_calls"` (or the legacy `"function_call"`), `stop_reason: "tool_use"`,
`stopReason: "tool_use"`: the agent loop takes this as "run the tools and send the results", finds no
call, and either crashes, sends an empty round, or stops as if the model had answered. The calls were
lost on the way — a relay that translated the response and dropped the call blocks, a stream
assembler that lost the fragments, a model whose call was left in the text unparsed. The reverse is
normal and not a finding: OpenAI answers a forced `tool_choice` with `finish_reason: "stop"` although
it made the call, and Gemini ends every call turn with `STOP`; the presence of calls is read from the
message, never from the finish reason.
"""

from collections.abc import Iterator

from ...shorten import quote
from ..base import Context, Finding
from ..structure import CALL_FINISH, answers, call_like, placed

CODE = "TD602"
NAME = "finish-reason-mismatch"
SEVERITY = "error"
HARM = "damage"
MESSAGE = "a tool-call finish reason on a message with no call"
BAD = """
{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
 "choices": [{"index": 0, "finish_reason": "tool_calls",
   "message": {"role": "assistant", "content": "I'll look that up."}}]}
"""
GOOD = """
{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
 "choices": [{"index": 0, "finish_reason": "tool_calls",
   "message": {"role": "assistant", "content": "I'll look that up.", "tool_calls": [
     {"id": "call_9", "type": "function",
      "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    for answer in answers(ctx):
        reason = answer.response.finish_reason
        turn = answer.response.turn
        if reason not in CALL_FINISH or turn is None or any(call_like(p) for p in turn.parts):
            continue
        if answer.stream is not None and answer.stream.problems:
            continue  # the stream broke while assembling: TD5xx names the chunk that lost the call
        source, chunk = answer.finish_source()
        said = "text only" if turn.parts else "nothing"
        conversation, at = placed(ctx, answer)
        yield ctx.at(f"finish reason {quote(reason)}, but the message holds no tool call ({said}): the calls "
                     f"were lost before the log", conversation=conversation, turn=at,
                     source=source, chunk=chunk)
