"""Announced prices in history (issue 21, effective-dated prices): the Nebius page of 2026-09
announces HGX H100 on-demand at $4.50 per GPU-hour "Effective October 1, 2026", beside the
$3.85 in force. History stores it as the offer's next interval; later scrapes repeat, withdraw,
confirm or contradict it (docs/history.md, "Announced prices")."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from tests.support.seeded import seeded_warehouse
from warehouse.batch import commit_batch, prepare_batch
from warehouse.db import bulk_insert
from warehouse.load import commit_scrape, prepare, start_scrape
from warehouse.records import BATCH_SCRAPE_COLUMNS, SCRAPED_OFFER_COLUMNS, ScrapedOffer

# the file takes about 30 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=30)

SEP_01 = datetime(2026, 9, 1, tzinfo=UTC)  # the capture "c2026-09", observed at the month's start
SEP_15 = datetime(2026, 9, 15, tzinfo=UTC)
OCT_01 = datetime(2026, 10, 1, tzinfo=UTC)  # "GPU-hour (Effective October 1, 2026)"
NOV_01 = datetime(2026, 11, 1, tzinfo=UTC)
H100 = "NVIDIA HGX H100"
CURRENT, ANNOUNCED = Decimal("3.85"), Decimal("4.50")


def h100(when: datetime, price: Decimal = CURRENT, announced: Decimal | None = ANNOUNCED,
         start: datetime | None = OCT_01, count: int = 1) -> dict:  # fmt: skip
    return {
        "provider": "nebius",
        "instance_type": H100 if count == 1 else f"{count}x {H100}",
        "gpu_name": H100,
        "gpu_count": Decimal(count),
        "pricing": "on_demand",
        "price": price,
        "currency": "USD",
        "price_unit": "hour",
        "price_per": "gpu",
        "source_url": "https://nebius.com/prices",
        "observed_at": when,
        "announced_price": announced,
        "announced_from": start if announced is not None else None,
    }


def h200(when: datetime) -> dict:  # HGX H200 $4.50 -> $5.40 from 2026-10-01
    return {**h100(when, Decimal("4.50"), Decimal("5.40")), "instance_type": "NVIDIA HGX H200",
            "gpu_name": "NVIDIA HGX H200"}  # fmt: skip


@pytest.fixture()
def con(tmp_path, seeded_template):
    with seeded_warehouse(seeded_template, tmp_path / "w.duckdb").connect() as c:
        yield c


def scrape(con, sid: str, when: datetime, offers: list[dict], coverage: str = "full") -> dict:
    assert start_scrape(
        con, scrape_id=sid, provider="nebius", run_id="r", mode="replay", source="t", fetches=[]
    )
    rows, validation = prepare(con, [ScrapedOffer(**o) for o in offers])
    assert validation.ok, validation.problems()
    partial = "test: an excerpt" if coverage == "partial" else None
    return commit_scrape(
        con, scrape_id=sid, provider="nebius", observed_at=when, rows=rows, partial_reason=partial
    )


def history(con, instance_type: str = H100) -> list[tuple]:
    return con.execute(
        "select price, valid_from, valid_to, announced, scrape_id from offer_history"
        " where instance_type = ? order by valid_from",
        [instance_type],
    ).fetchall()


def withdrawals(con) -> list[tuple]:
    return con.execute(
        "select price, announced_from, announced_by_scrape_id, withdrawn_by_scrape_id,"
        " withdrawn_at from announcement_withdrawals order by all"
    ).fetchall()


def test_announced_price_is_stored_converted_like_the_price(con):
    rows, validation = prepare(con, [ScrapedOffer(**h100(SEP_01, count=8))])
    assert validation.ok
    row = rows[0]
    assert (row.price, row.announced_price, row.announced_from) == (CURRENT, ANNOUNCED, OCT_01)
    # per GPU-hour as quoted; per instance-hour x 8 GPUs (warehouse.units, once)
    assert (row.price_per_gpu_hour_usd, row.price_per_hour_usd) == (
        Decimal("3.85"),
        Decimal("30.8"),
    )
    assert (row.announced_price_per_gpu_hour_usd, row.announced_price_per_hour_usd) == (
        Decimal("4.50"),
        Decimal("36.00"),
    )
    assert row.announced_price_per_hour == Decimal("36.00")


def test_announced_price_opens_the_next_interval_of_the_offer_from_its_date(con):
    counts = scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    assert history(con) == [
        (CURRENT, SEP_01, OCT_01, False, "sep01"),
        (ANNOUNCED, OCT_01, None, True, "sep01"),
    ]
    assert (counts["opened"], counts["announced"]) == (2, 1)


def test_announcement_repeated_before_its_date_changes_nothing(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    before = history(con)
    counts = scrape(con, "sep15", SEP_15, [h100(SEP_15)])
    assert history(con) == before  # the interval is still the one the first scrape wrote
    assert (counts["opened"], counts["closed"], counts["withdrawn"]) == (0, 0, 0)
    assert withdrawals(con) == []


def test_announcement_no_longer_shown_before_its_date_is_withdrawn_and_recorded(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    counts = scrape(con, "sep15", SEP_15, [h100(SEP_15, announced=None)])
    assert history(con) == [(CURRENT, SEP_01, None, False, "sep01")]
    assert withdrawals(con) == [(ANNOUNCED, OCT_01, "sep01", "sep15", SEP_15)]
    assert counts["withdrawn"] == 1


def test_announcement_changed_before_its_date_replaces_the_announced_interval(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    scrape(con, "sep15", SEP_15, [h100(SEP_15, announced=Decimal("4.40"))])
    assert history(con) == [
        (CURRENT, SEP_01, OCT_01, False, "sep01"),
        (Decimal("4.40"), OCT_01, None, True, "sep15"),
    ]
    assert withdrawals(con) == [(ANNOUNCED, OCT_01, "sep01", "sep15", SEP_15)]


def test_announced_price_seen_in_force_after_its_date_is_confirmed_not_duplicated(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    counts = scrape(con, "nov01", NOV_01, [h100(NOV_01, ANNOUNCED, announced=None)])
    assert history(con) == [
        (CURRENT, SEP_01, OCT_01, False, "sep01"),
        (ANNOUNCED, OCT_01, None, False, "sep01"),
    ]
    assert (counts["opened"], counts["closed"], counts["confirmed"]) == (0, 0, 1)


def test_old_price_still_in_force_after_the_date_is_a_real_change_back(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    scrape(con, "nov01", NOV_01, [h100(NOV_01, CURRENT, announced=None)])
    assert history(con) == [
        (CURRENT, SEP_01, OCT_01, False, "sep01"),
        (ANNOUNCED, OCT_01, NOV_01, True, "sep01"),  # announced, never seen in force
        (CURRENT, NOV_01, None, False, "nov01"),
    ]


def test_offer_gone_after_the_date_closes_the_announced_interval(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01), h200(SEP_01)])
    scrape(con, "nov01", NOV_01, [h200(NOV_01) | {"price": Decimal("5.40"), "announced_price":
                                                   None, "announced_from": None}])  # fmt: skip
    assert history(con) == [
        (CURRENT, SEP_01, OCT_01, False, "sep01"),
        (ANNOUNCED, OCT_01, NOV_01, True, "sep01"),
    ]
    assert history(con, "NVIDIA HGX H200") == [
        (Decimal("4.50"), SEP_01, OCT_01, False, "sep01"),
        (Decimal("5.40"), OCT_01, None, False, "sep01"),
    ]


def test_scrape_older_than_the_announcing_one_leaves_the_announcement(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    before = history(con)
    aug_01 = datetime(2026, 8, 1, tzinfo=UTC)
    counts = scrape(con, "aug01", aug_01, [h100(aug_01, announced=None)])
    assert counts["out_of_order"] == 1
    assert history(con) == before
    assert withdrawals(con) == []


def test_announced_price_not_later_than_the_observation_is_a_load_error(con):
    from warehouse.load import LoadError

    with pytest.raises(LoadError, match="start after the observation"):
        prepare(con, [ScrapedOffer(**h100(OCT_01))])


# the batch loader's input tables (warehouse.batch): scrapes, and offers with their scrape id
_SCRAPES_DDL = """create or replace temp table _t_scrapes (scrape_id varchar, provider varchar,
    run_id varchar, mode varchar, source varchar, observed_at timestamptz, status varchar,
    error varchar, coverage varchar, coverage_reason varchar)"""
_OFFERS_DDL = """create or replace temp table _t_offers (scrape_id varchar, provider varchar,
    instance_type varchar, product_key varchar, region varchar, cloud_tier varchar,
    country varchar, gpu_name varchar, gpu_count decimal(10, 4),
    vram_gb_reported decimal(10, 2), vcpus decimal(10, 2), ram_gb decimal(12, 2),
    storage_gb decimal(14, 2), pricing varchar, reserved_term_months integer,
    price decimal(18, 9), currency varchar, price_unit varchar, price_per varchar,
    serverless boolean, offered boolean, available boolean, available_until timestamptz,
    source_url varchar, observed_at timestamptz,
    announced_price decimal(18, 9), announced_from timestamptz, gpu_form_factor varchar,
    listings integer, single_gpu_price decimal(18, 9))"""


def _batch(con, scrapes: list[tuple[str, datetime, list[dict], str]]) -> dict:
    con.execute(_SCRAPES_DDL)
    con.execute(_OFFERS_DDL)
    bulk_insert(
        con,
        "_t_scrapes",
        list(BATCH_SCRAPE_COLUMNS),
        [
            [sid, "nebius", "r", "replay", "t", when, "success", None, coverage, None]
            for sid, when, _, coverage in scrapes
        ],
    )
    offers = [(sid, ScrapedOffer(**o)) for sid, _, found, _ in scrapes for o in found]
    bulk_insert(
        con,
        "_t_offers",
        ["scrape_id", *SCRAPED_OFFER_COLUMNS],
        [[sid, *(getattr(o, c) for c in SCRAPED_OFFER_COLUMNS)] for sid, o in offers],
    )
    validation = prepare_batch(con, "_t_offers")
    assert validation.ok, validation.problems()
    return commit_batch(con, "_t_scrapes")


FULL, PARTIAL = "full", "partial"
_PATHS = {
    "confirmed": [
        ("sep01", SEP_01, [h100(SEP_01)], FULL),
        ("nov01", NOV_01, [h100(NOV_01, ANNOUNCED, None)], FULL),
    ],
    "change-back": [
        ("sep01", SEP_01, [h100(SEP_01)], FULL),
        ("nov01", NOV_01, [h100(NOV_01, CURRENT, None)], FULL),
    ],
    "withdrawn": [
        ("sep01", SEP_01, [h100(SEP_01)], FULL),
        ("sep15", SEP_15, [h100(SEP_15, announced=None)], FULL),
    ],
    "repeated": [("sep01", SEP_01, [h100(SEP_01)], FULL), ("sep15", SEP_15, [h100(SEP_15)], FULL)],
    "partial-without-it-then-confirmed": [
        ("sep01", SEP_01, [h100(SEP_01), h200(SEP_01)], FULL),
        ("sep15", SEP_15, [h200(SEP_15)], PARTIAL),
        ("nov01", NOV_01, [h100(NOV_01, ANNOUNCED, None)], PARTIAL),
    ],
}


@pytest.mark.parametrize("scrapes", list(_PATHS.values()), ids=list(_PATHS))
def test_batch_and_per_scrape_paths_write_the_same_announced_history(
    tmp_path, scrapes, seeded_template
):
    results = []
    for name in ("per-scrape", "batch"):
        with seeded_warehouse(seeded_template, tmp_path / f"{name}.duckdb").connect() as c:
            if name == "batch":
                _batch(c, scrapes)
            else:
                for sid, when, offers, coverage in scrapes:
                    scrape(c, sid, when, offers, coverage)
            results.append((_history_seen(c), withdrawals(c)))
    assert results[0] == results[1]


def _history_seen(con, instance_type: str = H100) -> list[tuple]:
    return con.execute(
        "select price, valid_from, valid_to, announced, scrape_id, last_seen_at"
        " from offer_history where instance_type = ? order by valid_from",
        [instance_type],
    ).fetchall()


def test_partial_scrape_without_the_offer_leaves_its_announcement(con):
    # a partial scrape (an excerpt) that does not list H100 says nothing about it: neither its
    # price nor its announcement (docs/history.md, "Partial scrapes")
    scrape(con, "sep01", SEP_01, [h100(SEP_01), h200(SEP_01)])
    counts = scrape(con, "sep15", SEP_15, [h200(SEP_15)], coverage=PARTIAL)
    assert history(con) == [
        (CURRENT, SEP_01, OCT_01, False, "sep01"),
        (ANNOUNCED, OCT_01, None, True, "sep01"),
    ]
    assert (counts["opened"], counts["closed"], counts["withdrawn"]) == (0, 0, 0)
    assert withdrawals(con) == []


def test_partial_scrape_listing_the_offer_without_it_withdraws_the_announcement(con):
    scrape(con, "sep01", SEP_01, [h100(SEP_01), h200(SEP_01)])
    scrape(con, "sep15", SEP_15, [h100(SEP_15, announced=None)], coverage=PARTIAL)
    assert history(con) == [(CURRENT, SEP_01, None, False, "sep01")]
    assert withdrawals(con) == [(ANNOUNCED, OCT_01, "sep01", "sep15", SEP_15)]
    # H200's announcement, not listed by the partial scrape, stands
    assert history(con, "NVIDIA HGX H200")[-1] == (Decimal("5.40"), OCT_01, None, True, "sep01")


def test_announced_interval_is_seen_from_its_date_and_the_one_before_until_its_last_scrape(con):
    # last_seen_at: the announced interval has not been observed; it counts as seen at its own
    # start (valid_from) until a scrape lists it in force. The interval before it was last seen
    # by the newest scrape that listed it (2026-09-15), not at the announced date.
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    counts = scrape(con, "sep15", SEP_15, [h100(SEP_15)])
    assert counts["confirmed"] == 1  # $3.85 seen again on 09-15
    assert _history_seen(con) == [
        (CURRENT, SEP_01, OCT_01, False, "sep01", SEP_15),
        (ANNOUNCED, OCT_01, None, True, "sep01", OCT_01),
    ]
    scrape(con, "nov01", NOV_01, [h100(NOV_01, ANNOUNCED, announced=None)])
    assert _history_seen(con)[-1] == (ANNOUNCED, OCT_01, None, False, "sep01", NOV_01)


def test_rollup_feeds_the_price_before_an_announcement_until_its_date(con):
    # The interval before an announced one ends at the announced date, not at a scrape: its
    # newest confirmation is its last_seen_at, the last scrape that listed it (2026-09-01), not
    # its own start (2026-07-12), so the days between stay fed (and no day before 10-01 gets
    # $4.50). A 30-day shelf life for on-demand prices makes 09-20 depend on it.
    from warehouse.history import refresh_rollup

    jul_12 = datetime(2026, 7, 12, tzinfo=UTC)
    scrape(con, "jul12", jul_12, [h100(jul_12, announced=None)])
    scrape(con, "sep01", SEP_01, [h100(SEP_01)])
    refresh_rollup(con, now=NOV_01, full=True, shelf_life_days={"on_demand": 30})
    days = dict(
        con.execute(
            "select day, min_usd_per_gpu_hour from daily_provider_prices"
            " where provider = 'nebius' and gpu_id = 'h100-sxm' order by day"
        ).fetchall()
    )
    assert days[jul_12.date()] == CURRENT
    assert days[datetime(2026, 9, 20).date()] == CURRENT  # > 30 days after 07-12
    assert days[datetime(2026, 9, 30).date()] == CURRENT
    assert days[OCT_01.date()] == ANNOUNCED
    assert days[datetime(2026, 10, 31).date()] == ANNOUNCED  # 30 days after its valid_from
    assert datetime(2026, 11, 1).date() not in days
