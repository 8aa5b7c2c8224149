"""`secrets.redact_text`, the one masking pass: every shape of credential, in plain text and in
JSON text, masked without breaking the JSON around it; prose left alone; idempotent; fast."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tooldbg.secrets import MASK, mask, redact_headers, redact_text
from tooldbg.shorten import clip, cut, one_line, quote

KEYS = [
    "sk-proj-A1b2C3d4E5f6G7h8J9k0L1m2",
    "sk-ant-api03-RLDJMykYh_hgEKCzepUgrernMDEvvAzGqOFOX5oh",
    "sk-0123456789abcdef0123456789abcdef",
    "AIzaSyA1b2C3d4E5f6G7h8J9k0L1m2N3o4P5q6",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIAIOSFODNN7EXAMPLE",
    "gsk_A1b2C3d4E5f6G7h8J9k0",
    "xai-A1b2C3d4E5f6G7h8J9k0",
    "ghp_A1b2C3d4E5f6G7h8J9k0L1m2N3o4P5q6R7s8",
    "hf_A1b2C3d4E5f6G7h8J9k0L1m2N3o4",
    "xoxb-1234567890-A1b2C3d4E5f6",
    "ya29.A1b2C3d4E5f6G7h8J9k0L1m2N3o4",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("context", [
    "{}", "my key is {} ok", "line one\n{}", "\t{}", "({})", "key={}", '"{}"', "'{}'",
    "\u200b{}", "\x1b[2J{}", "\x1b[1;31m{}\x1b[0m", "\\u001b[31m{}", "\u202e{}", "…{}…",
    "https://x.example/?trace=%22{}", "https://x.example/?q=%3D{}%22",
])
def test_key_shapes_are_masked_in_text(key: str, context: str):
    text = context.format(key)
    out = redact_text(text)
    assert key not in out and key[6:] not in out and MASK in out


@pytest.mark.parametrize("key", KEYS)
def test_key_shapes_are_masked_in_json_text_and_json_stays_valid(key: str):
    doc = {"text": f"first line\n{key}", "nested": json.dumps({"arguments": f"x\n{key}"}),
           "repr": repr(f"\x1b{key}"), "list": [key, f"\u200b{key}"]}
    for text in (json.dumps(doc), json.dumps(doc, indent=2), json.dumps(doc, ensure_ascii=False)):
        out = redact_text(text)
        assert key not in out and key[6:] not in out
        assert json.loads(out).keys() == doc.keys()


@pytest.mark.parametrize("text, secret", [
    ('{"Authorization": "Bearer opaque-token-0123456789"}', "opaque-token-0123456789"),
    ('{"x-api-key": "not-key-shaped-0123"}', "not-key-shaped-0123"),
    ('{"X-Goog-Api-Key": "whatever-it-is-01"}', "whatever-it-is-01"),
    ('{"api_key": "hunter2hunter2"}', "hunter2hunter2"),
    ('{"password": "it\'s \\"quoted\\" 0"}', "quoted"),
    ("{'client_secret': 'abcdefghijkl'}", "abcdefghijkl"),
    ('"{\\"apiKey\\": \\"escaped-inside-json-1\\"}"', "escaped-inside-json-1"),
    ("curl -H 'Authorization: Bearer opaque0123456789' https://x", "opaque0123456789"),
    ("x-api-key: plain-header-value-1", "plain-header-value-1"),
    ("export OPENAI_API_KEY=whatever01234", "whatever01234"),
    ("https://generativelanguage.googleapis.com/v1beta/models/g:generateContent?key=abcdefghijkl",
     "abcdefghijkl"),
    ("https://img.example/cat.png?size=2&KEY=abcdefghijkl#frag", "abcdefghijkl"),
    ("https://b.s3.amazonaws.com/x.png?X-Amz-Signature=0a1b2c3d4e5f&X-Amz-Date=1", "0a1b2c3d4e5f"),
    ("https://blob.example/x.png?sv=1&sig=abcdEFGH%2Bijkl", "abcdEFGH%2Bijkl"),
    ("https://user:s3cretpassword@proxy.example:8080/", "s3cretpassword"),
    ("the header said bearer tok3n-abcdefghij", "tok3n-abcdefghij"),
    ("Incorrect API key provided: sk-proj-abcdefghijkl0123. You can find", "abcdefghijkl0123"),
])
def test_named_and_url_credentials_are_masked(text: str, secret: str):
    out = redact_text(text)
    assert secret not in out and MASK in out
    try:
        json.loads(text)
    except ValueError:
        return
    json.loads(out)


def test_json_values_that_are_not_strings_are_left_alone():
    doc = {"api_key": None, "password": {"type": "string"}, "token_count": 3, "access_token": 5,
           "max_tokens": 10, "authorization": True}
    assert redact_text(json.dumps(doc)) == json.dumps(doc)


@pytest.mark.parametrize("prose", [
    "the bearer of bad news", "a bearer instrument", "pip install scikit-learn", "ask-me-anything",
    "task-abcdefghijk", "risk-assessment-report", "Use the key= parameter", "skip sk- prefixes",
    "Basic information about the city", "http://example.com/a?b=c", "AKIA", "eyJ",
])
def test_prose_is_left_alone(prose: str):
    assert redact_text(prose) == prose


def test_masking_keeps_a_short_head_of_long_values_only():
    assert mask("Bearer sk-ant-test-not-a-real-key") == "Bearer sk-a•••"
    assert mask("sk-abcdefghij") == "sk-a•••"
    assert mask("hunter2pass") == MASK  # short and not key-shaped: nothing of it shown
    assert mask("0123456789abcdef0123") == "0123•••"


def test_masking_is_idempotent():
    text = ("Authorization: Bearer opaque0123456789 ?key=abcdefghijklmnop sk-ant-api03-abcdefghijkl "
            '{"x-api-key": "abcdefghijklmnopq"} https://u:pw0123456789@h')
    once = redact_text(text)
    assert redact_text(once) == once


def test_headers_are_masked_by_name():
    headers = {"Authorization": "Bearer anything", "x-api-key": "short", "content-type": "application/json"}
    assert redact_headers(headers) == {"Authorization": "Bearer •••", "x-api-key": MASK,
                                       "content-type": "application/json"}


def test_offsets_survive_characters_whose_lower_case_is_longer():
    text = "İİİ Authorization: Bearer opaque0123456789 İ x-api-key: abcdefghijkl"
    out = redact_text(text)
    assert "opaque0123456789" not in out and "abcdefghijkl" not in out
    assert out.startswith("İİİ Authorization: Bearer ") and out.endswith("x-api-key: •••")


def test_a_large_body_is_masked_in_one_pass():
    """A 1.5 MB body with one key at its end: the key is masked and nothing else changes. (How long
    the pass takes is a benchmark's question, not a unit test's.)"""
    messages = [{"role": "user", "content": f"Question {k}: what is the weather in city {k}?"}
                for k in range(20_000)]
    text = json.dumps({"model": "gpt-4o", "messages": messages, "api_key": "sk-proj-" + "A1b2" * 12},
                      indent=2)
    out = redact_text(text)
    assert "A1b2A1b2" not in out
    assert out.replace("sk-p•••", "") == text.replace("sk-proj-" + "A1b2" * 12, "")


NAMED = ['"api_key": "{}"', "Authorization: Bearer {}", "https://x.example/v1?key={}&x=1", "password={}"]


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(KEYS), form=st.sampled_from(["{}", *NAMED]),
       before=st.text(alphabet="ab -\n", max_size=150), after=st.text(alphabet="ab -\n", max_size=150),
       width=st.integers(8, 160), shorten=st.sampled_from([cut, quote, one_line, clip]))
def test_no_shortening_leaves_a_piece_of_a_key_the_mask_cannot_see(key, form, before, after, width, shorten):
    """Messages shorten what they quote, and masking runs on what is printed: a key cut in the middle
    lost its shape (`'sk-a•••…ASDFGHJKLzxcv'` printed thirteen of its characters; a JWT cut short
    printed almost whole). No cut keeps part of a credential, so none survives masking."""
    text = before + form.format(key) + after

    def leaked(shown: str) -> list[str]:
        return [key[i:i + 8] for i in range(4, len(key) - 7) if key[i:i + 8] in shown]

    assume(not leaked(redact_text(text)))  # (a key after a letter is a word's middle: never masked)
    shown = redact_text(shorten(text, width))
    assert not leaked(shown), (shown, leaked(shown))


@settings(max_examples=300, deadline=None)
@given(value=st.text(alphabet=st.sampled_from('ab\\"\n\t\u00e9\u2028/ '), min_size=16, max_size=24),
       name=st.sampled_from(["password", "api_key", "Authorization", "client_secret"]))
def test_a_masked_value_keeps_json_valid_whatever_it_escapes(value: str, name: str):
    """Found by the long fuzz run (seed 34, input 62972): a password whose fourth character was the
    first half of an escape (`\\n\\•••` once masked) made a canonical document tooldbg wrote unreadable.
    The head shown of a long value stops at its first backslash. And inside a JSON string, a value
    ending in an escaped quote (`\\\"`) was cut there, its inner JSON left broken: the value is now
    read one level down. JSON text stays JSON, once encoded and inside a JSON string."""
    once = json.dumps({name: value, "after": 1})
    twice = json.dumps({"arguments": once})
    for text, inner in ((once, False), (twice, True)):
        out = json.loads(redact_text(text))
        masked = json.loads(out["arguments"]) if inner else out
        assert masked["after"] == 1 and MASK in masked[name]
