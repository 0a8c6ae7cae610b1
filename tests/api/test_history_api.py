"""GET /instances/{id}/history, /history, /history/catalog and /changes over a snapshot of a small
warehouse whose history is known exactly (two providers scraped three times, one scraped once
long before, plus imported intervals and catalog rows, some of them family-level), and over the
replayed captures with the real public history datasets backfilled, with figures read off those
datasets. /history is the market_history macro of the snapshot: its days of a canonical GPU are
daily_gpu_prices' rows."""

from __future__ import annotations

import csv
import json
import re
import shutil
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from statistics import median

import duckdb
import msgspec
import pytest
from litestar.testing import TestClient

from api.app import create_app
from api.history.schemas import CatalogDay, CatalogHistory, MarketBucket, MarketHistory
from pipelines.backfill import run_backfill
from tests.conftest import HISTORY
from tests.support.seeded import seeded_warehouse
from warehouse.derive import rebuild
from warehouse.load import commit_scrape, offer_id, prepare, start_scrape
from warehouse.paths import Paths
from warehouse.publish import current, publish
from warehouse.queries.history import MARKET_HISTORY_SQL, market_history_params
from warehouse.records import ScrapedOffer

# the file takes about 40 s under the suite's load: handed out first (tests/conftest.py)
pytestmark = pytest.mark.slow(seconds=40)

OLD = datetime(2025, 12, 1, 10, 0, tzinfo=UTC)  # oldcloud's only scrape
T0 = datetime(2026, 1, 9, 10, 0, tzinfo=UTC)
T1 = datetime(2026, 2, 9, 12, 0, tzinfo=UTC)
T2 = datetime(2026, 3, 9, 12, 0, tzinfo=UTC)
NOW = datetime(2026, 3, 20, tzinfo=UTC)
ON_DEMAND_30_DAYS = {"on_demand": 30.0}
LAMBDA_8X = offer_id("lambda", "8x H100", "global", "on_demand", None)
LAMBDA_1X = offer_id("lambda", "1x H100", "global", "on_demand", None)
RUNPOD_1X = offer_id("runpod", "1x H100 SXM", "global", "on_demand", None)


def _offer(
    provider: str,
    instance_type: str,
    price: str,
    count: int,
    when: datetime,
    pricing: str = "on_demand",
) -> dict:
    return {
        "provider": provider,
        "instance_type": instance_type,
        "region": "global",
        "gpu_name": "NVIDIA H100 SXM",
        "gpu_count": Decimal(count),
        "vram_gb_reported": Decimal(80),
        "vcpus": None,
        "ram_gb": None,
        "storage_gb": None,
        "pricing": pricing,
        "reserved_term_months": None,
        "price": Decimal(price),
        "currency": "USD",
        "price_unit": "hour",
        "price_per": "gpu",
        "serverless": False,
        "source_url": "https://example.invalid/pricing",
        "observed_at": when,
    }


def _scrape(con, sid: str, provider: str, when: datetime, offers: list[dict]) -> None:
    assert start_scrape(
        con, scrape_id=sid, provider=provider, run_id="r", mode="replay", source="test", fetches=[]
    )
    rows, validation = prepare(con, [ScrapedOffer(**o) for o in offers])
    assert validation.ok, validation.problems()
    commit_scrape(con, scrape_id=sid, provider=provider, observed_at=when, rows=rows)


