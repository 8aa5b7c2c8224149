"""Masking of credentials: on screen and in every export unless the user asks otherwise.

`redact_text` is the one masking pass. Every output runs it once over what it prints, writes or
draws (a whole JSON document, a loss line, the text of a renderable: `render.clean`,
`render.clean_json`, `convert.Export.text`), so a secret is masked
wherever it sits: a header, a URL, a message, arguments valid or not, a tool result, a stream
fragment, an error body. It works on plain text and on JSON text alike (a secret after a `\\n`
escape, inside a JSON-encoded string, inside a repr), and keeps JSON valid: only the characters of
the secret are replaced, never a quote or a delimiter. Masking is idempotent.

What it masks:

* named credentials — a header or field called `Authorization`, `x-api-key`, `x-goog-api-key`,
  `api-key`, `api_key`, `client_secret`, `password`, … followed by `:` or `=` and a value, in a
  JSON object (`"x-api-key": "…"`), an HTTP header line, a query string or an env assignment;
* URL credentials — `?key=`, `&api_key=`, `access_token=`, signed-URL signatures (`X-Amz-Signature`,
  `sig`), and the password in `https://user:password@host`;
* bearer and basic tokens — `Bearer …` anywhere in text;
* key shapes — `sk-…` (OpenAI, Anthropic `sk-ant-…`, DeepSeek, OpenRouter), `AIza…` (Google),
  `AKIA…` / `ASIA…` (AWS), `gsk_…` (Groq), `xai-…`, `ghp_…` (GitHub), `hf_…`, `xox?-…` (Slack),
  `ya29.…` (Google OAuth) and JSON Web Tokens.

Masking runs on what is printed, so whatever shortens a value before it is printed keeps credentials
whole (`credential_spans`: `shorten.cut`, `fit` for a rewritten id).

A masked value keeps a short head when it is long (`sk-a•••`, `Bearer PLAN•••`) so a reader can
still tell which key was used; a short value is masked whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

MASK = "•••"

#: Header names whose value is a credential (compared lower-case).
SECRET_HEADERS = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key",
    "openai-api-key", "anthropic-api-key", "cookie", "set-cookie", "x-amz-security-token",
})

#: Field and header names that hold a credential, as they appear in JSON, headers, env and config.
_NAMES = (r"(?:proxy-authorization|authorization|x-goog-api-key|x-api-key|openai-api-key"
          r"|anthropic-api-key|api[-_]?key|x-amz-security-token|aws_secret_access_key|aws_session_token"
          r"|client_secret|access_token|refresh_token|id_token|secret_key|private_key|password|passwd"
          r"|set-cookie|cookie)")
#: Query parameters that carry a credential.
_PARAMS = (r"(?:key|api[-_]?key|access_token|token|auth|sig|signature|x-amz-signature"
           r"|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|client_secret"
           r"|password)")

#: Credentials found by a name, matched on the lower-cased text (a case-insensitive regex is ten
#: times slower on a large body), each as (the pattern, the literals one of which must be in the
#: text for it to match, the group masked, the group that must start a word).
_NAMED: tuple[tuple[re.Pattern[str], tuple[str, ...], tuple[str, ...], str | None], ...] = (
    # `"api_key": "…"` in JSON or a repr: the value between the quotes, escapes and all (`v`); in a
    # JSON string inside JSON, `\"api_key\": \"…\"`, the same one level down (`x`: an escape of
    # the inner text is `\\` and the escape after it, its closing quote the first `\"` after none);
    # `x-api-key: …`, `api_key=…`, `Authorization: Bearer …` in text: the value up to a space, a
    # quote, a backslash (a JSON escape), or the next parameter (`w`)
    (re.compile(r"(?P<n>" + _NAMES + r")(?:(?P<q>[\"'])\s*:\s*(?P=q)"
                r"(?P<v>(?:(?!(?P=q))(?:[^\\\n]|\\.))+)"
                r"|\\(?P<e>[\"'])\s*:\s*\\(?P=e)"
                r"(?P<x>(?:\\\\(?:\\.|[^\\\n])|\\(?!(?P=e))[^\\\n]|[^\\\n])+)"
                r"|\s*[:=]\s*(?P<w>(?:(?:bearer|basic)\s+)?[^\s\"'\\&,;<>\x1b]+))"),
     ("authorization", "api-key", "api_key", "apikey", "security-token", "secret_access_key",
      "session_token", "client_secret", "access_token", "refresh_token", "id_token", "secret_key",
      "private_key", "password", "passwd", "cookie"), ("v", "x", "w"), "n"),
    # `?key=…`, `&sig=…` in a URL
    (re.compile(r"[?&;]" + _PARAMS + r"=(?P<v>[^&#\s\"'\\<>\x1b]+)"), ("=",), ("v",), None),
    # the password of `scheme://user:password@host`
    (re.compile(r"://[^/\s:@\"'\\]+:(?P<v>[^/\s@\"'\\]+)(?=@)"), ("://",), ("v",), None),
    # `Bearer <token>` anywhere: a token has a digit (so "the bearer instrument" stays prose)
    (re.compile(r"(?P<n>bearer|basic)\s+(?P<v>(?=[a-z._~+/=-]*\d)[a-z0-9._~+/=-]{8,})"),
     ("bearer", "basic"), ("v",), "n"),
)

#: The shapes provider keys have (case matters: matched on the text itself).
_SHAPES = (r"(?P<v>sk-[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{12,}"
           r"|gsk_[A-Za-z0-9]{16,}|xai-[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}"
           r"|github_pat_[A-Za-z0-9_]{20,}|hf_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}"
           r"|ya29\.[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})")
#: What each of `_SHAPES` starts with: a text without any of them has no key's shape, and is not
#: scanned (the pattern is compiled where first used, for a text that may hold one).
_SHAPE_LITERALS = ("sk-", "AIza", "AKIA", "ASIA", "gsk_", "xai-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
                   "github_pat_", "hf_", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "ya29.", "eyJ")
#: An escape sequence ending right before a word (`\n`, `\x1b`, `\u200b`): JSON text and reprs
#: write a newline before a key as `\nsk-…`, and the key still starts a word. So does a terminal
#: colour code (`ESC[31m`, raw or escaped), common in tool output, and a URL's percent-escape
#: (`?trace=%22sk-…`, `%3Dsk-…`: RFC 3986 §2.1 writes a quote or `=` in a query so).
_ESCAPE = (r"(?i)(?:\\(?:[nrtbfv0]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})"
           r"|(?:\x1b|\\x1b|\\u001b|\\033|\\e)\[[0-9;?]*[A-Za-z]|%[0-9a-fA-F]{2})\Z")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _word_start(text: str, at: int) -> bool:
    """Does a word start at `at`: not after a letter or a digit, unless after an escape sequence?"""
    return (at == 0 or text[at - 1] not in _ALNUM
            or re.compile(_ESCAPE).search(text, max(0, at - 24), at) is not None)


def mask(value: str) -> str:
    """`Bearer sk-abc123…` → `Bearer sk-a•••`: the scheme stays, and the first four characters of a
    key shape or of a value of sixteen characters or more (too few to guess the rest from); a
    shorter value (a password) is masked whole. A value already masked is kept."""
    if MASK in value:
        return value
    scheme, sep, token = value.partition(" ") if value.lower().startswith(("bearer ", "basic ")) \
        else ("", "", value)
    token = token.lstrip()
    shown = token[:4] if len(token) >= 16 or (len(token) > 8 and re.compile(_SHAPES).fullmatch(token)) else ""
    # A head never ends inside an escape (`\\` `n` of JSON text): up to its first backslash only.
    shown = shown.partition("\\")[0]
    return f"{scheme}{sep}{shown}{MASK}"


def _replace(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(mask(text[start:end]))
        last = end
    out.append(text[last:])
    return "".join(out)


def _lower(text: str) -> str:
    """`text` lower-cased character by character (offsets unchanged)."""
    lower = text.lower()
    if len(lower) != len(text):  # a character whose lower case is longer (İ): keep it as it is
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return lower


def _matches(lower: str, pattern: re.Pattern[str], literals: tuple[str, ...],
             word: str | None) -> Iterator[re.Match[str]]:
    """A `_NAMED` pattern's matches in the lower-cased text (its name starting a word, if it must)."""
    if any(literal in lower for literal in literals):
        for match in pattern.finditer(lower):
            if word is None or _word_start(lower, match.start(word)):
                yield match


