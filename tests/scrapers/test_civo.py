"""Civo scraper on its real capture (2026-08-22 pricing page, NVIDIA GPUs section)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import civo, http
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

GPUS_2026_08_22 = SNAPSHOTS / "civo" / "2026-08-22_pricing_gpu-section_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(GPUS_2026_08_22, url=civo.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def test_2026_08_22_gpu_tables_read_off_the_page() -> None:
    offers, excluded = civo.PROVIDER.parse_report([_raw()])
    # 17 sizes x (on-demand + 4 terms) = 85 prices, less B200's on-demand and 6-month "N/A"
    assert len(offers) == 83
    assert excluded == {"n/a": 2}
    by = {(o.instance_type, o.pricing, o.reserved_term_months): o for o in offers}

    # L40S Small: 1 x NVIDIA L40S - 48GB, 96 GB RAM, 12 vCPU, 200GB NVMe, $1.29 per hour
    small = by[("1 x NVIDIA L40S - 48GB", PricingModel.ON_DEMAND, None)]
    assert small.price == Decimal("1.29") and small.currency == "USD"
    assert small.price_unit is PriceUnit.HOUR and small.price_per is PricePer.INSTANCE
    assert (small.gpu_name, small.gpu_count, small.vram_gb_reported) == ("NVIDIA L40S 48GB", 1, 48)
    assert (small.vcpus, small.ram_gb, small.storage_gb) == (12, 96, 200)
    assert small.region == "global"
    # its 36-month commitment: $0.89 per hour
    assert by[("1 x NVIDIA L40S - 48GB", PricingModel.RESERVED, 36)].price == Decimal("0.89")

    # H100 SXM Extra Large: 8 GPUs for $23.92 per hour (8 x $2.99), 12 months $21.52
    h100 = by[("8 x NVIDIA H100 - 80GB", PricingModel.ON_DEMAND, None)]
    assert (h100.price, h100.gpu_count, h100.gpu_name) == (Decimal("23.92"), 8, "NVIDIA H100 SXM")
    assert (h100.vcpus, h100.ram_gb, h100.storage_gb) == (184, 1024, 1500)
    assert by[("8 x NVIDIA H100 - 80GB", PricingModel.RESERVED, 12)].price == Decimal("21.52")

    # A100 40GB Small: $1.09 on demand, 6 months $0.99
    assert by[("1 x NVIDIA A100 - 40GB", PricingModel.ON_DEMAND, None)].price == Decimal("1.09")
    assert by[("1 x NVIDIA A100 - 40GB", PricingModel.RESERVED, 6)].price == Decimal("0.99")

    # H200 SXM Small: 141GB, $3.49
    h200 = by[("1 x NVIDIA H200 - 141GB HBM3e", PricingModel.ON_DEMAND, None)]
    assert (h200.price, h200.vram_gb_reported) == (Decimal("3.49"), 141)

    # B200 is commitment-only: 12 months $35.92, 24 $31.92, 36 $30.32; 2.5TB RAM
    b200 = [o for o in offers if o.gpu_name == "NVIDIA B200"]
    assert sorted((o.reserved_term_months, o.price) for o in b200) == [
        (12, Decimal("35.92")),
        (24, Decimal("31.92")),
        (36, Decimal("30.32")),
    ]
    assert b200[0].ram_gb == 2500
    for offer in offers:
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)


def test_monthly_figures_are_not_read_as_prices() -> None:
    body = GPUS_2026_08_22.read_bytes().replace(b"$941.70<span>per month", b"$1.00<span>per month")
    offers = civo.PROVIDER.parse([_raw(body)])
    assert Decimal("1.00") not in {o.price for o in offers}


def test_an_unreadable_price_is_counted_and_the_rest_kept() -> None:
    body = GPUS_2026_08_22.read_bytes().replace(b"$1.29<span>per hour", b"soon<span>per hour", 1)
    offers, excluded = civo.PROVIDER.parse_report([_raw(body)])
    assert len(offers) == 82
    assert excluded == {"n/a": 2, "unparsed_price": 1}


def test_renamed_section_is_schema_drift() -> None:
    body = GPUS_2026_08_22.read_bytes().replace(b'id="nvidia-gpus"', b'id="gpus"')
    with pytest.raises(SchemaDriftError, match="GPU section"):
        civo.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=GPUS_2026_08_22.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = civo.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", civo.PRICING_URL)]
    assert len(civo.PROVIDER.parse(responses)) == 83


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["civo"])["civo"]
    assert [c.path.name for c in captures] == [GPUS_2026_08_22.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            assert len(civo.PROVIDER.parse(civo.fetch(client, None))) == 83
