"""TD8xx target pre-flight: the tables in `tooldbg/targets.py` are data every rule reads; each rule
finds the history a target would refuse, quoting the target's own error, and stays quiet on what the
target accepts — above all on real traffic checked against the provider that accepted it."""

import json
import re

import pytest

from tests import paths
from tests.checks.helpers import run_rules
from tooldbg import formats
from tooldbg.checks import RULES, export_rules, preflight, run_checks, select_rules
from tooldbg.checks.targeting import failure
from tooldbg.fit import Limit
from tooldbg.formats.profiles import PROFILES, wire_format
from tooldbg.load import load_bytes, load_file
from tooldbg.targets import TABLES

OPENAI = "https://api.openai.com/v1/chat/completions"
RESPONSES = "https://api.openai.com/v1/responses"
ANTHROPIC = "https://api.anthropic.com/v1/messages"
DEEPSEEK = "https://api.deepseek.com/chat/completions"
KIMI = "https://api.moonshot.ai/v1/chat/completions"


def gemini_url(model):
    return f"https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent"


TARGETS = (*formats.WIRE_FORMATS, *PROFILES)


# ------------------------------------------------------------------------------------ builders


def log(*exchanges):
    """JSON Lines: each exchange (url, request body, response body or None[, status])."""
    lines = []
    for url, request, response, *status in exchanges:
        record = {"request": {"method": "POST", "url": url, "body": request}}
        if response is not None:
            record["response"] = {"status": status[0] if status else 200,
                                  "headers": {"content-type": "application/json"}, "body": response}
        lines.append(json.dumps(record))
    return ("\n".join(lines) + "\n").encode()


def check(data, target, codes=("TD8",)):
    loaded = load_bytes("log.jsonl", data)
    assert loaded.errors == [], [str(e) for e in loaded.errors]
    return run_rules(loaded, select_rules(codes, target=target), target)


def only(findings, code):
    found = [f for f in findings if f.code == code]
    assert len(found) == 1, [f"{f.code} {f.message}" for f in findings]
    return found[0]


def tool_call(cid, name="get_weather", args='{"city":"Oslo"}'):
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def chat(*messages, model="gpt-4.1", tools=("get_weather",), **extra):
    return {"model": model, "messages": list(messages),
            "tools": [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
                      for n in tools], **extra}


def chat_history(cid="call_Q3zbX8mN1vRtY6kLpD2wHs9F", **extra):
    return chat({"role": "user", "content": "Weather in Oslo?"},
                {"role": "assistant", "content": None, "tool_calls": [tool_call(cid)]},
                {"role": "tool", "tool_call_id": cid, "content": "4°C"}, **extra)


def ant(*messages, thinking=None, tools=("get_weather",)):
    body = {"model": "claude-sonnet-4-5", "max_tokens": 2048, "messages": list(messages),
            "tools": [{"name": n, "input_schema": {"type": "object"}} for n in tools]}
    if thinking:
        body["thinking"] = thinking
    return body


def tool_use(tid, name="get_weather", city="Oslo"):
    return {"type": "tool_use", "id": tid, "name": name, "input": {"city": city}}


def tool_result(tid, content="4°C"):
    return {"type": "tool_result", "tool_use_id": tid, "content": content}


def user(text):
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def ant_history(tid="toolu_01ErzNLEIrn8YdTo73JO08dN", assistant=None, result=None, **extra):
    return ant(user("Weather in Oslo?"),
               {"role": "assistant", "content": assistant or [tool_use(tid)]},
               {"role": "user", "content": result or [tool_result(tid)]}, **extra)


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOYfeQZAARDAkZEPlo8AAAAAElFTkSuQmCC"
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}


def gem(*contents, tools=("get_weather",)):
    return {"contents": list(contents),
            "tools": [{"functionDeclarations": [{"name": n, "parametersJsonSchema": {"type": "object"}}
                                                for n in tools]}]}


def gcall(name="get_weather", city="Oslo", signature=None):
    part = {"functionCall": {"name": name, "args": {"city": city}}}
    if signature:
        part["thoughtSignature"] = signature
    return part


def gresponse(name="get_weather", output="4°C"):
    return {"functionResponse": {"name": name, "response": {"output": output}}}


