"""The history model on generated hourly scrapes (``tests.support.history_load``, which
benchmarks/history_scale.py runs at full scale):
intervals match the generator's ground truth, the batch path writes exactly what the per-scrape
pipeline path writes, the incremental rollup equals a full rebuild, and retention keeps what
current_offers needs."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import duckdb
import pytest

from tests.support.history_load import (
    hour_offers,
    load_day_batch,
    load_hour_per_scrape,
    setup,
    stage_day,
)
from tests.support.seeded import seeded_warehouse
from tests.support.synthetic_history import Generator, Rates
from warehouse.analysis import create_views
from warehouse.db import Warehouse
from warehouse.derive import rebuild
from warehouse.history import prune_observations, refresh_rollup
from warehouse.load import offer_id

# the file takes about 15 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=15)

START = datetime(2026, 1, 5, tzinfo=UTC)
BUSY = Rates(
    on_demand_change_per_day=0.3,
    reserved_change_per_day=0.2,
    spot_change_per_day=0.8,
    disappear_per_day=0.08,
    reappear_per_day=0.4,
    scrape_failure_per_hour=0.04,
    outage_per_day=0.15,
)
DAYS = 8


def _expected(
    gen: Generator, scrapes: dict[str, list[tuple[int, datetime]]]
) -> dict[str, list[tuple[datetime, datetime | None, Decimal]]]:
    """The intervals the history rules give for the generator's truth, computed directly:
    per provider, the offer's state at each successful scrape, run-length encoded."""
    out = {}
    for offer in gen.catalog:
        spans = gen.truth.get(offer.idx, [])
        intervals: list[list] = []
        current = None
        for hour, at in scrapes[offer.provider]:
            price = next((p for a, b, p in spans if a <= hour < b), None)
            if price != current:
                if current is not None:
                    intervals[-1][1] = at
                if price is not None:
                    intervals.append([at, None, price])
                current = price
        oid = offer_id(offer.provider, offer.instance_type, offer.region, offer.pricing, offer.term)
        digits = "0.01" if offer.price_unit == "month" else "0.001"
        out[oid] = [(a, b, Decimal(str(p)).quantize(Decimal(digits))) for a, b, p in intervals]
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory, seeded_template):
    gen = Generator(providers=3, offers=20, start=START, seed=3, rates=BUSY, record_truth=True)
    path = tmp_path_factory.mktemp("scale") / "w.duckdb"
    successes: dict[str, list[tuple[int, datetime]]] = defaultdict(list)
    with seeded_warehouse(seeded_template, path).connect() as con:
        setup(con, gen, seed=False)
        for n in range(DAYS):
            day = gen.next_day()
            stage_day(con, day)
            load_day_batch(con)
            con.execute("begin transaction")
            refresh_rollup(con, now=day.start + timedelta(days=1))
            con.execute("commit")
            for _, provider, _, hour, at, status in day.scrapes:
                if status == "success":
                    successes[provider].append((n * 24 + hour, at))
        create_views(con)
    return gen, path, successes


@pytest.fixture()
def con(generated):
    with Warehouse(generated[1]).connect() as connection:
        yield connection


def test_generated_history_matches_the_ground_truth(generated, con):
    gen, _, successes = generated
    expected = _expected(gen, successes)
    rows = con.execute(
        "select offer_id, valid_from, valid_to, price from offer_history"
        " order by offer_id, valid_from"
    ).fetchall()
    actual: dict[str, list] = defaultdict(list)
    for oid, start, end, price in rows:
        actual[oid].append((start, end, price))
    assert {k: v for k, v in expected.items() if v} == dict(actual)
    # the busy rates exercise every rule: changes, disappearances, returns, failed scrapes
    assert sum(len(v) for v in expected.values()) > 2 * len(gen.catalog)
    assert con.execute("select count(*) from scrapes where status = 'failed'").fetchone()[0] > 3


def test_intervals_of_an_offer_never_overlap(con):
    overlaps = con.execute("""
        select count(*) from (
            select valid_to, lead(valid_from) over (partition by offer_id, source
                                                    order by valid_from) as next_from
            from offer_history)
        where next_from is not null and (valid_to is null or valid_to > next_from)
    """).fetchone()
    assert overlaps == (0,)


def test_point_in_time_is_the_last_successful_scrape_of_each_provider(generated, con):
    gen, _, successes = generated
    at = START + timedelta(days=5, hours=7, minutes=40)
    rows = con.execute("select offer_id, price from offers_as_of(?)", [at]).fetchall()
    expected = {}
    hour_of = {o.idx: o for o in gen.catalog}
    for idx, offer in hour_of.items():
        done = [h for h, when in successes[offer.provider] if when <= at]
        price = next((p for a, b, p in gen.truth.get(idx, []) if a <= done[-1] < b), None)
        if price is not None:
            digits = "0.01" if offer.price_unit == "month" else "0.001"
            expected[
                offer_id(
                    offer.provider, offer.instance_type, offer.region, offer.pricing, offer.term
                )
            ] = Decimal(str(price)).quantize(Decimal(digits))
    assert dict(rows) == expected


