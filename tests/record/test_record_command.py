"""`tooldbg record` as a user runs it: a process that serves until stopped, or runs a command and
ends with its exit code; killed (-9) or interrupted (Ctrl-C) mid-session. The stand-in and the proxy
bind 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import http.client
import json
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.record.conftest import KEY, body_bytes, connect, records
from tests.standins import standin
from tests.standins.provider import GATE_WAIT
from tooldbg.checks import run_checks
from tooldbg.load import load_file

ROOT = Path(__file__).resolve().parents[2]
#: The longest a test waits for the recorder to say something or to end (seconds): a bound.
WAIT = 60


def tooldbg(*args: str) -> list[str]:
    return [sys.executable, "-m", "tooldbg", *args]


class Recorder:
    """`tooldbg record` in a child process; its stderr lines, as they come, in `lines`."""

    def __init__(self, *args: str) -> None:
        # Ctrl-C reaches a command run in the foreground: the child gets SIGINT's default handling
        # even when this run inherited it ignored (a shell ignores it in the jobs it runs in the
        # background, and the child would then ignore the test's SIGINT and never stop).
        self.process = subprocess.Popen(tooldbg("record", *args), cwd=ROOT, stderr=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, text=True,
                                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, pattern: str) -> re.Match[str]:
        while True:
            try:
                line = self.lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r}; got {self.seen}") from None
            self.seen.append(line)
            found = re.search(pattern, line)
            if found:
                return found

    @property
    def url(self) -> str:
        return self.wait_for(r"listening on (http://127\.0\.0\.1:\d+)").group(1)

    def end(self) -> int:
        code = self.process.wait(timeout=WAIT)
        self._reader.join(timeout=WAIT)
        assert self.process.stderr is not None
        self.process.stderr.close()
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code


@contextmanager
def recorder(*args: str) -> Iterator[Recorder]:
    running = Recorder(*args)
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.process.kill()
        running.end()


@contextmanager
def asking(url: str, question: str, stream: bool = False) -> Iterator[http.client.HTTPResponse]:
    """A request to the recorder (the Anthropic stand-in answers it), the connection closed after the block."""
    connection = connect(url, WAIT)
    try:
        connection.request("POST", "/v1/messages", json.dumps({
            "model": "claude-sonnet-4-5", "max_tokens": 100, "stream": stream,
            "messages": [{"role": "user", "content": question}]}), {"Content-Type": "application/json", "x-api-key": KEY})
        yield connection.getresponse()
    finally:
        connection.close()


def ask(url: str, question: str) -> bytes:
    with asking(url, question) as response:
        return response.read()


def test_kill_9_mid_session_leaves_every_completed_exchange_readable(tmp_path: Path) -> None:
    output = tmp_path / "run.jsonl"
    with standin("anthropic", key=KEY) as provider, \
            recorder("-o", str(output), "--upstream", provider.url, "--listen", "127.0.0.1:0") as running:
        url = running.url
        for question in ("Oslo", "Bergen", "Tromsø"):
            assert ask(url, question)  # each read whole: the exchange is on disk
        provider.gate = threading.Event()  # the stream stalls after its first event
        with asking(url, "Bodø", stream=True) as in_flight:
            assert in_flight.read1(65536).startswith(b"event: message_start")
            running.process.send_signal(signal.SIGKILL)
            running.end()
    recorded = records(output)
    assert [json.loads(r["request"]["body"])["messages"][0]["content"] for r in recorded] == ["Oslo", "Bergen", "Tromsø"]
    loaded = load_file(output)
    assert loaded.errors == []
    assert len(loaded.reads) == 3 and all(read.responses for read in loaded.reads)


def test_ctrl_c_writes_the_exchange_in_flight_marked_incomplete(tmp_path: Path) -> None:
    output = tmp_path / "run.jsonl"
    with standin("anthropic", key=KEY) as provider, \
            recorder("-o", str(output), "--upstream", provider.url, "--listen", "127.0.0.1:0") as running:
        url = running.url
        assert ask(url, "Oslo")
        provider.gate = threading.Event()  # the stream stalls after its first event
        with asking(url, "Bergen", stream=True) as in_flight:
            first = in_flight.read1(65536)
            running.process.send_signal(signal.SIGINT)
            assert running.end() == 0
    assert running.seen[-1] == f"tooldbg record: 2 exchanges written to {output} (1 incomplete: still in flight when it stopped)"
    done, cut = records(output)
    assert "incomplete" not in done
    assert cut["incomplete"] is True
    assert cut["error"] == "interrupted: the recording stopped before the exchange completed"
    assert body_bytes(cut["response"]) == first  # what had arrived, as it arrived
    loaded = load_file(output)
    assert loaded.errors == []
    assert "TD504" in {f.code for f in run_checks(loaded)}  # the cut stream is reported as cut


AGENT_KEY = "sk-test-agent-key-0123456789"
AGENT = f"""
import os, sys
import openai
client = openai.OpenAI(api_key="{AGENT_KEY}", max_retries=0)
reply = client.chat.completions.create(model="gpt-4o", messages=[{{"role": "user", "content": "Weather in OSL?"}}],
    tools=[{{"type": "function", "function": {{"name": "get_weather", "parameters": {{
        "type": "object", "properties": {{"city": {{"type": "string"}}}}}}}}}}])
