"""Stitching: the exchanges of one agent session become one timeline whose turns point to the
exchange they first appeared in."""

from dataclasses import replace

from tooldbg.formats.base import Request, Response, link
from tooldbg.model import Invocation, Result, Source, Text, Turn
from tooldbg.stitch import Stitcher


def src(exchange, side, pointer):
    return Source(file="log.jsonl", exchange=exchange, side=side, pointer=pointer)


def user(text, ex, i):
    return Turn(role="user", parts=(Text(text=text),), source=src(ex, "request", f"/messages/{i}"))


def call(ex, side, pointer, wire_id="call_1", text=None):
    parts = ((Text(text=text),) if text else ()) + (
        Invocation(name="get_weather", arguments={"city": "Oslo"}, wire_id=wire_id),)
    return Turn(role="assistant", parts=parts, source=src(ex, side, pointer))


def result(ex, i, wire_id="call_1"):
    return Turn(role="tool", parts=(Result(wire_id=wire_id, content=(Text(text="12C"),)),),
                source=src(ex, "request", f"/messages/{i}"))


def answer(ex, text):
    return Turn(role="assistant", parts=(Text(text=text),), source=src(ex, "response", "/choices/0/message"))


def request(*turns):
    return Request(turns=link(turns), model="m")


def test_two_exchanges_of_a_tool_loop_become_one_conversation():
    stitcher = Stitcher()
    first = stitcher.add(0, request(user("Weather?", 0, 0)),
                         (Response(turn=call(0, "response", "/choices/0/message")),))
    second = stitcher.add(1, request(user("Weather?", 1, 0), call(1, "request", "/messages/1"),
                                     result(1, 2)),
                          (Response(turn=answer(1, "It is 12C.")),))
    assert first is second and len(stitcher.threads) == 1
    conv = second.conversation
    assert [t.role for t in conv.turns] == ["user", "assistant", "tool", "assistant"]
    # Each turn points at where it first appeared: the call at the response of exchange 0.
    assert [(t.source.exchange, t.source.side) for t in conv.turns] == [
        (0, "request"), (0, "response"), (1, "request"), (1, "response")]
    assert conv.turns[2].parts[0].invocation_id == "i1"
    assert second.exchanges == [0, 1]


def test_a_replay_that_changed_enters_the_timeline_as_sent():
    stitcher = Stitcher()
    stitcher.add(0, request(user("Weather?", 0, 0)),
                 (Response(turn=call(0, "response", "/choices/0/message", text="Checking.")),))
    thread = stitcher.add(1, request(user("Weather?", 1, 0), call(1, "request", "/messages/1"),
                                     result(1, 2)), ())
    replayed = thread.conversation.turns[1]
    assert replayed.source.side == "request" and replayed.source.exchange == 1
    assert [p.type for p in replayed.parts] == ["invocation"]
    assert len(stitcher.threads) == 1


def test_unrelated_requests_are_separate_conversations():
    stitcher = Stitcher()
    stitcher.add(0, request(user("Weather?", 0, 0)), (Response(turn=answer(0, "Sunny.")),))
    stitcher.add(1, request(user("Stock price?", 1, 0)), (Response(turn=answer(1, "Up.")),))
    assert [t.conversation.id for t in stitcher.threads] == ["c1", "c2"]


def test_a_request_sharing_only_part_of_a_history_starts_a_new_conversation():
    stitcher = Stitcher()
    stitcher.add(0, request(user("a", 0, 0), answer(0, "b"), user("c", 0, 2)), ())
    stitcher.add(1, request(user("a", 1, 0), answer(1, "b"), user("different", 1, 2)), ())
    assert len(stitcher.threads) == 2


def test_response_only_exchanges_each_make_a_conversation():
    stitcher = Stitcher()
    stitcher.add(0, None, (Response(turn=answer(0, "x")), Response(turn=answer(0, "y"))))
    [thread] = stitcher.threads
    assert [t.parts[0].text for t in thread.conversation.turns] == ["x", "y"]


def test_long_session_is_stitched_in_one_pass():
    stitcher = Stitcher()
    history = [user("start", 0, 0)]
    for n in range(200):
        reply = answer(n, f"step {n}")
        stitcher.add(n, request(*history), (Response(turn=reply),))
        history = [*history, reply, user(f"next {n}", n + 1, len(history) + 1)]
    [thread] = stitcher.threads
    assert len(thread.conversation.turns) == 2 * 200
    assert len(thread.exchanges) == 200
    # The first user turn still points at exchange 0, the last answer at exchange 199.
    assert thread.conversation.turns[0].source.exchange == 0
    assert thread.conversation.turns[-1].source.exchange == 199


def test_system_prompt_changes_do_not_split_a_conversation():
    stitcher = Stitcher()
    stitcher.add(0, replace(request(user("a", 0, 0)), system=(Text(text="v1"),)),
                 (Response(turn=answer(0, "b")),))
    thread = stitcher.add(1, replace(request(user("a", 1, 0), answer(1, "b"), user("c", 1, 2)),
                                     system=(Text(text="v2"),)), ())
    assert len(stitcher.threads) == 1
    assert thread.conversation.system == (Text(text="v2"),)