def test_loading_a_day_again_changes_nothing(con):
    before = con.execute("select * from offer_history order by all").fetchall()
    scrapes = con.execute("select count(*) from scrapes").fetchone()
    replay = Generator(providers=3, offers=20, start=START, seed=3, rates=BUSY)
    setup(con, replay)
    stage_day(con, replay.next_day())
    counts = load_day_batch(con)
    # successful scrapes are skipped; failed ones are retried (and fail again), as with
    # load.start_scrape
    assert counts["opened"] == counts["closed"] == counts["observations"] == 0
    assert con.execute("select * from offer_history order by all").fetchall() == before
    assert con.execute("select count(*) from scrapes").fetchone() == scrapes


def test_incremental_rollup_equals_a_full_rebuild(generated, con):
    end = START + timedelta(days=DAYS)
    incremental = con.execute("select * from daily_provider_prices order by all").fetchall()
    con.execute("begin transaction")
    refresh_rollup(con, now=end, full=True)
    full = con.execute("select * from daily_provider_prices order by all").fetchall()
    con.execute("rollback")
    assert incremental == full and len(full) > DAYS


def test_rollup_agrees_with_the_daily_offer_prices_view(con):
    end = START + timedelta(days=DAYS)
    view = con.execute(
        """
        select day, provider, gpu_id, pricing,
               round(min(min_price_per_hour_usd / gpu_count), 6)::decimal(18, 6) as low
        from daily_offer_prices
        where day < ?
        group by all order by all""",
        [end.date()],
    ).fetchall()
    rollup = con.execute("""
        select day, provider, gpu_id, pricing, min_usd_per_gpu_hour
        from daily_provider_prices order by all""").fetchall()
    assert view == rollup


def test_batch_and_per_scrape_paths_write_the_same_history(tmp_path, seeded_template):
    rates = BUSY
    histories = []
    for name, per_scrape in (("batch", False), ("per-scrape", True)):
        gen = Generator(providers=2, offers=8, start=START, seed=11, rates=rates)
        with seeded_warehouse(seeded_template, tmp_path / f"{name}.duckdb").connect() as con:
            setup(con, gen, seed=False)
            for _ in range(1):
                stage_day(con, gen.next_day())
                if per_scrape:
                    for hour in range(24):
                        load_hour_per_scrape(con, hour_offers(con, hour))
                else:
                    load_day_batch(con)
            histories.append(
                con.execute(
                    "select * exclude (scrape_id) from offer_history order by all"
                ).fetchall()
            )
            # observations too, apart from the scrape ids
            histories.append(
                con.execute(
                    "select * exclude (scrape_id) from observations order by all"
                ).fetchall()
            )
    assert histories[0] == histories[2] and len(histories[0]) > 16
    assert histories[1] == histories[3]


def test_batch_load_reads_every_offer_when_prices_need_an_exchange_rate(
    tmp_path, monkeypatch, seeded_template
):
    # provider 14 of the generator quotes EUR: looking its rate up on the loader's connection
    # once ended the batch's offer stream after its first chunk (offers went missing, their
    # intervals closed); chunks of 10 rows make a small batch span many
    fetchmany = duckdb.DuckDBPyConnection.fetchmany
    monkeypatch.setattr(
        duckdb.DuckDBPyConnection, "fetchmany", lambda self, size=1: fetchmany(self, min(size, 10))
    )
    observed = []
    for name, per_scrape in (("batch", False), ("per-scrape", True)):
        gen = Generator(providers=15, offers=4, start=START, seed=5)
        with seeded_warehouse(seeded_template, tmp_path / f"{name}.duckdb").connect() as con:
            setup(con, gen, seed=False)
            stage_day(con, gen.next_day())
            if per_scrape:
                for hour in range(3):
                    load_hour_per_scrape(con, hour_offers(con, hour))
            else:
                load_day_batch(con, range(0, 3))
            observed.append(
                con.execute(
                    "select * exclude (scrape_id) from observations order by all"
                ).fetchall()
            )
            staged = con.execute(
                "select count(*) from _gen_offers where scrape_id in"
                " (select scrape_id from _gen_scrapes where hour < 3)"
            ).fetchall()[0][0]
            assert len(observed[-1]) == staged
            assert any(r[14] == "EUR" for r in observed[-1])  # currency
    assert observed[0] == observed[1]


def test_retention_keeps_the_window_and_each_providers_newest_scrape(generated, tmp_path):
    path = generated[1]
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(path.read_bytes())
    with Warehouse(copy).connect() as con:
        con.execute("update retention_policy set keep_days = 2 where table_name = 'observations'")
        newest = con.execute(
            "select max(observed_at) from scrapes where status = 'success'"
        ).fetchall()[0][0]
        history = con.execute("select count(*) from offer_history").fetchone()
        con.execute("begin transaction")
        deleted = prune_observations(con)
        con.execute("commit")
        assert deleted > 0
        oldest = con.execute(
            "select min(observed_at) from observations"
            " where scrape_id not in (select arg_max(scrape_id, observed_at)"
            " from scrapes where status = 'success' group by provider)"
        ).fetchall()[0][0]
        assert oldest >= newest - timedelta(days=2)
        assert con.execute("select count(*) from offer_history").fetchone() == history
        rebuild(con, now=newest)
        scraped = {
            r[0]
            for r in con.execute(
                "select offer_id from current_offers where provider like 'gen%'"
            ).fetchall()
        }
        as_of = {
            r[0] for r in con.execute("select offer_id from offers_as_of(?)", [newest]).fetchall()
        }
        assert scraped == as_of and scraped
