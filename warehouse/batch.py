"""Loading many scrapes at once: the set-based twin of ``load.prepare`` + ``load.commit_scrape``.

Used to load a long run of recorded scrapes (the three-year scale benchmark loads a day of hourly
scrapes of 30 providers per call) where per-row Python would dominate. It writes the same rows
as the per-scrape path: offer ids come from ``load.offer_id``, GPU names from
``gpus.resolve``, prices go through the ``units`` helpers and ``load.fx_rate`` (once per
distinct value, then joined back), and history is applied by ``history.apply_batch``, the code
the per-scrape path runs too.

Input: a table of scrapes (``scrape_id, provider, run_id, mode, source, observed_at, status,
error``; status 'success' or 'failed') and a table of offers (the ``scrapers.base.Offer``
fields plus ``scrape_id``). Names are identifiers chosen by the caller's code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal

import duckdb
import pyarrow as pa

from warehouse.gpus import resolve
from warehouse.history import BATCH_TABLE, OBSERVED_COLUMNS, apply_batch
from warehouse.load import (
    OBSERVATION_COLUMNS,
    LoadError,
    fx_rate,
    offer_id,
    unresolved_message,
)
from warehouse.units import price_per_hour, quantize_money, to_usd

STAGED_TABLE = "_batch_staged"
OBSERVED_VIEW = "_batch_observed"
OFFER_COLUMNS = (
    "scrape_id",
    "provider",
    "instance_type",
    "region",
    "pricing",
    "reserved_term_months",
    "gpu_name",
    "gpu_count",
    "vram_gb_reported",
    "vcpus",
    "ram_gb",
    "storage_gb",
    "price",
    "currency",
    "price_unit",
    "price_per",
    "serverless",
    "source_url",
    "observed_at",
)
SCRAPE_COLUMNS = (
    "scrape_id",
    "provider",
    "run_id",
    "mode",
    "source",
    "observed_at",
    "status",
    "error",
)


@dataclass
class BatchValidation:
    """What ``load.Validation`` checks, over a whole batch (same rules: unknown GPUs warn)."""

    offer_count: int = 0
    non_positive_prices: list[str] = field(default_factory=list)
    unresolved_gpus: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.non_positive_prices

    def problems(self) -> list[str]:
        out = []
        if self.non_positive_prices:
            out.append(f"{len(self.non_positive_prices)} offers with price <= 0")
        if self.unresolved_gpus:
            out.append(unresolved_message(self.unresolved_gpus))
        return out


def arrow_temp_table(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
    """``create or replace temp table <name>`` holding ``table``'s rows."""
    # register() refuses to run while an earlier result is unread (a fetchone() leaves one);
    # a statement of our own, read to the end, closes it
    con.execute("select 1").fetchall()
    con.register("_batch_arrow", table)
    try:
        con.execute(f"create or replace temp table {name} as select * from _batch_arrow")
    finally:
        con.unregister("_batch_arrow")


def _register(con: duckdb.DuckDBPyConnection, name: str, columns: dict[str, list]) -> None:
    arrow_temp_table(con, name, pa.table({k: pa.array(v) for k, v in columns.items()}))


