"""Vultr: bare-metal GPU plans (capture), Cloud GPU plans (doc-shaped), cursor pagination."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import vultr
from scrapers.base import (
    FetchError,
    Offer,
    PricePer,
    PriceUnit,
    PricingModel,
    RawResponse,
    SchemaDriftError,
)
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

METAL_2026 = SNAPSHOTS / "vultr" / "2026-04-01T18_plans-metal_items.json"
LIVE_URL = f"{vultr.METAL_URL}?per_page=500"
OBSERVED = datetime(2026, 5, 1, tzinfo=UTC)


def _raw() -> RawResponse:
    return raw_from_capture(METAL_2026, url=LIVE_URL)


def _mutated(old: str, new: str) -> RawResponse:
    raw = _raw()
    assert old.encode() in raw.body, f"mutation target {old!r} not in capture"
    return dataclasses.replace(raw, body=raw.body.replace(old.encode(), new.encode()))


def _by_key(offers: list[Offer]) -> dict[tuple[str, PricingModel], Offer]:
    return {(o.instance_type, o.pricing): o for o in offers}


def test_capture_nine_gpu_plans() -> None:
    offers = vultr.PROVIDER.parse([_raw()])
    assert len({o.instance_type for o in offers}) == 9
    # every plan's on-demand price (7 listed but not deployable on demand) and its spot price;
    # GH200's two in each of its three locations
    assert len(offers) == 22
    assert sum(o.offered is False for o in offers) == 9
    assert {o.region for o in offers} == {"global", "ewr", "atl", "man"}
    assert {(o.currency, o.price_unit, o.price_per) for o in offers} == {
        ("USD", PriceUnit.HOUR, PricePer.INSTANCE)
    }
    assert not [o for o in offers if o.instance_type in {"vbm-4c-32gb", "vbm-24c-256gb-amd"}]


def test_a100_plans_on_demand_and_spot() -> None:
    by_key = _by_key(vultr.PROVIDER.parse([_raw()]))
    a100x8 = by_key[("vbm-112c-2048gb-8-a100-gpu", PricingModel.ON_DEMAND)]
    assert (a100x8.gpu_name, a100x8.gpu_count, a100x8.price) == (
        "NVIDIA_A100_SXM",
        8,
        Decimal("22.4"),
    )
    assert (a100x8.vram_gb_reported, a100x8.vcpus, a100x8.storage_gb) == (80, 224, 3840)
    assert a100x8.ram_gb == Decimal("2199.0")  # 2097152 MiB
    assert by_key[("vbm-112c-2048gb-8-a100-gpu", PricingModel.SPOT)].price == Decimal("17.92")
    a100x4 = by_key[("vbm-48c-1024gb-4-a100-gpu", PricingModel.ON_DEMAND)]
    assert (a100x4.gpu_count, a100x4.price, a100x4.vram_gb_reported) == (4, Decimal("9.589"), 80)
    # gpu_type "NVIDIA_A100" beside "NVIDIA_A100_SXM": the PCIe card (GPU_TYPE_NAMES)
    assert a100x4.gpu_name == "NVIDIA A100 PCIe"
    assert a100x8.observed_at == datetime(2026, 4, 1, 18, tzinfo=UTC)
    assert a100x8.source_url == LIVE_URL


def test_plans_not_deployable_on_demand_list_their_on_demand_price_as_not_offered() -> None:
    by_key = _by_key(vultr.PROVIDER.parse([_raw()]))
    listed = by_key[("vbm-112c-2048gb-8-h100-gpu", PricingModel.ON_DEMAND)]
    assert (listed.price, listed.offered) == (Decimal("23.92"), False)  # deploy_ondemand false
    gh200 = by_key[("vbm-72c-480gb-gh200-gpu", PricingModel.ON_DEMAND)]
    assert (gh200.price, gh200.offered) == (Decimal("1.99"), False)
    assert by_key[("vbm-112c-2048gb-8-a100-gpu", PricingModel.ON_DEMAND)].offered is None
    h100 = by_key[("vbm-112c-2048gb-8-h100-gpu", PricingModel.SPOT)]
    assert (h100.gpu_name, h100.gpu_count, h100.price) == ("NVIDIA H100 SXM", 8, Decimal("18.4"))
    b200 = by_key[("vbm-256c-3072gb-8-b200-gpu", PricingModel.SPOT)]
    assert (b200.price, b200.vram_gb_reported) == (Decimal("25.6"), 180)


def test_amd_gpu_plan_with_brand_none_is_still_a_gpu_plan() -> None:
    mi300x = _by_key(vultr.PROVIDER.parse([_raw()]))[
        ("vbm-256c-2048gb-8-mi300x-gpu", PricingModel.SPOT)
    ]
    assert (mi300x.gpu_name, mi300x.gpu_count, mi300x.vram_gb_reported) == ("AMD_MI300X", 8, 192)
    assert mi300x.price == Decimal("14.8")


def test_gpu_count_defaults_to_one_without_a_count_in_the_id() -> None:
    gh200 = _by_key(vultr.PROVIDER.parse([_raw()]))[("vbm-72c-480gb-gh200-gpu", PricingModel.SPOT)]
    assert (gh200.gpu_count, gh200.price) == (1, Decimal("1.99"))


def test_unreadable_gpu_count_in_id_is_an_unknown_sku() -> None:
    offers, excluded = vultr.PROVIDER.parse_report(
        [_mutated('"vbm-112c-2048gb-8-h100-gpu"', '"vbm-h100-8x"')]
    )
    assert excluded == {"unknown_sku vbm-h100-8x": 1, "non_gpu": 13}
    assert len(offers) == 20  # 22 less the H100 plan's two prices
    a100 = _by_key(offers)[("vbm-112c-2048gb-8-a100-gpu", PricingModel.ON_DEMAND)]
    assert a100.price == Decimal("22.4")


def test_the_captures_report_their_cpu_plans() -> None:
    _, excluded = vultr.PROVIDER.parse_report([_raw()])
    assert excluded == {"non_gpu": 13}  # 22 plans, 9 with a gpu_type


def test_unknown_gpu_type_is_reported_and_the_other_plans_published() -> None:
    offers, excluded = vultr.PROVIDER.parse_report(
        [_mutated('"gpu_type": "NVIDIA_B200"', '"gpu_type": "NVIDIA_B300"')]
    )
    assert excluded["unknown_gpu NVIDIA_B300"] == 1
    by_key = _by_key(offers)
    assert ("vbm-256c-3072gb-8-b200-gpu", PricingModel.SPOT) not in by_key
    assert by_key[("vbm-112c-2048gb-8-h100-gpu", PricingModel.SPOT)].price == Decimal("18.4")
    assert len(offers) == 20


def test_unreadable_gpu_plan_or_price_is_excluded_with_its_reason() -> None:
    plans = json.loads(_raw().body)
    by_id = {plan["id"]: plan for plan in plans}
    del by_id["vbm-256c-3072gb-8-mi325x-gpu"]["gpu_vram_gb"]
    by_id["vbm-256c-3072gb-8-mi355x-gpu"]["hourly_cost_preemptible"] = 0
    gh200 = by_id["vbm-72c-480gb-gh200-gpu"]
    del gh200["gpu_type"]  # gpu_brand NVIDIA stays
    a100 = by_id["vbm-48c-1024gb-4-a100-gpu"]  # on demand and preemptible
    del a100["hourly_cost_preemptible"], a100["monthly_cost_preemptible"]
    raw = dataclasses.replace(_raw(), body=json.dumps(plans).encode())
    offers, excluded = vultr.PROVIDER.parse_report([raw])
    assert excluded == {
        "non_gpu": 13,
        "no_gpu_vram": 1,
        "no_gpu_type": 1,
        "no_spot_price": 1,
    }
    by_key = _by_key(offers)
    # a zero price is emitted as read: the loader rejects the scrape (prices_positive)
    assert by_key[("vbm-256c-3072gb-8-mi355x-gpu", PricingModel.SPOT)].price == 0
    assert by_key[("vbm-48c-1024gb-4-a100-gpu", PricingModel.ON_DEMAND)].price == Decimal("9.589")
    assert ("vbm-48c-1024gb-4-a100-gpu", PricingModel.SPOT) not in by_key
    assert len(offers) == 18 - 5  # two plans (on-demand + spot) and one spot price gone


def test_missing_prices_are_drift() -> None:
    body = _raw().body.replace(b'"hourly_cost_preemptible"', b'"hourly_preemptible"')
    body = body.replace(b'"monthly_cost_preemptible"', b'"monthly_preemptible"')
    with pytest.raises(SchemaDriftError, match="neither hourly_cost_preemptible"):
        vultr.PROVIDER.parse([dataclasses.replace(_raw(), body=body)])


def test_gpu_brand_without_gpu_type_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="GPU brand but no gpu_type"):
        vultr.PROVIDER.parse([_mutated('"gpu_type"', '"gpu_model"')])


# --- Cloud GPU (vcg) plans, shaped like the /v2/plans documentation ---------------------------


def _vcg(plan_id: str, vram: int, gpu_type: str, hourly: float, vcpus: int) -> dict[str, object]:
    return {
        "id": plan_id,
        "vcpu_count": vcpus,
        "ram": 6144,
        "disk": 70,
        "disk_count": 1,
        "bandwidth": 1024,
        "monthly_cost": 90,
        "hourly_cost": hourly,
        "type": "vcg",
        "locations": ["ewr"],
        "gpu_vram_gb": vram,
        "gpu_type": gpu_type,
    }


def _page(key: str, plans: list[dict[str, object]], next_cursor: str = "") -> dict[str, object]:
    return {key: plans, "meta": {"total": len(plans), "links": {"next": next_cursor, "prev": ""}}}


def _json(document: object, url: str = f"{vultr.PLANS_URL}?type=vcg") -> RawResponse:
    return RawResponse(url, "GET", 200, "application/json", json.dumps(document).encode(), OBSERVED)


def test_cloud_gpu_fractions_are_fractional_gpu_counts() -> None:
    page = _page(
        "plans",
        [
            _vcg("vcg-a100-1c-6g-4vram", 4, "NVIDIA_A100", 0.25, 1),
            _vcg("vcg-a100-12c-120g-80vram", 80, "NVIDIA_A100", 2.5, 12),
            {"id": "vc2-1c-1gb", "vcpu_count": 1, "ram": 1024, "monthly_cost": 5, "type": "vc2"},
        ],
    )
    by_key = _by_key(vultr.PROVIDER.parse([_json(page)]))
    assert set(by_key) == {
        ("vcg-a100-1c-6g-4vram", PricingModel.ON_DEMAND),
        ("vcg-a100-12c-120g-80vram", PricingModel.ON_DEMAND),
    }
    slice_ = by_key[("vcg-a100-1c-6g-4vram", PricingModel.ON_DEMAND)]
    assert (slice_.gpu_count, slice_.vram_gb_reported, slice_.price) == (
        Decimal("0.05"),
        80,
        Decimal("0.25"),
    )
    assert slice_.price_unit is PriceUnit.HOUR  # hourly preferred over monthly_cost
    assert slice_.gpu_name == "NVIDIA A100 PCIe"  # a slice of the 80 GB PCIe card
    whole = by_key[("vcg-a100-12c-120g-80vram", PricingModel.ON_DEMAND)]
    assert (whole.gpu_count, whole.vcpus, whole.storage_gb) == (1, 12, 70)


def test_cloud_gpu_without_hourly_price_is_monthly() -> None:
    plan = _vcg("vcg-l40s-16c-180g-48vram", 48, "NVIDIA_L40S", 1.0, 16)
    del plan["hourly_cost"]
    (offer,) = vultr.PROVIDER.parse([_json(_page("plans", [plan]))])
    assert (offer.price, offer.price_unit, offer.gpu_count) == (Decimal("90"), PriceUnit.MONTH, 1)


def test_cloud_gpu_of_unknown_type_or_card_is_reported_beside_the_known_plans() -> None:
    page = _page(
        "plans",
        [
            _vcg("vcg-x9-1c-6g-8vram", 8, "NVIDIA_X9", 0.5, 1),
            _vcg("vcg-b200-2c-12g-12vram", 12, "NVIDIA_B200", 0.9, 2),  # no CARD_VRAM_GB entry
            _vcg("vcg-a100-1c-6g-4vram", 4, "NVIDIA_A100", 0.25, 1),
            _vcg("vcg-l40s-16c-180g-48vram", 48, "NVIDIA_L40S", 1.0, 16),
        ],
    )
    offers, excluded = vultr.PROVIDER.parse_report([_json(page)])
    assert excluded == {"unknown_gpu NVIDIA_X9": 1, "unknown_card NVIDIA_B200": 1}
    assert {(o.instance_type, o.price) for o in offers} == {
        ("vcg-a100-1c-6g-4vram", Decimal("0.25")),
        ("vcg-l40s-16c-180g-48vram", Decimal("1.0")),
    }


def test_only_unknown_plans_is_drift() -> None:
    page = _page("plans", [_vcg("vcg-x9-1c-6g-8vram", 8, "NVIDIA_X9", 0.5, 1)])
    with pytest.raises(SchemaDriftError, match=r"no GPU offers found.*unknown_gpu NVIDIA_X9 1"):
        vultr.PROVIDER.parse_report([_json(page)])


def test_plans_without_ids_are_drift() -> None:
    with pytest.raises(SchemaDriftError, match="no plan with an id"):
        vultr.PROVIDER.parse([_mutated('"id"', '"plan_id"')])


def test_envelope_without_a_plan_list_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="no 'plans_metal' or 'plans' list"):
        vultr.PROVIDER.parse([_json({"items": [], "meta": {}})])


# --- fetch: cursor pagination, auth -------------------------------------------------------------


def _metal_plan(plan_id: str, hourly: float) -> dict[str, object]:
    return {
        "id": plan_id,
        "cpu_threads": 224,
        "ram": 2097152,
        "disk": 960,
        "disk_count": 2,
        "monthly_cost": hourly * 730,
        "hourly_cost": hourly,
        "hourly_cost_preemptible": hourly / 2,
        "deploy_ondemand": True,
        "deploy_preemptible": False,
        "locations": ["ewr"],
        "gpu_brand": "NVIDIA",
        "gpu_vram_gb": 640,
        "gpu_type": "NVIDIA_H100",
    }


class _Api:
    """A fake API: plans-metal in two pages (cursor "bmV4dA=="), plans of every type in one."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path, params = request.url.path, request.url.params
        if path == "/v2/plans-metal" and "cursor" not in params:
            document = _page(
                "plans_metal", [_metal_plan("vbm-1c-1gb-8-h100-gpu", 20.0)], "bmV4dA=="
            )
        elif path == "/v2/plans-metal" and params["cursor"] == "bmV4dA==":
            document = _page("plans_metal", [_metal_plan("vbm-2c-2gb-8-h100-gpu", 22.0)])
        elif path == "/v2/plans" and params.get("type") == "all":
            document = _page("plans", [_vcg("vcg-a100-1c-6g-4vram", 4, "NVIDIA_A100", 0.25, 1)])
        else:
            return httpx.Response(404)
        return httpx.Response(200, json=document)