@pytest.fixture(scope="module")
def published(tmp_path_factory, seeded_template):
    home = tmp_path_factory.mktemp("history-api")
    with seeded_warehouse(seeded_template, home / "warehouse.duckdb").connect() as con:
        # lambda: 8x at 2.99/GPU-h, then 3.49 from T1; 1x at 3.29 until it disappears at T2
        _scrape(
            con,
            "l0",
            "lambda",
            T0,
            [
                _offer("lambda", "8x H100", "2.99", 8, T0),
                _offer("lambda", "1x H100", "3.29", 1, T0),
            ],
        )
        _scrape(
            con,
            "l1",
            "lambda",
            T1,
            [
                _offer("lambda", "8x H100", "3.49", 8, T1),
                _offer("lambda", "1x H100", "3.29", 1, T1),
            ],
        )
        _scrape(con, "l2", "lambda", T2, [_offer("lambda", "8x H100", "3.49", 8, T2)])
        # oldcloud: scraped once, long before the others; its interval stays open
        _scrape(con, "o0", "oldcloud", OLD, [_offer("oldcloud", "1x H100", "1.49", 1, OLD)])
        # runpod: 2.69 throughout, plus a spot offer
        for sid, when in (("r0", T0), ("r1", T1), ("r2", T2)):
            _scrape(
                con,
                sid,
                "runpod",
                when,
                [
                    _offer("runpod", "1x H100 SXM", "2.69", 1, when),
                    _offer("runpod", "1x H100 SXM", "1.25", 1, when, pricing="spot"),
                ],
            )
        # imported history: a stale lambda price (loses to the scrape) and a provider only
        # known from the import
        con.execute("""
            insert into offer_history (offer_id, provider, valid_from, valid_to, instance_type,
                region, pricing, gpu_id, gpu_count, price, currency, price_per_hour_usd, source,
                gpu_name_provider, serverless, price_per_gpu_hour_usd)
            values
              ('imp-lambda', 'lambda', '2026-01-10', '2026-01-12', '1x H100', 'US',
               'on_demand', 'h100-sxm', 1, 1.00, 'USD', 1.00, 'import:test', 'H100 SXM', false,
               1.00),
              ('imp-salad', 'salad', '2026-01-10', '2026-01-12', '1x H100', 'global',
               'on_demand', 'h100-sxm', 1, 2.00, 'USD', 2.00, 'import:test', 'H100 SXM', false,
               2.00)
        """)
        # family-level imported intervals (gpu_id null, gpu_family set: the source named only
        # "H100" / "A100"): genesis 8x H100 at 12.00/h = 1.50 per GPU-hour; salad an "H100" at
        # its H100 SXM's 2.00 (a tie: salad's price stays model level); genesis an "A100",
        # which may be a 40 GB one, so it is no a100-80gb
        con.execute("""
            insert into offer_history (offer_id, provider, valid_from, valid_to, instance_type,
                region, pricing, gpu_id, gpu_family, gpu_count, price, currency,
                price_per_hour_usd, source, gpu_name_provider, serverless, price_per_gpu_hour_usd)
            values
              ('imp-genesis-h100', 'genesis', '2026-01-10', '2026-01-12', '8x H100', 'global',
               'on_demand', null, 'h100', 8, 12.00, 'USD', 12.00, 'import:test', 'NVIDIA H100',
               false, 1.50),
              ('imp-salad-h100', 'salad', '2026-01-10', '2026-01-12', 'H100', 'global',
               'on_demand', null, 'h100', 1, 2.00, 'USD', 2.00, 'import:test', 'H100', false,
               2.00),
              ('imp-genesis-a100', 'genesis', '2026-01-10', '2026-01-12', '1x A100', 'global',
               'on_demand', null, 'a100', 1, 1.10, 'USD', 1.10, 'import:test', 'NVIDIA A100',
               false, 1.10)
        """)
        # catalog statistics (USD per instance-hour, no GPU count): p1 lists its H100s under
        # two spellings, which count as one provider with the cheaper price
        con.execute("""
            insert into imported_daily_prices (source, day, captured_at, provider,
                gpu_name_provider, gpu_id, gpu_family, offer_count, min_price_per_hour_usd,
                median_price_per_hour_usd, max_price_per_hour_usd)
            values
              ('import:cat', '2026-01-10', '2026-01-10', 'p1', 'H100', null, 'h100', 3,
               2.00, 2.10, 2.20),
              ('import:cat', '2026-01-10', '2026-01-10', 'p1', 'NVIDIA H100', null, 'h100', 2,
               1.80, 1.90, 16.00),
              ('import:cat', '2026-01-10', '2026-01-10', 'p2', 'H100', null, 'h100', 1,
               16.00, 16.00, 16.00),
              ('import:cat', '2026-01-10', '2026-01-10', 'p1', 'H100 SXM', 'h100-sxm', null, 1,
               2.50, 2.50, 2.50),
              ('import:cat', '2026-01-18', '2026-01-18', 'p2', 'H100', null, 'h100', 4,
               15.00, 20.00, 25.00)
        """)
        # on-demand prices kept for 30 days (the default is 180), so that these few months show
        # a price in force, then gone
        rebuild(con, now=NOW, shelf_life_days=ON_DEMAND_30_DAYS)
        publish(con, home / "published", now=NOW)
    return home / "published"


@pytest.fixture(scope="module")
def client(published):
    with TestClient(create_app(published, reload_interval_s=3600)) as test_client:
        yield test_client


def _ok(client, path: str, **params) -> dict:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_offer_history_lists_its_intervals_oldest_first(client):
    body = _ok(client, f"/instances/{LAMBDA_8X}/history")
    assert (body["provider"], body["instance_type"], body["pricing"]) == (
        "lambda",
        "8x H100",
        "on_demand",
    )
    items = body["items"]
    assert [(i["price"], i["valid_from"][:10], (i["valid_to"] or "")[:10]) for i in items] == [
        (2.99, "2026-01-09", "2026-02-09"),
        (3.49, "2026-02-09", ""),
    ]
    assert items[0]["price_per_hour_usd"] == pytest.approx(23.92)
    assert items[0]["price_per_gpu_hour_usd"] == 2.99
    assert {i["source"] for i in items} == {"scrape"}


def test_offer_missing_from_a_scrape_has_a_closed_last_interval(client):
    items = _ok(client, f"/instances/{LAMBDA_1X}/history")["items"]
    assert [(i["valid_from"][:10], i["valid_to"][:10]) for i in items] == [
        ("2026-01-09", "2026-03-09")
    ]


def test_unknown_offer_is_404(client):
    response = client.get("/instances/0000000000000000/history")
    assert response.status_code == 404
    assert "0000000000000000" in response.json()["detail"]


