"""Retention of Dagster's run storage (``$GPUPRICES_HOME/dagster``, the DAGSTER_HOME that
``gpuprices`` uses): every run keeps its event log there, about 1.6 MB per ingest run, and Dagster
deletes none of it by itself.

``prune_runs`` deletes, through the instance (``DagsterInstance.delete_run``: the run, its event
log and its asset-check records), every *finished* run that is beyond the newest ``keep_runs``
(default 50: an ingest and its publish are two runs, so the last 25 ingests, a week at one every
6 hours) or created more than ``keep_days`` (default 30) days before now or before the newest
run, whichever is earlier (a clock set ahead never makes every run look old: issue 27). A run
still queued or running is never deleted. ``gpuprices ingest`` prunes after every invocation,
and the ``prune_runs`` job (daily schedule, ``pipelines.defs.jobs``) does the same where the
Dagster daemon runs the jobs. Schedule and sensor ticks have Dagster's own ``retention``
settings (``dagster.yaml``).

What is deleted is Dagster's bookkeeping only: scrapes, prices and snapshots live in the
warehouse and ``published/`` and are not touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage
from dagster._core.storage.local_compute_log_manager import LocalComputeLogManager

DEFAULT_KEEP_RUNS = 50
DEFAULT_KEEP_DAYS = 30.0
FINISHED = (
    dg.DagsterRunStatus.SUCCESS,
    dg.DagsterRunStatus.FAILURE,
    dg.DagsterRunStatus.CANCELED,
)


@dataclass(frozen=True)
class RunRetention:
    keep_runs: int = DEFAULT_KEEP_RUNS
    keep_days: float = DEFAULT_KEEP_DAYS

    def __post_init__(self) -> None:
        if self.keep_runs < 1 or not self.keep_days > 0:
            raise ValueError("keep at least one run, for more than 0 days")


def prune_runs(
    instance: dg.DagsterInstance,
    policy: RunRetention | None = None,
    *,
    now: datetime | None = None,
) -> list[str]:
    """Delete the finished runs ``policy`` does not keep (see the module docstring); returns
    their ids. An ephemeral instance keeps nothing on disk: nothing to do."""
    if instance.is_ephemeral:
        return []
    policy = policy or RunRetention()
    now = now or datetime.now(UTC)
    records = instance.get_run_records(
        filters=dg.RunsFilter(statuses=list(FINISHED)), order_by="create_timestamp"
    )  # newest first
    newest = records[0].create_timestamp if records else now
    since = min(now, newest) - timedelta(days=policy.keep_days)
    doomed = [
        r.dagster_run.run_id
        for rank, r in enumerate(records)
        if rank >= policy.keep_runs or r.create_timestamp < since
    ]
    for run_id in doomed:
        instance.delete_run(run_id)
        _delete_run_files(instance, run_id)
    return doomed


def _delete_run_files(instance: dg.DagsterInstance, run_id: str) -> None:
    """What ``delete_run`` leaves on disk: the run's own SQLite event-log shard (its rows are
    deleted, the file stays) and its captured compute-log directory."""
    storage = instance.event_log_storage
    if isinstance(storage, SqliteEventLogStorage):
        shard = Path(storage.path_for_shard(run_id))
        for path in (shard, *(shard.with_name(shard.name + s) for s in ("-wal", "-shm"))):
            path.unlink(missing_ok=True)
    manager = instance.compute_log_manager
    if isinstance(manager, LocalComputeLogManager):
        manager.delete_logs(prefix=[run_id])  # the run's directory under storage/
