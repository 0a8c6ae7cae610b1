"""market_index and the daily rollup compare like with like, on constructed histories.

Scrapes are written to ``scrapes`` and applied to ``offer_history`` through the history code
itself (``history.apply_batch``), at noon UTC of the days named; the rollup is refreshed and the
views created as after every ingestion. One GPU model, on-demand unless said, one GPU per
offer, USD per hour. The replayed captures are in test_market_index_replay.py.
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
from warehouse.settings import Settings

# the file takes about 17 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=17)

DAY1 = date(2026, 3, 2)
GPU = "h100-sxm"
# on-demand prices kept for 30 days instead of the default 180, so that tests stay short
SHORT_SHELF_LIFE = {"on_demand": 30.0}


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


def scrape(
    con,
    provider: str,
    day: int,
    prices: dict[str, str],
    *,
    status: str = "success",
    pricing: str = "on_demand",
) -> str:
    """One scrape of ``provider`` at noon of ``day`` listing ``prices`` (instance type -> USD
    per GPU-hour, all of ``pricing``); a successful one is applied to history. Returns its
    scrape id."""
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
        " decimal(18, 6), price_unit varchar, price_per varchar, price_per_hour decimal(18, 6),"
        " cloud_tier varchar)"
    )
    for instance_type, price in prices.items():
        con.execute(
            f"insert into {OBSERVED_TABLE} ({', '.join(OBSERVED_COLUMNS)})"
            " values (?, ?, ?, ?, 'global', ?, null, 'H100 SXM', ?, 1, ?, 'USD', ?, false, ?,"
            " 'hour', 'gpu', ?, null)",
            [
                sid,
                _offer_id(provider, instance_type),
                provider,
                instance_type,
                pricing,
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
    con, until_day: int, *, full: bool = False, shelf_life_days: dict | None = None
) -> None:
    """The rollup and the views as after an ingestion whose clock reads the end of a day
    (shelf lives: the defaults, 180 days for on-demand prices, over ``shelf_life_days``)."""
    end = _noon(until_day) + timedelta(hours=11)
    con.execute("begin transaction")
    refresh_rollup(con, now=end, full=full, shelf_life_days=shelf_life_days)
    con.execute("commit")
    create_views(con)


def index(con, gpu_id: str = GPU) -> dict[date, float]:
    """day -> price_index of the days the index is published (not null)."""
    return dict(
        con.execute(
            "select day, price_index from market_index"
            " where gpu_id = ? and pricing = 'on_demand' and price_index is not null"
            " order by day",
            [gpu_id],
        ).fetchall()
    )


def index_days(con, gpu_id: str = GPU) -> dict[date, float | None]:
    """day -> price_index (None where null) of every day with prices."""
    return dict(
        con.execute(
            "select day, price_index from market_index"
            " where gpu_id = ? and pricing = 'on_demand' and provider_count > 0 order by day",
            [gpu_id],
        ).fetchall()
    )


def daily(con, pricing: str = "on_demand") -> dict[date, tuple]:
    """day -> (min, median, max, provider_count) of daily_gpu_prices."""
    return {
        r[0]: tuple(r[1:])
        for r in con.execute(
            "select day, min_usd_per_gpu_hour, median_usd_per_gpu_hour, max_usd_per_gpu_hour,"
            " provider_count from daily_gpu_prices where gpu_id = ? and pricing = ?",
            [GPU, pricing],
        ).fetchall()
    }


def test_index_flat_when_only_provider_mix_changes(con):
    # alpha and beta keep their prices; gamma joins far below on day 3, beta leaves on day 5
    # (its scrape succeeds without the offer), delta is listed on day 4 only
    for day in range(1, 8):
        scrape(con, "alpha", day, {"1x": "3.00", "8x": "2.80"})
        scrape(con, "beta", day, {"1x": "4.00"} if day < 5 else {})
        if day >= 3:
            scrape(con, "gamma", day, {"1x": "1.50"})
        if day in (4, 5):
            scrape(con, "delta", day, {"1x": "0.90"} if day == 4 else {})
    refresh(con, 7)
    assert index_days(con) == {_day(d): 100.0 for d in range(1, 8)}
    assert index_days(con, "all") == {_day(d): 100.0 for d in range(1, 8)}
    # while the price level moves with the mix
    # (each provider's cheapest: alpha 2.80, beta 4.00, gamma 1.50, delta 0.90; beta and delta
    # still price day 5, until their scrapes at noon)
    medians = [daily(con)[_day(d)][1] for d in range(1, 8)]
    assert medians == [Decimal(m) for m in ("3.40", "3.40", "2.80", "2.15", "2.15", "2.15", "2.15")]
    matched = con.execute(
        "select day, matched_offer_count, matched_provider_count from market_index"
        " where gpu_id = ? and pricing = 'on_demand' order by day",
        [GPU],
    ).fetchall()
    assert matched[0] == (_day(1), 0, 0)
    assert matched[3] == (_day(4), 4, 3)  # alpha x2, beta, gamma; delta is new
    assert matched[4] == (_day(5), 3, 2)  # beta is gone: alpha x2, gamma


def test_day_without_matched_pairs_is_null_not_100(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "beta", 2, {"1x": "2.00"})  # new: nothing to match
    # day 3: both prices are in force (180-day shelf life) but nobody was observed
    scrape(con, "alpha", 4, {"1x": "3.00"})
    refresh(con, 4)
    rows = con.execute(
        "select day, price_index, link_ratio, matched_offer_count, provider_count"
        " from market_index where gpu_id = ? and pricing = 'on_demand' order by day",
        [GPU],
    ).fetchall()
    assert rows == [
        (_day(1), 100.0, None, 0, 1),  # the base day
        (_day(2), None, None, 0, 2),
        (_day(3), None, None, 0, 2),
        (_day(4), 100.0, 1.0, 1, 2),  # alpha seen again, unchanged
    ]
    # the daily figures still price every day
    assert [daily(con)[_day(d)][3] for d in (1, 2, 3, 4)] == [1, 2, 2, 2]


def test_a_change_across_a_gap_in_observations_moves_the_index(con):
    # alpha is captured on day 1 and again on day 40, 10% dearer; beta on days 20 and 40
    scrape(con, "alpha", 1, {"1x": "3.00", "2x": "3.00"})
    scrape(con, "beta", 20, {"1x": "2.00"})
    scrape(con, "alpha", 40, {"1x": "3.30", "2x": "3.00"})
    scrape(con, "beta", 40, {"1x": "2.00"})
    refresh(con, 40)
    assert index(con) == {_day(1): 100.0, _day(40): pytest.approx(100 * 1.1 ** (1 / 3), abs=1e-4)}
    assert index_days(con)[_day(39)] is None
    # the chain continues from the last published level: a cut on day 41 links to day 40
    scrape(con, "alpha", 41, {"1x": "2.97", "2x": "3.00"})
    refresh(con, 41)
    assert index(con)[_day(41)] == pytest.approx(index(con)[_day(40)] * 0.9 ** (1 / 2), abs=1e-4)


def test_the_previous_observation_of_a_returning_offer_is_its_last_price(con):
    # alpha's offer disappears on day 2 (a successful scrape without it) and returns on day 30
    # at a new price: its change is measured against the price it had when last seen
    scrape(con, "alpha", 1, {"1x": "2.99", "2x": "2.00"})
    scrape(con, "alpha", 2, {"2x": "2.00"})
    scrape(con, "alpha", 30, {"1x": "3.49", "2x": "2.00"})
    refresh(con, 30)
    assert index(con)[_day(30)] == pytest.approx(100 * ((3.49 / 2.99) * 1.0) ** (1 / 2), abs=1e-4)


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


def test_the_link_is_the_geometric_mean_of_the_observed_relatives(con):
    scrape(con, "alpha", 1, {"1x": "4.00", "2x": "1.00"})
    scrape(con, "alpha", 2, {"1x": "1.00", "2x": "4.00"})  # relatives 1/4 and 4: mean 1
    scrape(con, "beta", 2, {"1x": "2.00"})
    scrape(con, "beta", 3, {"1x": "2.42"})
    scrape(con, "gamma", 2, {"1x": "5.00"})
    scrape(con, "gamma", 3, {"1x": "5.00"})
    refresh(con, 3)
    got = index(con)
    assert got[_day(2)] == 100.0
    # day 3: beta +21 % and gamma unchanged are observed; alpha's prices are still in force
    # but were not observed that day, so they are not in the link
    assert got[_day(3)] == pytest.approx(100 * 1.21 ** (1 / 2), abs=1e-4)


def test_a_suspect_interval_feeds_neither_the_index_nor_the_daily_figures(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "alpha", 2, {"1x": "3.00"})
    bad = scrape(con, "alpha", 3, {"1x": "0.30"})  # a placeholder, judged suspect
    mark_suspect(con, bad, _offer_id("alpha", "1x"))
    scrape(con, "alpha", 4, {"1x": "3.00"})
    scrape(con, "alpha", 5, {"1x": "3.00"})
    refresh(con, 5)
    # day 3 observed only the suspect price: no link that day; day 4 links to day 2's 3.00
    assert index_days(con) == {
        _day(1): 100.0,
        _day(2): 100.0,
        _day(3): None,
        _day(4): 100.0,
        _day(5): 100.0,
    }
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


def test_a_price_past_its_shelf_life_does_not_feed_a_day(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "beta", 1, {"1x": "2.00"})
    for day in range(2, 41):
        scrape(con, "alpha", day, {"1x": "3.00"})
        scrape(con, "beta", day, {}, status="failed")  # not seen is not gone: stays open
    refresh(con, 40, shelf_life_days=SHORT_SHELF_LIFE)
    days = daily(con)
    # beta was observed at noon of day 1: it feeds every day that begins at most 30 days
    # later, i.e. through day 31
    assert days[_day(31)][3] == 2 and days[_day(32)][3] == 1
    assert days[_day(32)][:3] == (Decimal("3.00"),) * 3
    assert con.execute(
        "select max(day) from daily_provider_prices where provider = 'beta'"
    ).fetchone() == (_day(31),)
    # beta's price expiring is a provider leaving: the index does not move
    assert set(index(con).values()) == {100.0}


def test_rollup_uses_shelf_life_per_price_kind(con):
    # one observation on day 1 of each kind of price, then only failed scrapes
    con.execute(
        "insert into provider_facts (provider, name, kind, facts_as_of, source_urls)"
        " values ('bazaar', 'Bazaar', 'marketplace', date '2026-01-01', 'https://example.org')"
    )
    scrape(con, "alpha", 1, {"1x": "3.00"})  # on_demand: 180 days
    scrape(con, "alpha-spot", 1, {"1x": "1.00"}, pricing="spot")  # 30 days
    scrape(con, "alpha-dyn", 1, {"1x": "2.00"}, pricing="dynamic")  # 2 days
    scrape(con, "alpha-res", 1, {"1x": "2.50"}, pricing="reserved")  # 180 days
    scrape(con, "bazaar", 1, {"1x": "1.80"})  # a marketplace's on-demand listing: 30 days
    for provider in ("alpha", "alpha-spot", "alpha-dyn", "alpha-res", "bazaar"):
        scrape(con, provider, 2, {}, status="failed")
    refresh(con, 200)

    def last_day(provider: str) -> date:
        row = con.execute(
            "select max(day) from daily_provider_prices where provider = ?", [provider]
        ).fetchone()
        assert row is not None
        return row[0]

    # observed at noon of day 1: a price of shelf life L feeds the days that begin at most
    # L days later
    assert last_day("alpha-dyn") == _day(3)
    assert last_day("alpha-spot") == _day(31)
    assert last_day("bazaar") == _day(31)
    assert last_day("alpha") == _day(181)
    assert last_day("alpha-res") == _day(181)
    # the medians follow: on day 100 the on-demand market is alpha alone
    assert daily(con)[_day(31)][3] == 2 and daily(con)[_day(32)][3] == 1
    assert max(daily(con, "dynamic")) == _day(3)
    # a changed shelf life rebuilds every day, even on an incremental refresh
    refresh(con, 200, shelf_life_days={"dynamic": 5.0, "on_demand": 10.0})
    assert last_day("alpha-dyn") == _day(6)
    assert last_day("alpha") == _day(11)
    assert last_day("bazaar") == _day(31)
    assert con.execute(
        "select shelf_life_days from history_rollup_state where rollup = 'daily_provider_prices'"
    ).fetchone() == (
        '{"dynamic": 5.0, "marketplace": 30.0, "on_demand": 10.0, "reserved": 180.0,'
        ' "serverless": 180.0, "spot": 30.0}',
    )


def test_a_price_seen_again_after_a_gap_feeds_only_the_days_near_an_observation(con):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    scrape(con, "alpha", 61, {"1x": "3.00"})  # unchanged: one open interval, no new row
    refresh(con, 65, shelf_life_days=SHORT_SHELF_LIFE)
    assert con.execute("select count(*) from offer_history").fetchone() == (1,)
    fed = {
        r[0]
        for r in con.execute(
            "select day from daily_provider_prices where provider = 'alpha'"
        ).fetchall()
    }
    assert fed == {_day(d) for d in [*range(1, 32), *range(61, 66)]}
    # and links day 61 to day 1
    assert index_days(con)[_day(61)] == 100.0
    assert index_days(con)[_day(62)] is None


def test_the_shelf_life_is_read_from_the_environment(con, monkeypatch):
    scrape(con, "alpha", 1, {"1x": "3.00"})
    refresh(con, 20)
    assert len(daily(con)) == 20
    monkeypatch.setenv("GPUPRICES_SHELF_LIFE_DAYS_ON_DEMAND", "10")
    refresh(con, 20, shelf_life_days=Settings.load().shelf_life_days())
    assert max(daily(con)) == _day(11)


def test_the_incremental_rollup_equals_a_full_rebuild(con):
    # the clock stays at day 90 while old history arrives, as in a replay of old captures
    def both(until: int) -> None:
        refresh(con, until, shelf_life_days=SHORT_SHELF_LIFE)

    scrape(con, "alpha", 1, {"1x": "3.00", "2x": "6.00"})
    scrape(con, "beta", 1, {"1x": "2.00"})
    both(90)
    scrape(con, "alpha", 2, {"1x": "2.70", "2x": "6.00"})
    both(90)
    # an unchanged scrape writes no history but observes alpha's prices again
    scrape(con, "alpha", 50, {"1x": "2.70", "2x": "6.00"})
    both(90)
    beta = scrape(con, "beta", 51, {"1x": "2.20"})
    both(90)
    # a change after a gap: linked to the price before it, across the refreshed days
    scrape(con, "alpha", 60, {"1x": "2.97", "2x": "6.00"})
    both(90)
    # a verdict written after the rollup was built
    mark_suspect(con, beta, _offer_id("beta", "1x"), at=_noon(90) + timedelta(hours=11))
    both(90)
    incremental = con.execute("select * from daily_provider_prices order by all").fetchall()
    refresh(con, 90, full=True, shelf_life_days=SHORT_SHELF_LIFE)
    assert con.execute("select * from daily_provider_prices order by all").fetchall() == (
        incremental
    )
    assert {r[0] for r in incremental if r[1] == "alpha"} >= {_day(50), _day(79)}
    assert all(r[1] != "beta" or r[0] <= _day(31) for r in incremental)
    # alpha's 1x went 2.70 -> 2.97 between its observations of days 50 and 60
    assert [(r[8], r[9]) for r in incremental if r[1] == "alpha" and r[0] == _day(60)] == [
        (2, Decimal("0.095310179804"))
    ]
