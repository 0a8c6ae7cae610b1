"""Replay every capture through the Dagster ingest and publish jobs in-process; print wall time
and peak memory.

    .venv/bin/python benchmarks/replay_ingest.py                # persistent Dagster instance
    .venv/bin/python benchmarks/replay_ingest.py --ephemeral    # in-memory Dagster instance
    .venv/bin/python benchmarks/replay_ingest.py --tracemalloc  # + Python heap peak (slower)
    .venv/bin/python benchmarks/replay_ingest.py --profile 30   # + cProfile, top 30 functions

It runs ``pipelines.run.run_ingest`` (what ``gpuprices ingest --replay`` runs) on
``../shared/snapshots`` into a fresh temporary ``GPUPRICES_HOME`` (a cold start: empty
warehouse, raw archive and Dagster storage), so every capture is parsed, archived and loaded.
By default the Dagster instance is the persistent one the CLI uses (SQLite run and event
storage under ``$GPUPRICES_HOME/dagster``). Reported: import time, run time (seeds, FX, every
provider, derived models, token estimates, snapshot), their sum, peak resident set size
(``ru_maxrss``, whole process), the run's CPU time (user + sys: on a busy machine wall time
mostly measures the neighbours) and, with ``--tracemalloc``, the peak of Python allocations
during the run. Exit status 1 when the run fails or is slower than ``--target-s``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAPSHOTS = REPO.parent / "shared" / "snapshots"
TARGET_S = 15.0


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _peak_rss_mb() -> float:
    # Linux reports ru_maxrss in KiB (macOS in bytes).
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform != "darwin" else peak / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--snapshots",
        type=Path,
        default=SNAPSHOTS,
        help=f"captures to replay (default {SNAPSHOTS})",
    )
    parser.add_argument(
        "--ephemeral",
        action="store_true",
        help="in-memory Dagster instance instead of the CLI's SQLite one",
    )
    parser.add_argument(
        "--tracemalloc",
        action="store_true",
        help="also report the Python heap peak (slows the run down)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        metavar="N",
        default=0,
        help="profile the run with cProfile and print the top N functions",
    )
    parser.add_argument(
        "--target-s",
        type=float,
        default=TARGET_S,
        help=f"fail when the run takes longer (default {TARGET_S:g} s)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary GPUPRICES_HOME")
    args = parser.parse_args(argv)
    if not args.snapshots.is_dir():
        print(f"error: no captures at {args.snapshots}", file=sys.stderr)
        return 2

    home = Path(tempfile.mkdtemp(prefix="gpuprices-bench-"))
    os.environ["GPUPRICES_HOME"] = str(home)
    started = time.perf_counter()
    sys.path.insert(0, str(REPO))
    import dagster as dg

    from pipelines.cli import _prepare_dagster_home
    from pipelines.run import run_ingest
    from warehouse.paths import Paths

    imported = time.perf_counter()
    paths = Paths(home)
    _prepare_dagster_home(paths)
    instance = dg.DagsterInstance.ephemeral() if args.ephemeral else dg.DagsterInstance.get()
    profiler = cProfile.Profile() if args.profile else None
    if args.tracemalloc:
        tracemalloc.start()
    run_start, cpu_start = time.perf_counter(), _cpu_s()
    if profiler:
        profiler.enable()
    report = run_ingest(paths, replay_dir=args.snapshots.resolve(), instance=instance)
    if profiler:
        profiler.disable()
    run_s, run_cpu_s = time.perf_counter() - run_start, _cpu_s() - cpu_start
    heap_peak = tracemalloc.get_traced_memory()[1] if args.tracemalloc else None
    tracemalloc.stop()

    failed = [line for line in report.lines() if "FAILED" in line]
    print(f"providers           {len(report.providers)} ({len(failed)} failed)")
    print(f"current offers      {report.offer_count}")
    print(
        f"snapshot            {report.snapshot_id or 'NOT PUBLISHED: ' + str(report.publish_error)}"
    )
    print(f"dagster instance    {'ephemeral' if args.ephemeral else 'persistent (sqlite)'}")
    print(f"import time         {imported - started:6.2f} s")
    print(f"run time            {run_s:6.2f} s   (target {args.target_s:g} s)")
    print(f"run CPU (user+sys)  {run_cpu_s:6.2f} s   (wall - CPU = waiting on disk or other jobs)")
    print(f"total               {imported - started + run_s:6.2f} s")
    print(f"peak RSS            {_peak_rss_mb():6.0f} MB")
    if heap_peak is not None:
        print(f"python heap peak    {heap_peak / 2**20:6.0f} MB (tracemalloc; timings inflated)")
    for line in failed:
        print(f"  {line}")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
    if args.keep:
        print(f"kept {home}")
    else:
        shutil.rmtree(home, ignore_errors=True)
    return 0 if report.ok and run_s <= args.target_s else 1


if __name__ == "__main__":
    raise SystemExit(main())
