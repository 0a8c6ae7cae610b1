"""The API under load while ingest runs back to back (the code of
``benchmarks/concurrent_ingest.py`` and ``tests/pipelines/test_concurrent_serving.py``): every
response is checked against exactly one published snapshot."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.support.harness import Expected, Hammer, api_server, expectations, inconsistencies


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
