"""kill -9 an ingest at 20 random points: the warehouse always opens, no partially loaded
provider is ever visible, the published snapshot is always valid, and the next run completes
and leaves nothing behind (no 'running' scrape, no temporary file).

Each killed run is a subprocess running the functions the Dagster assets call
(``tests.support.harness.direct_ingest``), with the kill timed after its imports so it lands in
the warehouse, archive or publish work; the run after each kill runs in this process.
``benchmarks/crash_ingest.py`` does the same to ``gpuprices ingest`` with every provider.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.crash import crash_runs

RUNS = 20


@pytest.mark.slow
def test_kill_9_at_random_points_leaves_nothing_half_done(tmp_path: Path) -> None:
    results, left = crash_runs(
        tmp_path / "home",
        tmp_path,
        ["lambda", "runpod"],
        runs=RUNS,
        mode="direct",
        recover_in_process=True,
        newest=1,
        seed=6,
    )

    assert [r.line() for r in results if r.problems] == []
    assert left == [], "the last completed run cleaned up after every crash"
    assert len(results) == RUNS
    assert sum(r.killed for r in results) >= RUNS * 3 // 4, "most kills landed mid-run"
    assert any(r.debris for r in results), "some kills interrupted a scrape or a write"
