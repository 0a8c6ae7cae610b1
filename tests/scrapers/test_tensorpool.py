"""TensorPool scraper on its real capture: the whole pricing page of 2026-08-22."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, tensorpool
from scrapers.base import PricePer, PriceUnit, PricingModel, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE = SNAPSHOTS / "tensorpool" / "2026-08-22_pricing_page_full.html"


def _raw(body: bytes | None = None):
    raw = raw_from_capture(CAPTURE, url=tensorpool.PRICING_URL)
    return raw if body is None else replace(raw, body=body)


def test_own_card_prices_read_off_the_page() -> None:
    offers, excluded = tensorpool.PROVIDER.parse_report([_raw()])
    # TensorPool "GPU COSTS / HR": B200 SXM $4.99, H200 SXM $2.99, B300 SXM $5.49,
    # H100 SXM $1.99, L40S $1.49, CPU $0.015 (not a GPU)
    assert [(o.gpu_name, o.price) for o in offers] == [
        ("B200 SXM", Decimal("4.99")),
        ("H200 SXM", Decimal("2.99")),
        ("B300 SXM", Decimal("5.49")),
        ("H100 SXM", Decimal("1.99")),
        ("L40S", Decimal("1.49")),
    ]
    assert excluded == {"cpu": 1}
    for offer in offers:
        assert offer.price_per is PricePer.GPU and offer.gpu_count == 1
        assert offer.currency == "USD" and offer.price_unit is PriceUnit.HOUR
        assert offer.pricing is PricingModel.ON_DEMAND and offer.region == "global"
        assert offer.source_url == tensorpool.PRICING_URL
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)


def test_the_comparison_cards_of_other_clouds_are_not_read() -> None:
    # Lambda Labs' H100 SXM $3.29 and the "Traditional Clouds" $14 are TensorPool's figures
    offers = tensorpool.PROVIDER.parse([_raw()])
    assert Decimal("3.29") not in {o.price for o in offers}
    assert Decimal("14") not in {o.price for o in offers}


def test_a_no_price_line_is_counted() -> None:
    body = CAPTURE.read_bytes()
    start = body.index(b">TensorPool</h3>")
    line = body.index(b"L40S - <strong>$1.49</strong>", start)
    body = body[:line] + b"L40S - <strong>N/A</strong>" + body[line + 29 :]
    offers, excluded = tensorpool.PROVIDER.parse_report([_raw(body)])
    assert len(offers) == 4 and excluded == {"cpu": 1, "n/a": 1}


def test_a_page_without_the_card_is_drift() -> None:
    body = CAPTURE.read_bytes().replace(b">TensorPool</h3>", b">TP</h3>")
    with pytest.raises(SchemaDriftError, match="no 'TensorPool' card"):
        tensorpool.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=CAPTURE.read_bytes(), request=request)

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = tensorpool.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", tensorpool.PRICING_URL)]
    assert len(tensorpool.PROVIDER.parse(responses)) == 5


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["tensorpool"])["tensorpool"]
    assert [c.path.name for c in captures] == [CAPTURE.name]
    with http.make_client(ReplayTransport(captures[0])) as client:
        assert len(tensorpool.PROVIDER.parse(tensorpool.fetch(client, None))) == 5
