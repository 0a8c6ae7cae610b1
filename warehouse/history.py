"""Price history as change intervals, maintained set-based over batches of scrapes.

``offer_history`` holds one row per offer per stretch of time in which its price and shape
(price, currency, GPU, GPU count) stayed the same: ``[valid_from, valid_to)``, ``valid_to`` null
= still current. Rules, per provider, applied to its successful scrapes in time order:

- an offer whose values changed gets its open interval closed at the scrape's ``observed_at``
  and a new interval opened at the same instant;
- an offer missing from a successful scrape is closed at that scrape's time;
- a failed scrape is never applied, so its provider's offers stay open (not seen is not gone);
- a scrape older than the provider's newest history point only adds observations (history is
  built forward in time), and an unchanged offer writes nothing.

``apply_batch`` applies any number of scrapes (of any providers) in one pass: the hourly pipeline
passes one scrape, the scale generator a day of them, the importers a whole dataset's sessions
under their own ``source``. Each source keeps its own intervals, so imported history never
closes or reopens scraped intervals.

Also here: the incremental refresh of the daily rollup and the retention of raw observations,
both run after every ingestion (``maintain``). The rollup feeds a day only with prices observed
within their kind's shelf life (``warehouse.shelf_life``) and not judged suspect; a successful
scrape observes the prices it sees unchanged without writing history, so it marks the rollup
dirty from its day on all the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb

from warehouse.analysis import create_views, view_sql
from warehouse.db import transaction
from warehouse.records import HISTORY_OBSERVATION_COLUMNS
from warehouse.records import IMPORT_PREFIX as IMPORT_PREFIX
from warehouse.records import SCRAPE_SOURCE as SCRAPE_SOURCE
from warehouse.shelf_life import shelf_lives

ROLLUP = "daily_provider_prices"
ROLLUP_SQL = Path(__file__).resolve().parent / "rollups" / f"{ROLLUP}.sql"

# The batch tables apply_batch reads (temporary, per connection):
#   BATCH_TABLE     scrape_id, provider, observed_at      one row per successful scrape
#   OBSERVED_TABLE  observation-shaped rows of those scrapes (OBSERVED_COLUMNS); callers may
#                   pass another table or view name
BATCH_TABLE = "_history_batch"
OBSERVED_TABLE = "_history_observed"
OBSERVED_SCRAPE = "_history_observed_scrape"  # the per-scrape path's copy of its observations
OBSERVED_COLUMNS = HISTORY_OBSERVATION_COLUMNS  # records.HistoryObservation

_SEQUENCE_SQL = f"""
create or replace temp table _history_seq as
with marks as (
    select provider, max(greatest(valid_from, coalesce(valid_to, valid_from))) as mark
    from offer_history
    where source = $source and provider in (select provider from {BATCH_TABLE})
    group by provider
)
select
    b.scrape_id,
    b.provider,
    b.observed_at,
    row_number() over (partition by b.provider order by b.observed_at, b.scrape_id) as seq
from {BATCH_TABLE} as b
left join marks as m on b.provider = m.provider
where m.mark is null or b.observed_at >= m.mark
"""

# The transitions of the batch: per (offer, scrape of its provider) the offer is present with
# its values or absent, seq 0 being its open interval before the batch; a transition is an
# appearance, a disappearance or changed values, and next_t ends the interval it opens.
_CHANGES_SQL = """
create or replace temp table _history_changes as
with open_rows as (
    select offer_id, provider, valid_from, price, currency, gpu_count, gpu_id
    from offer_history
    where source = $source and valid_to is null
      and provider in (select provider from _history_seq)
),

observed as (
    select o.offer_id, o.provider, o.scrape_id, o.price, o.currency, o.gpu_count, o.gpu_id
    from {observed} as o
    semi join _history_seq as s on o.scrape_id = s.scrape_id
),

universe as (
    select offer_id, provider from open_rows
    union
    select offer_id, provider from observed
),

