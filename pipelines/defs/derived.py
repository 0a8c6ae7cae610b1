"""Seeds, derived models and the published snapshot.

``seeds`` runs before the providers (the loader resolves GPU names through the alias table).
The derived models and the snapshot run in their own job after ingestion, whether or not
every provider succeeded: a failed provider must not stop the others from publishing.
"""


import dagster as dg

from pipelines.defs.providers import PROVIDER_ASSETS
from pipelines.defs.resources import GpupricesResource
from pipelines.ingest import ensure_seeded
from warehouse.derive import rebuild
from warehouse.publish import publish

DERIVED = "derived"


@dg.asset(key=["seeds"], group_name="seeds", kinds={"csv", "duckdb"},
          description="Canonical GPU table, GPU aliases and fallback FX rates from warehouse/seeds/")
def seeds(gpuprices: GpupricesResource) -> dg.MaterializeResult:
    counts = ensure_seeded(gpuprices.warehouse())
    return dg.MaterializeResult(metadata={f"rows_{k}": v for k, v in counts.items()})


@dg.asset(
    key=[DERIVED, "current_offers"], group_name=DERIVED, kinds={"duckdb", "sql"},
    deps=[a.key for a in PROVIDER_ASSETS],
    description="Current comparison: each provider's newest good scrape, USD per hour, per GPU, "
    "per GB of VRAM; plus provider freshness (warehouse/models/*.sql)",
    check_specs=[dg.AssetCheckSpec("has_offers", asset=[DERIVED, "current_offers"], blocking=True,
                                   description="At least one offer is current")],
)
def current_offers(gpuprices: GpupricesResource) -> dg.MaterializeResult:
    with gpuprices.warehouse().connect() as con:
        counts = rebuild(con)
    return dg.MaterializeResult(
        metadata={f"rows_{k}": v for k, v in counts.items()},
        check_results=[dg.AssetCheckResult(passed=counts["current_offers"] > 0,
                                           metadata={"rows": counts["current_offers"]})],
    )


@dg.asset(key=[DERIVED, "published_snapshot"], group_name=DERIVED, kinds={"duckdb"},
          deps=[current_offers],
          description="Immutable DuckDB snapshot for the API and analysts, made current by an "
          "atomic rename of published/CURRENT")
def published_snapshot(gpuprices: GpupricesResource) -> dg.MaterializeResult:
    paths = gpuprices.paths()
    with gpuprices.warehouse().connect() as con:
        info = publish(con, paths.published)
    return dg.MaterializeResult(
        metadata={"snapshot_id": info.snapshot_id, "path": str(info.path),
                  "as_of": info.as_of.isoformat()}
    )


DERIVED_ASSETS = [current_offers, published_snapshot]
