"""OVHcloud: GPU plans of the US bare-metal catalog (plans array capture), and fetch."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from typing import Any

import httpx
import pytest

from scrapers import ovh
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.http import make_client
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

PLANS_2026 = SNAPSHOTS / "ovh" / "2026-04-01T18_catalog_public_baremetalServers_US_plans.json"
LIVE_URL = f"{ovh.CATALOG_URL}?ovhSubsidiary=US"


@cache
def _raw() -> RawResponse:
    return raw_from_capture(PLANS_2026, url=LIVE_URL)


@cache
def _offers() -> tuple[Offer, ...]:
    return tuple(ovh.PROVIDER.parse([_raw()]))


def _mutated(old: str, new: str) -> RawResponse:
    raw = _raw()
    assert old.encode() in raw.body, f"mutation target {old!r} not in capture"
    return dataclasses.replace(raw, body=raw.body.replace(old.encode(), new.encode()))


def _offer(plan: str, region: str, pricing: PricingModel, term: int | None = None) -> Offer:
    (found,) = [
        o
        for o in _offers()
        if (o.instance_type, o.region, o.pricing, o.reserved_term_months)
        == (plan, region, pricing, term)
    ]
    return found


def test_counts_seven_gpu_plans_three_prices_each_per_datacenter() -> None:
    offers = _offers()
    assert len({o.instance_type for o in offers}) == 7
    # 2 plans in two US datacenters (vin, hil), 5 in one: 9 plan-datacenters x 3 pricings.
    assert len(offers) == 27
    assert {o.price_unit for o in offers} == {PriceUnit.MONTH}
    assert {o.currency for o in offers} == {"USD"}
    assert {o.price_per for o in offers} == {PricePer.INSTANCE}


def test_l40s_plan_monthly_price_and_config() -> None:
    # 350500000000 in 1e-8 USD is shown by the catalog as "$3505.00 USD".
    offer = _offer("24hgrai02-v1-us", "vin", PricingModel.ON_DEMAND)
    assert offer.price == Decimal("3505")
    assert (offer.gpu_name, offer.gpu_count, offer.vram_gb_reported, offer.ram_gb) == (
        "nvidia-l40s-48g",
        2,
        48,
        384,
    )
    assert _offer("24hgrai02-v1-us", "hil", PricingModel.ON_DEMAND).price == Decimal("3505")
    assert _offer("24hgrai02-v1-ca", "bhs", PricingModel.ON_DEMAND).price == Decimal("3505")
    assert offer.observed_at == datetime(2026, 4, 1, 18, tzinfo=UTC)
    assert offer.source_url == LIVE_URL


def test_upfront_commitments_are_reserved_per_month() -> None:
    # "$39957.00 USD" for 12 months upfront, "$79914.00 USD" for 24 months.
    twelve = _offer("24hgrai02-v1-eu", "gra", PricingModel.RESERVED, 12)
    assert twelve.price == Decimal("3329.75")
    twenty_four = _offer("24hgrai02-v1-eu", "gra", PricingModel.RESERVED, 24)
    assert twenty_four.price == Decimal("3329.75")


def test_l4_and_v100s_plans() -> None:
    l4 = _offer("23scalegpu01-v1-eu", "gra", PricingModel.ON_DEMAND)
    assert (l4.gpu_name, l4.gpu_count, l4.price, l4.ram_gb) == (
        "nvidia-l4",
        2,
        Decimal("1204"),
        192,
    )
    assert _offer("23scalegpu03-v1-eu", "gra", PricingModel.ON_DEMAND).price == Decimal("1279")
    v100s = _offer("21hgrai012-us", "vin", PricingModel.ON_DEMAND)
    assert (v100s.gpu_name, v100s.gpu_count, v100s.price) == (
        "nvidia-tesla-v100s",
        4,
        Decimal("3299"),
    )
    assert _offer("21hgrai012-us", "hil", PricingModel.RESERVED, 12).price == Decimal("3134.05")


def test_non_gpu_plans_are_not_offers() -> None:
    assert not [o for o in _offers() if o.instance_type.startswith(("24adv", "26scale", "19infra"))]


def test_full_catalog_envelope_parses_the_same() -> None:
    plans = json.loads(_raw().body)
    catalog = {
        "catalogId": 1,
        "locale": {"currencyCode": "USD", "subsidiary": "US"},
        "plans": plans,
        "addons": [],
        "products": [],
        "planFamilies": [],
    }
    raw = dataclasses.replace(_raw(), body=json.dumps(catalog).encode())
    assert ovh.PROVIDER.parse([raw]) == list(_offers())


def _plans() -> list[dict[str, Any]]:
    return json.loads(_raw().body)


def _with_plans(plans: list[dict[str, Any]]) -> RawResponse:
    return dataclasses.replace(_raw(), body=json.dumps(plans).encode())


def _plan(plans: list[dict[str, Any]], code: str) -> dict[str, Any]:
    (found,) = [p for p in plans if p["planCode"] == code]
    return found


def test_the_capture_reports_its_cpu_plans_and_nothing_else() -> None:
    _, excluded = ovh.PROVIDER.parse_report([_raw()])
    assert excluded == {"non_gpu": 274}  # 281 plans, 7 with a gpu addon family


def test_price_disagreeing_with_formatted_price_excludes_those_plans() -> None:
    # The three L40S plans share the price 350500000000 ("$3505.00 USD"), setup fee and renewal.
    raw = _mutated('"price": 350500000000', '"price": 35050000000')
    offers, excluded = ovh.PROVIDER.parse_report([raw])
    assert excluded["price_mismatch"] == 3
    assert not [o for o in offers if o.gpu_name == "nvidia-l40s-48g"]
    assert _offer("23scalegpu01-v1-eu", "gra", PricingModel.ON_DEMAND) in offers
    assert len(offers) == 27 - 4 * 3  # the L40S plans were in vin, hil, gra, bhs


def test_every_price_in_another_unit_is_drift() -> None:
    plans = _plans()
    for plan in plans:
        for pricing in plan["pricings"]:
            pricing["price"] *= 100  # formattedPrice unchanged: the unit changed everywhere
    with pytest.raises(SchemaDriftError, match=r"no GPU offers found \(excluded: price_mismatch 7"):
        ovh.PROVIDER.parse_report([_with_plans(plans)])


def test_negative_price_is_emitted_for_the_loader_to_reject() -> None:
    raw = _mutated('"formattedPrice": "$3505.00 USD"', '"formattedPrice": "$-3505.00 USD"')
    raw = dataclasses.replace(raw, body=raw.body.replace(b"350500000000", b"-350500000000"))
    offer = next(o for o in ovh.PROVIDER.parse([raw]) if o.instance_type == "24hgrai02-v1-us")
    assert (offer.pricing, offer.price) == (PricingModel.ON_DEMAND, Decimal("-3505"))


def test_unknown_gpu_model_is_reported_and_the_other_plans_published() -> None:
    plans = _plans()
    v100s = _plan(plans, "21hgrai012-us")
    for family in v100s["addonFamilies"]:
        if family["name"] == "gpu":
            family["default"] = family["default"].replace("nvidia-tesla-v100s", "nvidia-h200-141g")
    offers, excluded = ovh.PROVIDER.parse_report([_with_plans(plans)])
    assert excluded["unknown_gpu nvidia-h200-141g"] == 1
    assert "21hgrai012-us" not in {o.instance_type for o in offers}
    assert _offer("24hgrai02-v1-us", "vin", PricingModel.ON_DEMAND) in offers
    assert len(offers) == 27 - 2 * 3  # the V100S plan was in vin and hil


def test_unreadable_gpu_plan_is_excluded_with_its_reason() -> None:
    plans = _plans()
    l4 = _plan(plans, "23scalegpu02-v1-eu")
    l4["configurations"] = []
    for family in _plan(plans, "23scalegpu03-v1-eu")["addonFamilies"]:
        if family["name"] == "memory":
            del family["default"]
    del _plan(plans, "24hgrai02-v1-ca")["pricings"][1]["formattedPrice"]
    offers, excluded = ovh.PROVIDER.parse_report([_with_plans(plans)])
    assert {r: n for r, n in excluded.items() if r != "non_gpu"} == {
        "no_datacenter": 1,
        "no_default_memory_addon": 1,
        "unparsed_price": 1,
    }
    assert {o.instance_type for o in offers} == {
        "21hgrai012-us",
        "23scalegpu01-v1-eu",
        "24hgrai02-v1-eu",
        "24hgrai02-v1-us",
    }


def test_a_yearly_pricing_is_left_out_and_the_monthly_ones_kept() -> None:
    plans = _plans()
    plan = _plan(plans, "24hgrai02-v1-eu")
    yearly = next(p for p in plan["pricings"] if p["mode"] == "upfront12" and p["interval"] == 12)
    yearly.update(interval=1, intervalUnit="year")
    offers, excluded = ovh.PROVIDER.parse_report([_with_plans(plans)])
    assert excluded["unknown_unit year"] == 1
    kept = {
        (o.pricing, o.reserved_term_months) for o in offers if o.instance_type == plan["planCode"]
    }
    assert kept == {(PricingModel.ON_DEMAND, None), (PricingModel.RESERVED, 24)}
    assert len(offers) == 26


def test_renamed_gpu_family_is_drift() -> None:
    body = _raw().body.replace(b'"name": "gpu"', b'"name": "accelerator"')
    with pytest.raises(SchemaDriftError, match="no plan with a 'gpu' addon family"):
        ovh.PROVIDER.parse([dataclasses.replace(_raw(), body=body)])


def test_renamed_addon_families_key_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="every plan is without addonFamilies"):
        ovh.PROVIDER.parse([_mutated('"addonFamilies"', '"addons_families"')])


def test_a_plan_without_addon_families_is_counted() -> None:
    plans = _plans()
    del _plan(plans, "24hgrai02-v1-ca")["addonFamilies"]
    offers, excluded = ovh.PROVIDER.parse_report([_with_plans(plans)])
    assert excluded["no_addon_families"] == 1
    assert len(offers) == 27 - 3


def test_body_without_plans_is_drift() -> None:
    raw = dataclasses.replace(_raw(), body=b'{"catalogId": 1, "plans": []}')
    with pytest.raises(SchemaDriftError, match="expected a catalog with 'plans'"):
        ovh.PROVIDER.parse([raw])


def test_fetch_gets_the_us_catalog_without_auth() -> None:
    seen: list[httpx.Request] = []
    body = b'{"plans": ' + _raw().body + b', "addons": [], "products": []}'

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=body, headers={"content-type": "application/json"})

    with make_client(httpx.MockTransport(handler)) as client:
        responses = ovh.fetch(client, None)
    assert len(seen) == 1
    assert seen[0].method == "GET"
    assert seen[0].url.copy_with(query=None) == ovh.CATALOG_URL
    assert dict(seen[0].url.params) == {"ovhSubsidiary": "US"}
    assert "authorization" not in seen[0].headers
    assert len(ovh.PROVIDER.parse(responses)) == 27


@pytest.mark.parametrize("token", [None, "unused"])
def test_replay_of_every_capture_parses(token: str | None) -> None:
    captures = discover(SNAPSHOTS, ["ovh"])["ovh"]
    assert [c.path.name for c in captures] == [PLANS_2026.name]
    for capture in captures:
        with make_client(ReplayTransport(capture)) as client:
            offers = ovh.PROVIDER.parse(ovh.fetch(client, token))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)
