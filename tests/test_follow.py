"""`follow.Follower`: a JSON Lines recording read while it is written. Whatever pieces the file is
written in, what the follower has read when the writing ends is what `load` reads of the whole file,
with the same findings; and every byte is read once, each read starting where the last one ended."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldbg import follow
from tooldbg.checks import run_checks
from tooldbg.follow import Follower
from tooldbg.load import load_file
from tooldbg.model import conversation_to_dict

ROOT = Path(__file__).resolve().parents[1]
LOGS = [ROOT / "sample_transcripts" / "defects" / "TD303-session-store-drops-is-error.jsonl",
        ROOT / "sample_transcripts" / "openai-responses" / "chained-calls.jsonl",
        ROOT / "sample_transcripts" / "anthropic" / "parallel-calls.jsonl"]
#: Two sessions in one recording (an agent that starts over), and a line that is not JSON between.
MIXED = LOGS[0].read_bytes() + b"{not json\n" + LOGS[2].read_bytes()


def shape(loaded) -> tuple:  # noqa: ANN001
    return ([conversation_to_dict(c) for c in loaded.conversations], [str(e) for e in loaded.errors],
            sorted(f.to_dict().items().__repr__() for f in run_checks(loaded)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.sampled_from([*(log.read_bytes() for log in LOGS), MIXED]),
       cuts=st.lists(st.floats(min_value=0, max_value=1), max_size=6))
def test_read_in_any_pieces_the_recording_reads_as_a_whole(data: bytes, cuts: list[float], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"")
    reads: list[tuple[int, int]] = []
    real_open = open

    def counting_open(file, mode="r", *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        handle = real_open(file, mode, *args, **kwargs)
        read = handle.read

        def counted(size: int = -1) -> bytes:
            at = handle.tell()
            out = read(size)
            reads.append((at, len(out)))
            return out

        handle.read = counted
        return handle

    monkeypatch.setattr(follow, "open", counting_open, raising=False)
    follower = Follower(path)
    last = None
    at = 0
    for stop in sorted({int(c * len(data)) for c in cuts} | {len(data)}):
        with path.open("ab") as file:
            file.write(data[at:stop])
        at = stop
        update = follower.poll()
        last = update or last
        assert follower.offset == data.rfind(b"\n", 0, stop) + 1  # whole lines read, no more
    assert last is not None
    assert shape(last.loaded) == shape(load_file(path))
    assert sorted(last.findings, key=str) == sorted(run_checks(load_file(path)), key=str)
    assert [at for at, size in reads if size] == sorted({at for at, size in reads if size})
    assert sum(size for _, size in reads) == len(data)


def test_new_findings_are_those_the_last_append_brought(tmp_path: Path) -> None:
    lines = LOGS[0].read_bytes().splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    path.write_bytes(lines[0])
    follower = Follower(path)
    first = follower.poll()
    assert first is not None and first.new_findings == [] and len(first.exchanges) == 1
    with path.open("ab") as file:
        file.write(b"".join(lines[1:]))
    grown = follower.poll()
    assert grown is not None
    assert [f.code for f in grown.new_findings] == ["TD303"]
    assert [r.exchange.index for r in grown.exchanges] == list(range(1, len(lines)))
    assert follower.poll() is None  # nothing appended: nothing new


def test_a_file_written_anew_is_read_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(LOGS[0].read_bytes())
    follower = Follower(path)
    assert follower.poll() is not None
    shorter = LOGS[2].read_bytes()
    assert len(shorter) < path.stat().st_size
    path.write_bytes(shorter)  # `record --force` began it again
    update = follower.poll()
    assert update is not None and update.restarted
    assert shape(update.loaded) == shape(load_file(path))
