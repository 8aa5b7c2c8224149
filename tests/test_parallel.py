"""`check` over several processes (`--jobs N`) or a Dask cluster (`--scheduler ADDRESS`,
`tooldbg.scan.check_files(paths, map=...)`) reports exactly what the serial run reports: the same
findings, errors, skipped files and order, the same document byte for byte."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import paths
from tests.command import run
from tooldbg.scan import Options, check_files, dask_map, processes


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    """Every sample transcript (clean and defective, every container), plus what makes a run exit 2
    and what it skips: an unreadable capture, a capture with no LLM exchange, a README."""
    folder = tmp_path_factory.mktemp("parallel") / "logs"
    shutil.copytree(paths.SAMPLES, folder)
    (folder / "broken.jsonl").write_text('{"request": {"url": "https://api.anthropic.com/v1/mess')
    (folder / "config.json").write_text('{"hello": "world"}')
    return folder


def _serial(capsys, logs: Path, fmt: str) -> str:
    code, out, _ = run(capsys, "check", str(logs), "--format", fmt)
    assert code == 2  # findings, and an unreadable input: the exit code says the latter
    return out


@pytest.mark.parametrize("fmt", ["json", "text", "github"])
def test_jobs_2_reports_exactly_what_the_serial_run_reports(logs, capsys, fmt):
    expected = _serial(capsys, logs, fmt)
    code, out, err = run(capsys, "check", str(logs), "--format", fmt, "--jobs", "2")
    assert code == 2 and out == expected
    assert '"TD303"' in expected or "TD303" in expected  # the samples' findings are in it
    assert "broken.jsonl" in expected and "README.md" in expected + err


def test_jobs_keeps_the_order_of_the_inputs_given(capsys):
    files = [str(p) for p in sorted((paths.SAMPLES / "defects").iterdir(), reverse=True)
             if p.name != "README.md"][:6]
    code, expected, _ = run(capsys, "check", *files, "--format", "json")
    assert run(capsys, "check", *files, "--format", "json", "-j", "3")[1:] == (expected, "")
    assert expected.index(Path(files[0]).name) < expected.index(Path(files[-1]).name)


def test_the_library_maps_files_over_any_map_and_gathers_the_serial_document(logs):
    options = Options(target="anthropic", codes=("TD303", "TD801", "TD102"))
    expected = check_files([str(logs)], options).document()
    assert check_files([str(logs)], options, map=processes(2)).document() == expected
    assert check_files([str(logs)], options, map=processes(2), logs=True).document() == expected
    assert {f["code"] for f in expected["findings"]} == {"TD303", "TD801", "TD102"}


def test_jobs_and_scheduler_together_is_a_usage_error(capsys):
    code, _, err = run(capsys, "check", str(paths.SAMPLES), "-j", "2", "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and err == ("tooldbg: --jobs and --scheduler: choose one (the cluster's workers are "
                                 "the jobs)\n")


def test_a_dask_cluster_reports_exactly_what_the_serial_run_reports(logs, capsys):
    """Two workers on a local cluster, over TCP on the loopback interface, so every task and every
    result is serialized as it would be between machines."""
    import distributed  # the test extra installs it (pyproject.toml): this test runs in CI

    expected = _serial(capsys, logs, "json")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        code, out, err = run(capsys, "check", str(logs), "--format", "json", "--scheduler", address)
        scan = check_files([str(logs)], map=dask_map(address))
        logs_back = check_files([str(logs)], map=dask_map(address), logs=True)
    assert code == 2 and out == expected
    serial = check_files([str(logs)])
    assert scan.document() == serial.document() == logs_back.document()
    assert [r.path for r in scan.reports] == [r.path for r in serial.reports]
    assert len(scan.reports) > 40 and scan.skipped == [str(logs / "README.md")]
    # with the logs sent back (what the text report quotes), each file's findings are the serial run's
    assert [(c.loaded.path, c.findings) for c in logs_back.results] == \
        [(r.path, list(r.findings)) for r in serial.reports]


def test_a_scheduler_address_that_is_not_one_is_a_one_line_error(capsys):
    code, out, err = run(capsys, "check", str(paths.SAMPLES), "--scheduler", "http://scheduler")
    assert code == 2 and out == ""
    assert err.startswith("tooldbg: http://scheduler: not a Dask scheduler address: unknown address scheme "
                          "'http'") and err.count("\n") == 1