def test_history_to_the_calendars_second_day_is_an_answer_not_a_500(client):
    # schemathesis: /history?to=0001-01-02 took the default 'from' 90 days before the year 1
    response = client.get("/history", params={"gpu": "h100-sxm", "to": "0001-01-02"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["from"], body["to"], body["items"]) == ("0001-01-01", "0001-01-02", [])


def test_market_history_by_day_takes_one_price_per_provider(client):
    body = _ok(client, "/history", gpu="h100-sxm", **{"from": "2026-01-09", "to": "2026-01-11"})
    by_day = {i["start"]: i for i in body["items"]}
    assert list(by_day) == ["2026-01-09", "2026-01-10", "2026-01-11"]
    # lambda's cheapest is 2.99 (its scrape beats the imported 1.00); runpod 2.69
    assert by_day["2026-01-09"] == {
        "start": "2026-01-09",
        "min_usd_per_gpu_hour": 2.69,
        "median_usd_per_gpu_hour": 2.84,
        "max_usd_per_gpu_hour": 2.99,
        "provider_count": 2,
        "offer_count": 3,
        "family_level_provider_count": 0,
        "family_level_offer_count": 0,
        "providers": ["lambda", "runpod"],
        "provider_set_changed": False,
    }
    # salad is only known from imported history; it counts as a third provider
    assert by_day["2026-01-10"]["provider_count"] == 3
    assert by_day["2026-01-10"]["median_usd_per_gpu_hour"] == 2.69
    assert by_day["2026-01-10"]["min_usd_per_gpu_hour"] == 2.0


def test_market_history_follows_a_price_change(client):
    body = _ok(client, "/history", gpu="h100", **{"from": "2026-02-08", "to": "2026-02-10"})
    # lambda's cheapest offer per day: its 8x at 2.99, then from the change at noon on the 9th
    # its 1x at 3.29 (cheaper than the 8x at 3.49). On the 9th the 2.99 no longer counts: it
    # was last confirmed at T0, more than 30 days before the day began (the scrape at noon saw
    # 3.49), while the 1x was confirmed that day
    assert [i["max_usd_per_gpu_hour"] for i in body["items"]] == [2.99, 3.29, 3.29]
    assert body["gpu"] == "h100"


def test_a_price_scraped_once_long_ago_does_not_count_every_day_since(client):
    # /history counted a scraped interval still open on every day up to the snapshot, whenever
    # it was last confirmed; the daily rollup counts it for the 30 days after its only scrape
    days = _ok(client, "/history", gpu="h100-sxm", **{"from": "2025-12-30", "to": "2026-01-09"})
    assert [(i["start"], i["min_usd_per_gpu_hour"]) for i in days["items"]] == [
        ("2025-12-30", 1.49),
        ("2025-12-31", 1.49),
        ("2026-01-09", 2.69),
    ]
    (march,) = _ok(
        client,
        "/history",
        gpu="h100-sxm",
        bucket="month",
        **{"from": "2026-03-01", "to": "2026-03-31"},
    )["items"]
    assert (march["provider_count"], march["min_usd_per_gpu_hour"]) == (2, 2.69)


def _daily_gpu_prices(published: Path, gpu: str, pricing: str) -> dict[str, tuple]:
    """day -> (min, median, max, provider_count, offer_count) of daily_gpu_prices."""
    return _all_daily_gpu_prices(published, "gpu_id = ? and pricing = ?", [gpu, pricing]).get(
        (gpu, pricing), {}
    )


def _all_daily_gpu_prices(
    published: Path, where: str, params: list
) -> dict[tuple[str, str], dict[str, tuple]]:
    """(gpu, pricing) -> day -> the figures of ``_daily_gpu_prices``, in one query."""
    rows = _snapshot_rows(
        published,
        "select gpu_id, pricing, day, min_usd_per_gpu_hour, median_usd_per_gpu_hour,"
        f" max_usd_per_gpu_hour, provider_count, offer_count from daily_gpu_prices where {where}",
        params,
    )
    found: dict[tuple[str, str], dict[str, tuple]] = {}
    for gpu, pricing, day, *figures in rows:
        found.setdefault((gpu, pricing), {})[str(day)] = (
            *(float(v) for v in figures[:3]),
            figures[3],
            figures[4],
        )
    return found


def _history_days(client, gpu: str, pricing: str, first: date, last: date) -> dict[str, tuple]:
    """day -> the same figures from /history by day, asked in ranges of at most 731 days."""
    found: dict[str, tuple] = {}
    while first <= last:
        through = min(last, first + timedelta(days=730))
        body = _ok(
            client, "/history", gpu=gpu, pricing=pricing, **{"from": str(first), "to": str(through)}
        )
        for i in body["items"]:
            found[i["start"]] = (
                i["min_usd_per_gpu_hour"],
                i["median_usd_per_gpu_hour"],
                i["max_usd_per_gpu_hour"],
                i["provider_count"],
                i["offer_count"],
            )
            assert i["family_level_offer_count"] == i["family_level_provider_count"] == 0
        first = through + timedelta(days=1)
    return found


def test_history_days_are_the_daily_gpu_prices_rows(client, published):
    for pricing in ("on_demand", "spot"):
        expected = _daily_gpu_prices(published, "h100-sxm", pricing)
        assert expected
        assert (
            _history_days(client, "h100-sxm", pricing, date(2025, 11, 1), date(2026, 3, 20))
            == expected
        )


def test_a_week_counts_each_providers_most_offers_on_one_day(client):
    # lambda lists two H100 offers until its 1x is gone on Monday 2026-03-09, one after; runpod
    # one. The week of the 9th: 2 + 1, as on its first day; the next week: 1 + 1
    days = _ok(client, "/history", gpu="h100-sxm", **{"from": "2026-03-09", "to": "2026-03-10"})
    assert [i["offer_count"] for i in days["items"]] == [3, 2]
    weeks = _ok(
        client,
        "/history",
        gpu="h100-sxm",
        bucket="week",
        **{"from": "2026-03-09", "to": "2026-03-22"},
    )["items"]
    assert [(w["start"], w["provider_count"], w["offer_count"]) for w in weeks] == [
        ("2026-03-09", 2, 3),
        ("2026-03-16", 2, 2),
    ]


def test_market_history_by_week_and_month(client):
    weeks = _ok(
        client,
        "/history",
        gpu="H100 SXM",
        bucket="week",
        **{"from": "2026-01-05", "to": "2026-01-18"},
    )["items"]
    assert [w["start"] for w in weeks] == ["2026-01-05", "2026-01-12"]
    months = _ok(
        client,
        "/history",
        gpu="h100-sxm",
        bucket="month",
        **{"from": "2026-01-01", "to": "2026-03-31"},
    )["items"]
    assert [m["start"] for m in months] == ["2026-01-01", "2026-02-01", "2026-03-01"]
    # open intervals end at the snapshot: nothing after 2026-03-20 is claimed
    assert months[-1]["provider_count"] == 2


def test_market_history_spot_is_separate(client):
    items = _ok(
        client,
        "/history",
        gpu="h100-sxm",
        pricing="spot",
        **{"from": "2026-01-09", "to": "2026-01-09"},
    )["items"]
    assert items == [
        {
            "start": "2026-01-09",
            "min_usd_per_gpu_hour": 1.25,
            "median_usd_per_gpu_hour": 1.25,
            "max_usd_per_gpu_hour": 1.25,
            "provider_count": 1,
            "offer_count": 1,
            "family_level_provider_count": 0,
            "family_level_offer_count": 0,
            "providers": ["runpod"],
            "provider_set_changed": False,
        }
    ]


def test_a_family_series_takes_family_level_offers_and_counts_them(client):
    body = _ok(client, "/history", gpu="h100", **{"from": "2026-01-10", "to": "2026-01-10"})
    assert body["gpu_level"] == "family"
    # lambda 2.99 (scraped), runpod 2.69, salad 2.00 (its H100 SXM; its "H100" ties), and
    # genesis, known only as "8x H100" at 12.00/h: 1.50 per GPU-hour
    assert body["items"] == [
        {
            "start": "2026-01-10",
            "min_usd_per_gpu_hour": 1.5,
            "median_usd_per_gpu_hour": 2.345,
            "max_usd_per_gpu_hour": 2.99,
            "provider_count": 4,
            "offer_count": 6,
            "family_level_provider_count": 1,
            "family_level_offer_count": 2,
            "providers": ["genesis", "lambda", "runpod", "salad"],
            "provider_set_changed": False,
        }
    ]


def test_a_model_series_takes_no_family_level_offers(client):
    # "H100" may be a PCIe or an NVL: it is never an H100 SXM price
    body = _ok(client, "/history", gpu="h100-sxm", **{"from": "2026-01-10", "to": "2026-01-10"})
    assert body["gpu_level"] == "model"
    (item,) = body["items"]
    assert (item["min_usd_per_gpu_hour"], item["provider_count"]) == (2.0, 3)
    assert (item["family_level_provider_count"], item["family_level_offer_count"]) == (0, 0)


def test_a_sub_family_takes_no_rows_of_the_wider_family(client):
    window = {"from": "2026-01-10", "to": "2026-01-10"}
    (item,) = _ok(client, "/history", gpu="a100", **window)["items"]
    assert (item["min_usd_per_gpu_hour"], item["family_level_offer_count"]) == (1.1, 1)
    # an "A100" may have 40 GB
    assert _ok(client, "/history", gpu="a100-80gb", **window)["items"] == []
    assert _ok(client, "/history", gpu="A100-80GB", **window)["gpu_level"] == "family"


def test_catalog_keeps_model_and_family_rows_apart(client):
    body = _ok(client, "/history/catalog", gpu="H100")
    assert (body["gpu"], body["gpu_level"], body["from"]) == ("h100", "family", None)
    assert body["items"] == [
        {
            "day": "2026-01-10",
            "gpu_level": "model",
            "gpu_id": "h100-sxm",
            "gpu_family": None,
            "min_usd_per_instance_hour": 2.5,
            "median_usd_per_instance_hour": 2.5,
            "max_usd_per_instance_hour": 2.5,
            "provider_count": 1,
            "offer_count": 1,
            "source": "import:cat",
        },
        {
            # p1's two spellings: one provider at its cheaper 1.80; p2 at 16.00
            "day": "2026-01-10",
            "gpu_level": "family",
            "gpu_id": None,
            "gpu_family": "h100",
            "min_usd_per_instance_hour": 1.8,
            "median_usd_per_instance_hour": 8.9,
            "max_usd_per_instance_hour": 16.0,
            "provider_count": 2,
            "offer_count": 6,
            "source": "import:cat",
        },
        {
            "day": "2026-01-18",
            "gpu_level": "family",
            "gpu_id": None,
            "gpu_family": "h100",
            "min_usd_per_instance_hour": 15.0,
            "median_usd_per_instance_hour": 15.0,
            "max_usd_per_instance_hour": 15.0,
            "provider_count": 1,
            "offer_count": 4,
            "source": "import:cat",
        },
    ]


def test_catalog_of_a_model_and_a_date_range(client):
    model = _ok(client, "/history/catalog", gpu="h100-sxm")
    assert model["gpu_level"] == "model"
    assert [(i["day"], i["gpu_id"]) for i in model["items"]] == [("2026-01-10", "h100-sxm")]
    ranged = _ok(
        client, "/history/catalog", gpu="h100", **{"from": "2026-01-11", "to": "2026-01-18"}
    )
    assert [i["day"] for i in ranged["items"]] == ["2026-01-18"]
    assert _ok(client, "/history/catalog", gpu="h100", to="2026-01-09")["items"] == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"gpu": "h100", "from": "2026-02-01", "to": "2026-01-01"}, "after"),
        ({"gpu": "h100,a100"}, "comma"),
        ({"gpu": "h100", "bucket": "day"}, "bucket"),
        ({"from": "2026-01-01"}, "gpu"),
    ],
)
def test_catalog_rejects_bad_parameters_with_400(client, params, message):
    response = client.get("/history/catalog", params=params)
    assert response.status_code == 400, response.text
    assert message in response.text


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"gpu": "h100", "from": "2026-02-01", "to": "2026-01-01"}, "after"),
        ({"gpu": "h100", "from": "2020-01-01", "to": "2026-01-01"}, "at most 731 days by day"),
        ({"gpu": "h100", "bucket": "year"}, "bucket"),
        ({"gpu": "h100", "from": "2026-13-01"}, "from"),
        ({"from": "2026-01-01"}, "gpu"),
    ],
)
def test_market_history_rejects_bad_parameters_with_400(client, params, message):
    response = client.get("/history", params=params)
    assert response.status_code == 400, response.text
    assert message in response.json()["detail"]


