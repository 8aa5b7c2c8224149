"""The only place tooldbg parses or prints JSON.

orjson is strict (no NaN, no lone surrogates, depth ≤ 1024) and reads integers wider than 64 bits
as floats; logs break all of these. A lone surrogate escape is JSON all the same, and is read
(`_with_lone_surrogates`); every other parse failure becomes a `FormatError` with a human
location, and printing degrades to a writer of its own instead of raising.

Depth is decided here, once. orjson parses values nested up to 1,024 levels, but prints only 254,
and Python code that walks a value (equality, copies, the readers, the checks, the writers) recurses
on it. So a parsed value may be nested at most `MAX_DEPTH` levels: deeper, `loads` raises
`TooDeep`, a FormatError at the JSON pointer of the first value past the limit. Everything tooldbg
holds is then at most `MAX_DEPTH` deep (plus the few levels of its own documents around it), which
orjson prints and Python walks without coming near either limit. Containers that hold several
records parse the file with `check_depth=False` and call `ensure_depth` per record, so one deep
record is reported and skipped, not the file. Printing (`dumps`) never recurses at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import orjson

from .errors import FormatError
from .source import escape_pointer
from .surrogates import LONE_SURROGATE, replaced, without_lone_surrogates

#: The deepest nesting tooldbg reads (a value in an object in a list… counts one level each).
MAX_DEPTH = 200
#: The levels tooldbg's own documents add around what it read (a canonical document holds a body's
#: value under conversations/turns/parts/…): a canonical document may be this much deeper.
DOCUMENT_LEVELS = 16


class TooDeep(FormatError):
    """A value nested deeper than `MAX_DEPTH`: valid JSON that tooldbg does not read (not a syntax
    error, so a container does not retry the text as JSON Lines)."""


def loads(data: bytes | memoryview | str, *, check_depth: bool = True) -> Any:
    """Parse JSON text; raise FormatError naming line and column on failure, TooDeep at the pointer
    of a value nested deeper than MAX_DEPTH (unless `check_depth` is False: the caller checks
    each record itself)."""
    if not check_depth:
        return _parse(data)
    value, within = loads_within(data)
    if not within and may_nest(data):
        ensure_depth(value)
    return value


#: The length from which a text's depth is tested by the parser (`loads_within`) rather than by
#: printing its value (`ensure_depth`): the lists it wraps the text in cost ~40 µs, and printing
#: costs ~0.3 µs a kilobyte (a 915 kB request body: 265 µs, as much as reading a third of it).
WRAPPED_FROM = 1 << 17
#: The length from which a text is no longer copied to be wrapped: a document this long is a
#: container of records (a recording, a HAR read whole), whose records are tested one by one, and
#: a copy of it would add its size to the peak memory of reading it.
WRAPPED_TO = 1 << 24


def loads_within(data: bytes | memoryview | str) -> tuple[Any, bool]:
    """`loads` without the depth test, and True when the value is known to nest at most MAX_DEPTH
    levels: a text of WRAPPED_FROM bytes or more, and less than WRAPPED_TO, is tested as it is
    parsed (False then means it may nest deeper, or was not tested: `ensure_depth` tells).
    orjson refuses a text nested past its own limit (`_parsed_levels`), so the text wrapped in the
    lists that limit leaves above MAX_DEPTH parses only when it is no deeper: the test costs the
    wrapping lists and one copy of the text (as much memory as printing it would take), not a print
    of every string of the value."""
    if WRAPPED_FROM <= len(data) < WRAPPED_TO and not isinstance(data, str) \
            and (spare := _parsed_levels() - MAX_DEPTH) > 0:  # (the short texts, by the thousand, first)
        try:
            value = orjson.loads(b"".join((b"[" * spare, data, b"]" * spare)))
        except orjson.JSONDecodeError:  # too deep, or not JSON: the parse below says which, where
            pass
        else:
            for _ in range(spare):
                value = value[0]
            return value, True
    return _parse(data), False


#: A value's JSON bytes as the depth test printed them (`checked_lists`): `(text, spare)`, the
#: value's bytes being `text[spare:len(text) - spare]` — inside the `spare` lists it was printed in,
#: read there rather than copied out (copying a log's message lists out was a megabyte of copying
#: per megabyte of JSON Lines, 0.7 M instructions of checking a 1 MB capture).
Printed = tuple[bytes, int]


def inside(printed: Printed) -> memoryview:
    """A printed value's own bytes, where they were printed (a view, not a copy)."""
    text, spare = printed
    return memoryview(text)[spare:len(text) - spare]


