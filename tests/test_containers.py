"""Containers: every way a log arrives becomes exchanges, each body located in its container, and
one bad record never hides the good ones."""

import base64
import json

import pytest

from tooldbg.errors import InputError
from tooldbg.records import containers
from tooldbg.records import text as text_module
from tooldbg.records.containers import open_capture, read_capture

REQUEST = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}]}
RESPONSE = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]}
SSE = ('data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}'
       '\n\ndata: [DONE]\n\n')


def har(*entries):
    return json.dumps({"log": {"version": "1.2", "entries": list(entries)}}).encode()


def har_entry(request_text, response_text, *, encoding=None, mime="application/json"):
    content = {"size": len(response_text), "mimeType": mime, "text": response_text}
    if encoding:
        content["encoding"] = encoding
    return {"request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                        "headers": [{"name": "Authorization", "value": "Bearer sk-live-123456789"}],
                        "postData": {"mimeType": "application/json", "text": request_text}},
            "response": {"status": 200, "headers": [{"name": "Content-Type", "value": mime}],
                         "content": content}}


def test_single_request_body_is_one_exchange_with_a_request():
    capture = read_capture("req.json", json.dumps(REQUEST).encode())
    assert capture.container == "json"
    [exchange] = capture.exchanges
    assert exchange.request.body == REQUEST and exchange.response is None


def test_single_response_body_is_recognised_as_a_response():
    capture = read_capture("resp.json", json.dumps(RESPONSE).encode())
    [exchange] = capture.exchanges
    assert exchange.request is None and exchange.response.body == RESPONSE


def test_har_bodies_are_located_and_headers_lowered():
    capture = read_capture("run.har", har(har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))))
    assert capture.container == "har"
    [exchange] = capture.exchanges
    assert exchange.request.location == "/log/entries/0/request/postData/text"
    assert exchange.response.location == "/log/entries/0/response/content/text"
    assert exchange.request.headers["authorization"].startswith("Bearer")
    assert exchange.request.url.endswith("/v1/chat/completions")
    assert exchange.response.status == 200 and exchange.response.body == RESPONSE


def test_har_base64_content_and_sse_text():
    encoded = base64.b64encode(json.dumps(RESPONSE).encode()).decode()
    capture = read_capture("run.har", har(har_entry(json.dumps(REQUEST), encoded, encoding="base64"),
                                          har_entry(json.dumps(REQUEST), SSE, mime="text/event-stream")))
    first, second = capture.exchanges
    assert first.response.body == RESPONSE
    assert [e.data for e in second.response.events][-1] == "[DONE]"
    assert second.response.text == SSE


def test_har_bad_entry_is_an_error_and_the_rest_still_reads():
    capture = read_capture("run.har", har(har_entry("{not json", json.dumps(RESPONSE)),
                                          har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))))
    assert len(capture.exchanges) == 2
    assert capture.exchanges[1].request.body == REQUEST
    [err] = capture.errors
    assert err.location == "/log/entries/0/request/postData/text"
    assert "line 1 column 2" in err.message


def test_recorded_interactions_with_string_bodies():
    doc = {"version": 1, "interactions": [
        {"request": {"method": "POST", "url": "https://x/v1/chat/completions", "headers": {},
                     "body": json.dumps(REQUEST)},
         "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": SSE}}]}
    capture = read_capture("rec.json", json.dumps(doc).encode())
    assert capture.container == "interactions"
    [exchange] = capture.exchanges
    assert exchange.request.location == "/interactions/0/request/body"
    assert exchange.request.body == REQUEST
    assert exchange.response.events[0].data["object"] == "chat.completion.chunk"


def test_jsonl_exchanges_with_a_bad_line_in_between():
    lines = [json.dumps({"request": {"body": REQUEST}, "response": {"status": 200, "body": RESPONSE}}),
             '{"request": {"body": ',
             json.dumps({"request": {"body": REQUEST}, "response": {"status": 400,
                                                                   "body": {"error": {"message": "bad"}}}})]
    capture = read_capture("log.jsonl", "\n".join(lines).encode())
    assert capture.container == "jsonl"
    assert [e.index for e in capture.exchanges] == [0, 1]
    assert capture.exchanges[1].response.status == 400
    assert capture.exchanges[0].request.location == "line 1/request/body"
    assert [(e.location, "invalid JSON" in e.message) for e in capture.errors] == [("line 2", True)]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_jsonl_lines_are_numbered_as_the_file_breaks_them(newline):
    """A byte-order mark, blank lines and any of the three line ends: each record is located at its
    line, as an editor numbers it (the file is read from its bytes, line by line)."""
    record = json.dumps({"request": {"body": REQUEST}, "response": {"status": 200, "body": RESPONSE}})
    text = newline.join([record, "", "  ", '{"request": {"body": ', record, ""])
    capture = read_capture("log.jsonl", b"\xef\xbb\xbf" + text.encode())
    assert capture.container == "jsonl"
    assert [e.request.location for e in capture.exchanges] == ["line 1/request/body", "line 5/request/body"]
    assert [e.location for e in capture.errors] == ["line 4"]


