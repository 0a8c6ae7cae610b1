"""Retention of Dagster's run storage under GPUPRICES_HOME (issue 15: ``dagster/`` grew ~1.6 MB
per run with no retention): finished runs beyond the newest N, or older than D days, are
deleted with their event-log files and compute logs; nothing of the warehouse is touched."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest

from pipelines.run import dagster_instance, run_ingest
from pipelines.run_retention import RunRetention, prune_runs
from tests.conftest import dagster_home
from tests.support.harness import newest_captures
from warehouse.db import Warehouse
from warehouse.paths import Paths

# the file takes about 30 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=30)


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_dagster_run_storage_grows_with_no_retention_no_more(tmp_path: Path) -> None:
    # Lambda's newest capture only (issue 23: the suite under 5 minutes): Dagster's run storage
    # grows per run whatever the run loads, so one capture a run shows it as well as all four
    replay = newest_captures(tmp_path / "replay", ["lambda"])
    paths = Paths(tmp_path / "home")
    home = dagster_home(paths.dagster_home)
    keep = RunRetention(keep_runs=2)
    # the CLI's instance of that home (pooled SQLite storage, pipelines.dagster_storage)
    with dagster_instance(False, home) as instance:
        sizes = []
        for _ in range(3):
            report = run_ingest(
                paths,
                replay_dir=replay,
                providers=["lambda"],
                instance=instance,
                run_retention=keep,
            )
            assert report.snapshot_id
            sizes.append(_bytes(home))
        runs = instance.get_runs()
        # an ingest and its publish: the newest two, the last invocation's, are kept
        assert len(runs) == 2 and report.run_id in {r.run_id for r in runs}
        shards = {p.stem for p in (home / "history" / "runs").glob("*.db")} - {"index"}
        assert shards == {r.run_id for r in runs}
        assert {p.name for p in (home / "storage").iterdir()} <= {r.run_id for r in runs}
    # bounded: the third invocation left the folder no bigger than the second (runs.db and
    # index.db reuse their freed pages)
    assert sizes[2] <= sizes[1] * 1.1, sizes
    with Warehouse(paths.warehouse).connect() as con:
        # one scrape of the one capture: the later runs replayed nothing new
        assert con.execute("select count(*) from scrapes").fetchone() == (1,)


def _created(tmp_path: Path, run_id: str, when: datetime) -> None:
    """Backdate a run (Dagster stamps ``create_timestamp`` itself, naive UTC in runs.db)."""
    with sqlite3.connect(tmp_path / "history" / "runs.db") as db:
        db.execute(
            "update runs set create_timestamp = ? where run_id = ?",
            [when.astimezone(UTC).replace(tzinfo=None).isoformat(" "), run_id],
        )


def test_runs_older_than_the_window_go_and_unfinished_runs_stay(tmp_path: Path) -> None:
    with dg.DagsterInstance.local_temp(str(tmp_path)) as instance:
        for run_id, status in (
            ("old", dg.DagsterRunStatus.SUCCESS),
            ("done", dg.DagsterRunStatus.SUCCESS),
            ("running", dg.DagsterRunStatus.STARTED),
        ):
            instance.add_run(dg.DagsterRun(job_name="ingest", run_id=run_id, status=status))
        now = datetime.now(UTC)
        _created(tmp_path, "old", now - timedelta(days=31))
        assert prune_runs(instance, RunRetention(keep_runs=50, keep_days=30), now=now) == ["old"]
        assert sorted(r.run_id for r in instance.get_runs()) == ["done", "running"]


def test_clock_set_ahead_deletes_no_run_of_the_window(tmp_path: Path) -> None:
    """Issue 27: 31 days ahead, every finished run looked older than the window and went; the
    window ends at the newest run when the clock is later than it."""
    with dg.DagsterInstance.local_temp(str(tmp_path)) as instance:
        instance.add_run(
            dg.DagsterRun(job_name="ingest", run_id="done", status=dg.DagsterRunStatus.SUCCESS)
        )
        later = datetime.now(UTC) + timedelta(days=31)
        assert prune_runs(instance, RunRetention(keep_runs=50, keep_days=30), now=later) == []
        assert [r.run_id for r in instance.get_runs()] == ["done"]


def test_a_policy_that_keeps_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        RunRetention(keep_runs=0)
