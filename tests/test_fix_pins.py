"""Every sample's `fix` result, pinned per target: the lines `fix SAMPLE --to TARGET --conversation C
--dry-run` prints — each repair record (`repair CODE CONV PLACE: before → after`) and refusal (`not
repaired …`) in the order made, what the target could not carry (`not written: …`), and every
finding `check` still makes on the repaired result (`remains …`) — all but the summary line; and
what `convert` without `--fix` refuses to write blank or writes as recorded, naming the repair
(`BLANKED`).

The pins are the one place these expectations live: a change meant to alter what `fix` does to a
sample is an edit here, reviewed line by line (each was read against its sample when written). A
repair that raises fails these tests (tests/fixing.run_fix) rather than passing for a refusal.

`FIXED` maps each sample (its path under sample_transcripts/, `#c2` when it holds several
conversations) to its targets' lines: the key `"*"` is every target the entry does not name, other
keys name targets (space-separated). The targets are `canonical`, the five wire formats, and the
profile a TD8xx sample is named for. `{target}` in a line stands for the target's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixing import run_fix
from tests.paths import SAMPLES
from tooldbg import formats
from tooldbg.formats.profiles import PROFILES
from tooldbg.load import load_file

#: Why a finding with no safe repair is left (registry.NO_REPAIR), as `fix` says it.
NO_REPAIR = {
    "TD202": "the arguments are not valid JSON; completing or correcting them would be a guess",
    "TD206": "the arguments do not fit the declared schema; changing what the model asked for is a guess",
    "TD207": "the call names a tool the request does not declare; which tool was meant is a guess",
    "TD302": "the result survives only inside user text; which part of that text was the tool's output, "
             "and which call it answered, is a guess",
    "TD304": "no exchange in the log flags this result; whether its text reports a failure is a judgement, "
             "not a record",
    "TD501": "the stream's fragments were out of order or missing; the assembled message is all the log "
             "holds",
    "TD502": "the streamed arguments assembled into invalid JSON; which fragment is wrong is a guess",
    "TD503": "a streamed call lost its id or name; nothing in the log says which",
    "TD504": "the stream was cut; what the model would have sent next is not in the log",
    "TD601": "the model called the tool again; what it should have done instead is not in the log",
    "TD602": "the calls the finish reason announces are not in the log",
    "TD603": "the model answered with text; the call it was made to make is not in the log",
    "TD807": "the request ends on the assistant's turn; the user turn that would follow it is not in the log, "
             "and any written for it would be made up",
    "TD901": "the provider's rejection is a record of what happened; the repairs of the rules it names "
             "mend the request that caused it",
}


def refused(code: str, place: str, conversation: str = "c1") -> str:
    """The line of a finding `fix` has no safe repair for."""
    return f"not repaired {code} {conversation} {place}: {NO_REPAIR[code]}"


NOTHING: dict[str, tuple[str, ...]] = {"*": ()}
#: A log holding only a response, written as a request: Bedrock wants a user turn first…
OPENS_WITH_THE_MODEL = (
    "not repaired TD404 c1 turn 0: found once written for {target}: a turn {target} cannot carry; "
    "repairing it would mean inventing a turn or merging two",
    'remains TD404 error malformed-turn: c1 turn 0: the conversation starts with an assistant message: '
    'Bedrock answers "A conversation must start with a user message." — error: {target} rejects it (--target)',
)
#: … and Gemini a user turn before a turn of calls.
OPENS_WITH_A_CALL = (
    "not repaired TD404 c1 turn 0 part 1: found once written for {target}: a turn {target} cannot carry; "
    "repairing it would mean inventing a turn or merging two",
    'remains TD404 error malformed-turn: c1 turn 0 part 1: a function call turn opens the history: Gemini '
    'answers "Please ensure that function call turn comes immediately after a user turn or after a function '
    'response turn." — error: {target} rejects it (--target)',
)

#: A call whose tool name the stream lost, written for a wire target: a name is made up for it, and
#: the request does not declare that name.
NAME_LOST = (
    "not repaired TD806 c1 conversation: a call's tool name is empty (lost before the log): the name written for "
    "{target} would be made up, not repaired",
    refused("TD503", "turn 1 part 0"),
    "not repaired TD207 c1 turn 1 part 0: found once written for {target}: the call names a tool the request does "
    "not declare; which tool was meant is a guess",
    "remains TD207 error unknown-tool: c1 turn 1 part 0: call to 'tool', which the request does not declare (it "
    "declares get_forecast) — error: the data received is damaged, whatever the provider answered",
)
#: How each target with a failure flag sends a result without it, and why a finding of it is a warning.
SYMPTOM = "warning: a sign the log shows, not a rejection"
WITHOUT_FLAG = {"anthropic": "is_error: true", "gemini": 'an {"error": …} response', "bedrock": 'status: "error"'}


def unflagged(place: str, result: str, reported: str, *before: str) -> dict[str, tuple[str, ...]]:
    """A result that reports a failure in its text, with no flag: written for a target that has one,
    it remains a TD304 warning (after `before`, the lines every target gets)."""
    return {"*": before, **{target: (*before, f"remains TD304 warning error-without-flag: c1 {place}: result {result} "
                                              f"reports a failure ({reported}) but is sent without {how} — {SYMPTOM}")
                            for target, how in WITHOUT_FLAG.items()}}


#: sample → targets → the lines `fix` prints (see the module docstring).
FIXED: dict[str, dict[str, tuple[str, ...]]] = {
    "anthropic/memory-note-in-the-system-prompt.jsonl": NOTHING,
    "anthropic/parallel-calls.jsonl": NOTHING,
    "anthropic/pipeline-check-tool-loop.jsonl": NOTHING,
    "anthropic/request.json": NOTHING,
    "anthropic/response.json": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "anthropic/stream.sse": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "anthropic/thinking-tool-loop.jsonl": NOTHING,
    "bedrock/parallel-calls.jsonl": NOTHING,
    "bedrock/request.json": NOTHING,
    "bedrock/response.json": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "bedrock/stream-recording.json": NOTHING,
    "bedrock/stream.jsonl": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "claude-code/session.jsonl": NOTHING,
    "claude-tap/trace_110001.jsonl": NOTHING,
    "claude-trace/log-2026-03-05-09-02-00.jsonl": NOTHING,
    "codex/rollout-bare-layout.jsonl": NOTHING,
    "codex/rollout.jsonl": NOTHING,
    "codex/rollout-freeform-patch.jsonl": NOTHING,
    "defects/TD101-claude-trace-client-resends-a-stale-result.jsonl": {
        "*": (
            'repair TD101 c1 turn 2 part 1: result \'toolu_01Zz9Yy8Xx7Ww6Vv5Uu4Tt3S\' "src/app.py:3" → '
            "(taken out: it answers no call in this conversation; --keep-orphans keeps it as text)",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD101-history-trimmed-through-a-call.jsonl#c1": NOTHING,
    "defects/TD101-history-trimmed-through-a-call.jsonl#c2": {
        "*": (
            "repair TD101 c2 turn 0 part 0: result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":4,\\"conditions\\":\\"overcast\\… → (taken out: it '
            "answers no call in this conversation; --keep-orphans keeps it as text)",
            refused("TD901", "conversation", "c2"),
        ),
        "bedrock": (
            "repair TD101 c2 turn 0 part 0: result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":4,\\"conditions\\":\\"overcast\\… → (taken out: it '
            "answers no call in this conversation; --keep-orphans keeps it as text)",
            refused("TD901", "conversation", "c2"),
            "not repaired TD404 c2 turn 0: found once written for {target}: a turn {target} cannot carry; "
            "repairing it would mean inventing a turn or merging two",
            "remains TD404 error malformed-turn: c2 turn 0: the conversation starts with an assistant "
            'message: Bedrock answers "A conversation must start with a user message." — error: {target} '
            "rejects it (--target)",
        ),
    },
    "defects/TD101-mitmproxy-agent-rewrites-call-turn-as-text.zhar": {
        "*": (
            'repair TD101 c1 turn 2 part 0: result \'toolu_01Rt5Yu8Io1Pa4Sd7Fg0Hj3K\' "1398.60 NOK" → '
            "(taken out: it answers no call in this conversation; --keep-orphans keeps it as text)",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD101-stale-result-rejected-then-retried-without-it.jsonl#c1": NOTHING,
    "defects/TD101-stale-result-rejected-then-retried-without-it.jsonl#c2": {
        "*": (
            'repair TD101 c2 turn 2 part 1: result \'toolu_01Hs4Jp7Wq2Nc9Xv6Bm3Lz8T\' "web-frontend '
            '#4126: passed (3 h ago), 214 tests" → (taken out: it answers no call in this conversation; '
            "--keep-orphans keeps it as text)",
            refused("TD901", "conversation", "c2"),
        ),
    },
    "defects/TD102-claude-code-parallel-result-lost-then-new-prompt.jsonl": {
        "*": (
            "repair TD102 c1 turn 2 part 1: call 'Grep' (toolu_01Pq4Rs7Tu0Vw3Xy6Za9Bc2D, turn 1) without "
            "a result → error result 'No result was recorded for this call: the log holds no tool result "
            "for it.'",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD102-codex-resumed-rollout-drops-shell-output.jsonl": {
        "*": (
            "repair TD102 c1 turn 2 part 0: call 'shell' (call_Wn5Eo8Rp1Tq4Yr7Ut0Iv3Ow, turn 1) without a "
            "result → error result 'No result was recorded for this call: the log holds no tool result "
            "for it.'",
        ),
    },
    "defects/TD102-failed-parallel-result-dropped.jsonl": {
        "*": (
            "repair TD102 c1 turn 2 part 1: call 'get_weather' (toolu_01Fa3JyW6uGe1PqD5sKr0MtV, turn 1) "
            "without a result → error result 'No result was recorded for this call: the log holds no tool "
            "result for it.'",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD102-litellm-payload-client-drops-tool-message.jsonl": {
        "*": (
            "repair TD102 c1 turn 2 part 0: call 'lookup_order' (call_Lq8Wn2Ex5Rt1Yu4Io7Pa0Sd, turn 1) "
            "without a result → error result 'No result was recorded for this call: the log holds no tool "
            "result for it.'",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD102-otel-genai-agent-loses-tool-response.jsonl": {
        "*": (
            "repair TD102 c1 turn 2 part 0: call 'get_weather' (call_VxSn4lCq2LrF8aWkP0yDmT3e, turn 1) "
            "without a result → error result 'No result was recorded for this call: the log holds no tool "
            "result for it.'",
        ),
    },
    "defects/TD102-request-ends-on-unanswered-call.jsonl": {
        "*": (
            "repair TD102 c1 turn 2 part 0: call 'read_file' (call_x7k2m9qa, turn 1) without a result → "
            "error result 'No result was recorded for this call: the log holds no tool result for it.'",
        ),
        "anthropic": (
            "repair TD102 c1 turn 2 part 0: call 'read_file' (call_x7k2m9qa, turn 1) without a result → "
            "error result 'No result was recorded for this call: the log holds no tool result for it.'",
            refused("TD807", "turn 1"),
        ),
    },
    "defects/TD102-responses-chain-drops-function-output.jsonl": {
        "*": (
            "repair TD102 c1 turn 2 part 1: call 'get_weather' (call_7d2f8a1c4e6b4d9a0c3e5f7b9d1a8c64, "
            "turn 1) without a result → error result 'No result was recorded for this call: the log holds "
            "no tool result for it.'",
        ),
    },
    "defects/TD103-tool-use-id-lowercased-by-relay.jsonl": {
        "*": (
            "repair TD103 c1 turn 2 part 0: result id 'toolu_01hqz5fwm3tkxb8ycn2plr7v' (re-cased) → "
            "'toolu_01HqZ5fWm3TkXb8YcN2pLr7V', the id of call i1 'lookup_order' in turn 1",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD104-backend-reuses-call-0.jsonl": {
        "*": (
            "repair TD104 c1 turn 3 part 0: call i2 'get_weather' id 'call_0' (the id of call i1 in turn "
            "1) → 'call_0_2' and its result",
        ),
    },
    "defects/TD105-retried-booking-answered-twice.jsonl": {
        "*": (
            "repair TD105 c1 turn 2 part 1: result 'toolu_01Rb6Nq3Xw8Kz2Tm5Yc7Lp4D' "
            '"{\\"booking\\":\\"NF-2291\\",\\"departure\\":\\"18:05\\",\\"charged… → (taken out: the '
            "call's first result, turn 2 part 0, is kept)",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD106-client-renumbers-call-ids.jsonl": {
        "*": (
            "repair TD106 c1 turn 1 part 0: call 'get_weather' id 'call_1' → "
            "'call_Vd8Kp2Xn6Tq1Rb4Yw9Mz3LcH' (and its result), as exchange 0's response returned it",
        ),
    },
    "defects/TD107-same-name-calls-paired-by-position.jsonl": {
        "*": (
            "repair TD107 c1 turn 2 part 1: result of 'get_weather' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":-2,\\"conditions\\":\\"clear\\"}" paired by position '
            "with i2 get_weather → answers i1 (it names 'Oslo'), moved to turn 2 part 0; call and result "
            "id 'call_i1'",
            "repair TD107 c1 turn 2 part 0: result of 'get_weather' "
            '"{\\"city\\":\\"Bergen\\",\\"temp_c\\":7,\\"conditions\\":\\"light r… paired by position '
            "with i1 get_weather → answers i2 (it names 'Bergen'), moved to turn 2 part 1; call and "
            "result id 'call_i2'",
        ),
    },
    "defects/TD108-empty-tool-use-id.jsonl": {
        "*": (
            "repair TD108 c1 turn 1 part 1: call i1 'get_weather' id '' (empty) → 'call_i1' and its result",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD108-jan-server-returns-calls-without-id.jsonl": {
        "*": (
            "repair TD108 c1 turn 1 part 0: call i1 'add' without an id → 'call_i1' and its result",
        ),
    },
    "defects/TD201-claude-tap-client-replays-arguments-double-encoded.jsonl": {
        "*": (
            'repair TD201 c1 turn 1 part 0: arguments of \'get_weather\' "{\\"city\\":\\"Oslo\\"}" (a '
            'JSON string) → {"city":"Oslo"}',
        ),
    },
    "defects/TD201-inspect-ai-solver-replays-arguments-double-encoded.json": {
        "*": (
            'repair TD201 c1 turn 1 part 0: arguments of \'read_file\' "{\\"path\\": '
            '\\"data/revenue.csv\\"}" (a JSON string) → {"path":"data/revenue.csv"}',
        ),
    },
    "defects/TD201-litellm-proxy-double-encodes-arguments.jsonl": unflagged(
        "turn 2 part 0", "'toolu_01HkV9qYx3NcA7tW2bLmR5pE'",
        "'Error: get_weather() argument after ** …e a mapping, not str'",
        "repair TD201 c1 turn 1 part 1: arguments of 'get_weather' "
        '"{\\"city\\":\\"Paris\\",\\"unit\\":\\"celsius\\"}" (a JSON string) → '
        '{"city":"Paris","unit":"celsius"}',
    ),
    "defects/TD201-openinference-span-arguments-encoded-twice.jsonl": {
        "*": (
            'repair TD201 c1 turn 1 part 0: arguments of \'lookup_invoice\' "{\\"number\\": '
            '\\"2026-118\\"}" (a JSON string) → {"number":"2026-118"}',
        ),
    },
    "defects/TD202-write-file-arguments-cut-at-max-tokens.json": {
        "*": (
            refused("TD202", "turn 1 part 0"),
            "remains TD202 error invalid-json-arguments: c1 turn 1 part 0: arguments of 'write_file' are "
            'not valid JSON (invalid JSON at line 1 column 329: unexpected end of data): "{\\"path\\": '
            '\\"scripts/summarize.py\\", \\"content\\": \\"import… — error: the data received is damaged, '
            "whatever the provider answered",
        ),
        "anthropic gemini bedrock": (
            refused("TD202", "turn 1 part 0"),
            'not written: c1 turn 1 part 0: arguments of \'write_file\' are not valid JSON (\'{"path": '
            '"scripts/summarize.py", "content": "import csv\\\\nimp…\'); {target} needs an object and '
            "would get {}; no safe repair: completing or correcting them would be a guess (TD202)",
        ),
    },
    "defects/TD203-client-replays-arguments-as-object.har": {
        "*": (
            "repair TD203 c1 turn 1 part 0: arguments of 'get_stock_level' sent as an object "
            '{"sku":"SKU-4471","warehouse":"BER"} → a JSON string: {"sku":"SKU-4471","warehouse":"BER"}',
            refused("TD901", "conversation"),
        ),
        "anthropic gemini bedrock": (
            "repair TD203 c1 turn 1 part 0: arguments of 'get_stock_level' sent as an object "
            '{"sku":"SKU-4471","warehouse":"BER"} → an object ({target} needs one): '
            '{"sku":"SKU-4471","warehouse":"BER"}',
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD204-gateway-sends-tool-input-as-string.jsonl": {
        "*": (
            "repair TD204 c1 turn 1 part 1: input of 'lookup_order' sent as a JSON string → an object: "
            '{"order_id":"A-20417"}',
            refused("TD901", "conversation"),
        ),
        "openai-chat openai-responses": (
            "repair TD204 c1 turn 1 part 1: input of 'lookup_order' sent as a JSON string → a JSON string "
            '({target} needs one): {"order_id":"A-20417"}',
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD205-parameterless-call-streams-empty-arguments.json": {
        "*": (
            'repair TD205 c1 turn 1 part 1: arguments of \'list_open_tickets\' "" → {}',
        ),
    },
    "defects/TD206-units-outside-declared-enum.har": {
        "*": (
            refused("TD206", "turn 1 part 1"),
            "remains TD206 error schema-violation: c1 turn 1 part 0: arguments of 'get_weather' do not "
            'fit its schema: $.units: "metric" is not one of "celsius", "fahrenheit" — error: the data '
            "received is damaged, whatever the provider answered",
        ),
        "canonical gemini": (
            refused("TD206", "turn 1 part 1"),
            "remains TD206 error schema-violation: c1 turn 1 part 1: arguments of 'get_weather' do not "
            'fit its schema: $.units: "metric" is not one of "celsius", "fahrenheit" — error: the data '
            "received is damaged, whatever the provider answered",
        ),
    },
    "defects/TD207-gpt-oss-calls-undeclared-tool.json": {
        "*": (
            "repair TD806 c1 conversation: tool name 'repo_browser.print_tree' → "
            "'repo_browser_print_tree', as {target} accepts it",
            refused("TD207", "turn 1 part 1"),
            "remains TD207 error unknown-tool: c1 turn 1 part 0: call to 'repo_browser_print_tree', which "
            "the request does not declare (it declares list_directory, read_file) — error: the data "
            "received is damaged, whatever the provider answered",
        ),
        "canonical": (
            refused("TD207", "turn 1 part 1"),
            "remains TD207 error unknown-tool: c1 turn 1 part 1: call to 'repo_browser.print_tree', which "
            "the request does not declare (it declares list_directory, read_file) — error: the data "
            "received is damaged, whatever the provider answered",
        ),
        "openai-chat": (
            "repair TD806 c1 conversation: tool name 'repo_browser.print_tree' → "
            "'repo_browser_print_tree', as {target} accepts it",
            refused("TD207", "turn 1 part 1"),
            "remains TD207 error unknown-tool: c1 turn 1 part 1: call to 'repo_browser_print_tree', which "
            "the request does not declare (it declares list_directory, read_file) — error: the data "
            "received is damaged, whatever the provider answered",
        ),
        "gemini": (
            refused("TD207", "turn 1 part 1"),
            "remains TD207 error unknown-tool: c1 turn 1 part 0: call to 'repo_browser.print_tree', which "
            "the request does not declare (it declares list_directory, read_file) — error: the data "
            "received is damaged, whatever the provider answered",
        ),
    },
    "defects/TD301-tool-call-text-dropped-by-agent-framework.jsonl": {
        "*": (
            'repair TD301 c1 turn 1 part 0: (missing) → text "Hardangervidda is Rv7, which often closes '
            "or runs in convo… from exchange 0's response",
        ),
    },
    "defects/TD302-tool-output-replayed-as-user-message.jsonl": {
        "*": (
            refused("TD302", "turn 2 part 0"),
        ),
    },
    "defects/TD303-session-store-drops-is-error.jsonl": {
        "*": (
            "repair TD303 c1 turn 2 part 1: result 'toolu_01Pd4Fg6Jn1Qs8Vx3Kb7Lt2Ze' without is_error → "
            "is_error: true, as exchange 1's request recorded it",
        ),
    },
    "defects/TD304-bedrock-traceback-returned-as-success.jsonl": unflagged(
        "turn 2 part 0", "'tooluse_Xv4Rq8NmT1zKb6WcL3pYd9'",
        "a Python traceback",
        refused("TD304", "turn 2 part 0"),
    ),
    "defects/TD304-gemini-adk-error-status-sent-as-output.jsonl": {
        "*": (
            refused("TD304", "turn 2 part 0"),
        ),
        "anthropic": (
            refused("TD304", "turn 2 part 0"),
            "remains TD304 warning error-without-flag: c1 turn 2 part 0: result 'toolu_i1' reports a "
            'failure ("error_message": "Entur journey planner returned HTTP 503 Service …) but is sent '
            "without is_error: true — warning: a sign the log shows, not a rejection",
        ),
        "gemini": (
            refused("TD304", "turn 2 part 0"),
            "remains TD304 warning error-without-flag: c1 turn 2 part 0: result of 'get_departures' "
            'reports a failure ("error_message": "Entur journey planner returned HTTP 503 Service …) but '
            'is sent without an {"error": …} response — warning: a sign the log shows, not a rejection',
        ),
        "bedrock": (
            refused("TD304", "turn 2 part 0"),
            "remains TD304 warning error-without-flag: c1 turn 2 part 0: result 'tooluse_i1' reports a "
            'failure ("error_message": "Entur journey planner returned HTTP 503 Service …) but is sent '
            'without status: "error" — warning: a sign the log shows, not a rejection',
        ),
    },
    "defects/TD305-context-trimmer-strips-screenshot.jsonl": {
        "*": (
            "repair TD305 c1 turn 2 part 0: result 'toolu_01Sv6Nq3Xk8Wb1Lt4Rz7Hm2Pd' without its image "
            "(image/png) → image (image/png) back, from exchange 1's request",
        ),
    },
    "defects/TD306-gateway-drops-unknown-argument-on-replay.jsonl": {
        "*": (
            "repair TD306 c1 turn 1 part 1: arguments of 'search_flights' "
            '{"origin":"OSL","destination":"TOS","date":"2026-02-06"} → '
            '{"origin":"OSL","destination":"TOS","date":"2026-02-06","cabin":"busi…, as exchange 0\'s '
            "response returned them",
        ),
    },
    "defects/TD307-context-compactor-shortens-signed-thinking-rejected.jsonl": {
        "*": (
            'repair TD307 c1 turn 1 part 0: anthropic signed reasoning "The user reports a KeyError … → '
            'anthropic signed reasoning "The user reports a KeyError … from exchange 0\'s response',
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD307-deepseek-agent-memory-drops-reasoning-content-rejected.jsonl": {
        "*": (
            'repair TD307 c1 turn 1 part 0: (missing) → openai-chat reasoning "The user wants to convert '
            "25… from exchange 0's response",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD307-gemini-3-thought-signature-dropped-rejected.jsonl": {
        "*": (
            "repair TD307 c1 turn 1 part 0: (missing) → gemini signed reasoning from exchange 0's response",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD307-openrouter-client-keeps-reasoning-drops-reasoning-details.jsonl": {
        "*": (
            "repair TD307 c1 turn 1 part 1: (missing) → openai-chat signed reasoning from exchange 0's "
            "response",
        ),
    },
    "defects/TD307-responses-function-call-replayed-without-its-reasoning-item-rejected.jsonl": {
        "*": (
            "repair TD307 c1 turn 1 part 0: (missing) → openai-responses reasoning from exchange 0's "
            "response",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD307-responses-reasoning-replayed-by-id-under-store-false-rejected.jsonl": {
        "*": (
            "repair TD307 c1 turn 1 part 0: openai-responses reasoning → openai-responses signed "
            "reasoning from exchange 0's response",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD307-vllm-agent-memory-drops-reasoning-content-accepted.jsonl": {
        "*": (
            'repair TD307 c1 turn 1 part 0: (missing) → openai-chat reasoning "The user needs 400 PCR '
            "tubes… from exchange 0's response",
        ),
    },
    "defects/TD401-results-in-completion-order.jsonl": {
        "*": (
            "repair TD401 c1 turn 2 part 1: result of 'get_weather' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":9,\\"condition\\":\\"light rain… → turn 2 part 0: call '
            "order of turn 1",
            "repair TD401 c1 turn 2 part 0: result of 'get_local_time' "
            '"{\\"city\\":\\"Oslo\\",\\"local_time\\":\\"21:47\\",\\"utc_offset\\"… → turn 2 part 1: call '
            "order of turn 1",
        ),
    },
    "defects/TD402-user-message-before-tool-results.jsonl": {
        "*": (
            "repair TD402 c1 turn 3 part 0: result 'call_hT4qzN8bW2cLx7RkV1mYp3Es' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":4,\\"condition\\":\\"overcast\\"… at turn 3 part 0 → '
            "turn 2 part 0, right after its call in turn 1",
            "repair TD402 c1 turn 3 part 1: result 'call_Z9fK2sDq6vJn0XaPe5TuL8wC' "
            '"{\\"city\\":\\"Bergen\\",\\"temp_c\\":7,\\"condition\\":\\"rain\\"}" at turn 3 part 1 → '
            "turn 2 part 1, right after its call in turn 1",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD403-text-before-tool-results.jsonl": {
        "*": (
            "repair TD403 c1 turn 3 part 0: result 'toolu_01Hq8vYbT3kZr5nWx2LcPd7F' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":4,\\"condition\\":\\"overcast\\"… at turn 3 part 0 → '
            "turn 2 part 0, right after its call in turn 1",
            "repair TD403 c1 turn 3 part 1: result 'toolu_01Mv4sJd9QeXa6pRt1NbGk2U' (error) "
            '"WeatherServiceError: upstream timed out after 10s for city… at turn 3 part 1 → turn 2 part '
            "1, right after its call in turn 1",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD404-anthropic-blocks-replayed-to-chat-endpoint.jsonl": {
        "*": (
            "repair TD404 c1 turn 1 part 1: a block of type 'tool_use' in an assistant message → written "
            "in the target's own shape (read as the call i1 lookup_order)",
            "repair TD404 c1 turn 2 part 0: a block of type 'tool_result' in a user message → written in "
            "the target's own shape (read as the result for i1 lookup_order)",
        ),
        "anthropic": (
            "repair TD404 c1 turn 1 part 1: a block of type 'tool_use' in an assistant message → written "
            "in the target's own shape (read as the call i1 lookup_order)",
            "repair TD404 c1 turn 2 part 0: a block of type 'tool_result' in a user message → written in "
            "the target's own shape (read as the result for i1 lookup_order)",
            "repair TD801 c1 turn 1 part 1: call 'lookup_order' id 'functions.lookup_order:0' → "
            "'functions_lookup_order_0' and its result, as {target} accepts it",
        ),
    },
    "defects/TD404-gateway-forwards-anthropic-blocks-to-bedrock-converse.jsonl": {
        "*": (
            "repair TD404 c1 turn 1 part 0: a block of type 'text' in an assistant message → written in "
            "the target's own shape (read as text)",
            "repair TD404 c1 turn 1 part 1: a block of type 'tool_use' in an assistant message → written "
            "in the target's own shape (read as the call i1 get_ci_status)",
            "repair TD404 c1 turn 2 part 0: a block of type 'tool_result' in a user message → written in "
            "the target's own shape (read as the result for i1 get_ci_status)",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD404-langchain-image-block-in-tool-message.jsonl": {
        "*": (
            "repair TD404 c1 turn 2 part 0: a block of type 'image' in a tool message → written in the "
            "target's own shape (read as image (image/png))",
        ),
        "openai-chat": (
            "repair TD404 c1 turn 2 part 0: a block of type 'image' in a tool message → written in the "
            "target's own shape (read as image (image/png))",
            "repair TD804 c1 turn 2 part 0: result 'call_7Hq2mX9bVt4LzR1nK8cWy3Pd' holding image → image "
            "moved to a user message (turn 3) after the results",
        ),
    },
    "defects/TD404-legacy-function-role.jsonl": {
        "*": (
            "repair TD404 c1 turn 2: role 'function' → a tool turn (written as a 'user' content)",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD405-text-after-tool-use.jsonl": {
        "*": (
            'repair TD405 c1 turn 1 part 1: text "I\'ll check the current weather in Oslo." after the '
            "call 'get_weather' → turn 1 part 0, before the calls",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD406-empty-text-beside-tool-use.jsonl": {
        "*": (
            'repair TD406 c1 turn 1 part 0: text "" → (taken out)',
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD501-bedrock-gateway-strips-reasoning-blocks.json": {
        "*": (
            refused("TD501", "turn 1"),
        ),
    },
    "defects/TD501-litellm-proxy-passes-on-anthropic-block-index.jsonl": {
        "*": (
            refused("TD501", "turn 1 part 1"),
        ),
    },
    "defects/TD501-litellm-proxy-repeats-call-id-on-every-fragment.jsonl": {
        "*": (
            refused("TD501", "turn 1"),
        ),
    },
    "defects/TD501-openai-responses-relay-forwards-deltas-out-of-order.json": {
        "*": (
            refused("TD501", "turn 1"),
            refused("TD501", "turn 1"),
        ),
    },
    "defects/TD502-anthropic-relay-resends-input-delta.jsonl": {
        "*": (
            refused("TD502", "turn 1 part 1"),
            "not written: c1 turn 1 part 1: arguments of 'restart_service' are not valid JSON "
            '(\'{"host": "web-03", "service": "ngi, "service": "nginx"}\'); {target} needs an object and '
            "would get {}; no safe repair: completing or correcting them would be a guess (TD202)",
        ),
        "openai-chat openai-responses": (
            refused("TD502", "turn 1 part 1"),
            "not repaired TD202 c1 turn 1 part 1: found once written for {target}: the arguments are not "
            "valid JSON; completing or correcting them would be a guess",
            "remains TD202 error invalid-json-arguments: c1 turn 1 part 1: arguments of 'restart_service' "
            "are not valid JSON (invalid JSON at line 1 column 38: unexpected character, expected ',' or "
            '\'}\'): "{\\"host\\": \\"web-03\\", \\"service\\": \\"ngi, \\"service\\": \\"… — error: the '
            "data received is damaged, whatever the provider answered",
        ),
        "canonical": (
            refused("TD502", "turn 1 part 1"),
            "not repaired TD202 c1 turn 1 part 1: found once written: the arguments are not valid JSON; "
            "completing or correcting them would be a guess",
            "remains TD202 error invalid-json-arguments: c1 turn 1 part 1: arguments of 'restart_service' "
            "are not valid JSON (invalid JSON at line 1 column 38: unexpected character, expected ',' or "
            '\'}\'): "{\\"host\\": \\"web-03\\", \\"service\\": \\"ngi, \\"service\\": \\"… — error: the '
            "data received is damaged, whatever the provider answered",
        ),
    },
    "defects/TD502-litellm-summary-chunk-resends-arguments.har": {
        "*": (
            refused("TD502", "turn 1 part 0"),
            "not written: c1 turn 1 part 0: arguments of 'search_flights' are not valid JSON "
            '(\'{"origin":"OSL","destination":"BGO","date":"2026-06-12"}"{\\\\"…\'); {target} needs an '
            "object and would get {}; no safe repair: completing or correcting them would be a guess "
            "(TD202)",
        ),
        "openai-chat openai-responses": (
            refused("TD502", "turn 1 part 0"),
            "not repaired TD202 c1 turn 1 part 0: found once written for {target}: the arguments are not "
            "valid JSON; completing or correcting them would be a guess",
            "remains TD202 error invalid-json-arguments: c1 turn 1 part 0: arguments of 'search_flights' "
            "are not valid JSON (invalid JSON at line 1 column 57: unexpected content after document): "
            '"{\\"origin\\":\\"OSL\\",\\"destination\\":\\"BGO\\",\\"date\\":\\"202… — error: the data '
            "received is damaged, whatever the provider answered",
        ),
        "canonical": (
            refused("TD502", "turn 1 part 0"),
            "not repaired TD202 c1 turn 1 part 0: found once written: the arguments are not valid JSON; "
            "completing or correcting them would be a guess",
            "remains TD202 error invalid-json-arguments: c1 turn 1 part 0: arguments of 'search_flights' "
            "are not valid JSON (invalid JSON at line 1 column 57: unexpected content after document): "
            '"{\\"origin\\":\\"OSL\\",\\"destination\\":\\"BGO\\",\\"date\\":\\"202… — error: the data '
            "received is damaged, whatever the provider answered",
        ),
    },
    "defects/TD503-gemini-vertex-stream-loses-the-chunk-naming-the-call.jsonl": {
        "*": NAME_LOST,
        "canonical": (
            refused("TD503", "turn 1 part 0"),
        ),
        "gemini": (
            "not repaired TD805 c1 turn 1 part 0: the log holds no thought signature for the turn calling "
            "'' (the response that produced it is not recorded, or had none), and {target} rejects the "
            "turn without it",
            *NAME_LOST,
        ),
    },
    "defects/TD503-openai-compatible-server-changes-call-id-mid-call.jsonl": {
        "*": (
            refused("TD503", "turn 1"),
        ),
    },
    "defects/TD504-anthropic-connection-drops-mid-tool-input.json": {
        "*": (
            refused("TD504", "conversation"),
            refused("TD504", "conversation"),
            'not written: c1 turn 1 part 1: arguments of \'write_file\' are not valid JSON (\'{"path": '
            '"app.py", "content": "from flask import Flask\\\\n\\\\nap…\'); {target} needs an object and '
            "would get {}; no safe repair: completing or correcting them would be a guess (TD202)",
        ),
        "openai-chat openai-responses": (
            refused("TD504", "conversation"),
            refused("TD504", "conversation"),
            "not repaired TD202 c1 turn 1 part 1: found once written for {target}: the arguments are not "
            "valid JSON; completing or correcting them would be a guess",
            "remains TD202 error invalid-json-arguments: c1 turn 1 part 1: arguments of 'write_file' are "
            'not valid JSON (invalid JSON at line 1 column 116: unexpected end of data): "{\\"path\\": '
            '\\"app.py\\", \\"content\\": \\"from flask import Fl… — error: the data received is damaged, '
            "whatever the provider answered",
        ),
        "canonical": (
            refused("TD504", "conversation"),
            refused("TD504", "conversation"),
            "not repaired TD202 c1 turn 1 part 1: found once written: the arguments are not valid JSON; "
            "completing or correcting them would be a guess",
            "remains TD202 error invalid-json-arguments: c1 turn 1 part 1: arguments of 'write_file' are "
            'not valid JSON (invalid JSON at line 1 column 116: unexpected end of data): "{\\"path\\": '
            '\\"app.py\\", \\"content\\": \\"from flask import Fl… — error: the data received is damaged, '
            "whatever the provider answered",
        ),
    },
    "defects/TD504-gemini-stream-ends-between-parallel-calls.har": {
        "*": (
            refused("TD504", "conversation"),
        ),
    },
    "defects/TD601-same-call-after-its-result.jsonl": {
        "*": (
            refused("TD601", "turn 3 part 0"),
            "remains TD601 warning repeated-call: c1 turn 3 part 0: get_weather called again with the "
            "same arguments as 'call_Rk2mW8vQ4tXn7LbP1sY9cH3d', right after its result came back in turn "
            "2: the model may not have seen that result — warning: a sign the log shows, not a rejection",
        ),
    },
    "defects/TD602-tool-calls-finish-without-calls.jsonl": {
        "*": (
            refused("TD602", "turn 1"),
        ),
        "openai-chat": (
            refused("TD602", "turn 1"),
            "repair TD404 c1 turn 1: an empty assistant turn → (taken out)",
        ),
    },
    "defects/TD603-forced-tool-choice-answered-with-text.jsonl": {
        "*": (
            refused("TD603", "turn 1 part 0"),
        ),
    },
    "defects/TD701-relay-drops-tools-on-the-way-upstream/client.jsonl": NOTHING,
    "defects/TD701-relay-drops-tools-on-the-way-upstream/upstream.jsonl": NOTHING,
    "defects/TD702-relay-strips-schema-parameters/client.jsonl": NOTHING,
    "defects/TD702-relay-strips-schema-parameters/upstream.jsonl": NOTHING,
    "defects/TD703-relay-drops-text-beside-tool-calls/client.jsonl": NOTHING,
    "defects/TD703-relay-drops-text-beside-tool-calls/upstream.jsonl": NOTHING,
    "defects/TD704-relay-drops-an-argument-it-does-not-know/client.jsonl": NOTHING,
    "defects/TD704-relay-drops-an-argument-it-does-not-know/upstream.jsonl": NOTHING,
    "defects/TD705-relay-adds-an-instruction-the-client-never-sent/client.jsonl": NOTHING,
    "defects/TD705-relay-adds-an-instruction-the-client-never-sent/upstream.jsonl": NOTHING,
    "defects/TD801-anthropic-session-from-kimi-keeps-its-call-ids.jsonl": {
        "*": (
            refused("TD901", "conversation"),
        ),
        "anthropic": (
            "repair TD801 c1 turn 1 part 1: call 'get_weather' id 'functions.get_weather:0' → "
            "'functions_get_weather_0' and its result, as {target} accepts it",
            "repair TD801 c1 turn 1 part 2: call 'get_weather' id 'functions.get_weather:1' → "
            "'functions_get_weather_1' and its result, as {target} accepts it",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD802-openai-chat-responses-item-ids-as-call-ids.jsonl": {
        "*": (
            refused("TD901", "conversation"),
        ),
        "openai-chat": (
            "repair TD802 c1 turn 1 part 0: call 'get_weather' id "
            "'fc_68b5e2a1c3d48190a7f2e6b9d1c04a5b0e3f7c92d8a61b45' → "
            "'fc_68b5e2a1c3d48190a7f2e6b9d1c04a5b0e3f7' and its result, as {target} accepts it",
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD803-anthropic-responses-call-followed-by-text.jsonl": {
        "*": (),
        "anthropic": (
            'repair TD803 c1 turn 1 part 1: text "Running the parser tests to see what fails." after the '
            "call 'shell' → turn 1 part 0, before the calls",
        ),
    },
    "defects/TD804-openai-chat-browser-screenshot-in-tool-result.jsonl": {
        "*": (),
        "openai-chat": (
            "repair TD804 c1 turn 2 part 0: result 'toolu_01VbR7nK3qT9wX2mL5cZ8yPd' holding image → image "
            "moved to a user message (turn 3) after the results",
        ),
    },
    "defects/TD805-deepseek-reasoner-tool-turn-without-reasoning-content.jsonl": {
        "*": (
            refused("TD901", "conversation"),
        ),
        "deepseek": (
            "not repaired TD805 c1 turn 1 part 0: the log holds no reasoning_content for the turn calling "
            "'get_exchange_rate' (the response that produced it is not recorded, or had none), and "
            "{target} rejects the turn without it",
            refused("TD901", "conversation"),
            "remains TD805 error target-reasoning-missing: c1 turn 1 part 0: the turn calling "
            "'get_exchange_rate' carries no reasoning_content (a tool turn needs it): deepseek rejects "
            "it, “Missing `reasoning_content` field in the assistant message at message index N. (newer "
            'models: "The `reasoning_content` in the thinking mode must be passed back to the API.")”',
        ),
    },
    "defects/TD805-kimi-k2-thinking-history-saved-without-reasoning-content.jsonl": {
        "*": (
            refused("TD901", "conversation"),
        ),
        "anthropic": (
            "repair TD801 c1 turn 1 part 0: call 'search_docs' id 'functions.search_docs:0' → "
            "'functions_search_docs_0' and its result, as {target} accepts it",
            refused("TD901", "conversation"),
        ),
        "kimi": (
            "not repaired TD805 c1 turn 1 part 0: the log holds no reasoning_content for the turn calling "
            "'search_docs' (the response that produced it is not recorded, or had none), and {target} "
            "rejects the turn without it",
            refused("TD901", "conversation"),
            "remains TD805 error target-reasoning-missing: c1 turn 1 part 0: the turn calling "
            "'search_docs' carries no reasoning_content (a tool turn needs it): kimi rejects it, "
            "“thinking is enabled but reasoning_content is missing in assistant tool call message at "
            "index N”",
        ),
    },
    "defects/TD805-openai-responses-stateless-history-names-reasoning-by-id.jsonl": {
        "*": (
            refused("TD901", "conversation"),
        ),
        "openai-responses": (
            "not repaired TD805 c1 turn 1 part 1: the log holds no reasoning item for the turn calling "
            "'get_invoice' (the response that produced it is not recorded, or had none), and {target} "
            "rejects the turn without it",
            refused("TD901", "conversation"),
            "remains TD805 error target-reasoning-missing: c1 turn 1 part 1: the turn calling "
            "'get_invoice' carries no reasoning item with its encrypted_content (store is false) (it must "
            "come before the call): openai-responses rejects it, “Item with id 'rs_…' not found. Items "
            "are not persisted when `store` is set to false. Try again with `store` set to true, or "
            "remove this item from your input.”",
        ),
    },
    "defects/TD806-openai-chat-gemini-mcp-tool-names-with-dots.jsonl": {
        "*": (
            "repair TD806 c1 conversation: tool name 'github.get_issue' → 'github_get_issue', as {target} "
            "accepts it",
            "repair TD806 c1 conversation: tool name 'github.list_issues' → 'github_list_issues', as "
            "{target} accepts it",
        ),
        "canonical gemini": (),
    },
    "defects/TD807-anthropic-memory-layer-prefills-with-tools-declared.jsonl": {
        "*": (
            refused("TD901", "conversation"),
        ),
        "anthropic bedrock": (
            refused("TD901", "conversation"),
            refused("TD807", "turn 1"),
        ),
    },
    "defects/TD901-gateway-answers-html-502-page.har": {
        "*": (
            refused("TD901", "conversation"),
        ),
    },
    "defects/TD901-responses-history-saved-without-reasoning-items.jsonl": {
        "*": (
            refused("TD901", "conversation"),
        ),
        "openai-responses": (
            "not repaired TD805 c1 turn 1 part 0: the log holds no reasoning item for the turn calling "
            "'get_order_status' (the response that produced it is not recorded, or had none), and "
            "{target} rejects the turn without it",
            refused("TD901", "conversation"),
        ),
    },
    "gemini/parallel-calls.jsonl": NOTHING,
    "gemini/request.json": NOTHING,
    "gemini/response.json": {
        "*": (),
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "gemini/stream.sse": {
        "*": (),
        "gemini": (
            "not repaired TD404 c1 turn 0 part 2: found once written for {target}: a turn {target} cannot "
            "carry; repairing it would mean inventing a turn or merging two",
            "remains TD404 error malformed-turn: c1 turn 0 part 2: a function call turn opens the "
            'history: Gemini answers "Please ensure that function call turn comes immediately after a '
            'user turn or after a function response turn." — error: {target} rejects it (--target)',
        ),
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "inspect-ai/file-missing.eval": {
        "*": (),
        "anthropic": (
            refused("TD807", "turn 3"),
        ),
    },
    "inspect-ai/revenue-math.json": unflagged(
        "turn 4 part 0", "'call_Qr8St9Uv0Wx1Yz2Ab3Cd4Ef'",
        "a Python traceback",
    ),
    "litellm/proxy-debug.log": NOTHING,
    "litellm/spend-logs.json": NOTHING,
    "litellm/standard-logging-payloads.jsonl": NOTHING,
    "mitmproxy/flows.zhar": NOTHING,
    "openai-chat/deepseek-thinking-tool-loop.jsonl": NOTHING,
    "openai-chat/ends-on-a-call.jsonl": NOTHING,
    "openai-chat/openrouter-reasoning-details-tool-loop.jsonl": NOTHING,
    "openai-chat/parallel-calls.jsonl": unflagged(
        "turn 2 part 1", "'call_J7cVn4TqE0aUx5GmRb8KyW3Z'",
        "'Error: weather service timed out for Bergen (upstream 504)'",
    ),
    "openai-chat/request.json": unflagged(
        "turn 2 part 1", "'call_J7cVn4TqE0aUx5GmRb8KyW3Z'",
        "'Error: weather service timed out for Bergen (upstream 504)'",
    ),
    "openai-chat/response.json": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "openai-chat/stream.sse": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "openai-chat/vllm-reasoning-content-replayed.jsonl": NOTHING,
    "openai-responses/chained-calls.jsonl": unflagged(
        "turn 2 part 1", "'call_Hb6zK1nQ5tGw8eLr3UyP0aXs'",
        "'Error: weather service timed out after 10 s'",
    ),
    "openai-responses/parallel-calls.jsonl": unflagged(
        "turn 2 part 1", "'call_MFhzneBtcdk4Gb1bK5OsHlTr'",
        '"Error: weather service timed out after …4) for city \'Bergen\'"',
    ),
    "openai-responses/reasoning-item-replayed-by-id.jsonl": NOTHING,
    "openai-responses/reasoning-items-replayed.jsonl": NOTHING,
    "openai-responses/request.json": unflagged(
        "turn 2 part 1", "'call_MFhzneBtcdk4Gb1bK5OsHlTr'",
        '"Error: weather service timed out after …4) for city \'Bergen\'"',
    ),
    "openai-responses/response.json": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "openai-responses/stream.sse": {
        "*": (),
        "gemini": OPENS_WITH_A_CALL,
        "bedrock": OPENS_WITH_THE_MODEL,
    },
    "otel/genai-events.jsonl": NOTHING,
    "otel/genai-spans.jsonl": NOTHING,
    "otel/openinference-spans.jsonl": NOTHING,
    "otel/span-attributes.json": NOTHING,
    "otel/traceloop-flattened.json": NOTHING,
    "relay/gemini-dummy-thought-signature/client.jsonl": {
        "*": (),
        "gemini": (
            "not repaired TD805 c1 turn 1 part 0: the log holds no thought signature for the turn calling "
            "'train_status' (the response that produced it is not recorded, or had none), and {target} "
            "rejects the turn without it",
        ),
    },
    "relay/gemini-dummy-thought-signature/upstream.jsonl": NOTHING,
}


#: sample → wire targets → what `convert SAMPLE --to TARGET --conversation C` (no --fix) says it will
#: not write blank and why (`tooldbg: C PLACE: …`, guard.blanks), and what it writes as recorded
#: though --fix would repair it (`note: C PLACE: …`, guard.kept); keys as in `FIXED`, every
#: sample not listed says neither for any target.
BLANKED: dict[str, dict[str, tuple[str, ...]]] = {
    "defects/TD101-claude-trace-client-resends-a-stale-result.jsonl": {
        "*": (
            'tooldbg: c1 turn 2 part 1: result \'toolu_01Zz9Yy8Xx7Ww6Vv5Uu4Tt3S\' "src/app.py:3" would be '
            "left out of the {target} request; repair TD101: take the orphan result out, listed (or keep "
            "it as text with --keep-orphans)",
        ),
        "openai-responses": (),
    },
    "defects/TD101-history-trimmed-through-a-call.jsonl#c2": {
        "*": (
            "tooldbg: c2 turn 0 part 0: result 'call_Q3zbX8mN1vRtY6kLpD2wHs9F' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":4,\\"conditions\\":\\"overcast\\… would be left out of '
            "the {target} request; repair TD101: take the orphan result out, listed (or keep it as text "
            "with --keep-orphans)",
        ),
        "openai-responses": (),
    },
    "defects/TD101-mitmproxy-agent-rewrites-call-turn-as-text.zhar": {
        "*": (
            'tooldbg: c1 turn 2 part 0: result \'toolu_01Rt5Yu8Io1Pa4Sd7Fg0Hj3K\' "1398.60 NOK" would be '
            "left out of the {target} request; repair TD101: take the orphan result out, listed (or keep "
            "it as text with --keep-orphans)",
        ),
        "openai-responses": (),
    },
    "defects/TD101-stale-result-rejected-then-retried-without-it.jsonl#c2": {
        "*": (
            'tooldbg: c2 turn 2 part 1: result \'toolu_01Hs4Jp7Wq2Nc9Xv6Bm3Lz8T\' "web-frontend #4126: '
            'passed (3 h ago), 214 tests" would be left out of the {target} request; repair TD101: take '
            "the orphan result out, listed (or keep it as text with --keep-orphans)",
        ),
        "openai-responses": (),
    },
    "defects/TD102-claude-code-parallel-result-lost-then-new-prompt.jsonl": {
        "*": (
            "tooldbg: c1 turn 1 part 1: call 'Grep' "
            '{"pattern":"payment_failed","path":"logs/payments.log"} would be left out of the {target} '
            "request; repair TD102: close it with an error result saying no result was recorded",
        ),
        "openai-responses gemini": (),
    },
    "defects/TD102-codex-resumed-rollout-drops-shell-output.jsonl": {
        "*": (
            'tooldbg: c1 turn 1 part 0: call \'shell\' {"command":["bash","-lc","ruff check '
            '."],"workdir":"/home/d… would be left out of the {target} request; repair TD102: close it '
            "with an error result saying no result was recorded",
        ),
        "openai-responses gemini": (),
    },
    "defects/TD102-failed-parallel-result-dropped.jsonl": {
        "*": (
            'tooldbg: c1 turn 1 part 2: call \'get_weather\' {"city":"Bergen"} would be left out of the '
            "{target} request; repair TD102: close it with an error result saying no result was recorded",
        ),
        "openai-responses gemini": (),
    },
    "defects/TD102-litellm-payload-client-drops-tool-message.jsonl": {
        "*": (
            'tooldbg: c1 turn 1 part 0: call \'lookup_order\' {"order_id":"88123"} would be left out of '
            "the {target} request; repair TD102: close it with an error result saying no result was "
            "recorded",
        ),
        "openai-responses gemini": (),
    },
    "defects/TD102-otel-genai-agent-loses-tool-response.jsonl": {
        "*": (
            'tooldbg: c1 turn 1 part 0: call \'get_weather\' {"city":"Bergen"} would be left out of the '
            "{target} request; repair TD102: close it with an error result saying no result was recorded",
        ),
        "openai-responses gemini": (),
    },
    "defects/TD102-request-ends-on-unanswered-call.jsonl": {
        "*": (),
        "openai-chat": (
            'tooldbg: c1 turn 1 part 0: call \'read_file\' {"path":"pyproject.toml"} would be left out of '
            "the {target} request; repair TD102: close it with an error result saying no result was "
            "recorded",
        ),
    },
    "defects/TD102-responses-chain-drops-function-output.jsonl": {
        "*": (
            'tooldbg: c1 turn 1 part 2: call \'get_weather\' {"city":"Bergen"} would be left out of the '
            "{target} request; repair TD102: close it with an error result saying no result was recorded",
        ),
        "openai-responses gemini": (),
    },
    "defects/TD103-tool-use-id-lowercased-by-relay.jsonl": {
        "*": (
            "tooldbg: c1 turn 2 part 0: result 'toolu_01hqz5fwm3tkxb8ycn2plr7v' "
            '"{\\"order_id\\":\\"A-20417\\",\\"status\\":\\"shipped\\",\\"carrier… would be left out of '
            "the {target} request; repair TD103: bind it to the call whose id its id is a damaged copy of",
        ),
        "anthropic bedrock": (
            'tooldbg: c1 turn 1 part 1: call \'lookup_order\' {"order_id":"A-20417"} would be left out of '
            "the {target} request; repair TD103: bind to it the result whose id is a damaged copy of its "
            "id",
            "tooldbg: c1 turn 2 part 0: result 'toolu_01hqz5fwm3tkxb8ycn2plr7v' "
            '"{\\"order_id\\":\\"A-20417\\",\\"status\\":\\"shipped\\",\\"carrier… would be left out of '
            "the {target} request; repair TD103: bind it to the call whose id its id is a damaged copy of",
        ),
        "openai-responses": (),
    },
    "defects/TD105-retried-booking-answered-twice.jsonl": {
        "*": (),
        "anthropic gemini": (
            "tooldbg: c1 turn 2 part 1: result 'toolu_01Rb6Nq3Xw8Kz2Tm5Yc7Lp4D' "
            '"{\\"booking\\":\\"NF-2291\\",\\"departure\\":\\"18:05\\",\\"charged… would be left out of '
            "the {target} request; repair TD105: keep the call's first result, list this one and take it "
            "out",
        ),
    },
    "defects/TD201-claude-tap-client-replays-arguments-double-encoded.jsonl": {
        "*": (
            "tooldbg: c1 turn 1 part 0: arguments of 'get_weather' are a JSON string holding an object; "
            "{target} needs an object and would get {}; repair TD201: decode them into the object",
        ),
        "openai-chat openai-responses": (
            "note: c1 turn 1 part 0: arguments of 'get_weather' are JSON-encoded twice, written as "
            "recorded; --fix decodes them (TD201)",
        ),
    },
    "defects/TD201-inspect-ai-solver-replays-arguments-double-encoded.json": {
        "*": (
            "tooldbg: c1 turn 1 part 0: arguments of 'read_file' are a JSON string holding an object; "
            "{target} needs an object and would get {}; repair TD201: decode them into the object",
        ),
        "openai-chat openai-responses": (
            "note: c1 turn 1 part 0: arguments of 'read_file' are JSON-encoded twice, written as "
            "recorded; --fix decodes them (TD201)",
        ),
    },
    "defects/TD201-litellm-proxy-double-encodes-arguments.jsonl": {
        "*": (
            "tooldbg: c1 turn 1 part 1: arguments of 'get_weather' are a JSON string holding an object; "
            "{target} needs an object and would get {}; repair TD201: decode them into the object",
        ),
        "openai-chat openai-responses": (
            "note: c1 turn 1 part 1: arguments of 'get_weather' are JSON-encoded twice, written as "
            "recorded; --fix decodes them (TD201)",
        ),
    },
    "defects/TD201-openinference-span-arguments-encoded-twice.jsonl": {
        "*": (
            "tooldbg: c1 turn 1 part 0: arguments of 'lookup_invoice' are a JSON string holding an "
            "object; {target} needs an object and would get {}; repair TD201: decode them into the object",
        ),
        "openai-chat openai-responses": (
            "note: c1 turn 1 part 0: arguments of 'lookup_invoice' are JSON-encoded twice, written as "
            "recorded; --fix decodes them (TD201)",
        ),
    },
    "defects/TD202-write-file-arguments-cut-at-max-tokens.json": {
        "*": (
            'tooldbg: c1 turn 1 part 0: arguments of \'write_file\' are not valid JSON (\'{"path": '
            '"scripts/summarize.py", "content": "import csv\\\\nimp…\'); {target} needs an object and '
            "would get {}; no safe repair: completing or correcting them would be a guess (TD202)",
        ),
        "openai-chat openai-responses": (),
    },
    "defects/TD205-parameterless-call-streams-empty-arguments.json": {
        "*": (
            'tooldbg: c1 turn 1 part 1: arguments of \'list_open_tickets\' are ""; {target} needs an '
            'object and would get {}; repair TD205: write "" as {}',
        ),
        "openai-chat openai-responses": (
            'note: c1 turn 1 part 1: arguments of \'list_open_tickets\' are "", written as recorded; '
            "--fix writes {} (TD205)",
        ),
    },
    "defects/TD402-user-message-before-tool-results.jsonl": {
        "*": (),
        "openai-chat": (
            'tooldbg: c1 turn 1 part 0: call \'get_weather\' {"city":"Oslo"} would be left out of the '
            "{target} request; repair TD402: move its result into the turn right after it",
            'tooldbg: c1 turn 1 part 1: call \'get_weather\' {"city":"Bergen"} would be left out of the '
            "{target} request; repair TD402: move its result into the turn right after it",
            "tooldbg: c1 turn 3 part 0: result 'call_hT4qzN8bW2cLx7RkV1mYp3Es' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":4,\\"condition\\":\\"overcast\\"… would be left out of '
            "the {target} request; repair TD402: move it into the turn right after its call",
            "tooldbg: c1 turn 3 part 1: result 'call_Z9fK2sDq6vJn0XaPe5TuL8wC' "
            '"{\\"city\\":\\"Bergen\\",\\"temp_c\\":7,\\"condition\\":\\"rain\\"}" would be left out of '
            "the {target} request; repair TD402: move it into the turn right after its call",
        ),
    },
    "defects/TD403-text-before-tool-results.jsonl": {
        "*": (),
        "openai-chat": (
            'tooldbg: c1 turn 1 part 1: call \'get_weather\' {"city":"Oslo","unit":"celsius"} would be '
            "left out of the {target} request; repair TD402: move its result into the turn right after it",
            'tooldbg: c1 turn 1 part 2: call \'get_weather\' {"city":"Bergen","unit":"celsius"} would be '
            "left out of the {target} request; repair TD402: move its result into the turn right after it",
            "tooldbg: c1 turn 3 part 0: result 'toolu_01Hq8vYbT3kZr5nWx2LcPd7F' "
            '"{\\"city\\":\\"Oslo\\",\\"temp_c\\":4,\\"condition\\":\\"overcast\\"… would be left out of '
            "the {target} request; repair TD402: move it into the turn right after its call",
            "tooldbg: c1 turn 3 part 1: result 'toolu_01Mv4sJd9QeXa6pRt1NbGk2U' (error) "
            '"WeatherServiceError: upstream timed out after 10s for city… would be left out of the '
            "{target} request; repair TD402: move it into the turn right after its call",
        ),
    },
    "defects/TD502-anthropic-relay-resends-input-delta.jsonl": {
        "*": (
            'tooldbg: c1 turn 1 part 1: arguments of \'restart_service\' are not valid JSON (\'{"host": '
            '"web-03", "service": "ngi, "service": "nginx"}\'); {target} needs an object and would get '
            "{}; no safe repair: completing or correcting them would be a guess (TD202)",
        ),
        "openai-chat openai-responses": (),
    },
    "defects/TD502-litellm-summary-chunk-resends-arguments.har": {
        "*": (
            "tooldbg: c1 turn 1 part 0: arguments of 'search_flights' are not valid JSON "
            '(\'{"origin":"OSL","destination":"BGO","date":"2026-06-12"}"{\\\\"…\'); {target} needs an '
            "object and would get {}; no safe repair: completing or correcting them would be a guess "
            "(TD202)",
        ),
        "openai-chat openai-responses": (),
    },
    "defects/TD504-anthropic-connection-drops-mid-tool-input.json": {
        "*": (
            'tooldbg: c1 turn 1 part 1: arguments of \'write_file\' are not valid JSON (\'{"path": '
            '"app.py", "content": "from flask import Flask\\\\n\\\\nap…\'); {target} needs an object and '
            "would get {}; no safe repair: completing or correcting them would be a guess (TD202)",
        ),
        "openai-chat openai-responses": (),
    },
}

def targets(path: Path) -> list[str]:
    """`canonical`, the wire formats, and the profile a TD8xx sample's name starts with."""
    code, _, rest = path.name.partition("-")
    named = next((t for t in PROFILES if rest.startswith(t + "-")), None) if code.startswith("TD8") else None
    return ["canonical", *formats.WIRE_FORMATS, *([named] if named else [])]


