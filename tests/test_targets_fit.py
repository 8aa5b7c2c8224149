"""Making an id or a tool name fit a target: `tooldbg.fit.fit` reads the character class, first
character and length off the same `Limit` rows the TD801/TD806 pre-flight judges with, so whatever it
writes passes that pre-flight."""

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooldbg import formats
from tooldbg.checks.targeting import failure
from tooldbg.fit import Atom, Limit, broken, describe, fit, fit_each, parse_pattern, passes, shape
from tooldbg.formats.profiles import PROFILES
from tooldbg.targets import TABLES, fit_call_id, fit_call_ids, fit_tool_name, fit_tool_names

TARGETS = (*formats.WIRE_FORMATS, *PROFILES)
PATTERNS = sorted({str(limit.value) for t in TABLES.values() for limit in (*t.call_id, *t.tool_name)
                   if limit.test == "pattern"})


def limits(target, kind):
    return getattr(TABLES[target], kind)


def preflight_ok(value, rows):
    """What TD801 (certain id limits) and TD806 (every name limit) would say."""
    return failure(value, tuple(r for r in rows if r.certain)) is None


# ------------------------------------------------------------------------------ the pattern parser


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_pattern_in_the_tables_parses_into_a_fittable_shape(pattern):
    assert parse_pattern(pattern)
    shape((Limit("pattern", "", "", value=pattern),))


@pytest.mark.parametrize("target", TARGETS)
def test_every_table_row_of_every_target_makes_one_shape(target):
    for kind in ("call_id", "tool_name"):
        shape(limits(target, kind))


def test_parse_pattern_reads_classes_ranges_and_quantifiers():
    assert parse_pattern(r"[a-c_.:-]+") == (Atom(frozenset("abc_.:-"), 1, None),)
    assert parse_pattern(r"[a-zA-Z_][a-z0-9]*") == (
        Atom(frozenset(string.ascii_letters + "_"), 1, 1), Atom(frozenset("abcdefghijklmnopqrstuvwxyz0123456789"), 0, None))
    assert parse_pattern(r"[a-zA-Z0-9]{9}") == (Atom(frozenset(string.ascii_letters + string.digits), 9, 9),)
    assert parse_pattern(r"[\x21-\x7e]{1,40}") == (Atom(frozenset(map(chr, range(0x21, 0x7f))), 1, 40),)
    assert parse_pattern(r"x[\-\]]{2,}") == (Atom(frozenset("x"), 1, 1), Atom(frozenset("-]"), 2, None))
    assert parse_pattern(r"[ab]?") == (Atom(frozenset("ab"), 0, 1),)


@pytest.mark.parametrize("pattern", [r"^[a-z]+$", r"[^a-z]+", r"\w+", r"(ab)+", r"a|b", r"[a-z", r"[a-z]{3,1}",
                                     r"[a-z]{x}", r"[z-a]", "a.b"])
def test_forms_the_parser_cannot_fit_are_refused(pattern):
    with pytest.raises(ValueError):
        shape((Limit("pattern", "", "", value=pattern),))


@pytest.mark.parametrize("pattern", PATTERNS)
@settings(max_examples=150, deadline=None)
@given(value=st.text(alphabet=st.sampled_from(string.ascii_letters + string.digits + "_-.:@ é/"), max_size=12))
def test_the_shape_agrees_with_the_regex(pattern, value):
    form = shape((Limit("pattern", "", "", value=pattern),))
    ok = (form.low <= len(value) and (form.high is None or len(value) <= form.high)
          and all(c in form.chars for c in value[1:])
          and (value == "" or value[0] in (form.first if form.first is not None else form.chars)))
    assert ok == (re.fullmatch(pattern, value) is not None)


# --------------------------------------------------------------------------------- what fit does


def test_a_value_that_fits_is_unchanged_and_taken():
    used = set()
    assert fit_tool_name("openai-chat", "get_weather", used) == "get_weather"
    assert used == {"get_weather"}


