"""Writers say where each wire item came from: `Written.origins` maps a JSON pointer in the written
body to the (turn, part) it carries. Over every format, every sample and generated conversations,
every part the writer carried (no loss names it) has an origin, at a node that really carries it:
the call with its name and id, the result with its call's id and its text, the text itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.paths import SAMPLES
from tests.strategies import conversations
from tooldbg import formats
from tooldbg.convert import export
from tooldbg.formats.anthropic import serialize
from tooldbg.formats.base import Written
from tooldbg.formats.origins import Origins, carried
from tooldbg.load import load_file
from tooldbg.model import Conversation, Invocation, Json, Media, Opaque, Part, Reasoning, Result, Text

FILES = sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.name != "README.md")


def node_at(body: object, pointer: str) -> object:
    node = body
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]  # type: ignore[index]
    return node


def said(value: object) -> str:
    """A value as it reads inside the JSON text of the node holding it."""
    return json.dumps(value)[1:-1] if isinstance(value, str) else json.dumps(value)


def marks(part: Part) -> list[str]:
    """What the node carrying `part` must hold, as JSON text."""
    if isinstance(part, Text):
        return [said(part.text)]
    if isinstance(part, Invocation):
        return [said(part.name)] + ([said(part.wire_id)] if part.wire_id else [])
    if isinstance(part, Result):
        texts = [said(c.text) for c in part.content if isinstance(c, Text)]
        return ([said(part.wire_id)] if part.wire_id else [said(part.name)] if part.name else []) + texts
    if isinstance(part, Media):
        return [said(x) for x in (part.data, part.url, part.file_id) if x][:1]
    if isinstance(part, Reasoning):
        return [said(x) for x in (part.signature, part.text) if x][:1]
    if isinstance(part, Json):
        return []  # written as JSON text or an object, depending on the format
    if isinstance(part, Opaque):
        return []
    return []


def assert_origins_carry(conv: Conversation, written: Written) -> None:
    body, origins = written.body, written.origins
    # The parts carried, as the blank guard asks for them (no pointer made), are the resolved ones'.
    assert carried(origins) == {o for o in origins.values() if o[1] is not None}
    lost = {(loss.turn, loss.part) for loss in written.losses}
    found: dict[tuple[int, int], list[str]] = {}
    for pointer, (turn, part) in origins.items():
        node_at(body, pointer)  # every origin points into the body
        assert 0 <= turn < len(conv.turns)
        if part is not None:
            assert 0 <= part < len(conv.turns[turn].parts)
            found.setdefault((turn, part), []).append(pointer)
    for t, turn in enumerate(conv.turns):
        for p, part in enumerate(turn.parts):
            if (t, p) in lost:
                continue
            assert (t, p) in found, f"turn {t} part {p} ({part.type}) was carried but has no origin"
            text = " ".join(json.dumps(node_at(body, pointer)) for pointer in found[t, p])
            for mark in marks(part):
                assert mark in text, f"turn {t} part {p}: {mark!r} is not in {text[:300]}"


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(SAMPLES).as_posix())
def test_every_carried_part_of_a_sample_has_its_origin(path: Path, target: str):
    for conv in load_file(path).conversations:
        assert_origins_carry(conv, formats.get(target).write(conv))


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_carried_part_of_a_generated_conversation_has_its_origin(target: str, data: st.DataObject):
    """With reasoning of the target's own, which it replays (a Gemini signature rides on the part
    after it)."""
    conv = data.draw(conversations(reasoning_origin=target))
    assert_origins_carry(conv, formats.get(target).write(conv))


@pytest.mark.parametrize("target", formats.WIRE_FORMATS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_convert_finds_the_origins_the_writer_records(target: str, data: st.DataObject):
    """`export` writes without recording where the nodes came from, and writes again when they
    are asked for: the same body, the same parts carried (what the blank guard asks first), the
    same pointers."""
    conv = data.draw(conversations(reasoning_origin=target))
    recorded = formats.get(target).write(conv)
    exported = export([conv], target, allow_blanks=True)
    assert exported.body == recorded.body
    assert carried(exported.origins) == carried(recorded.origins)
    assert dict(exported.origins) == dict(recorded.origins)


@pytest.mark.parametrize(("asked", "writes"), [(True, 1), (None, 2)])
def test_a_caller_that_reads_the_origins_asks_for_them_and_the_body_is_written_once(monkeypatch, asked, writes):
    """The CLI and the debugger read the origins (the pre-flight, the views): asked up front, the
    writer records them as it writes; unasked, reading them writes the body again."""
    conv = load_file(SAMPLES / "openai-chat" / "parallel-calls.jsonl").conversations[0]
    recorded = formats.get("anthropic").write(conv)
    writer, made = serialize._Writer, []
    write = writer.write
    monkeypatch.setattr(writer, "write", lambda self: made.append(1) or write(self))
    exported = export([conv], "anthropic", allow_blanks=True, origins=asked)
    assert exported.blanks == () and dict(exported.origins) == dict(recorded.origins)
    assert len(made) == writes


def test_origins_are_found_where_the_nodes_end_up():
    """Marked where they are made, found where the body puts them: moved, dropped, or emitted twice."""
    marks = Origins()
    shared = {"type": "opaque"}
    first = marks.mark(shared, 0, 0)
    second = marks.mark(shared, 1, 0)  # the same object emitted again: a copy carries the second
    assert first is shared and second is not shared and second == shared
    gone = marks.mark({"type": "text", "text": "dropped"}, 2, 0)
    message = marks.mark({"role": "user", "content": "hi"}, 3, None)
    marks.mark(message, 3, 0, "/content")
    body = {"messages": [message, {"role": "assistant", "content": [second, first]}], "kept": [gone][:0]}
    assert marks.resolve(body) == {
        "/messages/0": (3, None), "/messages/0/content": (3, 0),
        "/messages/1/content/0": (1, 0), "/messages/1/content/1": (0, 0),
    }
    # an unmarked item holding marks of one turn carries that turn
    only = {"role": "user", "content": [marks.mark({"text": "a"}, 5, 0), marks.mark({"text": "b"}, 5, 1)]}
    assert marks.resolve({"messages": [only]})["/messages/0"] == (5, None)
