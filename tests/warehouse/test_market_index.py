"""market_index and the daily rollup compare like with like, on constructed histories.

Scrapes are written to ``scrapes`` and applied to ``offer_history`` through the history code
itself (``history.apply_batch``), once a day at noon UTC; the rollup is refreshed and the views
created as after every ingestion. One GPU model, on-demand, one GPU per offer, USD per hour.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from warehouse.analysis import create_views
from warehouse.db import Warehouse
from warehouse.history import (
    BATCH_TABLE,
    OBSERVED_COLUMNS,
    OBSERVED_TABLE,
    apply_batch,
    refresh_rollup,
)
from warehouse.quality import OFFER_STALE_AFTER_ENV
from warehouse.settings import Settings

DAY1 = date(2026, 3, 2)
GPU = "h100-sxm"
STALE_AFTER_DAYS = 30.0


def _noon(day: int) -> datetime:
    """Noon UTC of day ``day`` (1 = DAY1)."""
    d = DAY1 + timedelta(days=day - 1)
    return datetime(d.year, d.month, d.day, 12, tzinfo=UTC)


def _day(day: int) -> date:
    return DAY1 + timedelta(days=day - 1)


def _offer_id(provider: str, instance_type: str) -> str:
    return f"{provider}:{instance_type}"


@pytest.fixture
def con(tmp_path):
    with Warehouse(tmp_path / "w.duckdb").connect() as con:
        yield con


def scrape(con, provider: str, day: int, prices: dict[str, str], *, status: str = "success") -> str:
    """One scrape of ``provider`` at noon of ``day`` listing ``prices`` (instance type -> USD
    per GPU-hour); a successful one is applied to history. Returns its scrape id."""
    at = _noon(day)
    sid = f"{provider}-{day}"
    con.execute(
        "insert into scrapes (scrape_id, provider, mode, source, started_at, finished_at,"
        " observed_at, status, offer_count) values (?, ?, 'replay', 'test', ?, ?, ?, ?, ?)",
        [sid, provider, at, at, at if status == "success" else None, status, len(prices)],
    )
    if status != "success":
        return sid
    con.execute(
        f"create or replace temp table {BATCH_TABLE} as select ?::varchar as scrape_id,"
        " ?::varchar as provider, ?::timestamptz as observed_at, 'full' as coverage",
        [sid, provider, at],
    )
    con.execute(
        f"create or replace temp table {OBSERVED_TABLE} ("
        " scrape_id varchar, offer_id varchar, provider varchar, instance_type varchar,"
        " region varchar, pricing varchar, reserved_term_months integer, gpu_name_provider varchar,"
        " gpu_id varchar, gpu_count decimal(10, 4), price decimal(18, 9), currency varchar,"
        " price_per_hour_usd decimal(18, 6), serverless boolean, price_per_gpu_hour_usd"
        " decimal(18, 6), price_unit varchar, price_per varchar, price_per_hour decimal(18, 6))"
    )
    for instance_type, price in prices.items():
        con.execute(
            f"insert into {OBSERVED_TABLE} ({', '.join(OBSERVED_COLUMNS)})"
            " values (?, ?, ?, ?, 'global', 'on_demand', null, 'H100 SXM', ?, 1, ?, 'USD', ?,"
            " false, ?, 'hour', 'gpu', ?)",
            [
                sid,
                _offer_id(provider, instance_type),
                provider,
                instance_type,
                GPU,
                Decimal(price),
                Decimal(price),
                Decimal(price),  # one GPU: the instance price is the GPU's
                Decimal(price),
            ],
        )
    apply_batch(con)
    return sid


def mark_suspect(con, scrape_id: str, offer_id: str, *, at: datetime | None = None) -> None:
    con.execute(
        "insert into price_screens values (?, ?, ?, 'suspect', ?, ?)",
        [
            scrape_id,
            offer_id,
            offer_id.split(":")[0],
            '[{"code": "below_market", "detail": "test"}]',
            at or datetime.now(UTC),
        ],
    )


def refresh(
    con, until_day: int, *, full: bool = False, stale_after_days: float = STALE_AFTER_DAYS
) -> None:
    """The rollup and the views as after an ingestion whose clock reads the end of a day."""
    end = _noon(until_day) + timedelta(hours=11)
    con.execute("begin transaction")
    refresh_rollup(con, now=end, full=full, stale_after_days=stale_after_days)
    con.execute("commit")
    create_views(con)


def index(con, gpu_id: str = GPU) -> dict[date, float]:
    return dict(
        con.execute(
            "select day, price_index from market_index"
            " where gpu_id = ? and pricing = 'on_demand' and price_index is not null"
            " order by day",
            [gpu_id],
        ).fetchall()
    )


def daily(con) -> dict[date, tuple]:
    """day -> (min, median, max, provider_count) of daily_gpu_prices."""
    return {
        r[0]: tuple(r[1:])
        for r in con.execute(
            "select day, min_usd_per_gpu_hour, median_usd_per_gpu_hour, max_usd_per_gpu_hour,"
            " provider_count from daily_gpu_prices where gpu_id = ? and pricing = 'on_demand'",
            [GPU],
        ).fetchall()
    }


def test_a_provider_joining_at_a_lower_price_leaves_the_index_flat(con):
    for day in (1, 2, 3, 4):
        scrape(con, "alpha", day, {"1x": "3.00"})
        if day >= 3:
            scrape(con, "beta", day, {"1x": "2.00"})
    refresh(con, 4)
    assert index(con) == {_day(d): 100.0 for d in (1, 2, 3, 4)}
    assert index(con, "all") == {_day(d): 100.0 for d in (1, 2, 3, 4)}
    # the price level does move: the cheaper provider pulls the median down
    assert daily(con)[_day(2)][1] == Decimal("3.00")
    assert daily(con)[_day(3)][1] == Decimal("2.50")
    rows = con.execute(
        "select day, matched_offer_count, provider_count from market_index"
        " where gpu_id = ? and pricing = 'on_demand' order by day",
        [GPU],
    ).fetchall()
    assert rows == [(_day(1), 0, 1), (_day(2), 1, 1), (_day(3), 1, 2), (_day(4), 2, 2)]


def test_a_provider_leaving_leaves_the_index_flat(con):
    for day in (1, 2, 3, 4, 5):
        scrape(con, "alpha", day, {"1x": "3.00"})
        # beta's scrape of day 3 succeeds without the offer: its interval closes at noon of
        # day 3, so beta still prices day 3 and is gone from day 4
        scrape(con, "beta", day, {"1x": "2.00"} if day < 3 else {})
    refresh(con, 5)
    assert index(con) == {_day(d): 100.0 for d in (1, 2, 3, 4, 5)}
    assert [daily(con)[_day(d)][3] for d in (1, 2, 3, 4, 5)] == [2, 2, 2, 1, 1]
    assert daily(con)[_day(4)][1] == Decimal("3.00")  # while the median jumps


def test_a_matched_offer_cut_by_10_percent_moves_the_index_by_exactly_minus_10_percent(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "alpha", 2, {"1x": "3.00"})
    scrape(con, "alpha", 3, {"1x": "2.70"})
    # a provider entering on the same day, far below, does not dilute or add to the move
    scrape(con, "beta", 3, {"1x": "1.50"})
    scrape(con, "alpha", 4, {"1x": "2.70"})
    scrape(con, "beta", 4, {"1x": "1.50"})
    refresh(con, 4)
    # day 3: alpha's interval at 3.00 covers the morning, the cut one the afternoon: the
    # day's price is its last interval's
    assert index(con) == {_day(1): 100.0, _day(2): 100.0, _day(3): 90.0, _day(4): 90.0}
    assert index(con, "all")[_day(3)] == 90.0
    link = con.execute(
        "select link_ratio, matched_offer_count from market_index"
        " where gpu_id = ? and pricing = 'on_demand' and day = ?",
        [GPU, _day(3)],
    ).fetchone()
    assert link == (0.9, 1)


def test_the_link_is_the_geometric_mean_of_the_matched_relatives(con):
    scrape(con, "alpha", 1, {"1x": "4.00", "2x": "1.00"})
    scrape(con, "alpha", 2, {"1x": "1.00", "2x": "4.00"})  # relatives 1/4 and 4: mean 1
    scrape(con, "beta", 2, {"1x": "2.00"})
    scrape(con, "beta", 3, {"1x": "2.42"})  # alpha's prices go stale only after 30 days
    refresh(con, 3)
    got = index(con)
    assert got[_day(2)] == 100.0
    assert got[_day(3)] == pytest.approx(100 * (1.21) ** (1 / 3), abs=1e-4)


def test_a_suspect_interval_feeds_neither_the_index_nor_the_daily_figures(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "alpha", 2, {"1x": "3.00"})
    bad = scrape(con, "alpha", 3, {"1x": "0.30"})  # a placeholder, judged suspect
    mark_suspect(con, bad, _offer_id("alpha", "1x"))
    scrape(con, "alpha", 4, {"1x": "3.00"})
    scrape(con, "alpha", 5, {"1x": "3.00"})
    refresh(con, 5)
    assert index(con) == {_day(d): 100.0 for d in (1, 2, 3, 4, 5)}
    assert daily(con)[_day(3)][:3] == (Decimal("3.00"),) * 3
    assert daily(con)[_day(4)][:3] == (Decimal("3.00"),) * 3
    # it stays in history and in the per-offer view
    assert con.execute(
        "select count(*) from offer_history where scrape_id = ? and price = 0.30", [bad]
    ).fetchone() == (1,)
    assert con.execute(
        "select min(min_price_per_hour_usd) from daily_offer_prices where day = ?", [_day(3)]
    ).fetchone() == (Decimal("0.30"),)
    # without the verdict the placeholder would cut the index tenfold for a day
    con.execute("delete from price_screens")
    refresh(con, 5, full=True)
    assert index(con)[_day(3)] == 10.0  # day 3 closes at 0.30 ...
    assert index(con)[_day(4)] == 100.0  # ... and day 4 at 3.00 again


def test_a_price_older_than_the_threshold_does_not_feed_a_day(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "beta", 1, {"1x": "2.00"})
    for day in range(2, 41):
        scrape(con, "alpha", day, {"1x": "3.00"})
        scrape(con, "beta", day, {}, status="failed")  # not seen is not gone: stays open
    refresh(con, 40)
    days = daily(con)
    # beta was confirmed at noon of day 1: it feeds every day that begins at most 30 days
    # later, i.e. through day 31
    assert days[_day(31)][3] == 2 and days[_day(32)][3] == 1
    assert days[_day(32)][:3] == (Decimal("3.00"),) * 3
    assert con.execute(
        "select max(day) from daily_provider_prices where provider = 'beta'"
    ).fetchone() == (_day(31),)
    # beta going stale is a provider leaving: the index does not move
    assert set(index(con).values()) == {100.0}


def test_a_price_seen_again_after_a_gap_feeds_only_the_days_near_a_confirmation(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "alpha", 61, {"1x": "3.00"})  # unchanged: one open interval, no new row
    refresh(con, 65)
    assert con.execute("select count(*) from offer_history").fetchone() == (1,)
    fed = {
        r[0]
        for r in con.execute(
            "select day from daily_provider_prices where provider = 'alpha'"
        ).fetchall()
    }
    assert fed == {_day(d) for d in [*range(1, 32), *range(61, 66)]}


def test_the_threshold_is_read_from_the_environment(con, monkeypatch):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    refresh(con, 20)
    assert len(daily(con)) == 20
    monkeypatch.setenv(OFFER_STALE_AFTER_ENV, "10")
    # a changed threshold rebuilds every day, even on an incremental refresh
    refresh(con, 20, stale_after_days=Settings.load().stale_after_days)
    assert max(daily(con)) == _day(11)


def test_the_incremental_rollup_equals_a_full_rebuild(con):
    # the clock stays at day 90 while old history arrives, as in a replay of old captures
    scrape(con, "alpha", 1, {"1x": "3.00", "2x": "6.00"})
    scrape(con, "beta", 1, {"1x": "2.00"})
    refresh(con, 90)
    scrape(con, "alpha", 2, {"1x": "2.70", "2x": "6.00"})
    refresh(con, 90)
    # an unchanged scrape writes no history but confirms alpha's prices again
    scrape(con, "alpha", 50, {"1x": "2.70", "2x": "6.00"})
    refresh(con, 90)
    beta = scrape(con, "beta", 51, {"1x": "2.20"})
    refresh(con, 90)
    # a verdict written after the rollup was built
    mark_suspect(con, beta, _offer_id("beta", "1x"), at=_noon(90) + timedelta(hours=11))
    refresh(con, 90)
    incremental = con.execute("select * from daily_provider_prices order by all").fetchall()
    refresh(con, 90, full=True)
    assert con.execute("select * from daily_provider_prices order by all").fetchall() == (
        incremental
    )
    assert {r[0] for r in incremental if r[1] == "alpha"} >= {_day(50), _day(79)}
    assert all(r[1] != "beta" or r[0] <= _day(31) for r in incremental)