def test_a_json_document_on_many_lines_is_not_json_lines():
    body = json.dumps({"request": {"body": REQUEST}, "response": {"status": 200, "body": RESPONSE}},
                      indent=2)
    capture = read_capture("one.json", body.encode())
    assert capture.container == "json" and len(capture.exchanges) == 1


def test_a_pretty_printed_json_with_one_syntax_error_is_reported_where_it_is():
    """Before: the file was re-read as JSON Lines, and each of its lines reported as broken — none
    at the trailing comma, and the container named `jsonl`."""
    lines = json.dumps({"request": {"body": REQUEST}, "response": {"status": 200, "body": RESPONSE}},
                       indent=2).split("\n")
    assert lines[7] == '          "content": "hi"'
    lines[7] += ","  # a trailing comma on line 8
    with pytest.raises(InputError) as err:
        read_capture("one.json", "\n".join(lines).encode())
    assert (err.value.location, err.value.message) == \
        ("", "invalid JSON at line 8 column 26: trailing comma is not allowed")


def test_json_lines_whose_first_record_is_broken_are_still_json_lines():
    record = json.dumps({"request": {"body": REQUEST}, "response": {"status": 200, "body": RESPONSE}})
    capture = read_capture("log.jsonl", "\n".join([record[:40], record, record]).encode())
    assert capture.container == "jsonl" and [e.index for e in capture.exchanges] == [0, 1]
    assert [e.location for e in capture.errors] == ["line 1"]


def test_jsonl_of_bare_events_is_one_stream():
    lines = [json.dumps({"type": "message_start", "message": {}}), json.dumps({"type": "message_stop"})]
    capture = read_capture("x.chunks.txt", "\n".join(lines).encode())
    [exchange] = capture.exchanges
    assert [e.data["type"] for e in exchange.response.events] == ["message_start", "message_stop"]


def test_sse_file_with_crlf_comments_and_padding():
    text = ': OPENROUTER PROCESSING\r\n\r\nevent: message_stop\r\ndata: {"type":"message_stop"    }\r\n\r\n'
    capture = read_capture("s.sse", text.encode())
    assert capture.container == "sse"
    [event] = capture.exchanges[0].response.events
    assert event.name == "message_stop" and event.data == {"type": "message_stop"}


def test_json_array_of_gemini_chunks_is_a_stream():
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]},
              {"candidates": [{"content": {"role": "model", "parts": [{"text": "b"}]},
                               "finishReason": "STOP"}]}]
    capture = read_capture("g.json", json.dumps(chunks).encode())
    assert len(capture.exchanges[0].response.events) == 2


@pytest.mark.parametrize("data, location, message", [
    (b"", "", "empty file"),
    (b"   \n", "", "empty file"),
    (b"\xff\xfe{", "byte 0", "invalid UTF-8"),
    (b'{"model": "x", "messages": [', "", "invalid JSON at line 1"),
    (b"42", "", "expected a JSON object or array"),
    (b'{"log": {"entries": [', "", "invalid JSON at line 1 column 22: unexpected end of data"),  # (cut)
    # past the parser's 1,024 levels: the same error, at the same place, as 300 levels give
    pytest.param(b"[" * 2000 + b"]" * 2000, "/0" * 200, "JSON nested deeper than 200 levels", id="2000 deep"),
    pytest.param(b"[" * 300 + b"]" * 300, "/0" * 200, "JSON nested deeper than 200 levels", id="300 deep"),
])
def test_unreadable_files_raise_one_located_error(data, location, message):
    with pytest.raises(InputError) as err:
        read_capture("bad.json", data)
    assert err.value.location == location
    assert message in err.value.message
    assert str(err.value).startswith("bad.json")


