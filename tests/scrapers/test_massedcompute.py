"""Massed Compute scraper on its real capture: the pricing page's flight data, 2026-08-22, the
first 16,000 characters of an excerpt of the keyed configuration cards and rows."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, massedcompute
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "massedcompute" / "2026-08-22_pricing_rsc_excerpt_first16000.html"


def _raw(body: bytes | None = None):
    raw = raw_from_capture(CAPTURE, url=massedcompute.PRICING_URL)
    return raw if body is None else replace(raw, body=body)


def test_cards_read_off_the_capture() -> None:
    offers, excluded = massedcompute.PROVIDER.parse_report([_raw()])
    by = {o.instance_type: o for o in offers}
    # seven mobile cards; the two desktop rows in the excerpt repeat the B300 and B200 cards
    assert list(by) == [
        "B300 SXM6 x8",
        "B200 SXM6 x8",
        "RTX PRO 6000 Blackwell (96GB) x1",
        "H200 NVL (141GB) x1",
        "H200 NVL (141GB) NVLink x4",
        "RTX PRO 4500 Blackwell (32GB) x1",
        "H100 (80GB) x1",
    ]
    assert excluded == {"desktop_row": 2}

    # "B300 SXM6", ×8, $52.80/hr, vCPU 280, RAM 2800 GB, Storage 6000
    b300 = by["B300 SXM6 x8"]
    assert (b300.gpu_name, b300.gpu_count, b300.price) == ("B300 SXM6", 8, Decimal("52.80"))
    assert (b300.vcpus, b300.ram_gb, b300.storage_gb) == (280, 2800, 6000)
    assert by["B200 SXM6 x8"].price == Decimal("43.46")
    # "H200 NVL (141GB) NVLink", ×4, $15.28/hr, 62 vCPUs, 720 GB
    nvlink = by["H200 NVL (141GB) NVLink x4"]
    assert (nvlink.gpu_name, nvlink.gpu_count, nvlink.vram_gb_reported) == ("H200 NVL", 4, 141)
    assert (nvlink.price, nvlink.vcpus, nvlink.ram_gb) == (Decimal("15.28"), 62, 720)
    assert by["RTX PRO 6000 Blackwell (96GB) x1"].price == Decimal("2.19")
    assert by["RTX PRO 4500 Blackwell (32GB) x1"].price == Decimal("0.92")
    assert by["H200 NVL (141GB) x1"].price == Decimal("3.62")
    # the H100 card is cut right after its price: $2.73, no specs
    h100 = by["H100 (80GB) x1"]
    assert (h100.price, h100.vcpus, h100.ram_gb) == (Decimal("2.73"), None, None)

    for offer in offers:
        assert offer.currency == "USD" and offer.price_unit is PriceUnit.HOUR
        assert offer.price_per is PricePer.INSTANCE and offer.pricing is PricingModel.ON_DEMAND
        assert offer.source_url == massedcompute.PRICING_URL
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)


def test_a_card_cut_before_its_price_is_counted() -> None:
    body = CAPTURE.read_bytes()
    cut = body[: body.rindex(b"$$2.73")]
    offers, excluded = massedcompute.PROVIDER.parse_report([_raw(cut)])
    assert len(offers) == 6 and excluded == {"desktop_row": 2, "truncated_row": 1}
    unpriced = body.replace(b"$$3.62", b"$$--", 1)
    offers, excluded = massedcompute.PROVIDER.parse_report([_raw(unpriced)])
    assert excluded["unparsed_price"] == 1 and len(offers) == 6


def test_a_page_without_cards_is_drift() -> None:
    with pytest.raises(SchemaDriftError, match="no keyed GPU configuration"):
        massedcompute.PROVIDER.parse([_raw(b"<html>Pricing</html>")])


def test_fetch_requests_the_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=CAPTURE.read_bytes(), request=request)

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = massedcompute.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", massedcompute.PRICING_URL)]
    assert len(massedcompute.PROVIDER.parse(responses)) == 7


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["massedcompute"])["massedcompute"]
    assert [c.path.name for c in captures] == [CAPTURE.name]
    with http.make_client(ReplayTransport(captures[0])) as client:
        assert len(massedcompute.PROVIDER.parse(massedcompute.fetch(client, None))) == 7
