"""Backfill of price history from public datasets (group "history", job "backfill").

The ``history/backfill`` asset imports every dataset under the history folder
(``warehouse.importers``; idempotent). When the job succeeds, a sensor runs the publish job so
the imported history reaches the API. Not scheduled: the datasets change only when someone
adds files.
"""

import dagster as dg
from pydantic import Field

from pipelines.backfill import HISTORY_DIR_ENV, history_dir, import_history
from pipelines.defs.jobs import publish_job
from pipelines.defs.resources import GpupricesResource

GROUP = "history"
BACKFILL_KEY = dg.AssetKey([GROUP, "backfill"])


class BackfillConfig(dg.Config):
    history_dir: str = Field(
        default="",
        description=f"Datasets folder; default ${HISTORY_DIR_ENV}, else ../shared/history",
    )
    datasets: list[str] = Field(default_factory=list, description="Only these (default: all)")


@dg.asset(
    key=BACKFILL_KEY,
    group_name=GROUP,
    kinds={"python", "duckdb"},
    deps=[dg.AssetKey(["seeds"])],
    description="Imports gpuhunt catalog results, the gpu-hunt site tables and Prime Intellect "
    "market summaries; rows carry source='import:<dataset>'",
    check_specs=[
        dg.AssetCheckSpec(
            "every_dataset_wrote_rows",
            asset=BACKFILL_KEY,
            blocking=True,
            description="Each imported dataset holds at least one row",
        )
    ],
)
def history_backfill(
    context: dg.AssetExecutionContext, config: BackfillConfig, gpuprices: GpupricesResource
) -> dg.MaterializeResult:
    folder = history_dir(config.history_dir or gpuprices.settings().history_dir)
    results = import_history(gpuprices.paths(), folder, config.datasets or None)
    for result in results:
        context.log.info(result.summary())
    empty = [r.dataset for r in results if sum(r.rows_written.values()) == 0]
    metadata: dict[str, dg.RawMetadataValue] = {}
    for r in results:
        metadata[f"{r.dataset}.status"] = r.status
        metadata[f"{r.dataset}.rows_read"] = r.rows_read
        # what the warehouse holds of the dataset (an unchanged run wrote nothing: see .wrote)
        metadata[f"{r.dataset}.rows_written"] = sum(r.rows_written.values())
        metadata[f"{r.dataset}.wrote"] = r.wrote
        metadata[f"{r.dataset}.rows_to_gpu_model"] = r.rows_to_model
        metadata[f"{r.dataset}.rows_to_gpu_family"] = sum(r.rows_to_family.values())
        metadata[f"{r.dataset}.unresolved_gpu_rows"] = sum(r.unresolved_gpus.values())
        metadata[f"{r.dataset}.excluded_rows"] = sum(r.excluded.values())
    return dg.MaterializeResult(
        metadata=metadata,
        check_results=[
            dg.AssetCheckResult(
                check_name="every_dataset_wrote_rows",
                passed=not empty,
                metadata={"empty": ", ".join(empty)},
            )
        ],
    )


backfill_job = dg.define_asset_job(
    "backfill",
    selection=dg.AssetSelection.groups(GROUP),
    description="Import the public price-history datasets (then the sensor publishes)",
)


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=[backfill_job],
    request_job=publish_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Publish after a successful backfill, so imported history reaches the API",
)
def publish_after_backfill(context: dg.RunStatusSensorContext) -> dg.RunRequest:
    return dg.RunRequest(run_key=context.dagster_run.run_id)


HISTORY_ASSETS = [history_backfill]