# ------------------------------------------------------------------------------------ the tables


@pytest.mark.parametrize("target", TARGETS)
def test_every_target_has_a_table_of_quoted_constraints(target):
    table = TABLES[target]
    entries = [*table.call_id, *table.tool_name,
               *(e for e in (table.pairing, table.result_media, table.reasoning) if e is not None)]
    assert entries, f"{target} has no constraint"
    for entry in entries:
        assert entry.error.strip() and entry.source.strip()
    for limit in (*table.call_id, *table.tool_name):
        assert limit.test in ("empty", "pattern", "max_length")
        if limit.test == "pattern":
            re.compile(str(limit.value))
        if limit.test == "max_length":
            assert isinstance(limit.value, int)


def test_profiles_speak_openai_chat_and_keep_its_pairing():
    for profile in PROFILES:
        assert wire_format(profile) == "openai-chat"
        assert TABLES[profile].pairing == TABLES["openai-chat"].pairing
        assert TABLES[profile].result_media == TABLES["openai-chat"].result_media
    assert TABLES["mistral"].call_id[0].value == "[a-zA-Z0-9]{9}"
    # OpenAI's 40-character id risk is OpenAI's, not the profiles'
    assert not any(limit.test == "max_length" for p in PROFILES for limit in TABLES[p].call_id)


def test_the_call_id_limits_of_each_target():
    def broken(target, value):
        limit = failure(value, TABLES[target].call_id)
        return None if limit is None else (limit.test, limit.certain)

    assert broken("anthropic", "functions.Bash:0") == ("pattern", True)
    assert broken("anthropic", "toolu_01ErzNLEIrn8YdTo73JO08dN") is None
    assert broken("anthropic", "") == ("empty", True)
    assert broken("bedrock", "functions.Bash:0") is None  # Bedrock allows . and :
    assert broken("bedrock", "x" * 65) == ("max_length", True)
    assert broken("mistral", "gSIMJiOkT") is None
    assert broken("mistral", "call_0fypS1hVX") == ("pattern", True)
    assert broken("openai-responses", "c" * 65) == ("max_length", True)
    assert broken("openai-chat", "c" * 41) == ("max_length", False)  # a risk
    assert broken("openai-chat", "") == ("empty", True)
    assert failure("", (Limit("pattern", "e", "s", value="x+"),)) is None  # empty is `empty`'s business


def test_target_rules_run_only_with_a_target():
    assert [r.code for r in select_rules(["TD8"])] == []
    assert {r.code for r in select_rules(["TD8"], target="anthropic")} == {
        "TD801", "TD802", "TD803", "TD804", "TD805", "TD806", "TD807"}
    assert RULES["TD802"].severity == "warning"
    data = log((ANTHROPIC, ant_history("functions.get_weather:0"), None))
    assert check(data, None) == []


# -------------------------------------------------------------------------------------- TD801/802