def samples() -> dict[str, tuple[Path, str]]:
    """Every sample's key in `FIXED` → its file and conversation id."""
    out = {}
    for path in sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.name != "README.md"):
        ids = [c.id for c in load_file(path).conversations]
        for cid in ids:
            out[path.relative_to(SAMPLES).as_posix() + (f"#{cid}" if len(ids) > 1 else "")] = (path, cid)
    return out


SAMPLE_FILES = samples()
CASES = [(key, target) for key, (path, _) in SAMPLE_FILES.items() for target in targets(path)]


def expected_in(table: dict[str, dict[str, tuple[str, ...]]], key: str, target: str) -> list[str]:
    """The lines `table` pins for `key` written for `target`: its entry naming the target, else `*`."""
    by_target = table.get(key, NOTHING)
    lines = next((lines for names, lines in by_target.items() if target in names.split()), by_target["*"])
    return [line.replace("{target}", target) for line in lines]


def test_every_sample_is_pinned_for_its_targets_only():
    assert sorted(FIXED) == sorted(SAMPLE_FILES)
    for key, by_target in FIXED.items():
        named = [t for names in by_target if names != "*" for t in names.split()]
        assert "*" in by_target and len(named) == len(set(named)), key
        assert set(named) < set(targets(SAMPLE_FILES[key][0])), key


