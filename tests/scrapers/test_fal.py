"""fal scraper on its real capture (2026-08-22 pricing page, Serverless & Compute GPU table)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import fal, http
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

PAGE_2026_08_22 = SNAPSHOTS / "fal" / "2026-08-22_pricing_serverless-compute_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(PAGE_2026_08_22, url=fal.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def test_2026_08_22_gpu_list_prices_read_off_the_page() -> None:
    offers, excluded = fal.PROVIDER.parse_report([_raw()])
    # each row's "As low as" floor is counted, not an offer; the Model APIs tables are not read
    assert excluded == {"as_low_as_floor": 5}
    by = {o.instance_type: o for o in offers}
    # B300 288GB $8.50/h, B200 180GB $6.25/h, H200 141GB $4.50/h, H100 80GB $4.50/h,
    # RTX PRO 6000 96GB $2.99/h (List Price)
    assert {name: o.price for name, o in by.items()} == {
        "B300 288GB": Decimal("8.50"),
        "B200 180GB": Decimal("6.25"),
        "H200 141GB": Decimal("4.50"),
        "H100 80GB": Decimal("4.50"),
        "RTX PRO 6000 96GB": Decimal("2.99"),
    }
    h100 = by["H100 80GB"]
    assert (h100.gpu_name, h100.gpu_count, h100.vram_gb_reported) == ("H100 80GB", 1, 80)
    assert h100.serverless is True and h100.pricing is PricingModel.ON_DEMAND
    assert h100.price_per is PricePer.GPU and h100.price_unit is PriceUnit.HOUR
    # the $1.89/h "as low as" floor is not the H100's price
    assert Decimal("1.89") not in {o.price for o in offers}
    for offer in offers:
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)
        assert offer.region == "global" and offer.currency == "USD"


def test_a_list_price_not_per_hour_is_counted() -> None:
    body = PAGE_2026_08_22.read_bytes().replace(b"$8.50/h", b"$8.50/mo", 1)
    offers, excluded = fal.PROVIDER.parse_report([_raw(body)])
    assert len(offers) == 4
    assert excluded == {"as_low_as_floor": 4, "unknown_unit B300": 1}


def test_missing_gpu_table_is_schema_drift() -> None:
    body = PAGE_2026_08_22.read_bytes().replace(b"List Price", b"Price")
    with pytest.raises(SchemaDriftError, match="List Price"):
        fal.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=PAGE_2026_08_22.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = fal.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", fal.PRICING_URL)]
    assert len(fal.PROVIDER.parse(responses)) == 5


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["fal"])["fal"]
    assert [c.path.name for c in captures] == [PAGE_2026_08_22.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            assert len(fal.PROVIDER.parse(fal.fetch(client, None))) == 5
