"""Loading many scrapes at once: ``load.prepare`` + ``load.commit_scrape`` for a whole batch.

Used to load a long run of recorded scrapes (the three-year scale benchmark loads a day of hourly
scrapes of 30 providers per call). It runs the per-scrape path's code: offers become
observations through ``warehouse.normalise.normalise`` (the function ``load.prepare`` calls:
same offer ids, GPU resolution, ``units`` conversions, exchange rates and checks), once per
distinct offer shape of a day, joined back to every scrape in SQL; history is applied by
``history.apply_batch``, the code the per-scrape path runs too.

Input: a table of scrapes (``records.BatchScrape``: ``scrape_id, provider, run_id, mode,
source, observed_at, status, error, coverage, coverage_reason``; status 'success' or 'failed',
coverage 'full' or 'partial') and a table of offers (the
``records.ScrapedOffer`` fields plus ``scrape_id``; ``offered`` may be left out). Names are
identifiers chosen by the caller's code.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from warehouse.db import insert_arrow, transaction
from warehouse.history import BATCH_TABLE, OBSERVED_COLUMNS, apply_batch
from warehouse.normalise import LoadError, Validation, normalise
from warehouse.records import (
    ANNOUNCEMENT_COLUMNS,
    BATCH_SCRAPE_COLUMNS,
    OBSERVATION_COLUMNS,
    SCRAPED_OFFER_COLUMNS,
    ScrapedOffer,
)

STAGED_TABLE = "_batch_staged"
OBSERVED_VIEW = "_batch_observed"
ANNOUNCED_VIEW = "_batch_announced"
OFFER_COLUMNS = ("scrape_id", *SCRAPED_OFFER_COLUMNS)
SCRAPE_COLUMNS = BATCH_SCRAPE_COLUMNS


class BatchValidation(Validation):
    """``Validation`` over a whole batch: the same rules, except that a batch may be empty."""

    @property
    def ok(self) -> bool:
        return not self.non_positive_prices and not self.future_observations


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


_SHAPES = "_batch_shapes"
_NORMALISED = "_batch_normalised"
# Observation columns normalise computes from an offer; the rest are the offer's own
_DERIVED = ("offer_id", "gpu_id", "gpu_family", "price_per_hour", "usd_per_unit", "fx_rate_date",
            "price_per_hour_usd", "price_per_gpu_hour_usd", "announced_price_per_hour",
            "announced_price_per_hour_usd", "announced_price_per_gpu_hour_usd")  # fmt: skip
# Observation columns that store an offer field under another name
_RENAMED = {"gpu_name_provider": "gpu_name"}


def _shapes(con: duckdb.DuckDBPyConnection, names: list[str]) -> Iterator[tuple[str, ScrapedOffer]]:
    # read whole before normalising: normalising queries exchange rates on this connection,
    # which would end a result still being fetched
    rows = con.execute(f"select shape_id, {', '.join(names)} from {_SHAPES}").fetchall()
    for row in rows:
        yield str(row[0]), ScrapedOffer(**dict(zip(names, row[1:], strict=True)))


def prepare_batch(con: duckdb.DuckDBPyConnection, offers: str) -> BatchValidation:
    """Normalise the offers table ``offers`` into ``STAGED_TABLE`` (observation rows).

    The rules are ``normalise``'s, applied once per distinct offer shape of a UTC day (an hourly
    batch repeats each offer in every scrape: the values, apart from the scrape and its time,
    are the same), judged at the shape's latest observation; SQL joins the results back to
    every scrape. Raises ``LoadError`` when one scrape lists one offer twice with different
    prices, or a currency has no exchange rate. Offers with a price <= 0 (or observed in the
    future) are left out and reported.
    """
    present = {d[0] for d in con.execute(f"select * from {offers} limit 0").description or []}
    names = [c for c in SCRAPED_OFFER_COLUMNS if c in present and c != "observed_at"]
    keys = ", ".join([*names, "day"])
    con.execute(f"""
        create or replace temp table _batch_keyed as
        select *, dense_rank() over (order by {keys}) as shape_id
        from (select *, timezone('UTC', observed_at)::date as day from {offers})
    """)
    con.execute(f"""
        create or replace temp table {_SHAPES} as
        select shape_id, {", ".join(f"any_value({c}) as {c}" for c in names)},
               max(observed_at) as observed_at
        from _batch_keyed group by shape_id
    """)
    validation = BatchValidation()
    shapes, _ = normalise(con, _shapes(con, [*names, "observed_at"]), validation=validation)
    validation.offer_count = int(con.execute(f"select count(*) from {offers}").fetchall()[0][0])
    # an offer field the input table leaves out takes the record's default (listings 1, ...),
    # as normalise gives it: carried with the derived columns
    defaulted = [
        c
        for c in OBSERVATION_COLUMNS
        if c not in present
        and c not in _DERIVED
        and c not in _RENAMED
        and c != "scrape_id"
        and c in ScrapedOffer.__struct_fields__
    ]
    carried = [*_DERIVED, *defaulted]
    con.execute(
        f"create or replace temp table {_NORMALISED} as"
        f" select 0::bigint as shape_id, {', '.join(carried)} from observations limit 0"
    )
    insert_arrow(
        con,
        _NORMALISED,
        pa.table(
            {
                "shape_id": [int(r.scrape_id) for r in shapes],
                **{c: [getattr(r, c) for r in shapes] for c in carried},
            }
        ),
    )
    derived = set(carried)
    # any other column the table leaves out is null, typed as its observations column
    types = dict(
        con.execute(
            "select column_name, data_type from information_schema.columns"
            " where table_name = 'observations' and table_schema = 'main'"
        ).fetchall()
    )
    select = ", ".join(
        f"n.{c}"
        if c in derived
        else f"k.{_RENAMED[c]} as {c}"
        if c in _RENAMED
        else f"null::{types[c]} as {c}"
        if c not in present
        else f"k.{c}"
        for c in OBSERVATION_COLUMNS
    )
    con.execute(f"""
        create or replace temp table {STAGED_TABLE} as
        select {select}
        from _batch_keyed as k inner join {_NORMALISED} as n on k.shape_id = n.shape_id
    """)
    rows, keys_count = con.execute(
        f"select count(*), count(distinct (scrape_id, offer_id)) from {STAGED_TABLE}"
    ).fetchall()[0]
    if rows != keys_count:  # one offer listed twice in one scrape: fine if identical
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
    with transaction(con):
        con.execute(f"""
            create or replace temp table _batch_new as
            select s.* from {scrapes} as s
            anti join scrapes as done on s.scrape_id = done.scrape_id and done.status = 'success'
        """)
        con.execute("delete from scrapes where scrape_id in (select scrape_id from _batch_new)")
        con.execute(
            f"""
            insert into scrapes (scrape_id, provider, run_id, mode, source, started_at,
                                 finished_at, observed_at, status, error, offer_count,
                                 coverage, coverage_reason)
            select s.scrape_id, s.provider, s.run_id, s.mode, s.source, s.observed_at, ?,
                   s.observed_at, s.status, s.error,
                   case when s.status = 'success' then coalesce(n.offers, 0) end,
                   case when s.status = 'success' then s.coverage end,
                   case when s.status = 'success' then s.coverage_reason end
            from _batch_new as s
            left join (select scrape_id, count(*) as offers from {STAGED_TABLE}
                       group by scrape_id) as n on s.scrape_id = n.scrape_id
        """,
            [finished],
        )
        con.execute(f"""
            create or replace temp table {BATCH_TABLE} as
            select scrape_id, provider, observed_at, coverage
            from _batch_new where status = 'success'
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
        con.execute(f"""
            create or replace temp view {ANNOUNCED_VIEW} as
            select {", ".join(ANNOUNCEMENT_COLUMNS)} from {STAGED_TABLE}
            where scrape_id in (select scrape_id from {BATCH_TABLE})
              and announced_from is not null
        """)
        changes = apply_batch(con, observed=OBSERVED_VIEW, announced=ANNOUNCED_VIEW)
    scrape_count = con.execute("select count(*) from _batch_new").fetchall()
    return {"scrapes": int(scrape_count[0][0]), "observations": int(observed[0][0]), **changes}