def test_changes_lists_price_changes_with_percent(client):
    body = _ok(client, "/changes", since="2026-01-01T00:00:00Z")
    assert body["total"] == 1
    change = body["items"][0]
    assert (change["id"], change["old_price"], change["new_price"]) == (LAMBDA_8X, 2.99, 3.49)
    assert change["pct_change"] == 16.72
    assert change["changed_at"].startswith("2026-02-09T12:00")
    assert change["new_price_per_hour_usd"] == pytest.approx(27.92)


def test_changes_since_filters_and_default(client):
    assert _ok(client, "/changes", since="2026-02-10T00:00:00Z")["total"] == 0
    assert _ok(client, "/changes", since="2026-01-01T00:00:00Z", provider="runpod")["total"] == 0
    # default: the week before the snapshot (2026-03-13..) holds no change
    assert _ok(client, "/changes")["total"] == 0
    response = client.get("/changes", params={"since": "yesterday"})
    assert response.status_code == 400


def test_changes_say_how_long_the_old_price_went_unobserved(client):
    [change] = _ok(client, "/changes", since="2026-01-01")["items"]
    assert change["old_last_seen_at"].startswith("2026-01-09T10:00")  # T0, the scrape before
    assert change["gap_days"] == pytest.approx(31.083, abs=0.001)
    assert change["pct_change_basis"] == "price"
    assert change["pct_change_usd"] == 16.72
    assert (change["old_price_per_gpu_hour"], change["new_price_per_gpu_hour"]) == (2.99, 3.49)