@pytest.mark.parametrize(("key", "target"), CASES, ids=[f"{k}>{t}" for k, t in CASES])
def test_fix_does_what_is_pinned(capsys, key, target):
    path, cid = SAMPLE_FILES[key]
    _, out, _ = run_fix(capsys, "fix", path, "--to", target, "--conversation", cid, "--dry-run")
    assert out.splitlines()[:-1] == expected_in(FIXED, key, target)


CONVERTED = [(key, target) for key in SAMPLE_FILES if key.startswith("defects/") for target in formats.WIRE_FORMATS]


def test_every_blank_pin_names_a_sample_and_wire_targets():
    for key, by_target in BLANKED.items():
        named = [t for names in by_target if names != "*" for t in names.split()]
        assert key in SAMPLE_FILES and "*" in by_target and set(named) < set(formats.WIRE_FORMATS), key


@pytest.mark.parametrize(("key", "target"), CONVERTED, ids=[f"{k}>{t}" for k, t in CONVERTED])
def test_convert_says_what_it_would_blank_as_pinned(capsys, key, target):
    path, cid = SAMPLE_FILES[key]
    _, _, err = run_fix(capsys, "convert", path, "--to", target, "--conversation", cid)
    said = [line for line in err.splitlines() if line.startswith((f"tooldbg: {cid} ", f"note: {cid} "))]
    assert said == expected_in(BLANKED, key, target)