def test_fetch_follows_the_next_cursor_then_gets_cloud_gpu_plans() -> None:
    api = _Api()
    with make_client(httpx.MockTransport(api)) as client:
        responses = vultr.fetch(client, None)
    requests = [(r.method, r.url.path, dict(r.url.params)) for r in api.requests]
    assert requests == [
        ("GET", "/v2/plans-metal", {"per_page": "500"}),
        ("GET", "/v2/plans-metal", {"per_page": "500", "cursor": "bmV4dA=="}),
        ("GET", "/v2/plans", {"type": "all", "per_page": "500"}),
    ]
    assert all(r.url.host == "api.vultr.com" for r in api.requests)
    assert all("authorization" not in r.headers for r in api.requests)
    offers = vultr.PROVIDER.parse(responses)
    assert {o.instance_type for o in offers} == {
        "vbm-1c-1gb-8-h100-gpu",
        "vbm-2c-2gb-8-h100-gpu",
        "vcg-a100-1c-6g-4vram",
    }


def _failing(api: _Api, failing: set[tuple[str, str | None]], status: int = 404):
    """``api``, except that requests to (path, cursor) in ``failing`` answer ``status``."""

    def handler(request: httpx.Request) -> httpx.Response:
        if (request.url.path, request.url.params.get("cursor")) in failing:
            api.requests.append(request)
            return httpx.Response(status)
        return api(request)

    return handler