def loads_listed(data: bytes | memoryview | str) -> tuple[Any, dict[int, Printed]]:
    """`loads`, and the JSON bytes its depth test printed of the lists in the value's first levels
    (`checked_lists`)."""
    value = _parse(data)
    return value, checked_lists(value) if may_nest(data) else {}


def _parse(data: bytes | memoryview | str) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        message = getattr(err, "msg", "")
        if message == _PARSER_TOO_DEEP:  # past orjson's 1,024 levels: past ours too
            raise _too_deep(MAX_DEPTH, deep_pointer(data, MAX_DEPTH)) from None
        if message.endswith(LONE_SURROGATE):
            try:
                return _with_lone_surrogates(data)
            except (ValueError, RecursionError):  # (another fault too: orjson's error is the one said)
                pass
        raise FormatError(_describe(err)) from None


def _with_lone_surrogates(data: bytes | memoryview | str) -> Any:
    """A text orjson refuses for a lone surrogate escape (`"\\ud83d"`: a UTF-16 string cut between
    the two halves of a pair, which JavaScript's `JSON.stringify` and Python's `json` write so) is
    JSON all the same (RFC 8259 §8.2): read by the standard library — still refusing `NaN` and
    `Infinity`, as orjson does — and each lone surrogate made U+FFFD, as `dumps` writes it. A
    record of a log is not lost for a cut emoji, nor is the whole file when it is one document."""
    text = data if isinstance(data, str) else bytes(data).decode("utf-8")
    return without_lone_surrogates(json.loads(text, parse_constant=_no_constant))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def may_nest(data: bytes | memoryview | str) -> bool:
    """Whether a text may nest past MAX_DEPTH: not when it is at most MAX_DEPTH characters long (too
    few brackets: most stream events, parsed by the thousand, are that short), nor when a short
    text has too few brackets (`_may_be_deep`)."""
    return len(data) > MAX_DEPTH and (len(data) > _COUNTED or _may_be_deep(data))


#: What orjson says of a value nested past the 1,024 levels it parses.
_PARSER_TOO_DEEP = "depth limit exceeded"
#: A JSON string skipped whole, escapes included (an escape: a backslash and any byte). A string never
#: closed runs to the end of the data, where it stops a search: a search that failed there began
#: again at the next bracket, and again from the next quote — in a HAR whose quotes went out of step,
#: every body's `\\"` was an escape inside one long string, and the search went to the end and back
#: once per bracket (15 s for an 86 kB HAR). Compiled with `re.DOTALL`.
STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'
#: A JSON string, or a character that opens, closes or separates: what `deep_pointer` walks (a
#: bracket inside a string is the string's).
_TOKENS = re.compile(STRING + rb"|[][{},:]", re.DOTALL)


def deep_pointer(data: bytes | memoryview | str, limit: int) -> str:
    """The JSON pointer of the first container nested past `limit` levels, found in the text itself:
    the pointer `ensure_depth` gives, for a text too deep for orjson to parse. Without it the same
    record would be "too deep" at a pointer when it is 1,000 levels deep and an unnamed syntax
    error at 1,100, and a container's records would read differently with the file's layout."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    for char, _, slots in walk(raw):
        if char in b"[{" and len(slots) == limit:
            return "".join("/" + escape_pointer("" if slot is None else slot) for slot in slots)
    return ""


Slot = str | int | None


def walk(data: bytes | memoryview, pos: int = 0) -> Iterator[tuple[bytes, re.Match[bytes], list[Slot]]]:
    """The brackets and commas of a JSON text in order, nothing parsed (strings are skipped whole),
    each with where it is: one slot per container open around it — an object's current key (None
    before its first colon), an array's current index. An opening bracket comes before its own
    slot is added (the slots are the tokens of its pointer); a closing one before its slot goes.
    The list is the walker's own, changed as it goes on."""
    slots: list[Slot] = []
    key = b'""'
    for match in _TOKENS.finditer(data, pos):
        token = match.group()
        char = token[:1]
        if char == b'"':
            key = token
            continue
        if char != b":":
            yield char, match, slots
        if char in b"[{":
            slots.append(0 if char == b"[" else None)
        elif not slots:
            continue
        elif char in b"]}":
            slots.pop()
        elif char == b":":
            slots[-1] = _key_text(key)
        else:  # a comma
            slot = slots[-1]
            slots[-1] = slot + 1 if isinstance(slot, int) else None


