"""A HAR reads the same however it is laid out: the samples' and the corpus's HAR files written
again on one line, indented with spaces or tabs, with CRLF line ends, with `entries` first, last or
anywhere among the other members of `log` (and pages after it) give the findings and the canonical
document a whole-file parse gives, and their entries are found in the bytes, one at a time, not
read as one document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paths import SAMPLES, corpus_files, corpus_name
from tests.strategies import json_scalars, json_values
from tooldbg.checks import run_checks
from tooldbg.load import Loaded, load_bytes
from tooldbg.model import document
from tooldbg.records import containers
from tooldbg.records.entries import split_har, without_texts

FILES = sorted(SAMPLES.rglob("*.har")) + corpus_files((".har",))


def name(path: Path) -> str:
    return path.relative_to(SAMPLES).as_posix() if path.is_relative_to(SAMPLES) else corpus_name(path)


@st.composite
def layouts(draw: st.DrawFn, har: dict[str, Any]) -> bytes:
    """`har` written again: its `log` members in any order (a `pages` list added after the
    entries at times), any indentation or none, compact or spaced separators, LF or CRLF."""
    log = dict(har["log"])
    if draw(st.booleans()):
        log["pages"] = [{"startedDateTime": "2026-01-05T11:00:00.000Z", "id": "page_1",
                         "title": "[entries] {\"startedDateTime\": 1}", "pageTimings": {}}]
    keys = draw(st.permutations(list(log)))
    indent = draw(st.sampled_from([None, 0, 1, 2, 4, "\t"]))
    separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]))
    text = json.dumps({"log": {k: log[k] for k in keys}}, indent=indent, separators=separators,
                      ensure_ascii=draw(st.booleans()))
    return text.replace("\n", "\r\n" if draw(st.booleans()) else "\n").encode()


def whole(path: str, data: bytes) -> Loaded:
    """The file read as one document (no entry found in its bytes)."""
    with mock.patch.object(containers, "split_har", lambda data, skip: None):
        return load_bytes(path, data)


def outcome(loaded: Loaded) -> tuple[Any, ...]:
    findings = [f.to_dict() for f in run_checks(loaded)]
    return (document(loaded.conversations), findings, [str(e) for e in loaded.errors], loaded.container)


@pytest.mark.parametrize("path", FILES, ids=name)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_har_laid_out_any_way_reads_as_the_whole_file_does(path: Path, data: st.DataObject) -> None:
    har = json.loads(path.read_bytes())
    laid_out = data.draw(layouts(har))
    split = split_har(laid_out, 0)
    assert split is not None
    assert list(split.entries()) == har["log"]["entries"]  # entry by entry, none read whole
    assert outcome(load_bytes(path.name, laid_out)) == outcome(whole(path.name, laid_out))


def test_a_member_named_entries_before_the_entries_does_not_stop_the_split():
    """The first `"entries"` in the bytes may be another object's member (a page's): the split
    looks on for the one that opens the entries, rather than reading the file whole."""
    entries = [{"request": {"url": "u"}, "response": {"status": 200}}] * 3
    data = json.dumps({"log": {"pages": [{"id": "p", "entries": 0}], "entries": entries}}, indent=2).encode()
    split = split_har(data, 0)
    assert split is not None and list(split.entries()) == entries


#: Bytes that are not UTF-8 (a stray byte, an overlong NUL, a surrogate, a cut character, past
#: U+10FFFF), and characters that are.
BYTES = [b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80", "é".encode(), "😀".encode()]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_har_read_entry_by_entry_is_checked_as_utf8_as_the_whole_file_is(data: st.DataObject) -> None:
    """A HAR read entry by entry is not checked as UTF-8 before it is read (the parser checks what
    it reads): a byte that is not UTF-8 anywhere in it, an entry, the document around them or the
    space between, still makes the error a whole-file read gives (the file's, at the byte)."""
    path = data.draw(st.sampled_from(FILES))
    raw = path.read_bytes()
    at = data.draw(st.integers(0, len(raw)))
    changed = raw[:at] + data.draw(st.sampled_from(BYTES)) + raw[at:]
    read = load_bytes(path.name, changed)
    assert outcome(read) == outcome(whole(path.name, changed))
    try:
        changed.decode("utf-8")
    except UnicodeDecodeError as err:
        assert [(e.location, e.message) for e in read.errors] == [(f"byte {err.start}", "invalid UTF-8")]


def nested(value: Any, levels: int, kinds: list[bool]) -> Any:
    """`value` inside `levels` containers, each a list or an object as `kinds` says in turn."""
    for i in range(levels):
        value = [value] if kinds[i % len(kinds)] else {"k": value}
    return value


@st.composite
def entries(draw: st.DrawFn) -> Any:
    """HAR entries whose sides may hold body texts, odd members, and a value nested about as deep
    as a record may be somewhere (or an entry that is not an object)."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    entry: dict[str, Any] = {"startedDateTime": "2026-01-05T11:00:00Z"}
    for side, payload in (("request", "postData"), ("response", "content")):
        shape = draw(st.integers(0, 4))
        if shape == 0:
            continue
        if shape == 1:
            entry[side] = draw(json_values)
            continue
        members = draw(st.dictionaries(st.sampled_from(["headers", "url", "status", "_x"]), json_values, max_size=3))
        body = draw(st.one_of(json_values, st.dictionaries(
            st.sampled_from(["text", "mimeType", "params"]), st.one_of(st.text(max_size=30), json_values),
            max_size=3)))
        entry[side] = {**members, payload: body} if shape > 2 else members
    where = draw(st.lists(st.sampled_from(["request", "response", "postData", "content", "params",
                                           "headers", "_x", "text"]), max_size=3))
    levels = draw(st.integers(190, 205))
    deep = nested(draw(json_scalars), levels, draw(st.lists(st.booleans(), min_size=1, max_size=3)))
    node = entry
    for key in where:
        child = node.get(key)
        if not isinstance(child, dict):
            break
        node = child
    node[draw(st.sampled_from(["deep", "text", "params"]))] = deep
    return entry


@settings(max_examples=300, deadline=None)
@given(entry=entries())
def test_an_entry_without_its_texts_is_as_deep_as_the_entry(entry: Any) -> None:
    """`without_texts`: a HAR entry's depth told by printing it without its body texts gives what
    the entry itself gives (too deep or not, at the same pointer), and the entry is left as it was."""
    before = json.dumps(entry)
    fast, general = (containers.Capture("x.har", "har") for _ in range(2))
    assert containers._record_ok(fast, without_texts(entry), "/log/entries/3") == \
        containers._record_ok(general, entry, "/log/entries/3")
    assert [str(e) for e in fast.errors] == [str(e) for e in general.errors]
    assert json.dumps(entry) == before