def test_changes_since_plain_date(client):
    by_date = _ok(client, "/changes", since="2026-02-09")
    by_instant = _ok(client, "/changes", since="2026-02-09T00:00:00Z")
    assert by_date["items"] == by_instant["items"] and by_date["total"] == 1
    assert by_date["since"].startswith("2026-02-09T00:00:00")
    assert _ok(client, "/changes", since="2026-02-10")["total"] == 0
    for bad in ("2026-02-30", "09/02/2026", "2026-02-09T25:00Z"):
        response = client.get("/changes", params={"since": bad})
        assert response.status_code == 400, bad
        assert "since" in response.text, bad
    response = client.get("/changes", params={"since": "2026-02-30"})
    assert "is not a date (2026-01-01) or an RFC 3339 timestamp" in response.json()["detail"]


def test_a_malformed_time_parameter_names_both_forms_not_a_regex(client):
    # since=not-a-date answered "Expected `str` matching regex '^\\d{4}-...'": the pattern was a
    # validation rule before the parser that names the accepted forms could run
    for name, path in (("since", "/changes"), ("from", "/history"), ("to", "/history")):
        response = client.get(path, params={name: "not-a-date", "gpu": "h100"})
        assert response.status_code == 400
        detail = response.json()["detail"]
        assert detail == (
            f"{name}: 'not-a-date' is not a date (2026-01-01) or an RFC 3339 timestamp"
            " (2026-01-01T00:00:00Z)"
        )


def test_history_from_and_to_take_a_timestamp_as_its_utc_day(client):
    days = {"from": "2026-02-09", "to": "2026-02-10"}
    instants = {"from": "2026-02-09T12:00:00Z", "to": "2026-02-10T23:59:59+00:00"}
    assert (
        _ok(client, "/history", gpu="h100-sxm", **instants)["items"]
        == _ok(client, "/history", gpu="h100-sxm", **days)["items"]
    )
    response = client.get("/history", params={"gpu": "h100-sxm", "from": "last week"})
    assert response.status_code == 400