def test_a_failing_second_page_is_a_skipped_part_and_the_rest_is_published() -> None:
    api = _Api()
    handler = _failing(api, {("/v2/plans-metal", "bmV4dA==")})
    with make_client(httpx.MockTransport(handler)) as client:
        responses, skipped = vultr.PROVIDER.fetch_report(client, None)
    assert list(skipped) == ["plans-metal page 2"]
    assert "404" in skipped["plans-metal page 2"] and "\n" not in skipped["plans-metal page 2"]
    assert [r.url.path for r in api.requests] == ["/v2/plans-metal", "/v2/plans-metal", "/v2/plans"]
    offers = vultr.PROVIDER.parse(responses)
    assert {o.instance_type for o in offers} == {"vbm-1c-1gb-8-h100-gpu", "vcg-a100-1c-6g-4vram"}


def test_a_failing_cloud_gpu_endpoint_after_bare_metal_is_a_skipped_part() -> None:
    api = _Api()
    with make_client(httpx.MockTransport(_failing(api, {("/v2/plans", None)}))) as client:
        responses, skipped = vultr.fetch_with_skips(client, None)
    assert list(skipped) == ["plans page 1"]
    assert {o.instance_type for o in vultr.PROVIDER.parse(responses)} == {
        "vbm-1c-1gb-8-h100-gpu",
        "vbm-2c-2gb-8-h100-gpu",
    }


