"""`records.extending.Extending` against `jsonio.loads_listed`, the general path it shortcuts: a run of texts,
each often the one before it with elements added to an array member (as an agent's requests are),
sometimes changed otherwise, laid out in any way, with duplicate keys, elements nested about as deep
as a value may be, or elements that do not parse. Every text gives the value, the printed lists
and the error that parsing it whole gives."""

from __future__ import annotations

import json
from typing import Any

import orjson
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.strategies import json_values, nested
from tooldbg.errors import FormatError
from tooldbg.jsonio import inside, loads_listed
from tooldbg.records.extending import Extending, printed_members

KEYS = ["messages", "input", "tools", "model", "system", "contents", "_x"]


def element(draw: st.DrawFn) -> Any:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return nested(draw(st.integers(190, 200)))
    if kind == 1:
        return {"messages": [{"role": "user", "content": draw(st.text(max_size=5))}]}  # a key of the same name
    return {"role": draw(st.sampled_from(["user", "assistant"])), "content": draw(json_values)}


@st.composite
def runs(draw: st.DrawFn) -> list[str]:
    """Texts of one run: each the last value changed (mostly: elements added to one array member)
    and written out (mostly in the run's one layout)."""
    body: dict[str, Any] = {k: draw(json_values) for k in draw(st.lists(st.sampled_from(KEYS), unique=True))}
    if draw(st.integers(0, 4)):  # (a text of a few brackets is printed only past 4,096 characters)
        body["system"] = "s" * 4100
    target = draw(st.sampled_from(KEYS))
    body[target] = [element(draw) for _ in range(draw(st.integers(0, 2)))]
    style = draw(layouts())
    texts = []
    for _ in range(draw(st.integers(1, 6))):
        step = draw(st.integers(0, 9))
        if step < 5 and isinstance(body.get(target), list):
            body[target] = body[target] + [element(draw) for _ in range(draw(st.integers(1, 3)))]
        elif step == 5:
            body[draw(st.sampled_from(KEYS))] = draw(st.one_of(json_values, st.lists(json_values, max_size=2)))
        elif step == 6 and isinstance(body.get(target), list) and body[target]:
            body[target] = body[target][:-1] + [element(draw)]
        text = write(body, draw(layouts()) if draw(st.integers(0, 9)) == 0 else style)
        edit = draw(st.integers(0, 12))
        if edit == 0:  # a member of the same name again, after the others or before them
            key = draw(st.sampled_from(KEYS))
            extra = f'"{key}": {json.dumps(draw(st.lists(json_values, max_size=2)))}'
            text = text.rstrip()[:-1].rstrip() + (", " if len(body) else "") + extra + "}" \
                if draw(st.booleans()) else "{" + extra + ("," if len(body) else "") + text.lstrip()[1:]
        elif edit == 1:  # elements that do not parse, or no element after a comma
            at = text.rstrip().rfind("]")
            if at > 0:
                text = text[:at] + draw(st.sampled_from([", {", ",", ", ]", ', "a": 1', ", nul"])) + text[at:]
        elif edit == 2:
            text = json.dumps(draw(st.lists(json_values)))
        texts.append(text)
    return texts


def layouts() -> st.SearchStrategy[tuple[Any, tuple[str, str], bool]]:
    return st.tuples(st.sampled_from([None, 0, 2, "\t"]),
                     st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]), st.booleans())


def write(body: dict[str, Any], style: tuple[Any, tuple[str, str], bool]) -> str:
    indent, separators, ascii_only = style
    return json.dumps(body, indent=indent, separators=separators, ensure_ascii=ascii_only)


def outcome(parse: Any, text: str) -> tuple[Any, ...]:
    try:
        value, lists = parse(text)
    except FormatError as err:
        return ("error", type(err), err.message, err.pointer)
    printed = printed_members(value, lists) if isinstance(value, dict) else {}
    return (orjson.dumps(value), {name: bytes(inside(text)) for name, text in printed.items()})


PAD = '{"system": "' + "s" * 4100 + '", '  # (a text of a few brackets is printed past 4,096 characters)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=runs())
# the array's member again after it (the value keeps that one)
@example(texts=[PAD + '"messages": [1], "messages": [2]}', PAD + '"messages": [1, 3], "messages": [2]}'])
# the array's member before it (the value keeps the array, at the first one's place)
@example(texts=[PAD + '"a": [1], "b": [2], "a": [3]}', PAD + '"a": [1], "b": [2], "a": [3, 4]}'])
# the array's name in another key's name, after an escaped quote
@example(texts=[PAD + '"messages": [1], "x\\"messages": [2]}', PAD + '"messages": [1], "x\\"messages": [2, 3]}'])
# the texts part inside a number
@example(texts=[PAD + '"messages": [15]}', PAD + '"messages": [1, 2, 35]}'])
def test_a_run_of_texts_reads_as_each_text_parsed_whole(texts: list[str]) -> None:
    extending = Extending()
    for text in texts:
        assert outcome(extending.loads_listed, text) == outcome(loads_listed, text)
