"""One asset per registered provider: fetch and archive -> parse -> validate -> load.

A provider's asset fails on its own (network, layout change, failed checks); the others run
on, and the failed provider's last good scrape stays current. The checks are evaluated before
anything is committed, so data that fails them is never published.
"""

from collections.abc import Iterable

import dagster as dg

from pipelines import prefetch
from pipelines.defs.resources import GpupricesResource
from pipelines.ingest import scrape_provider
from pipelines.outcomes import ScrapeStatus, failures, served_from
from scrapers.base import Provider, unrecognised_rows
from scrapers.registry import PROVIDERS
from warehouse.problems import Problem, ProblemCode

GROUP = "providers"
CHECKS = (
    (
        "non_empty",
        "The scrape fetched, parsed and loaded at least one offer (red for any fetch, parse or "
        "load failure, an unexpected exception included; its problem codes are in the metadata)",
    ),
    ("prices_positive", "Every parsed price is greater than zero"),
    (
        "gpus_resolve",
        "Every GPU name resolves to the canonical GPU table (warning: offers with "
        "an unknown GPU are still loaded, without specs)",
    ),
    (
        "prices_plausible",
        "No offer's price is suspect on the plausibility screen (warning: far outside the "
        "cross-provider band, one price repeated across unlike GPUs, spot >= on-demand, "
        "community > secure, or flagged not offered by the provider; suspect offers are kept "
        "but left out of default answers; see warehouse/plausibility.py)",
    ),
    (
        "vram_matches_datasheet",
        "Every memory figure the provider reports is within 10% of the canonical GPU's "
        "datasheet (warning: the datasheet figure is served, the report kept as vram_gb_reported)",
    ),
    (
        "rows_recognised",
        "Every row the parser left out is a known kind of non-offer (warning when it names an "
        "unknown family, SKU or GPU, or a row whose price or spec did not read (unparsed_*): "
        "the other offers are still published; the counts per "
        "reason are stored in scrape_exclusions and served by GET /providers/{slug})",
    ),
    (
        "fetch_complete",
        "Every request of a multi-request fetch answered (warning when one part failed alone, "
        "e.g. an AWS region answering 404 or page 3 of a paged API: the rest is published, the "
        "missing parts are listed here and stored in scrape_skipped_parts)",
    ),
    (
        "within_limits",
        "The scrape is within the bounds of warehouse/quality.py: observed no later than now "
        "plus GPUPRICES_CLOCK_SKEW_S (default 300 s) and at most GPUPRICES_MAX_OFFERS_PER_SCRAPE "
        "(default 20000) offers, every figure fits its warehouse column (value_out_of_range), "
        "every page within the parse budget of scrapers/parsing.py (page_over_budget); else it "
        "is rejected and nothing of it is stored",
    ),
    (
        "no_price_jumps",
        "No offer's USD price moved 10x (GPUPRICES_PRICE_JUMP_FACTOR) or more "
        "against its current price; else the scrape is quarantined (table quarantined_offers)",
    ),
)


def asset_key(slug: str) -> dg.AssetKey:
    return dg.AssetKey([GROUP, slug])


WARN_CHECKS = frozenset(
    {
        "gpus_resolve",
        "prices_plausible",
        "vram_matches_datasheet",
        "rows_recognised",
        "fetch_complete",
    }
)