def prepare_batch(con: duckdb.DuckDBPyConnection, offers: str) -> BatchValidation:
    """Normalise the offers table ``offers`` into ``STAGED_TABLE`` (observation rows).

    Raises ``LoadError`` when one scrape lists one offer twice with different prices, or a
    currency has no exchange rate. Offers with a price <= 0 are left out and reported.
    """
    validation = BatchValidation(
        offer_count=int(con.execute(f"select count(*) from {offers}").fetchall()[0][0])
    )
    keys = con.execute(
        f"select distinct provider, instance_type, region, pricing, reserved_term_months"
        f" from {offers}"
    ).fetchall()
    _register(
        con,
        "_batch_offer_ids",
        {
            "provider": [k[0] for k in keys],
            "instance_type": [k[1] for k in keys],
            "region": [k[2] for k in keys],
            "pricing": [k[3] for k in keys],
            "reserved_term_months": [k[4] for k in keys],
            "offer_id": [offer_id(k[0], k[1], k[2], k[3], k[4]) for k in keys],
        },
    )
    names = con.execute(f"select distinct gpu_name, vram_gb_reported from {offers}").fetchall()
    gpu_ids = [resolve(n[0], float(n[1]) if n[1] is not None else None) for n in names]
    _register(
        con,
        "_batch_gpus",
        {
            "gpu_name": [n[0] for n in names],
            "vram_gb_reported": [n[1] for n in names],
            "gpu_id": gpu_ids,
        },
    )
    validation.unresolved_gpus = sorted(
        {n[0] for n, g in zip(names, gpu_ids, strict=True) if g is None}
    )
    prices = con.execute(
        f"select distinct price, price_unit, price_per, gpu_count, currency,"
        f" timezone('UTC', observed_at)::date as day from {offers} where price > 0"
    ).fetchall()
    fx_cache: dict[tuple[str, date], tuple[Decimal, date | None]] = {}
    norm: dict[str, list] = {
        k: []
        for k in (
            "price",
            "price_unit",
            "price_per",
            "gpu_count",
            "currency",
            "day",
            "price_per_hour",
            "usd_per_unit",
            "fx_rate_date",
            "price_per_hour_usd",
        )
    }
    for price, unit, per, count, currency, day in prices:
        if (currency, day) not in fx_cache:
            fx_cache[(currency, day)] = fx_rate(con, currency, day)
        usd_per_unit, rate_date = fx_cache[(currency, day)]
        hourly = price_per_hour(price, unit, per, count)
        for key, value in (
            ("price", price),
            ("price_unit", unit),
            ("price_per", per),
            ("gpu_count", count),
            ("currency", currency),
            ("day", day),
            ("price_per_hour", quantize_money(hourly)),
            ("usd_per_unit", usd_per_unit),
            ("fx_rate_date", rate_date),
            ("price_per_hour_usd", quantize_money(to_usd(hourly, usd_per_unit))),
        ):
            norm[key].append(value)
    _register(con, "_batch_prices", norm)
    bad = con.execute(
        f"select instance_type || ' ' || price from {offers} where price <= 0 limit 1000"
    ).fetchall()
    validation.non_positive_prices = [b[0] for b in bad]
    con.execute(f"""
        create or replace temp table {STAGED_TABLE} as
        select
            o.scrape_id, i.offer_id, o.provider, o.instance_type, o.region, o.pricing,
            o.reserved_term_months, o.gpu_name, g.gpu_id, o.gpu_count, o.vram_gb_reported,
            o.vcpus, o.ram_gb, o.storage_gb, o.price, o.currency, o.price_unit, o.price_per,
            o.serverless, o.source_url, o.observed_at, p.price_per_hour, p.usd_per_unit,
            p.fx_rate_date, p.price_per_hour_usd, null::boolean as offered
        from {offers} as o
        inner join _batch_offer_ids as i
            on o.provider = i.provider and o.instance_type = i.instance_type
            and o.region = i.region and o.pricing = i.pricing
            and o.reserved_term_months is not distinct from i.reserved_term_months
        inner join _batch_gpus as g
            on o.gpu_name = g.gpu_name
            and o.vram_gb_reported is not distinct from g.vram_gb_reported
        inner join _batch_prices as p
            on o.price = p.price and o.price_unit = p.price_unit and o.price_per = p.price_per
            and o.gpu_count = p.gpu_count and o.currency = p.currency
            and timezone('UTC', o.observed_at)::date = p.day
    """)
    rows, keys = con.execute(
        f"select count(*), count(distinct (scrape_id, offer_id)) from {STAGED_TABLE}"
    ).fetchall()[0]
    if rows != keys:  # an offer listed twice in one scrape: fine if identical, as in load.prepare
        conflict = con.execute(f"""
            select any_value(instance_type), any_value(region), any_value(pricing)
            from {STAGED_TABLE} group by scrape_id, offer_id
            having count(distinct (price, currency, gpu_id, gpu_count)) > 1 limit 1
        """).fetchall()
        if conflict:
            raise LoadError(
                f"two different prices for one offer: {conflict[0][0]} "
                f"{conflict[0][1]} {conflict[0][2]}"
            )
        con.execute(
            f"create or replace temp table {STAGED_TABLE} as"
            f" select * from {STAGED_TABLE} qualify row_number() over"
            f" (partition by scrape_id, offer_id order by observed_at) = 1"
        )
    return validation


def commit_batch(
    con: duckdb.DuckDBPyConnection,
    scrapes: str,
    *,
    observations_from: datetime | None = None,
    now: datetime | None = None,
) -> dict[str, int]:
    """Record the scrapes in ``scrapes``, insert ``STAGED_TABLE`` and apply history, atomically.

    Scrapes that already succeeded are skipped (loading a batch twice changes nothing). Failed
    scrapes are recorded and never applied to history. With ``observations_from`` the retention
    rule is applied while loading: observations of scrapes before it are not stored (their
    history still is), except each provider's newest successful scrape of the batch, which
    ``current_offers`` reads -- the state load-then-prune would reach. Returns counts.
    """
    finished = now or datetime.now(UTC)
    con.execute("begin transaction")
    try:
        con.execute(f"""
            create or replace temp table _batch_new as
            select s.* from {scrapes} as s
            anti join scrapes as done on s.scrape_id = done.scrape_id and done.status = 'success'
        """)
        con.execute("delete from scrapes where scrape_id in (select scrape_id from _batch_new)")
        con.execute(
            f"""
            insert into scrapes (scrape_id, provider, run_id, mode, source, started_at,
                                 finished_at, observed_at, status, error, offer_count)
            select s.scrape_id, s.provider, s.run_id, s.mode, s.source, s.observed_at, ?,
                   s.observed_at, s.status, s.error,
                   case when s.status = 'success' then coalesce(n.offers, 0) end
            from _batch_new as s
            left join (select scrape_id, count(*) as offers from {STAGED_TABLE}
                       group by scrape_id) as n on s.scrape_id = n.scrape_id
        """,
            [finished],
        )
        con.execute(f"""
            create or replace temp table {BATCH_TABLE} as
            select scrape_id, provider, observed_at from _batch_new where status = 'success'
        """)
        observed = con.execute(
            f"""
            insert into observations ({", ".join(OBSERVATION_COLUMNS)})
            select {", ".join(OBSERVATION_COLUMNS)} from {STAGED_TABLE}
            where scrape_id in (
                select scrape_id from {BATCH_TABLE}
                where observed_at >= coalesce(?::timestamptz, '-infinity'::timestamptz)
                union all
                select arg_max(scrape_id, observed_at) from {BATCH_TABLE} group by provider)
        """,
            [observations_from],
        ).fetchall()
        con.execute(f"""
            create or replace temp view {OBSERVED_VIEW} as
            select {", ".join(OBSERVED_COLUMNS)} from {STAGED_TABLE}
            where scrape_id in (select scrape_id from {BATCH_TABLE})
        """)
        changes = apply_batch(con, observed=OBSERVED_VIEW)
        con.execute("commit")
    except Exception:
        con.execute("rollback")
        raise
    scrape_count = con.execute("select count(*) from _batch_new").fetchall()
    return {"scrapes": int(scrape_count[0][0]), "observations": int(observed[0][0]), **changes}
