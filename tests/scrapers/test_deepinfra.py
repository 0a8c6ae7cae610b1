"""DeepInfra scraper on its real capture (2026-08-22 pricing page, Custom LLMs GPU table)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import deepinfra, http
from scrapers.base import PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

PAGE_2026_08_22 = SNAPSHOTS / "deepinfra" / "2026-08-22_pricing_custom-llms_slices_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(PAGE_2026_08_22, url=deepinfra.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def test_2026_08_22_custom_llm_gpus_read_off_the_page() -> None:
    offers, excluded = deepinfra.PROVIDER.parse_report([_raw()])
    assert excluded == {}  # the tier, usage and per-token tables are not GPU rentals: not read
    by = {o.instance_type: o for o in offers}
    # A100 80GB $0.89, H100 80GB $2.20, H200 141GB $2.69, B200 180GB $3.69, B300 270GB $4.89
    assert {name: o.price for name, o in by.items()} == {
        "A100 80GB": Decimal("0.89"),
        "H100 80GB": Decimal("2.20"),
        "H200 141GB": Decimal("2.69"),
        "B200 180GB": Decimal("3.69"),
        "B300 270GB": Decimal("4.89"),
    }
    h100 = by["H100 80GB"]
    assert (h100.gpu_count, h100.vram_gb_reported, h100.gpu_form_factor) == (1, 80, "SXM")
    assert h100.price_per is PricePer.GPU and h100.price_unit is PriceUnit.HOUR
    assert h100.pricing is PricingModel.ON_DEMAND and h100.serverless is True
    assert by["B300 270GB"].vram_gb_reported == 270
    for offer in offers:
        assert offer.observed_at == datetime(2026, 8, 22, tzinfo=UTC)
        assert offer.region == "global" and offer.currency == "USD"


def test_without_the_sxm_sentence_no_form_factor_is_stated() -> None:
    body = PAGE_2026_08_22.read_bytes().replace(b"SXM-connected", b"connected")
    offers = deepinfra.PROVIDER.parse([_raw(body)])
    assert {o.gpu_form_factor for o in offers} == {None}


def test_a_price_not_per_gpu_hour_is_counted() -> None:
    body = PAGE_2026_08_22.read_bytes().replace(b"</b> / GPU-hour", b"</b> / hour", 1)
    offers, excluded = deepinfra.PROVIDER.parse_report([_raw(body)])
    assert excluded == {"unknown_unit A100": 1}
    assert len(offers) == 4


def test_missing_gpu_table_is_schema_drift() -> None:
    body = PAGE_2026_08_22.read_bytes().replace(b">Memory</th>", b">VRAM</th>")
    with pytest.raises(SchemaDriftError, match=r"GPU \| Memory \| Price"):
        deepinfra.PROVIDER.parse([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=PAGE_2026_08_22.read_bytes())

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = deepinfra.fetch(client, None)
    assert [(r.method, str(r.url)) for r in seen] == [("GET", deepinfra.PRICING_URL)]
    assert len(deepinfra.PROVIDER.parse(responses)) == 5


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["deepinfra"])["deepinfra"]
    assert [c.path.name for c in captures] == [PAGE_2026_08_22.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            assert len(deepinfra.PROVIDER.parse(deepinfra.fetch(client, None))) == 5
