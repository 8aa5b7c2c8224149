"""Fast paths in the checks give what the general path they skip gives: the schema validator's
plain-leaf and plain-object tests (`schema._plainly_fits`, `schema._plain_object`), the pairing's
one walk for calls and results (`pairing.located`), the call index's walk from a source's tokens
(`arguments.wire_node`), the TD203/TD204 findings of a call judged once per place
(`arguments.unique`), the words a failure line needs before it is searched
(`failures._names_failure`), the text TD301 finds kept verbatim (`td301_dropped_text._verbatim`) and
the comparison of two JSON values, which writes out a pointer for a difference only and answers for
a string at once (`replay.first_difference`), the replay pairing's calls (or results) found in step
with their originals (`replay.in_step`), a request's tools worked out once for the requests that
declare the same (`arguments.declared_again`), and the runner's pass over the memo, skipped until the
first rule it has to let an entry go at (`Context.passing`)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.checks.test_arguments import ANTHROPIC, CHAT, CHAT_TOOLS, chat_call, jsonl, record
from tooldbg.checks import RULES, failures, replay, schema
from tooldbg.checks.arguments import Declared, declared_again, finding, wire_node
from tooldbg.checks.base import Context
from tooldbg.checks.pairing import Located, located
from tooldbg.checks.replay import MISSING, first_difference, norm, resolve_pointer
from tooldbg.checks.rules import td203_arguments_not_string, td204_arguments_not_object, td301_dropped_text
from tooldbg.jsonio import resolve
from tooldbg.load import load_bytes
from tooldbg.model import Conversation, Invocation, Reasoning, Result, Text, Tool, Turn
from tooldbg.source import Source

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-3, 3, allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=12)
TYPES = st.sampled_from(["string", "STRING", "integer", "number", "boolean", "object", "array", "null",
                         "Integer", "TYPE_UNSPECIFIED", "thing"])
WORDS = st.fixed_dictionaries({}, optional={"description": st.text(max_size=3), "title": st.just("t"),
                                            "format": st.just("date"), "default": JSON, "examples": JSON})
LEAF = st.one_of(
    st.builds(lambda words, kind: {**words, "type": kind}, WORDS, TYPES | st.lists(TYPES, max_size=2)),
    WORDS, st.booleans(), st.just({"type": "string", "minLength": 2}), st.just({"enum": [1, "a"]}),
    st.just({"type": "integer", "nullable": True}), st.just({"const": None}))
SCHEMAS = st.recursive(LEAF, lambda inner: st.one_of(
    st.builds(lambda props, req, extra: {"type": "object", "properties": props, "required": req,
                                         "additionalProperties": extra},
              st.dictionaries(st.sampled_from("abc"), inner, max_size=3), st.lists(st.sampled_from("abc"), max_size=2),
              st.booleans() | inner),
    st.builds(lambda items: {"type": "array", "items": items}, inner),
    st.builds(lambda alts: {"anyOf": alts}, st.lists(inner, min_size=1, max_size=2))), max_leaves=8)


@settings(max_examples=200)
@given(JSON, SCHEMAS)
def test_a_plain_fit_is_what_check_finds_nothing_in(value, node):
    if schema._plainly_fits(value, node):
        assert list(schema._Validator(node).check(value, node, (), 0)) == []


#: Object schemas `_plain_object` passes, and values that fit them more often than JSON at random.
PLAIN_OBJECTS = st.builds(
    lambda words, kind, props, req, extra: {**words, **kind, "properties": props, "required": req,
                                           "additionalProperties": extra},
    WORDS, st.sampled_from([{}, {"type": "object"}, {"type": "OBJECT"}, {"type": "array"}]),
    st.dictionaries(st.sampled_from("abc"), LEAF, max_size=3), st.lists(st.sampled_from("abcd"), max_size=2),
    st.booleans() | LEAF)
OBJECTS = st.dictionaries(st.sampled_from("abc"), st.none() | st.booleans() | st.integers(-2, 2)
                          | st.floats(-2, 2, allow_nan=False) | st.text(max_size=2), max_size=3)


@settings(max_examples=400)
@given(OBJECTS | JSON, PLAIN_OBJECTS | SCHEMAS)
def test_a_plain_object_is_what_check_finds_nothing_in(value, node):
    if schema._plain_object(value, node):
        assert list(schema._Validator(node).check(value, node, (), 0)) == []


def _general(value, node, limit):
    """`validate` with the plain-leaf test switched off, and the budget it left."""
    validator = schema._Validator(node)
    out = []
    for error in validator.check(value, node, (), 0):
        out.append(error)
        if len(out) >= limit:
            break
    return out, validator.budget


@settings(max_examples=200)
@given(JSON, SCHEMAS, st.integers(1, 3))
def test_validation_with_the_plain_fit_is_validation_without_it(value, node, limit):
    fast = schema._Validator(node)
    errors = []
    for error in fast.check(value, node, (), 0):
        errors.append(error)
        if len(errors) >= limit:
            break
    plain_fits, schema._plainly_fits = schema._plainly_fits, lambda value, node: False
    try:
        assert (errors, fast.budget) == _general(value, node, limit)
    finally:
        schema._plainly_fits = plain_fits
    assert schema.validate(value, node, limit=limit) == errors


PARTS = st.lists(st.sampled_from(["text", "call", "result", "reasoning"]), max_size=4)


def _part(kind, k):
    if kind == "call":
        return Invocation(id=f"i{k}", name="f", arguments={})
    if kind == "result":
        return Result(invocation_id=f"i{k}")
    if kind == "reasoning":
        return Reasoning(text="r")
    return Text(text="t")


@given(st.lists(PARTS, max_size=5))
def test_one_walk_finds_the_calls_and_results_two_walks_find(shape):
    conv = Conversation(turns=tuple(Turn(role="assistant", parts=tuple(_part(kind, k) for k, kind in enumerate(kinds)))
                                    for kinds in shape))
    calls, results = located(conv)
    every = [(t, p, part) for t, turn in enumerate(conv.turns) for p, part in enumerate(turn.parts)]
    assert calls == [Located(t, p, part) for t, p, part in every if isinstance(part, Invocation)]
    assert results == [Located(t, p, part) for t, p, part in every if isinstance(part, Result)]
    assert all(type(found) is Located for found in calls + results)



KEYS = st.sampled_from(["", "a", "0", "1", "01", "-1", "a/b", "~1", "~0a", "²"])
TOKENS = KEYS | st.integers(-1, 3)
BODIES = st.recursive(st.integers(0, 2) | st.text(max_size=2),
                      lambda inner: st.lists(inner, min_size=1, max_size=3)
                      | st.dictionaries(KEYS, inner, min_size=1, max_size=5),
                      max_leaves=16)


@st.composite
def _below(draw, body):
    """Tokens into `body`, most of them there (a key, an index as a number or as text), some not."""
    tokens, node = [], body
    for _ in range(draw(st.integers(0, 5))):
        token = draw(TOKENS)
        if isinstance(node, dict) and draw(st.integers(0, 3)):
            token = draw(st.sampled_from(sorted(node)))
            node = node[token]
            if token in ("0", "1") and draw(st.booleans()):
                token = int(token)  # (a key a source holds as a number)
        elif isinstance(node, list) and draw(st.integers(0, 3)):
            index = draw(st.integers(0, len(node) - 1))
            token, node = draw(st.sampled_from([index, str(index)])), node[index]
        tokens.append(token)
    return tokens


@settings(max_examples=500)
@given(st.data(), BODIES, st.sampled_from(["", "", "", "/", "//", "/a", "//a", "/0", "a", "/a~1b"]))
def test_a_walk_from_the_tokens_finds_what_the_printed_pointer_does(data, body, pointer):
    tokens = data.draw(_below(resolve(body, pointer)))
    source = Source(exchange=data.draw(st.sampled_from([None, 2])), side="request", pointer=pointer)
    while tokens:
        cut = data.draw(st.integers(1, len(tokens)))
        source, tokens = source.child(*tokens[:cut]), tokens[cut:]
    root, below = source.tokens()
    assert (root.exchange, root.side) == (source.exchange, source.side)
    assert _outcome(lambda: wire_node(body, source, root.pointer, below)) == _outcome(
        lambda: resolve(body, source.pointer))


def _outcome(find):
    """What `find` returns, or the exception it raises (`resolve` reads `²` as a digit it cannot
    make an index of)."""
    try:
        return "found", find()
    except ValueError as err:
        return "raised", str(err)


ARGUMENTS = st.sampled_from([{"city": "Oslo"}, '{"city": "Oslo"}', "Oslo", None])
#: Each exchange: its request's history (how many rounds of calls and results it replays, and the
#: arguments each sends), the arguments of the call it is answered with, and whether it is rejected.
EXCHANGES = st.lists(st.tuples(st.lists(ARGUMENTS, max_size=3), ARGUMENTS, st.booleans()),
                     min_size=1, max_size=4)


def _anthropic(history, answer, rejected):
    messages = [{"role": "user", "content": "Weather?"}]
    for k, value in enumerate(history):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_0{k}",
                                                        "name": "get_weather", "input": value}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_0{k}",
                                                   "content": "4°C"}]}]
    if rejected:
        return record(ANTHROPIC, {"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": messages},
                      {"type": "error", "error": {"type": "invalid_request_error", "message":
                       "messages.1.content.0.tool_use.input: Input should be a valid dictionary"}},
                      status=400)
    return record(ANTHROPIC, {"model": "claude-sonnet-4-5", "max_tokens": 9, "messages": messages},
                  {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                   "stop_reason": "tool_use", "content": [
                       {"type": "tool_use", "id": f"toolu_0{len(history)}", "name": "get_weather",
                        "input": answer}]})


def _chat(history, answer, rejected):
    messages = [{"role": "user", "content": "Weather?"}]
    for k, value in enumerate(history):
        messages += [{"role": "assistant", "content": None, "tool_calls": [chat_call(value, call_id=f"c{k}")]},
                     {"role": "tool", "tool_call_id": f"c{k}", "content": "4°C"}]
    body = {"model": "gpt-4o-mini", "tools": CHAT_TOOLS, "messages": messages}
    if rejected:
        return record(CHAT, body, {"error": {"message": "Invalid type for 'messages[1].tool_calls[0]"
                                             ".function.arguments': expected a string, but got an object "
                                             "instead.", "type": "invalid_request_error"}}, status=400)
    return record(CHAT, body, {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
                               "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                                   "role": "assistant", "content": None,
                                   "tool_calls": [chat_call(answer, call_id=f"c{len(history)}")]}}]})


@settings(max_examples=150, deadline=None)
@given(EXCHANGES, st.sampled_from([(_anthropic, td204_arguments_not_object),
                                   (_chat, td203_arguments_not_string)]))
def test_a_call_judged_once_per_place_gives_the_findings_judging_each_occurrence_gives(exchanges, shape):
    """`unique` skips a call at a (conversation, turn, part, message) it judged; without that skip,
    every occurrence's finding is made and the repeats dropped by what they say."""
    write, rule = shape
    loaded = load_bytes("log.jsonl", jsonl(*(write(*exchange) for exchange in exchanges)))
    ctx = Context(loaded, rules=RULES)
    ctx.rule = RULES[rule.CODE]
    assert _listed(lambda: rule.check(ctx)) == _listed(lambda: _each_judged(ctx, rule))


