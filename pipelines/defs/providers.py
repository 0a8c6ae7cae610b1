"""One asset per registered provider: fetch and archive -> parse -> validate -> load.

A provider's asset fails on its own (network, layout change, failed checks); the others run
on, and the failed provider's last good scrape stays current. The checks are evaluated before
anything is committed, so data that fails them is never published.
"""

from contextlib import nullcontext

import dagster as dg

from pipelines.defs.resources import GpupricesResource
from pipelines.ingest import scrape_provider
from scrapers.base import Provider
from scrapers.registry import PROVIDERS

GROUP = "providers"
CHECKS = (
    ("non_empty", "The scrape fetched and parsed at least one offer"),
    ("prices_positive", "Every parsed price is greater than zero"),
    (
        "gpus_resolve",
        "Every GPU name resolves to the canonical GPU table (warning: offers with "
        "an unknown GPU are still loaded, without specs)",
    ),
    (
        "no_price_jumps",
        "No offer's USD price moved 10x (GPUPRICES_PRICE_JUMP_FACTOR) or more "
        "against its current price; else the scrape is quarantined (table quarantined_offers)",
    ),
)


def asset_key(slug: str) -> dg.AssetKey:
    return dg.AssetKey([GROUP, slug])


def _check_results(
    slug: str, errors: list[str], unresolved: list[str] | None = None
) -> list[dg.AssetCheckResult]:
    joined = " ".join(errors)
    failed = {
        # a fetch or parse failure parsed nothing either
        "non_empty": "no offers parsed" in joined
        or any(e.startswith(("fetch failed", "parse failed")) for e in errors),
        "prices_positive": "price <= 0" in joined,
        "gpus_resolve": bool(unresolved),
        "no_price_jumps": any(e.startswith("quarantined:") for e in errors),
    }
    return [
        dg.AssetCheckResult(
            asset_key=asset_key(slug),
            check_name=name,
            passed=not failed[name],
            severity=dg.AssetCheckSeverity.WARN
            if name == "gpus_resolve"
            else dg.AssetCheckSeverity.ERROR,
            metadata={"unresolved_gpus": ", ".join(unresolved or [])}
            if name == "gpus_resolve"
            else {},
        )
        for name, _ in CHECKS
    ]


def provider_asset(provider: Provider) -> dg.AssetsDefinition:
    @dg.asset(
        key=asset_key(provider.slug),
        group_name=GROUP,
        description=f"{provider.name} offers ({provider.kind}); {provider.homepage}",
        kinds={"python", "duckdb"},
        check_specs=[
            dg.AssetCheckSpec(
                name,
                asset=asset_key(provider.slug),
                description=text,
                blocking=name != "gpus_resolve",
            )
            for name, text in CHECKS
        ],
        tags={"provider": provider.slug},
        deps=[dg.AssetKey(["seeds"]), dg.AssetKey(["fx_rates"])],  # rates before loading
    )
    def _asset(context: dg.AssetExecutionContext, gpuprices: GpupricesResource):
        replay = gpuprices.replay()
        # A replay never waits on the network, so all its sessions share one warehouse
        # connection: opening the DuckDB file per capture cost more than loading it.
        with gpuprices.warehouse().held() if replay is not None else nullcontext():
            outcomes = scrape_provider(
                provider,
                paths=gpuprices.paths(),
                replay_dir=replay,
                fallback_replay_dir=gpuprices.fallback_replay(),
                run_id=context.run.run_id,
                on_outcome=lambda o: context.log.info(
                    f"{o.provider} [{o.source}]: {o.status}, {o.offer_count} offers"
                    + (f" ({o.error})" if o.error else "")
                ),
            )
        failures = [o for o in outcomes if o.status == "failed"]
        errors = [o.error or "" for o in failures]
        unresolved = sorted({n for o in outcomes for n in o.unresolved_gpus})
        results = _check_results(provider.slug, errors, unresolved)
        if failures:
            # Report which check went red before failing the step: the check turns red in the
            # UI, and the failure message says why, one line per failed scrape.
            yield from (r for r in results if not r.passed)
            raise dg.Failure(
                description=f"{provider.slug}: "
                + "; ".join(f"{o.source}: {o.error}" for o in failures),
                metadata={"failed_scrapes": len(failures), "scrapes": len(outcomes)},
            )
        latest = next((o for o in reversed(outcomes) if o.status in ("success", "unchanged")), None)
        yield dg.MaterializeResult(
            metadata={
                "scrapes": len(outcomes),
                "loaded": sum(o.status == "success" for o in outcomes),
                "unchanged": sum(o.status == "unchanged" for o in outcomes),
                "skipped": "; ".join(o.error or "" for o in outcomes if o.status == "skipped"),
                "offers_latest": latest.offer_count if latest else 0,
                "observed_at": latest.observed_at.isoformat()
                if latest and latest.observed_at
                else "",
            },
            check_results=results,
        )

    return _asset


PROVIDER_ASSETS = [provider_asset(p) for p in PROVIDERS.values()]