_C = ProblemCode
# The problem codes (warehouse.problems) that turn each check red: an error check's codes come
# from the failed scrapes, a warn check's from the warnings (warehouse.problems.WARNINGS) the
# served scrape stored. The older warn checks read that scrape's facts (unresolved GPUs, screen
# verdicts, ...) instead.
RED_WHEN: dict[str, frozenset[ProblemCode]] = {
    "non_empty": frozenset(
        {
            _C.NO_OFFERS_PARSED,
            _C.FETCH_FAILED,
            _C.FETCH_ERROR,
            _C.TOKEN_UNUSABLE,
            _C.PARSE_FAILED,
            _C.PARSE_ERROR,
            _C.INVALID_RECORD,
            _C.DUPLICATE_OFFER,
            _C.NO_FX_RATE,
            _C.LOAD_ERROR,
            _C.DISK_FULL,
            _C.INTERRUPTED,
        }
    ),
    "prices_positive": frozenset({_C.NON_POSITIVE_PRICE}),
    "within_limits": frozenset(
        {
            _C.FUTURE_OBSERVATION,
            _C.FUTURE_OFFERS,
            _C.TOO_MANY_OFFERS,
            _C.QUARANTINED_TOO_MANY_OFFERS,
            _C.QUARANTINED_FUTURE_OBSERVATION,
            _C.VALUE_OUT_OF_RANGE,
            _C.PAGE_OVER_BUDGET,
        }
    ),
    "no_price_jumps": frozenset({_C.PRICE_JUMP}),
}
# codes that never fail a scrape: a warning, or a session that was skipped
NOT_FAILURES = frozenset({_C.GPU_UNRESOLVED, _C.TOKEN_MISSING, _C.NO_CAPTURE})