states as (
    select offer_id, 0::bigint as seq, valid_from as t, null::varchar as scrape_id,
           true as present, price, currency, gpu_count, gpu_id
    from open_rows
    union all
    select u.offer_id, s.seq, s.observed_at, s.scrape_id, o.offer_id is not null,
           o.price, o.currency, o.gpu_count, o.gpu_id
    from universe as u
    inner join _history_seq as s on u.provider = s.provider
    left join observed as o on s.scrape_id = o.scrape_id and u.offer_id = o.offer_id
),

lagged as (
    select
        *,
        lag(present) over w as prev_present,
        lag(price) over w as prev_price,
        lag(currency) over w as prev_currency,
        lag(gpu_count) over w as prev_gpu_count,
        lag(gpu_id) over w as prev_gpu_id
    from states
    window w as (partition by offer_id order by seq)
),

transitions as (
    select offer_id, seq, t, scrape_id, present
    from lagged
    where seq > 0
      and (present <> coalesce(prev_present, false)
           or (present and (price is distinct from prev_price
                            or currency is distinct from prev_currency
                            or gpu_count is distinct from prev_gpu_count
                            or gpu_id is distinct from prev_gpu_id)))
)

select *, lead(t) over (partition by offer_id order by seq) as next_t
from transitions
"""

_CLOSE_SQL = """
update offer_history as h
set valid_to = f.t
from (select offer_id, arg_min(t, seq) as t from _history_changes group by offer_id) as f
where h.offer_id = f.offer_id and h.source = $source and h.valid_to is null
"""

_OPEN_SQL = """
insert into offer_history (
    offer_id, provider, valid_from, valid_to, instance_type, region, pricing,
    reserved_term_months, gpu_id, gpu_count, price, currency, price_per_hour_usd, source,
    scrape_id, gpu_name_provider, serverless, price_per_gpu_hour_usd
)
select
    c.offer_id, o.provider, c.t, c.next_t, o.instance_type, o.region, o.pricing,
    o.reserved_term_months, o.gpu_id, o.gpu_count, o.price, o.currency, o.price_per_hour_usd,
    $source, case when $keep_scrape_id then c.scrape_id end, o.gpu_name_provider, o.serverless,
    o.price_per_gpu_hour_usd