def test_changes_agree_with_the_price_changes_view(client, published):
    snapshot = sorted(published.glob("snapshot-*.duckdb"))[-1]
    con = duckdb.connect(str(snapshot), read_only=True)
    try:
        view = con.execute("select offer_id, new_price from price_changes").fetchall()
    finally:
        con.close()
    api = _ok(client, "/changes", since="2000-01-01T00:00:00Z")["items"]
    assert [(c["id"], Decimal(str(c["new_price"]))) for c in api] == view


def test_history_routes_are_documented(client):
    paths = client.get("/schema/openapi.json").json()["paths"]
    assert {"/instances/{offer_id}/history", "/history", "/changes"} <= set(paths)
    params = {p["name"] for p in paths["/history"]["get"]["parameters"]}
    assert {"gpu", "pricing", "bucket", "from", "to"} <= params
    catalog = {p["name"] for p in paths["/history/catalog"]["get"]["parameters"]}
    assert catalog == {"gpu", "from", "to", "format", "as_of"}  # as_of: pinning (api.store)


# --- the replayed captures with the real public history datasets backfilled ------------------

GPUHUNT = HISTORY / "gpuhunt-h100-h200-mi300x"
GPU_HUNT_SITE = HISTORY / "gpu-hunt-site"
# gpu-hunt.com servers whose display name says only "H100" (no SXM, PCIe or NVL), read off
# 2026-04-01T18_servers.csv: "1× H100 (80GB)", "1× H100 NVLink 80GB" (an SXM or an NVL),
# "1× H100", "1× H100 80GB". They are imported as family-level offers (gpu_family 'h100').
H100_FAMILY_SERVERS = {
    "fluidstack-nvidia_h100-1-80-us": "fluidstack",
    "fluidstack-nvidia_h100-8-80-us": "fluidstack",
    "oblivus-nvidia_h100_nvlink-1x": "oblivus",
    "oblivus-nvidia_h100_nvlink-2x": "oblivus",
    "oblivus-nvidia_h100_nvlink-4x": "oblivus",
    "oblivus-nvidia_h100_nvlink-8x": "oblivus",
    "salad-h100": "salad",
    "tensordock-nvidia_h100-1-80gb-us": "tensordock",
    "tensordock-nvidia_h100-8-80gb-us": "tensordock",
}
SITE_DAYS = ("2026-03-31", "2026-04-01")


@pytest.fixture(scope="module")
def backfilled(replayed_home, tmp_path_factory) -> Path:  # replayed_home: tests/conftest.py
    """A copy of the replayed home after `gpuprices backfill` of gpuhunt's catalog and
    gpu-hunt.com (as tests/pipelines/test_cli_history.py does): its published folder."""
    paths = Paths(tmp_path_factory.mktemp("backfilled") / "home")
    shutil.copytree(replayed_home[0].home, paths.home)
    report = run_backfill(paths, HISTORY, ["gpuhunt-h100-h200-mi300x", "gpu-hunt-site"])
    assert report.snapshot is not None
    return paths.published


@pytest.fixture(scope="module")
def real(backfilled):
    with TestClient(create_app(backfilled, reload_interval_s=3600)) as test_client:
        yield test_client


def _snapshot_rows(published: Path, sql: str, params: list | None = None) -> list[tuple]:
    info = current(published)
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _gpuhunt_h100_rows() -> dict[str, list[tuple[str, float]]]:
    """{day: [(provider, USD per instance-hour)]} of the catalog's "H100" rows, per file."""
    found: dict[str, list[tuple[str, float]]] = {}
    for path in sorted(GPUHUNT.glob("*.json")):
        rows = json.loads(path.read_text(encoding="utf-8"))
        found[path.name[:10]] = [
            (r["provider"], float(r["price"].lstrip("$").replace(",", "")))
            for r in rows
            if r["gpuModel"] == "H100"
        ]
    return found


