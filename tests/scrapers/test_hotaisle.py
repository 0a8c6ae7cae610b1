"""Hot Aisle scraper on its real capture (2026-08-22 pricing page, MI300X plan cards)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import hotaisle, http
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CARDS_2026_08_22 = SNAPSHOTS / "hotaisle" / "2026-08-22_pricing_page_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(CARDS_2026_08_22, url=hotaisle.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def test_2026_08_22_plan_cards_read_off_the_page() -> None:
    offers, excluded = hotaisle.PROVIDER.parse_report([_raw()])
    assert excluded == {}
    by = {o.instance_type: o for o in offers}
    assert sorted(by) == [
        "Large 8x MI300x",
        "Medium 2x MI300x",
        "Medium 4x MI300x",
        "Small 1x MI300x",
    ]

    # VM Small: 1x MI300x, $2.99/GPU/hr, 192GB HBM3, 224GB System RAM, 12TB NVMe
    small = by["Small 1x MI300x"]
    assert small.price == Decimal("2.99") and small.currency == "USD"
    assert small.price_per is PricePer.GPU and small.price_unit is PriceUnit.HOUR
    assert small.pricing is PricingModel.ON_DEMAND
    assert (small.gpu_count, small.vram_gb_reported, small.ram_gb, small.storage_gb) == (
        1,
        192,
        224,
        12000,
    )
    # VM Medium: 2x & 4x at $2.99/GPU/hr; 384GB or 768GB HBM3, 448GB or 896GB RAM
    four = by["Medium 4x MI300x"]
    assert (four.price, four.gpu_count, four.vram_gb_reported, four.ram_gb) == (
        Decimal("2.99"),
        4,
        192,
        896,
    )
    assert by["Medium 2x MI300x"].ram_gb == 448
    # Bare metal Large: 8x at $3.39/GPU/hr, one-month minimum; 2TB RAM + 122TB NVMe
    large = by["Large 8x MI300x"]
    assert (large.price, large.pricing, large.reserved_term_months) == (
        Decimal("3.39"),
        PricingModel.RESERVED,
        1,
    )
    assert (large.gpu_count, large.ram_gb, large.storage_gb) == (8, 2000, 122000)
    assert large.vram_gb_reported is None  # "1.5 TB" is a rounded total
    # the grandfathered $1.99 is not sold to new customers
    assert Decimal("1.99") not in {o.price for o in offers}
    for offer in offers:
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)
        assert offer.region == "global"


def test_a_price_not_per_gpu_hour_is_counted_by_card() -> None:
    body = CARDS_2026_08_22.read_bytes().replace(
        b'mb-3 font-bold text-foreground">$2.99/GPU/hr',
        b'mb-3 font-bold text-foreground">$2.99/hr',
        1,
    )
    offers, excluded = hotaisle.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"unknown_unit Small": 1}
    assert len(offers) == 3  # Medium (2x, 4x) and Large


def test_no_plan_card_is_schema_drift() -> None:
    body = CARDS_2026_08_22.read_bytes().replace(b"<h2", b"<h3").replace(b"</h2>", b"</h3>")
    with pytest.raises(SchemaDriftError, match="no plan card"):
        hotaisle.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=CARDS_2026_08_22.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = hotaisle.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", hotaisle.PRICING_URL)]
    assert len(hotaisle.PROVIDER.parse(responses)) == 4


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["hotaisle"])["hotaisle"]
    assert [c.path.name for c in captures] == [CARDS_2026_08_22.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            assert len(hotaisle.PROVIDER.parse(hotaisle.fetch(client, None))) == 4