def _check_results(
    slug: str,
    problems: Iterable[Problem],
    unresolved: list[str] | None = None,
    suspect: dict[str, list[str]] | None = None,
    vram_mismatches: list[str] | None = None,
    excluded: dict[str, int] | None = None,
    skipped_parts: dict[str, str] | None = None,
) -> list[dg.AssetCheckResult]:
    """One result per check, from the facts: the problem codes of the failed scrapes, and the
    served scrape's unresolved GPUs, screen verdicts, memory reports, exclusions and skipped
    parts. No message text is read."""
    found = [p for p in problems if p.code not in NOT_FAILURES]
    found_codes = {p.code for p in found}
    failed = {
        **{name: bool(found_codes & red) for name, red in RED_WHEN.items()},
        "gpus_resolve": bool(unresolved),
        "prices_plausible": bool(suspect),
        "vram_matches_datasheet": bool(vram_mismatches),
        "rows_recognised": bool(unrecognised_rows(excluded or {})),
        "fetch_complete": bool(skipped_parts),
    }
    reason_counts: dict[str, int] = {}
    for codes in (suspect or {}).values():
        for code in codes:
            reason_counts[code] = reason_counts.get(code, 0) + 1
    metadata: dict[str, dict[str, str | int]] = {
        name: {
            "problem_codes": ", ".join(sorted({str(p.code) for p in found if p.code in red})),
            "problems": "; ".join(p.detail for p in found if p.code in red)[:2000],
        }
        for name, red in RED_WHEN.items()
        if found_codes & red
    }
    metadata |= {
        "gpus_resolve": {"unresolved_gpus": ", ".join(unresolved or [])},
        "prices_plausible": {
            "suspect_offers": len(suspect or {}),
            "by_reason": ", ".join(f"{k}: {v}" for k, v in sorted(reason_counts.items())),
            "examples": "; ".join(
                f"{offer} ({', '.join(codes)})"
                for offer, codes in list((suspect or {}).items())[:10]
            ),
        },
        "rows_recognised": {
            "excluded_rows": sum((excluded or {}).values()),
            "unrecognised_rows": ", ".join(sorted(unrecognised_rows(excluded or {}))),
            "by_reason": ", ".join(f"{k}: {v}" for k, v in sorted((excluded or {}).items())),
        },
        "fetch_complete": {
            "skipped_parts": len(skipped_parts or {}),
            "parts": "; ".join(f"{p}: {e}" for p, e in sorted((skipped_parts or {}).items())),
        },
        "vram_matches_datasheet": {
            "mismatches": len(vram_mismatches or []),
            "examples": "; ".join((vram_mismatches or [])[:10]),
        },
    }
    return [
        dg.AssetCheckResult(
            asset_key=asset_key(slug),
            check_name=name,
            passed=not failed[name],
            severity=dg.AssetCheckSeverity.WARN
            if name in WARN_CHECKS
            else dg.AssetCheckSeverity.ERROR,
            metadata=metadata.get(name, {}),
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
                blocking=name not in WARN_CHECKS,
            )
            for name, text in CHECKS
        ],
        tags={"provider": provider.slug},
        deps=[dg.AssetKey(["seeds"]), dg.AssetKey(["fx_rates"])],  # rates before loading
    )
    def _asset(context: dg.AssetExecutionContext, gpuprices: GpupricesResource):
        replay = gpuprices.replay()
        # a live run's fetch may already be done, concurrently with the others' (prefetch)
        prefetched = (
            prefetch.take(context.run.tags.get(prefetch.INVOCATION_TAG), provider.slug)
            if replay is None
            else None
        )
        # one warehouse connection for the whole step where it waits on no network
        # (scrape_provider: a replay, or a fetch already done)
        outcomes = scrape_provider(
            provider,
            paths=gpuprices.paths(),
            replay_dir=replay,
            fallback_replay_dir=gpuprices.fallback_replay(),
            recorded_fallback=gpuprices.recorded_fallback_enabled(),
            run_id=context.run.run_id,
            settings=gpuprices.settings(),
            prefetched=prefetched,
            on_outcome=lambda o: context.log.info(
                f"{o.provider} [{o.source}]: {o.status}, {o.offer_count} offers"
                + (f" ({o.error})" if o.error else "")
            ),
        )
        failed = failures(outcomes)
        # what the step ended serving, for the progress rows (pipelines.progress), which read it
        # off the failure or the materialization: a failed live fetch may still serve recorded data
        origin, served_at = served_from(outcomes, replay=replay is not None)
        served_metadata = {
            "served_from": str(origin),
            "served_observed_at": served_at.isoformat() if served_at else "",
        }
        unresolved = sorted({n for o in outcomes for n in o.unresolved_gpus})
        # the newest loaded scrape is the one served: its screen and memory reports count
        served = next((o for o in reversed(outcomes) if o.status == ScrapeStatus.SUCCESS), None)
        results = _check_results(
            provider.slug,
            # the failed scrapes' problems, and the warnings (WARNINGS) the served one stored
            [p for o in failed for p in o.problems] + (served.problems if served else []),
            unresolved,
            suspect=served.suspect if served else None,
            vram_mismatches=served.vram_mismatches if served else None,
            excluded=served.excluded if served else None,
            skipped_parts=served.skipped_parts if served else None,
        )
        if failed:
            # Report which check went red before failing the step: the check turns red in the
            # UI, and the failure message says why, one line per failed scrape.
            yield from (r for r in results if not r.passed)
            raise dg.Failure(
                description=f"{provider.slug}: "
                + "; ".join(f"{o.source}: {o.error}" for o in failed),
                metadata={
                    "failed_scrapes": len(failed),
                    "scrapes": len(outcomes),
                    "problem_codes": ", ".join(
                        sorted({str(p.code) for o in failed for p in o.problems})
                    ),
                    **served_metadata,
                },
            )
        latest = next(
            (
                o
                for o in reversed(outcomes)
                if o.status in (ScrapeStatus.SUCCESS, ScrapeStatus.UNCHANGED)
            ),
            None,
        )
        yield dg.MaterializeResult(
            metadata={
                "scrapes": len(outcomes),
                "loaded": sum(o.status == ScrapeStatus.SUCCESS for o in outcomes),
                "unchanged": sum(o.status == ScrapeStatus.UNCHANGED for o in outcomes),
                "skipped": "; ".join(
                    o.error or "" for o in outcomes if o.status == ScrapeStatus.SKIPPED
                ),
                "offers_latest": latest.offer_count if latest else 0,
                "observed_at": latest.observed_at.isoformat()
                if latest and latest.observed_at
                else "",
                **served_metadata,
            },
            check_results=results,
        )

    return _asset


PROVIDER_ASSETS = [provider_asset(p) for p in PROVIDERS.values()]