def _each_judged(ctx, rule):
    every = [finding(ctx, call, message) for call, message in rule._findings(ctx)]
    kept = {(f.conversation, f.turn, f.part, f.message): f for f in reversed(every)}
    return sorted(kept.values(), key=every.index)


def _listed(find):
    """The findings, or the error a rule raised on the way (a response's call whose place a
    rejected retry left out of the conversation: judged, it is out of range)."""
    try:
        return list(find())
    except IndexError as err:
        return str(err)


def _any_case(word):
    """`word` with each letter in either case, an `i` also as `İ` or `ı` (which match it case-blind)."""
    return st.tuples(*(st.sampled_from([c, c.upper(), "İ", "ı"] if c == "i" else [c, c.upper()])
                       for c in word)).map("".join)


#: Lines holding the words `_FAILURE_LINE` looks for in any case, or other words, with what may
#: come around them.
LINES = st.lists(_any_case("failed") | _any_case("failure") | _any_case("timed out") | _any_case("to")
                 | st.sampled_from([" ", ":", ".", "3 ", ", ", "x", "K", "\t"]), max_size=6).map("".join)


@settings(max_examples=500)
@given(LINES)
def test_a_line_the_failure_search_matches_names_a_failure(line):
    if failures._FAILURE_LINE.search(line):
        assert failures._names_failure(line)


