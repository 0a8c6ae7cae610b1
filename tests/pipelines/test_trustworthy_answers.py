"""The answers a buyer reads first, after a replay of every real capture (issue 10).

Each test is named after the wrong answer it prevents: a GPU share served with its whole GPU's
memory, a placeholder price ranked first, a years-old price marked fresh.
"""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from api.app import create_app

SORTS = ("price", "price_per_gpu", "price_per_vram_gb", "vram")
# every offer of the replay: suspect prices and expired ones (past their shelf life) too
EVERYTHING = {"include_suspect": "true", "include_expired": "true"}


@pytest.fixture(scope="module")
def client(replayed_home):
    paths, _ = replayed_home
    with TestClient(create_app(paths.published)) as test_client:
        yield test_client


def _items(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    response = client.get("/instances", params={"limit": 1000, **params})
    assert response.status_code == 200, response.text
    return response.json()["items"]


def _one(items: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    found = [i for i in items if all(i[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, len(found))
    return found[0]


@pytest.mark.parametrize("sort", SORTS)
def test_gpu_shares_and_placeholders_never_lead_min_vram_80_fp8(client, sort):
    top = _items(client, min_vram=80, fp8="true", sort=sort, limit=20)
    assert len(top) == 20
    for item in top:
        assert item["vram_gb_usable"] >= 80, item
        assert item["gpu_fraction"] == 1
        assert item["price_status"] == "ok"
        assert item["fp8"] is True


def test_gcp_eighth_of_an_rtx_pro_6000_is_12_gb_not_96(client):
    everything = _items(client, provider="gcp", gpu="rtx-pro-6000", **EVERYTHING)
    eighth = _one(everything, instance_type="g4-standard-6", pricing="on_demand")
    assert eighth["gpu_fraction"] == 0.125
    assert eighth["vram_gb_per_gpu"] == 96  # the datasheet figure of the GPU it is a share of
    assert eighth["vram_gb_usable"] == 12
    assert eighth["vram_gb_total"] == 12
    # $/GB-hour is per usable GB: 12 GB for the share's price
    assert eighth["price_per_vram_gb_hour_usd"] == pytest.approx(
        eighth["price_per_hour_usd"] / 12, rel=1e-4
    )
    assert eighth["id"] not in {i["id"] for i in _items(client, min_vram=13, provider="gcp")}


def test_runpod_mig_1g_24gb_slice_is_24_gb_not_96(client):
    items = _items(client, provider="runpod", gpu="rtx-pro-6000", **EVERYTHING)
    mig = [i for i in items if "MIG 1g.24gb" in i["instance_type"]]
    assert mig
    for item in mig:
        assert (item["gpu_fraction"], item["vram_gb_usable"]) == (0.25, 24)


def test_vast_h100_mib_report_does_not_replace_the_datasheet_80_gb(client):
    h100 = _items(client, provider="vast", gpu=["h100-sxm", "h100-pcie"], **EVERYTHING)
    assert h100
    for item in h100:
        assert item["vram_gb_per_gpu"] == item["vram_gb_usable"] == 80
        assert item["vram_gb_reported"] is not None
    assert any(i["vram_gb_reported"] > 85 for i in h100)  # MiB read as GB, kept beside
    # every H100 provider answers gpu=h100-sxm&min_vram=80, not only the one that over-reports
    h100_80 = _items(client, gpu="h100-sxm", min_vram=80, include_expired="true")
    providers = {i["provider"] for i in h100_80}
    assert {"lambda", "aws", "gcp"} <= providers


def test_vultr_gh200_is_96_gb_of_gpu_memory_not_480(client):
    gh200 = _items(client, provider="vultr", gpu="gh200", pricing="spot", **EVERYTHING)
    assert sorted(o["region"] for o in gh200) == ["atl", "ewr", "man"]  # one per location
    for offer in gh200:
        assert offer["vram_gb_per_gpu"] == 96
        assert offer["vram_gb_reported"] == 480
        assert offer["vram_report_mismatch"] is True


def test_datasheet_memory_for_every_h100_h200_a100_80gb_and_gh200_offer(client):
    expected = {
        "h100-sxm": 80,
        "h100-pcie": 80,
        "h200": 141,
        "h200-nvl": 141,
        "a100-80gb-sxm": 80,
        "a100-80gb-pcie": 80,
        "gh200": 96,
    }
    items = _items(client, gpu=list(expected), **EVERYTHING)
    assert {i["gpu_id"] for i in items} == set(expected)
    for item in items:
        assert item["vram_gb_per_gpu"] == expected[item["gpu_id"]], item


def test_runpod_050_placeholders_are_suspect_and_hidden_by_default(client):
    everything = _items(client, provider="runpod", **EVERYTHING)
    placeholders = [i for i in everything if i["price"] == 0.5 and i["price_per"] == "gpu"]
    assert len(placeholders) >= 10
    for item in placeholders:
        assert item["price_status"] == "suspect"
        assert {r["code"] for r in item["price_status_reasons"]} & {
            "repeated_price",
            "not_offered",
        }
    default_ids = {i["id"] for i in _items(client, provider="runpod")}
    assert not default_ids & {i["id"] for i in placeholders}
    h200_nvl = _one(placeholders, instance_type="1x NVIDIA H200 NVL", cloud_tier="community")
    assert h200_nvl["price_status"] == "suspect"


def test_sibling_placeholder_does_not_make_the_real_community_price_suspect(client):
    items = _items(client, provider="runpod", gpu="rtx-pro-6000-max-q", **EVERYTHING)
    community = _one(items, cloud_tier="community", pricing="on_demand")
    assert community["price"] == 1.64  # above the secure 0.50 placeholder, and real
    assert community["price_status"] == "ok"


def test_no_price_older_than_30_days_reads_fresh(client):
    items = _items(client, **EVERYTHING)
    assert items
    for item in items:
        assert item["stale"] is (item["age_days"] > 30), item
    coreweave_2023 = [i for i in items if i["observed_at"].startswith("2023")]
    assert all(i["stale"] for i in coreweave_2023)
    assert not _items(client, max_age_days=0)  # a replay serves only recorded, dated prices


def test_a_capture_dated_to_a_month_says_so(client):
    aws = _items(client, provider="aws", **EVERYTHING)
    assert {i["observed_precision"] for i in aws} == {"month"}  # c2026-09_...
    assert {i["data_origin"] for i in aws} == {"recorded"}
    hetzner = _items(client, provider="hetzner", **EVERYTHING)
    assert {i["observed_precision"] for i in hetzner} == {"minute"}  # 2026-04-01T18_...


def test_datacrunch_dynamic_price_is_its_own_pricing_kind(client):
    dynamic = _items(client, provider="datacrunch", pricing="dynamic", **EVERYTHING)
    assert dynamic
    on_demand = {
        i["instance_type"]: i["price"]
        for i in _items(client, provider="datacrunch", pricing="on_demand", **EVERYTHING)
    }
    for item in dynamic:
        assert not item["instance_type"].endswith("dynamic")
        assert item["instance_type"] in on_demand


def test_unknown_gpu_capabilities_are_null_and_fp8_false_does_not_match_them(client):
    everything = _items(client, **EVERYTHING)
    unknown = [i for i in everything if i["gpu_id"] is None]
    for item in unknown:
        assert (item["fp8"], item["bf16"], item["vram_gb_usable"]) == (None, None, None)
    without_fp8 = _items(client, fp8="false", **EVERYTHING)
    assert without_fp8 and all(i["fp8"] is False for i in without_fp8)


def test_usd_offers_carry_no_fx_date(client):
    for item in _items(client, provider="lambda", **EVERYTHING):
        assert (item["currency"], item["usd_per_unit"], item["fx_rate_date"]) == ("USD", 1, None)


def test_providers_say_how_many_offers_are_suspect_stale_and_where_data_came_from(client):
    body = client.get("/providers").json()
    runpod = _one(body["items"], provider="runpod")
    assert runpod["suspect_offer_count"] >= 10
    assert runpod["data_origin"] == "recorded"
    assert runpod["stale_offer_count"] == runpod["current_offer_count"]  # replayed: all > 30 d


def test_offer_staleness_threshold_is_read_at_run_time(replayed_home, tmp_path, monkeypatch):
    import shutil

    from warehouse.db import Warehouse
    from warehouse.derive import rebuild
    from warehouse.paths import Paths
    from warehouse.quality import OFFER_STALE_AFTER_ENV
    from warehouse.settings import Settings

    paths = Paths(tmp_path / "home")
    shutil.copytree(replayed_home[0].home, paths.home)
    with Warehouse(paths.warehouse).connect() as con:
        monkeypatch.setenv(OFFER_STALE_AFTER_ENV, "100000")
        rebuild(con, stale_after_days=Settings.load().stale_after_days)
        assert con.execute("select count(*) from current_offers where stale").fetchone() == (0,)
        monkeypatch.setenv(OFFER_STALE_AFTER_ENV, "0")
        rebuild(con, stale_after_days=Settings.load().stale_after_days)
        assert con.execute("select bool_and(stale) from current_offers").fetchone() == (True,)


def test_fit_counts_a_gpu_share_by_the_memory_it_gives(client):
    def serving(model: str) -> list[dict[str, Any]]:
        params = {"model": model, "precision": "fp8", "context": 4096, "gpu": "rtx-pro-6000"}
        response = client.get("/fit", params={**params, "limit": 1000})
        assert response.status_code == 200, response.text
        return response.json()["offers"]

    small = [o for o in serving("llama-3.1-8b") if o["gpu_count"] < 1]
    # an 8B model at FP8 (~8 GB of weights) fits a 24 GB MIG slice and a half share (48 GB)
    assert any("MIG 1g.24gb" in o["instance_type"] for o in small)
    assert all(o["gpu_count"] * 96 >= 12 for o in small)
    # a 70B model at FP8 (~70 GB of weights) fits no share of a 96 GB GPU
    assert not [o for o in serving("llama-3.1-70b") if o["gpu_count"] < 1]


def test_runpod_16_gb_serverless_tier_is_one_offer_at_its_guaranteed_minimum(client):
    tiers = _items(client, provider="runpod-serverless", **EVERYTHING)
    sixteen = [i for i in tiers if "16 GB" in i["instance_type"]]
    assert len(sixteen) == 2  # flex and active, not one per candidate GPU
    for tier in sixteen:
        assert set(tier["gpu_candidates"]) == {"rtx-a4000", "rtx-a4500", "rtx-4000-ada"}
        assert tier["vram_gb_per_gpu"] == tier["vram_gb_usable"] == 16  # not the A4500's 20
        assert tier["fp8"] is False  # the A4000 and A4500 have no FP8
        assert tier["data_origin"] == "curated"


def test_runpod_050_placeholder_feeds_no_market_history(client):
    response = client.get(
        "/history",
        params={"gpu": "mi300x", "pricing": "on_demand", "bucket": "month", "from": "2023-01-01"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    buckets = body.get("items") or body.get("buckets")
    assert buckets
    assert all(b["min_usd_per_gpu_hour"] > 0.5 for b in buckets)


def test_suspect_prices_and_memory_reports_turn_warn_checks_yellow_not_red():
    import dagster as dg

    from pipelines.defs.providers import _check_results

    results = {
        r.check_name: r
        for r in _check_results(
            "runpod",
            [],
            suspect={"1x NVIDIA H200 NVL community on_demand 0.5 USD": ["repeated_price"]},
            vram_mismatches=["vbm-72c-480gb-gh200-gpu: GH200 reported 480 GB, datasheet 96 GB"],
        )
    }
    for name in ("prices_plausible", "vram_matches_datasheet"):
        assert results[name].passed is False
        assert results[name].severity == dg.AssetCheckSeverity.WARN
    assert results["prices_plausible"].metadata["suspect_offers"].value == 1
    assert results["non_empty"].passed and results["no_price_jumps"].passed
