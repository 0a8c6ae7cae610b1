"""Together AI scraper on its real capture: together.ai/pricing of 2026-08-22, the span from the
Dedicated Inference section through the GPU Clusters section."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, together
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "together" / "2026-08-22_pricing_gpu-clusters_excerpt.html"


def _raw(body: bytes | None = None):
    raw = raw_from_capture(CAPTURE, url=together.PRICING_URL)
    return raw if body is None else replace(raw, body=body)


def _by(offers):
    return {(o.instance_type, o.pricing, o.reserved_term_months): o.price for o in offers}


def test_cluster_table_read_off_the_page() -> None:
    offers, excluded = together.PROVIDER.parse_report([_raw()])
    # "On-demand hourly rates and reserved capacity", per GPU per hour:
    # HGX H100 $3.99 | 7-30 days $3.69 | 31-90 $3.45 | 91-180 $3.19 | 181+ Contact us
    # HGX H200 $5.99 | $4.99 | $4.15 | $3.99 ; HGX B200 $8.19 | $7.99 | $7.79 | $6.79
    assert _by(offers) == {
        ("NVIDIA HGX H100", PricingModel.ON_DEMAND, None): Decimal("3.99"),
        ("NVIDIA HGX H100", PricingModel.RESERVED, 1): Decimal("3.45"),
        ("NVIDIA HGX H100", PricingModel.RESERVED, 3): Decimal("3.19"),
        ("NVIDIA HGX H200", PricingModel.ON_DEMAND, None): Decimal("5.99"),
        ("NVIDIA HGX H200", PricingModel.RESERVED, 1): Decimal("4.15"),
        ("NVIDIA HGX H200", PricingModel.RESERVED, 3): Decimal("3.99"),
        ("NVIDIA HGX B200", PricingModel.ON_DEMAND, None): Decimal("8.19"),
        ("NVIDIA HGX B200", PricingModel.RESERVED, 1): Decimal("7.79"),
        ("NVIDIA HGX B200", PricingModel.RESERVED, 3): Decimal("6.79"),
    }
    assert excluded == {
        "dedicated_inference": 6,  # HGX H100 $5.49 ... a managed endpoint product
        "hidden_table_row": 6,  # the hidden on-demand copy
        "reserved_under_a_month": 3,  # the 7-30 days band ($3.69, $4.99, $7.99)
        "contact us": 6,  # 181+ days, and the reserved cell of GB200/GB300/B300
        "no_price": 3,  # "—" on demand for GB200 NVL72, GB300 NVL72, HGX B300
    }
    for offer in offers:
        assert offer.price_per is PricePer.GPU and offer.gpu_count == 8
        assert offer.currency == "USD" and offer.price_unit is PriceUnit.HOUR
        assert offer.source_url == together.PRICING_URL and offer.region == "global"
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)


def test_dedicated_inference_prices_are_not_cluster_offers() -> None:
    offers = together.PROVIDER.parse([_raw()])
    assert Decimal("5.49") not in {o.price for o in offers}  # Dedicated Inference HGX H100
    assert Decimal("8.99") not in {o.price for o in offers}  # Dedicated Inference HGX B200


def test_a_band_that_is_not_in_days_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b"91-180 days", b"3-6 months")
    with pytest.raises(SchemaDriftError, match="not a day band"):
        together.PROVIDER.parse([_raw(body)])


def test_a_page_without_the_cluster_table_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b"ON-Demand", b"Hourly")
    with pytest.raises(SchemaDriftError, match="no visible GPU Clusters table"):
        together.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=CAPTURE.read_bytes(), request=request)

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = together.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", together.PRICING_URL)]
    assert len(together.PROVIDER.parse(responses)) == 9


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["together"])["together"]
    assert [c.path.name for c in captures] == [CAPTURE.name]
    with http.make_client(ReplayTransport(captures[0])) as client:
        assert len(together.PROVIDER.parse(together.fetch(client, None))) == 9
