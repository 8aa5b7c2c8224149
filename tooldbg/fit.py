"""Making a string (a call id, a tool name) fit a target's limits, and saying which limit it breaks.

Writers make ids and tool names fit their target from the same rows the pre-flight judges with
(`tooldbg.targets`): the character class, required first character and length come from the `Limit`
patterns themselves (a small parser for the restricted regex forms the tables use), so there is no
second table to disagree with the first.

Uncertain limits (OpenAI Chat's 40-character id) are fitted too by default: a writer that makes ids
the provider may reject is worse than one that rewrites them and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Literal, TypeVar

from .secrets import credential_spans

_K = TypeVar("_K")


@dataclass(frozen=True, slots=True)
class Limit:
    """One test a string (an id, a tool name) must pass: a row of a target's table
    (`tooldbg.targets`), defined here with what fits a string to it.

    `test` is `empty` (the string must not be empty), `pattern` (`value`, a regex, must match the
    whole string) or `max_length` (`value`, a number of characters)."""

    test: Literal["empty", "pattern", "max_length"]
    error: str
    source: str
    value: str | int | None = None
    certain: bool = True


@dataclass(frozen=True, slots=True)
class Atom:
    """One piece of a parsed pattern: a character from `chars`, repeated `low` to `high` times
    (`high` None: unbounded)."""

    chars: frozenset[str]
    low: int
    high: int | None


@dataclass(frozen=True, slots=True)
class Shape:
    """What a string must look like, read off a tuple of limits: `first` (when set) is what its
    first character must be, `chars` what every other character must be (None: anything), and its
    length is `low` to `high` characters (`high` None: no maximum)."""

    chars: frozenset[str] | None = None
    first: frozenset[str] | None = None
    low: int = 0
    high: int | None = None

    @property
    def exact(self) -> bool:
        return self.high is not None and self.low == self.high


def parse_pattern(pattern: str) -> tuple[Atom, ...]:
    """A restricted regex — a sequence of character classes (`[a-zA-Z0-9_.:-]`, ranges, literal
    characters, `\\xHH` and `\\`-escaped punctuation) or literal characters, each optionally with a
    quantifier `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}` — as atoms. Anything else is a ValueError, so a
    table row using a form this cannot fit fails its test instead of being fitted wrongly."""
    atoms: list[Atom] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "[":
            chars, i = _parse_class(pattern, i + 1)
        elif pattern[i] == "\\":
            char, i = _parse_escape(pattern, i + 1)
            chars = frozenset(char)
        elif pattern[i] in "^$.()|?*+{}]":
            raise ValueError(f"pattern {pattern!r}: {pattern[i]!r} at {i} is not supported")
        else:
            chars, i = frozenset(pattern[i]), i + 1
        low, high, i = _parse_quantifier(pattern, i)
        atoms.append(Atom(chars, low, high))
    return tuple(atoms)


def _parse_escape(pattern: str, i: int) -> tuple[str, int]:
    if i >= len(pattern):
        raise ValueError(f"pattern {pattern!r}: a trailing backslash")
    if pattern[i] == "x":
        code = pattern[i + 1:i + 3]
        if len(code) != 2 or any(c not in "0123456789abcdefABCDEF" for c in code):
            raise ValueError(f"pattern {pattern!r}: a bad \\x escape at {i - 1}")
        return chr(int(code, 16)), i + 3
    if pattern[i].isalnum():  # \d, \w, \s…: classes this parser does not model
        raise ValueError(f"pattern {pattern!r}: \\{pattern[i]} is not supported")
    return pattern[i], i + 1


def _parse_class(pattern: str, i: int) -> tuple[frozenset[str], int]:
    """The class opened just before `i` → (its characters, the index after its `]`)."""
    if pattern[i:i + 1] == "^":
        raise ValueError(f"pattern {pattern!r}: negated classes are not supported")
    chars: set[str] = set()
    start = i
    while True:
        if i >= len(pattern):
            raise ValueError(f"pattern {pattern!r}: an unclosed class")
        if pattern[i] == "]" and i > start:
            return frozenset(chars), i + 1
        if pattern[i] == "\\":
            low, i = _parse_escape(pattern, i + 1)
        else:
            low, i = pattern[i], i + 1
        if pattern[i:i + 1] == "-" and i + 1 < len(pattern) and pattern[i + 1] != "]":
            if pattern[i + 1] == "\\":
                high, i = _parse_escape(pattern, i + 2)
            else:
                high, i = pattern[i + 1], i + 2
            if ord(high) < ord(low):
                raise ValueError(f"pattern {pattern!r}: a bad range {low}-{high}")
            chars.update(chr(c) for c in range(ord(low), ord(high) + 1))
        else:
            chars.add(low)


def _parse_quantifier(pattern: str, i: int) -> tuple[int, int | None, int]:
    """The quantifier at `i` (none: exactly once) → (low, high, the index after it)."""
    q = pattern[i:i + 1]
    if q == "?":
        return 0, 1, i + 1
    if q == "*":
        return 0, None, i + 1
    if q == "+":
        return 1, None, i + 1
    if q != "{":
        return 1, 1, i
    end = pattern.find("}", i)
    body = pattern[i + 1:end] if end > 0 else ""
    low_text, comma, high_text = body.partition(",")
    if not low_text.isdigit() or (high_text and not high_text.isdigit()):
        raise ValueError(f"pattern {pattern!r}: a bad quantifier at {i}")
    low = int(low_text)
    high = (int(high_text) if high_text else None) if comma else low
    if high is not None and high < low:
        raise ValueError(f"pattern {pattern!r}: a bad quantifier at {i}")
    return low, high, end + 1


def _pattern_shape(pattern: str) -> Shape:
    """`[C]q` or `[F][C]q` (F exactly once): the two forms a string can be fitted to."""
    atoms = parse_pattern(pattern)
    if len(atoms) == 1:
        (body,) = atoms
        return Shape(chars=body.chars, low=body.low, high=body.high)
    if len(atoms) == 2 and (atoms[0].low, atoms[0].high) == (1, 1):
        head, body = atoms
        return Shape(chars=body.chars, first=head.chars, low=1 + body.low,
                     high=None if body.high is None else 1 + body.high)
    raise ValueError(f"pattern {pattern!r}: only [C]q or [F][C]q can be fitted")


def active(limits: tuple[Limit, ...], *, uncertain: bool = True) -> tuple[Limit, ...]:
    """The limits a writer fits to: all of them, or only the certain ones."""
    return limits if uncertain else tuple(limit for limit in limits if limit.certain)


def shape(limits: tuple[Limit, ...]) -> Shape:
    """Every limit of the tuple in one shape (patterns intersected, the shortest maximum)."""
    result = Shape()
    for limit in limits:
        if limit.test == "empty":
            found = Shape(low=1)
        elif limit.test == "max_length":
            found = Shape(high=int(limit.value or 0))
        else:
            found = _pattern_shape(str(limit.value))
        result = _meet(result, found)
    return result


def _meet(a: Shape, b: Shape) -> Shape:
    def both(x: frozenset[str] | None, y: frozenset[str] | None) -> frozenset[str] | None:
        return y if x is None else x if y is None else x & y

    chars = both(a.chars, b.chars)
    # What the first character may be, under each shape: its `first`, else any of its characters.
    first = both(a.first if a.first is not None else a.chars, b.first if b.first is not None else b.chars)
    highs = [h for h in (a.high, b.high) if h is not None]
    return Shape(chars=chars, first=None if first == chars else first, low=max(a.low, b.low),
                 high=min(highs) if highs else None)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A limit's pattern, compiled once (a writer tests every id and name it writes)."""
    return re.compile(pattern)