def har_laid_out(entries, layout):
    """A HAR as exporters write it: on one line, pretty-printed (DevTools, Firefox), or an entry a
    line (mitmproxy)."""
    if layout == "one line":
        return har(*entries)
    if layout == "pretty":  # (a page titled like the key, a comment after the entries with a bracket)
        return json.dumps({"log": {"version": "1.2", "pages": [{"id": "p1", "title": "entries"}],
                                   "entries": entries, "comment": "exported [by hand]"}}, indent=2).encode()
    lines = ",\n".join(json.dumps(e) for e in entries)
    return ('{"log": {"version": "1.2", "creator": {"name": "mitmproxy"}, "entries": [\n'
            + lines + "\n]}}\n").encode()


def exchanges_and_errors(capture):
    return ([(e.index, e.request and (e.request.location, e.request.body, e.request.text),
              e.response and (e.response.status, e.response.body)) for e in capture.exchanges],
            [(e.location, e.message) for e in capture.errors])


@pytest.mark.parametrize("layout", ["one line", "pretty", "an entry a line"])
def test_a_har_reads_the_same_whatever_its_layout_and_one_bad_entry_hides_no_other(layout):
    good = har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))
    entries = [good, har_entry("{not json", json.dumps(RESPONSE)), good, {**good, "request": 7}, good]
    capture = read_capture("run.har", har_laid_out(entries, layout))
    assert exchanges_and_errors(capture) == exchanges_and_errors(read_capture("run.har", har(*entries)))
    exchanges, errors = exchanges_and_errors(capture)
    assert [e[0] for e in exchanges] == [0, 1, 2, 3, 4] and exchanges[4][1][1] == REQUEST
    assert [location for location, _ in errors] == ["/log/entries/1/request/postData/text",
                                                    "/log/entries/3/request"]


@pytest.mark.parametrize("layout", ["pretty", "an entry a line"])
def test_a_har_entry_that_is_no_object_or_no_json_is_reported_as_when_read_whole(layout):
    """Entries are found in the bytes; when one of them does not parse alone, the file is read as
    one document, so the errors are the ones a whole read gives."""
    good = har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))
    data = har_laid_out([good, None, good], layout)
    capture = read_capture("run.har", data)
    assert [(e.index, e.request.location) for e in capture.exchanges] == \
        [(0, "/log/entries/0/request/postData/text"), (1, "/log/entries/2/request/postData/text")]
    assert [(e.location, e.message) for e in capture.errors] == [("/log/entries/1", "expected an object, not null")]
    broken = data.replace(b'"status": 200', b'"status": 200,,', 1)  # no JSON: as it always read

    def outcome(read):
        try:
            capture = read()
            return capture.container, exchanges_and_errors(capture)
        except InputError as err:
            return str(err)

    split = outcome(lambda: read_capture("run.har", broken))
    assert split == outcome(lambda: open_capture("run.har", broken, whole=True))
    assert "invalid JSON" in str(split)


def nested(depth):
    """A value `depth` levels deep (arrays), as JSON text."""
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [300, 1021, 1022, 1030, 3000])
def test_a_record_too_deep_is_its_own_error_in_every_layout_and_container(depth):
    """The depth limit counts from the record, whatever holds it. Before: a HAR entry 1,022 levels
    deep was that entry's error when the HAR was pretty-printed (each entry parsed alone) but made
    the file unreadable on one line (parsed whole, past the parser's 1,024 levels from the root);
    past 1,024 the pretty HAR went unread as well, then read as JSON Lines."""
    good = har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))
    deep_text = json.dumps(good)[:-1] + ', "_x": ' + nested(depth) + "}"
    pointer = "/_x" + "/0" * 199  # the first array past 200 levels, counted from the entry

    def har_text(layout):
        entries = [json.dumps(good), deep_text, json.dumps(good)]
        if layout == "one line":
            return ('{"log": {"version": "1.2", "entries": [' + ", ".join(entries) + "]}}").encode()
        return ('{"log": {"version": "1.2", "entries": [\n  ' + ",\n  ".join(entries) + "\n]}}").encode()

    for layout in ("one line", "an entry a line"):
        capture = read_capture("run.har", har_text(layout))
        assert [e.request.location for e in capture.exchanges] == \
            ["/log/entries/0/request/postData/text", "/log/entries/2/request/postData/text"], layout
        assert [(e.location, e.message) for e in capture.errors] == \
            [(f"/log/entries/1{pointer}", "JSON nested deeper than 200 levels, which tooldbg does not read")]
    record = json.dumps({"request": {"body": REQUEST}, "response": {"status": 200, "body": RESPONSE}})
    deep_record = record[:-1] + ', "_x": ' + nested(depth) + "}"
    for name, text, where in [
            ("log.jsonl", "\n".join([record, deep_record, record]), "line 2"),
            ("rec.json", '{"interactions": [' + ", ".join([record, deep_record, record]) + "]}",
             "/interactions/1"),
            ("list.json", "[" + ", ".join([record, deep_record, record]) + "]", "/1")]:
        capture = read_capture(name, text.encode())
        assert len(capture.exchanges) == 2, name
        assert [e.location for e in capture.errors] == [where + pointer], name