class TestCallIds:
    def test_kimi_ids_replayed_to_anthropic(self):
        findings = check(log((OPENAI, chat_history("functions.get_weather:0"), None)), "anthropic")
        finding = only(findings, "TD801")
        assert (finding.turn, finding.part) == (1, 0) and finding.severity == "error"
        assert finding.pointer == "/request/body#/messages/1/tool_calls/0"
        assert "'functions.get_weather:0'" in finding.message
        assert "String should match pattern '^[a-zA-Z0-9_-]+$'" in finding.message

    def test_the_same_ids_suit_bedrock(self):
        assert check(log((OPENAI, chat_history("functions.get_weather:0"), None)), "bedrock") == []

    def test_mistral_wants_nine_letters_or_digits(self):
        finding = only(check(log((OPENAI, chat_history("call_0fypS1hVX"), None)), "mistral"), "TD801")
        assert "Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, with a length of 9." in finding.message
        assert check(log((OPENAI, chat_history("gSIMJiOkT"), None)), "mistral") == []

    def test_responses_call_id_over_64(self):
        long_id = "codex_mcp__github__search_issues_exec-" + "9f1c2b7e-4d3a-4e8f-b6a1-0c2d3e4f5a6b"
        finding = only(check(log((OPENAI, chat_history(long_id), None)), "openai-responses"), "TD801")
        assert f"got a string with length {len(long_id)} instead" in finding.message

    def test_openai_40_is_a_risk(self):
        fc = "fc_68b5e2a1c3d48190a7f2e6b9d1c04a5b0e3f7c92d8a61b45"
        findings = check(log((OPENAI, chat_history(fc), None)), "openai-chat")
        finding = only(findings, "TD802")
        assert finding.severity == "warning" and "51 characters" in finding.message
        assert "maximum length 40, but got a string with length 51" in finding.message

    def test_an_empty_id(self):
        finding = only(check(log((ANTHROPIC, ant_history(""), None)), "anthropic"), "TD801")
        assert "(empty)" in finding.message

    def test_an_orphan_result_id_is_checked_too(self):
        body = chat({"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": None, "tool_calls": [tool_call("call_ok")]},
                    {"role": "tool", "tool_call_id": "call_ok", "content": "4°C"},
                    {"role": "tool", "tool_call_id": "fn:stale", "content": "?"})
        found = [(f.turn, f.part, f.message.split(" id ")[0]) for f in check(log((OPENAI, body, None)), "anthropic")
                 if f.code == "TD801"]
        assert found == [(2, 1, "anthropic rejects result")]

    def test_gemini_without_ids_gets_ids_from_the_writer(self):
        body = gem({"role": "user", "parts": [{"text": "Oslo?"}]}, {"role": "model", "parts": [gcall()]},
                   {"role": "user", "parts": [gresponse()]})
        assert check(log((gemini_url("gemini-2.5-flash"), body, None)), "anthropic") == []


# ------------------------------------------------------------------------------------------ TD803


