"""Folders and captures hold more than LLM traffic: a README, a LICENSE, a screenshot, the script
that recorded them; a browser's HAR holds the page, its scripts and its analytics beside the API
calls. Those are skipped and counted, never reported as invalid JSON; a file named on the command
line is never skipped; a file with no LLM exchange in it says so and makes `check` exit 2."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from tests import paths
from tests.command import run
from tooldbg.load import load

TD206_HAR = paths.SAMPLES / "defects" / "TD206-units-outside-declared-enum.har"
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")



@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two logs among what a folder of fixtures also holds."""
    logs = tmp_path / "logs"
    (logs / "tools").mkdir(parents=True)
    shutil.copy(TD206_HAR, logs / "weather.har")
    shutil.copy(paths.SAMPLES / "anthropic" / "request.json", logs / "request.json")
    shutil.copy(paths.ROOT / "LICENSE", logs / "LICENSE")
    (logs / "README.md").write_text("# fixtures\n\nRecorded on 2026-01-05 with the proxy.\n")
    (logs / "screenshot.png").write_bytes(PNG)
    (logs / "tools" / "record.py").write_text("import json\nprint(json.dumps({}))\n")
    (logs / "notes.txt").write_text("")  # empty, and not named like a capture
    return logs


def _browser_entry(method: str, url: str, mime: str, text: str, post: str | None = None) -> dict:
    entry = {"startedDateTime": "2026-01-05T12:03:40.000000+00:00", "time": 12.0,
             "request": {"method": method, "url": url, "httpVersion": "HTTP/2", "cookies": [],
                         "headers": [], "queryString": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "cookies": [],
                          "headers": [{"name": "content-type", "value": mime}],
                          "content": {"size": len(text), "mimeType": mime, "text": text},
                          "redirectURL": "", "headersSize": -1, "bodySize": len(text)}}
    if post is not None:
        entry["request"]["postData"] = {"mimeType": "application/json", "text": post}
    return entry


BROWSER = [
    _browser_entry("GET", "https://weather.example/", "text/html; charset=utf-8",
                   "<!DOCTYPE html><html><head><title>Weather</title></head><body></body></html>"),
    _browser_entry("GET", "https://weather.example/static/app.js", "application/javascript",
                   "const api = '/v1beta/models';\nfetch(api).then(r => r.json());"),
    _browser_entry("POST", "https://analytics.example/collect", "application/json", '{"ok": true}',
                   post='{"event": "page_view", "path": "/"}'),
    _browser_entry("GET", "https://weather.example/favicon.ico", "image/x-icon", ""),
]


def _browser_har(tmp_path: Path, with_api_calls: bool) -> Path:
    """A browser session's HAR: the page, its script, analytics and an icon, around the API call."""
    har = json.loads(TD206_HAR.read_text())
    calls = har["log"]["entries"] if with_api_calls else []
    har["log"]["entries"] = BROWSER[:2] + calls + BROWSER[2:]
    path = tmp_path / ("session.har" if with_api_calls else "page-only.har")
    path.write_text(json.dumps(har))
    return path


# -- folders ----------------------------------------------------------------------------------------