def broken(value: str, limits: tuple[Limit, ...], *, uncertain: bool = True) -> Limit | None:
    """The first limit `value` breaks, in table order — the pre-flight's judgement
    (`checks.targeting.failure`), except that an empty string is also tested against the patterns
    (the pre-flight reports only the `empty` row for it; a writer must not emit it either way)."""
    for limit in active(limits, uncertain=uncertain):
        if limit.test == "empty":
            bad = value == ""
        elif limit.test == "pattern":
            bad = _compiled(str(limit.value)).fullmatch(value) is None
        else:
            bad = len(value) > int(limit.value or 0)
        if bad:
            return limit
    return None


def passes(value: str, limits: tuple[Limit, ...], *, uncertain: bool = True) -> bool:
    return broken(value, limits, uncertain=uncertain) is None


def fit(value: str, limits: tuple[Limit, ...], used: set[str], *, fallback: str = "x",
        uncertain: bool = True) -> str | None:
    """`value` made to pass `limits` and not be in `used`; the result is added to `used`.

    Unchanged when it already passes and is unused. Else: characters outside the pattern's class
    become `_` where `_` is allowed and are dropped otherwise; a required first character is supplied
    (`_` when allowed, else the first letter the class allows); the string is cut to the maximum
    length (`fallback`, fitted the same way, stands in for a string left empty); an exact-length
    pattern (Mistral's `[a-zA-Z0-9]{9}`) is met from a hash of the original, so the same original
    always maps to the same new string (a call and its result agree). A string already in `used` gets
    a numbered suffix (`_2`, `_3`…, within the maximum length), or another hash for exact lengths.
    The result is checked against the limits: None when it cannot be made to fit."""
    limits = active(limits, uncertain=uncertain)
    if value not in used and passes(value, limits):
        used.add(value)
        return value
    try:
        form = shape(limits)
    except ValueError:
        return None
    if form.high is not None and form.low > form.high:
        return None
    base = _reshape(value, form, fallback)
    candidate: str | None = base
    n = 1
    while candidate is not None and (candidate in used or not passes(candidate, limits)):
        n += 1
        candidate = _variant(value, base, form, n) if n <= _TRIES else None
    if candidate is not None:
        used.add(candidate)
    return candidate


