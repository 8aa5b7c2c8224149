"""Sniffing a Gemini body looks up its fields (`_get`, which works out their snake_case spelling by a
regex) only when the body has a key spelled as one of them: it decides as the lookups alone did."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tooldbg.formats.gemini.common import _get
from tooldbg.formats.gemini.read import sniff


def _sniff_before(body: Any, side: str) -> bool:
    """`sniff` as it was before the spellings were checked first (the oracle)."""
    if not isinstance(body, dict):
        return False
    if side == "request":
        return isinstance(_get(body, "contents"), list)
    error = body.get("error")
    return (_get(body, "candidates") is not None or _get(body, "promptFeedback") is not None
            or isinstance(error, dict) and isinstance(error.get("status"), str))


_KEYS = st.sampled_from(["contents", "candidates", "promptFeedback", "prompt_feedback", "error", "messages",
                         "Contents", "prompt_Feedback", "input"])
_VALUES = st.sampled_from([None, [], [{}], {}, "x", 0, {"status": "INVALID"}, {"status": 3}])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.dictionaries(_KEYS, _VALUES, max_size=4), _VALUES), st.sampled_from(["request", "response"]))
def test_sniffing_decides_as_the_lookups_did(body: Any, side: str) -> None:
    assert sniff(body, side) is _sniff_before(body, side)
