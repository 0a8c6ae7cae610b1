"""GET /instances/{id}/history, /history and /changes over a snapshot of a small warehouse whose
history is known exactly: two providers scraped three times, plus an imported interval."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import duckdb
import pytest
from litestar.testing import TestClient

from api.app import create_app
from warehouse.db import Warehouse, load_seeds
from warehouse.derive import rebuild
from warehouse.load import commit_scrape, offer_id, prepare, start_scrape
from warehouse.publish import publish

T0 = datetime(2026, 1, 9, 10, 0, tzinfo=UTC)
T1 = datetime(2026, 2, 9, 12, 0, tzinfo=UTC)
T2 = datetime(2026, 3, 9, 12, 0, tzinfo=UTC)
NOW = datetime(2026, 3, 20, tzinfo=UTC)
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
    rows, validation = prepare(con, offers)
    assert validation.ok, validation.problems()
    commit_scrape(con, scrape_id=sid, provider=provider, observed_at=when, rows=rows)


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    home = tmp_path_factory.mktemp("history-api")
    with Warehouse(home / "warehouse.duckdb").connect() as con:
        con.execute("begin transaction")
        load_seeds(con)
        con.execute("commit")
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
                gpu_name, serverless)
            values
              ('imp-lambda', 'lambda', '2026-01-10', '2026-01-12', '1x H100', 'US',
               'on_demand', 'h100-sxm', 1, 1.00, 'USD', 1.00, 'import:test', 'H100 SXM', false),
              ('imp-salad', 'salad', '2026-01-10', '2026-01-12', '1x H100', 'global',
               'on_demand', 'h100-sxm', 1, 2.00, 'USD', 2.00, 'import:test', 'H100 SXM', false)
        """)
        rebuild(con, now=NOW)
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
    }
    # salad is only known from imported history; it counts as a third provider
    assert by_day["2026-01-10"]["provider_count"] == 3
    assert by_day["2026-01-10"]["median_usd_per_gpu_hour"] == 2.69
    assert by_day["2026-01-10"]["min_usd_per_gpu_hour"] == 2.0


def test_market_history_follows_a_price_change(client):
    body = _ok(client, "/history", gpu="h100", **{"from": "2026-02-08", "to": "2026-02-10"})
    # lambda's cheapest offer per day: 2.99 until the change at noon on the 9th, then its 1x
    # at 3.29 is cheaper than the 8x at 3.49
    assert [i["max_usd_per_gpu_hour"] for i in body["items"]] == [2.99, 2.99, 3.29]
    assert body["gpu"] == "h100"


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
        }
    ]


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