def test_a_100_character_tool_name_is_cut_to_each_targets_maximum():
    name = "t" * 100
    assert fit_tool_name("gemini", name, set()) == "t" * 64  # Gemini: 64, what the API answers
    assert fit_tool_name("anthropic", name, set()) == name  # Anthropic: 128 today
    assert fit_tool_name("anthropic", "t" * 200, set()) == "t" * 128
    assert fit_tool_name("bedrock", name, set()) == "t" * 64
    assert fit_tool_name("openai-chat", name, set()) == "t" * 64


def test_characters_outside_the_class_become_underscores_or_are_kept_where_allowed():
    assert fit_tool_name("anthropic", "github.create issue", set()) == "github_create_issue"
    assert fit_tool_name("gemini", "github.create:issue/é", set()) == "github.create:issue__"
    assert fit_call_id("bedrock", "functions.get_weather:0", set()) == "functions.get_weather:0"
    assert fit_call_id("anthropic", "functions.get_weather:0", set()) == "functions_get_weather_0"


def test_a_required_first_character_is_supplied():
    assert fit_tool_name("gemini", "1password_lookup", set()) == "_1password_lookup"
    assert fit_tool_name("gemini", "-x", set()) == "_-x"
    assert fit_tool_name("gemini", "a" * 100, set())[0] == "a"
    assert fit_tool_name("gemini", "9" * 100, set()) == "_" + "9" * 63


def test_an_empty_string_gets_the_fallback():
    assert fit_tool_name("anthropic", "", set()) == "tool"
    assert fit_call_id("bedrock", "", set()) == "call"
    assert fit_tool_name("gemini", "", set()) == "tool"
    assert fit_tool_name("anthropic", "ééé", set()) == "___"


def test_mistral_ids_are_nine_letters_or_digits_from_a_hash_of_the_original():
    written = fit_call_id("mistral", "call_0fypS1hVX", set())
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", written)
    assert fit_call_id("mistral", "call_0fypS1hVX", set()) == written  # same original → same id
    assert fit_call_id("mistral", "call_0fypS1hVY", set()) != written
    assert fit_call_id("mistral", "abcDEF123", set()) == "abcDEF123"  # already fits
    assert re.fullmatch(r"[a-zA-Z0-9]{9}", fit_call_id("mistral", "", set()))


def test_a_taken_value_gets_a_numbered_suffix_within_the_maximum():
    used = set()
    first = fit_tool_name("gemini", "x" * 100, used)
    second = fit_tool_name("gemini", "x" * 101, used)
    assert (first, second) == ("x" * 64, "x" * 62 + "_2")
    assert fit_tool_name("gemini", "x" * 102, used) == "x" * 62 + "_3"
    assert fit_tool_name("anthropic", "a_b", {"a_b"}) == "a_b_2"


def test_a_taken_mistral_id_gets_another_hash():
    used = set()
    one = fit_call_id("mistral", "call_1", used)
    two = fit_call_id("mistral", "call_1", used)  # two calls sharing an id get two ids
    assert one != two and all(re.fullmatch(r"[a-zA-Z0-9]{9}", x) for x in (one, two))
    assert fit_call_id("mistral", "abcDEF123", {"abcDEF123"}) != "abcDEF123"


def test_uncertain_limits_are_fitted_too_unless_asked_not_to():
    long_id = "fc_" + "a" * 50  # OpenAI Chat's 40-character id limit is uncertain (TD802)
    rows = limits("openai-chat", "call_id")
    assert fit_call_id("openai-chat", long_id, set()) == long_id[:40]
    assert fit(long_id, rows, set(), uncertain=False) == long_id
    assert broken(long_id, rows).value == 40
    assert broken(long_id, rows, uncertain=False) is None