def test_files_of_a_folder_that_are_not_logs_are_skipped_and_counted(folder, capsys):
    code, out, err = run(capsys, "check", str(folder), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and err == ""  # the findings of the logs; nothing unreadable
    assert [Path(i["path"]).name for i in doc["inputs"]] == ["request.json", "weather.har"]
    assert all(i["errors"] == [] for i in doc["inputs"])
    assert doc["skipped"] == {"files": 5, "entries": 0, "paths": [
        str(folder / name) for name in ("LICENSE", "README.md", "notes.txt", "screenshot.png", "tools/record.py")]}
    assert {f["code"] for f in doc["findings"]} == {"TD206"}

    code, out, _ = run(capsys, "check", str(folder))
    assert code == 1 and "invalid JSON" not in out
    assert "skipped 5 files that are not logs (LICENSE, README.md, notes.txt, screenshot.png, record.py)" in out


def test_a_file_named_on_the_command_line_is_never_skipped(folder, capsys):
    readme = folder / "README.md"
    code, out, err = run(capsys, "check", str(readme), str(folder / "request.json"), "--format", "json")
    assert code == 2
    assert err == (f"tooldbg: 1 of 2 inputs unreadable or without an LLM exchange (1 error); first: {readme}: "
                   "no LLM exchange found: not JSON, JSON Lines, server-sent events or an AWS event stream\n")
    assert [i["path"] for i in json.loads(out)["inputs"]] == [str(readme), str(folder / "request.json")]
    code, _, err = run(capsys, "show", str(readme))
    assert code == 2 and "no LLM exchange found" in err


def test_a_capture_that_is_broken_or_empty_in_a_folder_is_still_reported(folder, capsys):
    (folder / "truncated.jsonl").write_text('{"request": {"url": "https://api.anthropic.com/v1/mess')
    (folder / "empty.json").write_text("\n")
    code, out, err = run(capsys, "check", str(folder), "--format", "json")
    doc = json.loads(out)
    assert code == 2
    errors = {Path(i["path"]).name: [e["message"] for e in i["errors"]] for i in doc["inputs"]}
    assert errors["empty.json"] == ["empty file"]
    assert errors["truncated.jsonl"][0].startswith("invalid JSON")
    assert doc["skipped"]["files"] == 5  # the same five, no more


def test_show_says_what_it_skipped_on_stderr(folder, capsys):
    code, out, err = run(capsys, "show", str(folder))
    assert code == 0 and "weather.har#c1" in out
    assert err == ("tooldbg: skipped 5 files that are not logs (LICENSE, README.md, notes.txt, "
                   "screenshot.png, record.py)\n")


def test_the_library_reports_the_files_it_left_out(folder):
    skipped: list[str] = []
    loaded = load([folder], skipped=skipped)
    assert [Path(item.path).name for item in loaded] == ["request.json", "weather.har"]
    assert [Path(p).name for p in skipped] == ["LICENSE", "README.md", "notes.txt", "screenshot.png",
                                               "record.py"]


# -- captures with other traffic --------------------------------------------------------------------

def test_a_browser_har_is_checked_for_its_api_calls_and_the_rest_counted(tmp_path, capsys):
    session = _browser_har(tmp_path, with_api_calls=True)
    code, out, err = run(capsys, "check", str(session), "--format", "json")
    alone = json.loads(run(capsys, "check", str(TD206_HAR), "--format", "json")[1])
    doc = json.loads(out)
    assert code == 1 and err == ""  # the findings, nothing unreadable
    [entry] = doc["inputs"]
    assert entry["errors"] == [] and entry["skipped"] == 4 and entry["formats"] == ["gemini"]
    assert doc["skipped"] == {"files": 0, "paths": [], "entries": 4}
    # the same findings as the API call alone, at the entry it is in the browser's HAR
    assert [(f["code"], f["message"]) for f in doc["findings"]] == \
        [(f["code"], f["message"]) for f in alone["findings"]]
    assert {f["pointer"].split("/")[3] for f in doc["findings"]} == {"2"}
    code, out, _ = run(capsys, "check", str(session))
    assert "skipped 4 entries that no provider format recognizes (not LLM exchanges)" in out


def test_a_capture_with_no_llm_exchange_says_so_and_exits_2(tmp_path, capsys):
    page = _browser_har(tmp_path, with_api_calls=False)
    code, out, err = run(capsys, "check", str(page), "--format", "json")
    assert code == 2
    message = "no LLM exchange found (4 entries in no provider's format; --input-format reads them as one)"
    assert err == f"tooldbg: {page}: {message}\n"
    [entry] = json.loads(out)["inputs"]
    assert entry["errors"] == [{"location": "", "message": message}] and entry["skipped"] == 4


def test_an_api_call_answered_with_an_html_page_is_an_error_not_a_skip(tmp_path, capsys):
    har = json.loads(TD206_HAR.read_text())
    [call] = har["log"]["entries"]
    call["response"]["content"] = {"size": 30, "mimeType": "text/html",
                                   "text": "<html><body>502 Bad Gateway</body></html>"}
    path = tmp_path / "gateway.har"
    path.write_text(json.dumps(har))
    code, out, err = run(capsys, "check", str(path), "--format", "json")
    [entry] = json.loads(out)["inputs"]
    assert code == 2 and entry["skipped"] == 0
    assert entry["errors"] == [{"location": "/log/entries/0/response/content/text",
                                "message": "body is not JSON: '<html><body>502 Bad Gateway</body></html>'"}]
