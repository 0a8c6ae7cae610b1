"""Loading many scrapes at once: ``load.prepare`` + ``load.commit_scrape`` for a whole batch.

Used to load a long run of recorded scrapes (the three-year scale benchmark loads a day of hourly
scrapes of 30 providers per call). It runs the per-scrape path's code: offers become
observations through ``warehouse.normalise.normalise`` (the function ``load.prepare`` calls:
same offer ids, GPU resolution, ``units`` conversions, exchange rates and checks), are staged
through Arrow, and history is applied by ``history.apply_batch``, the code the per-scrape path
runs too.

Input: a table of scrapes (``records.BatchScrape``: ``scrape_id, provider, run_id, mode,
source, observed_at, status, error``; status 'success' or 'failed') and a table of offers (the
``records.ScrapedOffer`` fields plus ``scrape_id``; ``offered`` may be left out). Names are
identifiers chosen by the caller's code.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from warehouse.db import insert_records, transaction
from warehouse.history import BATCH_TABLE, OBSERVED_COLUMNS, apply_batch
from warehouse.normalise import Validation, normalise
from warehouse.records import (
    BATCH_SCRAPE_COLUMNS,
    OBSERVATION_COLUMNS,
    SCRAPED_OFFER_COLUMNS,
    ScrapedOffer,
)

STAGED_TABLE = "_batch_staged"
OBSERVED_VIEW = "_batch_observed"
OFFER_COLUMNS = ("scrape_id", *SCRAPED_OFFER_COLUMNS)
SCRAPE_COLUMNS = BATCH_SCRAPE_COLUMNS
_CHUNK_ROWS = 100_000


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


def _offers(con: duckdb.DuckDBPyConnection, offers: str) -> Iterator[tuple[str, ScrapedOffer]]:
    present = {d[0] for d in con.execute(f"select * from {offers} limit 0").description or []}
    names = [c for c in SCRAPED_OFFER_COLUMNS if c in present]
    # read whole before normalising: normalising queries exchange rates on this connection,
    # which would end a result still being fetched
    table = con.sql(f"select scrape_id, {', '.join(names)} from {offers}").to_arrow_table()
    for batch in table.to_batches(max_chunksize=_CHUNK_ROWS):
        for row in batch.to_pylist():
            sid = row.pop("scrape_id")
            yield sid, ScrapedOffer(**row)


def prepare_batch(con: duckdb.DuckDBPyConnection, offers: str) -> BatchValidation:
    """Normalise the offers table ``offers`` into ``STAGED_TABLE`` (observation rows).

    Raises ``LoadError`` when one scrape lists one offer twice with different prices, or a
    currency has no exchange rate. Offers with a price <= 0 (or observed in the future) are left
    out and reported.
    """
    rows, validation = normalise(con, _offers(con, offers), validation=BatchValidation())
    con.execute(
        f"create or replace temp table {STAGED_TABLE} as select * from observations limit 0"
    )
    insert_records(con, STAGED_TABLE, rows)
    assert isinstance(validation, BatchValidation)
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
    scrape_count = con.execute("select count(*) from _batch_new").fetchall()
    return {"scrapes": int(scrape_count[0][0]), "observations": int(observed[0][0]), **changes}
