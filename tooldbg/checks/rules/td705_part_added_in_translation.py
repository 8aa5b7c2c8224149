"""A part of the conversation appeared on the way between the two sides: a result, a call, text, an
image, reasoning or a failure flag one side has that the side upstream of it never had.

Direction decides whether a part one side lacks was lost or added. In a request, a is upstream of b
(the client sent a; the relay sent b on): a part only b has was added by the relay. In a response, b
is upstream of a (the provider answered b; the relay passed a back): a part only a has was added on
the way back. The opposite cases are losses (TD703). A relay adds parts for reasons of its own — an
instruction that saves output tokens, a placeholder result for a call it cannot pair, a notice in
the answer — and the model then reads what the client never sent, or the client what the model
never said. What was added sets the severity: a result or a call, or a failure flag, is an error (the
model reads a result no tool produced, the client may run a call the model never made); text, an
image or reasoning is a warning. Values a provider documents for relays and clients to send on
purpose — Gemini's dummy thought signatures `skip_thought_signature_validator` and
`context_engineering_is_the_way_to_go`, for a history from another model
(https://ai.google.dev/gemini-api/docs/thought-signatures) — are notes, not findings. Produced by
`tooldbg diff CLIENT UPSTREAM`.
"""

from collections.abc import Iterator

from ..base import Context, Finding

CODE = "TD705"
NAME = "part-added-in-translation"
SEVERITY = "error"
HARM = "damage"
DIFF = True
MESSAGE = "a part present on the downstream side only: added on the way (severity by what was added)"
BAD = """
a (client → relay, openai-chat): the user's question
{"role": "user", "content": "Is the Oslo–Bergen freight train on time today?"}
b (relay → upstream, gemini): an instruction the client never sent, added after it
{"role": "user", "parts": [{"text": "Is the Oslo–Bergen freight train on time today?"}]},
{"role": "user", "parts": [{"text": "Keep the answer under 40 words."}]}
"""
GOOD = """
b (relay → upstream, gemini): what the client sent, and nothing else
{"role": "user", "parts": [{"text": "Is the Oslo–Bergen freight train on time today?"}]}
"""


def check(ctx: Context) -> Iterator[Finding]:
    return iter(())  # two logs compared: tooldbg/diff/
