"""Running the Dagster jobs in-process (what ``gpuprices ingest`` does) and reporting on them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from pipelines.defs.providers import asset_key
from pipelines.execution import EventCallback, execute_ingest
from scrapers.registry import PROVIDERS
from warehouse.db import Warehouse
from warehouse.paths import Paths


@dataclass
class ProviderLine:
    provider: str
    status: str  # ok | FAILED | skipped
    scrapes: int
    offers: int
    detail: str


@dataclass
class IngestReport:
    run_id: str
    providers: list[ProviderLine] = field(default_factory=list)
    snapshot_id: str | None = None
    offer_count: int = 0
    publish_error: str | None = None
    live: bool = True

    @property
    def ok(self) -> bool:
        return self.snapshot_id is not None and all(p.status != "FAILED" for p in self.providers)

    def lines(self) -> list[str]:
        width = max((len(p.provider) for p in self.providers), default=8)
        return [
            f"{p.provider:<{width}}  {p.status:<7}  {p.offers:>5} offers  "
            f"{p.scrapes} scrape{'s' if p.scrapes != 1 else ''}  {p.detail}".rstrip()
            for p in self.providers
        ]


def _run_config(
    paths: Paths, replay_dir: Path | None, fallback_replay_dir: Path | None, verbose: bool
) -> dict:
    return {
        "resources": {
            "gpuprices": {
                "config": {
                    "home": str(paths.home),
                    "replay_dir": str(replay_dir) if replay_dir else "",
                    "fallback_replay_dir": str(fallback_replay_dir) if fallback_replay_dir else "",
                }
            }
        },
        "loggers": {"console": {"config": {"log_level": "DEBUG" if verbose else "CRITICAL"}}},
    }


def run_ingest(
    paths: Paths,
    *,
    replay_dir: Path | None,
    fallback_replay_dir: Path | None = None,
    providers: Sequence[str] | None = None,
    verbose: bool = False,
    instance: dg.DagsterInstance | None = None,
    parallel: int | None = None,
    on_event: EventCallback | None = None,
) -> IngestReport:
    """Run the ingest job (seeds + selected providers), then the publish job.

    The ingest job runs in-process, or with ``parallel`` > 1 under Dagster's multiprocess
    executor (see ``pipelines.execution``); ``on_event`` follows its events while it runs.
    """
    from pipelines.definitions import defs

    instance = instance or dg.DagsterInstance.get()
    slugs = list(providers) if providers else sorted(PROVIDERS)
    config = _run_config(paths, replay_dir, fallback_replay_dir, verbose)
    ingest = execute_ingest(
        config,
        instance,
        [dg.AssetKey(["seeds"]), dg.AssetKey(["fx_rates"]), *(asset_key(s) for s in slugs)],
        parallel=parallel,
        on_event=on_event,
    )
    report = IngestReport(run_id=ingest.run_id, live=replay_dir is None)
    publish = defs.resolve_job_def("publish").execute_in_process(
        run_config=config,
        instance=instance,
        raise_on_error=False,
    )
    if publish.success:
        snapshot = publish.asset_materializations_for_node("derived__published_snapshot")
        if snapshot:
            report.snapshot_id = str(snapshot[-1].metadata["snapshot_id"].value)
    else:
        failures = [
            e.event_specific_data.error.message.strip().splitlines()[0]  # type: ignore[union-attr]
            for e in publish.all_events
            if e.is_step_failure
        ]
        report.publish_error = "; ".join(failures) or "publish job failed"
    if not ingest.success and not any(
        e.is_step_success for e in ingest.all_events if e.step_key == "seeds"
    ):
        failures = [
            e.event_specific_data.error.message.strip().splitlines()[0]  # type: ignore[union-attr]
            for e in ingest.all_events
            if e.is_step_failure and e.step_key == "seeds"
        ]
        report.publish_error = "seeding failed: " + "; ".join(failures)
    _fill_provider_lines(report, paths, slugs)
    return report


def _fill_provider_lines(report: IngestReport, paths: Paths, slugs: Sequence[str]) -> None:
    with Warehouse(paths.warehouse).connect() as con:
        rows = con.execute(
            """
            select provider,
                   count(*) as scrapes,
                   count(*) filter (where status = 'failed') as failed,
                   count(*) filter (where status = 'skipped') as skipped,
                   arg_max(offer_count, observed_at) filter (where status = 'success') as offers,
                   arg_max(error, started_at)
                       filter (where status in ('failed', 'skipped')) as error,
                   max(observed_at) filter (where status = 'success') as observed_at,
                   count(*) filter (where status = 'success' and mode = 'replay') as replayed
            from scrapes where run_id = ? group by provider
            """,
            [report.run_id],
        ).fetchall()
        have_current = _has_table(con, "current_offers")
        current = (
            dict(
                con.execute(
                    "select provider, count(*) from current_offers group by provider"
                ).fetchall()
            )
            if have_current
            else {}
        )
        unknown_gpus = (
            dict(
                con.execute(
                    "select provider, string_agg(distinct gpu_name, ', ' order by gpu_name)"
                    " from current_offers where gpu_id is null group by provider"
                ).fetchall()
            )
            if have_current
            else {}
        )
        # the parts of this run's fetches that failed alone (an AWS region, a page)
        skipped_parts = dict(
            con.execute(
                "select k.provider, string_agg(k.part, ', ' order by k.part)"
                " from scrape_skipped_parts as k inner join scrapes as s using (scrape_id)"
                " where s.run_id = ? group by k.provider",
                [report.run_id],
            ).fetchall()
        )
    by_provider = {r[0]: r for r in rows}
    for slug in slugs:
        row = by_provider.get(slug)
        if row is None:
            # No new scrape row: every response was byte-identical to one already loaded.
            if current.get(slug):
                report.providers.append(ProviderLine(slug, "ok", 0, current[slug], "unchanged"))
            else:
                report.providers.append(
                    ProviderLine(slug, "FAILED", 0, 0, "did not run (see `gpuprices ingest -v`)")
                )
            continue
        _, scrapes, failed, skipped, offers, error, observed_at, replayed = row
        if (failed or skipped) and replayed and report.live:
            detail = (
                f"{error}; served from {replayed} recorded capture(s), newest captured "
                f"{observed_at:%Y-%m-%d}"
            )
            # a missing token is a skip, not a failure, even when captures stand in for it
            status = "FAILED" if failed else "skipped"
            report.providers.append(
                ProviderLine(slug, status, scrapes, current.get(slug, 0), detail)
            )
        elif failed:
            detail = f"{error}; serving last good data ({current.get(slug, 0)} offers)"
            report.providers.append(
                ProviderLine(slug, "FAILED", scrapes, current.get(slug, 0), detail)
            )
        elif skipped == scrapes:
            report.providers.append(
                ProviderLine(slug, "skipped", scrapes, current.get(slug, 0), error or "")
            )
        else:
            when = f"observed {observed_at:%Y-%m-%d}" if observed_at else "unchanged"
            if slug in unknown_gpus:
                when += f"; warning: GPU not in the canonical table: {unknown_gpus[slug]}"
            if slug in skipped_parts:
                when += f"; warning: not fetched: {skipped_parts[slug]}"
            report.providers.append(
                ProviderLine(slug, "ok", scrapes, current.get(slug, offers or 0), when)
            )
    report.offer_count = sum(current.values())


def _has_table(con, name: str) -> bool:
    row = con.execute(
        "select count(*) from information_schema.tables where table_name = ?", [name]
    ).fetchone()
    return bool(row and row[0])
