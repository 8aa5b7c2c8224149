"""The log holds the provider's rejection of a request: a failing log never looks clean.

A 400 error body, an SSE `error` event, a Responses `response.failed`, a Bedrock exception in the
event stream — or, at an HTTP error status, a body no reader recognised (a gateway's HTML 502
page) — is the provider saying that this request did not produce an answer. Often it says why in
words a tooldbg rule explains ("`tool_use` ids were found without `tool_result` blocks immediately
after" is TD102's unanswered call, "Function call is missing a thought_signature" TD307's lost
reasoning): the finding then names that rule, from a table of the providers' own error texts, each
cited (`checks/rejections.py`) — and only the rules among them that found something on the request
the provider answered (a request refused and then retried changed is a conversation of its own, so
its defects are found there); when none did, the finding says so plainly, and names the `--target`
that runs a target rule its words point to. A rate limit, an overloaded server or a missing
credential is no defect of the history, and the finding says so; any other text is quoted as the
provider wrote it, with "tooldbg has no rule for this rejection". The finding points at the exchange, the
conversation and the error in the response (for a stream, the event that carried it).
"""

from collections.abc import Iterator

from ...formats.providers import BY_KEY
from ...shorten import plain
from ..base import Context, Finding
from ..evidence import on_request
from ..rejections import Rejection, explaining, matching, not_the_history, rejections

CODE = "TD901"
NAME = "provider-rejected"
SEVERITY = "error"
HARM = "verdict"
MESSAGE = "the provider rejected a request (an error body, an error event, an exception)"
BAD = """
{"request": {"url": "https://api.anthropic.com/v1/messages", "body": {"model": "claude-sonnet-4-5",
  "messages": [{"role": "user", "content": "Weather in Oslo and Bergen?"},
    {"role": "assistant", "content": [
      {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}},
      {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Bergen"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "12°C"}]}]}},
 "response": {"status": 400, "body": {"type": "error", "error": {"type": "invalid_request_error",
  "message": "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01B. Each `tool_use` block must have a corresponding `tool_result` block in the next message."}}}}
"""
GOOD = """
{"request": {"url": "https://api.anthropic.com/v1/messages", "body": {"model": "claude-sonnet-4-5",
  "messages": [{"role": "user", "content": "Weather in Oslo and Bergen?"},
    {"role": "assistant", "content": [
      {"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}},
      {"type": "tool_use", "id": "toolu_01B", "name": "get_weather", "input": {"city": "Bergen"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "12°C"},
      {"type": "tool_result", "tool_use_id": "toolu_01B", "content": "9°C"}]}]}},
 "response": {"status": 200, "body": {"type": "message", "role": "assistant", "stop_reason": "end_turn",
  "content": [{"type": "text", "text": "Oslo 12°C, Bergen 9°C."}]}}}
"""

#: Characters of the provider's message quoted in the finding.
QUOTED = 400


def check(ctx: Context) -> Iterator[Finding]:
    for rejection in rejections(ctx.loaded):
        yield ctx.at_exchange(rejection.read, describe(rejection, _found(ctx, rejection), ctx.target),
                              pointer=rejection.pointer, chunk=rejection.chunk)


def _found(ctx: Context, rejection: Rejection) -> tuple[str, ...]:
    """The rules the rejection's words name that found something on the request it refused."""
    read = rejection.read
    return tuple(code for code in explaining(rejection.error.message)
                 if any(on_request(ctx, read, f.conversation, f.turn, f.exchange) for f in ctx.findings_of(code)))


def describe(rejection: Rejection, found: tuple[str, ...] | None = None, target: str | None = None) -> str:
    """`the provider rejected the request (HTTP 400 invalid_request_error): “…” — see TD102`: the
    rules its words name that found something on that request (`found`; None: not asked), or that
    no rule explains it."""
    error, status = rejection.error, rejection.status
    if status is None or status < 400:  # a stream that failed after its 200, a logged body alone
        status = int(error.code) if error.code is not None and error.code.isdigit() else None
    kinds = [f"HTTP {status}" if status is not None else None, error.type,
             error.code if error.code not in (str(status), error.type) else None]
    kind = " ".join(plain(k, 60) for k in kinds if k)
    said = f"the provider rejected the request{f' ({kind})' if kind else ''}: “{plain(error.message, QUOTED)}”"
    codes = explaining(error.message)
    if codes and found is None:
        return f"{said} — see {', '.join(codes)}"
    if found:
        return f"{said} — see {', '.join(found)}"
    if codes:
        return f"{said} — no rule explains it on this request: its words point to {', '.join(codes)}, " \
               "none of which found it here" + _targeted(rejection, codes, target)
    if not_the_history(error, status):
        return f"{said} — not a defect of the history (a rate limit, an overloaded or failing server, a " \
               "credential): tooldbg has no rule for this rejection"
    return f"{said} — tooldbg has no rule for this rejection"


def _targeted(rejection: Rejection, codes: tuple[str, ...], target: str | None) -> str:
    """Where the words name a target rule (TD8xx) and no target was given, the option that runs it."""
    rules = [c for c in codes if c.startswith("TD8")]
    if not rules or target is not None:
        return ""
    read = rejection.read
    row = matching(rejection.error.message)  # the words say whose table would have found it
    named = next((t for key in (row.providers if row is not None else ()) if key in BY_KEY
                  for t in (BY_KEY[key].target(read.format), BY_KEY[key].target(None)) if t), None)
    option = f"--target {named}" if named else "--target"
    return f" ({', '.join(rules)} {'runs' if len(rules) == 1 else 'run'} with {option})"
