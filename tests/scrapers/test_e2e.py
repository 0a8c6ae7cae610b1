"""E2E Networks scraper on its real capture (2026-08-22 USD pricing page, NVIDIA GPU table)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import e2e, http
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

GPUS_2026_08_22 = SNAPSHOTS / "e2e" / "2026-08-22_pricing-us_gpu-table_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(GPUS_2026_08_22, url=e2e.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def test_2026_08_22_gpu_table_read_off_the_page() -> None:
    offers, excluded = e2e.PROVIDER.parse_report([_raw()])
    assert len(offers) == 20  # 10 rows x (hourly, monthly)
    assert excluded == {"annual_price": 10}
    by = {(o.instance_type, o.pricing): o for o in offers}

    # NVIDIA H100 | 80 | 26 | 250 | $3.77 | $2,363.01 | $23,914.80, with "1x" selected
    h100 = by[("NVIDIA H100 80GB", PricingModel.ON_DEMAND)]
    assert h100.price == Decimal("3.77") and h100.currency == "USD"
    assert h100.price_unit is PriceUnit.HOUR and h100.price_per is PricePer.GPU
    assert (h100.gpu_count, h100.vram_gb_reported, h100.vcpus, h100.ram_gb) == (1, 80, 26, 250)
    assert h100.region == "global"
    month = by[("NVIDIA H100 80GB", PricingModel.RESERVED)]
    assert (month.price, month.price_unit, month.reserved_term_months) == (
        Decimal("2363.01"),
        PriceUnit.MONTH,
        1,
    )
    assert month.price_per is PricePer.GPU

    # the two A100 rows differ by memory: 80 GB $2.10, 40 GB $1.98
    assert by[("NVIDIA A100 80GB", PricingModel.ON_DEMAND)].price == Decimal("2.10")
    assert by[("NVIDIA A100 40GB", PricingModel.ON_DEMAND)].price == Decimal("1.98")
    # NVIDIA B200 | 192 | 32 | 400 | $6.99 ; NVIDIA L4 | 24 | 25 | 110 | $0.57 | $357.70
    assert by[("NVIDIA B200 192GB", PricingModel.ON_DEMAND)].price == Decimal("6.99")
    assert by[("NVIDIA L4 24GB", PricingModel.RESERVED)].price == Decimal("357.70")
    for offer in offers:
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)
        assert offer.source_url == e2e.PRICING_URL


def test_another_selected_gpu_count_is_read_as_the_count() -> None:
    body = GPUS_2026_08_22.read_bytes().decode()
    buttons = re.findall(r'<button class="([^"]*)">(\d)<!-- -->x</button>', body)
    assert [n for _, n in buttons] == ["1", "2", "4", "8"]
    (one, _), (two, _) = buttons[0], buttons[1]
    body = (
        body.replace(f'class="{one}">1<', 'class="X">1<')
        .replace(f'class="{two}">2<', f'class="{one}">2<')
        .replace('class="X">1<', f'class="{two}">1<')
    )
    offers = e2e.PROVIDER.parse([_raw(body.encode())])
    assert {o.gpu_count for o in offers} == {2}


def test_missing_per_gpu_note_is_schema_drift() -> None:
    body = GPUS_2026_08_22.read_bytes().replace(b"per GPU-hour", b"per hour")
    with pytest.raises(SchemaDriftError, match="per GPU-hour"):
        e2e.PROVIDER.parse([_raw(body)])


def test_contact_sales_price_is_counted() -> None:
    body = GPUS_2026_08_22.read_bytes().replace(b"$3.77", b"Contact sales", 1)
    offers, excluded = e2e.PROVIDER.parse_report([_raw(body)])
    assert len(offers) == 19
    assert excluded == {"annual_price": 10, "contact sales": 1}


def test_fetch_requests_the_live_usd_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=GPUS_2026_08_22.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = e2e.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", e2e.PRICING_URL)]
    assert len(e2e.PROVIDER.parse(responses)) == 20


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["e2e"])["e2e"]
    assert [c.path.name for c in captures] == [GPUS_2026_08_22.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            assert len(e2e.PROVIDER.parse(e2e.fetch(client, None))) == 20
