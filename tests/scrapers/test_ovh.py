"""OVHcloud: GPU plans of the US bare-metal catalog (plans array capture), and fetch."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache

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
    return tuple(ovh.parse([_raw()]))


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
    assert ovh.parse([raw]) == list(_offers())


def test_price_disagreeing_with_formatted_price_is_drift() -> None:
    raw = _mutated('"price": 350500000000', '"price": 35050000000')
    with pytest.raises(SchemaDriftError, match=r"is not '\$3505\.00 USD'"):
        ovh.parse([raw])


def test_renamed_gpu_family_is_drift() -> None:
    body = _raw().body.replace(b'"name": "gpu"', b'"name": "accelerator"')
    with pytest.raises(SchemaDriftError, match="no plan with a 'gpu' addon family"):
        ovh.parse([dataclasses.replace(_raw(), body=body)])


def test_renamed_addon_families_key_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="without addonFamilies"):
        ovh.parse([_mutated('"addonFamilies"', '"addons_families"')])


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
    assert len(ovh.parse(responses)) == 27


@pytest.mark.parametrize("token", [None, "unused"])
def test_replay_of_every_capture_parses(token: str | None) -> None:
    captures = discover(SNAPSHOTS, ["ovh"])["ovh"]
    assert [c.path.name for c in captures] == [PLANS_2026.name]
    for capture in captures:
        with make_client(ReplayTransport(capture)) as client:
            offers = ovh.parse(ovh.fetch(client, token))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)
