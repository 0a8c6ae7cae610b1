"""Crash safety: kill -9 an ingest at random points, then check nothing half-done is visible.

    .venv/bin/python benchmarks/crash_ingest.py                       # 20 kills of the CLI
    .venv/bin/python benchmarks/crash_ingest.py --mode direct --provider runpod --runs 20

Two uninterrupted runs publish a first snapshot and measure how long a run takes. Then, per
crash run: a replay of the selected providers' real captures under a new date (and padded by
a few bytes, so every body is new to the raw archive and every capture is a new scrape) is
started in a subprocess and sent SIGKILL after a random delay. ``--mode cli`` runs
``gpuprices ingest --replay`` (Dagster included); ``--mode direct`` runs the functions the
Dagster assets call (``benchmarks.harness.direct_ingest``) and starts the clock after the
imports, so every kill lands in the warehouse work. After every kill (``check_after_crash``):

- the warehouse opens (DuckDB replays its write-ahead log; migrations check out);
- no observation of a scrape that is not ``success`` exists, every successful scrape has all
  its observations, and every current offer comes from one complete successful scrape;
- ``published/CURRENT`` names a snapshot that opens read-only and has current offers;

and then an uninterrupted run completes (``--no-recovery-runs``: only after the last kill),
after which no scrape is left ``running`` and no temporary file is left behind. Prints one
line per kill and a summary; exit status 1 on any problem.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script: benchmarks/ is not a package on the path
    sys.path.insert(0, str(REPO))

import duckdb  # noqa: E402

from benchmarks.harness import SNAPSHOTS, direct_ingest, past_days, redated_replay  # noqa: E402

GPUPRICES = REPO / ".venv" / "bin" / "gpuprices"
STARTED = "child-started"


@dataclass
class CrashRun:
    run: int
    delay_s: float
    killed: bool  # False: the run finished before the kill
    problems: list[str] = field(default_factory=list)
    debris: list[str] = field(default_factory=list)  # what the kill left for the next run

    def line(self) -> str:
        state = "killed" if self.killed else "finished first"
        left = f" (left: {', '.join(self.debris)})" if self.debris else ""
        return f"run {self.run:2d}: {state} after {self.delay_s:.2f} s{left}: " + (
            "ok" if not self.problems else "; ".join(self.problems)
        )


def check_after_crash(home: Path) -> list[str]:
    """What a reader or the next run could see after a crash; [] when all is consistent."""
    from warehouse.db import Warehouse
    from warehouse.publish import current

    problems = []
    try:
        with Warehouse(home / "warehouse.duckdb", lock_timeout_s=30).connect() as con:
            problems += _warehouse_problems(con)
    except Exception as exc:
        problems.append(f"warehouse does not open: {type(exc).__name__}: {exc}")
    try:
        info = current(home / "published")
        if info is None:
            problems.append("published/CURRENT missing")
        else:
            con = duckdb.connect(str(info.path), read_only=True)
            try:
                snapshot_id = _one(con, "select snapshot_id from snapshot_meta")
                offers = _one(con, "select count(*) from current_offers")
            finally:
                con.close()
            if snapshot_id != info.snapshot_id or offers == 0:
                problems.append(f"snapshot {info.snapshot_id}: meta {snapshot_id}, {offers} offers")
    except Exception as exc:
        problems.append(f"published snapshot unreadable: {type(exc).__name__}: {exc}")
    return problems


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> object:
    row = con.execute(sql).fetchone()
    return row[0] if row else None


def _warehouse_problems(con: duckdb.DuckDBPyConnection) -> list[str]:
    problems = []
    orphans = _one(
        con,
        "select count(*) from observations o join scrapes s using (scrape_id)"
        " where s.status <> 'success'",
    )
    if orphans:
        problems.append(f"{orphans} observations of scrapes that did not succeed")
    # each provider's newest successful scrape (retention never prunes it) is complete
    incomplete = con.execute(
        "with newest as (select arg_max(scrape_id, observed_at) as scrape_id from scrapes"
        " where status = 'success' group by provider)"
        " select s.scrape_id from scrapes s join newest using (scrape_id) where s.offer_count <>"
        " (select count(*) from observations o where o.scrape_id = s.scrape_id)"
    ).fetchall()
    if incomplete:
        problems.append(f"successful scrapes missing observations: {incomplete[:3]}")
    # every scraped current offer belongs to one complete successful scrape of its provider
    partial = con.execute(
        """
        with served as (
            select c.provider, o.scrape_id, count(*) as n
            from current_offers c
            join observations o on o.offer_id = c.offer_id and o.observed_at = c.observed_at
                and o.provider = c.provider
            group by all
        )
        select served.provider, served.scrape_id, served.n, s.status, s.offer_count
        from served join scrapes s using (scrape_id)
        where s.status <> 'success' or s.offer_count <> served.n
           or served.provider in (select provider from served group by 1 having count(*) > 1)
        """
    ).fetchall()
    if partial:
        problems.append(f"partially served providers: {partial[:3]}")
    return problems


def leftovers(home: Path) -> list[str]:
    """Temporary files and unfinished scrapes that should not survive a completed run."""
    from warehouse.db import Warehouse

    found = [str(p.relative_to(home)) for p in (home / "raw").glob("*/*.tmp*")]
    published = home / "published"
    found += [p.name for p in published.glob(".tmp-snapshot-*")]
    found += [p.name for p in published.glob(".CURRENT.*.tmp")]
    with Warehouse(home / "warehouse.duckdb").connect() as con:
        running = _one(con, "select count(*) from scrapes where status = 'running'")
    if running:
        found.append(f"{running} scrapes still 'running'")
    return found


def _command(mode: str, home: Path, replay: Path, providers: Sequence[str]) -> list[str]:
    if mode == "cli":
        command = [str(GPUPRICES), "ingest", "--replay", str(replay)]
        for slug in providers:
            command += ["--provider", slug]
        return command
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        "--home",
        str(home),
        "--replay",
        str(replay),
    ]
    for slug in providers:
        command += ["--provider", slug]
    return command


def _start(mode: str, home: Path, replay: Path, providers: Sequence[str]) -> subprocess.Popen:
    process = subprocess.Popen(
        _command(mode, home, replay, providers),
        cwd=REPO,
        env={**os.environ, "GPUPRICES_HOME": str(home), "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    if mode == "direct":  # start the clock once the imports are done
        assert process.stdout is not None
        line = process.stdout.readline()
        if STARTED not in line:
            process.wait()
            raise RuntimeError(f"child did not start: {line!r}")
    return process


def _run_to_end(mode: str, home: Path, replay: Path, providers: Sequence[str]) -> float:
    """Run to completion; returns the seconds after start-up (direct mode: after imports)."""
    process = _start(mode, home, replay, providers)
    started = time.perf_counter()
    output, _ = process.communicate()
    if "published snapshot" not in (output or "") and process.returncode != 0:
        raise RuntimeError(f"uninterrupted run failed with {process.returncode}")
    return time.perf_counter() - started


def _captures(providers: Sequence[str], newest: int | None = None) -> list[Path]:
    from scrapers.registry import PROVIDERS
    from scrapers.replay import discover

    found = discover(SNAPSHOTS, list(providers) or sorted(PROVIDERS))
    return [c.path for slug in sorted(found) for c in found[slug][-(newest or 0) :]]


def crash_runs(
    home: Path,
    work: Path,
    providers: Sequence[str],
    *,
    runs: int = 20,
    mode: str = "direct",
    seed: int = 6,
    recovery_runs: bool = True,
    recover_in_process: bool = False,
    newest: int | None = None,
    report: bool = False,
) -> tuple[list[CrashRun], list[str]]:
    """Kill ``runs`` ingests at random points; returns the per-run results and what was left
    over after the final uninterrupted run (``leftovers``). ``recover_in_process``: the
    uninterrupted runs after the kills run in this process (``direct_ingest``; faster).
    ``newest``: replay only each provider's newest captures (less work per run)."""
    rng = random.Random(seed)
    captures = _captures(providers, newest)
    # two uninterrupted runs: the first (cold: empty warehouse) publishes a snapshot, the
    # second measures a typical run, over which the kill times are spread
    # one past day per run (the pipeline rejects observations dated in the future)
    days = past_days(runs + 2)
    _run_to_end(mode, home, redated_replay(work / "replay-0", captures, days[0]), providers)
    warm = redated_replay(work / "replay-00", captures, days[1], pad=1)
    duration = _run_to_end(mode, home, warm, providers)
    results = []
    for run in range(1, runs + 1):
        replay = redated_replay(work / f"replay-{run}", captures, days[run + 1], pad=run + 1)
        delay = rng.uniform(0.0, duration)
        process = _start(mode, home, replay, providers)
        time.sleep(delay)
        killed = process.poll() is None
        if killed:
            os.kill(process.pid, signal.SIGKILL)
        process.communicate()
        # what the kill left, before anything opens the warehouse (which replays its WAL)
        wal = ["warehouse WAL to replay"] if (home / "warehouse.duckdb.wal").exists() else []
        result = CrashRun(run, delay, killed, check_after_crash(home), wal + leftovers(home))
        if recovery_runs or run == runs:
            try:
                if recover_in_process:
                    direct_ingest(home, replay, providers)
                else:
                    _run_to_end(mode, home, replay, providers)
            except Exception as exc:
                result.problems.append(f"next run: {type(exc).__name__}: {exc}")
            result.problems += [f"after the next run: {p}" for p in check_after_crash(home)]
        results.append(result)
        if report:
            print(result.line(), flush=True)
    return results, leftovers(home)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--mode", choices=["cli", "direct"], default="cli")
    parser.add_argument("--provider", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument(
        "--no-recovery-runs",
        action="store_true",
        help="complete a run only after the last kill, not after every kill",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--replay", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        from scrapers.registry import PROVIDERS

        print(STARTED, flush=True)
        snapshot = direct_ingest(args.home, args.replay, args.provider or sorted(PROVIDERS))
        print(f"published snapshot {snapshot}", flush=True)
        return 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpuprices-crash-") as tmp:
        results, left = crash_runs(
            Path(tmp) / "home",
            Path(tmp),
            args.provider,
            runs=args.runs,
            mode=args.mode,
            seed=args.seed,
            recovery_runs=not args.no_recovery_runs,
            report=True,
        )
    bad = [r for r in results if r.problems]
    print(
        f"{len(results)} runs, {sum(r.killed for r in results)} killed mid-run "
        f"({sum(bool(r.debris) for r in results)} left debris for the next run), "
        f"{len(bad)} with problems, leftovers after the last run: {left or 'none'}; "
        f"{time.perf_counter() - started:.0f} s"
    )
    return 1 if bad or left else 0


if __name__ == "__main__":
    raise SystemExit(main())
