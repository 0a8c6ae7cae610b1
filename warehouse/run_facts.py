"""What one ingest run stored, read back for its report (``pipelines.run_report``): per provider
the run's scrapes, the offers now served, the parts skipped and the rows left out, and the
current offers by origin. Reads only; every table but ``scrapes`` may be missing (no derived
build yet)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import duckdb

from warehouse.queries import Liveness, liveness

# One row per provider of the run's scrapes (``RunScrapes``).
_RUN_SCRAPES_SQL = """
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
"""


@dataclass(frozen=True)
class RunScrapes:
    """One provider's scrapes in the run."""

    provider: str
    scrapes: int
    failed: int
    skipped: int
    error: str | None  # of its newest failed or skipped scrape
    observed_at: datetime | None  # newest successful scrape's observation time (UTC)
    replayed: int  # successful replays (recorded captures)
    live_ok: bool  # a live scrape succeeded


@dataclass
class RunFacts:
    scrapes: dict[str, RunScrapes] = field(default_factory=dict)
    # provider -> (scraped offers served now, newest observation among them)
    current: dict[str, tuple[int, datetime | None]] = field(default_factory=dict)
    unknown_gpus: dict[str, str] = field(default_factory=dict)  # provider -> names, ", "
    origins: dict[str, int] = field(default_factory=dict)  # current offers by data_origin
    skipped_parts: dict[str, str] = field(default_factory=dict)  # provider -> parts, ", "
    # offers current_offers serves from an older scrape than the newest (which skipped parts)
    kept_offers: dict[str, int] = field(default_factory=dict)
    # (provider, reason) of the rows the run's parsers left out, ordered
    exclusions: list[tuple[str, str]] = field(default_factory=list)
    liveness: Liveness | None = None


def run_facts(con: duckdb.DuckDBPyConnection, run_id: str) -> RunFacts:
    """What run ``run_id`` stored, and what is served after it."""
    facts = RunFacts()
    for row in con.execute(_RUN_SCRAPES_SQL, [run_id]).fetchall():
        facts.scrapes[row[0]] = RunScrapes(*row[:7], live_ok=bool(row[7]))
    if _has_table(con, "current_offers"):
        facts.current = {
            provider: (n, observed)
            for provider, n, observed in con.execute(
                "select provider, count(*), max(observed_at) from current_offers"
                " where price_source = 'scrape' group by provider"
            ).fetchall()
        }
        facts.unknown_gpus = dict(
            con.execute(
                "select provider,"
                " string_agg(distinct gpu_name_provider, ', ' order by gpu_name_provider)"
                " from current_offers where gpu_id is null group by provider"
            ).fetchall()
        )
        facts.origins = dict(
            con.execute(
                "select data_origin, count(*) from current_offers group by data_origin"
                " order by data_origin"
            ).fetchall()
        )
    # the parts of this run's fetches that failed alone (an AWS region, a page)
    facts.skipped_parts = dict(
        con.execute(
            "select k.provider, string_agg(k.part, ', ' order by k.part)"
            " from scrape_skipped_parts as k inner join scrapes as s using (scrape_id)"
            " where s.run_id = ? group by k.provider",
            [run_id],
        ).fetchall()
    )
    if _has_table(con, "provider_status"):
        facts.kept_offers = dict(
            con.execute(
                "select provider, kept_offer_count from provider_status where kept_offer_count > 0"
            ).fetchall()
        )
    facts.exclusions = [
        (provider, reason)
        for provider, reason in con.execute(
            "select distinct e.provider, e.reason from scrape_exclusions as e"
            " inner join scrapes as s using (scrape_id) where s.run_id = ? order by 1, 2",
            [run_id],
        ).fetchall()
    ]
    if _has_table(con, "provider_status"):
        facts.liveness = liveness(con)
    return facts


def _has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    row = con.execute(
        "select count(*) from information_schema.tables where table_name = ?", [name]
    ).fetchone()
    return bool(row and row[0])
