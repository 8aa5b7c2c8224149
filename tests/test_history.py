"""Replayed history is read once (`tooldbg.history`): a request keeps the turn objects of the
history it replays byte for byte, the reader reads only what is new, and nothing a user sees
changes — every sample and corpus file loads, stitches and checks exactly as when each request is
read whole."""

import json
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests import paths
from tests.strategies import json_values
from tooldbg import formats, history
from tooldbg.checks import run_checks
from tooldbg.checks.arguments import calls
from tooldbg.checks.base import Context
from tooldbg.formats import openai_chat, reading
from tooldbg.jsonio import dumps
from tooldbg.load import load_bytes, load_file
from tooldbg.model import document, part_to_dict, turn_to_dict
from tooldbg.records.sniff import iter_files
from tooldbg.source import Source

URL = "https://api.openai.com/v1/chat/completions"
TOOLS = [{"type": "function", "function": {
    "name": "read_file", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]


def agent_session(exchanges, *, mutate=None, system="You are a coding agent.", task="Fix the test.",
                  ids="Xq7RmT2vLp9K"):
    """A Chat Completions agent loop logged as JSON Lines: each request replays the whole history
    (a call, its result) and adds one step. `mutate(step, messages)` may change a request's copy."""
    history = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    lines = []
    for step in range(exchanges):
        call_id = f"call_{step:04d}{ids}"
        answer = {"role": "assistant", "content": f"Reading file {step}.", "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/m{step}.py"})}}]}
        messages = json.loads(json.dumps(history))
        if mutate is not None:
            mutate(step, messages)
        lines.append(json.dumps({
            "request": {"method": "POST", "url": URL, "body": {"model": "gpt-4.1", "messages": messages,
                                                                "tools": TOOLS}},
            "response": {"status": 200, "body": {
                "id": f"chatcmpl-{step}", "object": "chat.completion", "model": "gpt-4.1-2025-04-14",
                "choices": [{"index": 0, "message": answer, "finish_reason": "tool_calls"}]}}}))
        history += [answer, {"role": "tool", "tool_call_id": call_id, "content": f"# m{step}.py\nx = {step}\n"}]
    return ("\n".join(lines) + "\n").encode()