def test_targets_without_a_limit_keep_everything():
    assert fit_call_id("kimi", "functions.get_weather:0", set()) == "functions.get_weather:0"
    assert fit_call_id("gemini", "", set()) == ""  # Gemini sets no id limit at all
    assert fit_call_id("deepseek", "x" * 100, set()) == "x" * 100


def test_an_unknown_target_is_an_error():
    with pytest.raises(ValueError, match="unknown target"):
        fit_call_id("cohere", "x", set())


def test_none_when_nothing_can_fit():
    only_a = (Limit("pattern", "", "", value="[a]"),)
    assert fit("b", only_a, set()) == "a"
    assert fit("b", only_a, {"a"}) is None
    nothing = (Limit("pattern", "", "", value="[ab]{2}"), Limit("max_length", "", "", value=1))
    assert fit("ab", nothing, set()) is None


def test_an_empty_string_breaks_a_pattern_even_without_an_empty_row():
    # the pre-flight reports only the `empty` row for "" (one finding, not two); a writer must not
    # emit "" to Mistral either way
    assert failure("", limits("mistral", "call_id")) is None
    assert not passes("", limits("mistral", "call_id"))


# ---------------------------------------------------------------------------- fitting many at once


def test_fit_each_keeps_every_original_that_fits_before_rewriting_others():
    assert fit_tool_names("anthropic", ["a.b", "a_b", "a:b"]) == {"a.b": "a_b_2", "a_b": "a_b", "a:b": "a_b_3"}


def test_fit_call_ids_rewrites_a_repeated_id():
    written = fit_call_ids("anthropic", {"i1": "toolu_1", "i2": "toolu_1", "i3": "toolu_1_2"})
    assert written == {"i1": "toolu_1", "i2": "toolu_1_3", "i3": "toolu_1_2"}


def test_fit_each_fills_the_used_set_it_is_given():
    used = {"call"}
    assert fit_each({1: ""}, limits("bedrock", "call_id"), fallback="call", used=used) == {1: "call_2"}
    assert used == {"call", "call_2"}


# ------------------------------------------------------------------------------------ describe


@pytest.mark.parametrize(("target", "kind", "words"), [
    ("openai-chat", "tool_name", "letters, digits, - and _, 1 to 64 characters"),
    ("openai-chat", "call_id", "1 to 40 characters"),
    ("anthropic", "call_id", "letters, digits, - and _, not empty"),
    ("gemini", "tool_name", "starting with a letter or _, letters, digits, -, ., : and _, 1 to 64 characters"),
    ("mistral", "call_id", "letters and digits, exactly 9 characters"),
])
def test_describe_says_the_limits_in_words(target, kind, words):
    assert describe(limits(target, kind)) == words


# ------------------------------------------------------------------------------------- property

hostile = st.one_of(
    st.text(max_size=140),
    st.text(alphabet=st.sampled_from(string.ascii_letters + string.digits + "_-.:/ @é中\t"), max_size=140),
    st.sampled_from(["", "call_0fypS1hVX", "functions.get_weather:0", "fc_" + "a" * 60, "t" * 100,
                     "github.create_issue", "Complete Session", "get_/whoami", "9lives", "_", "-"]),
)


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=60, deadline=None)
@given(values=st.lists(hostile, min_size=1, max_size=6))
def test_whatever_fit_writes_passes_the_preflight_and_stays_unique(target, values):
    for kind, one in (("call_id", fit_call_id), ("tool_name", fit_tool_name)):
        rows = limits(target, kind)
        used: set[str] = set()
        for value in values:
            before = set(used)
            written = one(target, value, used)
            assert written is not None
            assert written not in before and written in used
            assert passes(written, rows) and preflight_ok(written, rows), (value, written)
            if value not in before and passes(value, rows):
                assert written == value
            assert one(target, written, set()) == written  # fitting is idempotent
        many = fit_each(dict(enumerate(values)), rows)
        assert len(set(many.values())) == len(values)
        assert all(w is not None and passes(w, rows) for w in many.values())
