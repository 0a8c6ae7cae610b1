"""The Dagster storage ``gpuprices ingest`` runs on (``pipelines.dagster_storage``: Dagster's
SQLite files, connections kept open; issue 23: opening one per event was the largest cost of a
replay) is Dagster's own storage to every other reader: ``dagster dev`` and the daemon read it
with Dagster's classes, and run retention still deletes a run's files."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from pipelines.cli import main
from pipelines.dagster_storage import PooledSqliteEventLogStorage, PooledSqliteRunStorage
from pipelines.defs.providers import CHECKS, asset_key
from pipelines.run import dagster_instance, run_ingest
from pipelines.run_retention import RunRetention
from tests.conftest import dagster_home
from tests.support.harness import newest_captures
from warehouse.paths import Paths


def test_runs_stored_with_open_connections_read_back_through_dagsters_own_storage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = newest_captures(tmp_path / "replay", ["lambda"])
    home = tmp_path / "home"
    monkeypatch.setenv("GPUPRICES_HOME", str(home))
    assert main(["ingest", "--replay", str(replay), "--provider", "lambda"]) == 0
    assert "1 providers: 1 replay ok, 0 failed" in capsys.readouterr().out
    dagster = home / "dagster"
    # every connection was closed when the command ended: no WAL left beside a database
    assert not list(dagster.rglob("*.db-wal"))
    with dg.DagsterInstance.from_config(str(dagster)) as instance:  # what `dagster dev` opens
        assert not isinstance(instance.event_log_storage, PooledSqliteEventLogStorage)
        runs = instance.get_runs()
        assert sorted(r.job_name for r in runs) == ["ingest", "publish"]
        assert all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
        event = instance.get_latest_materialization_event(asset_key("lambda"))
        assert event is not None and event.asset_materialization is not None
        metadata = event.asset_materialization.metadata
        # Lambda's capture of 2026-01-09 lists 5 offers
        assert metadata["offers_latest"].value == 5
        assert str(metadata["observed_at"].value).startswith("2026-01-09")
        checks = instance.event_log_storage.get_asset_check_execution_history(
            dg.AssetCheckKey(asset_key("lambda"), "non_empty"), limit=5
        )
        assert [c.status.value for c in checks] == ["SUCCEEDED"]
        ingest = next(r for r in runs if r.job_name == "ingest")
        evaluations = [
            e
            for e in instance.all_logs(ingest.run_id)
            if e.dagster_event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION
        ]
        assert len(evaluations) == len(CHECKS)


def test_run_retention_deletes_the_files_of_runs_stored_with_open_connections(
    tmp_path: Path,
) -> None:
    replay = newest_captures(tmp_path / "replay", ["lambda"])
    paths = Paths(tmp_path / "home")
    home = dagster_home(paths.dagster_home)
    with dagster_instance(verbose=False, root=home) as instance:
        assert isinstance(instance.event_log_storage, PooledSqliteEventLogStorage)
        assert isinstance(instance.run_storage, PooledSqliteRunStorage)
        for _ in range(2):
            report = run_ingest(
                paths,
                replay_dir=replay,
                providers=["lambda"],
                instance=instance,
                run_retention=RunRetention(keep_runs=2),
            )
            assert report.snapshot_id
        kept = {r.run_id for r in instance.get_runs()}
        assert len(kept) == 2 and report.run_id in kept
    shards = {p.name for p in (home / "history" / "runs").iterdir()} - {"index.db"}
    assert shards == {f"{run_id}.db" for run_id in kept}
