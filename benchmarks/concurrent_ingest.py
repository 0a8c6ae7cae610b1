"""The API under load while ingest runs back to back: zero errors, and every response
consistent with exactly one published snapshot.

    .venv/bin/python benchmarks/concurrent_ingest.py                    # 10 runs, all providers
    .venv/bin/python benchmarks/concurrent_ingest.py --runs 3 --provider lambda --threads 8

Starts the API under uvicorn (its own process) over a fresh temporary ``GPUPRICES_HOME``,
then runs ``gpuprices ingest --replay ../shared/snapshots`` ``--runs`` times, one after the
other, while ``--threads`` clients keep requesting ``GET /instances?min_vram=80&fp8=true`` and
``GET /health``. After each run it records what those queries must answer for the snapshot
just published (a fresh in-process app on that snapshot). At the end every response is checked:
HTTP 200, its ``as_of`` names a published snapshot, and its totals and item ids are exactly
that snapshot's. Prints requests, errors, snapshots seen, requests/s and latency p50/p99.
Exit status 1 on any error or inconsistency.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script: benchmarks/ is not a package on the path
    sys.path.insert(0, str(REPO))

from benchmarks.harness import (  # noqa: E402
    SNAPSHOTS,
    Expected,
    Hammer,
    api_server,
    expectations,
    inconsistencies,
)

GPUPRICES = REPO / ".venv" / "bin" / "gpuprices"


@dataclass
class Result:
    runs: int
    requests: int
    errors: list[str]
    inconsistent: list[str]
    snapshots_published: int
    snapshots_seen: int
    distinct_answers: int  # different /instances answers among the published snapshots
    elapsed_s: float
    p50_ms: float
    p99_ms: float

    @property
    def ok(self) -> bool:
        return not self.errors and not self.inconsistent and self.requests > 0

    def lines(self) -> list[str]:
        return [
            f"ingest runs: {self.runs}, snapshots published: {self.snapshots_published} "
            f"({self.distinct_answers} distinct answers), served under load: "
            f"{self.snapshots_seen}",
            f"requests: {self.requests} in {self.elapsed_s:.1f} s "
            f"({self.requests / self.elapsed_s:.0f}/s), latency p50 {self.p50_ms:.1f} ms, "
            f"p99 {self.p99_ms:.1f} ms",
            f"errors: {len(self.errors)}, inconsistent responses: {len(self.inconsistent)}",
            *[f"  {e}" for e in (self.errors + self.inconsistent)[:10]],
        ]


def serve_while_ingesting(
    home: Path,
    ingest: Callable[[int], None],
    runs: int,
    *,
    threads: int = 4,
    reload_interval_s: float = 0.2,
) -> Result:
    """``ingest(0)`` publishes a first snapshot; then the API is served from ``home`` while
    ``ingest(1..runs)`` run back to back under load."""
    published = home / "published"
    ingest(0)
    expected: dict[str, Expected] = {}
    first = expectations(published)
    expected[first.as_of] = first
    with api_server(home, reload_interval_s=reload_interval_s) as url:
        hammer = Hammer(url, threads=threads).start()
        started = time.perf_counter()
        for run in range(1, runs + 1):
            ingest(run)
            snapshot = expectations(published)
            expected[snapshot.as_of] = snapshot
        time.sleep(max(1.0, 3 * reload_interval_s))  # the last snapshot gets served too
        hammer.stop()
        elapsed = time.perf_counter() - started
    latencies = sorted(o.latency_s * 1000 for o in hammer.observations) or [0.0]
    return Result(
        runs=runs,
        requests=len(hammer.observations) + len(hammer.errors),
        errors=hammer.errors,
        inconsistent=inconsistencies(hammer.observations, expected),
        snapshots_published=len(expected),
        snapshots_seen=len({o.as_of for o in hammer.observations if o.as_of}),
        distinct_answers=len({(e.instances_total, e.instances_digest) for e in expected.values()}),
        elapsed_s=elapsed,
        p50_ms=statistics.median(latencies),
        p99_ms=latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
    )


def cli_ingest(home: Path, replay: Path, providers: Sequence[str]) -> Callable[[int], None]:
    """One ``gpuprices ingest --replay`` process per run (what an operator or cron runs)."""

    def ingest(run: int) -> None:
        command = [str(GPUPRICES), "ingest", "--replay", str(replay)]
        for slug in providers:
            command += ["--provider", slug]
        done = subprocess.run(
            command,
            cwd=REPO,
            env={**os.environ, "GPUPRICES_HOME": str(home)},
            capture_output=True,
            text=True,
            check=False,
        )
        if "published snapshot" not in done.stdout:  # a failed provider still publishes
            raise RuntimeError(f"ingest run {run} published nothing: {done.stderr[-2000:]}")

    return ingest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=4, help="concurrent API clients")
    parser.add_argument("--provider", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--replay", type=Path, default=SNAPSHOTS)
    args = parser.parse_args(argv)
    # an app created in this process turns on INFO logging; httpx would log every request
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="gpuprices-concurrent-") as tmp:
        home = Path(tmp) / "home"
        result = serve_while_ingesting(
            home, cli_ingest(home, args.replay, args.provider), args.runs, threads=args.threads
        )
    for line in result.lines():
        print(line)
    print("OK" if result.ok else "FAILED")
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