from _history_changes as c
inner join {observed} as o on c.scrape_id = o.scrape_id and c.offer_id = o.offer_id
where c.present
"""


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> Any:
    rows = con.execute(sql, params or []).fetchall()  # read to the end: see batch.arrow_temp_table
    return rows[0][0] if rows else None


def apply_batch(
    con: duckdb.DuckDBPyConnection, *, source: str = SCRAPE_SOURCE, observed: str = OBSERVED_TABLE
) -> dict[str, int]:
    """Apply the scrapes in ``BATCH_TABLE`` (rows in ``observed``) to ``offer_history``.

    Runs inside the caller's transaction. Returns counts: ``opened`` (new intervals),
    ``closed`` (intervals given a ``valid_to``), ``out_of_order`` (scrapes older than their
    provider's newest history point, not applied). The work is proportional to the batch
    times its providers' open intervals; the only reads of closed history are two column
    scans of ``offer_history`` (its newest point per provider, its open intervals).
    """
    con.execute(_SEQUENCE_SQL, {"source": source})
    batch, in_order, first_scrape = con.execute(
        f"select (select count(*) from {BATCH_TABLE}), (select count(*) from _history_seq),"
        f" (select min(observed_at) from {BATCH_TABLE})"
    ).fetchall()[0]
    if source == SCRAPE_SOURCE and first_scrape is not None:
        # a successful scrape confirms every price it saw unchanged, which keeps those prices
        # fresh in the rollup from its day on, even when it writes no interval
        mark_dirty(con, first_scrape)
    if in_order == 0:
        return {"opened": 0, "closed": 0, "out_of_order": int(batch)}
    con.execute(_CHANGES_SQL.format(observed=observed), {"source": source})
    closed_in_batch, first_change = con.execute(
        "select count(*) filter (where present and next_t is not null), min(t)"
        " from _history_changes"
    ).fetchall()[0]
    if first_change is None:
        return {"opened": 0, "closed": 0, "out_of_order": int(batch - in_order)}
    closed = int(_one(con, _CLOSE_SQL, {"source": source}) or 0) + int(closed_in_batch)
    opened_params = {"source": source, "keep_scrape_id": source == SCRAPE_SOURCE}
    opened = int(_one(con, _OPEN_SQL.format(observed=observed), opened_params) or 0)
    mark_dirty(con, first_change)
    return {"opened": opened, "closed": closed, "out_of_order": int(batch - in_order)}


def apply_scrape_history(
    con: duckdb.DuckDBPyConnection, *, scrape_id: str, provider: str, observed_at: datetime
) -> dict[str, int]:
    """``apply_batch`` for one scrape whose observations are already in ``observations``."""
    con.execute(
        f"create or replace temp table {BATCH_TABLE} as"
        " select ?::varchar as scrape_id, ?::varchar as provider, ?::timestamptz as observed_at",
        [scrape_id, provider, observed_at],
    )
    # a constant filter is pushed into the scan: one pass over the retained observations
    con.execute(
        f"create or replace temp table {OBSERVED_SCRAPE} as"
        f" select {', '.join(OBSERVED_COLUMNS)} from observations where scrape_id = ?",
        [scrape_id],
    )
    return apply_batch(con, source=SCRAPE_SOURCE, observed=OBSERVED_SCRAPE)


def _utc_day(value: datetime | date) -> date:
    if isinstance(value, datetime):
        return value.astimezone(UTC).date()
    return value


def mark_dirty(con: duckdb.DuckDBPyConnection, since: datetime | date) -> None:
    """Record that history changed from ``since`` on: the next rollup refresh redoes those days."""
    day = _utc_day(since)
    con.execute(
        "update history_rollup_state set dirty_from = least(coalesce(dirty_from, ?), ?)"
        " where rollup = ?",
        [day, day, ROLLUP],
    )


@dataclass(frozen=True)
class RollupRefresh:
    from_day: date | None
    through_day: date
    rows: int


def _screened_since(con: duckdb.DuckDBPyConnection, since: datetime) -> date | None:
    """The first day of an interval whose screen verdict was (re)written at or after ``since``."""
    first = _one(
        con,
        """
        select min(h.valid_from)
        from price_screens as s
        inner join offer_history as h on h.scrape_id = s.scrape_id and h.offer_id = s.offer_id
        where s.screened_at >= ?
        """,
        [since],
    )
    return _utc_day(first) if first is not None else None


def _built_with(shelf_life_days: Mapping[str, float] | None) -> tuple[list[dict], str]:
    """The rollup's ``$shelf_lives`` parameter and its record in ``history_rollup_state``."""
    lives = shelf_lives(shelf_life_days)
    rows = [{"price_kind": str(k), "shelf_life_days": v} for k, v in lives.items()]
    return rows, json.dumps({str(k): v for k, v in lives.items()}, sort_keys=True)


def refresh_rollup(
    con: duckdb.DuckDBPyConnection,
    *,
    now: datetime | None = None,
    full: bool = False,
    shelf_life_days: Mapping[str, float] | None = None,
) -> RollupRefresh:
    """Bring ``daily_provider_prices`` up to date (inside the caller's transaction).

    Redoes the days from the earliest of: the first day history changed since the last refresh
    (a new interval or a successful scrape, which confirms prices), the first day of an interval
    whose plausibility verdict was written since, and the last refreshed day (open intervals
    have grown into it since). Everything when ``full``, never refreshed, or built with other
    shelf lives. Open intervals count as valid until ``now`` (default: the wall clock, UTC).
    ``shelf_life_days``: each kind of price's shelf life in days (``warehouse.shelf_life``
    kind names -> days over its defaults; ``GPUPRICES_SHELF_LIFE_DAYS_*``); raises
    ``ValueError`` for an unknown kind or a negative figure.
    """
    now = now or datetime.now(UTC)
    today = _utc_day(now)
    lives, built_with = _built_with(shelf_life_days)
    dirty_from, refreshed_through, refreshed_at, built = con.execute(
        "select dirty_from, refreshed_through, refreshed_at, shelf_life_days"
        " from history_rollup_state where rollup = ?",
        [ROLLUP],
    ).fetchone() or (None, None, None, None)
    if full or refreshed_through is None or built != built_with:
        first = _one(con, "select min(valid_from) from offer_history")
        start = _utc_day(first) if first is not None else None
    else:
        screened = _screened_since(con, refreshed_at) if refreshed_at is not None else None
        start = min(d for d in (dirty_from, refreshed_through, screened) if d is not None)
    rows = 0
    if start is not None:
        start_ts = datetime(start.year, start.month, start.day, tzinfo=UTC)
        con.execute(view_sql("price_kind"))  # the rollup classifies prices with it
        con.execute(f"delete from {ROLLUP} where day >= ?", [start])
        rows = int(
            _one(
                con,
                ROLLUP_SQL.read_text(encoding="utf-8"),
                {"start": start_ts, "now": now, "shelf_lives": lives},
            )
            or 0
        )
    con.execute(
        "update history_rollup_state set dirty_from = null, refreshed_through = ?,"
        " refreshed_at = ?, shelf_life_days = ? where rollup = ?",
        [today, now, built_with, ROLLUP],
    )
    return RollupRefresh(start, today, rows)


def retention_days(con: duckdb.DuckDBPyConnection, table: str = "observations") -> int | None:
    value = _one(con, "select keep_days from retention_policy where table_name = ?", [table])
    return int(value) if value is not None else None


# A successful scrape observed later than now plus this is dated in the future (the ingest's
# clock-skew bound, warehouse.quality, defaults to 300 s): it never moves the retention window.
FUTURE_TOLERANCE = timedelta(seconds=300)


def prune_observations(
    con: duckdb.DuckDBPyConnection, keep_days: int | None = None, *, now: datetime | None = None
) -> int:
    """Delete observations older than the retention window (inside the caller's transaction).

    The window ends at the newest successful scrape (data time, not the wall clock, so a replay
    of old captures keeps its last ``keep_days``) that is not dated after ``now`` (default the
    wall clock) plus ``FUTURE_TOLERANCE``: one scrape dated 2099 must not delete every real one
    (issue 15). Each provider's newest successful scrape, and its newest not in the future, is
    always kept because ``current_offers`` reads it. Returns the number of rows deleted.
    """
    days = keep_days if keep_days is not None else retention_days(con)
    if days is None:
        return 0
    latest = (now or datetime.now(UTC)) + FUTURE_TOLERANCE
    newest = _one(
        con,
        "select max(observed_at) from scrapes where status = 'success' and observed_at <= ?",
        [latest],
    )
    if newest is None:
        return 0
    cutoff = newest - timedelta(days=days)
    deleted = _one(
        con,
        """
        delete from observations
        where observed_at < $cutoff
          and scrape_id not in (
            select arg_max(scrape_id, observed_at) from scrapes
            where status = 'success' group by provider
            union all
            select arg_max(scrape_id, observed_at) from scrapes
            where status = 'success' and observed_at <= $latest group by provider)
        """,
        {"cutoff": cutoff, "latest": latest},
    )
    return int(deleted or 0)


def maintain(
    con: duckdb.DuckDBPyConnection,
    *,
    now: datetime | None = None,
    shelf_life_days: Mapping[str, float] | None = None,
) -> dict[str, int]:
    """After an ingestion: refresh the daily rollup (``shelf_life_days`` as in
    ``refresh_rollup``), apply retention, (re)create the views.

    One transaction; returns row counts for the asset metadata.
    """
    with transaction(con):
        refresh = refresh_rollup(con, now=now, shelf_life_days=shelf_life_days)
        pruned = prune_observations(con)
        views = create_views(con)
    return {
        "rollup_rows_refreshed": refresh.rows,
        "observations_pruned": pruned,
        "analysis_views": len(views),
    }
