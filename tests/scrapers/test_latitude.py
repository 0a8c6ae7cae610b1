"""Latitude.sh scraper on its real capture: the pricing page's flight data, 2026-08-22, an
excerpt holding the g4.rtx6kpro.large (8x RTX PRO 6000) and g3.h100.small (1x H100) plans."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, latitude
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "latitude" / "2026-08-22_pricing_flight-data_2-gpu-plans_excerpt.html"


def _raw(body: bytes | None = None):
    raw = raw_from_capture(CAPTURE, url=latitude.PRICING_URL)
    return raw if body is None else replace(raw, body=body)


def _offers():
    offers, excluded = latitude.PROVIDER.parse_report([_raw()])
    return {(o.instance_type, o.region, o.pricing): o for o in offers}, excluded


def test_rtx_pro_6000_plan_per_region() -> None:
    by, excluded = _offers()
    # g4.rtx6kpro.large: 8x NVIDIA RTX PRO 6000 (96 GB), 1536 GB RAM, 4x 3.8TB NVMe;
    # United States $48/hour, $17,520/month; Australia $66 and $24,090; Japan $52 and $18,980
    us = by[("g4.rtx6kpro.large", "United States", PricingModel.ON_DEMAND)]
    assert (us.gpu_name, us.gpu_count, us.vram_gb_reported) == ("NVIDIA RTX PRO 6000", 8, 96)
    assert (us.ram_gb, us.storage_gb) == (1536, Decimal("15200.0"))
    assert (us.price, us.price_unit, us.country, us.available) == (48, PriceUnit.HOUR, "US", True)
    month = by[("g4.rtx6kpro.large", "United States", PricingModel.RESERVED)]
    assert (month.price, month.price_unit, month.reserved_term_months) == (
        17520,
        PriceUnit.MONTH,
        1,
    )
    assert by[("g4.rtx6kpro.large", "Australia", PricingModel.ON_DEMAND)].price == 66
    assert by[("g4.rtx6kpro.large", "Japan", PricingModel.RESERVED)].price == 18980
    # Netherlands: stock_level "unavailable", nothing in stock, still priced $48
    netherlands = by[("g4.rtx6kpro.large", "Netherlands", PricingModel.ON_DEMAND)]
    assert (netherlands.price, netherlands.available) == (48, False)
    # United Kingdom: USD hour/month/year null -> not an offer
    assert not any(region == "United Kingdom" for _, region, _ in by)
    assert excluded == {"unpriced_region": 1, "yearly_price": 5}


def test_h100_plan() -> None:
    by, _ = _offers()
    # g3.h100.small: 1x NVIDIA H100 80GB, United States $3.37/hour, $1,230/month, out of stock
    h100 = by[("g3.h100.small", "United States", PricingModel.ON_DEMAND)]
    assert (h100.gpu_name, h100.gpu_count, h100.price) == ("NVIDIA H100 80GB", 1, Decimal("3.37"))
    assert h100.available is False
    assert by[("g3.h100.small", "United States", PricingModel.RESERVED)].price == 1230
    for offer in by.values():
        assert offer.currency == "USD" and offer.price_per is PricePer.INSTANCE
        assert offer.source_url == latitude.PRICING_URL
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)


def test_a_cpu_plan_and_a_cut_plan_are_counted() -> None:
    body = CAPTURE.read_bytes()
    cpu = body.replace(b'\\"gpu\\":{\\"count\\":1,', b'\\"gpu\\":{\\"count\\":0,')
    _, excluded = latitude.PROVIDER.parse_report([_raw(cpu)])
    assert excluded["no_gpu"] == 1
    cut = body[: body.rindex(b'\\"regions\\"')]
    offers, excluded = latitude.PROVIDER.parse_report([_raw(cut)])
    assert {o.instance_type for o in offers} == {"g4.rtx6kpro.large"}
    assert excluded["truncated_row"] == 1


def test_a_page_without_plans_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="no plan object"):
        latitude.PROVIDER.parse([_raw(b"<html><body>Pricing</body></html>")])


def test_fetch_requests_the_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=CAPTURE.read_bytes(), request=request)

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = latitude.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", latitude.PRICING_URL)]
    assert len(latitude.PROVIDER.parse(responses)) == 10


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["latitude"])["latitude"]
    assert [c.path.name for c in captures] == [CAPTURE.name]
    with http.make_client(ReplayTransport(captures[0])) as client:
        assert len(latitude.PROVIDER.parse(latitude.fetch(client, None))) == 10
