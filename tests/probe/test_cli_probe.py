"""`tooldbg probe` as a user runs it: the verdict table, `--only`, and the failures that leave nothing
to test (nothing listening, a certificate that does not verify, a refused key, a server that never
answers) — exit 2 with one line, never a traceback; the key never in the capture, stdout or stderr,
even from a server that echoes it; HTTPS_PROXY honoured."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from tests.certs import untrusted_server_context
from tests.command import run
from tests.relay.faulty import relaying
from tests.relay.servers import Quiet, serving, url
from tests.standins import APIS, standin
from tooldbg.probe.apis import APIS as PROBED
from tooldbg.probe.steps import NAMES

from .test_matrix import probe, relay

PLANTED = "sk-proj-PLANTED0probe0key0000000000000000000000000000xyz"


def test_the_text_report_is_a_table_of_every_step(tmp_path, capsys, monkeypatch):
    har = tmp_path / "p.har"
    with relay("openai-chat", {"drop-tools"}) as relayed:
        code, out, err = probe(capsys, monkeypatch, relayed, "openai-chat", har)
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"probe {relayed.base_url} · openai-chat · model stand-in-model"
    rows = {line.split()[0]: line for line in lines if line.split() and line.split()[0] in NAMES}
    assert list(rows) == list(NAMES)
    assert "FAIL" in rows["forced-call"] and "TD603 exchange 0" in rows["forced-call"]
    assert all("SKIP" in rows[name] for name in NAMES[1:])
    assert "get_forecast was forced, but the answer is text" in " ".join(out.split())  # (wrapped in its cell)
    assert "7 steps: 1 fail, 6 skip" in out
    assert f"capture: {har}" in out
    assert har.exists()


def test_gemini_calls_without_ids_get_their_results_in_call_order(tmp_path, capsys, monkeypatch):
    """Gemini 2.5 returns calls without ids: position is all that binds a result to its call, so the
    probe does not reverse the results there (it would swap them itself), and says so."""
    har = tmp_path / "p.har"
    with standin("gemini", call_ids=False) as upstream, relaying("gemini", upstream) as relayed:
        code, out, _ = probe(capsys, monkeypatch, relayed, "gemini", har, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and all(s["verdict"] == "pass" for s in doc["steps"]), doc["steps"]
    (parallel,) = [s for s in doc["steps"] if s["step"] == "parallel"]
    assert parallel["reason"].startswith("results sent back in call order (the calls carry no ids")
    # each result names its city, which confirms the pairing by position (no TD107), and in call
    # order they are no TD401 either
    assert doc["findings"] == []


def test_only_runs_the_steps_asked_for(tmp_path, capsys, monkeypatch):
    har = tmp_path / "p.har"
    with relay("anthropic", set()) as relayed:
        code, out, _ = probe(capsys, monkeypatch, relayed, "anthropic", har, "--only", "streamed", "--format", "json")
    steps = {s["step"]: s for s in json.loads(out)["steps"]}
    assert code == 0
    assert {n for n, s in steps.items() if s["verdict"] == "pass"} == {"forced-call", "streamed"}
    assert all(s["reason"] == "not selected (--only)" for n, s in steps.items() if s["verdict"] == "skip")
    entries = json.loads(har.read_text())["log"]["entries"]
    assert [e["_tooldbg"]["probe"] for e in entries] == ["forced", "streamed"]


@pytest.mark.parametrize("argv, said", [
    (["--only", "forced-call,warp-speed"], "--only warp-speed: no such step"),
    (["--api", "cohere"], "'cohere' is not one of"),
])
def test_usage_errors_are_one_line(capsys, monkeypatch, argv, said):
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    base = ["probe", "http://127.0.0.1:9/v1", "--model", "m"]
    code, out, err = run(capsys, *base, *(argv if "--api" in argv else ["--api", "openai-chat", *argv]))
    assert code == 2 and out == ""
    assert said in err and len(err.splitlines()) == 1


def test_a_missing_key_is_named_by_its_variable(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, _, err = run(capsys, "probe", "http://127.0.0.1:9", "--api", "anthropic", "--model", "m",
                       "-o", str(tmp_path / "p.har"))
    assert code == 2
    assert err == "tooldbg: ANTHROPIC_API_KEY is not set: the probe reads the anthropic key from it " \
                  "(--key-env VAR names another)\n"
    assert not (tmp_path / "p.har").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_nothing_listening_is_exit_2_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    port = free_port()
    code, out, err = run(capsys, "probe", f"http://127.0.0.1:{port}/v1", "--api", "openai-chat", "--model", "m",
                         "-o", str(tmp_path / "p.har"))
    assert code == 2 and out == ""
    assert err == f"tooldbg: probe: connection to http://127.0.0.1:{port}/v1/chat/completions refused " \
                  "(nothing listens there)\n"


@pytest.mark.parametrize("api", APIS)
def test_a_refused_key_is_exit_2_naming_the_status_and_the_providers_message(tmp_path, capsys, monkeypatch, api):
    said = {"openai-chat": "HTTP 401: Incorrect API key provided", "openai-responses": "HTTP 401: Incorrect API key",
            "anthropic": "HTTP 401: invalid x-api-key", "gemini": "HTTP 400: API key not valid",
            "bedrock": "HTTP 403: Authentication failed: Please make sure your API Key is valid."}[api]
    har = tmp_path / "p.har"
    with standin(api, key="the-right-key-0000000000000000") as provider:
        monkeypatch.setenv(PROBED[api].key_env, PLANTED)
        code, out, err = run(capsys, "probe", provider.base_url, "--api", api, "--model", "m", "-o", str(har))
    assert code == 2 and out == ""
    assert err.startswith("tooldbg: probe: the key was refused (") and said in err
    assert len(err.splitlines()) == 1
    assert PLANTED not in err + har.read_text()


class Echo(Quiet):
    """A hostile server: it answers with the key the request carried, in a header and in the text."""

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length") or 0))
        key = self.headers.get("authorization", "").removeprefix("Bearer ")
        body = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": "m", "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": f"your key is {key}"}}]})
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("x-echo", key)
        self.end_headers()
        self.wfile.write(body.encode())


def test_the_key_is_never_written_or_printed(tmp_path, capsys, monkeypatch):
    har = tmp_path / "p.har"
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    with standin("openai-chat", key=PLANTED) as provider:
        code, out, err = run(capsys, "probe", provider.base_url, "--api", "openai-chat", "--model", "m",
                             "-o", str(har))
    assert code == 0
    assert PLANTED not in out + err + har.read_text()
    echoed = tmp_path / "echo.har"
    with serving(Echo, limit=2) as server:
        code, out, err = run(capsys, "probe", f"{url(server)}/v1", "--api", "openai-chat", "--model", "m",
                             "-o", str(echoed), "--format", "json")
    assert code == 1
    assert PLANTED not in out + err + echoed.read_text()
    assert "your key is ****" in echoed.read_text()


class Silent(Quiet):
    """Reads the request, then says nothing until the test lets it go."""

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.server.release.wait(5)


def test_a_server_that_never_answers_is_exit_2_within_the_timeout(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    release = threading.Event()
    with serving(Silent, limit=1, release=release) as server:
        try:
            code, out, err = run(capsys, "probe", f"{url(server)}/v1", "--api", "openai-chat", "--model", "m",
                                 "--timeout", "0.3", "-o", str(tmp_path / "p.har"))
        finally:
            release.set()
    assert code == 2 and out == ""
    assert err == f"tooldbg: probe: {url(server)}/v1/chat/completions did not answer within 0.3 s\n"


def test_a_certificate_that_does_not_verify_is_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    with serving(Echo, limit=1, tls=untrusted_server_context()) as server:
        base = url(server).replace("http://", "https://") + "/v1"
        code, out, err = run(capsys, "probe", base, "--api", "openai-chat", "--model", "m",
                             "-o", str(tmp_path / "p.har"))
    assert code == 2 and out == ""
    assert err.startswith(f"tooldbg: probe: TLS certificate of {base}/chat/completions not verified: ")
    assert "self-signed certificate" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "p.har").exists()


class Proxy(Quiet):
    """An HTTP proxy that refuses every tunnel, after noting where it was asked to go."""

    def do_CONNECT(self):  # noqa: N802
        self.server.asked.append(self.path)
        self.send_response(502, "Bad Gateway")
        self.end_headers()


def test_https_goes_through_the_proxy_the_environment_names(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    asked: list[str] = []
    with serving(Proxy, limit=1, asked=asked) as proxy:
        monkeypatch.setenv("HTTPS_PROXY", url(proxy))
        code, _, err = run(capsys, "probe", "https://relay.example.invalid/v1", "--api", "openai-chat",
                           "--model", "m", "-o", str(tmp_path / "p.har"))
    assert asked == ["relay.example.invalid:443"]
    assert code == 2 and "Tunnel connection failed: 502 Bad Gateway" in err


def test_an_existing_capture_is_not_overwritten_without_force(tmp_path, capsys, monkeypatch):
    har: Path = tmp_path / "p.har"
    har.write_text("mine")
    monkeypatch.setenv("OPENAI_API_KEY", PLANTED)
    code, _, err = run(capsys, "probe", "http://127.0.0.1:9/v1", "--api", "openai-chat", "--model", "m",
                       "-o", str(har))
    assert code == 2 and "exists" in err
    assert har.read_text() == "mine"
