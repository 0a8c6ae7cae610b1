"""GMI Cloud scraper on its real capture (2026-08-22 pricing page, GPU cards)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import gmicloud, http
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CARDS_2026_08_22 = SNAPSHOTS / "gmicloud" / "2026-08-22_pricing_page_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(CARDS_2026_08_22, url=gmicloud.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def test_2026_08_22_gpu_cards_read_off_the_page() -> None:
    offers, excluded = gmicloud.PROVIDER.parse_report([_raw()])
    assert excluded == {"pre_order": 1}  # NVIDIA GB300 "Pre order"
    by = {o.instance_type: o for o in offers}
    # GB200 from $8.00, H100 from $2.00, H200 from $2.60, B200 from $4.00 /GPU-hour
    assert {name: o.price for name, o in by.items()} == {
        "NVIDIA GB200": Decimal("8.00"),
        "NVIDIA H100 GPU": Decimal("2.00"),
        "NVIDIA H200": Decimal("2.60"),
        "NVIDIA B200 GPU": Decimal("4.00"),
    }
    h100 = by["NVIDIA H100 GPU"]
    assert (h100.gpu_name, h100.gpu_count, h100.currency) == ("NVIDIA H100", 1, "USD")
    assert h100.price_per is PricePer.GPU and h100.price_unit is PriceUnit.HOUR
    assert h100.pricing is PricingModel.ON_DEMAND
    assert h100.available is True  # "AVAILABLE NOW"
    assert by["NVIDIA B200 GPU"].available is None  # "Limited Availability"
    for offer in offers:
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)
        assert offer.region == "global"


def test_a_unit_other_than_per_gpu_hour_is_counted() -> None:
    body = CARDS_2026_08_22.read_bytes()
    start = body.index(b">NVIDIA H200</h3>")
    body = body[:start] + body[start:].replace(b"/GPU-hour", b"/node-hour", 1)
    offers, excluded = gmicloud.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"pre_order": 1, "unknown_unit NVIDIA H200": 1}
    assert len(offers) == 3


def test_no_gpu_card_is_schema_drift() -> None:
    body = CARDS_2026_08_22.read_bytes().replace(b"/GPU-hour", b"")
    with pytest.raises(SchemaDriftError, match="no GPU card"):
        gmicloud.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=CARDS_2026_08_22.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = gmicloud.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", gmicloud.PRICING_URL)]
    assert len(gmicloud.PROVIDER.parse(responses)) == 4


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["gmicloud"])["gmicloud"]
    assert [c.path.name for c in captures] == [CARDS_2026_08_22.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            assert len(gmicloud.PROVIDER.parse(gmicloud.fetch(client, None))) == 4
