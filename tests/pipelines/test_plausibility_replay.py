"""The plausibility screen across regions and plans, and prices a later capture confirms
(issue 22 item 5), on a replay of every real capture (``replayed_home``).

Figures read off the captures in ../shared/snapshots:
- azure/c2026-10_retail_prices_api_gpu_items_sample.json: Standard_ND96isr_H200_v5 "Virtual
  Machines NDsrH200v5 Series" (Linux) on-demand 106.0 in japaneast and usgovvirginia, Spot
  106.0 in uksouth;
- vultr/2026-04-01T18_plans-metal_items.json: deploy_ondemand false and hourly_cost =
  hourly_cost_preemptible for vbm-72c-480gb-gh200-gpu (1.99) and vbm-256c-3072gb-8-mi355x-gpu
  (20.72); vbm-64c-2048gb-8-l40-gpu 13.368 / 11.92 (0.892x, a discount);
- datacrunch/2025-08-08_wayback_products_pricing_excerpt.html: 1B200.30V spot $0.80/h;
- runpod/c2026-09_graphql_gpuTypes_response.json: RTX 3090 securePrice 0.5 (one of 11 GPU models
  quoted 0.5), AMD MI300X communityPrice 0.5 (a slot the 2025-06 captures flag
  communityCloud false).

A later capture is the same page captured again on a later day (``redated_replay``: a copy of
the real capture under a later date, in a temporary directory).
"""

from __future__ import annotations

import shutil
from typing import Any

import duckdb
import pytest
from litestar.testing import TestClient

from api.app import create_app
from scrapers.base import PricingModel
from scrapers.vultr import PROVIDER as VULTR
from tests.conftest import SNAPSHOTS, raw_from_capture
from tests.support.harness import direct_ingest, past_days, redated_replay
from warehouse.paths import Paths
from warehouse.plausibility_rules import MarketOffer, screen

EVERYTHING = {"include_suspect": "true", "include_expired": "true", "include_unavailable": "true"}
DATACRUNCH = SNAPSHOTS / "datacrunch" / "2025-08-08_wayback_products_pricing_excerpt.html"
RUNPOD = SNAPSHOTS / "runpod" / "c2026-09_graphql_gpuTypes_response.json"
VULTR_2026 = SNAPSHOTS / "vultr" / "2026-04-01T18_plans-metal_items.json"


