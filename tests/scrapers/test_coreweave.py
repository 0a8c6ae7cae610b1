"""CoreWeave scraper on its real capture (2023 GPU component table) and the live request shape."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest

from scrapers import coreweave, http
from scrapers.base import Offer, PricePer, PriceUnit, PricingModel, RawResponse, SchemaDriftError
from scrapers.replay import ReplayTransport, discover
from tests.conftest import SNAPSHOTS, raw_from_capture

CAPTURE_2023 = SNAPSHOTS / "coreweave" / "2023-09-21_wayback_gpu-cloud-pricing_excerpt.html"


def _raw(body: bytes | None = None) -> RawResponse:
    raw = raw_from_capture(CAPTURE_2023, url=coreweave.PRICING_URL)
    if body is None:
        return raw
    return RawResponse(raw.url, raw.method, raw.status, raw.content_type, body, raw.fetched_at)


def _by_name(offers: list[Offer]) -> dict[str, Offer]:
    by_name = {o.instance_type: o for o in offers}
    assert len(by_name) == len(offers), "instance_type must be unique"
    return by_name


def test_2023_component_table_prices_read_off_the_page() -> None:
    offers, excluded = coreweave.parse_with_exclusions([_raw()])
    by_name = _by_name(offers)
    assert len(offers) == 12
    # The last row (Tesla V100 NVLINK) is cut by the excerpt after its name.
    assert excluded == {"truncated_row": 1}
    assert "Tesla V100 NVLINK" not in by_name

    h100 = by_name["NVIDIA HGX H100"]  # "NVIDIA HGX H100 | 80 | 48 | 256 | $4.76 Reserve Now"
    assert h100.price == Decimal("4.76")
    assert h100.currency == "USD"
    assert h100.price_unit is PriceUnit.HOUR
    assert h100.price_per is PricePer.GPU
    assert h100.gpu_count == 1
    assert h100.vram_gb_per_gpu == 80
    assert h100.pricing is PricingModel.ON_DEMAND
    # Max vCPUs / RAM per GPU are separately billed components, not part of this price.
    assert h100.vcpus is None and h100.ram_gb is None

    assert by_name["NVIDIA H100 PCIe"].price == Decimal("4.25")
    assert by_name["A100 80GB NVLINK"].price == Decimal("2.21")
    assert by_name["A100 40GB PCIe"].price == Decimal("2.06")
    assert by_name["A100 40GB PCIe"].vram_gb_per_gpu == 40
    assert by_name["RTX A5000"].price == Decimal("0.77")
    assert by_name["RTX A5000"].vram_gb_per_gpu == 24
    assert by_name["Quadro RTX 4000"].price == Decimal("0.24")
    assert by_name["Quadro RTX 4000"].vram_gb_per_gpu == 8

    for offer in offers:
        assert offer.provider == "coreweave"
        assert offer.region == "global"
        assert offer.source_url == coreweave.PRICING_URL
        assert offer.observed_at == datetime(2023, 9, 21, tzinfo=UTC)
        assert offer.gpu_name == offer.instance_type


def test_missing_price_heading_is_schema_drift() -> None:
    body = _raw().body.replace(b"GPU Component<br/>Cost Per Hour", b"Hourly")
    with pytest.raises(SchemaDriftError, match="unknown CoreWeave pricing layout"):
        coreweave.parse([_raw(body)])


def test_removed_price_cells_are_schema_drift() -> None:
    body = _raw().body.replace(b"<strong>$4.25</strong>", b"")
    assert body != _raw().body
    with pytest.raises(SchemaDriftError, match="NVIDIA H100 PCIe"):
        coreweave.parse([_raw(body)])


def test_row_missing_a_cell_mid_table_is_schema_drift_not_truncation() -> None:
    # Drop every value cell of the first row: it is not the end of the document, so not a cut.
    raw = _raw()
    start = raw.body.index(b'<div class="w-col w-col-2"><div>80</div></div>')
    end = raw.body.index(b"</div></div></div>", raw.body.index(b"$4.76")) + len(b"</div></div>")
    with pytest.raises(SchemaDriftError, match="NVIDIA HGX H100"):
        coreweave.parse([_raw(raw.body[:start] + raw.body[end:])])


def test_current_instance_table_layout_is_reported_as_unsupported() -> None:
    # A made-up minimal page with the current layout's row class (no real capture exists).
    body = b'<div role="listitem" class="table-row-v2 w-dyn-item kubernetes-gpu-pricing"></div>'
    with pytest.raises(SchemaDriftError, match=r"instance-table layout .* not supported"):
        coreweave.parse([_raw(body)])


def test_contact_sales_price_is_counted_not_parsed() -> None:
    body = _raw().body.replace(b"<strong>$0.24</strong>", b"<strong>Coming soon</strong>")
    offers, excluded = coreweave.parse_with_exclusions([_raw(body)])
    assert len(offers) == 11
    assert excluded == {"truncated_row": 1, "coming soon": 1}


def test_unreadable_price_is_schema_drift() -> None:
    body = _raw().body.replace(b"<strong>$0.24</strong>", b"<strong>TBD</strong>")
    with pytest.raises(SchemaDriftError, match="expected a price"):
        coreweave.parse([_raw(body)])


def test_fetch_requests_the_live_pricing_page() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200, content=CAPTURE_2023.read_bytes(), headers={"content-type": "text/html"}
        )

    with http.make_client(httpx.MockTransport(handler)) as client:
        responses = coreweave.fetch(client, None)
    assert len(seen) == 1
    assert seen[0].method == "GET"
    assert str(seen[0].url) == coreweave.PRICING_URL
    assert seen[0].headers["User-Agent"] == http.USER_AGENT
    assert len(coreweave.parse(responses)) == 12


def test_replay_of_every_capture_parses() -> None:
    captures = discover(SNAPSHOTS, ["coreweave"])["coreweave"]
    # The PARSED json is another tool's output and is never replayed.
    assert [c.path.name for c in captures] == [CAPTURE_2023.name]
    for capture in captures:
        with http.make_client(ReplayTransport(capture)) as client:
            offers = coreweave.parse(coreweave.fetch(client, None))
        assert offers and all(o.observed_at == capture.captured_at for o in offers)
