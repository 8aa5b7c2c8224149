"""Reasoning that must come back with a tool call was dropped, altered or edited on replay.

Providers that reason before calling a tool want that reasoning back with the call, and check it:

* Anthropic `thinking` blocks with their `signature`: dropped, "When `thinking` is enabled, a final
  `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and
  `tool_result` blocks)"; their text edited with the signature kept, "messages.1.content.0:
  `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These
  blocks must remain as they were in the original response." (issues anthropics/claude-code#19539,
  #63203; https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking, "Preserving
  thinking blocks"). Bedrock: "include the text and its signature unmodified" (ReasoningTextBlock,
  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html).

* Gemini `thoughtSignature`: "Function call is missing a thought_signature in functionCall parts"
  (https://ai.google.dev/gemini-api/docs/thought-signatures). With parallel calls only the first
  carries one; the others need none.

* DeepSeek thinking mode and Kimi K2 thinking, `reasoning_content` on the assistant message: "For
  turns that do perform tool calls, the reasoning_content must be fully passed back to the API in
  all subsequent requests … the API will return a 400 error"
  (https://api-docs.deepseek.com/guides/thinking_mode, "Tool Calls"; issue anomalyco/opencode#24722);
  Kimi: "thinking is enabled but reasoning_content is missing in assistant tool call message"
  (https://platform.moonshot.cn/docs/guide/use-kimi-k2-thinking-model; issue
  continuedev/continue#11806). The same field as `reasoning` (vLLM, gpt-oss servers, OpenRouter)
  carries the chain of thought the next step builds on; Qwen's chat template renders it back for the
  tool steps after the last user message.

* OpenRouter `reasoning_details` (`reasoning.text` with `signature`, `reasoning.summary`,
  `reasoning.encrypted` with `data`): "Reasoning Details must be preserved when using multi-turn tool
  calling" (https://openrouter.ai/docs/use-cases/reasoning-tokens, "Preserving Reasoning Blocks";
  issue dotnet/extensions#7172: Gemini 3 through OpenRouter then answers "Function call is missing a
  thought_signature").

* OpenAI Responses `reasoning` items: dropped before a call replayed with its item id, "Item 'fc_…'
  of type 'function_call' was provided without its required 'reasoning' item: 'rs_…'." (issue
  continuedev/continue#10018); https://platform.openai.com/docs/guides/reasoning recommends passing
  them back for function calling. An item may come back by id alone (`{"type": "reasoning", "id":
  "rs_…"}` or an `item_reference`) only while OpenAI stores it: with `store: false` nothing is
  persisted and "Item with id 'rs_…' not found. Items are not persisted when `store` is set to false.
  Try again with `store` set to true, or remove this item from your input." (issues vercel/ai#7543,
  anomalyco/opencode#7724, openai/openai-agents-js#546) — stateless clients must send the
  `encrypted_content` they asked for with `include: ["reasoning.encrypted_content"]`. So the defect is
  an id-only replay when the request replaying it, or the one that produced it (the item was never
  stored), says `store: false`; under `store: true` (the default) an id-only replay is the documented
  way to refer to a stored item and is not reported.

Through a relay that strips it on the way the request is refused or the model loses its chain of
thought mid-task. A signature re-encoded in the other base64 alphabet (google-genai writes URL-safe
base64 on replay) carries the same bytes and is not a loss: signatures are compared decoded;
Responses items also match by id. How each kind is recognised: `tooldbg/checks/reasoning.py`.
TD805 judges a history against a `--target` without the response; this rule needs none.
"""

from collections.abc import Iterator, Sequence

from ... import formats
from ...formats.meta import own_meta
from ...model import Conversation, Turn
from ...shorten import plain, quote
from ..base import Context, Finding
from ..reasoning import Lost, losses
from ..replay import Pair, origin, replays
from ..targeting import covered, item_id, thinking

CODE = "TD307"
NAME = "reasoning-lost"
SEVERITY = "error"
HARM = "rejection"
LOST = "the model did not see its earlier reasoning"
REFUSED_BY = ("Anthropic (thinking on, the latest tool turn), Google Gemini (Gemini 3), OpenAI (Responses, a call "
              "sent with its fc_ item id), DeepSeek and Kimi (thinking mode)")