print(reply.choices[0].message.tool_calls[0].function.name, os.environ["ANTHROPIC_BASE_URL"],
      os.environ["GOOGLE_GEMINI_BASE_URL"], file=sys.stderr)
sys.exit(3)
"""


def test_record_runs_the_command_and_exits_with_its_code(tmp_path: Path) -> None:
    output, agent = tmp_path / "run.jsonl", tmp_path / "agent.py"
    agent.write_text(AGENT)
    with standin("openai-chat", key=AGENT_KEY, plant="double-encoded-arguments") as provider, \
            recorder("-o", str(output), "--upstream", provider.url, "--", sys.executable, str(agent)) as running:
        line = running.wait_for(r"POST .*").group(0)
        assert running.end() == 3
    assert re.fullmatch(r"tooldbg record: POST  /v1/chat/completions  200  \d+ ms  c1  · 1 new finding: "
                        r"TD201 double-encoded-arguments", f"tooldbg record: {line}")
    base = re.search(r"listening on (\S+),", running.seen[0]).group(1)
    assert f"get_weather {base} {base}" in running.seen  # the agent's stderr: it was pointed at the proxy
    check = subprocess.run(tooldbg("check", str(output)), cwd=ROOT, capture_output=True, text=True, timeout=WAIT)
    assert check.returncode == 1
    assert "TD201 error double-encoded-arguments" in check.stdout
    assert AGENT_KEY not in output.read_text()
    assert provider.log[0].headers["authorization"] == f"Bearer {AGENT_KEY}"  # forwarded as it was


def test_a_command_that_cannot_start_exits_127(tmp_path: Path) -> None:
    with recorder("-o", str(tmp_path / "run.jsonl"), "--", str(tmp_path / "no-such-agent")) as running:
        assert running.end() == 127
    assert any("no-such-agent: No such file or directory" in line for line in running.seen)


@pytest.mark.parametrize("args, message", [
    (["--listen", "0.0.0.0:0"], "--listen 0.0.0.0:0: 0.0.0.0 is not a loopback address; the proxy forwards "
                                "your API keys to whoever can reach it, so listening there needs --allow-remote"),
    (["--listen", "127.0.0.1:http"], "--listen 127.0.0.1:http: give HOST:PORT"),
    (["--upstream", "ftp://example.com"], "--upstream: 'ftp://example.com' is not an http:// or https:// URL"),
])
def test_record_refuses_bad_options_in_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    result = subprocess.run(tooldbg("record", "-o", str(tmp_path / "run.jsonl"), *args), cwd=ROOT,
                            capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 2
    assert result.stderr.startswith(f"tooldbg: {message}")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "run.jsonl").exists()


def test_record_does_not_overwrite_without_force(tmp_path: Path) -> None:
    output = tmp_path / "run.jsonl"
    output.write_text("kept\n")
    result = subprocess.run(tooldbg("record", "-o", str(output)), cwd=ROOT, capture_output=True, text=True,
                            timeout=WAIT)
    assert result.returncode == 2
    assert result.stderr == f"tooldbg: {output}: exists; --append adds to it, --force replaces it\n"
    assert output.read_text() == "kept\n"


assert GATE_WAIT < WAIT  # a stalled stand-in lets go before a test gives up on the recorder
