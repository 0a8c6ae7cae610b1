"""Price history as change intervals, maintained set-based over batches of scrapes.

``offer_history`` holds one row per offer per stretch of time in which its price and shape
(price, currency, price unit and basis, GPU, GPU count) stayed the same: ``[valid_from,
valid_to)``, ``valid_to`` null = still current, ``last_seen_at`` the newest observation that saw
the price. Rules, per provider, applied to its successful scrapes in time order:

- an offer whose values changed gets its open interval closed at the scrape's ``observed_at``
  and a new interval opened at the same instant, however long ago the old price was last seen;
- an offer a scrape lists unchanged advances its open interval's ``last_seen_at``;
- an offer missing from a successful **full** scrape (``scrapes.coverage``) is closed at that
  scrape's time; a **partial** scrape (a recorded excerpt, a filtered capture, a live fetch
  with parts that failed alone) says nothing about the offers it does not list: they stay open
  and their ``last_seen_at`` stays where it was;
- a failed scrape is never applied, so its provider's offers stay open (not seen is not gone);
- a price the source announces from a later date is the offer's next interval from that date,
  ``announced`` until a scrape sees it in force (``warehouse.announcements``: repeated,
  withdrawn, confirmed, changed back; docs/history.md "Announced prices");
- a scrape older than the provider's newest history point (a change, an end, a confirmation)
  only adds observations (history is built forward in time); re-applying a scrape writes
  nothing.

``apply_batch`` applies any number of scrapes (of any providers) in one pass: the hourly pipeline
passes one scrape, the scale generator a day of them, the importers a whole dataset's sessions
under their own ``source``. Each source keeps its own intervals, so imported history never
closes or reopens scraped intervals.

Also here: the incremental refresh of the rollups (``warehouse/rollups/*.sql``, the daily
rollup) and the retention of raw observations, both run by every build (``warehouse.derive``).
The daily rollup feeds a day only with prices observed
within their kind's shelf life (``warehouse.shelf_life``) and not judged suspect; a successful
scrape observes the prices it sees unchanged without writing history, so it marks the rollup
dirty from its day on all the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import duckdb

from warehouse import announcements
from warehouse.analysis import create_upstream_views
from warehouse.graph import graph
from warehouse.history_sql import (
    BATCH_TABLE,
    COUNTS_SQL,
    OBSERVED_TABLE,
    OPEN_SQL,
    RUNS_SQL,
    SEQUENCE_SQL,
    UPDATE_OPEN_SQL,
)
from warehouse.records import HISTORY_OBSERVATION_COLUMNS
from warehouse.records import IMPORT_PREFIX as IMPORT_PREFIX
from warehouse.records import SCRAPE_SOURCE as SCRAPE_SOURCE
from warehouse.shelf_life import shelf_lives

FULL, PARTIAL = "full", "partial"  # scrapes.coverage (migration 0016)
OBSERVED_SCRAPE = "_history_observed_scrape"  # the per-scrape path's copy of its observations
OBSERVED_COLUMNS = HISTORY_OBSERVATION_COLUMNS  # records.HistoryObservation


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None) -> Any:
    rows = con.execute(sql, params or []).fetchall()  # read to the end: see batch.arrow_temp_table
    return rows[0][0] if rows else None


def apply_batch(
    con: duckdb.DuckDBPyConnection,
    *,
    source: str = SCRAPE_SOURCE,
    observed: str = OBSERVED_TABLE,
    announced: str | None = None,
) -> dict[str, int]:
    """Apply the scrapes in ``BATCH_TABLE`` (rows in ``observed``, their announced prices in
    ``announced``: ``records.Announcement`` rows, or None) to ``offer_history``.

    Runs inside the caller's transaction. Returns counts: ``opened`` (new intervals),
    ``closed`` (intervals given a ``valid_to``), ``confirmed`` (open intervals whose
    ``last_seen_at`` advanced, nothing else changing), ``out_of_order`` (scrapes older than
    their provider's newest history point, not applied), and the announced intervals'
    ``announced``, ``withdrawn`` and ``announced_confirmed`` (``warehouse.announcements``).
    The work is proportional to the batch times its providers' open intervals; the only reads
    of closed history are two column scans of ``offer_history`` (its newest point per
    provider, its open intervals).
    """
    # announced prices: a step of their own around the interval rules (warehouse.announcements)
    announcements.retract(con, source=source, batch=BATCH_TABLE)
    con.execute(SEQUENCE_SQL, {"source": source})
    batch, in_order, first_scrape = con.execute(
        f"select (select count(*) from {BATCH_TABLE}), (select count(*) from _history_seq),"
        f" (select min(observed_at) from {BATCH_TABLE})"
    ).fetchall()[0]
    if source == SCRAPE_SOURCE and first_scrape is not None:
        # a successful scrape confirms every price it saw unchanged, which keeps those prices
        # fresh in the rollup from its day on, even when it writes no interval
        mark_dirty(con, first_scrape)
    counts = {"opened": 0, "closed": 0, "confirmed": 0, "out_of_order": int(batch - in_order)}
    observed = announcements.add_states(con, observed=observed, announced=announced)
    keep_scrape_id = source == SCRAPE_SOURCE
    if _one(con, "select count(*) from _history_seq"):
        counts.update(_apply_intervals(con, source=source, observed=observed))
    return announcements.settle(con, counts, source=source, keep_scrape_id=keep_scrape_id)


def _apply_intervals(
    con: duckdb.DuckDBPyConnection, *, source: str, observed: str
) -> dict[str, int]:
    """The interval rules (``warehouse.history_sql``) over ``_history_seq``: counts."""
    con.execute(RUNS_SQL.format(observed=observed), {"source": source})
    closed, closed_open, first_change = con.execute(COUNTS_SQL).fetchall()[0]
    updated = int(_one(con, UPDATE_OPEN_SQL, {"source": source}) or 0)
    counts = {"closed": int(closed), "confirmed": updated - int(closed_open), "opened": 0}
    if first_change is None:
        return counts
    opened_params = {"source": source, "keep_scrape_id": source == SCRAPE_SOURCE}
    counts["opened"] = int(_one(con, OPEN_SQL.format(observed=observed), opened_params) or 0)
    mark_dirty(con, first_change)
    return counts


def apply_scrape_history(
    con: duckdb.DuckDBPyConnection,
    *,
    scrape_id: str,
    provider: str,
    observed_at: datetime,
    coverage: str = FULL,
) -> dict[str, int]:
    """``apply_batch`` for one scrape whose observations are already in ``observations``.

    ``coverage``: 'full' (the scrape lists every offer of its provider) or 'partial'."""
    con.execute(
        f"create or replace temp table {BATCH_TABLE} as"
        " select ?::varchar as scrape_id, ?::varchar as provider, ?::timestamptz as observed_at,"
        " ?::varchar as coverage",
        [scrape_id, provider, observed_at, coverage],
    )
    # a constant filter is pushed into the scan: one pass over the retained observations
    con.execute(
        f"create or replace temp table {OBSERVED_SCRAPE} as"
        f" select {', '.join(OBSERVED_COLUMNS)} from observations where scrape_id = ?",
        [scrape_id],
    )
    announced = announcements.of_scrape(con, scrape_id)
    return apply_batch(con, source=SCRAPE_SOURCE, observed=OBSERVED_SCRAPE, announced=announced)


def _utc_day(value: datetime | date) -> date:
    if isinstance(value, datetime):
        return value.astimezone(UTC).date()
    return value


def _rollups() -> list[str]:
    return [obj.name for obj in graph().of_kind("rollup")]


def mark_dirty(con: duckdb.DuckDBPyConnection, since: datetime | date) -> None:
    """Record that history changed from ``since`` on: the next refresh of every rollup redoes
    those days."""
    day = _utc_day(since)
    con.execute(
        "update history_rollup_state set dirty_from = least(coalesce(dirty_from, ?), ?)"
        " where list_contains(?, rollup)",
        [day, day, _rollups()],
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
    rollups: tuple[str, ...] | None = None,
) -> RollupRefresh:
    """Bring ``rollups`` (default: every ``warehouse/rollups/*.sql``, in graph order; the daily
    rollup ``daily_provider_prices``) up to date, inside the caller's transaction.

    Redoes the days from the earliest of: the first day history changed since the last refresh
    (a new interval or a successful scrape, which confirms prices), the first day of an interval
    whose plausibility verdict was written since, and the last refreshed day (open intervals
    have grown into it since). Everything when ``full``, never refreshed, or built with other
    shelf lives. Open intervals count as valid until ``now`` (default: the wall clock, UTC).
    ``shelf_life_days``: each kind of price's shelf life in days (``warehouse.shelf_life``
    kind names -> days over its defaults; ``GPUPRICES_SHELF_LIFE_DAYS_*``); raises
    ``ValueError`` for an unknown kind or a negative figure. Several rollups: the first day
    redone of any, and the rows of all.
    """
    now = now or datetime.now(UTC)
    today = _utc_day(now)
    lives, built_with = _built_with(shelf_life_days)
    starts: list[date] = []
    rows = 0
    for name in rollups if rollups is not None else _rollups():
        start = _rollup_start(con, name, full=full, built_with=built_with)
        if start is not None:
            starts.append(start)
            start_ts = datetime(start.year, start.month, start.day, tzinfo=UTC)
            create_upstream_views(con, name)  # e.g. the price_kind macro it classifies with
            con.execute(f"delete from {name} where day >= ?", [start])  # a file name
            params = {"start": start_ts, "now": now, "shelf_lives": lives}
            rows += int(_one(con, graph()[name].sql, params) or 0)
        con.execute(
            "update history_rollup_state set dirty_from = null, refreshed_through = ?,"
            " refreshed_at = ?, shelf_life_days = ? where rollup = ?",
            [today, now, built_with, name],
        )
    return RollupRefresh(min(starts, default=None), today, rows)


def _rollup_start(
    con: duckdb.DuckDBPyConnection, name: str, *, full: bool, built_with: str
) -> date | None:
    """The first day the rollup ``name`` must redo (None: history is empty). A rollup new to
    the warehouse gets its row in ``history_rollup_state`` here, so it is built whole."""
    con.execute(
        "insert into history_rollup_state (rollup) values (?) on conflict do nothing", [name]
    )
    dirty_from, refreshed_through, refreshed_at, built = con.execute(
        "select dirty_from, refreshed_through, refreshed_at, shelf_life_days"
        " from history_rollup_state where rollup = ?",
        [name],
    ).fetchone() or (None, None, None, None)
    if full or refreshed_through is None or built != built_with:
        first = _one(con, "select min(valid_from) from offer_history")
        return _utc_day(first) if first is not None else None
    screened = _screened_since(con, refreshed_at) if refreshed_at is not None else None
    return min(d for d in (dirty_from, refreshed_through, screened) if d is not None)


def retention_days(con: duckdb.DuckDBPyConnection, table: str = "observations") -> int | None:
    value = _one(con, "select keep_days from retention_policy where table_name = ?", [table])
    return int(value) if value is not None else None


# A successful scrape observed later than now plus this is dated in the future (the ingest's
# clock-skew bound, warehouse.quality, defaults to 300 s): it never moves the retention window.
FUTURE_TOLERANCE = timedelta(seconds=300)


# the scrapes current_offers serves offers from: after a scrape that skipped parts, the older
# ones that listed the offers it did not (models/current_offers.sql)
_SERVED = "union all select distinct scrape_id from current_offers"


def _has_current_offers(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(
        _one(
            con,
            "select count(*) from information_schema.tables where table_name = 'current_offers'",
            [],
        )
    )


def prune_observations(
    con: duckdb.DuckDBPyConnection, keep_days: int | None = None, *, now: datetime | None = None
) -> int:
    """Delete observations older than the retention window (inside the caller's transaction).

    The window ends at the newest successful scrape (data time, not the wall clock, so a replay
    of old captures keeps its last ``keep_days``) that is not dated after ``now`` (default the
    wall clock) plus ``FUTURE_TOLERANCE``: one scrape dated 2099 must not delete every real one
    (issue 15). Each provider's newest successful scrape, and its newest not in the future, is
    always kept because ``current_offers`` reads it, and so is every scrape ``current_offers``
    serves an offer from (after a scrape that skipped parts, the last one that listed each
    offer it did not). Returns the number of rows deleted.
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
            where status = 'success' and observed_at <= $latest group by provider
            {served})
        """.format(served=_SERVED if _has_current_offers(con) else ""),
        {"cutoff": cutoff, "latest": latest},
    )
    return int(deleted or 0)