_TRIES = 1000


def _reshape(value: str, form: Shape, fallback: str) -> str:
    if form.exact:
        return _hashed(value, form, 0)
    text = _clean(_unkeyed(value, form), form) or _clean(fallback, form)
    if form.high is not None:
        text = text[:form.high]
    if len(text) < form.low:
        text += _hashed(value, form, 0, form.low - len(text), body=bool(text))
    return text


def _unkeyed(value: str, form: Shape) -> str:
    """`value` with each credential in it (`secrets.credential_spans`: a key used as a call id) spelled
    as a hash of it: the string is rewritten anyway, and a key cut to the maximum length or with its
    separators replaced has lost the shape the masking pass knows it by, so it would print as is."""
    spans = sorted(credential_spans(value))
    if not spans:
        return value
    out, last = [], 0
    for start, end in spans:
        start = max(start, last)
        if start < end:
            out += [value[last:start], _hashed(value[start:end], form, 0, end - start, body=True)]
            last = end
    return "".join(out) + value[last:]


def _clean(value: str, form: Shape) -> str:
    """Characters outside the class replaced (or dropped), then the first character supplied."""
    chars = form.chars
    if chars is not None:
        sub = "_" if "_" in chars else ""
        value = "".join(c if c in chars else sub for c in value)
    if form.first is not None and value and value[0] not in form.first:
        lead = "_" if "_" in form.first else min(form.first & _ALNUM or form.first, default="")
        value = lead + value
    return value


_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _alphabet(chars: frozenset[str] | None) -> str:
    """The characters a hash is spelled in: the class's letters and digits (all of it when it has
    none), sorted so the spelling is stable."""
    pool = _ALNUM if chars is None else (chars & _ALNUM or chars)
    return "".join(sorted(pool))


