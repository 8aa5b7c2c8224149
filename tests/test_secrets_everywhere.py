"""Issue 11, the CLI: secrets planted in every place of a log (each key shape, a key after a newline,
in invalid-JSON arguments, in a tool result, in streamed arguments, in a provider's 401 body, in a
media URL's `?key=`, in the Authorization and x-api-key headers and the request URL) never reach
stdout, stderr or an `-o` file of any command unless `--no-redact` — and with `--no-redact` they
do, so these tests can fail. And nothing from a log or a file name reaches a text output as a raw
control, bidi or invisible character: those are shown escaped (`\\x1b`, `\\u202e`); JSON outputs
keep the data exact with JSON escapes.

The bytes are captured at the file descriptors (`capfdbinary`): what a terminal or a pipe gets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldbg.cli import main
from tooldbg.convert import TARGETS

from .planted import HOSTILE, HOSTILE_NAME, MARK, SECRETS, leaks, raw_controls, write_log


def run(capfdbinary: pytest.CaptureFixture[bytes], *argv: str) -> tuple[int, bytes, bytes]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    out, err = capfdbinary.readouterr()
    code = exit_info.value.code
    return code if isinstance(code, int) else 0, out, err


def outputs(log: Path, out_dir: Path) -> list[tuple[str, list[str], Path | None]]:
    """Every output over one log: (name, argv, the file it writes or None)."""
    runs: list[tuple[str, list[str], Path | None]] = [
        ("check text", ["check", str(log)], None),
        ("check json", ["check", str(log), "--format", "json"], None),
        ("check github", ["check", str(log), "--format", "github"], None),
        ("check text --target anthropic", ["check", str(log), "--target", "anthropic"], None),
        ("show", ["show", str(log), "--width", "400"], None),
    ]
    for target in (*TARGETS, "mistral"):
        runs.append((f"convert --to {target}", ["convert", str(log), "--to", target], None))
        runs.append((f"convert --to {target} --format json",
                     ["convert", str(log), "--to", target, "--format", "json"], None))
        written = out_dir / f"out.{target}.json"
        runs.append((f"convert --to {target} -o", ["convert", str(log), "--to", target, "-o", str(written)],
                     written))
    fixed = out_dir / "fixed.json"
    runs += [("fix", ["fix", str(log)], None),
             ("fix --format json", ["fix", str(log), "--format", "json"], None),
             ("fix -o", ["fix", str(log), "-o", str(fixed)], fixed),
             ("fix --to anthropic", ["fix", str(log), "--to", "anthropic"], None),
             ("convert --to openai-responses --fix", ["convert", str(log), "--to", "openai-responses", "--fix"],
              None)]
    return runs


def run_all(capfdbinary: pytest.CaptureFixture[bytes], log: Path, out_dir: Path,
            *extra: str) -> dict[str, bytes]:
    """name → every byte the run wrote (stdout, stderr and the file)."""
    out_dir.mkdir(exist_ok=True)
    seen: dict[str, bytes] = {}
    for name, argv, written in outputs(log, out_dir):
        code, out, err = run(capfdbinary, *argv, *extra)
        assert code in (0, 1), f"{name}: exit {code}: {err.decode(errors='replace')}"
        data = out + b"\n" + err
        if written is not None and written.exists():  # an export that would blank data writes nothing
            data += b"\n" + written.read_bytes()
            written.unlink()
        seen[name] = data
    return seen


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return write_log(tmp_path / "run.jsonl")


def test_the_log_carries_every_secret_into_what_is_read(planted: Path):
    """Else the masking tests prove nothing: each planted secret is in the canonical model or in
    the exchange that holds it."""
    from tooldbg.load import load_file

    loaded = load_file(planted)
    assert loaded.errors == [] and len(loaded.conversations) == 1
    everything = repr(loaded.conversations) + repr([r.responses for r in loaded.reads]) + \
        repr([(r.exchange.request.url, r.exchange.request.headers) for r in loaded.reads if r.exchange.request])
    for name, secret in SECRETS.items():
        assert secret in everything, name


def test_no_output_shows_a_planted_secret(capfdbinary: pytest.CaptureFixture[bytes], planted: Path,
                                          tmp_path: Path):
    for name, data in run_all(capfdbinary, planted, tmp_path / "out").items():
        assert not leaks(data), f"{name} leaks {leaks(data)}:\n{data.decode(errors='replace')}"


def test_with_no_redact_every_output_shows_them(capfdbinary: pytest.CaptureFixture[bytes], planted: Path,
                                                tmp_path: Path):
    """The same runs with `--no-redact`: each output carries secrets (so the test above can fail),
    and `show` carries every one of them whole."""
    seen = run_all(capfdbinary, planted, tmp_path / "out", "--no-redact")
    for name, data in seen.items():
        assert MARK.encode() in data, f"{name} shows no secret even with --no-redact"
    show = seen["show"].decode()
    assert [name for name, secret in SECRETS.items() if secret not in show] == []
    # the loss lines on stderr quote the invalid arguments, the converted body the tool result
    assert SECRETS["invalid-JSON arguments"][:20].encode() in seen["convert --to gemini"]
    assert SECRETS["tool result"].encode() in seen["convert --to openai-responses -o"]
    # gemini cannot carry the invalid arguments: nothing written, the line saying so quotes them
    assert SECRETS["invalid-JSON arguments"][:20].encode() in seen["fix --to anthropic"]


@pytest.mark.parametrize("where", ["show", "check text", "check json", "check github",
                                   "convert --to gemini", "convert --to canonical -o"])
def test_each_place_is_masked(capfdbinary: pytest.CaptureFixture[bytes], planted: Path, tmp_path: Path,
                              where: str):
    """Where each kind of secret is shown, it is shown masked: the text around it is there."""
    name, argv, written = next(o for o in outputs(planted, tmp_path) if o[0] == where)
    _code, out, err = run(capfdbinary, *argv)
    text = (out + err + (written.read_bytes() if written else b"")).decode()
    assert "•••" in text and not leaks(text)
    if where == "show":
        for shown in ("Authorization: Bearer PLAN•••", "authorization: Bearer PLAN•••",
                      "x-api-key: PLAN•••", "?key=PLAN•••", "Incorrect API key provided: sk-p•••",
                      "with the key sk-a•••", '"key":"AIza•••"', "sk-P•••", "AKIA•••"):
            assert shown in text, shown
    if where.startswith("check"):
        assert "sk-P•••" in text  # the TD202 message quotes the invalid arguments


# -- control characters ------------------------------------------------------------------------


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    """A folder holding a log full of terminal sequences, under a name full of them, and an
    unreadable file under such a name (its warning names it)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    write_log(folder / HOSTILE_NAME, HOSTILE)
    (folder / ("broken" + HOSTILE_NAME)).write_text("{not json", encoding="utf-8")
    return folder