def test_a_failing_first_request_is_a_fetch_error() -> None:
    api = _Api()
    with (
        make_client(httpx.MockTransport(_failing(api, {("/v2/plans-metal", None)}))) as client,
        pytest.raises(FetchError, match="404"),
    ):
        vultr.fetch_with_skips(client, None)
    assert len(api.requests) == 1  # the vcg endpoint is not tried


def test_fetch_sends_the_bearer_token_when_set() -> None:
    api = _Api()
    with make_client(httpx.MockTransport(api)) as client:
        vultr.fetch(client, "vultr-key")
    assert [r.headers["authorization"] for r in api.requests] == ["Bearer vultr-key"] * 3


def test_fetch_stops_at_the_page_cap() -> None:
    def endless(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=_page("plans_metal", [], "again"))

    with (
        make_client(httpx.MockTransport(endless)) as client,
        pytest.raises(FetchError, match="more than 20 pages"),
    ):
        vultr.fetch(client, None)


def test_fetch_of_the_bare_capture_does_not_paginate() -> None:
    body = METAL_2026.read_bytes()
    api_requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        api_requests.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    with make_client(httpx.MockTransport(handler)) as client:
        responses = vultr.fetch(client, None)
    assert len(api_requests) == 2  # one per endpoint, as in replay
    assert len(vultr.PROVIDER.parse(responses)) == 22  # the identical second body is parsed once