def test_h100_history_has_gpu_hunt_family_level_offers_on_the_datasets_days(real, backfilled):
    with (GPU_HUNT_SITE / "2026-03-31_to_2026-04-01_price_history.csv").open() as handle:
        prices = [r for r in csv.DictReader(handle) if r["server_id"] in H100_FAMILY_SERVERS]
    recorded = {
        day: {r["server_id"] for r in prices if r["recorded_at"].startswith(day)}
        for day in SITE_DAYS
    }
    # a provider's scraped prices that feed a day win over imported ones (the daily rollup's
    # rule), so a provider scraped that day adds none of its imported servers
    scraped = {
        day: {
            provider
            for (provider,) in _snapshot_rows(
                backfilled,
                "select distinct provider from daily_provider_prices where source = 'scrape'"
                " and gpu_id like 'h100-%' and pricing = 'on_demand' and day = ?::date",
                [day],
            )
        }
        for day in SITE_DAYS
    }
    # fluidstack's H100 PCIe interval from its capture of 2025-01-09 is still open, but that
    # price was last observed 15 months before, past its 180-day shelf life, so fluidstack's
    # "H100" servers
    # of gpu-hunt.com are its prices on these days (they were left out while /history counted
    # the open interval on every day)
    assert "fluidstack" not in scraped["2026-03-31"]
    expected = {
        day: sum(H100_FAMILY_SERVERS[s] not in scraped[day] for s in recorded[day])
        for day in SITE_DAYS
    }
    # salad, tensordock and fluidstack on 03-31; oblivus's four NVLink servers join on 04-01
    assert expected == {"2026-03-31": 5, "2026-04-01": 9}

    body = _ok(real, "/history", gpu="h100", **{"from": "2026-03-30", "to": "2026-04-02"})
    assert body["gpu_level"] == "family"
    by_day = {i["start"]: i for i in body["items"]}
    assert {d: by_day[d]["family_level_offer_count"] for d in SITE_DAYS} == expected
    # salad (2.25), tensordock (2.55) and fluidstack (2.49 per GPU-hour) list only "H100"s;
    # oblivus's cheapest is its H100 PCIe at 1.98, a model-level price
    assert {d: by_day[d]["family_level_provider_count"] for d in SITE_DAYS} == {
        "2026-03-31": 3,
        "2026-04-01": 3,
    }
    # the dataset has nothing on the days around it: on 03-30 the H100 prices in force are
    # scraped ones (Crusoe's of 2025-12-15 and Lambda's of 2026-01-09, within 180 days)
    assert by_day["2026-03-30"]["family_level_offer_count"] == 0
    assert by_day["2026-03-30"]["provider_count"] == 2
    assert by_day["2026-04-02"]["family_level_offer_count"] == 0


def test_h100_sxm_history_has_no_family_level_offers(real):
    body = _ok(real, "/history", gpu="h100-sxm", **{"from": "2026-03-30", "to": "2026-04-02"})
    assert body["gpu_level"] == "model"
    family = _ok(real, "/history", gpu="h100", **{"from": "2026-03-30", "to": "2026-04-02"})
    family_days = {i["start"]: i for i in family["items"]}
    assert (
        [i["start"] for i in body["items"]]
        == list(family_days)
        == [
            "2026-03-30",
            "2026-03-31",
            "2026-04-01",
            "2026-04-02",
        ]
    )
    for model_day in body["items"]:
        assert model_day["family_level_offer_count"] == 0
        assert model_day["family_level_provider_count"] == 0
        assert model_day["offer_count"] <= family_days[model_day["start"]]["offer_count"]


def test_h100_sxm_on_2026_04_01_counts_only_prices_within_their_shelf_life(real, backfilled):
    # /history restated the rollup without its staleness rule: scraped intervals still open
    # from captures of 2025 and January 2026 counted on 2026-04-01, 15 providers and 73 offers
    # from 1.99. With the 180-day shelf life of an on-demand price: gpu-hunt.com's 9 providers
    # and RunPod's scrape of the day, plus Crusoe's (2025-12-15, $3.90) and Lambda's
    # (2026-01-09, $2.99, whose scrape wins over its 4 gpu-hunt.com rows) scraped prices: 11
    # providers and 19 offers from latitude's 2.45
    (day,) = _ok(real, "/history", gpu="h100-sxm", **{"from": "2026-04-01", "to": "2026-04-01"})[
        "items"
    ]
    assert (day["provider_count"], day["offer_count"], day["min_usd_per_gpu_hour"]) == (
        11,
        19,
        2.45,
    )
    assert _daily_gpu_prices(backfilled, "h100-sxm", "on_demand")["2026-04-01"] == (
        day["min_usd_per_gpu_hour"],
        day["median_usd_per_gpu_hour"],
        day["max_usd_per_gpu_hour"],
        day["provider_count"],
        day["offer_count"],
    )


def test_history_days_equal_daily_gpu_prices_for_every_gpu_and_pricing(real, backfilled):
    keys = _snapshot_rows(
        backfilled,
        "select gpu_id, pricing, min(day), max(day) from daily_gpu_prices"
        " where pricing in ('on_demand', 'spot', 'reserved') group by all order by all",
    )
    assert len(keys) > 20
    daily = _all_daily_gpu_prices(backfilled, "pricing in ('on_demand', 'spot', 'reserved')", [])
    for gpu, pricing, first, last in keys:
        expected = daily[(gpu, pricing)]
        assert _history_days(real, gpu, pricing, first, last) == expected, (gpu, pricing)


@pytest.mark.parametrize(
    ("family", "model"), [("a100", "a100-80gb"), ("a100", "a100-40gb-sxm"), ("v100", "v100-16gb")]
)
def test_other_families_take_their_family_level_offers_and_their_models_do_not(real, family, model):
    window = {"from": "2026-04-01", "to": "2026-04-01"}
    (day,) = _ok(real, "/history", gpu=family, **window)["items"]
    assert day["family_level_offer_count"] > 0
    for item in _ok(real, "/history", gpu=model, **window)["items"]:
        assert item["family_level_offer_count"] == 0