MESSAGE = "reasoning a tool-call turn must carry back dropped, altered or edited on replay"
BAD = """
response of exchange 0 (deepseek-reasoner, thinking mode):
{"role": "assistant", "content": null, "reasoning_content": "The user wants Oslo's weather…",
 "tool_calls": [{"id": "call_00_Xy7", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
replayed in exchange 1's request:
{"role": "assistant", "content": null, "tool_calls": [{"id": "call_00_Xy7", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""
GOOD = """
replayed in exchange 1's request with the reasoning it came with:
{"role": "assistant", "content": null, "reasoning_content": "The user wants Oslo's weather…",
 "tool_calls": [{"id": "call_00_Xy7", "type": "function",
  "function": {"name": "get_weather", "arguments": "{\\"city\\":\\"Oslo\\"}"}}]}
"""

_UNSTORED = ("Item with id '{id}' not found. Items are not persisted when `store` is set to false. Try again "
             "with `store` set to true, or remove this item from your input.")
_EDITED = ("`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These "
           "blocks must remain as they were in the original response.")


def check(ctx: Context) -> Iterator[Finding]:
    for replay in replays(ctx):
        for pair in replay.pairs:
            lost = next(losses(pair), None)
            if lost is not None:
                yield _finding(ctx, pair, lost)


def refuses(ctx: Context, target: str, conversation: Conversation | None, turn: int | None,
            history: Sequence[Turn]) -> bool:
    """Does the provider whose table is `target` refuse this turn without its reasoning? Its
    `targets` row says when: thinking on (a parameter, the model, reasoning seen), for which turns of
    the history sent, and for the Responses API only a call replayed with its own item id."""
    from ...targets import table  # the tables load when a finding needs them

    limits = table(target)
    rule = limits.reasoning if limits is not None else None
    if rule is None or conversation is None or turn is None or turn >= len(history):
        return False
    if rule.item_ids:
        return any(item_id(part, rule) for part in history[turn].parts)
    return thinking(ctx, conversation, rule, target) and turn in covered(history, rule)


def _finding(ctx: Context, pair: Pair, lost: Lost) -> Finding:
    what, part = _what(lost), lost.part
    where = f"in {origin(pair)}"
    if lost.kind == "edited":
        assert lost.twin is not None
        ti, pi, _ = lost.twin
        said = f" (Anthropic: “{_EDITED}”)" if part.origin == "anthropic" else ""
        return pair.finding(ctx, f"{what} {where} was edited on replay, its signature kept: the text no "
                                 f"longer matches the signature{said}", ti, pi)
    if lost.kind == "unstored":
        ti, pi, _ = lost.twin if lost.twin is not None else lost.call
        return pair.finding(ctx, f"{what} {where} was replayed by id only, without its encrypted_content, "
                                 "while store is false: “" + _UNSTORED.replace("{id}", part.wire_id or "rs_…")
                                 + "”", ti, pi)
    how = "replayed with a different signature" if lost.kind == "altered" else "dropped"
    ti, pi, _ = lost.call
    return pair.finding(ctx, f"{what} {where} was {how} on replay", ti, pi)


def _what(lost: Lost) -> str:
    """The lost reasoning as its provider names it, and the call it preceded."""
    part, name = lost.part, quote(lost.call[2].name)
    if part.redacted and part.origin != "openai-chat":
        return f"the redacted thinking before the call {name}"
    if part.origin == "gemini":  # the signature rides on the call's own part
        return f"the thoughtSignature of the call {name}"
    if part.origin == "openai-responses" and part.wire_id:
        return f"the reasoning item {plain(part.wire_id)} before the call {name}"
    if part.origin == "openai-chat":
        own = own_meta("openai-chat", part.meta)
        if own.get("field") == "reasoning_details":
            return f"the reasoning_details block {plain(str(own.get('type')))} before the call {name}"
        return f"the {own.get('field') or 'reasoning_content'} before the call {name}"
    named = formats.facts(part.origin).reasoning if part.origin in formats.FORMATS else None
    return f"the {named or 'signed reasoning'} before the call {name}"