def test_an_opened_capture_makes_each_exchange_when_it_is_asked_for():
    """`open_capture` parses a record when the exchange before it has been taken: a bad record's
    error appears when the reading reaches it, and the exchanges after it still come."""
    record = json.dumps({"request": {"body": REQUEST}, "response": {"status": 200, "body": RESPONSE}})
    capture = open_capture("log.jsonl", "\n".join([record, '{"request": ', record]).encode())
    assert capture.records == 3
    exchanges = iter(capture.exchanges)
    assert next(exchanges).index == 0 and capture.errors == []
    assert next(exchanges).index == 1 and [e.location for e in capture.errors] == ["line 2"]
    assert next(exchanges, None) is None


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_large_file_with_a_bad_byte_far_in_names_that_byte(bom):
    """A file that is not ASCII is checked as UTF-8 a part at a time; the byte named is the first
    bad one, wherever it falls (counted after a byte-order mark)."""
    record = json.dumps({"request": {"body": {**REQUEST, "messages": [
        {"role": "user", "content": "héllo 😀 " * 40}]}}}, ensure_ascii=False).encode()
    lines = bom + b"\n".join([record] * 3000)
    assert read_capture("log.jsonl", lines).container == "jsonl"
    for at in (len(lines) // 2, len(lines) - 1):
        broken = lines[:at] + b"\xff" + lines[at + 1:]
        with pytest.raises(InputError) as err:
            read_capture("log.jsonl", broken)
        with pytest.raises(UnicodeDecodeError) as decoded:
            broken.decode("utf-8-sig")
        assert (err.value.location, err.value.message) == (f"byte {decoded.value.start}", "invalid UTF-8")


# ------------------------------------------------ what mutation testing found untested (seed 27)


def test_a_document_too_deep_with_no_records_array_is_one_located_error():
    """Past the parser's limit, a document is searched for a container's records; an object with
    none is the file's error at the pointer, as a shallower one's is (not a crash of the search)."""
    data = b'{"a": ' + b"[" * 2000 + b"]" * 2000 + b"}"
    with pytest.raises(InputError) as err:
        read_capture("deep.json", data)
    assert (err.value.location, err.value.message) == \
        ("/a" + "/0" * 199, "JSON nested deeper than 200 levels, which tooldbg does not read")


def test_json_lines_whose_first_line_ends_in_blank_space_are_json_lines():
    """A first line detection did not parse in place (blank space around it) is parsed to tell."""
    line = json.dumps({"request": {"body": REQUEST}, "response": {"body": RESPONSE}}).encode()
    capture = read_capture("log.jsonl", line + b"   \n" + line + b"\n")
    assert capture.container == "jsonl" and len(capture.exchanges) == 2


def test_an_sse_file_cut_inside_a_character_where_its_head_is_sniffed_is_read():
    """The head sniffed for SSE fields ends where it ends, inside a character or not."""
    event = 'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"é"}}]}\n\n'
    data = ("".join([event] * 400) + "data: [DONE]\n\n").encode()
    head = containers._HEAD
    pad = next(n for n in range(len(event.encode())) if (b": " + b"x" * n + b"\n" + data)[head - 1] == 0xC3)
    data = b": " + b"x" * pad + b"\n" + data  # (an SSE comment first: byte 16,384 is an é's second)
    capture = read_capture("stream.sse", data)
    assert capture.container == "sse" and len(capture.exchanges[0].response.events) == 401


def test_a_file_cut_inside_a_character_at_the_end_of_a_checked_chunk_names_the_byte():
    """The UTF-8 check decodes a megabyte at a time; a character cut at the very end of the file,
    where a chunk ends too, is an error at its first byte."""
    chunk = text_module._CHUNK
    text = b'{"s": "' + "é".encode() * (chunk // 2) + b'"}'
    data = text[:chunk - 1] + b"\xc3"  # (exactly one chunk, its last byte a lone lead byte)
    assert len(data) == chunk
    with pytest.raises(InputError) as err:
        read_capture("cut.json", data)
    assert (err.value.location, err.value.message) == (f"byte {chunk - 1}", "invalid UTF-8")


def test_a_base64_body_that_is_not_utf8_names_the_byte():
    entry = har_entry(json.dumps(REQUEST), base64.b64encode(b'{"a": "\xff"}').decode(), encoding="base64")
    capture = read_capture("x.har", har(entry))
    [error] = capture.errors
    assert (error.path, error.location, error.message) == \
        ("x.har", "/log/entries/0/response/content/text", "invalid UTF-8 at byte 7")


def test_a_body_too_deep_is_an_error_at_its_pointer_inside_the_body():
    entry = har_entry(json.dumps({**REQUEST, "x": json.loads("[" * 300 + "]" * 300)}), json.dumps(RESPONSE))
    capture = read_capture("x.har", har(entry))
    [error] = capture.errors
    assert error.location == "/log/entries/0/request/postData/text#/x" + "/0" * 199
    assert error.message.startswith("JSON nested deeper than 200 levels")


def test_headers_of_the_wrong_type_are_an_error_of_the_file():
    entry = har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))
    entry["response"]["headers"] = 42
    capture = read_capture("x.har", har(entry))
    assert [(e.path, e.message) for e in capture.errors] == \
        [("x.har", "headers must be an object or a list, not a number")]


