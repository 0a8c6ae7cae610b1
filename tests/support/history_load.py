"""Generated hourly scrapes (``tests.support.synthetic_history``) loaded through the warehouse's
own code: a staged day at a time through ``warehouse.batch``, or hour by hour through the exact
per-scrape pipeline path. ``benchmarks/history_scale.py`` runs it at three years of 30
providers; ``tests/warehouse/test_history_scale.py`` at a few days."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pyarrow as pa

from tests.support.synthetic_history import Day, Generator
from warehouse.batch import arrow_temp_table, commit_batch, prepare_batch
from warehouse.db import transaction
from warehouse.load import commit_scrape, fail_scrape, prepare, scrape_id, start_scrape
from warehouse.records import ScrapedOffer
from warehouse.seeding import load_seeds


def _arrow(rows: list[tuple], names: tuple[str, ...]) -> pa.Table:
    return pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})


def stage_day(con: duckdb.DuckDBPyConnection, day: Day) -> None:
    """The day's scrapes and offers as ``_gen_scrapes`` / ``_gen_offers`` (Offer-shaped rows)."""
    arrow_temp_table(
        con, "_gen_segments_in", _arrow(day.segments, ("idx", "h_from", "h_to", "price"))
    )
    arrow_temp_table(
        con,
        "_gen_scrapes_in",
        _arrow(
            day.scrapes, ("scrape_id", "provider", "provider_idx", "hour", "observed_at", "status")
        ),
    )
    con.execute("""
        create or replace temp table _gen_scrapes as
        select scrape_id, provider, provider_idx, hour, observed_at::timestamptz as observed_at,
               status, case when status = 'failed' then 'generated outage' end as error,
               'history_scale' as run_id, 'replay' as mode, 'generated' as source,
               'full' as coverage, null::varchar as coverage_reason
        from _gen_scrapes_in
    """)
    con.execute("""
        create or replace temp table _gen_offers as
        select s.scrape_id, c.provider, c.instance_type, c.region, c.pricing,
               c.term as reserved_term_months, c.gpu_name,
               c.gpu_count::decimal(10, 4) as gpu_count,
               c.vram_gb::decimal(10, 2) as vram_gb_reported, null::decimal(10, 2) as vcpus,
               null::decimal(12, 2) as ram_gb, null::decimal(14, 2) as storage_gb,
               round(g.price, 3)::decimal(18, 6) as price, c.currency, c.price_unit,
               c.price_per, false as serverless,
               'https://example.invalid/' || c.provider as source_url, s.observed_at
        from _gen_segments_in as g
        inner join _gen_catalog as c on g.idx = c.idx
        inner join _gen_scrapes as s
            on s.provider_idx = c.provider_idx and s.hour >= g.h_from and s.hour < g.h_to
        where s.status = 'success'
    """)


def load_day_batch(
    con: duckdb.DuckDBPyConnection,
    hours: range | None = None,
    observations_from: datetime | None = None,
) -> dict[str, int]:
    """Load the staged day (or only ``hours`` of it) through warehouse.batch.

    ``observations_from``: apply the retention rule while loading (see ``commit_batch``).
    """
    where = "" if hours is None else f" where hour between {hours.start} and {hours.stop - 1}"
    con.execute(
        f"create or replace temp view _gen_batch_scrapes as select * from _gen_scrapes{where}"
    )
    con.execute(
        "create or replace temp view _gen_batch_offers as select o.* from _gen_offers o"
        " semi join _gen_batch_scrapes s on o.scrape_id = s.scrape_id"
    )
    validation = prepare_batch(con, "_gen_batch_offers")
    if not validation.ok:
        raise RuntimeError("generated batch failed validation: " + "; ".join(validation.problems()))
    return commit_batch(con, "_gen_batch_scrapes", observations_from=observations_from)


def hour_offers(con: duckdb.DuckDBPyConnection, hour: int) -> list[tuple]:
    """(provider, observed_at, status, offers) of each staged scrape of ``hour``."""
    scrapes = con.execute(
        "select provider, observed_at, status, scrape_id from _gen_scrapes where hour = ?"
        " order by provider",
        [hour],
    ).fetchall()
    out = []
    for provider, observed_at, status, sid in scrapes:
        cur = con.execute(
            "select * exclude (scrape_id) from _gen_offers where scrape_id = ?", [sid]
        )
        names = [d[0] for d in cur.description or []]
        out.append(
            (
                provider,
                observed_at,
                status,
                [ScrapedOffer(**dict(zip(names, row, strict=True))) for row in cur.fetchall()],
            )
        )
    return out


def load_hour_per_scrape(con: duckdb.DuckDBPyConnection, scrapes: list[tuple]) -> int:
    """Load one hour scrape by scrape, exactly as pipelines.ingest.run_session does."""
    loaded = 0
    for provider, observed_at, status, offers in scrapes:
        sid = scrape_id(provider, observed_at, [])
        if not start_scrape(
            con,
            scrape_id=sid,
            provider=provider,
            run_id="hourly",
            mode="replay",
            source="generated",
            fetches=[],
        ):
            continue
        if status == "failed":
            fail_scrape(con, sid, "generated outage")
            continue
        rows, validation = prepare(con, offers)
        if not validation.ok:
            raise RuntimeError("; ".join(validation.problems()))
        commit_scrape(con, scrape_id=sid, provider=provider, observed_at=observed_at, rows=rows)
        loaded += 1
    return loaded


def setup(con: duckdb.DuckDBPyConnection, gen: Generator, *, seed: bool = True) -> None:
    """The generator's catalogue as temp tables, after seeding the warehouse (``seed=False``:
    it is already seeded, e.g. a copy of the tests' seeded template)."""
    if seed:
        with transaction(con):
            load_seeds(con)
    arrow_temp_table(con, "_gen_catalog", gen.catalog_table())
