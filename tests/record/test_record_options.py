"""`tooldbg record --append`, `--force` and `--keep-secrets`, run as a user runs them: `record -- COMMAND`
with an agent that asks the Gemini stand-in twice through the proxy (`GOOGLE_GEMINI_BASE_URL`), its
key once in the URL (`?key=`) and once in `x-goog-api-key`, as the Gemini REST API takes either."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.command import run
from tests.record.conftest import records
from tests.standins import standin
from tooldbg.load import load_file

AGENT = """
import json, os, urllib.request
base, key = os.environ["GOOGLE_GEMINI_BASE_URL"], os.environ["GEMINI_API_KEY"]
body = json.dumps({"contents": [{"role": "user", "parts": [{"text": "Weather in OSL?"}]}]}).encode()
for url, headers in [(f"{base}/v1beta/models/m:streamGenerateContent?alt=sse&key={key}", {}),
                     (f"{base}/v1beta/models/m:generateContent", {"x-goog-api-key": key})]:
    request = urllib.request.Request(url, body, {"content-type": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()
"""
PATHS = ["/v1beta/models/m:streamGenerateContent?alt=sse", "/v1beta/models/m:generateContent"]


def record(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, upstream: str,
           key: str, *options: str) -> tuple[int, str]:
    """`tooldbg record -o run.jsonl --upstream UPSTREAM OPTIONS -- python agent.py`: its exit code and
    stderr (the per-exchange lines come from the recorder's reporter process: captured at the fd)."""
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    monkeypatch.setenv("GEMINI_API_KEY", key)
    code, _, err = run(capfd, "record", "-o", str(tmp_path / "run.jsonl"), "--upstream", upstream, *options,
                       "--", sys.executable, str(agent))
    return code, err


def exchange_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("tooldbg record: POST")]


def test_append_adds_to_the_recording_and_reports_only_what_it_added(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    output = tmp_path / "run.jsonl"
    with standin("gemini") as provider:
        assert record(capfd, monkeypatch, tmp_path, provider.url, provider.key)[0] == 0
        first = output.read_bytes()
        code, err = record(capfd, monkeypatch, tmp_path, provider.url, provider.key, "--append")
    assert code == 0
    assert output.read_bytes().startswith(first)
    assert [r["request"]["url"] for r in records(output)] == [provider.url + PATHS[0] + "&key=AIza•••",
                                                             provider.url + PATHS[1]] * 2
    assert len(exchange_lines(err)) == 2  # the exchanges the file held already are not reported again
    assert err.splitlines()[-1] == f"tooldbg record: 2 exchanges written to {output}"
    loaded = load_file(output)
    assert loaded.errors == [] and len(loaded.reads) == 4


def test_force_begins_the_recording_anew(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    output = tmp_path / "run.jsonl"
    output.write_text("an older recording\n")
    with standin("gemini") as provider:
        code, err = record(capfd, monkeypatch, tmp_path, provider.url, provider.key, "--force")
    assert code == 0
    assert [r["request"]["url"].split("?")[0] for r in records(output)] == [provider.url + p.split("?")[0]
                                                                           for p in PATHS]
    assert len(exchange_lines(err)) == 2


@pytest.mark.parametrize("keep", [False, True], ids=["masked", "kept"])
def test_keys_are_written_masked_unless_keep_secrets(keep: bool, tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    output = tmp_path / "run.jsonl"
    with standin("gemini") as provider:
        code, err = record(capfd, monkeypatch, tmp_path, provider.url, provider.key,
                           *(["--keep-secrets"] if keep else []))
    assert code == 0
    assert [served.status for served in provider.log] == [200, 200]  # the key was forwarded whole, either way
    in_url, in_header = records(output)
    headers = {name.lower(): value for name, value in in_header["request"]["headers"].items()}
    if keep:
        assert in_url["request"]["url"] == provider.url + PATHS[0] + f"&key={provider.key}"
        assert headers["x-goog-api-key"] == provider.key
    else:
        assert in_url["request"]["url"] == provider.url + PATHS[0] + "&key=AIza•••"
        assert headers["x-goog-api-key"] == "AIza•••"
        assert provider.key not in output.read_text()
    assert provider.key not in err  # nothing secret is printed, kept or not
    assert len(exchange_lines(err)) == 2
