"""The API under load while ingest runs 4 times back to back: zero errors, every response
consistent with exactly one published snapshot.

The API runs under uvicorn in its own process, as in production. The ingest runs in this
process through the functions the Dagster assets call (``tests.support.harness.direct_ingest``:
seeds, scrapes, derived models, snapshot), because starting Dagster ten times would dominate
the test; ``benchmarks/concurrent_ingest.py`` does the same through ``gpuprices ingest`` with
every provider. Each run replays a different real RunPod capture under a later (past) date, so
consecutive snapshots hold different offers and a response mixing two snapshots is caught.

4 runs, not 10 (issue 23: the suite under 5 minutes): each run is one snapshot swap under
load, and the property (no error, no response mixing two snapshots) is per swap; 4 swaps
cycle through RunPod's captures and still leave the server at least 3 snapshots to serve
(asserted), and the benchmark runs 10 with every provider.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapers.replay import discover
from tests.conftest import SNAPSHOTS
from tests.support.concurrent import serve_while_ingesting
from tests.support.harness import direct_ingest, past_days, redated_replay

# the file takes about 15 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=15)
RUNS = 4
PROVIDER = "runpod"


def test_api_under_load_while_ingest_runs_back_to_back(tmp_path: Path) -> None:
    captures = [
        c.path for c in discover(SNAPSHOTS, [PROVIDER])[PROVIDER] if c.path.suffix == ".json"
    ]
    assert len(captures) >= 3
    home = tmp_path / "home"
    days = past_days(RUNS + 1)  # runs 0..RUNS: later than every capture, never in the future

    def ingest(run: int) -> None:
        capture = captures[run % len(captures)]
        replay = redated_replay(tmp_path / f"replay-{run}", [capture], days[run])
        direct_ingest(home, replay, [PROVIDER])

    result = serve_while_ingesting(home, ingest, RUNS, threads=2, reload_interval_s=0.1)

    assert result.errors == []
    assert result.inconsistent == []
    assert result.snapshots_published == RUNS + 1
    assert result.snapshots_seen >= 3, "the server swapped snapshots while under load"
    assert result.distinct_answers >= 2, "consecutive snapshots differ, so mixing would show"
    assert result.requests > 100