TEXT_RUNS = [
    ["check", "{folder}"],
    ["check", "{folder}", "--format", "github"],
    ["check", "{folder}", "--no-redact"],
    ["show", "{folder}", "--width", "300"],
    ["show", "{log}", "--width", "300", "--no-redact"],
    ["convert", "{folder}", "--to", "anthropic"],
    ["convert", "{log}", "--to", "mistral"],  # gemini cannot carry its invalid arguments: not written
    ["convert", "{log}", "--to", "openai-chat", "--fix"],
    ["fix", "{log}"],
    ["fix", "{folder}", "--to", "bedrock", "--dry-run"],
    ["convert", "{log}", "--to", "canonical"],
    ["convert", "{log}", "--to", "openai-responses", "--no-redact"],
    ["convert", "{folder}", "--to", "bedrock", "--format", "json"],
    ["convert", "{broken}", "--to", "canonical"],
    ["check", "{broken}"],
    ["show", "{missing}"],
    ["open", "{missing}"],
    ["rules"],
    ["rules", "TD202"],
]


@pytest.mark.parametrize("argv", TEXT_RUNS, ids=" ".join)
def test_no_text_output_carries_a_raw_control_character(capfdbinary: pytest.CaptureFixture[bytes],
                                                         hostile_folder: Path, argv: list[str]):
    log = hostile_folder / HOSTILE_NAME
    values = {"folder": str(hostile_folder), "log": str(log), "broken": str(hostile_folder / ("broken" + HOSTILE_NAME)),
              "missing": str(hostile_folder / ("missing" + HOSTILE_NAME))}
    _code, out, err = run(capfdbinary, *(a.format(**values) for a in argv))
    data = out + err
    assert data.strip(), "the run printed nothing"
    assert raw_controls(data) == [], f"raw {raw_controls(data)} in:\n{data!r}"
    if argv[0] != "rules":
        assert b"\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J" in data or b"\\u001b]52;c;SGVsbG8=\\u0007" in data, \
            "the sequence is shown escaped"