def test_a_replayed_session_builds_each_turn_once():
    loaded = load_bytes("agent.jsonl", agent_session(50))
    requests = [r.request for r in loaded.reads]
    assert all(r is not None for r in requests)
    # Each request keeps its predecessor's turn objects and adds its own: one object per turn sent.
    for before, after in zip(requests, requests[1:], strict=False):
        assert all(a is b for a, b in zip(after.turns, before.turns, strict=False))
    distinct = {id(t) for r in requests for t in r.turns}
    assert len(distinct) == len(requests[-1].turns) == 1 + 2 * 49
    # The timeline holds those objects for what the client sent, and for what the model answered
    # the turn of the response that first had it: each points at the exchange that first sent it.
    conversation, = loaded.conversations
    for t, (kept, sent) in enumerate(zip(conversation.turns, requests[-1].turns, strict=False)):
        if sent.role == "assistant":
            assert (kept.source.exchange, kept.source.side) == ((t - 1) // 2, "response")
        else:
            assert kept is sent
    assert conversation.turns[2].source.exchange == 1  # step 0's result, first sent by exchange 1


def test_the_argument_rules_visit_each_distinct_call_once():
    loaded = load_bytes("agent.jsonl", agent_session(50))
    visited = calls(Context(loaded))
    # 49 calls replayed by the requests (each call object once, though sent up to 49 times) and the
    # 50 calls the responses made.
    assert [c.call.source.side for c in visited].count("request") == 49
    assert [c.call.source.side for c in visited].count("response") == 50
    assert len({id(c.call) for c in visited}) == len(visited)


def test_the_reader_reads_each_distinct_message_once():
    read_messages = []
    real = openai_chat.read_request

    def spy(body, source, *, start=0, prior=()):
        read_messages.extend(json.dumps(m, sort_keys=True) for m in body["messages"][start:])
        return real(body, source, start=start, prior=prior)

    with mock.patch.object(openai_chat, "read_request", spy):
        loaded = load_bytes("agent.jsonl", agent_session(50))
    assert not loaded.errors
    assert len(read_messages) == len(set(read_messages)) == 2 + 2 * 49


def test_a_replay_that_changed_is_read_from_the_request_that_changed_it():
    def drop_argument(step, messages):
        if step >= 30:  # from exchange 30 on, the client replays step 10's call without arguments
            messages[2 + 2 * 10]["tool_calls"][0]["function"]["arguments"] = "{}"

    loaded = load_bytes("agent.jsonl", agent_session(40, mutate=drop_argument))
    # Found once, where the replay changed, by the replay rule and by the argument rules.
    at = "line 31/request/body#/messages/22/tool_calls/0"
    assert sorted((f.code, f.exchange, f.pointer) for f in run_checks(loaded)) == [
        ("TD206", 30, at + "/function/arguments"), ("TD306", 30, at)]
    changed = loaded.reads[30].request.turns[21]
    assert changed is not loaded.reads[29].request.turns[21]
    assert changed.source.exchange == 30
    # Exchange 31 replays the changed copy, and keeps exchange 30's object for it.
    assert loaded.reads[31].request.turns[21] is changed


def test_nothing_of_a_loaded_file_is_held_once_it_is_read():
    """`link` remembers recent histories, and a reader the tool list it read last, while a file is
    read; they hold its turns and its bodies' values, so they are let go when it is read."""
    loaded = load_bytes("agent.jsonl", agent_session(10))
    assert loaded.conversations[0].tools  # (the session declares tools: the Chat reader read them)
    assert not reading._KNOWN and all(memo._last is None for memo in reading._READ_ONCE)


def test_a_second_run_of_the_same_task_keeps_its_own_sources():
    first = agent_session(4).decode()
    second = agent_session(3, ids="Bw4ZsN8cHe1J").decode()  # the same task, run again
    loaded = load_bytes("runs.jsonl", (first + second).encode())
    assert [len(c.turns) for c in loaded.conversations] == [8, 6]
    rerun = loaded.conversations[1]
    assert {t.source.exchange for t in rerun.turns[:1]} == {4}
    assert all(t.source.exchange >= 4 for t in rerun.turns)


def test_a_turn_changed_and_changed_back_points_at_the_request_that_changed_it_back():
    def flip(step, messages):
        if step == 5:  # one request replays step 0's result changed; the next sends it as it was
            messages[3]["content"] = "# m0.py\nx = 'changed'\n"

    loaded = load_bytes("agent.jsonl", agent_session(8, mutate=flip))
    assert len(loaded.conversations) == 1
    result = [r.request.turns[2] for r in loaded.reads[1:]]
    assert [t.source.exchange for t in result] == [1, 1, 1, 1, 5, 6, 6]
    assert result[0] is result[3] and result[5] is result[6] and result[5] == result[0]


SOURCE = Source(file="log.jsonl", exchange=3, side="request", location="line 4/request/body")
@pytest.mark.parametrize("folder", ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"])
def test_reading_a_request_from_a_message_on_gives_the_turns_of_the_whole_read(folder):
    """`read_request(body, source, start=n, prior=turns)` — what `History` calls for the messages
    after the replayed ones — gives the turns a read of the whole body gives, sources and links
    included, for every cut where a message begins a turn of a role other than the one before."""
    cuts = 0
    reads = [r for p in iter_files(paths.SAMPLES / folder) if p.suffix != ".md" for r in load_file(p).reads]
    for read in reads:
        if read.request is None or read.format is None:
            continue
        module = formats.get(read.format)
        body = read.exchange.request.body
        whole = module.read_request(body, SOURCE)
        base = SOURCE.child(formats.facts(read.format).messages_key).pointer
        at = [history._message_at(t.source.pointer, base) for t in whole.turns]
        from_list = [p for p in whole.system if history._message_at(p.source.pointer, base) is not None]
        for k in range(1, len(whole.turns)):
            if at[k] == at[k - 1] or whole.turns[k].role == whole.turns[k - 1].role:
                continue
            cut = module.read_request(body, SOURCE, start=at[k], prior=whole.turns[:k])
            assert [turn_to_dict(t) for t in cut.turns] == [turn_to_dict(t) for t in whole.turns]
            assert [a is b for a, b in zip(cut.turns[:k], whole.turns, strict=False)] == [True] * k
            assert [part_to_dict(p) for p in (*cut.system, *from_list)] == \
                [part_to_dict(p) for p in whole.system]
            assert (cut.tools, cut.tool_choice, cut.model, cut.meta, cut.settings) == \
                (whole.tools, whole.tool_choice, whole.model, whole.meta, whole.settings)
            cuts += 1
    assert cuts


def whole_reads(self, fmt, read_request, body, source, lists=None):
    """`History.read` as before it: every request read whole."""
    return read_request(body, source), None, None


def snapshot(path):
    return view(load_file(path))


def view(loaded):
    """What a user sees of a loaded file: the conversations (sources included), the findings, the
    errors, and each exchange's canonical request."""
    findings = [f.to_dict() for f in run_checks(loaded)]
    reads = [(r.format, r.conversation, r.request.system if r.request else None,
              [turn_to_dict(t, sources=False) for t in r.request.turns] if r.request else None)
             for r in loaded.reads]
    return document(loaded.conversations), findings, [str(e) for e in loaded.errors], reads


LOGS = [p for root in (paths.SAMPLES, paths.CAPTURES, *paths.third_party_roots()) for p in iter_files(root)]


def log_id(path):
    """Where the log is: in the repository, or its name in the third-party corpus."""
    return path.relative_to(paths.ROOT).as_posix() if path.is_relative_to(paths.ROOT) else paths.corpus_name(path)


@pytest.mark.parametrize("mutate", [None, "drop", "flip"])
def test_a_generated_session_reads_as_when_each_request_is_read_whole(mutate):
    def change(step, messages):
        if mutate == "drop" and step >= 6:
            messages[4]["tool_calls"][0]["function"]["arguments"] = "{}"
        if mutate == "flip" and step == 5:
            messages[1]["content"] = "Fix the failing test, please."

    data = agent_session(12, mutate=change) + agent_session(5, ids="Bw4ZsN8cHe1J")
    kept = view(load_bytes("agent.jsonl", data))
    with mock.patch.object(history.History, "read", whole_reads):
        assert view(load_bytes("agent.jsonl", data)) == kept


@pytest.mark.parametrize("path", paths.corpus_params(LOGS), ids=log_id)
def test_every_log_reads_as_when_each_request_is_read_whole(path):
    kept = snapshot(path)
    with mock.patch.object(history.History, "read", whole_reads):
        whole = snapshot(path)
    assert kept == whole


def test_a_replayed_message_is_held_once_in_every_body_that_sends_it():
    """Each request body holds, for what it replays, the parsed objects of the request that sent it
    before (and its equal `tools`): memory holds the distinct messages. A message that changed is
    its own object, and every body still reads as the file has it."""
    def flip(step, messages):
        if step == 5:
            messages[3]["content"] = "# m0.py\nx = 'changed'\n"

    data = agent_session(8, mutate=flip)
    bodies = [r.exchange.request.body for r in load_bytes("agent.jsonl", data).reads]
    assert [b for b in bodies] == [json.loads(line)["request"]["body"] for line in data.splitlines()]
    assert bodies[7]["messages"][1] is bodies[4]["messages"][1] is bodies[0]["messages"][1]
    assert bodies[4]["messages"][3] is bodies[2]["messages"][3]
    assert bodies[7]["tools"] is bodies[0]["tools"]
    assert bodies[5]["messages"][3] is not bodies[4]["messages"][3]  # the changed copy
    assert bodies[6]["messages"][5] is bodies[5]["messages"][5]  # after it, held once again


def test_members_equal_in_python_but_not_as_json_are_not_shared():
    """`1 == 1.0` in Python, not on the wire: a body whose tools differ only so keeps its own."""
    def request(minimum):
        tools = [{**TOOLS[0], "function": {**TOOLS[0]["function"], "parameters": {
            "type": "object", "properties": {"n": {"type": "integer", "minimum": minimum}}}}}]
        body = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
        return json.dumps({"request": {"url": URL, "body": body}})

    data = "\n".join([request(1), request(1.0), request(1.0)]).encode()
    bodies = [r.exchange.request.body for r in load_bytes("log.jsonl", data).reads]
    assert bodies[1]["tools"] is not bodies[0]["tools"] and bodies[2]["tools"] is bodies[1]["tools"]
    assert [json.dumps(b["tools"]) for b in bodies] == [
        json.dumps(json.loads(line)["request"]["body"]["tools"]) for line in data.splitlines()]


#: Values whose texts often begin one another (1 and 12, "a" and "ab"), and any JSON.
_PREFIXED = st.one_of(st.integers(0, 150), st.text("ab", max_size=3), json_values)


@settings(max_examples=300, deadline=None)
@given(after=st.lists(_PREFIXED, max_size=5), cut=st.integers(0, 5),
       last=st.one_of(st.none(), st.just("cut short"), _PREFIXED),
       spares=st.tuples(st.integers(0, 3), st.integers(0, 3)))
@example(after=[12], cut=1, last=1, spares=(0, 0))
@example(after=["ab", 1], cut=1, last="a", spares=(0, 0))
@example(after=[], cut=0, last=None, spares=(2, 1))
def test_a_printed_list_begins_with_another_exactly_when_its_first_elements_print_the_same(after, cut, last,
                                                                                          spares):
    """`history` tells that a request's message list goes on from the last one's by their JSON bytes;
    given the list's bytes printed already (inside the lists the depth test printed it in), it tests
    their start, which must say what printing the first elements would: `[1` begins `[12]`, but
    `[1]` does not begin it."""
    before = after[:cut]
    if last == "cut short" and before and isinstance(before[-1], int | str) and before[-1]:
        before[-1] = before[-1] // 10 if isinstance(before[-1], int) else before[-1][:-1]  # 12 → 1
    elif last is not None and before:
        before[-1] = last
    expected = len(after) >= len(before) and dumps(after[:len(before)]) == dumps(before)
    wrapped = [(b"[" * spare + dumps(value) + b"]" * spare, spare)
               for value, spare in zip((after, before), spares, strict=True)]
    assert history._begins_with(*wrapped) is expected


def test_the_bytes_printed_for_history_are_let_go_once_read(tmp_path):
    """The depth test's printing of each request's message list serves `history` once; a loaded
    file keeps none of it (it would hold every request body twice)."""
    har = {"log": {"entries": [{"request": {"method": "POST", "url": URL, "headers": [],
                                            "postData": {"mimeType": "application/json", "text": line}},
                                "response": {"status": 200, "headers": [], "content": {
                                    "mimeType": "application/json", "text": json.dumps(
                                        {"choices": [{"message": {"role": "assistant", "content": "ok " * 2000}}]})}}}
                               for line in (json.dumps(json.loads(r)["request"]["body"])
                                            for r in agent_session(4).decode().splitlines())]}}
    for name, data in (("agent.jsonl", agent_session(4)), ("agent.har", json.dumps(har).encode())):
        loaded = load_bytes(name, data)
        assert len(loaded.reads) == 4 and not loaded.errors
        assert all(r.exchange.request.lists is None and r.exchange.response.lists is None
                   for r in loaded.reads)
