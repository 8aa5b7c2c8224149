"""Time `tooldbg check` over a folder of many logs: serial, `--jobs N`, and on a local Dask cluster
(`--scheduler`). On demand, not in CI (README: "A folder of logs").

    .venv/bin/python scripts/scan_folder.py [--files 1000] [--jobs 2] [--repeat 3]

The folder is made from the sample transcripts (every clean and defective sample, copied round-robin
under new names, so the mix of containers, formats and findings is the samples'). Each way runs the
installed `tooldbg check FOLDER --format json` as a user would (start-up included), `--repeat`
times, and the best wall time is printed; every run's document must equal the serial one byte for
byte, or the script fails. The cluster (two worker processes, one thread each, on 127.0.0.1) is
started before its runs and its start-up is not counted: it is started once and kept.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_transcripts"
TOOLDBG = Path(sys.executable).with_name("tooldbg")


def make_folder(folder: Path, count: int) -> None:
    samples = sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.name != "README.md")
    for i in range(count):
        sample = samples[i % len(samples)]
        shutil.copy(sample, folder / f"{i:04d}-{sample.name}")


def timed(argv: list[str], repeat: int) -> tuple[float, float, bytes]:
    """The best wall time of `repeat` runs, the CPU time (user + system, the command and the worker
    processes it waited for) of that run, and its output."""
    best, cpu, out = float("inf"), 0.0, b""
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.decode()[-500:]}")
        if wall < best:
            best, out = wall, done.stdout
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return best, cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "logs"
        folder.mkdir()
        make_folder(folder, args.files)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"{args.files} logs, {size / 1e6:.1f} MB; {platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} cores, Python {platform.python_version()}")
        print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        check = [str(TOOLDBG), "check", str(folder), "--format", "json"]
        serial, cpu, expected = timed(check, args.repeat)
        print(f"serial          {serial:6.2f} s wall  {cpu:6.2f} s CPU")
        jobs, cpu, out = timed([*check, "--jobs", str(args.jobs)], args.repeat)
        assert out == expected, "--jobs gave another document than the serial run"
        print(f"--jobs {args.jobs}        {jobs:6.2f} s wall  {cpu:6.2f} s CPU (with its workers)")
        from distributed import LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            dask, cpu, out = timed([*check, "--scheduler", cluster.scheduler_address], args.repeat)
        assert out == expected, "--scheduler gave another document than the serial run"
        print(f"--scheduler     {dask:6.2f} s wall  {cpu:6.2f} s CPU (the client; local cluster: "
              "2 worker processes)")
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
