"""Dagster entry point: ``dagster dev -m pipelines.definitions`` / ``dg``-style loading."""

from __future__ import annotations

import dagster as dg

from pipelines.defs.derived import DERIVED_ASSETS, seeds
from pipelines.defs.fx import fx_rates
from pipelines.defs.history import HISTORY_ASSETS, backfill_job, publish_after_backfill
from pipelines.defs.jobs import (
    ingest_job,
    ingest_schedule,
    prune_runs_job,
    prune_runs_schedule,
    publish_after_ingest,
    publish_after_partial_ingest,
    publish_job,
)
from pipelines.defs.providers import PROVIDER_ASSETS
from pipelines.defs.resources import GpupricesResource

defs = dg.Definitions(
    assets=[seeds, fx_rates, *PROVIDER_ASSETS, *DERIVED_ASSETS, *HISTORY_ASSETS],
    jobs=[ingest_job, publish_job, backfill_job, prune_runs_job],
    schedules=[ingest_schedule, prune_runs_schedule],
    sensors=[publish_after_ingest, publish_after_partial_ingest, publish_after_backfill],
    # the home every entry point exports; the other settings: see pipelines.defs.resources
    resources={"gpuprices": GpupricesResource(home=dg.EnvVar("GPUPRICES_HOME"))},
)
