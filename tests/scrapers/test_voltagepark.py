"""Voltage Park scraper on its real capture (2025-07 on-demand H100 plan cards)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import http, voltagepark
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CARDS_2025_07 = SNAPSHOTS / "voltagepark" / "2025-07-12_wayback_pricing_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(CARDS_2025_07, url=voltagepark.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def test_2025_07_plan_cards_read_off_the_page() -> None:
    offers, excluded = voltagepark.parse_with_exclusions([_raw()])
    # Two on-demand cards; the "Long-Term Reserve" card is cut right after its heading.
    assert len(offers) == 2
    assert excluded == {"truncated_card": 1}
    by = {o.instance_type: o for o in offers}

    # "On-Demand, Ethernet | $1.99/hr | 1-1016 HGX H100 GPUs for your bursts ..."
    ethernet = by["On-Demand, Ethernet"]
    assert ethernet.price == Decimal("1.99")
    assert ethernet.currency == "USD"
    assert ethernet.price_unit is PriceUnit.HOUR
    assert ethernet.price_per is PricePer.GPU
    assert ethernet.gpu_name == "HGX H100"
    assert ethernet.gpu_count == 1
    assert ethernet.pricing is PricingModel.ON_DEMAND

    # "On-demand, 3200 Gbps Infiniband | $2.49/hr | 8-1016 HGX H100 GPUs ..."
    infiniband = by["On-demand, 3200 Gbps Infiniband"]
    assert infiniband.price == Decimal("2.49")
    assert infiniband.price_per is PricePer.GPU
    assert infiniband.gpu_name == "HGX H100"
    assert infiniband.gpu_count == 8

    for offer in offers:
        assert offer.observed_at == datetime(2025, 7, 12, 0, 0, tzinfo=UTC)
        assert offer.source_url == voltagepark.PRICING_URL
        assert offer.vram_gb_reported is None  # the cards do not state it


def test_renamed_card_class_is_schema_drift() -> None:
    body = CARDS_2025_07.read_bytes().replace(b"text-eyebrow", b"text-kicker")
    with pytest.raises(SchemaDriftError, match="no plan cards"):
        voltagepark.PROVIDER.parse([_raw(body)])


def _other_card_only(body: bytes) -> tuple[list[tuple[str, Decimal]], dict[str, int]]:
    offers, excluded = voltagepark.PROVIDER.parse_report([_raw(body)])
    return [(o.instance_type, o.price) for o in offers], dict(excluded)


def test_one_card_without_its_price_is_counted_and_the_other_published() -> None:
    body = CARDS_2025_07.read_bytes().replace(b'class="heading-style-h3">$2.49/hr', b">")
    assert _other_card_only(body) == (
        [("On-Demand, Ethernet", Decimal("1.99"))],
        {"unparsed_price": 1, "truncated_card": 1},
    )
    body = CARDS_2025_07.read_bytes().replace(b"$1.99/hr", b"$1.99/mo")
    assert _other_card_only(body) == (
        [("On-demand, 3200 Gbps Infiniband", Decimal("2.49"))],
        {"unknown_unit On-Demand, Ethernet": 1, "truncated_card": 1},
    )


def test_negative_price_is_still_drift() -> None:
    body = CARDS_2025_07.read_bytes().replace(b"$1.99/hr", b"$-1.99/hr")
    with pytest.raises(SchemaDriftError, match="negative price"):
        voltagepark.PROVIDER.parse([_raw(body)])


def test_one_card_without_its_gpu_range_is_counted() -> None:
    body = CARDS_2025_07.read_bytes().replace(b"8-1016 HGX H100 GPUs", b"Many GPUs")
    assert _other_card_only(body) == (
        [("On-Demand, Ethernet", Decimal("1.99"))],
        {"no_gpu_line": 1, "truncated_card": 1},
    )


def test_card_of_an_unknown_gpu_is_reported_by_name() -> None:
    # Regression (issue 11 §1): a new GPU's card must not hide the known card's price.
    body = CARDS_2025_07.read_bytes().replace(b"8-1016 HGX H100 GPUs", b"8-1016 HGX B200 GPUs")
    assert _other_card_only(body) == (
        [("On-Demand, Ethernet", Decimal("1.99"))],
        {"unknown_gpu HGX B200": 1, "truncated_card": 1},
    )


def test_unknown_priced_plan_is_reported_and_contact_sales_is_counted() -> None:
    body = CARDS_2025_07.read_bytes().replace(b"On-Demand, Ethernet", b"Spot, Ethernet")
    assert _other_card_only(body) == (
        [("On-demand, 3200 Gbps Infiniband", Decimal("2.49"))],
        {"unknown_plan Spot, Ethernet": 1, "truncated_card": 1},
    )
    body = CARDS_2025_07.read_bytes().replace(b"$1.99/hr", b"Contact sales")
    offers, excluded = voltagepark.parse_with_exclusions([_raw(body)])
    assert [o.price for o in offers] == [Decimal("2.49")]
    assert excluded == {"contact sales": 1, "truncated_card": 1}


def test_every_card_unknown_or_unreadable_is_still_drift() -> None:
    body = CARDS_2025_07.read_bytes().replace(b"On-Demand, Ethernet", b"Spot, Ethernet")
    body = body.replace(b"HGX H100", b"HGX B200")
    with pytest.raises(SchemaDriftError, match=r"no on-demand plan card.*unknown_gpu HGX B200"):
        voltagepark.PROVIDER.parse([_raw(body)])


def test_contact_for_pricing_card_is_counted_not_drift() -> None:
    # Regression: a "Contact for pricing" card failed the whole page ("is not per hour").
    body = CARDS_2025_07.read_bytes()
    assert body.count(b"$2.49/hr") == 1
    body = body.replace(b"$2.49/hr", b"Contact  for Pricing")
    offers, excluded = voltagepark.parse_with_exclusions([_raw(body)])
    assert [(o.instance_type, o.price) for o in offers] == [
        ("On-Demand, Ethernet", Decimal("1.99"))
    ]
    assert excluded == {"contact for pricing": 1, "truncated_card": 1}


def test_every_card_unpriced_is_still_drift() -> None:
    body = CARDS_2025_07.read_bytes()
    body = body.replace(b"$2.49/hr", b"Contact for pricing").replace(b"$1.99/hr", b"Contact sales")
    with pytest.raises(SchemaDriftError, match="no on-demand plan card with a price"):
        voltagepark.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=CARDS_2025_07.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = voltagepark.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", voltagepark.PRICING_URL)]
    assert seen[0].headers["User-Agent"] == http.USER_AGENT
    assert len(voltagepark.PROVIDER.parse(responses)) == 2


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["voltagepark"])["voltagepark"]
    assert [c.path.name for c in captures] == [CARDS_2025_07.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = voltagepark.PROVIDER.parse(voltagepark.fetch(client, None))
        assert len(offers) == 2
        assert all(o.observed_at == capture.captured_at for o in offers)
