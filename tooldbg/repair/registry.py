"""The one place repairs are registered: each finding code → the repairs that fix it, or the reason
no safe repair exists.

`REPAIRS` lists the repairs in the order they run (evidence from the log first, while the
conversation still has the shape the evidence points into; then values in place; then ids; then
structure) with the codes each one answers. `BY_CODE` is the same table read by code. A code in
`NO_REPAIR` is never repaired: its findings are listed with the reason. Every rule `check` runs is
in one of the two (tests/test_fix.py checks).
"""

from __future__ import annotations

from . import arguments, ids, replay, structure
from .base import Repairer

#: (codes, repair), in the order the repairs run.
REPAIRS: tuple[tuple[tuple[str, ...], Repairer], ...] = (
    # from the log's own record
    (("TD303",), replay.restore_flags),
    (("TD301",), replay.restore_text),
    (("TD307",), replay.restore_reasoning),
    (("TD305",), replay.restore_media),
    (("TD306",), replay.restore_arguments),
    (("TD106",), replay.restore_ids),
    (("TD805",), replay.restore_target_reasoning),
    # values in place
    (("TD201", "TD204"), arguments.decode_arguments),
    (("TD205",), arguments.empty_arguments),
    (("TD203", "TD204"), arguments.argument_shape),
    # ids and pairing
    (("TD103",), ids.rebind_near_misses),
    (("TD104",), ids.unique_call_ids),
    (("TD108",), ids.replace_invalid_ids),
    (("TD107",), ids.pair_same_name),
    # structure
    (("TD105",), structure.dedupe_results),
    (("TD101",), structure.orphans),
    (("TD402", "TD403", "TD803"), structure.adjacency),
    (("TD102", "TD803"), structure.close_unanswered),
    (("TD401", "TD107"), structure.result_order),
    (("TD405", "TD803"), structure.text_before_calls),
    (("TD406",), structure.drop_blank_text),
    (("TD404",), structure.malformed_turns),
    (("TD804",), structure.move_result_media),
    # what the target accepts (as the writers fit them, made explicit)
    (("TD801", "TD802"), ids.fit_ids),
    (("TD806",), ids.fit_names),
)

#: Each code → the repairs that fix its findings, in the order they run.
BY_CODE: dict[str, tuple[Repairer, ...]] = {}
for _codes, _repair in REPAIRS:
    for _code in _codes:
        BY_CODE[_code] = (*BY_CODE.get(_code, ()), _repair)

#: Codes with no safe repair, and why: their findings are listed, never changed.
NO_REPAIR: dict[str, str] = {
    "TD202": "the arguments are not valid JSON; completing or correcting them would be a guess",
    "TD206": "the arguments do not fit the declared schema; changing what the model asked for is a guess",
    "TD207": "the call names a tool the request does not declare; which tool was meant is a guess",
    "TD302": "the result survives only inside user text; which part of that text was the tool's output, and "
             "which call it answered, is a guess",
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
    "TD807": "the request ends on the assistant's turn; the user turn that would follow it is not in the "
             "log, and any written for it would be made up",
    "TD901": "the provider's rejection is a record of what happened; the repairs of the rules it names "
             "mend the request that caused it",
}
