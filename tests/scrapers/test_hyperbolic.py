"""Hyperbolic scraper on its real capture (2026-08-29 rental-options API response)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, hyperbolic
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

OPTIONS_2026_08_29 = SNAPSHOTS / "hyperbolic" / "2026-08-29_rental-options_api_response.json"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(OPTIONS_2026_08_29, url=hyperbolic.RENTAL_OPTIONS_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _options() -> list[dict]:
    return json.loads(OPTIONS_2026_08_29.read_bytes())


def test_2026_08_29_options_read_off_the_response() -> None:
    offers, excluded = hyperbolic.PROVIDER.parse_report([_raw()])
    assert len(offers) == 13  # the 13 options of the list, all enabled
    assert excluded == {}
    by = {(o.region, o.instance_type): o for o in offers}

    # first option: h100 sxm5, 1 GPU, us-east-1, costPerHourCents 319, 20 vCPUs, 240 GB, 720 GB
    one = by[("us-east-1", "1x h100 sxm5 virtual-machine ethernet normal")]
    assert one.price == Decimal("3.19")
    assert one.currency == "USD"
    assert one.price_unit is PriceUnit.HOUR
    assert one.price_per is PricePer.INSTANCE
    assert one.pricing is PricingModel.ON_DEMAND
    assert (one.gpu_name, one.gpu_form_factor, one.gpu_count) == ("H100 SXM5", "SXM", 1)
    assert (one.vcpus, one.ram_gb, one.storage_gb) == (20, 240, 720)
    assert one.offered is True and one.available is None  # no totalAvailable on this option

    # the same region also lists an h200 at 492 cents
    assert by[("us-east-1", "1x h200 sxm5 virtual-machine ethernet normal")].price == Decimal(
        "4.92"
    )

    # the only PCIe option: ca-east-1, 275 cents, totalAvailable 2
    pcie = by[("ca-east-1", "1x h100 pcie virtual-machine ethernet normal")]
    assert (pcie.price, pcie.gpu_name, pcie.gpu_form_factor) == (
        Decimal("2.75"),
        "H100 PCIe",
        "PCIe",
    )
    assert pcie.available is True

    # 8x H100 bare metal with InfiniBand, 2552 cents for the whole node; cpuCount is not vCPUs
    metal = by[("uk-southeast-3", "8x h100 sxm5 bare-metal infiniband")]
    assert (metal.price, metal.gpu_count, metal.price_per) == (
        Decimal("25.52"),
        8,
        PricePer.INSTANCE,
    )
    assert (metal.vcpus, metal.ram_gb, metal.storage_gb) == (None, 2000, 24960)

    # 8x H200 VM in eu-north-5: 3192 cents
    assert by[("eu-north-5", "8x h200 sxm5 virtual-machine ethernet normal")].price == Decimal(
        "31.92"
    )
    for offer in offers:
        assert offer.observed_at == datetime(2026, 8, 29, tzinfo=UTC)
        assert offer.source_url == hyperbolic.RENTAL_OPTIONS_URL


def test_supplier_cost_is_never_read_as_a_price() -> None:
    options = _options()
    for option in options:
        option["providerCostPerHourCents"] = 1
    offers = hyperbolic.PROVIDER.parse([_raw(json.dumps(options).encode())])
    assert min(o.price for o in offers) == Decimal("2.75")


def test_disabled_option_is_kept_as_not_offered() -> None:
    options = _options()
    options[0]["enabled"] = False
    offers = hyperbolic.PROVIDER.parse([_raw(json.dumps(options).encode())])
    first = next(o for o in offers if o.region == "us-east-1" and o.gpu_name == "H100 SXM5")
    assert first.offered is False and first.available is False


def test_option_without_a_price_or_of_an_unknown_form_is_counted() -> None:
    options = _options()
    del options[0]["costPerHourCents"]
    options[1]["gpuFormFactor"] = "oam"
    offers, excluded = hyperbolic.PROVIDER.parse_report([_raw(json.dumps(options).encode())])
    assert len(offers) == 11
    assert excluded == {"unparsed_price": 1, "unknown_form_factor oam": 1}


def test_body_that_is_not_a_list_is_schema_drift() -> None:
    with pytest.raises(SchemaDriftError, match="JSON list"):
        hyperbolic.PROVIDER.parse([_raw(b'{"options": []}')])


def test_fetch_requests_the_live_rental_options() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=OPTIONS_2026_08_29.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = hyperbolic.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", hyperbolic.RENTAL_OPTIONS_URL)]
    assert "authorization" not in seen[0].headers
    assert len(hyperbolic.PROVIDER.parse(responses)) == 13


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["hyperbolic"])["hyperbolic"]
    assert [c.path.name for c in captures] == [OPTIONS_2026_08_29.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = hyperbolic.PROVIDER.parse(hyperbolic.fetch(client, None))
        assert len(offers) == 13
