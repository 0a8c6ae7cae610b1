"""Facts and economics endpoints over a snapshot of every real capture replayed through Dagster:
/models, /estimates (table and computed paths agree with token_estimates), /fit, /breakeven,
/providers/{slug}, /serverless, /instances?cheapest_per_gpu=true, and the OpenAPI units."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from decimal import Decimal

import duckdb
import pytest
from litestar.testing import TestClient

from api.app import create_app
from tests.conftest import REPO
from warehouse import economics
from warehouse.publish import current

SEEDS = REPO / "warehouse" / "seeds"


@pytest.fixture(scope="module")
def client(replayed_home):
    paths, _ = replayed_home
    with TestClient(create_app(paths.published, reload_interval_s=3600)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def snapshot(replayed_home):
    """The published snapshot file the API serves, opened read-only (the table side)."""
    paths, _ = replayed_home
    info = current(paths.published)
    assert info is not None
    con = duckdb.connect(str(info.path), read_only=True)
    yield con
    con.close()


def _rows(con, sql: str, params: list | None = None) -> list[dict]:
    result = con.execute(sql, params or [])
    columns = [d[0] for d in result.description]
    return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]


def _get(client, path: str, **params) -> dict:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def _seed(name: str) -> list[dict[str, str]]:
    with (SEEDS / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


# --- /models --------------------------------------------------------------------------------


def test_models_lists_every_reference_model_with_its_id(client):
    body = _get(client, "/models")
    assert [m["model_id"] for m in body["items"]] == sorted(
        r["model_id"] for r in _seed("models.csv")
    )
    llama = next(m for m in body["items"] if m["model_id"] == "llama-3.1-70b")
    assert (llama["layers"], llama["kv_heads"], llama["params_total_b"]) == (80, 8, 70.6)


# --- /estimates -----------------------------------------------------------------------------


def test_standard_estimates_are_the_token_estimates_table(client, snapshot):
    body = _get(client, "/estimates", model="llama-3.1-70b", limit=1000)
    table = _rows(
        snapshot,
        """
        select e.offer_id, e.usd_per_million_total_tokens, e.usd_per_million_output_tokens,
               e.output_tokens_per_s, e.precision_requested, e.gpus_used
        from token_estimates e inner join current_offers o using (offer_id)
        where e.model_id = 'llama-3.1-70b' and e.fits and not o.expired
          and o.available is not false
        order by e.usd_per_million_total_tokens, e.offer_id""",
    )  # expired prices and offers not on sale (available false: Latitude.sh's Netherlands
    # g4.rtx6kpro.large) are left out by default (include_expired, include_unavailable)
    assert body["source"] == "token_estimates"
    assert body["total"] == len(table) == len(body["items"]) > 20
    for item, row in zip(body["items"], table, strict=True):
        assert item["offer_id"] == row["offer_id"]
        assert (
            Decimal(str(item["usd_per_million_total_tokens"]))
            == row["usd_per_million_total_tokens"]
        )
        assert (
            Decimal(str(item["usd_per_million_output_tokens"]))
            == row["usd_per_million_output_tokens"]
        )
        assert item["output_tokens_per_s"] == row["output_tokens_per_s"]
        assert (item["precision_requested"], item["gpus_used"]) == (
            row["precision_requested"],
            row["gpus_used"],
        )
    costs = [i["usd_per_million_total_tokens"] for i in body["items"]]
    assert costs == sorted(costs)


def test_computed_estimates_agree_with_the_table(client):
    # On FP8 GPUs the standard precision is fp8: asking for fp8 explicitly takes the computed
    # path (warehouse.estimates.estimate_rows over the snapshot) and must give the same rows.
    table = _get(client, "/estimates", model="qwen3-32b", gpu=["h100", "h200"], limit=1000)
    computed = _get(
        client, "/estimates", model="qwen3-32b", gpu=["h100", "h200"], precision="fp8", limit=1000
    )
    assert (table["source"], computed["source"]) == ("token_estimates", "computed")
    assert table["total"] == computed["total"] > 10
    assert table["items"] == computed["items"]


def test_non_standard_tokens_change_the_estimate(client):
    standard = _get(client, "/estimates", model="llama-3.1-8b", provider="lambda", limit=1000)
    long_prompt = _get(
        client,
        "/estimates",
        model="llama-3.1-8b",
        provider="lambda",
        input_tokens=8000,
        output_tokens=200,
        limit=1000,
    )
    assert long_prompt["source"] == "computed" and long_prompt["input_tokens"] == 8000
    by_id = {i["offer_id"]: i for i in standard["items"]}
    for item in long_prompt["items"]:
        # prefill-heavy requests: fewer generated tokens per second on the same hardware
        assert item["output_tokens_per_s"] < by_id[item["offer_id"]]["output_tokens_per_s"]


def test_hardware_estimate_matches_the_table_row_of_the_same_hardware(client, snapshot):
    lambda_8x_h100 = _rows(
        snapshot,
        """
        select e.* from token_estimates e join current_offers o using (offer_id)
        where o.provider = 'lambda' and o.gpu_id = 'h100-sxm' and o.gpu_count = 8
          and e.model_id = 'llama-3.1-70b'""",
    )[0]
    body = _get(client, "/estimates", model="llama-3.1-70b", gpu="h100-sxm", gpus=8)
    assert body["fits"] and "usd_per_million_total_tokens" not in body
    assert body["output_tokens_per_s"] == lambda_8x_h100["output_tokens_per_s"]
    assert body["tensor_parallel"] * body["data_parallel"] == 8
    assert body["precision_requested"] == "fp8" and body["precision_native"]
    one = _get(client, "/estimates", model="llama-3.1-405b", gpu="h100-sxm", gpus=1)
    assert not one["fits"] and "does not fit" in one["not_estimated_reason"]


def test_every_estimate_states_its_assumptions(client, snapshot):
    body = _get(client, "/estimates", model="llama-3.1-70b", limit=1000, include_expired="true")
    table = {
        r["offer_id"]: r
        for r in _rows(snapshot, "select * from token_estimates where model_id = 'llama-3.1-70b'")
    }
    regimes, by_gpu = set(), {}
    for item in body["items"]:
        a, row = item["assumptions"], table[item["offer_id"]]
        assert a["engine_class"] == economics.ENGINE_CLASS
        assert (a["batch_per_replica"], a["kv_precision"]) == (
            item["batch_per_replica"],
            item["kv_precision"],
        )
        assert a["batch_cap_per_replica"] == economics.DEFAULT_MAX_BATCH
        assert 0 < a["hbm_bandwidth_fraction"] < 1 and a["kv_cache_gb_per_replica"] > 0
        # the table's columns, as served
        assert {k: row[k] for k in economics.ASSUMPTION_COLUMNS} == {
            k: a[k] for k in economics.ASSUMPTION_COLUMNS
        }
        regimes.add((a["limiting_regime"], a["batch_limited_by"]))
        by_gpu.setdefault((item["gpu_id"], item["tensor_parallel"]), set()).add(
            a["limiting_regime"]
        )
        # and the band every item carries
        assert item["output_tokens_per_s_low"] < item["output_tokens_per_s"]
        assert item["output_tokens_per_s"] < item["output_tokens_per_s_high"]
        low, high = (
            item["usd_per_million_total_tokens_low"],
            item["usd_per_million_total_tokens_high"],
        )
        assert low < item["usd_per_million_total_tokens"] < high
    # 1000/1000 tokens fill the KV cache before the batch cap everywhere. Llama 3.1 70B is
    # compute bound on the big-memory GPUs; on one H100 SXM (2.6 GB of KV beside 72.7 GB of
    # fp8 blocks and 16-bit vocabulary matrices) the weight stream a larger batch would share is
    # the step: KV-capacity bound. So is one H100 NVL (16.1 GB of KV, 65 sequences): 85% of its
    # step is the weight stream and fixed costs.
    assert regimes == {
        ("compute_bound", "kv_cache"),
        ("kv_capacity_bound", "kv_cache"),
    }
    assert by_gpu[("b200", 1)] == {"compute_bound"}
    assert by_gpu[("h100-sxm", 1)] == {"kv_capacity_bound"}
    assert by_gpu[("h100-nvl", 1)] == {"kv_capacity_bound"}
    # one B200 (RunPod's $5.98/h offer leads the ranking): 403 sequences of fp8 KV, 1,000 + 500
    # tokens each on average, in 99.2 GB
    first = _get(client, "/estimates", model="llama-3.1-70b", limit=1)["items"][0]
    assert (first["gpu_id"], first["assumptions"]["batch_per_replica"]) == ("b200", 403)
    assert first["assumptions"]["kv_cache_gb_per_replica"] == 99.245
    # served estimates assume KV allocated as sequences grow (the tuned engines' admission)
    assert first["assumptions"]["kv_admission"] == "max_utilization"
    # the hardware answer states them too (null when the model does not fit), and the computed
    # path gives the same assumptions as the table for the same hardware
    hardware = _get(client, "/estimates", model="llama-3.1-70b", gpu="b200", gpus=1)
    assert hardware["assumptions"] == first["assumptions"]
    alone = _get(client, "/estimates", model="llama-3.1-405b", gpu="h100-sxm", gpus=1)
    assert not alone["fits"] and alone["assumptions"] is None
    short = _get(client, "/estimates", model="llama-3.1-8b", gpu="b200", gpus=1,
                 input_tokens=128, output_tokens=128)  # fmt: skip
    assert short["assumptions"]["batch_limited_by"] == "batch_cap"
    # a power-limited board says so: H100 NVL (400 W) sustains 0.677 of its datasheet peak
    nvl = _get(client, "/estimates", model="llama-3.1-70b", gpu="h100-nvl", gpus=2)
    assert nvl["assumptions"]["sustained_compute_fraction"] == 0.677
    assert first["assumptions"]["sustained_compute_fraction"] == 1.0
    document = _get(client, "/schema/openapi.json")
    schema = document["components"]["schemas"]["EstimateAssumptions"]
    assert set(schema["properties"]) == set(economics.ASSUMPTION_KEYS)
    assert all(p.get("description") for p in schema["properties"].values())
    assert set(schema["properties"]["limiting_regime"]["enum"]) == set(economics.LIMITING_REGIMES)


def test_kv_admission_policy_is_a_choice_of_the_caller(client):
    # TensorRT-LLM's default GUARANTEED_NO_EVICT reserves the whole output at admission: Llama
    # 3.1 70B fp8 at 128/4096 on 2 x H100 (TP2) runs 112 sequences, not 218, and 4,294 tok/s,
    # not 6,504 (docs/estimates.md section 2)
    shape = {"model": "llama-3.1-70b", "gpu": "h100-sxm", "gpus": 2,
             "input_tokens": 128, "output_tokens": 4096}  # fmt: skip
    tuned = _get(client, "/estimates", **shape)
    no_evict = _get(client, "/estimates", **shape, kv_admission="guaranteed_no_evict")
    assert (tuned["assumptions"]["kv_admission"], tuned["batch_per_replica"]) == (
        "max_utilization",
        218,
    )
    assert (no_evict["assumptions"]["kv_admission"], no_evict["batch_per_replica"]) == (
        "guaranteed_no_evict",
        112,
    )
    assert round(tuned["output_tokens_per_s"]) == 6504
    assert round(no_evict["output_tokens_per_s"]) == 4294
    # the offer ranking computes with the policy asked for (token_estimates holds the default)
    ranked = _get(client, "/estimates", model="llama-3.1-70b", kv_admission="guaranteed_no_evict",
                  limit=3)  # fmt: skip
    assert (ranked["source"], ranked["kv_admission"]) == ("computed", "guaranteed_no_evict")
    assert {i["assumptions"]["kv_admission"] for i in ranked["items"]} == {"guaranteed_no_evict"}
    default = _get(client, "/estimates", model="llama-3.1-70b", limit=3)
    assert (default["source"], default["kv_admission"]) == ("token_estimates", "max_utilization")
    bad = client.get("/estimates", params={"model": "llama-3.1-70b", "kv_admission": "fcfs"})
    assert bad.status_code == 400 and "kv_admission" in bad.text


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"model": "gpt-5"}, "known model ids: deepseek-v3"),
        ({"model": "llama-2-70b", "input_tokens": 4000, "output_tokens": 1000}, "supports 4096"),
        ({"model": "llama-3.1-8b", "gpus": 2}, "exactly one gpu"),
        ({"model": "llama-3.1-8b", "gpus": 2, "gpu": "h100"}, "did you mean h100-nvl"),
        ({"model": "llama-3.1-8b", "gpus": 2, "gpu": "h100-sxm", "provider": "aws"}, "not offers"),
        ({"model": "llama-3.1-8b", "precision": "fp2"}, "precision"),
        ({"model": "llama-3.1-8b", "limit": 0}, "limit"),
    ],
)
def test_estimates_rejects_bad_parameters_with_400(client, params, message):
    response = client.get("/estimates", params=params)
    assert response.status_code == 400
    assert message in response.json()["detail"]


# --- /fit -----------------------------------------------------------------------------------


def test_fit_405b_fp8_needs_eight_h100s(client):
    body = _get(
        client,
        "/fit",
        model="llama-3.1-405b",
        precision="fp8",
        context=8192,
        concurrency=1,
        limit=1000,
    )
    h100 = next(g for g in body["gpus"] if g["gpu_id"] == "h100-sxm")
    assert h100["min_gpus"] == 8 and h100["precision_native"]
    assert h100["weights_gb"] == pytest.approx(410.103)  # 401.7 GB of blocks + 8.4 GB 16-bit
    # 8 x "80 GB": HBM is listed in GiB, 8 x 85.9 x 10^9 bytes (docs/estimates.md, section 1)
    assert h100["required_gb"] <= h100["capacity_gb"] == pytest.approx(687.195, abs=1e-3)
    a100 = next(g for g in body["gpus"] if g["gpu_id"] == "a100-80gb-sxm")
    assert not a100["precision_native"] and "W8A16" in a100["fallback_reason"]
    h100_offers = [o for o in body["offers"] if o["gpu_id"] == "h100-sxm"]
    assert h100_offers and all(o["gpu_count"] >= 8 for o in h100_offers)
    assert len(h100_offers) == h100["offers_that_fit"]
    prices = [o["price_per_hour_usd"] for o in body["offers"]]
    assert prices == sorted(prices) and body["offers_total"] == len(body["offers"])


def test_fit_grows_with_concurrency(client):
    one = _get(client, "/fit", model="llama-3.1-8b", context=32768, concurrency=1)
    many = _get(client, "/fit", model="llama-3.1-8b", context=32768, concurrency=64)
    l4 = {g["gpu_id"]: g for g in one["gpus"]}["l4"]
    l4_many = {g["gpu_id"]: g for g in many["gpus"]}["l4"]
    assert l4_many["kv_cache_gb"] == pytest.approx(64 * l4["kv_cache_gb"], rel=1e-3)
    assert (l4_many["min_gpus"] or 99) > l4["min_gpus"]


# --- /breakeven -----------------------------------------------------------------------------


def test_breakeven_by_hand_for_a_per_second_tier(client):
    # 1000 requests/day x 2 s each, no cold starts, workers stop as soon as they are idle.
    body = _get(
        client,
        "/breakeven",
        requests_per_day=1000,
        gpu_seconds_per_request=2,
        idle_timeout_s=0,
        gpu="h100-sxm",
        limit=1000,
        include_expired="true",  # the curated RunPod serverless tiers are dated 2025-06
    )
    flex = next(
        i
        for i in body["items"]
        if i["platform"] == "runpod-serverless" and i["tier"] == "flex H100 PRO 80 GB"
    )
    per_s = Decimal(str(flex["price_per_hour_usd"])) / 3600
    assert flex["billed_seconds_per_day"] == 2000
    assert Decimal(str(flex["serverless_monthly_usd"])) == (
        Decimal(2000) * per_s * 730 / 24
    ).quantize(Decimal("0.000001"))
    dedicated = Decimal(str(flex["dedicated_price_per_hour_usd"]))
    assert flex["dedicated_gpu_id"] == "h100-sxm" and flex["dedicated_gpu_count"] == 1
    assert Decimal(str(flex["dedicated_monthly_usd"])) == (dedicated * 730).quantize(
        Decimal("0.000001")
    )
    # Break-even: requests x 2 s x per-second price x 730/24 days = one dedicated replica-month.
    expected_requests = float(dedicated * 730 / (2 * per_s * 730 / 24))
    assert flex["breakeven_requests_per_day"] == pytest.approx(expected_requests, rel=1e-6)
    assert flex["breakeven_dedicated_utilization"] == pytest.approx(
        expected_requests * 2 / 86400, rel=1e-5
    )
    assert flex["cheaper"] == "serverless"


def test_always_on_tiers_bill_the_whole_day(client):
    body = _get(
        client,
        "/breakeven",
        requests_per_day=10,
        gpu_seconds_per_request=1,
        gpu="h100-sxm",
        platform="runpod-serverless",
        include_expired="true",
    )
    active = next(i for i in body["items"] if i["tier"] == "active H100 PRO 80 GB")
    assert not active["scale_to_zero"] and active["billed_seconds_per_day"] == 86400


def test_breakeven_with_a_model_compares_fitting_tiers_with_the_cheapest_dedicated(client):
    body = _get(
        client,
        "/breakeven",
        model="llama-3.1-8b",
        requests_per_day=50_000,
        cold_start_s=30,
        limit=1000,
    )
    cheapest = body["cheapest_dedicated"]
    assert cheapest is not None and cheapest["pricing"] == "on_demand"
    assert body["total"] == len(body["items"]) > 20
    for item in body["items"]:
        assert item["dedicated_offer_id"] == cheapest["offer_id"]
        assert item["cheaper"] == (
            "serverless"
            if item["serverless_monthly_usd"] < cheapest["monthly_usd"]
            else "dedicated"
        )
        if item["breakeven_dedicated_utilization"] is not None:
            assert 0 <= item["breakeven_dedicated_utilization"] <= 1
    monthly = [i["serverless_monthly_usd"] for i in body["items"]]
    assert monthly == sorted(monthly)
    # deepseek-v3 (671B) fits on no single serverless GPU tier
    big = _get(client, "/breakeven", model="deepseek-v3", requests_per_day=100)
    assert all(i["gpu_count"] >= 8 for i in big["items"])
    assert any("does not fit" in n["reason"] for n in big["not_fitting"])


def test_breakeven_needs_exactly_one_way_to_size_requests(client):
    for params in (
        {"requests_per_day": 10},
        {"requests_per_day": 10, "model": "llama-3.1-8b", "gpu_seconds_per_request": 1},
    ):
        response = client.get("/breakeven", params=params)
        assert response.status_code == 400
        assert "exactly one of model or gpu_seconds_per_request" in response.json()["detail"]


def test_breakeven_denormal_gpu_seconds_per_request_is_a_400_not_a_500(client):
    # 86,400 s / 5e-324 s is infinite: the request rate that fills one replica used to overflow
    # the money arithmetic (500). A request of less than a microsecond is now refused.
    response = client.get(
        "/breakeven", params={"requests_per_day": 0, "gpu_seconds_per_request": "5e-324"}
    )
    assert response.status_code == 400
    assert response.json()["extra"][0]["key"] == "gpu_seconds_per_request"
    assert _get(client, "/breakeven", requests_per_day=0, gpu_seconds_per_request=1e-6)["items"]


def test_breakeven_denormal_requests_per_day_is_an_answer_not_a_500(client):
    # 5e-324 requests/day / 86,400 s underflows to a rate of 0, which the idle tail divided by.
    body = _get(
        client, "/breakeven", requests_per_day="5e-324", gpu_seconds_per_request=1, gpu="h100-sxm"
    )
    assert body["items"] and all(i["serverless_monthly_usd"] >= 0 for i in body["items"])


_EDGES = ("0", "-0", "1", "5e-324", "1e-7", "1e-6", "86400", "1e9", "1e308", "nan", "inf", "-inf")


@pytest.mark.parametrize(
    ("path", "base", "names"),
    [
        (
            "/breakeven",
            {"requests_per_day": "100", "gpu_seconds_per_request": "2"},
            ("requests_per_day", "gpu_seconds_per_request", "cold_start_s", "min_warm_replicas",
             "idle_timeout_s", "limit"),
        ),
        (
            "/breakeven",
            {"requests_per_day": "100", "model": "llama-3.1-8b"},
            ("requests_per_day", "input_tokens", "output_tokens", "concurrency"),
        ),
        ("/estimates", {"model": "llama-3.1-8b", "precision": "fp8"}, ("input_tokens", "limit")),
        ("/estimates", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "gpus": "8"}, ("gpus",)),
        ("/fit", {"model": "llama-3.1-8b"}, ("context", "concurrency", "limit")),
    ],
)  # fmt: skip
def test_no_numeric_parameter_value_is_a_500(client, path, base, names):
    """Every numeric parameter is bounded: any value, in range or not, is an answer or a 400."""
    for name in names:
        for value in _EDGES:
            response = client.get(path, params={**base, name: value})
            assert response.status_code in (200, 400), (name, value, response.text)


# --- facts: /providers/{slug}, /serverless, offers ------------------------------------------


def test_provider_detail_has_status_and_cited_facts(client):
    body = _get(client, "/providers/aws")
    facts = next(r for r in _seed("provider_facts.csv") if r["provider"] == "aws")
    assert body["status"]["provider"] == "aws" and body["status"]["current_offer_count"] > 0
    assert body["facts"]["minimum_charge_s"] == float(facts["minimum_charge_s"]) == 60
    assert body["facts"]["egress_usd_per_gb"] == float(facts["egress_usd_per_gb"])
    assert body["facts"]["source_urls"].startswith("https://")
    assert body["serverless_platform"] is None


def test_serverless_platform_slug_returns_platform_facts_and_tiers(client):
    body = _get(client, "/providers/runpod-serverless")
    assert body["status"] is None and body["facts"] is None
    platform = body["serverless_platform"]
    assert platform["idle_charged"] == "partial" and platform["billing_granularity_s"] == 1
    seeded = [r for r in _seed("serverless_tiers.csv") if r["platform"] == "runpod-serverless"]
    assert len(platform["tiers"]) == len(seeded)
    assert all(t["price_unit"] == "second" for t in platform["tiers"])


def test_unknown_provider_is_a_404_naming_the_slug(client):
    response = client.get("/providers/nosuchcloud")
    assert response.status_code == 404
    assert "'nosuchcloud'" in response.json()["detail"] and "aws" in response.json()["detail"]


def test_serverless_lists_at_least_eight_platforms_whose_tiers_are_offers(client):
    platforms = _get(client, "/serverless")["items"]
    assert len(platforms) >= 8
    # /serverless lists every tier, expired or not; /instances the expired ones when asked
    offers = _get(client, "/instances", serverless="true", include_expired="true", limit=1000)
    by_id = {o["id"]: o for o in offers["items"]}
    tiers = [t for p in platforms for t in p["tiers"]]
    assert len([p for p in platforms if p["tiers"]]) >= 8
    assert {t["id"] for t in tiers} == set(by_id)
    for tier in tiers:
        offer = by_id[tier["id"]]
        factor = 3600 if offer["price_unit"] == "second" else 1
        assert offer["price_per_hour_usd"] == pytest.approx(offer["price"] * factor, abs=1e-6)


def test_scraped_platforms_are_served_from_the_scrape_not_the_seed(client):
    every = {"include_expired": "true", "limit": 1000}  # both are dated 2025
    modal = _get(client, "/instances", provider="modal", **every)["items"]
    assert modal and {o["price_source"] for o in modal} == {"scrape"}
    runpod_serverless = _get(client, "/instances", provider="runpod-serverless", **every)
    assert {o["price_source"] for o in runpod_serverless["items"]} == {"curated"}


def test_every_offer_carries_its_providers_billing_facts(client):
    facts = {r["provider"]: r for r in _seed("provider_facts.csv")}
    items = _get(client, "/instances", serverless="false", limit=1000)["items"]
    assert items
    for item in items:
        row = facts[item["provider"]]
        for key in ("billing_granularity_s", "egress_usd_per_gb", "block_storage_usd_per_gb_month"):
            expected = float(row[key]) if row[key] else None
            assert item[key] == expected, (item["provider"], key)
        assert item["billing_granularity"] == (row["billing_granularity"] or None)


def test_eur_offers_keep_original_price_currency_and_dated_rate(client):
    hetzner = _get(client, "/instances", provider="hetzner", include_expired="true", limit=1)
    hetzner = hetzner["items"][0]  # an auction price of 2026-04: expired by default
    assert hetzner["currency"] == "EUR" and hetzner["fx_rate_date"]
    assert hetzner["price_per_hour_usd"] == pytest.approx(
        hetzner["price_per_hour"] * hetzner["usd_per_unit"], abs=1e-5
    )


# --- /instances?cheapest_per_gpu=true ---------------------------------------------------------


def test_cheapest_per_gpu_keeps_one_offer_per_provider_gpu_and_pricing(client):
    vast = {"provider": "vast", "include_expired": "true", "limit": 1000}  # 2026-09 listings
    full = _get(client, "/instances", **vast)["items"]
    grouped = _get(client, "/instances", cheapest_per_gpu="true", **vast)["items"]
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for item in full:
        groups[(item["gpu_id"] or "name:" + item["gpu_name_provider"], item["pricing"])].append(
            item
        )
    assert len(full) > 100 and len(grouped) == len(groups) < len(full) / 3
    for item in grouped:
        members = groups[(item["gpu_id"] or "name:" + item["gpu_name_provider"], item["pricing"])]
        assert item["offers_in_group"] == len(members)
        assert item["price_per_gpu_hour_usd"] == min(m["price_per_gpu_hour_usd"] for m in members)
    assert sum(i["offers_in_group"] for i in grouped) == len(full)
    assert all(i["offers_in_group"] is None for i in full)


def test_cheapest_per_gpu_lets_other_providers_surface(client):
    plain = _get(client, "/instances", gpu="rtx-4090", sort="price_per_gpu", limit=10)["items"]
    grouped = _get(
        client,
        "/instances",
        gpu="rtx-4090",
        sort="price_per_gpu",
        cheapest_per_gpu="true",
        limit=10,
    )["items"]
    assert len({i["provider"] for i in grouped}) >= len({i["provider"] for i in plain})
    assert len({(i["provider"], i["pricing"]) for i in grouped}) == len(grouped)


# --- OpenAPI --------------------------------------------------------------------------------


def test_openapi_documents_every_parameter_with_units(client):
    spec = _get(client, "/schema/openapi.json")
    for path in ("/estimates", "/fit", "/breakeven", "/models", "/providers/{slug}", "/serverless"):
        operation = spec["paths"][path]["get"]
        assert operation.get("description"), path
        for parameter in operation.get("parameters", []):
            assert parameter.get("description"), (path, parameter["name"])
    instances = spec["paths"]["/instances"]["get"]
    assert "cheapest_per_gpu" in instances["description"]
    assert any(p["name"] == "cheapest_per_gpu" for p in instances["parameters"])
    breakeven = {
        p["name"]: p["description"] for p in spec["paths"]["/breakeven"]["get"]["parameters"]
    }
    assert "per day" in breakeven["requests_per_day"].lower()
    assert "seconds" in breakeven["cold_start_s"].lower()


def test_hours_per_month_is_the_economics_month(client):
    body = _get(client, "/breakeven", requests_per_day=1, gpu_seconds_per_request=1)
    assert math.isclose(body["hours_per_month"], economics.HOURS_PER_MONTH)
