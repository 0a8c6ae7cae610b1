"""Running the Dagster jobs in-process (what ``gpuprices ingest`` does) and reporting on them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg

from pipelines.defs.providers import GROUP, asset_key
from pipelines.execution import EventCallback, JobRun, execute_ingest
from pipelines.prefetch import DEFAULT_FETCH_CONCURRENCY
from pipelines.run_retention import RunRetention, prune_runs
from scrapers.base import unrecognised_rows
from scrapers.registry import PROVIDERS
from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.problems import disk_full
from warehouse.queries import Liveness, liveness


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
    # current offers by data_origin (live, recorded, curated)
    origins: dict[str, int] = field(default_factory=dict)
    # how many providers are live after the run (prices from a live scrape, in shelf life)
    liveness: Liveness | None = None
    # provider -> the rows its parser did not know in this run (unknown SKUs), named
    unknown_rows: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.snapshot_id is not None and all(p.status != "FAILED" for p in self.providers)

    def lines(self) -> list[str]:
        """One short line per provider: what happened, and how many offers it now serves."""
        width = max((len(p.provider) for p in self.providers), default=8)
        return [f"{p.provider:<{width}} {p.offers:>4}  {p.detail}" for p in self.providers]

    def summary(self) -> str:
        counts = {
            s: sum(p.status == s for p in self.providers) for s in ("ok", "FAILED", "skipped")
        }
        mode = "live" if self.live else "replay"
        line = (
            f"{len(self.providers)} providers: {counts['ok']} {mode} ok, {counts['FAILED']} failed,"
            f" {counts['skipped']} skipped"
        )
        line += f"; {self.liveness.line}" if self.liveness else ""
        named = [f"{r} ({slug})" for slug, rows in self.unknown_rows.items() for r in rows]
        if named:
            more = f", {len(named) - 5} more" if len(named) > 5 else ""
            line += f"; rows not recognised: {', '.join(named[:5])}{more}"
        return line

    @property
    def banner(self) -> str | None:
        """``no provider is live: serving recorded data observed ...`` when none is, else None."""
        return self.liveness.banner if self.liveness else None


def _run_config(
    paths: Paths,
    replay_dir: Path | None,
    fallback_replay_dir: Path | None,
    verbose: bool,
    recorded_fallback: bool = True,
) -> dict:
    # what the caller resolved; every other field of the resource comes from its settings
    resource: dict[str, str | bool] = {
        "home": str(paths.home),
        "recorded_fallback": recorded_fallback,
    }
    if replay_dir:
        resource["replay_dir"] = str(replay_dir)
    if fallback_replay_dir:
        resource["fallback_replay_dir"] = str(fallback_replay_dir)
    return {
        "resources": {"gpuprices": {"config": resource}},
        "loggers": {"console": {"config": {"log_level": "DEBUG" if verbose else "CRITICAL"}}},
    }


def run_ingest(
    paths: Paths,
    *,
    replay_dir: Path | None,
    fallback_replay_dir: Path | None = None,
    recorded_fallback: bool = True,
    providers: Sequence[str] | None = None,
    verbose: bool = False,
    instance: dg.DagsterInstance | None = None,
    parallel: int | None = None,
    on_event: EventCallback | None = None,
    run_retention: RunRetention | None = None,
    fetch_concurrency: int = DEFAULT_FETCH_CONCURRENCY,
) -> IngestReport:
    """Run the ingest job (seeds + selected providers), then the publish job, then prune
    Dagster's run storage (``run_retention``, default ``RunRetention()``: the newest 50 finished
    runs of the last 30 days are kept; see ``pipelines.run_retention``).

    The ingest job runs in-process, or with ``parallel`` > 1 under Dagster's multiprocess
    executor (see ``pipelines.execution``); ``on_event`` follows its events while it runs.
    In-process, a live run fetches ``fetch_concurrency`` providers at once (``pipelines.prefetch``).
    """
    slugs = list(providers) if providers else sorted(PROVIDERS)
    instance = instance or dg.DagsterInstance.get()
    try:
        report = _run_jobs(
            paths,
            slugs,
            instance,
            _run_config(paths, replay_dir, fallback_replay_dir, verbose, recorded_fallback),
            live=replay_dir is None,
            parallel=parallel,
            on_event=on_event,
            fetch_concurrency=fetch_concurrency,
        )
        prune_runs(instance, run_retention)
        return report
    except Exception as exc:
        if not disk_full(exc):
            raise
        # the warehouse, the raw archive or Dagster's run storage could not be written: one
        # line instead of Dagster's traceback; nothing new was published
        return IngestReport(
            run_id="",
            live=replay_dir is None,
            publish_error=f"{disk_full_line(exc)} (under {paths.home}); the snapshot published"
            " before is still served",
        )


def disk_full_line(exc: BaseException) -> str:
    """``disk full: <the OS's words>`` for an exception that ``warehouse.problems.disk_full``
    recognises (the first line of the innermost error that says so)."""
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, OSError) or "space" in str(current).lower():
            text = str(current).strip().splitlines()
            return f"disk full: {text[0] if text else type(current).__name__}"
        current = current.__cause__ or current.__context__
    return "disk full"


def _run_jobs(
    paths: Paths,
    slugs: list[str],
    instance: dg.DagsterInstance,
    config: dict,
    *,
    live: bool,
    parallel: int | None,
    on_event: EventCallback | None,
    fetch_concurrency: int,
) -> IngestReport:
    from pipelines.definitions import defs

    ingest = execute_ingest(
        config,
        instance,
        [dg.AssetKey(["seeds"]), dg.AssetKey(["fx_rates"]), *(asset_key(s) for s in slugs)],
        parallel=parallel,
        on_event=on_event,
        prefetch=[PROVIDERS[s] for s in slugs] if live else (),
        fetch_concurrency=fetch_concurrency,
    )
    report = IngestReport(run_id=ingest.run_id, live=live)
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
            _error_line(e.event_specific_data.error)  # type: ignore[union-attr]
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
    _fill_provider_lines(report, paths, slugs, _step_failures(ingest))
    return report


def _error_line(error: Any) -> str:
    """One line for a failed step's ``SerializableErrorInfo``: the innermost cause (a user-code
    exception is wrapped in ``DagsterExecutionStepExecutionError``), said plainly when the disk
    is full."""
    while error is not None and error.cause is not None:
        error = error.cause
    if error is None:
        return "failed"
    lines = error.message.strip().splitlines()
    line = lines[0] if lines else error.cls_name or "failed"
    if re.search(r"no space left on device|database or disk is full", line, re.IGNORECASE):
        return f"disk full: {line}; the snapshot published before is still served"
    return line


def _step_failures(run: JobRun) -> dict[str, str]:
    """Provider slug -> the first line of its step's failure (``dg.Failure`` description:
    ``<slug>: <source>: <error>``, reduced to the error), for steps that failed."""
    prefix = f"{GROUP}__"
    failed: dict[str, str] = {}
    for event in run.all_events:
        if not (event.is_step_failure and event.step_key and event.step_key.startswith(prefix)):
            continue
        slug = event.step_key[len(prefix) :]
        error = event.event_specific_data.error  # type: ignore[union-attr]
        lines = error.message.strip().splitlines() if error is not None else []
        line = lines[0] if lines else "failed"
        line = re.sub(r"^(?:dagster\._core\.definitions\.events\.)?Failure: ", "", line)
        line = re.sub(rf"^{re.escape(slug)}: (?:[^:]*: )?", "", line)
        # the first failed scrape stands for the rest (a full disk fails every one alike)
        failed[slug] = re.split(rf"; (?={re.escape(slug)}/|live: |recorded offers )", line)[0]
    return failed


def short_reason(error: str) -> str:
    """An error as the short reason a provider line gives: the host instead of the full URL,
    no "fetch failed:" prefix (the line says "live failed"), no errno."""
    text = re.sub(r"^(fetch|parse) failed: ", lambda m: "" if m[1] == "fetch" else "parse: ", error)
    text = re.sub(r"\b(?:GET|POST) https?://([^/\s:]+)\S*?(:?)(?=\s|$)", r"\1\2", text)
    return re.sub(r"\[Errno -?\d+\] ", "", text)


def _fill_provider_lines(
    report: IngestReport,
    paths: Paths,
    slugs: Sequence[str],
    step_failures: dict[str, str] | None = None,
) -> None:
    with Warehouse(paths.warehouse).connect() as con:
        rows = con.execute(
            """
            select provider,
                   count(*) as scrapes,
                   count(*) filter (where status = 'failed') as failed,
                   count(*) filter (where status = 'skipped') as skipped,
                   arg_max(error, started_at)
                       filter (where status in ('failed', 'skipped')) as error,
                   max(observed_at) filter (where status = 'success') as observed_at,
                   count(*) filter (where status = 'success' and mode = 'replay') as replayed,
                   bool_or(mode = 'live' and status = 'success') as live_ok
            from scrapes where run_id = ? group by provider
            """,
            [report.run_id],
        ).fetchall()
        have_current = _has_table(con, "current_offers")
        current = (
            {
                provider: (n, observed)
                for provider, n, observed in con.execute(
                    "select provider, count(*), max(observed_at) from current_offers"
                    " where price_source = 'scrape' group by provider"
                ).fetchall()
            }
            if have_current
            else {}
        )
        unknown_gpus = (
            dict(
                con.execute(
                    "select provider,"
                    " string_agg(distinct gpu_name_provider, ', ' order by gpu_name_provider)"
                    " from current_offers where gpu_id is null group by provider"
                ).fetchall()
            )
            if have_current
            else {}
        )
        if have_current:
            report.origins = dict(
                con.execute(
                    "select data_origin, count(*) from current_offers group by data_origin"
                    " order by data_origin"
                ).fetchall()
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
        # rows the parsers of this run did not know (unknown SKUs), named
        for provider, reason in con.execute(
            "select distinct e.provider, e.reason from scrape_exclusions as e"
            " inner join scrapes as s using (scrape_id) where s.run_id = ? order by 1, 2",
            [report.run_id],
        ).fetchall():
            if unrecognised_rows({reason: 1}):
                report.unknown_rows.setdefault(provider, []).append(reason)
        if _has_table(con, "provider_status"):
            report.liveness = liveness(con)
    by_provider = {r[0]: r for r in rows}
    live = "live" if report.live else "replay"
    for slug in slugs:
        offers, served_observed = current.get(slug, (0, None))
        served = f"{served_observed:%Y-%m-%d}" if served_observed else None
        row = by_provider.get(slug)
        if row is None and slug in (step_failures or {}):
            # the step failed before any scrape row could be written (a full disk)
            what = f"{live} failed: {short_reason((step_failures or {})[slug])}"
            what += f" -> last good data (observed {served})" if served else " -> no data"
            report.providers.append(ProviderLine(slug, "FAILED", 0, offers, what))
            continue
        if row is None:
            # No new scrape row: every response was byte-identical to one already loaded.
            line = (
                ProviderLine(slug, "ok", 0, offers, f"{live} ok, unchanged (observed {served})")
                if offers
                else ProviderLine(slug, "FAILED", 0, 0, "did not run (see `gpuprices ingest -v`)")
            )
            report.providers.append(line)
            continue
        _, scrapes, failed, skipped, error, observed_at, replayed, live_ok = row
        reason = short_reason(error or "")
        if report.live and not live_ok and (failed or skipped):
            # the live fetch failed (or was skipped for lack of a token)
            what = f"{live} failed: {reason}" if failed else f"skipped: {reason}"
            if replayed and observed_at is not None:
                what += f" -> recorded capture {observed_at:%Y-%m-%d}"
            elif served:
                what += f" -> last good data (observed {served})"
            else:
                what += " -> no data"
            line = ProviderLine(slug, "FAILED" if failed else "skipped", scrapes, offers, what)
        elif failed:
            what = f"{live} failed: {reason}"
            what += f" -> last good data (observed {served})" if served else " -> no data"
            line = ProviderLine(slug, "FAILED", scrapes, offers, what)
        elif skipped == scrapes:
            line = ProviderLine(slug, "skipped", scrapes, offers, f"skipped: {reason}")
        else:
            when = f"observed {observed_at:%Y-%m-%d}" if observed_at else f"unchanged ({served})"
            if not report.live:
                when = f"{scrapes} capture{'s' if scrapes != 1 else ''}, newest {when}"
            what = f"{live} ok, {when}"
            if slug in unknown_gpus:
                what += f"; warning: GPU not in the canonical table: {unknown_gpus[slug]}"
            if slug in skipped_parts:
                what += f"; warning: not fetched: {skipped_parts[slug]}"
            if slug in report.unknown_rows:
                what += f"; warning: rows not recognised: {', '.join(report.unknown_rows[slug])}"
            line = ProviderLine(slug, "ok", scrapes, offers, what)
        report.providers.append(line)
    report.offer_count = sum(report.origins.values())


def _has_table(con, name: str) -> bool:
    row = con.execute(
        "select count(*) from information_schema.tables where table_name = ?", [name]
    ).fetchone()
    return bool(row and row[0])