class TestPairing:
    def test_a_user_message_before_the_results(self):
        body = chat({"role": "user", "content": "Weather in Oslo?"},
                    {"role": "assistant", "content": None, "tool_calls": [tool_call("call_A")]},
                    {"role": "user", "content": "Celsius please."},
                    {"role": "tool", "tool_call_id": "call_A", "content": "4°C"})
        finding = only(check(log((OPENAI, body, None)), "openai-chat"), "TD803")
        assert (finding.turn, finding.part) == (1, 0)
        assert "did not have response messages: call_A" in finding.message

    def test_responses_accepts_the_result_later(self):
        body = {"model": "gpt-5.5", "input": [
            {"role": "user", "content": "Weather in Oslo?"},
            {"type": "function_call", "call_id": "call_A", "name": "get_weather", "arguments": '{"city":"Oslo"}'},
            {"role": "user", "content": "Celsius please."},
            {"type": "function_call_output", "call_id": "call_A", "output": "4°C"}],
            "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]}
        data = log((RESPONSES, body, None))
        assert check(data, "openai-responses") == []
        assert [f.code for f in check(data, "anthropic")] == ["TD803"]

    def test_responses_result_never_given(self):
        body = {"model": "gpt-5.5", "input": [
            {"role": "user", "content": "Weather in Oslo?"},
            {"type": "function_call", "call_id": "call_A", "name": "get_weather", "arguments": "{}"},
            {"role": "user", "content": "Never mind."}]}
        finding = only(check(log((RESPONSES, body, None)), "openai-responses"), "TD803")
        assert "No tool output found for function call call_A." in finding.message

    def test_text_after_the_call_in_its_turn_for_anthropic(self):
        body = {"model": "gpt-5.3-codex-spark", "input": [
            {"role": "user", "content": "Run the tests."},
            {"type": "function_call", "call_id": "call_S", "name": "shell", "arguments": '{"command":"pytest"}'},
            {"type": "message", "role": "assistant", "id": "msg_1",
             "content": [{"type": "output_text", "text": "Running them.", "annotations": []}]},
            {"type": "function_call_output", "call_id": "call_S", "output": "1 failed"}]}
        data = log((RESPONSES, body, None))
        finding = only(check(data, "anthropic"), "TD803")
        assert (finding.turn, finding.part) == (1, 1) and "a text part follows call 'shell'" in finding.message
        assert check(data, "openai-chat") == [] and check(data, "openai-responses") == []

    def test_gemini_wants_one_response_per_call(self):
        body = gem({"role": "user", "parts": [{"text": "Oslo and Bergen?"}]},
                   {"role": "model", "parts": [gcall(city="Oslo"), gcall(city="Bergen")]},
                   {"role": "user", "parts": [gresponse()]},
                   {"role": "user", "parts": [{"text": "and?"}]})
        finding = only(check(log((gemini_url("gemini-2.5-flash"), body, None)), "gemini"), "TD803")
        assert (finding.turn, finding.part) == (1, None)
        assert "2 call(s) in this turn, 1 response(s) in the next" in finding.message
        assert "number of function response parts is equal to the number of function call parts" in finding.message

    def test_a_history_ending_on_calls_is_not_a_finding(self):
        body = chat({"role": "user", "content": "Weather in Oslo?"})
        response = {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1",
                    "choices": [{"index": 0, "finish_reason": "tool_calls",
                                 "message": {"role": "assistant", "content": None,
                                             "tool_calls": [tool_call("call_A")]}}]}
        for target in TARGETS:
            assert [f for f in check(log((OPENAI, body, response)), target) if f.code == "TD803"] == []

    @pytest.mark.needs_corpus
    def test_responses_back_to_back_in_a_response_only_capture(self):
        path = paths.CORPUS / "vercel-ai-fixtures" / "anthropic" / "anthropic-tool-search-regex.1.chunks.txt"
        findings = run_checks(load_file(path), select_rules(["TD8"], target="anthropic"), "anthropic")
        assert findings == []


# ------------------------------------------------------------------------------------------ TD804


class TestResultMedia:
    SCREENSHOT = ant_history("toolu_01Vb", result=[{"type": "tool_result", "tool_use_id": "toolu_01Vb",
                                                    "content": [{"type": "text", "text": "Screenshot:"}, IMAGE]}])

    def test_chat_tool_messages_carry_text_only(self):
        finding = only(check(log((ANTHROPIC, self.SCREENSHOT, None)), "openai-chat"), "TD804")
        assert (finding.turn, finding.part) == (2, 0)
        assert "carries image (image/png)" in finding.message and "text only" in finding.message

    @pytest.mark.parametrize("target", ["anthropic", "bedrock", "openai-responses"])
    def test_targets_that_take_images_in_results(self, target):
        assert [f for f in check(log((ANTHROPIC, self.SCREENSHOT, None)), target) if f.code == "TD804"] == []

    def test_gemini_depends_on_the_model(self):
        def body():
            return gem({"role": "user", "parts": [{"text": "Screenshot?"}]},
                       {"role": "model", "parts": [gcall("screenshot")]},
                       {"role": "user", "parts": [{"functionResponse": {
                           "name": "screenshot", "response": {"output": "done"},
                           "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}]}}]},
                       tools=("screenshot",))

        old = check(log((gemini_url("gemini-2.5-flash"), body(), None)), "gemini")
        assert "`function_response.parts` is not supported for this model" in only(old, "TD804").message
        assert check(log((gemini_url("gemini-3-pro-preview"), body(), None)), "gemini", ["TD804"]) == []
        # a model tooldbg does not know: no finding rather than a guess
        assert check(log(("https://gateway.example/v1/generate", body(), None)), "gemini") == []


# ------------------------------------------------------------------------------------------ TD805


class TestReasoning:
    THINKING = {"type": "enabled", "budget_tokens": 2048}

    def test_anthropic_thinking_on_without_the_thinking_block(self):
        data = log((ANTHROPIC, ant_history(thinking=self.THINKING), None))
        finding = only(check(data, "anthropic"), "TD805")
        assert (finding.turn, finding.part) == (1, 0)
        assert "Expected `thinking` or `redacted_thinking`, but found `tool_use`" in finding.message

    def test_anthropic_signed_thinking_first(self):
        thought = {"type": "thinking", "thinking": "Oslo weather lookup.", "signature": "EqQBCkYIBRgCKkA…"}
        data = log((ANTHROPIC, ant_history(assistant=[thought, tool_use("toolu_01E")],
                                           result=[tool_result("toolu_01E")], thinking=self.THINKING), None))
        assert check(data, "anthropic") == []

    def test_anthropic_signed_thinking_after_text_is_misplaced(self):
        thought = {"type": "thinking", "thinking": "Oslo weather lookup.", "signature": "EqQBCkYIBRgCKkA…"}
        opening = {"type": "text", "text": "Let me look."}
        data = log((ANTHROPIC, ant_history(assistant=[opening, thought, tool_use("toolu_01E")],
                                           result=[tool_result("toolu_01E")], thinking=self.THINKING), None))
        finding = only(check(data, "anthropic"), "TD805")
        assert (finding.turn, finding.part) == (1, 2)
        assert finding.message.startswith("the turn calling 'get_weather' carries its signed thinking block in the wrong "
                                          "place (it must open the turn): anthropic rejects it, “")
        assert "Expected `thinking` or `redacted_thinking`, but found `text`" in finding.message

    def test_anthropic_thinking_off(self):
        assert check(log((ANTHROPIC, ant_history(), None)), "anthropic") == []
        off = ant_history(thinking={"type": "disabled"})
        assert check(log((ANTHROPIC, off, None)), "anthropic") == []

    def gemini3(self, signature, model="gemini-3-pro-preview"):
        body = gem({"role": "user", "parts": [{"text": "Oslo and Bergen?"}]},
                   {"role": "model", "parts": [gcall(city="Oslo", signature=signature), gcall(city="Bergen")]},
                   {"role": "user", "parts": [gresponse(), gresponse()]})
        return log((gemini_url(model), body, None))

    def test_gemini_3_signature_on_the_first_call(self):
        assert check(self.gemini3("CiQBcsjafE8zJ2mQ4vRk"), "gemini") == []
        assert check(self.gemini3("skip_thought_signature_validator"), "gemini") == []
        finding = only(check(self.gemini3(None), "gemini"), "TD805")
        assert (finding.turn, finding.part) == (1, 0)
        assert "missing a thought_signature" in finding.message and "default_api:get_weather" in finding.message

    def test_gemini_2_needs_no_signature(self):
        assert check(self.gemini3(None, model="gemini-2.5-flash"), "gemini") == []

    def deepseek(self, reasoning=None, model="deepseek-reasoner", **extra):
        assistant = {"role": "assistant", "content": "", "tool_calls": [tool_call("call_00_Rk4X")]}
        if reasoning:
            assistant["reasoning_content"] = reasoning
        body = chat({"role": "user", "content": "250 EUR in NOK?"}, assistant,
                    {"role": "tool", "tool_call_id": "call_00_Rk4X", "content": "11.68"}, model=model, **extra)
        return log((DEEPSEEK, body, None))

    def test_deepseek_reasoner_without_reasoning_content(self):
        finding = only(check(self.deepseek(), "deepseek"), "TD805")
        assert "Missing `reasoning_content` field in the assistant message" in finding.message
        assert check(self.deepseek("The user wants a conversion…"), "deepseek") == []

    def test_deepseek_thinking_parameter(self):
        assert [f.code for f in check(self.deepseek(model="deepseek-chat", thinking={"type": "enabled"}),
                                      "deepseek")] == ["TD805"]
        assert check(self.deepseek(thinking={"type": "disabled"}), "deepseek") == []
        assert check(self.deepseek(model="deepseek-chat"), "deepseek") == []

    def test_deepseek_only_checks_the_current_turn(self):
        body = chat({"role": "user", "content": "250 EUR in NOK?"},
                    {"role": "assistant", "content": "", "tool_calls": [tool_call("call_00_a")]},
                    {"role": "tool", "tool_call_id": "call_00_a", "content": "11.68"},
                    {"role": "assistant", "content": "About 2920 NOK."},
                    {"role": "user", "content": "And in SEK?"},
                    {"role": "assistant", "content": "", "reasoning_content": "Convert again.",
                     "tool_calls": [tool_call("call_00_b")]},
                    {"role": "tool", "tool_call_id": "call_00_b", "content": "11.2"}, model="deepseek-reasoner")
        assert check(log((DEEPSEEK, body, None)), "deepseek") == []

    def test_kimi_thinking_model(self):
        body = chat({"role": "user", "content": "Oslo?"},
                    {"role": "assistant", "content": "", "tool_calls": [tool_call("functions.get_weather:0")]},
                    {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "4°C"}, model="kimi-k2.5")
        finding = only(check(log((KIMI, body, None)), "kimi"), "TD805")
        assert "thinking is enabled but reasoning_content is missing" in finding.message
        assert check(log((KIMI, dict(body, thinking={"type": "disabled"}), None)), "kimi") == []

    def responses(self, replay_reasoning):
        rs = {"type": "reasoning", "id": "rs_0c3e5a7b", "summary": [], "encrypted_content": "gAAAAABo…"}
        fc = {"type": "function_call", "id": "fc_0c3e5a7b", "call_id": "call_X", "name": "get_weather",
              "arguments": '{"city":"Oslo"}', "status": "completed"}
        first = {"model": "gpt-5.5", "input": [{"role": "user", "content": "Oslo?"}], "store": False}
        answer = {"id": "resp_1", "object": "response", "status": "completed", "output": [rs, fc]}
        replay = [{"role": "user", "content": "Oslo?"}, *([rs] if replay_reasoning else []),
                  {k: v for k, v in fc.items() if k != "status"},
                  {"type": "function_call_output", "call_id": "call_X", "output": "4°C"}]
        return log((RESPONSES, first, answer), (RESPONSES, dict(first, input=replay), None))

    def test_responses_call_replayed_with_its_item_id_but_without_its_reasoning(self):
        finding = only(check(self.responses(False), "openai-responses"), "TD805")
        assert "Item 'fc_0c3e5a7b' of type 'function_call' was provided without its required 'reasoning' item" \
            in finding.message
        assert check(self.responses(True), "openai-responses") == []

    def test_responses_store_false_needs_the_encrypted_content_not_the_id(self):
        rs = {"type": "reasoning", "id": "rs_0c3e5a7b", "summary": [], "encrypted_content": "gAAAAABo…"}
        fc = {"type": "function_call", "id": "fc_0c3e5a7b", "call_id": "call_X", "name": "get_weather",
              "arguments": '{"city":"Oslo"}'}

        def history(item, store):
            body = {"model": "gpt-5.5", "input": [{"role": "user", "content": "Oslo?"}, item, fc,
                                                  {"type": "function_call_output", "call_id": "call_X",
                                                   "output": "4°C"}]}
            return log((RESPONSES, body if store is None else dict(body, store=store), None))

        by_id = {k: v for k, v in rs.items() if k != "encrypted_content"}
        finding = only(check(history(by_id, False), "openai-responses"), "TD805")
        assert (finding.turn, finding.part) == (1, 1)
        assert "carries no reasoning item with its encrypted_content (store is false)" in finding.message
        assert "Items are not persisted when `store` is set to false" in finding.message
        assert check(history(rs, False), "openai-responses") == []
        assert check(history(by_id, None), "openai-responses") == []

    def test_responses_reasoning_replayed_after_its_call_is_misplaced(self):
        """The reasoning item is there, but after the function_call: the API takes an item's
        reasoning only before it."""
        rs = {"type": "reasoning", "id": "rs_0c3e5a7b", "summary": [], "encrypted_content": "gAAAAABo…"}
        fc = {"type": "function_call", "id": "fc_0c3e5a7b", "call_id": "call_X", "name": "get_weather",
              "arguments": '{"city":"Oslo"}'}
        body = {"model": "gpt-5.5", "store": False, "input": [
            {"role": "user", "content": "Oslo?"}, fc, rs,
            {"type": "function_call_output", "call_id": "call_X", "output": "4°C"}]}
        finding = only(check(log((RESPONSES, body, None)), "openai-responses"), "TD805")
        assert (finding.turn, finding.part) == (1, 0)
        assert finding.message.startswith(
            "the turn calling 'get_weather' carries its reasoning item with its encrypted_content (store is false) "
            "in the wrong place (it must come before the call): openai-responses rejects it, “Item 'fc_0c3e5a7b' "
            "of type 'function_call' was provided without its required 'reasoning' item")

    @pytest.mark.needs_corpus
    def test_responses_calls_that_never_had_reasoning(self):
        # gpt-5.1-codex-max emits a reasoning item for the first step only
        path = paths.CORPUS / "vercel-ai-fixtures" / "openai" / "openai-reasoning-encrypted-content.1.chunks.txt"
        assert run_checks(load_file(path), select_rules(["TD8"], target="openai-responses"),
                          "openai-responses") == []


# ------------------------------------------------------------------------------------------ TD806


class TestToolNames:
    def mcp(self):
        body = gem({"role": "user", "parts": [{"text": "Open issues?"}]},
                   {"role": "model", "parts": [gcall("github.list_issues")]},
                   {"role": "user", "parts": [gresponse("github.list_issues")]},
                   tools=("github.list_issues", "github.get_issue"))
        return log((gemini_url("gemini-2.5-flash"), body, None))

    def test_dotted_mcp_names_for_openai(self):
        findings = check(self.mcp(), "openai-chat")
        assert [f.code for f in findings] == ["TD806", "TD806"]  # one per distinct name, at its declaration
        assert all(f.turn is None and "/tools/0/functionDeclarations/" in f.pointer for f in findings)
        assert "string does not match pattern" in findings[0].message

    @pytest.mark.parametrize("target", ["gemini", "mistral", "kimi"])
    def test_targets_that_accept_them_or_state_no_limit(self, target):
        assert check(self.mcp(), target) == []

    def test_gemini_names_start_with_a_letter_or_underscore(self):
        data = log((OPENAI, chat({"role": "user", "content": "Hi"}, tools=("3d_render",)), None))
        finding = only(check(data, "gemini"), "TD806")
        assert "Must start with a letter or an underscore" in finding.message
        assert check(data, "openai-chat") == []

    def test_length_and_spaces(self):
        long_name = "mcp__playwright__browser_take_screenshot_of_the_full_scrollable_page"
        data = log((ANTHROPIC, ant(user("Hi"), tools=(long_name, "Complete Session")), None))
        by_target = {t: sorted(f.message.split("'")[1] for f in check(data, t)) for t in
                     ("openai-chat", "bedrock", "anthropic")}
        assert by_target["openai-chat"] == ["Complete Session", long_name]
        assert by_target["bedrock"] == ["Complete Session", long_name]
        assert by_target["anthropic"] == ["Complete Session"]  # Anthropic allows up to 128

    def test_an_undeclared_called_name(self):
        body = chat({"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": None, "tool_calls": [tool_call("call_A", "fs/read")]},
                    {"role": "tool", "tool_call_id": "call_A", "content": "…"}, tools=())
        finding = only(check(log((OPENAI, body, None)), "anthropic"), "TD806")
        assert (finding.turn, finding.part) == (1, 0) and "called tool name 'fs/read'" in finding.message


# ------------------------------------------------------------ real traffic against its own provider

CORPUS = paths.corpus_files()
#: Files from a profile's own API, checked against that profile too.
PROFILE_FILES = {"vercel-ai-fixtures/deepseek/": "deepseek", "opencode-recordings/openai-compatible-chat/deepseek":
                 "deepseek", "vercel-ai-fixtures/mistral/mistral-tool-call": "mistral"}
#: Errors real traffic does give against its own target, each a real defect for that target.
EXPECTED: dict[tuple[str, str], set[str]] = {}


def rel(path):
    return paths.corpus_name(path)


@pytest.mark.parametrize("path", paths.corpus_params(CORPUS), ids=rel)
def test_accepted_traffic_passes_its_own_target(path):
    loaded = load_file(path)
    targets = set(loaded.formats) | {t for prefix, t in PROFILE_FILES.items() if rel(path).startswith(prefix)}
    for target in sorted(targets):
        findings = run_checks(loaded, select_rules(["TD8"], target=target), target)
        errors = {f.code for f in findings if f.severity == "error"}
        assert errors == EXPECTED.get((rel(path), target), set()), \
            [f"{target}: {f.code} {f.message}" for f in findings]


def test_clean_samples_pass_their_own_target():
    for path in sorted(p for p in paths.SAMPLES.rglob("*") if p.is_file() and "defects" not in p.parts
                       and p.name != "README.md"):
        loaded = load_file(path)
        for target in loaded.formats:
            findings = run_checks(loaded, select_rules(["TD8"], target=target), target)
            assert findings == [], f"{path.name} → {target}: {[f.message for f in findings]}"


@pytest.mark.needs_corpus
def test_a_mistral_format_stream_from_another_server_is_not_mistral():
    """`mistral-incremental-tool-call` is Mistral's wire shape served by another model (ids
    `chatcmpl-tool-…`): replayed to Mistral itself, its ids are refused, as Mistral would."""
    path = paths.CORPUS / "vercel-ai-fixtures" / "mistral" / "mistral-incremental-tool-call.chunks.txt"
    findings = run_checks(load_file(path), select_rules(["TD8"], target="mistral"), "mistral")
    assert [f.code for f in findings] == ["TD801"]


# ------------------------------------------------------------- TD807 a final assistant turn

_WEATHER = [{"name": "get_weather", "description": "Weather of a city.",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]


def _ends_on_assistant(model, content, tools=True, url=ANTHROPIC):
    body = {"model": model, "max_tokens": 512, "messages": [
        {"role": "user", "content": "Weather in Oslo?"}, {"role": "assistant", "content": content}]}
    if tools:
        body["tools"] = _WEATHER
    return log((url, body, None))


_TOOL_USE = [{"type": "tool_use", "id": "toolu_01A", "name": "get_weather", "input": {"city": "Oslo"}}]


def test_td807_a_history_at_rest_ending_on_tool_use_is_refused_with_tools_declared():
    finding = only(check(_ends_on_assistant("claude-sonnet-4-5", _TOOL_USE), "anthropic"), "TD807")
    assert (finding.severity, finding.turn, finding.pointer) == ("error", 1, "/request/body#/messages/1")
    assert finding.message == (
        "the request ends on the assistant's turn (the call 'get_weather'): anthropic refuses a final assistant "
        "turn with tools declared, “Your API request included an `assistant` message in the final position, "
        "which would pre-fill the `assistant` response. When using tools, pre-filling the `assistant` response "
        "is not supported.”")


@pytest.mark.parametrize(("model", "severity", "said"), [
    ("claude-opus-4-6", "error", "This model does not support assistant message prefill."),
    ("claude-sonnet-5", "error", "This model does not support assistant message prefill."),
    ("claude-sonnet-4-5-20250929", "warning", "older models accept it without tools"),
    ("claude-3-5-sonnet-20241022", "warning", "older models accept it without tools"),
])
def test_td807_a_prefill_without_tools_is_refused_on_the_models_that_refuse_prefill(model, severity, said):
    finding = only(check(_ends_on_assistant(model, "{", tools=False), "anthropic"), "TD807")
    assert finding.severity == severity and said in finding.message


def test_td807_bedrock_passes_the_rule_on_for_claude_models_only():
    url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/{}/converse"
    body = {"messages": [{"role": "user", "content": [{"text": "Weather in Oslo?"}]},
                         {"role": "assistant", "content": [{"text": "Sure: "}]}]}
    claude = log((url.format("us.anthropic.claude-opus-4-6-v1"), body, None))
    nova = log((url.format("us.amazon.nova-pro-v1:0"), body, None))
    assert [(f.code, f.severity) for f in check(claude, "bedrock")] == [("TD807", "error")]
    assert check(nova, "bedrock") == []


def test_td807_a_log_whose_requests_end_on_the_user_is_not_a_finding():
    """The conversation of a log ends on the model's answer: a response, not a request."""
    path = paths.SAMPLES / "anthropic" / "memory-note-in-the-system-prompt.jsonl"
    assert check(path.read_bytes(), "anthropic") == []


def test_td807_judges_requests_not_what_an_export_writes():
    """An export is a history (its writer says where it ends): the pre-flight and `fix`'s check of
    what it wrote leave TD807 out; `check --target` of the written file, as a request, reports it."""
    assert "TD807" not in {r.code for r in export_rules("anthropic")}
    assert "TD807" in {r.code for r in select_rules(target="anthropic")}
    body = json.loads(_ends_on_assistant("claude-opus-4-6", _TOOL_USE))["request"]["body"]
    assert preflight(body, "anthropic") == []