def _key_text(token: bytes) -> str:
    try:
        return str(json.loads(token))
    except ValueError:
        return token[1:-1].decode("utf-8", "replace")


def _too_deep(limit: int, pointer: str) -> TooDeep:
    return TooDeep(f"JSON nested deeper than {limit} levels, which tooldbg does not read", pointer)


#: The longest text whose brackets are counted before its value is walked for depth (`loads`). A
#: count costs about what the walk does on a long text, and spares it only when the text holds
#: fewer than `MAX_DEPTH` brackets: the many small stream events, not the bodies of an agent loop.
_COUNTED = 4096


def _may_be_deep(data: bytes | memoryview | str) -> bool:
    """False when the text has too few brackets to nest past the limit (at the speed of a byte
    count: quicker than a walk on a short text)."""
    if isinstance(data, str):
        return data.count("{") + data.count("[") > MAX_DEPTH
    raw = data.tobytes() if isinstance(data, memoryview) else data  # (containers check views apart)
    return raw.count(b"{") + raw.count(b"[") > MAX_DEPTH


def ensure_depth(value: Any, pointer: str = "", limit: int = MAX_DEPTH) -> None:
    """Raise TooDeep, at the pointer below `pointer` of the first value nested past `limit`
    (`value` itself is level 1), when there is one. Iterative; linear in the number of containers.
    The value is printed to tell (`_within`), and walked only when it does not print."""
    if not isinstance(value, _CONTAINERS):
        if limit < 1:
            raise _too_deep(limit, pointer)
        return
    if _within(value, limit):
        return
    level, depth = [value], 1
    containers = _CONTAINERS  # (a local: the test below runs for every value of every record)
    while level:  # one level of containers at a time
        if depth > limit:
            raise _too_deep(limit, pointer + _path_to_depth(value, limit + 1))
        level = [child for node in level for child in (node.values() if isinstance(node, dict) else node)
                 if isinstance(child, containers)]
        depth += 1


#: The JSON containers, as a tuple: `isinstance` with a tuple is a good third faster than with the
#: union `dict | list`.
_CONTAINERS = (dict, list)


def _within(value: Any, limit: int) -> bool:
    """True when `value` is nested at most `limit` levels (`_printed`)."""
    return _printed(value, limit) is not None


def _printed(value: Any, limit: int) -> bytes | None:
    """`value` printed wrapped in `_printed_levels() - limit` lists when it is nested at most `limit`
    levels, found out at the speed of printing it: orjson refuses to print containers nested past
    its own limit (`_printed_levels`), so `value` wrapped in as many lists as that limit leaves
    above `limit` prints only when it is no deeper. None also when orjson cannot print it for
    another reason: then `ensure_depth` walks it (the walk, in Python, costs twice what orjson
    takes to print a body and visits the same values)."""
    levels = _printed_levels()
    spare = levels - limit
    if not 0 < spare <= levels:  # (no list to wrap it in, or past the ones made: `limit` < 0)
        return _dumped(value) if spare == 0 else None
    nest = _NESTS.pop() if _NESTS else _nest()
    try:
        nest[0].append(value)
        return _dumped(nest[spare - 1])
    finally:
        nest[0].clear()
        _NESTS.append(nest)


def _dumped(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value)  # (no OPT_NON_STR_KEYS: a third slower, and parsed JSON keys are strings)
    except (TypeError, orjson.JSONEncodeError):
        return None


#: Lists nested as deep as orjson prints, made once (`_nest`) and reused by `_printed`: making the
#: fifty-odd lists it wraps a value in cost as much, per call, as printing a few kilobytes. One
#: is taken from here while in use, so each thread wraps in lists of its own.
_NESTS: list[list[list[Any]]] = []


def _nest() -> list[list[Any]]:
    """Lists nested `_printed_levels()` deep, innermost first, the innermost empty: wrapping a value
    in n lists is appending it to the first and printing the n-th."""
    nest: list[list[Any]] = [[]]
    while len(nest) < _printed_levels():
        nest.append([nest[-1]])
    return nest