@pytest.mark.parametrize("token", [None, "key"])
def test_replay_of_every_capture_parses(token: str | None) -> None:
    captures = discover(SNAPSHOTS, ["vultr"])["vultr"]
    assert [c.path.name for c in captures] == [
        "2026-03-31T22_plans-metal_items.json",
        METAL_2026.name,
    ]
    for capture in captures:
        with make_client(ReplayTransport(capture)) as client:
            offers = vultr.PROVIDER.parse(vultr.fetch(client, token))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)


def test_gpu_plan_deployable_neither_way_is_not_an_offer() -> None:
    plans = json.loads(_raw().body)
    for plan in plans:
        if plan["id"] == "vbm-112c-2048gb-8-h100-gpu":
            plan["deploy_preemptible"] = False  # deploy_ondemand is already false
    offers = vultr.PROVIDER.parse([dataclasses.replace(_raw(), body=json.dumps(plans).encode())])
    assert "vbm-112c-2048gb-8-h100-gpu" not in {o.instance_type for o in offers}
    assert len(offers) == 20


# --- availability (issue 22): locations are regions; no location is not on sale -------------


def test_vultr_plans_without_locations_are_not_on_sale() -> None:
    # both captures: every GPU plan but GH200 lists "locations": [] (deployable nowhere)
    for capture in ("2026-03-31T22_plans-metal_items.json", "2026-04-01T18_plans-metal_items.json"):
        offers = vultr.PROVIDER.parse([raw_from_capture(SNAPSHOTS / "vultr" / capture)])
        # (a listed but not offered on-demand price is not on sale either: left aside here)
        sold_out = [o for o in offers if o.available is False and o.offered is not False]
        assert {o.instance_type for o in sold_out} == {
            "vbm-112c-2048gb-8-a100-gpu",
            "vbm-112c-2048gb-8-h100-gpu",
            "vbm-256c-2048gb-8-mi300x-gpu",
            "vbm-256c-3072gb-8-b200-gpu",
            "vbm-256c-3072gb-8-mi325x-gpu",
            "vbm-256c-3072gb-8-mi355x-gpu",
            "vbm-48c-1024gb-4-a100-gpu",
            "vbm-64c-2048gb-8-l40-gpu",
        }
        assert len(sold_out) == 10 and {o.region for o in sold_out} == {"global"}
        h100 = _by_key(sold_out)[("vbm-112c-2048gb-8-h100-gpu", PricingModel.SPOT)]
        assert (h100.price, h100.gpu_count) == (Decimal("18.4"), 8)  # $18.40/h, 8x H100