def test_json_outputs_keep_the_data_exact_with_json_escapes(capfdbinary: pytest.CaptureFixture[bytes],
                                                            hostile_folder: Path):
    log = hostile_folder / HOSTILE_NAME
    _code, out, _err = run(capfdbinary, "check", str(hostile_folder), "--format", "json")
    assert raw_controls(out) == []
    doc = json.loads(out)
    assert str(log) in [i["path"] for i in doc["inputs"]]  # the name itself, not a rewriting of it
    _code, out, _err = run(capfdbinary, "convert", str(log), "--to", "canonical", "--no-redact")
    assert raw_controls(out) == []
    assert HOSTILE in json.loads(out)["conversations"][0]["turns"][2]["parts"][0]["content"][0]["text"]


# -- secrets where messages shorten what they quote ----------------------------------------------

#: Credentials whose tails carry no word of their own: any eight of their characters after the
#: first four (what a mask keeps) in an output is a piece of the secret.
CUT_SECRETS = {
    "key as a call id": "sk-ant-api03-QWERTYUIOPasdfghjklZXCVBNMqwertyuiopASDFGHJKLzxcv",
    "JWT as a result id": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJxd2VydHl1aW9wYXNkZmdoamtsIn0.Zm9vYmFyYmF6cXV4cXV1eHh5ejEyMw",
    "key after %22 in a URL": "sk-proj-PERCENTquoteA1b2C3d4E5f6G7h8J9",
    "key after %3D in a URL": "sk-proj-PERCENTequalsZ9y8X7w6V5u4T3s2R1",
}


def pieces(secret: str) -> list[str]:
    return [secret[i:i + 8] for i in range(4, len(secret) - 7)]


def test_a_secret_is_masked_before_any_message_shortens_it(capfdbinary: pytest.CaptureFixture[bytes],
                                                            tmp_path: Path):
    """Before: a key used as a call id printed as 'sk-a•••…ASDFGHJKLzxcv' (the message cut it in the
    middle, and the mask then saw only its head), a JWT cut short lost its shape and printed almost
    whole, and a key right after a URL percent-escape was not masked at all."""
    s = CUT_SECRETS
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": f"see https://x.example/a?trace=%22{s['key after %22 in a URL']}&q=%3D"
                                    f"{s['key after %3D in a URL']}"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": s["key as a call id"], "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": s["JWT as a result id"], "content": "done"},
        {"role": "user", "content": "thanks"}]}
    log = tmp_path / "ids.json"
    log.write_text(json.dumps(body))
    shown = b""
    for name, data in run_all(capfdbinary, log, tmp_path / "out").items():
        text = data.decode(errors="replace")
        found = [(secret, piece) for secret in s.values() for piece in pieces(secret) if piece in text]
        assert not found, f"{name} shows part of a secret {found[0]}:\n{text}"
        shown += data
    assert b"sk-a\xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2" in shown and b"%22sk-p\xe2\x80\xa2" in shown