def _hashed(value: str, form: Shape, salt: int, length: int | None = None, *, body: bool = False) -> str:
    """`length` (default: the exact length) characters from a hash of `value` (and `salt`), spelled
    in the class's alphabet, the first from `first` unless `body`."""
    length = form.low if length is None else length
    if length <= 0:
        return ""
    import hashlib  # here: only an id or name made to fit needs it, and most logs' already fit

    seed = value if salt == 0 else f"{value}\x00{salt}"
    number = int.from_bytes(hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest(), "big")
    out = []
    for i in range(length):
        alphabet = _alphabet(form.first if i == 0 and not body and form.first is not None else form.chars)
        if not alphabet:
            return ""
        number, digit = divmod(number, len(alphabet))
        out.append(alphabet[digit])
    return "".join(out)


def _variant(value: str, base: str, form: Shape, n: int) -> str | None:
    """The `n`-th try (n ≥ 2) at a string for `value` when `base`, its fitted form, is taken:
    another hash for an exact length, else `base` with a suffix `_n` (cut to keep within the
    maximum length; digits, or hash characters when the class has no digits)."""
    if form.exact:
        return _hashed(value, form, n)
    chars = form.chars
    digits = str(n) if chars is None or set(str(n)) <= chars else _hashed(value, form, n, 4, body=True)
    suffix = ("_" if chars is None or "_" in chars else "") + digits
    room = len(base) if form.high is None else min(len(base), form.high - len(suffix))
    if room < (1 if form.first is not None else 0):
        return None
    return base[:room] + suffix


def describe(limits: tuple[Limit, ...], *, uncertain: bool = True) -> str:
    """The limits in words, for a loss: `letters, digits, - and _, 1 to 64 characters`."""
    try:
        form = shape(active(limits, uncertain=uncertain))
    except ValueError:
        return ", ".join(f"matching {limit.value}" for limit in limits if limit.test == "pattern")
    words = []
    if form.first is not None:
        words.append(f"starting with {_spell(form.first, ' or ', one=True)}")
    if form.chars is not None:
        words.append(_spell(form.chars, " and "))
    if form.exact:
        words.append(f"exactly {form.low} characters")
    elif form.high is not None:
        words.append(f"{max(form.low, 1)} to {form.high} characters" if form.low else
                     f"up to {form.high} characters")
    elif form.low:
        words.append("not empty")
    return ", ".join(words)


_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")


def _spell(chars: frozenset[str], joiner: str, *, one: bool = False) -> str:
    names = []
    rest = set(chars)
    for name, group in (("a letter" if one else "letters", _LETTERS),
                        ("a digit" if one else "digits", _DIGITS)):
        if group <= rest:
            names.append(name)
            rest -= group
    names.extend(sorted(rest))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + joiner + names[-1]


def all_pass(values: set[str], limits: tuple[Limit, ...]) -> bool:
    """Every value `passes` the limits, found a limit at a time over all of them (in C)."""
    for limit in limits:
        if limit.test == "empty":
            ok = "" not in values
        elif limit.test == "pattern":
            ok = all(map(_compiled(str(limit.value)).fullmatch, values))
        else:
            ok = max(map(len, values), default=0) <= int(limit.value or 0)
        if not ok:
            return False
    return True


def fit_each(values: Mapping[_K, str], limits: tuple[Limit, ...], *, fallback: str = "x",
             used: set[str] | None = None) -> dict[_K, str | None]:
    """Every value fitted, in order, keeping each one that already fits the first time it occurs —
    those are set aside before any other is rewritten, so a rewritten string never takes the place of
    an original that needed no change. A value repeated under another key is rewritten (two calls
    with one id get two). `used` (default: a new set) collects what was written."""
    used = set() if used is None else used
    distinct = set(values.values())
    if len(distinct) == len(values) and used.isdisjoint(distinct) and all_pass(distinct, limits):
        used |= distinct  # (the usual list: every value distinct and fitting already)
        return dict(values)
    out: dict[_K, str | None] = {}
    for key, value in values.items():
        if value not in used and passes(value, limits):
            used.add(value)
            out[key] = value
    for key, value in values.items():
        if key not in out:
            out[key] = fit(value, limits, used, fallback=fallback)
    return {key: out[key] for key in values}