def test_a_mitmproxy_flow_that_failed_keeps_its_error_and_a_status_keeps_none():
    """mitmproxy's HAR export writes a flow that got no response as status 0 with `_error`."""
    failed = har_entry(json.dumps(REQUEST), "")
    failed["response"].update(status=0, _error="Connection refused")
    answered = har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))
    answered["response"]["_error"] = "a note some exporter left"
    capture = read_capture("x.har", har(failed, answered))
    assert [e.response.error for e in capture.exchanges] == ["Connection refused", None]


def test_an_interaction_that_is_no_object_is_its_own_error():
    good = {"request": {"body": json.dumps(REQUEST)}, "response": {"body": json.dumps(RESPONSE)}}
    capture = read_capture("rec.json", json.dumps({"interactions": [42, good]}).encode())
    assert len(capture.exchanges) == 1
    assert [(e.location, e.message) for e in capture.errors] == \
        [("/interactions/0", "expected an object, not a number")]


def test_a_recording_too_deep_to_parse_whole_with_an_array_before_its_interactions_loses_one():
    """Past the parser's limit a recording's interactions are found in its text; an array before
    them (its metadata's) is passed over, not the end of the search."""
    good = json.dumps({"request": {"body": json.dumps(REQUEST)}, "response": {"body": json.dumps(RESPONSE)}})
    deep = good.replace('"response": {"body": ', '"response": {"body": ' + nested(1100) + ', "_": ')
    data = ('{"tags": ["a", "b"], "interactions": [' + ", ".join([good, deep, good]) + "]}").encode()
    capture = read_capture("rec.json", data)
    assert len(capture.exchanges) == 2
    [error] = capture.errors
    assert error.location.startswith("/interactions/1/response/body/0/0")


def test_a_body_an_exporter_says_it_cut_is_read_when_it_is_whole():
    """Chrome's "body discarded" comment, on a body that still parses (a limit the body did not reach
    on that side), is no error; on a body that does not parse, the comment is the error."""
    whole = har_entry(json.dumps(REQUEST), json.dumps(RESPONSE))
    cut = har_entry(json.dumps(REQUEST)[:20], json.dumps(RESPONSE))
    for entry in (whole, cut):
        entry["request"]["postData"]["comment"] = "Body discarded: longer than limit of 10 bytes"
    capture = read_capture("x.har", har(whole, cut))
    assert capture.exchanges[0].request.body == REQUEST
    assert [(e.location, e.message) for e in capture.errors] == [(
        "/log/entries/1/request/postData/text",
        "body truncated by the exporter: 'Body discarded: longer than limit of 10 bytes'")]