def test_vultr_gh200_keeps_its_locations_as_regions() -> None:
    offers = vultr.PROVIDER.parse([_raw()])
    gh200 = [
        o
        for o in offers
        if o.instance_type == "vbm-72c-480gb-gh200-gpu" and o.pricing == PricingModel.SPOT
    ]
    assert [(o.region, o.pricing, o.price, o.available) for o in gh200] == [
        (region, PricingModel.SPOT, Decimal("1.99"), True) for region in ("ewr", "atl", "man")
    ]
    assert "global" not in {o.region for o in gh200}


def test_vultr_plan_without_a_locations_field_is_of_unknown_availability() -> None:
    raw = _mutated('"locations": [\n   "ewr",\n   "atl",\n   "man"\n  ],', "")
    offers = vultr.PROVIDER.parse([raw])
    gh200 = [o for o in offers if o.instance_type == "vbm-72c-480gb-gh200-gpu"]
    # the spot price: unknown; the listed, not offered on-demand one is not on sale anyway
    assert [(o.region, o.pricing, o.available) for o in gh200] == [
        ("global", PricingModel.ON_DEMAND, False),
        ("global", PricingModel.SPOT, None),
    ]


def test_vultr_unreadable_locations_are_excluded_with_their_reason() -> None:
    raw = _mutated('"ewr",\n   "atl",', '"ewr",\n   7,')
    offers, excluded = vultr.PROVIDER.parse_report([raw])
    assert "vbm-72c-480gb-gh200-gpu" not in {o.instance_type for o in offers}
    assert excluded["unparsed_locations"] == 1


def test_vultr_fetches_gpu_plans_of_every_plan_type() -> None:
    # type=all answers GPU plans of any type (here a dedicated "vdm" one beside a Cloud GPU one)
    vdm = {**_vcg("vdm-a100-12c-120g-80vram", 80, "NVIDIA_A100", 2.6, 12), "type": "vdm"}
    page = _page("plans", [_vcg("vcg-a100-1c-6g-4vram", 4, "NVIDIA_A100", 0.25, 1), vdm])
    offers = vultr.PROVIDER.parse([_json(page, f"{vultr.PLANS_URL}?type=all")])
    assert {(o.instance_type, o.region, o.available) for o in offers} == {
        ("vcg-a100-1c-6g-4vram", "ewr", True),
        ("vdm-a100-12c-120g-80vram", "ewr", True),
    }


def test_vultr_plan_listed_by_two_responses_is_read_once() -> None:
    page = _page("plans", [_vcg("vcg-a100-1c-6g-4vram", 4, "NVIDIA_A100", 0.25, 1)])
    other = _page("plans", [_vcg("vcg-a100-1c-6g-4vram", 4, "NVIDIA_A100", 0.25, 1)], "x")
    offers = vultr.PROVIDER.parse([_json(page), _json(other)])
    assert [o.instance_type for o in offers] == ["vcg-a100-1c-6g-4vram"]