def _shapes(text: str) -> Iterator[re.Match[str]]:
    if not any(literal in text for literal in _SHAPE_LITERALS):
        return iter(())
    return (m for m in re.compile(_SHAPES).finditer(text) if _word_start(text, m.start()))


def _named(text: str) -> str:
    lower = _lower(text)
    for pattern, literals, values, word in _NAMED:
        spans = [next(match.span(v) for v in values if match.start(v) >= 0)
                 for match in _matches(lower, pattern, literals, word)]
        if spans:
            text = _replace(text, spans)
            lower = _lower(text)
    return text


def redact_text(text: str) -> str:
    """Mask every credential in `text` (plain text or JSON text); see the module's docstring."""
    text = _named(text)
    return _replace(text, [m.span("v") for m in _shapes(text)])


def credential_spans(text: str) -> list[tuple[int, int]]:
    """Where `redact_text` finds a credential in `text`: (start, end) of each whole match, the name
    with its value (`"api_key": "…"`, `?key=…`, `Bearer …`) or a key's shape. What shortens a text
    (`shorten.cut`) keeps out of them: a key cut in half loses its shape, and the masking pass,
    which runs on what is printed, would let its other half through."""
    lower = _lower(text)
    spans = [m.span() for pattern, literals, _, word in _NAMED
             for m in _matches(lower, pattern, literals, word)]
    return spans + [m.span() for m in _shapes(text)]


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: mask(v) if k.lower() in SECRET_HEADERS else v for k, v in headers.items()}


def redact_url(url: str) -> str:
    """Kept for callers of the old API: a URL is text like any other."""
    return redact_text(url)
