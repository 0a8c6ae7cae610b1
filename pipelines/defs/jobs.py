"""Jobs, the schedule, and the sensor that publishes after every ingestion run.

Ingestion and publishing are two jobs because Dagster skips downstream steps of a failed
step: one provider failing must not stop the snapshot of all the others.
"""

import dagster as dg

from pipelines.defs.derived import DERIVED
from pipelines.defs.providers import GROUP
from pipelines.run_retention import prune_runs

INGEST_CRON = "0 */6 * * *"  # every 6 hours, on the hour (UTC)

ingest_job = dg.define_asset_job(
    "ingest",
    selection=dg.AssetSelection.groups("seeds", GROUP),
    description="Seed reference tables, then scrape every provider (each its own asset)",
)
publish_job = dg.define_asset_job(
    "publish",
    selection=dg.AssetSelection.groups(DERIVED),
    description="Rebuild derived models and publish a new snapshot for the API",
)
ingest_schedule = dg.ScheduleDefinition(
    name="ingest_every_6_hours",
    job=ingest_job,
    cron_schedule=INGEST_CRON,
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[ingest_job],
    request_job=publish_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Publish after a successful ingestion run",
)
def publish_after_ingest(context: dg.RunStatusSensorContext) -> dg.RunRequest:
    return dg.RunRequest(run_key=context.dagster_run.run_id)


@dg.run_failure_sensor(
    monitored_jobs=[ingest_job],
    request_job=publish_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Publish after an ingestion run in which some provider failed: the others' "
    "fresh data still goes out, the failed provider keeps its last good data",
)
def publish_after_partial_ingest(context: dg.RunFailureSensorContext) -> dg.RunRequest:
    return dg.RunRequest(run_key=context.dagster_run.run_id)


@dg.op(
    description="Delete finished runs beyond the newest 50 or older than 30 days, with their "
    "event logs (pipelines/run_retention.py); scrapes and snapshots are not touched"
)
def prune_run_storage(context: dg.OpExecutionContext) -> dg.Output[int]:
    deleted = prune_runs(context.instance)
    return dg.Output(len(deleted), metadata={"runs_deleted": len(deleted)})


@dg.job(name="prune_runs", description="Retention of Dagster's run storage")
def prune_runs_job() -> None:
    prune_run_storage()


prune_runs_schedule = dg.ScheduleDefinition(
    name="prune_runs_daily",
    job=prune_runs_job,
    cron_schedule="30 3 * * *",
    execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.RUNNING,
)