def test_h100_catalog_holds_every_h100_row_of_gpuhunt_with_its_figures(real):
    dataset = _gpuhunt_h100_rows()
    assert sum(len(rows) for rows in dataset.values()) == 12512
    body = _ok(real, "/history/catalog", gpu="h100")
    assert (body["gpu_level"], body["from"]) == ("family", None)
    items = body["items"]
    assert {(i["gpu_level"], i["gpu_id"], i["gpu_family"]) for i in items} == {
        ("family", None, "h100")
    }
    assert {i["source"] for i in items} == {"import:gpuhunt-h100-h200-mi300x"}
    assert [i["day"] for i in items] == sorted(dataset)
    assert sum(i["offer_count"] for i in items) == 12512
    for item in items:
        rows = dataset[item["day"]]
        cheapest = {p: min(price for q, price in rows if q == p) for p, _ in rows}
        assert item["offer_count"] == len(rows)
        assert item["provider_count"] == len(cheapest)
        assert item["min_usd_per_instance_hour"] == min(cheapest.values())
        assert item["median_usd_per_instance_hour"] == round(median(cheapest.values()), 6)
        assert item["max_usd_per_instance_hour"] == max(cheapest.values())
    # read off 2024-10-02_0eedde0.json: 475 "H100" rows of 8 providers, vastai's $0.45 the
    # cheapest, oci's cheapest $80.00 the dearest provider's
    day = next(i for i in items if i["day"] == "2024-10-02")
    assert (day["offer_count"], day["provider_count"]) == (475, 8)
    assert (day["min_usd_per_instance_hour"], day["max_usd_per_instance_hour"]) == (0.45, 80.0)


def test_catalog_of_a_model_family_and_of_an_h100_variant(real):
    # the catalog never says which H100: no row is an H100 SXM
    assert _ok(real, "/history/catalog", gpu="h100-sxm")["items"] == []
    h200 = _ok(real, "/history/catalog", gpu="H200")
    assert h200["gpu_level"] == "model"
    assert {(i["gpu_level"], i["gpu_id"]) for i in h200["items"]} == {("model", "h200")}
    assert sum(i["offer_count"] for i in h200["items"]) == sum(
        1
        for path in GPUHUNT.glob("*.json")
        for r in json.loads(path.read_text(encoding="utf-8"))
        if r["gpuModel"] == "H200"
    )
    (a100,) = _ok(real, "/history/catalog", gpu="a100")["items"]
    assert (a100["day"], a100["gpu_family"], a100["offer_count"]) == ("2024-09-24", "a100", 788)


def test_history_and_catalog_answers_match_their_openapi_schemas(real):
    spec = real.get("/schema/openapi.json").json()["components"]["schemas"]
    answers = [
        (
            real.get("/history", params={"gpu": "h100", "from": "2026-03-31", "to": "2026-04-01"}),
            MarketHistory,
            MarketBucket,
        ),
        (
            real.get("/history", params={"gpu": "h100-sxm", "bucket": "week"}),
            MarketHistory,
            MarketBucket,
        ),
        (real.get("/history/catalog", params={"gpu": "h100"}), CatalogHistory, CatalogDay),
        (
            real.get("/history/catalog", params={"gpu": "mi300x", "from": "2025-01-01"}),
            CatalogHistory,
            CatalogDay,
        ),
    ]
    for response, page, item in answers:
        assert response.status_code == 200, response.text
        msgspec.json.decode(response.content, type=page)  # raises if a type disagrees
        body = response.json()
        assert set(body) == set(spec[page.__name__]["properties"])
        assert body["items"]
        for row in body["items"]:
            assert set(row) == set(spec[item.__name__]["properties"])
            assert set(spec[item.__name__]["required"]) <= set(row)


def test_catalog_as_csv(real):
    response = real.get("/history/catalog", params={"gpu": "h100", "format": "csv"})
    assert response.status_code == 200
    lines = response.text.splitlines()
    assert lines[0].split(",")[:4] == ["day", "gpu_level", "gpu_id", "gpu_family"]
    assert len(lines) == 1 + 25


def test_gpu_chart_matches_history_for_an_id_that_prefixes_another(real, backfilled):
    # h200 is one GPU; h200-nvl is another. The chart built its own 'h200-%' pattern and drew
    # both, while /history?gpu=h200 is the H200 only
    svg = real.get("/charts/gpus/h200/history.svg")  # by week, the 730 days to the snapshot
    assert svg.status_code == 200, svg.text
    drawn = [
        (start, int(providers), int(offers))
        for start, providers, offers in re.findall(
            r"<title>(\d{4}-\d{2}-\d{2}): cheapest [^<]*; (\d+) providers, (\d+) offers"
            r"(?: \([^<)]*\))?</title>",
            svg.text,
        )
    ]
    info = current(backfilled)
    assert info is not None
    as_of = info.as_of.astimezone(UTC).date()
    window = {"from": str(as_of - timedelta(days=729)), "to": str(as_of), "bucket": "week"}
    history = _ok(real, "/history", gpu="h200", **window)["items"]
    assert drawn == [(i["start"], i["provider_count"], i["offer_count"]) for i in history]
    assert _ok(real, "/history", gpu="h200-nvl", **window)["items"], "no H200 NVL to leave out"
    # the same series in SQL on the snapshot: 'h200' is a canonical id, so the H200 only
    first = as_of - timedelta(days=729)
    rows = _snapshot_rows(
        backfilled,
        MARKET_HISTORY_SQL,
        market_history_params("h200", "on_demand", "week", first, as_of, info.as_of),
    )
    assert [(str(r[0]), r[4], r[5]) for r in rows] == drawn