WORDS_AND_SPACE = st.text(alphabet="aAb \n\t", max_size=6)
REPLAY_PARTS = st.lists(st.builds(lambda text: Text(text=text), WORDS_AND_SPACE)
                        | st.just(Invocation(id="i", name="f", arguments={})), max_size=3)


@settings(max_examples=300)
@given(st.lists(REPLAY_PARTS, min_size=1, max_size=3), st.lists(REPLAY_PARTS, max_size=2), st.data())
def test_texts_kept_verbatim_are_texts_the_replay_keeps(replayed, beside, data):
    """`_verbatim` (each text is a text of the replay turns) skips the rule's test: none missing from
    the text, spaced out, of every turn near the calls' replays (the replay turns among them)."""
    turns = tuple((t, Turn(role="assistant", parts=tuple(parts))) for t, parts in enumerate(replayed))
    near = [p.text for parts in replayed + beside for p in parts if isinstance(p, Text)]
    # texts of the replay, the same in another case, or others
    some = st.sampled_from(near) | st.sampled_from(near).map(str.swapcase) | WORDS_AND_SPACE if near \
        else WORDS_AND_SPACE
    texts = data.draw(st.lists(some, min_size=1, max_size=3).map(lambda xs: [Text(text=x) for x in xs]))
    if td301_dropped_text._verbatim(texts, turns):
        assert all(norm(t.text) in norm(" ".join(near)) for t in texts)


VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([1.0, 0.0, -0.0, 2.5])
                      | st.text(alphabet="a~/", max_size=2),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["a", "b", "~", "/", "c~1"]), inner, max_size=3),
                      max_leaves=10)


@settings(max_examples=500)
@given(VALUES, VALUES, st.booleans())
def test_the_first_difference_is_where_two_values_are_not_json_equal(a, b, same):
    if same:
        b = a
    where = first_difference(a, b)
    assert (where is None) == schema._equal(a, b)
    if where is not None:
        here, there = resolve_pointer(a, where), resolve_pointer(b, where)
        assert (here, there) != (MISSING, MISSING)  # the place is in one of them at least
        assert MISSING in (here, there) or not schema._equal(here, there)
        assert first_difference(a, b, "/at") == "/at" + where


CODES = st.sampled_from(["TD101", "TD207", "TD304", "TD307", "TD601", "TD901"])


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from("abcd"), CODES | st.none(), CODES), max_size=12))
def test_the_memo_keeps_what_a_rule_still_to_run_asks_for(steps):
    """Each step: a rule asks for an entry (`shared`, with the last rule that asks), then the runner
    passes on to the next rule (in code order). An entry is let go once the runner passes the last
    rule that asks for it, and kept till then."""
    ctx = Context(load_bytes("log.jsonl", b""), rules=RULES)
    last: dict[str, str] = {}
    codes = sorted(code for _, _, code in steps)
    for (key, until, _), code in zip(steps, codes, strict=True):
        if key not in ctx.memo:
            ctx.shared(key, lambda: None, until=until)
            if until is not None:
                last[key] = until
        ctx.passing(code)
        for asked, until_asked in list(last.items()):
            assert (asked in ctx.memo) == (until_asked >= code)
            if until_asked < code:
                del last[asked]


WIRE_IDS = st.sampled_from(["a", "b"]) | st.none()
NAMES = st.sampled_from(["f", "g"]) | st.none()
CALLS = st.builds(lambda wire_id, name: Invocation(id="i", name=name or "f", arguments={}, wire_id=wire_id),
                  WIRE_IDS, NAMES)
RESULTS = st.builds(lambda wire_id, name: Result(wire_id=wire_id, name=name), WIRE_IDS, NAMES)


@settings(max_examples=500)
@given(st.sampled_from([CALLS, RESULTS]).flatmap(lambda parts: st.tuples(st.lists(parts, min_size=1, max_size=4),
                                                                         st.lists(parts, max_size=4))),
       st.data(), st.booleans(), st.booleans())
def test_parts_in_step_with_their_originals_are_paired_as_the_search_pairs_them(drawn, data, anchored, trusted):
    """A replay whose parts carry the originals' wire ids in order (`in_step`) pairs each original with
    the part at its place, as the search by id (and by order) pairs them. The replay's parts are
    drawn too from the originals themselves (the same objects, once or twice), and parts with those
    ids are elsewhere in the request."""
    originals, replayed = drawn
    if data.draw(st.booleans()):  # (as many as the originals: in step with them, or the same one twice)
        own = data.draw(st.lists(st.sampled_from(originals), min_size=len(originals), max_size=len(originals)))
    else:
        own = replayed
    local = [(1, k, part) for k, part in enumerate(own)]
    elsewhere = data.draw(st.lists(st.sampled_from(originals + replayed), max_size=3))
    index: dict[str, list[replay.Placed]] = {}
    for k, part in enumerate(elsewhere):
        if part.wire_id is not None:
            index.setdefault(part.wire_id, []).append((3, k, part))
    if replay.in_step(originals, local):
        assert list(zip(originals, local, strict=True)) == replay.searched(originals, local, lambda: index,
                                                                             anchored, trusted)


TOOLS = st.lists(st.builds(Tool, name=st.sampled_from(["f", "g"]), parameters=st.none() | st.just({"type": "object"}),
                           kind=st.sampled_from(["function", "custom", "tool_search", "namespace", "web_search"]),
                           source=st.builds(Source, pointer=st.sampled_from(["/tools/0", "/tools/1"]))),
                 max_size=3).map(tuple)


@settings(max_examples=300)
@given(TOOLS, TOOLS)
def test_tools_declared_again_answer_as_the_tools_worked_out_anew(before, tools):
    """`declared_again` keeps the latest request's `Declared` for equal tools (their sources aside):
    it answers what `Declared` of the request's own tools answers."""
    again, anew = declared_again(Declared(before), tools), Declared(tools)
    assert again.functions() == anew.functions()
    assert again.names() == anew.names()
    assert again.dynamic() == anew.dynamic()