def checked_lists(value: Any, levels: int = 3) -> dict[int, Printed]:
    """`ensure_depth(value)`, printing apart each list reached through objects alone in the first
    `levels` levels (a JSON Lines record's `request.body.messages`), and the JSON bytes printed of
    each (`Printed`), by the list's `id` — what `dumps` gives of it, for a caller that would print
    it again (`history` compares a request's message list with the last one's as bytes: one
    printing where there were two). Raises TooDeep as `ensure_depth` does; a list orjson could not
    print is left out."""
    printed: dict[int, Printed] = {}
    nodes, level = [value], 1
    while nodes:  # one level at a time: its objects opened (down to `levels`), the rest printed
        limit = MAX_DEPTH - level + 1  # (the levels above it count)
        opened = []
        for node in nodes:
            if level <= levels and type(node) is dict:
                opened.append(node)
                continue
            text = _printed(node, limit)
            if text is None:
                ensure_depth(value)  # the walk: TooDeep at its pointer, or nothing too deep after all
                return {}
            if type(node) is list:
                printed[id(node)] = (text, _printed_levels() - limit)
        nodes = [child for node in opened for child in node.values() if isinstance(child, _CONTAINERS)]
        level += 1
    return printed


_PRINTED_LEVELS: list[int] = []


#: How many nested containers orjson 3.x prints (its `RECURSION_LIMIT`, see ijl/orjson
#: `test/test_recursion.py`): tried first, so that finding the limit costs two tries, not a search
#: (a search of twelve deep tries was 2 ms of every process's first depth check).
_ORJSON_3_LEVELS = 254


def _printed_levels() -> int:
    """How many nested containers orjson prints (`_limit`)."""
    if not _PRINTED_LEVELS:
        _PRINTED_LEVELS.append(_limit(_prints, _ORJSON_3_LEVELS))
    return _PRINTED_LEVELS[0]


_PARSED_LEVELS: list[int] = []
#: How many nested containers orjson 3.x parses (its parser's "depth limit exceeded" past 1,024).
_ORJSON_3_PARSED = 1024


def _parsed_levels() -> int:
    """How many nested containers orjson parses (`_limit`)."""
    if not _PARSED_LEVELS:
        _PARSED_LEVELS.append(_limit(_parses, _ORJSON_3_PARSED))
    return _PARSED_LEVELS[0]


#: More levels than any limit orjson has had.
_TRIED_LEVELS = 4096


def _limit(works: Callable[[int], bool], known: int) -> int:
    """The most nested lists orjson handles, as `works` tries it, so that another release's limit is
    the one used: `known` (orjson 3's) in two tries, else a binary search below `_TRIED_LEVELS`; 0
    when it handles that many (no limit to test depth with: the depth is then walked)."""
    if works(known) and not works(known + 1):
        return known
    if works(_TRIED_LEVELS):
        return 0
    low, high = 0, _TRIED_LEVELS  # `works(low)`; not `works(high)`
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if works(middle) else (low, middle)
    return low


def _parses(levels: int) -> bool:
    """Whether orjson parses `levels` nested lists."""
    try:
        orjson.loads("[" * levels + "]" * levels)
    except orjson.JSONDecodeError:
        return False
    return True


def _prints(levels: int) -> bool:
    """Whether orjson prints `levels` nested lists."""
    nested: list[Any] = []
    for _ in range(levels - 1):
        nested = [nested]
    try:
        orjson.dumps(nested)
    except orjson.JSONEncodeError:
        return False
    return True


def _path_to_depth(value: Any, depth: int) -> str:
    """The JSON pointer of the first container found at `depth` (one exists)."""
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        node, level, path = stack.pop()
        if level == depth:
            return path
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in reversed(list(items)):
            if isinstance(child, dict | list):
                stack.append((child, level + 1, f"{path}/{escape_pointer(key)}"))
    return ""


def _describe(err: orjson.JSONDecodeError) -> str:
    msg = err.msg if hasattr(err, "msg") else str(err)
    return f"invalid JSON at line {err.lineno} column {err.colno}: {msg}"


def dumps(value: Any, *, indent: bool = False, sort_keys: bool = False) -> bytes:
    """Serialize to UTF-8 JSON bytes; never raises. What orjson refuses (integers wider than 64
    bits, lone surrogates, values nested past its 254 levels, objects that are not JSON) is written
    by `_dumps_any`, which walks without recursion: big integers exactly, a lone surrogate as U+FFFD,
    any other object as its type name."""
    option = orjson.OPT_NON_STR_KEYS
    if indent:
        option |= orjson.OPT_INDENT_2
    if sort_keys:
        option |= orjson.OPT_SORT_KEYS
    try:
        return orjson.dumps(value, option=option)
    except (TypeError, orjson.JSONEncodeError):
        return replaced(_dumps_any(value, indent=indent, sort_keys=sort_keys)).encode()


