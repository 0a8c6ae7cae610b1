"""Every served price says where it comes from (issue 22 item 3), on the replay of every capture
published at 2026-12-02, the day the issue was filed.

Before, the cheapest H100 on demand was fal's "$1.89/h", copied from an undated third-party blog
and dated by the day it was read, so a first-run ``max_age_days=30`` answer held nothing else
than such rows and none said where its date came from.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import TestClient

from api.app import create_app
from tests.support.published import republished_at

AT = datetime(2026, 12, 2, tzinfo=UTC)
KINDS = {"provider", "third_party"}
BASES = {"published", "captured", "retrieved", "undated"}


@pytest.fixture(scope="module")
def client(replayed_home, tmp_path_factory):  # replayed_home: tests/conftest.py
    home = republished_at(replayed_home, tmp_path_factory.mktemp("curated-sources-home"), AT)
    with TestClient(create_app(home.published, reload_interval_s=3600)) as test_client:
        yield test_client


def _get(client: TestClient, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _items(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    return _get(client, "/instances", limit=1000, **params)["items"]


def test_every_curated_item_says_source_kind_and_observed_basis(client):
    items = _items(
        client, include_expired="true", include_suspect="true", include_unavailable="true"
    )
    assert len(items) == _get(client, "/health")["offers"]  # every current offer
    for item in items:
        assert item["source_kind"] in KINDS and item["observed_basis"] in BASES, item["id"]
        if item["price_source"] == "scrape":  # read off the provider's own stored response
            assert (item["source_kind"], item["observed_basis"]) == ("provider", "captured")
    curated = [i for i in items if i["price_source"] == "curated"]
    # 70 since issue 26: fal is scraped, and its curated tiers are not served beside its scrape
    assert len(curated) == 70
    # a third-party price is dated by its own published date
    assert {i["observed_basis"] for i in curated if i["source_kind"] == "third_party"} == {
        "published"
    }
    # the CSV answer carries the same two columns
    response = client.get("/instances", params={"format": "csv", "limit": 1000})
    assert response.status_code == 200, response.text
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert rows and {"source_kind", "observed_basis"} <= set(rows[0])
    assert {r["source_kind"] for r in rows} == KINDS


def test_cheapest_h100_on_demand_is_not_an_undated_third_party_blog_price(client):
    items = _items(client, gpu="h100", pricing="on_demand", sort="price_per_gpu")
    cheapest = items[0]
    assert (
        cheapest["provider"],
        cheapest["instance_type"],
        cheapest["price_per_gpu_hour_usd"],
    ) == (
        "runpod",
        "1x NVIDIA H100 PCIe",
        1.99,
    )
    assert (cheapest["source_kind"], cheapest["observed_basis"]) == ("provider", "captured")
    assert all(i["observed_basis"] != "undated" for i in items)
    (fal,) = [i for i in items if i["provider"] == "fal"]  # the list price on fal's own page
    assert (fal["price_per_gpu_hour_usd"], fal["observed_at"], fal["source_url"]) == (
        4.5,
        "2026-08-22T00:00:00Z",
        "https://fal.ai/pricing",
    )
    assert (fal["source_kind"], fal["observed_basis"]) == ("provider", "captured")


def test_first_run_max_age_30_is_only_first_party_pages_read_and_says_so(client):
    # No capture is younger than 92 days on 2026-12-02; what max_age_days=30 still returns are
    # first-party pages read on 2026-11-29 without a stored copy, and each item says so.
    items = _items(client, max_age_days=30)
    assert len(items) == 30
    assert {(i["price_source"], i["source_kind"], i["observed_basis"]) for i in items} == {
        ("curated", "provider", "retrieved")
    }
    assert not any(i["provider"] == "fal" for i in items)  # was the $1.89 blog price


def test_facts_and_tiers_say_source_kind_and_observed_basis(client):
    aws = _get(client, "/providers/aws")["facts"]
    assert (aws["source_kind"], aws["observed_basis"], aws["facts_as_of"]) == (
        "third_party",
        "undated",
        None,
    )
    hetzner = _get(client, "/providers/hetzner")["facts"]
    assert (hetzner["observed_basis"], hetzner["facts_as_of"], hetzner["capture_files"]) == (
        "captured",
        "2026-04-01",
        "hetzner/2026-04-01T18_server-auction_live_data_sb_EUR_items.json",
    )
    platform = _get(client, "/providers/fal")["serverless_platform"]
    assert (platform["source_kind"], platform["observed_basis"]) == ("third_party", "published")
    tiers = {t["tier"]: t for t in platform["tiers"]}
    # fal's H100 price is scraped since issue 26 (2026-08-22 pricing page): no curated H100 tier
    assert "GPU-H100" not in tiers
    assert {(t["price_source"], t["source_kind"], t["observed_basis"]) for t in tiers.values()} == {
        ("scrape", "provider", "captured")
    }