def _items(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/instances", params={"limit": 1000, **params})
    assert response.status_code == 200, response.text
    return response.json()["items"]


def _one(items: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    found = [i for i in items if all(i[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, len(found))
    return found[0]


def _codes(item: dict[str, Any]) -> list[str]:
    return [r["code"] for r in item["price_status_reasons"]]


@pytest.fixture(scope="module")
def client(replayed_home):
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def recaptured(replayed_home, tmp_path_factory):
    """A copy of the replayed home into which the DataCrunch and RunPod pages were captured
    again on a later day (same prices): (its Paths, a client over its new snapshot)."""
    paths, _ = replayed_home
    home = tmp_path_factory.mktemp("recaptured-home")
    shutil.copytree(paths.home, home, dirs_exist_ok=True)
    replay = redated_replay(tmp_path_factory.mktemp("later"), [DATACRUNCH, RUNPOD], past_days(1)[0])
    direct_ingest(home, replay, ["datacrunch", "runpod"])
    with TestClient(create_app(Paths(home).published)) as test_client:
        yield Paths(home), test_client


def test_azure_h200_uksouth_spot_equal_to_ondemand_elsewhere_is_suspect(client):
    items = _items(client, provider="azure", **EVERYTHING)
    h200 = [i for i in items if i["instance_type"] == "Standard_ND96isr_H200_v5"]
    spot = _one(h200, region="uksouth", pricing="spot")
    assert spot["price"] == 106.0
    assert spot["price_status"] == "suspect"
    assert _codes(spot) == ["spot_near_on_demand"]
    assert (
        "106.0000 USD/h of the same SKU in region japaneast"
        in (spot["price_status_reasons"][0]["detail"])
    )
    assert _one(h200, region="japaneast", pricing="on_demand")["price_status"] == "ok"
    assert spot["id"] not in {i["id"] for i in _items(client, provider="azure")}


def test_vultr_spot_equal_to_listed_ondemand_is_suspect(client):
    items = _items(client, provider="vultr", **EVERYTHING)
    for plan, price in (("vbm-72c-480gb-gh200-gpu", 1.99), ("vbm-256c-3072gb-8-mi355x-gpu", 20.72)):
        spots = [i for i in items if i["instance_type"] == plan and i["pricing"] == "spot"]
        assert spots  # GH200: one per location (ewr, atl, man)
        for spot in spots:
            listed = _one(items, instance_type=plan, pricing="on_demand", region=spot["region"])
            assert spot["price"] == listed["price"] == price
            assert (spot["price_status"], _codes(spot)) == ("suspect", ["spot_near_on_demand"])
            assert "(listed, not offered)" in spot["price_status_reasons"][0]["detail"]
            # the listed on-demand price is a reference, not an offer: suspect, never served
            assert (listed["price_status"], _codes(listed)) == ("suspect", ["not_offered"])
    # 11.92 spot is 0.892x the listed 13.368: a discount, still served
    l40 = _one(items, instance_type="vbm-64c-2048gb-8-l40-gpu", pricing="spot")
    assert (l40["price"], l40["price_status"]) == (11.92, "ok")
    # both plans deployable on demand list no location (sold out): served only on request
    served = _items(client, provider="vultr", include_expired="true")
    assert [i for i in served if i["pricing"] == "on_demand"] == []
    served = _items(client, provider="vultr", include_expired="true", include_unavailable="true")
    assert {(i["instance_type"], i["pricing"]) for i in served if i["pricing"] == "on_demand"} == {
        ("vbm-112c-2048gb-8-a100-gpu", "on_demand"),  # the two plans deployable on demand
        ("vbm-48c-1024gb-4-a100-gpu", "on_demand"),
    }


def _market(offers) -> list[MarketOffer]:
    """The screen's view of parsed Vultr offers (USD per instance-hour as quoted)."""
    return [
        MarketOffer(
            offer_id=f"{o.instance_type}/{o.pricing}",
            scrape_id="s",
            provider=o.provider,
            instance_type=o.instance_type,
            region=o.region,
            cloud_tier=o.cloud_tier,
            pricing=str(o.pricing),
            gpu_id=None,
            gpu_name_provider=o.gpu_name,
            gpu_count=o.gpu_count,
            vram_gb_per_gpu=None,
            price=o.price,
            currency=o.currency,
            price_unit=str(o.price_unit),
            price_per=str(o.price_per),
            price_per_hour_usd=o.price,
            price_per_gpu_hour_usd=o.price / o.gpu_count,
            offered=o.offered,
        )
        for o in offers
    ]


def test_vultr_spot_equal_to_listed_ondemand_is_suspect_whether_reference_or_unavailable_offer():
    offers = VULTR.parse([raw_from_capture(VULTR_2026)])
    as_reference = screen(_market(offers))
    # the same on-demand price served as an (unavailable) offer without the not-offered flag
    as_offer = screen(
        _market(
            o.model_copy(update={"offered": None}) if o.pricing is PricingModel.ON_DEMAND else o
            for o in offers
        )
    )
    # a not-offered reference is consulted by the SKU rule; an offer (available or not) is the
    # same instance's on-demand price, which the spot price does not undercut
    for verdicts, code in (
        (as_reference, "spot_near_on_demand"),
        (as_offer, "spot_not_below_on_demand"),
    ):
        for plan in ("vbm-72c-480gb-gh200-gpu", "vbm-256c-3072gb-8-mi355x-gpu"):
            assert [r.code for r in verdicts[f"{plan}/spot"]] == [code]
        assert "vbm-64c-2048gb-8-l40-gpu/spot" not in verdicts


def test_datacrunch_b200_spot_080_confirmed_by_later_capture(client, recaptured):
    before = _one(
        _items(client, provider="datacrunch", **EVERYTHING),
        instance_type="1B200.30V",
        pricing="spot",
    )
    assert (before["price"], before["price_status"]) == (0.8, "suspect")  # one capture only
    paths, later = recaptured
    items = _items(later, provider="datacrunch", **EVERYTHING)
    spot = _one(items, instance_type="1B200.30V", pricing="spot")
    assert (spot["price"], spot["price_status"]) == (0.8, "confirmed")
    assert _codes(spot) == ["below_market", "confirmed"]
    assert spot["price_status_reasons"][1]["detail"] == (
        "the same price was also observed on 2025-08-08"
    )
    assert spot["id"] in {i["id"] for i in _items(later, provider="datacrunch")}  # served
    # the later capture confirms the first one too: its history interval is no longer suspect
    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        rows = con.execute(
            "select ps.price_status from price_screens as ps"
            " inner join scrapes as s on ps.scrape_id = s.scrape_id"
            " where ps.offer_id = ? order by s.observed_at",
            [spot["id"]],
        ).fetchall()
    finally:
        con.close()
    assert [r[0] for r in rows] == ["confirmed", "confirmed"]


def test_runpod_3090_secure_050_confirmed(client, recaptured):
    rtx3090 = "1x NVIDIA GeForce RTX 3090"
    before = _one(
        _items(client, provider="runpod", **EVERYTHING), instance_type=rtx3090, cloud_tier="secure"
    )
    assert (before["price"], _codes(before)) == (0.5, ["repeated_price"])
    _, later = recaptured
    items = _items(later, provider="runpod", **EVERYTHING)
    secure = _one(items, instance_type=rtx3090, cloud_tier="secure")
    assert (secure["price"], secure["price_status"]) == (0.5, "confirmed")
    assert _codes(secure) == ["repeated_price", "confirmed"]
    assert "2026-09-01" in secure["price_status_reasons"][1]["detail"]
    # a placeholder the provider flagged is not confirmed by its repetition, though the
    # observations that carried the flag are past their retention: the stored verdicts keep it
    mi300x = _one(items, instance_type="1x AMD Instinct MI300X OAM", cloud_tier="community")
    assert (mi300x["price"], mi300x["price_status"]) == (0.5, "suspect")
    assert "not_offered" in _codes(mi300x)
    h200_nvl = _one(items, instance_type="1x NVIDIA H200 NVL", cloud_tier="community")
    assert (h200_nvl["price_status"], "not_offered" in _codes(h200_nvl)) == ("suspect", True)