def _dumps_any(value: Any, *, indent: bool, sort_keys: bool) -> str:
    """JSON text of any value, laid out as orjson does (compact, or a two-space indent), written
    from an explicit stack: no depth is too deep."""
    out: list[str] = []
    # ("v", value, level) is a value to write at nesting `level`; ("t", text, 0) literal text.
    stack: list[tuple[str, Any, int]] = [("v", value, 0)]
    while stack:
        kind, item, level = stack.pop()
        if kind == "t":
            out.append(item)
            continue
        newline = "\n" + "  " * (level + 1) if indent else ""
        if isinstance(item, Mapping) and item:
            entries = [(_key(k), v) for k, v in item.items()]
            if sort_keys:
                entries.sort(key=lambda kv: kv[0])
            out.append("{")
            stack.append(("t", ("\n" + "  " * level if indent else "") + "}", 0))
            for i, (key, child) in reversed(list(enumerate(entries))):
                stack.append(("v", child, level + 1))
                colon = ": " if indent else ":"
                stack.append(("t", ("," if i else "") + newline + json.dumps(key, ensure_ascii=False)
                              + colon, 0))
        elif isinstance(item, list | tuple) and item:
            out.append("[")
            stack.append(("t", ("\n" + "  " * level if indent else "") + "]", 0))
            for i, child in reversed(list(enumerate(item))):
                stack.append(("v", child, level + 1))
                stack.append(("t", ("," if i else "") + newline, 0))
        elif isinstance(item, Mapping):
            out.append("{}")
        elif isinstance(item, list | tuple):
            out.append("[]")
        else:
            out.append(_scalar(item))
    return "".join(out)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    return _scalar(key).strip('"') if key is None or isinstance(key, bool | int | float) else str(key)


def _scalar(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        if value.bit_length() > 14_000:  # past Python's 4,300-digit limit for int → str
            return json.dumps(f"<an integer of {value.bit_length()} bits>")
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value) if value == value and value not in (float("inf"), float("-inf")) \
            else "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(f"<{type(value).__name__}>")


def dumps_str(value: Any, **kwargs: bool) -> str:
    """`dumps` as text."""
    return dumps(value, **kwargs).decode()


def try_loads(text: str) -> tuple[bool, Any]:
    """Parse `text` if it is JSON: (True, value) or (False, None). Used for tool arguments (a value
    nested past MAX_DEPTH is not read: False)."""
    try:  # (the usual arguments are too short to nest past the limit: no depth test)
        return True, _parse(text) if len(text) <= MAX_DEPTH else loads(text)
    except FormatError:
        return False, None


def count_values(text: str) -> int:
    """How many JSON values `text` holds back to back (`{"a":1}{"b":2}` → 2); 0 when it is not a
    run of JSON values at all. orjson parses one document only, so this walks with the standard
    library's `raw_decode`."""
    decoder, pos, count = json.JSONDecoder(), 0, 0
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos == len(text):
            break
        try:
            _, pos = decoder.raw_decode(text, pos)
        # The standard library's parser recurses, and refuses integers of more than 4,300 digits.
        except (ValueError, RecursionError):
            return 0
        count += 1
    return count


def resolve(value: Any, pointer: str) -> Any:
    """The value at a JSON pointer (RFC 6901); None when the path does not exist."""
    if not pointer:
        return value
    tokens = pointer[1:] if pointer.startswith("/") else pointer  # (one slash: `//a` is `a` in `""`)
    return descend(value, [token.replace("~1", "/").replace("~0", "~") for token in tokens.split("/")])


def descend(value: Any, tokens: Iterable[str | int]) -> Any:
    """The value below `value` at pointer tokens, unescaped (`resolve`, `Source.tokens`); None when
    the path does not exist."""
    for token in tokens:
        if isinstance(value, dict):
            value = value.get(token if type(token) is str else str(token))
        elif not isinstance(value, list):
            return None
        elif type(token) is int:  # (an index as a source holds it: not printed to be read back)
            if not 0 <= token < len(value):
                return None
            value = value[token]
        else:
            text = token if isinstance(token, str) else str(token)
            if not (text.isdigit() and int(text) < len(value)):
                return None
            value = value[int(text)]
    return value
