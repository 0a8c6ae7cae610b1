"""Offer identity (issue 21): one product is one series, whatever layout stated it or (issue
22) wherever the old code placed it.

RunPod's API names a GPU type by its id ("1x NVIDIA H100 80GB HBM3"), its web page by its display
name ("1x H100 SXM"). Before product keys the two were two offer ids, so secure H100 SXM
on-demand had two half histories. A warehouse that holds them (built here by the old code path:
every offer keyed by its instance type) is merged by ``warehouse.identity`` on the next ingest,
and then holds exactly what a fresh replay with product keys holds. The old code also stored
RunPod's cloud tier as the region ("secure"); the same merge moves those offers to region
``global`` with the tier in ``cloud_tier`` (``scrapers.runpod.place_rule``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal

import duckdb
import pytest

from pipelines.ingest import scrape_provider
from scrapers import runpod
from scrapers.base import Offer, RawResponse
from tests.conftest import SNAPSHOTS
from warehouse.db import migrate
from warehouse.identity import merge_intervals, merge_offer_identities
from warehouse.paths import Paths
from warehouse.records import offer_id

# the ids of secure H100 SXM on-demand as the old code stored them (tier as the region)
API_ID = offer_id("runpod", "1x NVIDIA H100 80GB HBM3", "secure", "on_demand", None)
PAGE_ID = offer_id("runpod", "1x H100 SXM", "secure", "on_demand", None)
# ... and its id now: region global, the tier its own field (issue 22)
TIERED_ID = offer_id("runpod", "1x NVIDIA H100 80GB HBM3", "global", "on_demand", None, "secure")


def _keyed_by_instance_type(
    responses: Sequence[RawResponse],
) -> tuple[list[Offer], Counter[str]]:
    offers, excluded = runpod.PROVIDER.parse_with_exclusions(responses)
    return [_as_stored_before(o) for o in offers], excluded


def _as_stored_before(offer: Offer) -> Offer:
    """The offer as the scraper stated it before product keys (issue 21: keyed by its instance
    type) and before cloud tiers (issue 22: the tier was the region of a per-tier price)."""
    region = offer.cloud_tier if offer.region == "global" else offer.region
    return offer.model_copy(
        update={
            "product_key": offer.instance_type,
            "region": region,
            "cloud_tier": None,
            "country": None,
        }
    )


# the RunPod scraper as it was before product keys and tiers: every offer is its instance type
# at a place that may be a tier
OLD_RUNPOD = dataclasses.replace(
    runpod.PROVIDER,
    parse_with_exclusions=_keyed_by_instance_type,
    product_keys={},
    place_rule=None,
)


def _ingest(paths: Paths, provider, status: str = "success") -> None:
    outcomes = scrape_provider(provider, paths=paths, replay_dir=SNAPSHOTS)
    assert outcomes and all(o.status.value == status for o in outcomes), outcomes


def _history(path, where: str = "true", params: Sequence = ()) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(
            f"select * exclude (scrape_id) from offer_history where {where}"
            " order by offer_id, valid_from",
            list(params),
        ).fetchall()


def _series(con: duckdb.DuckDBPyConnection, oid: str) -> list[tuple]:
    return con.execute(
        "select valid_from::date::varchar, valid_to::date::varchar, price from offer_history"
        " where offer_id = ? order by valid_from",
        [oid],
    ).fetchall()


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    """(old-code warehouse, the same merged by an ingest with product keys, fresh replay)."""
    old = Paths(tmp_path_factory.mktemp("identity-old"))
    _ingest(old, OLD_RUNPOD)
    before = _history(old.warehouse)
    merged = Paths(tmp_path_factory.mktemp("identity-merged"))
    merged.warehouse.write_bytes(old.warehouse.read_bytes())
    with duckdb.connect(str(merged.warehouse)) as con:
        migrate(con)
        report = merge_offer_identities(
            con, "runpod", runpod.PROVIDER.product_key, place_of=runpod.PROVIDER.place
        )
    fresh = Paths(tmp_path_factory.mktemp("identity-fresh"))
    _ingest(fresh, runpod.PROVIDER)
    return before, report, merged, fresh


def test_runpod_h100_sxm_api_and_page_were_two_series_before_product_keys(homes) -> None:
    before, *_ = homes
    ids = {row[0] for row in before if row[0] in (API_ID, PAGE_ID)}
    assert ids == {API_ID, PAGE_ID}
    assert API_ID == "31d9185701981336" and PAGE_ID == "9a997742a62d9225"


def test_runpod_h100_sxm_split_series_merged_into_one(homes) -> None:
    _, report, merged, _ = homes
    assert report.moved[PAGE_ID] == TIERED_ID and not report.conflicts
    assert report.moved[API_ID] == TIERED_ID
    with duckdb.connect(str(merged.warehouse), read_only=True) as con:
        # prices read off the captures: 2023-09 __NEXT_DATA__ securePrice 4.49, 2025-06 API
        # 2.99, 2025-09 page 2.69 (not listed by the 2026-03 lowestPrice items, a partial
        # capture, which closes nothing), 2026-08 ld+json 2.99, c2026-09 API 3.49
        assert _series(con, TIERED_ID) == [
            ("2023-09-29", "2025-06-15", Decimal("4.49")),
            ("2025-06-15", "2025-09-09", Decimal("2.99")),
            ("2025-09-09", "2026-08-10", Decimal("2.69")),
            ("2026-08-10", "2026-09-01", Decimal("2.99")),
            ("2026-09-01", None, Decimal("3.49")),
        ]
        assert _series(con, PAGE_ID) == [] and _series(con, API_ID) == []
        instance_types = con.execute(
            "select distinct instance_type from offer_history where offer_id = ?", [TIERED_ID]
        ).fetchall()
        assert sorted(instance_types) == [("1x H100 SXM",), ("1x NVIDIA H100 80GB HBM3",)]
        merges = con.execute(
            "select old_offer_id, offer_id, instance_type, product_key from offer_id_merges"
            " where offer_id = ? order by instance_type",
            [TIERED_ID],
        ).fetchall()
        assert merges == [
            (PAGE_ID, TIERED_ID, "1x H100 SXM", "1x NVIDIA H100 80GB HBM3"),
            (API_ID, TIERED_ID, "1x NVIDIA H100 80GB HBM3", "1x NVIDIA H100 80GB HBM3"),
        ]


def test_runpod_tier_is_not_a_region(homes) -> None:
    """Issue 22: RunPod's Secure/Community Cloud tier was stored as the region (88 offers
    "secure"/"community"). Merged, every stored row has region global and the tier in
    cloud_tier, under the id a fresh parse gives it."""
    _, _, merged, _ = homes
    with duckdb.connect(str(merged.warehouse), read_only=True) as con:
        for table in ("observations", "offer_history"):
            places = con.execute(
                f"select distinct region, cloud_tier from {table} where provider = 'runpod'"
            ).fetchall()
            assert sorted(places) == [("global", "community"), ("global", "secure")], table
        community = offer_id(
            "runpod", "1x NVIDIA H100 80GB HBM3", "global", "on_demand", None, "community"
        )
        prices = con.execute(
            "select cloud_tier, price from offer_history"
            " where offer_id in (?, ?) and valid_to is null",
            [TIERED_ID, community],
        ).fetchall()
    # c2026-09 API: H100 SXM securePrice 3.49, communityPrice 2.69
    assert sorted(prices) == [("community", Decimal("2.69")), ("secure", Decimal("3.49"))]


def test_merged_history_has_no_overlap_and_one_open_interval_per_offer(homes) -> None:
    _, _, merged, _ = homes
    with duckdb.connect(str(merged.warehouse), read_only=True) as con:
        overlaps = con.execute(
            "select count(*) from offer_history as a inner join offer_history as b"
            " on a.offer_id = b.offer_id and a.valid_from < b.valid_from"
            " and (a.valid_to is null or a.valid_to > b.valid_from)"
        ).fetchone()
        open_twice = con.execute(
            "select count(*) from (select offer_id from offer_history where valid_to is null"
            " group by offer_id having count(*) > 1)"
        ).fetchone()
        # community H100 SXM on-demand read 2.69 in every capture from 2025-06 on, in both
        # spellings: five alternating intervals are one
        community = offer_id(
            "runpod", "1x NVIDIA H100 80GB HBM3", "global", "on_demand", None, "community"
        )
        assert _series(con, community)[-1] == ("2025-06-15", None, Decimal("2.69"))
    assert overlaps == (0,) and open_twice == (0,)


def test_fresh_replay_with_product_keys_equals_the_merged_old_warehouse(homes) -> None:
    _, _, merged, fresh = homes
    assert _history(fresh.warehouse) == _history(merged.warehouse)
    with duckdb.connect(str(fresh.warehouse), read_only=True) as con:
        assert _series(con, PAGE_ID) == []


def test_merge_is_idempotent_and_the_ingest_runs_it(homes, tmp_path) -> None:
    _, _, merged, _ = homes
    with duckdb.connect(str(merged.warehouse)) as con:
        again = merge_offer_identities(
            con, "runpod", runpod.PROVIDER.product_key, place_of=runpod.PROVIDER.place
        )
    assert again.moved == {}
    # an old warehouse ingested by the new code: merged before its scrapes load
    home = Paths(tmp_path / "home")
    _ingest(home, OLD_RUNPOD)
    _ingest(home, runpod.PROVIDER, "unchanged")  # the same captures: nothing new to load
    assert _history(home.warehouse, "offer_id = ?", [PAGE_ID]) == []
    assert _history(home.warehouse, "offer_id = ?", [API_ID]) == []
    assert len(_history(home.warehouse, "offer_id = ?", [TIERED_ID])) == 5


def _row(oid: str, start: int, end: int | None, price: str) -> dict:
    def day(n: int) -> datetime:
        return datetime(2026, 1, n, tzinfo=UTC)

    return {
        "offer_id": oid,
        "valid_from": day(start),
        "valid_to": None if end is None else day(end),
        "price": Decimal(price),
        "currency": "USD",
        "gpu_id": "h100-sxm",
        "gpu_count": Decimal(1),
        "scrape_id": f"{oid}-{start}",
    }


def _spans(rows: list[dict]) -> list[tuple]:
    return [
        (r["valid_from"].day, r["valid_to"].day if r["valid_to"] else None, str(r["price"]))
        for r in rows
    ]


def test_overlapping_intervals_newest_statement_wins_and_older_resumes() -> None:
    # "a" open from day 1 at 2.00; "b" says 3.00 from day 3 to day 5; "a" still says 2.00 after
    rows = [_row("a", 1, None, "2.00"), _row("b", 3, 5, "3.00")]
    merged = merge_intervals(rows, "a")
    assert _spans(merged) == [(1, 3, "2.00"), (3, 5, "3.00"), (5, None, "2.00")]
    assert all(r["offer_id"] == "a" for r in merged)
    assert [r["scrape_id"] for r in merged] == ["a-1", "b-3", "a-1"]


def test_alternating_equal_prices_coalesce_and_gaps_stay_gaps() -> None:
    rows = [
        _row("a", 1, 4, "2.00"),
        _row("b", 4, 6, "2.00"),
        _row("a", 8, 9, "2.00"),  # nothing observed on days 6-8
        _row("b", 9, None, "2.50"),
    ]
    assert _spans(merge_intervals(rows, "new")) == [
        (1, 6, "2.00"),
        (8, 9, "2.00"),
        (9, None, "2.50"),
    ]


def test_two_open_intervals_leave_one_open() -> None:
    rows = [_row("a", 1, None, "2.00"), _row("b", 2, None, "2.20")]
    assert _spans(merge_intervals(rows, "a")) == [(1, 2, "2.00"), (2, None, "2.20")]


def test_ids_one_scrape_lists_together_are_left_split(tmp_path) -> None:
    with duckdb.connect(str(tmp_path / "w.duckdb")) as con:
        migrate(con)
        for it in ("1x A", "1x B"):
            con.execute(
                "insert into observations (scrape_id, offer_id, provider, instance_type, region,"
                " pricing, gpu_name_provider, gpu_count, price, currency, price_unit, price_per,"
                " serverless, source_url, observed_at, price_per_hour, usd_per_unit,"
                " price_per_hour_usd) values ('s1', ?, 'p', ?, 'global', 'on_demand', 'X', 1,"
                " 1, 'USD', 'hour', 'instance', false, 'https://x', now(), 1, 1, 1)",
                [offer_id("p", it, "global", "on_demand", None), it],
            )
        report = merge_offer_identities(con, "p", lambda _: "1x A")
        assert report.moved == {}
        assert report.conflicts == [offer_id("p", "1x A", "global", "on_demand", None)]
