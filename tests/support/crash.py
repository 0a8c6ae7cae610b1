"""kill -9 an ingest at points spread over a run, then check nothing half-done is visible (the
code of ``benchmarks/crash_ingest.py``, which runs it at full size, and of
``tests/pipelines/test_crash_safety.py``, which runs it small).

Two uninterrupted runs publish a first snapshot and measure how long a run takes. Then, per
crash run: a replay of the selected providers' real captures under a new date (and padded by
a few bytes, so every body is new to the raw archive and every capture is a new scrape) is
started in a subprocess and sent SIGKILL after a delay. ``mode="cli"`` runs ``gpuprices ingest
--replay`` (Dagster included); ``mode="direct"`` runs the functions the Dagster assets call
(``tests.support.harness.direct_ingest``, this module run with ``-m``) and starts the clock
after the imports, so every kill lands in the warehouse work. After every kill
(``check_after_crash``):

- the warehouse opens (DuckDB replays its write-ahead log; migrations check out);
- no observation of a scrape that is not ``success`` exists, every successful scrape has all
  its observations, and every current offer comes from one complete successful scrape;
- ``published/CURRENT`` names a snapshot that opens read-only and has current offers;

and then an uninterrupted run completes (``recovery_runs=False``: only after the last kill),
after which no scrape is left ``running`` and no temporary file is left behind.

Where the kills land (``kill_delays``): the measured run time is cut into ``runs`` equal slices
and kill k comes at a random point of slice k, so even a few kills cover the start, the middle
and the end of a run. A run that finishes before its kill (this machine was faster than the
measured run, e.g. once a busy neighbour stopped) is checked like the others, makes the run-time
estimate its own duration, and is followed by another attempt at half the delay, until the kill
lands: every one of the ``runs`` kills lands mid-run by construction, not by timing luck.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from tests.support.harness import REPO, SNAPSHOTS, direct_ingest, past_days, redated_replay

GPUPRICES = REPO / ".venv" / "bin" / "gpuprices"
STARTED = "child-started"
ATTEMPTS_PER_KILL = 6  # each one at half the delay of the one before: 1/32 of it at the last


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
        "-m",
        __name__,
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


def kill_delays(duration_s: float, runs: int, rng: random.Random) -> list[float]:
    """One delay per kill: kill k at a random point of the k-th of ``runs`` equal slices of a
    run of ``duration_s`` (stratified, in a random order)."""
    slices = list(range(runs))
    rng.shuffle(slices)
    return [duration_s * (k + rng.random()) / runs for k in slices]


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
    """Kill ``runs`` ingests mid-run; returns the per-attempt results (``runs`` killed ones,
    plus any that finished before their kill) and what was left over after the final
    uninterrupted run (``leftovers``). ``recover_in_process``: the uninterrupted runs after the
    kills run in this process (``direct_ingest``; faster). ``newest``: replay only each
    provider's newest captures (less work per run)."""
    rng = random.Random(seed)
    captures = _captures(providers, newest)
    # one past day per attempt (the pipeline rejects observations dated in the future)
    days = iter(past_days(2 + runs * ATTEMPTS_PER_KILL))
    pads = iter(range(1, 2 + runs * ATTEMPTS_PER_KILL))
    replays = (work / f"replay-{n}" for n in range(10**6))

    def next_replay() -> Path:
        return redated_replay(next(replays), captures, next(days), pad=next(pads) - 1)

    # two uninterrupted runs: the first (cold: empty warehouse) publishes a snapshot, the
    # second measures a typical run, over which the kill times are spread
    _run_to_end(mode, home, next_replay(), providers)
    duration = _run_to_end(mode, home, next_replay(), providers)
    fractions = [d / duration for d in kill_delays(duration, runs, rng)]
    results: list[CrashRun] = []
    for kill, fraction in enumerate(fractions, start=1):
        delay = fraction * duration
        for _ in range(ATTEMPTS_PER_KILL):
            replay = next_replay()
            process = _start(mode, home, replay, providers)
            started = time.perf_counter()
            try:
                process.wait(timeout=delay)
                killed = False
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                killed = True
            elapsed = time.perf_counter() - started
            process.communicate()
            # what the kill left, before anything opens the warehouse (which replays its WAL)
            wal = ["warehouse WAL to replay"] if (home / "warehouse.duckdb.wal").exists() else []
            number = len(results) + 1
            result = CrashRun(number, delay, killed, check_after_crash(home), wal + leftovers(home))
            if recovery_runs or (kill == runs and killed):
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
            if killed:
                break
            # the run was shorter than measured: that is the run time now; try again earlier
            duration = min(duration, elapsed)
            delay = min(fraction * duration, delay / 2)
    return results, leftovers(home)


def _child(argv: Sequence[str] | None = None) -> int:
    """The killed process of ``mode="direct"``: ``python -m tests.support.crash``."""
    from scrapers.registry import PROVIDERS

    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--replay", type=Path, required=True)
    parser.add_argument("--provider", action="append", default=[])
    args = parser.parse_args(argv)
    print(STARTED, flush=True)
    snapshot = direct_ingest(args.home, args.replay, args.provider or sorted(PROVIDERS))
    print(f"published snapshot {snapshot}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_child())
