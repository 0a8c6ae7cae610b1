"""What an ingest run reports: one line per provider and a summary (``gpuprices ingest``).

``fill_provider_lines`` reads what the run stored (scrapes, current offers, provider status)
back from the warehouse and says, per provider, what it did: live or replayed, failed with its
short reason and what is served instead, partial with the parts it skipped, unknown rows named.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from scrapers.base import unrecognised_rows
from warehouse.db import Warehouse
from warehouse.paths import Paths
from warehouse.queries import Liveness
from warehouse.run_facts import run_facts


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
            s: sum(p.status == s for p in self.providers)
            for s in ("ok", "partial", "FAILED", "skipped")
        }
        mode = "live" if self.live else "replay"
        # partial: a success whose fetch skipped parts (their offers kept from the last good scrape)
        partial = f", {counts['partial']} partial" if counts["partial"] else ""
        line = (
            f"{len(self.providers)} providers: {counts['ok']} {mode} ok{partial},"
            f" {counts['FAILED']} failed, {counts['skipped']} skipped"
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


def short_reason(error: str) -> str:
    """An error as the short reason a provider line gives: the host instead of the full URL,
    no "fetch failed:" prefix (the line says "live failed"), no errno."""
    text = re.sub(r"^(fetch|parse) failed: ", lambda m: "" if m[1] == "fetch" else "parse: ", error)
    text = re.sub(r"\b(?:GET|POST) https?://([^/\s:]+)\S*?(:?)(?=\s|$)", r"\1\2", text)
    return re.sub(r"\[Errno -?\d+\] ", "", text)


def fill_provider_lines(
    report: IngestReport,
    paths: Paths,
    slugs: Sequence[str],
    step_failures: dict[str, str] | None = None,
) -> None:
    with Warehouse(paths.warehouse).connect() as con:
        facts = run_facts(con, report.run_id)
    current, unknown_gpus = facts.current, facts.unknown_gpus
    skipped_parts, kept_offers = facts.skipped_parts, facts.kept_offers
    report.origins = facts.origins
    report.liveness = facts.liveness
    # rows the parsers of this run did not know (unknown SKUs), named
    for provider, reason in facts.exclusions:
        if unrecognised_rows({reason: 1}):
            report.unknown_rows.setdefault(provider, []).append(reason)
    by_provider = facts.scrapes
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
        scrapes, failed, skipped = row.scrapes, row.failed, row.skipped
        error, observed_at, replayed, live_ok = (
            row.error,
            row.observed_at,
            row.replayed,
            row.live_ok,
        )
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
            status = "partial" if slug in skipped_parts else "ok"
            what = f"{live} {status}, {when}"
            if slug in unknown_gpus:
                what += f"; warning: GPU not in the canonical table: {unknown_gpus[slug]}"
            if slug in skipped_parts:
                kept = kept_offers.get(slug, 0)
                what += (
                    f"; warning: not fetched: {skipped_parts[slug]} ({kept}"
                    f" offer{'s' if kept != 1 else ''} kept from the last scrape listing them)"
                )
            if slug in report.unknown_rows:
                what += f"; warning: rows not recognised: {', '.join(report.unknown_rows[slug])}"
            line = ProviderLine(slug, status, scrapes, offers, what)
        report.providers.append(line)
    report.offer_count = sum(report.origins.values())
